"""Does the zero-config confidence rule ask back on vague messages and answer short real ones?

    python tests/benchmarks/bench_clarify.py [--corpora DIR]

Four sets, all written without looking at codecite:

- ``heldout/vague.jsonl``: 20 vague complaints and 20 short answerable
  questions about a command-line or web library, run on the click and flask
  held-out corpora (the libraries those short questions are about);
- ``heldout/vague2.jsonl`` (held-out round 8): 30 vague complaints and 30
  short questions, each line naming the library's help box it was typed into
  (werkzeug, anyio or urllib3);
- ``heldout/vague3.jsonl`` (held-out round 15): 40 and 40, on patsy, simpy,
  pydash and tenacity;
- ``heldout/vague4.jsonl`` (held-out round 16): 40 and 40, on asteval,
  periodictable, mistune and feedparser.

Each corpus is built under ``--corpora`` with no configuration and decided with
its own calibration (``bench_answer_or_ask.py`` prints the fixed floor beside it). Prints per
corpus: vague messages clarified and short questions answered, and per set
how many vague messages the vague-word check alone catches (the rest must
fail the coverage floor to be clarified).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import codecite
from codecite.answers.confidence import assess
from codecite.retrievers.evidence import MIN_SPECIFIC_TOKENS, VAGUE_WORDS
from codecite.retrievers.tokenizer import query_tokens

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_quality import HELD_OUT, add_corpora_option  # noqa: E402


def _rows(name: str, default_corpora: tuple[str, ...]) -> list[dict[str, Any]]:
    """The set's lines, one per (corpus it is run on, line)."""
    out = []
    for line in (HERE / "heldout" / name).open():
        row = json.loads(line)
        for corpus in [row["corpus"]] if "corpus" in row else default_corpora:
            out.append({**row, "corpus": corpus})
    return out


def _word_rule(rows: list[dict[str, Any]]) -> str:
    vague = {r["query"] for r in rows if r["vague"]}
    caught = sum(
        len([t for t in query_tokens(q) if t not in VAGUE_WORDS]) < MIN_SPECIFIC_TOKENS
        for q in vague
    )
    return f"{caught}/{len(vague)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpora_option(parser)
    args = parser.parse_args()
    return clarify_tables(args.corpora)


def clarify_tables(corpora: Path, overrides: dict[str, Any] | None = None) -> int:
    """Per vague set and corpus: vague messages clarified, short questions answered."""
    sets = {
        "vague.jsonl": _rows("vague.jsonl", ("click", "flask")),
        "vague2.jsonl": _rows("vague2.jsonl", ()),
        "vague3.jsonl": _rows("vague3.jsonl", ()),
        "vague4.jsonl": _rows("vague4.jsonl", ()),
    }
    needed = sorted({r["corpus"] for rows in sets.values() for r in rows})
    missing = [name for name in needed if not (corpora / HELD_OUT[name]).is_dir()]
    if missing:
        print(
            f"no held-out corpus for {', '.join(missing)} under {corpora}; see heldout/README.md",
            file=sys.stderr,
        )
        return 1
    for set_name, rows in sets.items():
        print(f"\n{set_name}: the vague-word check alone catches {_word_rule(rows)} vague messages")
        print(f"{'corpus':<14}{'vague clarified':>17}{'short answered':>16}")
        for name in dict.fromkeys(r["corpus"] for r in rows):
            mine = [r for r in rows if r["corpus"] == name]
            with tempfile.TemporaryDirectory() as tmp:
                corpus = corpora / HELD_OUT[name]
                codecite.build(corpus, index_dir=tmp)
                index = codecite.load(corpus, index_dir=tmp, check_stale=False)
                retriever = index.with_settings(**(overrides or {})).retriever(10)
                calibration = index.manifest.get("calibration")  # the build's own
                sure = [
                    assess(
                        retriever, retriever.retrieve_context(r["query"]), calibration=calibration
                    ).confident
                    for r in mine
                ]
            vague = [s for s, r in zip(sure, mine, strict=True) if r["vague"]]
            short = [s for s, r in zip(sure, mine, strict=True) if not r["vague"]]
            print(
                f"{name:<14}{f'{vague.count(False)}/{len(vague)}':>17}"
                f"{f'{short.count(True)}/{len(short)}':>16}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
