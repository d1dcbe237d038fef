"""Answer or ask, per suite: in-scope questions answered, out-of-scope ones clarified.

    python tests/benchmarks/bench_answer_or_ask.py [--corpora DIR]        # every suite here
    python tests/benchmarks/bench_answer_or_ask.py --suite S.jsonl=CORPUS ...
    python tests/benchmarks/bench_answer_or_ask.py --baseline no-exact-names ...
    python tests/benchmarks/bench_answer_or_ask.py --baseline no-framing-words ...

Each corpus is built with no configuration into a temporary folder, and every
question goes through ``index.ask`` twice in the same run: with the shipped
decision (the index's own calibration, ``codecite.indexer.calibration``, and
exact names, ``retrievers.evidence``) and with a baseline: by default without the
calibration (the fixed coverage floor of 0.40 that came before), or with
``--baseline no-exact-names`` the calibrated decision before exact names, or with
``--baseline no-framing-words`` the decision before complaint-framing words counted as
vague. Prints per suite: in-scope
answered and out-of-scope clarified for both, the calibrated score floor and what
the build measured on its probes; then the pooled rates over the held-out suites
and the vague sets (``heldout/vague*.jsonl``: vague complaints clarified, short
real questions answered). Stock LlamaIndex has no answer-or-ask decision: it
answers everything (in-scope 100%, out-of-scope 0%).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import codecite
from codecite.retrievers import evidence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_clarify import _rows as vague_rows  # noqa: E402
from bench_quality import HELD_OUT, HELD_OUT_DIR, REPO, SUITES, add_corpora_option  # noqa: E402

VAGUE_SETS = {
    "vague.jsonl": ("click", "flask"),
    "vague2.jsonl": (),
    "vague3.jsonl": (),
    "vague4.jsonl": (),
}


# the coverage floor 0.40; the decision before exact names; before the complaint-framing words;
# before public names written as plain words, before unknown names after a dot, before both;
# before tool names written in lower case
BASELINES = (
    "fixed",
    "no-exact-names",
    "no-framing-words",
    "no-word-names",
    "no-dotted-names",
    "before-word-and-dotted-names",
    "no-tool-names",
)
UNDOTTED_NAMED = re.compile(r"(?<![\w.])([A-Za-z][A-Za-z0-9]*)(?![\w])")  # before round 34


def _clarified(index: Any, query: str, baseline: str | None) -> bool:
    """Is ``query`` answered with a clarification: by the shipped decision (``baseline``
    None), or by the decision a name of ``BASELINES`` stands for."""
    saved = index.manifest.get("calibration")
    exact, framing = evidence.exact_evidence, evidence.FRAMING_WORDS
    named_words, named, tools = evidence.named_words, evidence._NAMED, evidence.tool_names
    if baseline == "fixed":
        index.manifest.pop("calibration", None)
    elif baseline == "no-exact-names":  # the decision before exact names (round 32's judgement)
        evidence.exact_evidence = lambda retriever, query: ([], [])
    elif baseline == "no-framing-words":  # before the framing words (round 33's judgement)
        evidence.FRAMING_WORDS = frozenset()
    if baseline in ("no-word-names", "before-word-and-dotted-names"):  # round 34's judgement
        evidence.named_words = lambda names, query: []
    if baseline in ("no-dotted-names", "before-word-and-dotted-names"):
        evidence._NAMED = UNDOTTED_NAMED
    if baseline == "no-tool-names":  # before tool names in any case (round 41's judgement)
        evidence.tool_names = frozenset
    try:
        return bool(index.ask(query).metadata.get("path") == "clarification")
    finally:
        evidence.exact_evidence, evidence.FRAMING_WORDS = exact, framing
        evidence.named_words, evidence._NAMED = named_words, named
        evidence.tool_names = tools
        if saved is not None:
            index.manifest["calibration"] = saved


def run_suite(
    corpus: Path, rows: list[dict[str, Any]], baseline: str = "fixed"
) -> tuple[dict[str, Any], list[Any]]:
    """(the build's calibration, per row: (wants clarification, calibrated, fixed floor))."""
    with tempfile.TemporaryDirectory() as tmp:
        codecite.build(corpus, index_dir=tmp)
        index = codecite.load(corpus, index_dir=tmp, check_stale=False)
        out = [
            (
                r["clarify"],
                _clarified(index, r["query"], None),
                _clarified(index, r["query"], baseline),
            )
            for r in rows
        ]
        return dict(index.manifest.get("calibration") or {}), out


def _rate(outcomes: list[Any], want: bool, col: int) -> tuple[int, int]:
    mine = [o for o in outcomes if o[0] == want]
    return sum(o[col] == want for o in mine), len(mine)


def _cell(pair: tuple[int, int]) -> str:
    hit, n = pair
    return f"{hit / n:.2f}" if n else "  - "


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpora_option(parser)
    parser.add_argument("--suites", type=Path, default=REPO.parent / "shared" / "dev-suites")
    parser.add_argument("--suite", action="append", default=[], metavar="SUITE.jsonl=CORPUS")
    parser.add_argument(
        "--baseline",
        choices=BASELINES,
        default="fixed",
        help="the second column: the fixed coverage floor 0.40 (default), the calibrated "
        "decision without exact names (what round 32 judged exact names against), or "
        "without the complaint-framing words (what round 33 judged them against)",
    )
    args = parser.parse_args()
    if args.suite:
        runs = [
            (Path(s).stem, Path(c), Path(s), True)
            for s, _, c in (a.partition("=") for a in args.suite)
        ]
    else:
        runs = [(n, args.corpora / c, args.suites / f"{n}.jsonl", False) for n, c in SUITES.items()]
        runs += [
            (n, args.corpora / c, HELD_OUT_DIR / f"{n}.jsonl", True) for n, c in HELD_OUT.items()
        ]
    runs = [r for r in runs if r[1].is_dir() and r[2].is_file()]
    print(
        f"{'suite':<16}{'in-scope answered':>22}{'out-of-scope clarified':>26}"
        f"{'score floor':>13}{'probes refused':>16}{'off-topic clarified':>21}"
    )
    both = f"shipped  {args.baseline}"
    print(f"{'':<16}{both:>22}{both:>26}")
    pooled: list[Any] = []
    for name, corpus, suite, held_out in runs:
        rows = [json.loads(line) for line in suite.open() if line.strip()]
        rows = [{"query": r["query"], "clarify": r["kind"] == "out_of_scope"} for r in rows]
        cal, outcomes = run_suite(corpus, rows, args.baseline)
        if held_out:
            pooled += outcomes
        a1, a0 = _rate(outcomes, False, 1), _rate(outcomes, False, 2)
        c1, c0 = _rate(outcomes, True, 1), _rate(outcomes, True, 2)
        floor = cal.get("score_floor")
        print(
            f"{name:<16}{_cell(a1):>14}{_cell(a0):>8}{_cell(c1):>18}{_cell(c0):>8}"
            f"{floor if floor is not None else '-':>13}{cal.get('probes_refused', '-'):>16}"
            f"{cal.get('offtopic_clarified', '-'):>21}"
        )
    if pooled:
        a1, a0 = _rate(pooled, False, 1), _rate(pooled, False, 2)
        c1, c0 = _rate(pooled, True, 1), _rate(pooled, True, 2)
        print(
            f"{'pooled held-out':<16}{_cell(a1):>14}{_cell(a0):>8}{_cell(c1):>18}{_cell(c0):>8}"
            f"   ({a1[1]} in-scope, {c1[1]} out-of-scope questions)"
        )
    if not args.suite:
        _vague(args.corpora, args.baseline)
    return 0


def _vague(corpora: Path, baseline: str) -> None:
    print(f"\n{'vague set':<14}{'corpus':<12}{'vague clarified':>22}{'short answered':>22}")
    both = f"shipped  {baseline}"
    print(f"{'':<26}{both:>22}{both:>22}")
    for set_name, default in VAGUE_SETS.items():
        rows = vague_rows(set_name, default)
        for name in dict.fromkeys(r["corpus"] for r in rows):
            corpus = corpora / HELD_OUT[name]
            if not corpus.is_dir():
                continue
            mine = [
                {"query": r["query"], "clarify": r["vague"]} for r in rows if r["corpus"] == name
            ]
            _, outcomes = run_suite(corpus, mine, baseline)
            v1, v0 = _rate(outcomes, True, 1), _rate(outcomes, True, 2)
            s1, s0 = _rate(outcomes, False, 1), _rate(outcomes, False, 2)
            print(
                f"{set_name:<14}{name:<12}{_cell(v1):>14}{_cell(v0):>8}{_cell(s1):>14}{_cell(s0):>8}"
            )


if __name__ == "__main__":
    sys.exit(main())
