"""Query performance at >= 10,000 nodes, against stock LlamaIndex BM25 in the same run.

    python tests/benchmarks/bench_query.py

Corpus as in bench_build.py (installed llama_index, openai, pydantic + docs/).
Prints: index load time (in process, after imports), query latency p50/p95
over realistic queries (docstring summaries and symbol names of the corpus),
the same for ``llama_index.retrievers.bm25.BM25Retriever`` over the same nodes,
their ratio, the same through ``index.query()`` (a retriever per call) and the
answer engine (retrieval, confidence, context assembly, no LLM), and the wall
time of a whole ``codecite query`` process.
Targets: load < 1 s; p50 < 10 ms; <= 3x the plain retriever; process < 2 s.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _corpus import make_corpus

import codecite

N_QUERIES = 150


def realistic_queries(index: codecite.CodeciteIndex, n: int) -> list[str]:
    rng = random.Random(7)
    code = [
        m for m in (node.metadata for node in index.nodes) if m.get("docstring") and m.get("symbol")
    ]
    picks = rng.sample(code, min(n, len(code)))
    queries = []
    for i, meta in enumerate(picks):
        if i % 4 == 0:
            queries.append(meta["symbol"].rsplit(".", 1)[-1])  # a pasted identifier
        else:
            summary = meta["docstring"].split(".")[0].split("\n")[0]
            queries.append(" ".join(summary.split()[:12]) or meta["symbol"])
    return queries


def latencies(fn, queries: list[str]) -> list[float]:
    for q in queries[:5]:
        fn(q)  # warm up
    out = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t) * 1000)
    return out


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[int(p) - 1]


def main() -> None:
    from llama_index.retrievers.bm25 import BM25Retriever

    with tempfile.TemporaryDirectory() as tmp:
        root = make_corpus(Path(tmp) / "corpus")
        codecite.build(root)
        codecite.load(root, check_stale=False)  # warm imports
        t = time.perf_counter()
        index = codecite.load(root, check_stale=False)
        load_s = time.perf_counter() - t
        t = time.perf_counter()
        codecite.load(root, check_stale=True)
        load_stale_s = time.perf_counter() - t
        queries = realistic_queries(index, N_QUERIES)
        ours = index.retriever(10)
        mine = latencies(ours.retrieve, queries)
        plain = BM25Retriever.from_defaults(nodes=index.text_nodes(), similarity_top_k=10)
        theirs = latencies(plain.retrieve, queries)
        by_index = latencies(index.query, queries)
        answers = latencies(index.as_query_engine().query, queries)
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "codecite",
                "query",
                "-C",
                str(root),
                "load a template from disk",
            ],
            check=True,
            capture_output=True,
        )
        process_s = time.perf_counter() - t
        p50, p95 = pct(mine, 50), pct(mine, 95)
        b50, b95 = pct(theirs, 50), pct(theirs, 95)
        print(f"corpus: {len(index.nodes)} nodes; {len(queries)} queries")
        print(f"{'measure':<34}{'codecite':>10}{'plain BM25':>12}{'ratio':>8}")
        print(f"{'query p50 (ms)':<34}{p50:>10.2f}{b50:>12.2f}{p50 / b50:>8.2f}")
        print(f"{'query p95 (ms)':<34}{p95:>10.2f}{b95:>12.2f}{p95 / b95:>8.2f}")
        for label, values in (
            ("index.query() p50 (ms)", by_index),
            ("answer engine p50 (ms)", answers),
        ):
            print(f"{label:<34}{pct(values, 50):>10.2f}{b50:>12.2f}{pct(values, 50) / b50:>8.2f}")
        print(f"{'index load (s)':<34}{load_s:>10.3f}")
        print(f"{'index load + stale check (s)':<34}{load_stale_s:>10.3f}")
        print(f"{'`codecite query` process (s)':<34}{process_s:>10.3f}")
        print("targets: load < 1 s; p50 < 10 ms; <= 3x plain; process < 2 s")


if __name__ == "__main__":
    main()
