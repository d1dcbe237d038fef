"""Scale, simulated: a monorepo of about 500,000 nodes against a unit corpus in the same run.

    python tests/benchmarks/bench_scale.py [--nodes 500000] [--corpora DIR]

The unit corpus is every distinct source at hand, copied once: the held-out
corpora under ``--corpora`` (their ``src/`` and ``docs/``) and the installed
llama_index, openai and pydantic packages. The large corpus is that unit copied
as many times as it takes to reach ``--nodes``, each copy in its own folder
(``copy_02/``...), so every module path and node id is new while the words are
the unit's: the vocabulary does not grow with the copies (a real monorepo's
would), which flatters the postings' size a little and nothing else. Each
build and each load runs in its own process (peak memory is that process's).

Prints, for the unit and the large corpus: nodes, full build seconds and
nodes/s, peak build memory, index size on disk, in-process load seconds and
the first query after it, the same run's baseline of decoding every record
(what a load did before it mapped ``nodes.jsonl``), memory per node after
load, query p50/p95 over 200 queries (identifier and docstring-summary queries,
as ``bench_query.py``), and a whole ``codecite query`` process; then the large
corpus's figures as ratios of the unit's, next to the ratio of node counts
(linear scaling is ratio = node ratio). What would have to change past one
machine is in docs/architecture.md, "Scale".
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import PACKAGES  # noqa: E402
from bench_quality import HELD_OUT, add_corpora_option  # noqa: E402

BUILD = """
import json, sys, time
import codecite.indexer.build as b
t = time.perf_counter()
r = b.build_index(sys.argv[1], full=True)
print(json.dumps({"seconds": time.perf_counter() - t, "nodes": r.nodes, "files": r.files}))
"""
LOAD = """
import json, random, resource, statistics, sys, time
import codecite
t = time.perf_counter()
index = codecite.load(sys.argv[1], check_stale=False)
load = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
index.scorer(10).retrieve_context("parse a date string")  # what a load leaves to the first
first = time.perf_counter() - t
rng = random.Random(7)
metas = [n.metadata for n in index.nodes]
metas = [m for m in metas if m.get("docstring") and m.get("symbol")]
queries = []
for i, m in enumerate(rng.sample(metas, min(200, len(metas)))):
    words = m["docstring"].split(".")[0].split()[:12]
    queries.append(m["symbol"].rsplit(".", 1)[-1] if i % 4 == 0 or not words else " ".join(words))
scorer = index.scorer(10)
for q in queries[:5]:
    scorer.retrieve_context(q)
ms = []
for q in queries:
    t = time.perf_counter()
    scorer.retrieve_context(q)
    ms.append((time.perf_counter() - t) * 1000)
ms.sort()
t = time.perf_counter()  # the baseline: what decoding every record costs (the old load's core)
with open(index.config.index_path / "nodes.jsonl", encoding="utf-8") as fh:
    decoded = [json.loads(line) for line in fh]
every = time.perf_counter() - t
print(json.dumps({"load": load, "first": first, "rss_mib": rss, "nodes": len(index.nodes),
                  "decode_all": every,
                  "p50": statistics.median(ms), "p95": ms[int(0.95 * (len(ms) - 1))]}))
"""


def unit_sources(corpora: Path) -> list[tuple[Path, str]]:
    """(folder, name) of every distinct source: held-out corpora and installed packages."""
    import importlib

    out = []
    for name, folder in sorted(HELD_OUT.items()):
        root = corpora / folder
        for sub in ("src", "docs"):
            if (root / sub).is_dir():
                out.append((root / sub, f"{name}_{sub}"))
    for package in PACKAGES:
        out.append((Path(next(iter(importlib.import_module(package).__path__))), package))
    return out


def lay_out(dest: Path, sources: list[tuple[Path, str]], copies: int) -> Path:
    """``copies`` copies of the unit under ``dest``, each a root of its own."""
    roots = []
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "tests", "test")
    for c in range(1, copies + 1):
        for folder, name in sources:
            target = dest / f"copy_{c:02d}" / name
            shutil.copytree(folder, target, ignore=ignore, symlinks=False)
        roots.append(f"copy_{c:02d}")
    quoted = ", ".join(f'"{r}"' for r in roots)
    (dest / "codecite.toml").write_text(f"roots = [{quoted}]\n")
    return dest


def child(code: str, *args: str) -> tuple[dict, float]:
    """The child's JSON line and its peak memory in MiB."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return json.loads(out.stdout.strip().splitlines()[-1]), peak


def query_process(root: Path) -> float:
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "codecite", "query", "parse a date string", "-k", "5"],
        cwd=root,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - t


def measure(root: Path) -> dict:
    built, build_peak = child(BUILD, str(root))
    loaded, _ = child(LOAD, str(root))
    size = sum(p.stat().st_size for p in (root / ".codecite").rglob("*") if p.is_file())
    return {
        **built,
        **loaded,
        "build_peak_mib": build_peak,  # the largest child so far: the build of this corpus
        "disk_mib": size / 2**20,
        "process": query_process(root),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500_000)
    add_corpora_option(parser)
    args = parser.parse_args()
    sources = unit_sources(args.corpora)
    with tempfile.TemporaryDirectory() as tmp:
        unit = measure(lay_out(Path(tmp) / "unit", sources, 1))
        copies = max(2, math.ceil(args.nodes / unit["nodes"]))
        shutil.rmtree(Path(tmp) / "unit")
        large = measure(lay_out(Path(tmp) / "large", sources, copies))
    rows = [
        ("nodes", "nodes", "{:,.0f}"),
        ("full build (s)", "seconds", "{:.1f}"),
        ("peak build memory (MiB)", "build_peak_mib", "{:,.0f}"),
        ("index on disk (MiB)", "disk_mib", "{:,.0f}"),
        ("load in process (s)", "load", "{:.2f}"),
        ("first query after it (s)", "first", "{:.2f}"),
        ("baseline: json of every record (s)", "decode_all", "{:.2f}"),
        ("memory after load (MiB)", "rss_mib", "{:,.0f}"),
        ("query p50 (ms)", "p50", "{:.1f}"),
        ("query p95 (ms)", "p95", "{:.1f}"),
        ("`codecite query` process (s)", "process", "{:.2f}"),
    ]
    print(f"unit: {len(sources)} sources; large: {copies} copies of it")
    print(f"{'':<30}{'unit':>12}{'large':>12}{'ratio':>9}")
    for label, key, fmt in rows:
        a, b = unit[key], large[key]
        print(f"{label:<30}{fmt.format(a):>12}{fmt.format(b):>12}{b / a:>9.1f}")
    for name, r in (("unit", unit), ("large", large)):
        print(
            f"{name}: {r['nodes'] / r['seconds']:,.0f} nodes/s built; "
            f"{r['rss_mib'] * 1024 / r['nodes']:.1f} KiB of memory per node after load; "
            f"load {r['load'] / r['decode_all']:.2f} of decoding every record"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
