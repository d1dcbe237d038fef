"""The candidate scorer against the whole-corpus scorer it replaced: bit for bit.

    python tests/benchmarks/check_sparse.py [--reference REV] [--corpora DIR ...]

``LexicalScorer.retrieve_context`` composes the factors at the query's candidates
only (docs/architecture.md, "Query speed"). This runs the same queries through it
and through the scorer of ``--reference`` (the commit before the change: its
``retrievers/`` package, read with ``git archive`` and imported under another name,
in this same process, each side with its own per-node vectors) and fails on any
difference: ranked node ids, scores, every ``ScoreBreakdown`` field, ``top_score``,
the page lead, raisers, variants; and ``score_all``'s whole vectors. The scorer
scores the candidates here however many they are (``_every_node_share = 1``), and
its own whole-corpus switch (``_candidates_only = False``) is checked too.

Corpora: the bench corpus of ``_corpus.py`` (about 16,000 nodes) and real
projects (default: five of ``/work/devsuite-corpora``), each built into a
temporary index. Queries: symbol paths, leaf names (bare and as code), docstring
summaries, pasted messages, and the ``query`` field of the held-out suites of the
project (``heldout/*.jsonl``) and of the vague suites. Settings: the defaults,
filters (kind, path prefix), feedback votes, a configured expansion, page evidence
(``page_weight`` 0.3), no doc propagation, and the switches of
``retrievers/evidence.py`` (``names``, ``variants``, ``pages``, ``lead``).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import io
import json
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _corpus import REPO, make_corpus

import codecite

REFERENCE = "026894e"  # main before the candidate scorer
CORPORA = Path("/work/devsuite-corpora")
DEFAULT_CORPORA = (
    "attrs-26.1.0",
    "click-8.1.7",
    "rich-13.9.4-src",
    "networkx-3.6.1",
    "xarray-2026.9.0",
)
HELDOUT = Path(__file__).parent / "heldout"
PER_KIND = 15  # queries of each kind made from a corpus's own nodes
SWITCHES = (  # retrieve_context's keyword arguments, as evidence.py and the CLI pass them
    {},
    {"names": False, "pages": False, "lead": False},
    {"variants": False, "names": False, "pages": False, "lead": False},
)


def reference_retrievers(rev: str, dest: Path) -> ModuleType:
    """``retrievers/`` at ``rev``, importable as ``_reference_retrievers``."""
    data = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "retrievers"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    folder = dest / "retrievers"
    spec = importlib.util.spec_from_file_location(
        "_reference_retrievers", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    for name in ("scorer", "propagation", "pages", "node_arrays"):
        importlib.import_module(f"{spec.name}.{name}")
    return package


class Reference:
    """The reference scorer made from the same parts as a new one (its own vectors)."""

    def __init__(self, package: ModuleType) -> None:
        self.p = package
        self._arrays: dict[int, Any] = {}

    def scorer(self, new: Any) -> Any:
        p = self.p
        prop = new.propagation
        ref_prop = (
            p.propagation.DocPropagation(prop.sections, prop.symbols, prop.size, new._arrays.code)
            if prop is not None
            else None
        )
        pages = new.pages
        ref_pages = (
            p.pages.PageEvidence(lambda: pages.pages, lambda: pages.bm25)
            if pages is not None
            else None
        )
        key = id(new._arrays)
        if key not in self._arrays:
            self._arrays[key] = p.node_arrays.NodeArrays(
                new.nodes, new.settings, new.feedback, new.public_names, ref_prop
            )
        return p.scorer.LexicalScorer(
            new.nodes,
            new.bm25,
            settings=new.settings,
            similarity_top_k=new.similarity_top_k,
            feedback=new.feedback,
            propagation=ref_prop,
            mined_expansion=new.mined_expansion,
            public_names=new.public_names,
            filters=new._filters,
            kinds=new._kinds,
            workflow=new._workflow_filter,
            path_prefix=new._path_prefix,
            node_arrays=self._arrays[key],
            pages=ref_pages,
        )


def exact(value: Any) -> Any:
    """``value`` in a form whose equality is bit equality (floats by their repr)."""
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return {k: exact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [exact(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return exact(dataclasses.asdict(value))
    return value


def context_of(ctx: Any) -> Any:
    return exact(
        {
            "ids": [h.node.node_id for h in ctx.nodes],
            "scores": [h.score for h in ctx.nodes],
            "breakdown": [(k, ctx.breakdown[k]) for k in ctx.breakdown],
            "top": ctx.top_score,
            "lead": ctx.page_lead,
            "raisers": ctx.raisers,
            "variants": ctx.variants,
            "tokens": ctx.tokens,
            "expansion": [ctx.expansion, ctx.expansion_source],
            "workflow": ctx.workflow,
            "page_weight": ctx.page_weight,
        }
    )


def vectors_of(final: np.ndarray, parts: dict[str, Any]) -> Any:
    return exact({"final": final, **{k: v for k, v in parts.items() if k != "rows"}})


def queries_for(index: codecite.CodeciteIndex, suite: str | None, seed: int) -> list[str]:
    """Symbol paths, leaf names, docstring summaries, pasted messages, held-out questions."""
    rng = random.Random(seed)
    metas = [n.metadata for n in index.nodes]
    symbols = [m for m in metas if m.get("symbol")]
    documented = [m for m in symbols if m.get("docstring")]
    out: list[str] = []
    for m in rng.sample(symbols, min(PER_KIND, len(symbols))):
        out.append(m["symbol"])
    for i, m in enumerate(rng.sample(symbols, min(PER_KIND, len(symbols)))):
        leaf = m["symbol"].rsplit(".", 1)[-1]
        out.append(f"what does `{leaf}()` do" if i % 2 else leaf)
    for m in rng.sample(documented, min(PER_KIND, len(documented))):
        summary = m["docstring"].split(".")[0].split("\n")[0]
        out.append(" ".join(summary.split()[:12]) or m["symbol"])
    messages = [t for m in metas for t in (m.get("messages") or [])]
    for template in rng.sample(messages, min(5, len(messages))):
        out.append(f"I get ValueError: {template.replace('{}', 'x')} when I call it")
    files = [HELDOUT / f"{suite}.jsonl"] if suite else []
    files += sorted(HELDOUT.glob("vague*.jsonl"))[:1]
    for path in files:
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    out.append(json.loads(line)["query"])
    return list(dict.fromkeys(q for q in out if q.strip()))


def configurations(index: codecite.CodeciteIndex) -> list[tuple[str, Any]]:
    """(label, scorer) for the settings compared."""
    metas = [n.metadata for n in index.nodes]
    paths = sorted({m["source_path"] for m in metas if m.get("source_path")})
    prefix = paths[len(paths) // 2].split("/")[0]
    voted = [m["symbol"] for m in metas if m.get("symbol")][:: max(1, len(metas) // 40)][:6]
    votes = {s: float(v) for s, v in zip(voted, (3, -4, 1, -1, 2, -6), strict=False)}
    some = {"config": ("settings", "options"), "error": ("exception", "raise")}
    flows = {"testing": ("test", "fixture"), "output": ("print", "render")}
    return [
        ("default", index.scorer(10)),
        ("kind=python_symbol", index.scorer(10, kind="python_symbol")),
        ("kind=docs", index.scorer(10, kind=["doc_section", "module_doc"])),
        (f"path={prefix}", index.scorer(10, path=prefix)),
        ("feedback", index.scorer(10, feedback=votes)),
        ("expansions", index.with_settings(expansions=some).scorer(10)),
        ("workflows", index.with_settings(workflows=flows).scorer(10)),
        ("page_weight=0.3", index.with_settings(page_weight=0.3).scorer(10)),
        ("doc_propagation off", index.with_settings(doc_propagation=False).scorer(10)),
        ("k=40", index.scorer(40)),
    ]


def check(index: codecite.CodeciteIndex, queries: list[str], ref: Reference) -> dict[str, int]:
    counts = {"queries": len(queries), "comparisons": 0, "differences": 0}
    for label, new in configurations(index):
        new._every_node_share = 1.0  # the candidates, however many
        old = ref.scorer(new)
        dense = type(new).__new__(type(new))  # the new scorer at every node
        dense.__dict__.update(new.__dict__)
        dense._candidates_only = False
        for q in queries:
            for switches in SWITCHES:
                mine = context_of(new.retrieve_context(q, **switches))
                theirs = context_of(old.retrieve_context(q, **switches))
                every = context_of(dense.retrieve_context(q, **switches))
                counts["comparisons"] += 1
                if mine != theirs or mine != every:
                    counts["differences"] += 1
                    print(f"  DIFFERENT [{label}] {switches} {q!r}")
            if label in ("default", "page_weight=0.3", "feedback"):
                counts["comparisons"] += 1
                if vectors_of(*new.score_all(q)) != vectors_of(*old.score_all(q)):
                    counts["differences"] += 1
                    print(f"  DIFFERENT score_all [{label}] {q!r}")
    return counts


def suite_of(name: str) -> str | None:
    stem = name.split("-")[0].replace("-", "_")
    return stem if (HELDOUT / f"{stem}.jsonl").is_file() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", default=REFERENCE, help="the commit to compare with")
    parser.add_argument("--corpora", nargs="*", default=list(DEFAULT_CORPORA))
    parser.add_argument("--no-bench-corpus", action="store_true")
    args = parser.parse_args()
    totals = {"queries": 0, "comparisons": 0, "differences": 0}
    with tempfile.TemporaryDirectory() as tmp:
        ref = Reference(reference_retrievers(args.reference, Path(tmp) / "reference"))
        roots: list[tuple[str, Path, str | None]] = []
        if not args.no_bench_corpus:
            roots.append(("bench corpus", make_corpus(Path(tmp) / "bench"), None))
        roots += [(name, CORPORA / name, suite_of(name)) for name in args.corpora]
        for i, (name, root, suite) in enumerate(roots):
            index_dir = str(Path(tmp) / f"index{i}")
            t = time.perf_counter()
            codecite.build(root, index_dir=index_dir)
            index = codecite.load(root, index_dir=index_dir, check_stale=False)
            queries = queries_for(index, suite, seed=i)
            counts = check(index, queries, ref)
            print(
                f"{name}: {len(index.nodes)} nodes, {counts['queries']} queries, "
                f"{counts['comparisons']} comparisons, {counts['differences']} different "
                f"({time.perf_counter() - t:.0f} s)",
                flush=True,
            )
            for key in totals:
                totals[key] += counts[key]
    print(
        f"total: {totals['queries']} queries, {totals['comparisons']} comparisons, "
        f"{totals['differences']} different"
    )
    sys.exit(1 if totals["differences"] else 0)


if __name__ == "__main__":
    main()
