"""codecite against the reference assistant on the reference's own seven suites (pycsamt 2.6.4).

    python tests/benchmarks/bench_reference_suites.py [--reference-python PY] [--sdist SDIST]

The sdist (default $PYCSAMT_SDIST or /work/ref/pycsamt-2.6.4.tar.gz; a folder also
works) holds pyCSAMT, its assistant and the assistant's suites
(``pycsamt/assistant/evals/suites/*.jsonl``, 47 records). It is unpacked into a
temporary folder three times:

- **reference**: its own harness (``pycsamt.assistant.evals.harness.evaluate``,
  lexical, k = 10) run by ``--reference-python`` (default $REFERENCE_PYTHON or
  /work/ref/venv/bin/python) with ``PYTHONPATH`` on the tree; MRR@10 is computed
  from the same retrieval results (the harness does not report it);
- **codecite, zero config**: the reference's corpus policy only
  (``bench_reference.CONFIG``: roots and the excluded assistant folders);
- **codecite, migrated**: the same plus the tables docs/migration.md describes,
  made from the reference's own constants (``WORKFLOW_KEYWORDS``,
  ``WORKFLOW_PATH_MAP``, ``HIGH_PRIORITY_PATHS``, ``QUERY_EXPANSIONS``), read with
  ``ast.literal_eval``: nothing of the reference is imported by codecite's side.

Prints one table (reference, codecite zero config, codecite migrated, stock
LlamaIndex BM25) of intent accuracy, workflow accuracy, symbol recall@10,
MRR@10 and non-empty retrieval. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_reference import CONFIG, REF_PYTHON, SDIST, unpack

import codecite
from codecite.evals import load_suites, run_eval

SUITES = "pycsamt/assistant/evals/suites"
RAG = "pycsamt/assistant/rag"
METRICS = (
    ("intent accuracy", "intent_accuracy"),
    ("workflow accuracy", "workflow_accuracy"),
    ("symbol recall@10", "symbol_recall@10"),
    ("MRR@10", "mrr@10"),
    ("non-empty retrieval", "nonempty_retrieval_rate"),
)
REFERENCE_RUN = """
import json, sys
from pathlib import Path
from pycsamt.assistant.evals.harness import evaluate, load_all_suites
from pycsamt.assistant.rag.retriever import build_retriever
root, suites = Path(sys.argv[1]), Path(sys.argv[2])
records = load_all_suites(suites)
retriever = build_retriever(root, lexical_only=True, use_feedback=False)
report = evaluate(records, retriever=retriever, k=10)
ranks = []
for rec in records:
    expected = set(rec.get("expected_symbols") or ())
    if expected:
        chunks = retriever.search(rec["query"], k=10).chunks
        hit = [i for i, c in enumerate(chunks, 1) if c.symbol in expected]
        ranks.append(1.0 / hit[0] if hit else 0.0)
m = report.metrics
print(json.dumps({
    "intent_accuracy": m.get("intent_accuracy"),
    "workflow_accuracy": m.get("workflow_accuracy"),
    "symbol_recall@10": m.get("symbol_recall"),
    "mrr@10": sum(ranks) / len(ranks) if ranks else None,
    "nonempty_retrieval_rate": m.get("retrieval_nonempty"),
    "records": len(records),
}))
"""


def constants(path: Path) -> dict[str, Any]:
    """Module-level literal assignments of a Python file (read, never imported)."""
    found: dict[str, Any] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and getattr(node, "value", None) is not None:
            try:
                found[target.id] = ast.literal_eval(node.value)  # type: ignore[arg-type]
            except (ValueError, TypeError, SyntaxError):
                continue
    return found


def migrated_tables(tree: Path) -> str:
    """The reference's workflow, priority and expansion constants as codecite tables."""
    cfg = constants(tree / RAG / "config.py")
    expansions = constants(tree / RAG / "expansion.py")["QUERY_EXPANSIONS"]
    paths: dict[str, list[str]] = {}
    for fragment, workflow in cfg["WORKFLOW_PATH_MAP"]:
        paths.setdefault(workflow, []).append(fragment)
    lines = []
    for workflow, keywords in cfg["WORKFLOW_KEYWORDS"].items():
        lines += [
            f"[workflows.{workflow}]",
            f"keywords = {json.dumps(list(keywords))}",
            f"paths = {json.dumps(paths.get(workflow, []))}",
            "",
        ]
    # the reference's priority_for: 3 for its high-priority areas, 2 for docs/source and
    # the root documents, else 1
    lines += ["[priorities]", *(f"{json.dumps(p)} = 3" for p in cfg["HIGH_PRIORITY_PATHS"])]
    lines += [f"{json.dumps(p)} = 2" for p in ("docs/source", *cfg.get("ROOT_DOCS", ()))]
    merged: dict[str, list[str]] = {}
    for trigger, terms in expansions:
        merged.setdefault(trigger, [])
        merged[trigger] += [t for t in terms if t not in merged[trigger]]
    lines += [
        "",
        "[expansions]",
        *(f"{json.dumps(t)} = {json.dumps(v)}" for t, v in merged.items()),
    ]
    return "\n".join(lines) + "\n"


def codecite_figures(tree: Path, config: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """codecite's and stock LlamaIndex's metrics on the tree, configured by ``config``."""
    (tree / "codecite.toml").write_text(config, encoding="utf-8")
    codecite.build(tree)
    report = run_eval(
        codecite.load(tree), load_suites(sorted((tree / SUITES).glob("*.jsonl"))), baseline=True
    )
    return report.overall(), report.overall("baseline")


def reference_figures(tree: Path, python: str) -> dict[str, Any] | None:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    build = [python, "-m", "pycsamt.assistant.rag", "--root", str(tree), "build"]
    done = subprocess.run(build, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        print(f"reference build failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    run = [python, "-c", REFERENCE_RUN, str(tree), str(tree / SUITES)]
    done = subprocess.run(run, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        print(f"reference eval failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reference-python", default=os.environ.get("REFERENCE_PYTHON", REF_PYTHON)
    )
    parser.add_argument("--sdist", type=Path, default=Path(os.environ.get("PYCSAMT_SDIST", SDIST)))
    args = parser.parse_args()
    if not args.sdist.exists():
        print(f"missing: {args.sdist} (pip download --no-deps --no-binary :all: pycsamt==2.6.4)")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        ref_tree = unpack(args.sdist, Path(tmp) / "ref")
        zero_tree = unpack(args.sdist, Path(tmp) / "zero")
        migrated_tree = unpack(args.sdist, Path(tmp) / "migrated")
        reference = reference_figures(ref_tree, args.reference_python)
        zero, stock = codecite_figures(zero_tree, CONFIG)
        migrated, _ = codecite_figures(
            migrated_tree, CONFIG + "\n" + migrated_tables(migrated_tree)
        )
    columns = [
        ("reference", reference or {}),
        ("codecite zero", zero),
        ("codecite migrated", migrated),
    ]
    columns.append(("stock BM25", stock))
    print(f"{'metric':22}" + "".join(f"{name:>20}" for name, _ in columns))
    for label, key in METRICS:
        cells = []
        for _, figures in columns:
            value = figures.get(key)
            cells.append(f"{value:>20.3f}" if isinstance(value, (int, float)) else f"{'n/a':>20}")
        print(f"{label:22}" + "".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
