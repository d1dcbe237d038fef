"""Dense retrieval benchmark: local embedding throughput, vector load, hybrid query latency.

Run: ``python tests/benchmarks/bench_dense.py`` (not collected by pytest).

1. Embedding throughput of the local backend (all-MiniLM-L6-v2, CPU) on a few
   hundred real nodes: this repository's own code and docs.
2. Vector load: 10,000 x 384 random unit vectors written as ``vectors.npy`` +
   ``vector_ids.json`` and read back (target < 1 s).
3. Hybrid query latency at 10,000 nodes with vectors loaded (target p50 < 30 ms):
   the lexical side runs on real node texts (this repository's nodes repeated to
   10,000 with distinct ids), the dense side on the random vectors, the query
   vector is precomputed so the number is codecite's own cost; the local
   model's query-embedding time is reported on its own line. Baseline: the
   lexical-only query in the same run.
"""

from __future__ import annotations

import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from llama_index.core.schema import TextNode

import codecite
from codecite.dense.vectors import load_vectors, save_vectors
from codecite.retrievers.bm25 import CodeciteRetriever
from codecite.retrievers.hybrid import ArrayDenseIndex, HybridRetriever
from codecite.retrievers.lexical import build_bm25
from codecite.retrievers.tokenizer import tokenize

REPO = Path(__file__).resolve().parents[2]
N_NODES, DIM = 10_000, 384
THROUGHPUT_NODES = 300
QUERIES = [
    "how do I build the index incrementally",
    "reciprocal rank fusion of two rankings",
    "static shift correction",
    "load the configuration from pyproject",
    "what happens when the embedding server is down",
    "tokenize camel case identifiers",
    "write vectors without pickle",
    "symbol table of a package",
    "retry on rate limit",
    "which files are skipped and why",
    "feedback factor floor",
    "metadata filters before ranking",
    "expand the query with trigger phrases",
    "parse markdown sections",
    "atomic swap of the index directory",
]


def real_nodes() -> list[TextNode]:
    """This repository's nodes (code and docs), built in a temporary copy."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(
            REPO,
            root,
            ignore=shutil.ignore_patterns(
                ".git", ".codecite*", "tests", "__pycache__", "*.egg-info"
            ),
        )
        codecite.build(root)
        return list(codecite.load(root, check_stale=False).nodes)


def p50_ms(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        for q in QUERIES:
            t = time.perf_counter()
            fn(q)
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def throughput(nodes: list[TextNode]) -> tuple[float, float, float] | None:
    from codecite.dense.local_model import LocalMiniLMEmbedding, local_available

    if not local_available():
        return None
    model = LocalMiniLMEmbedding()
    t = time.perf_counter()
    model.get_query_embedding("warm up")
    load = time.perf_counter() - t
    texts = [n.text for n in nodes[:THROUGHPUT_NODES]]
    t = time.perf_counter()
    model.get_text_embedding_batch(texts)
    rate = len(texts) / (time.perf_counter() - t)
    query_ms = p50_ms(model.get_query_embedding, repeat=1)
    return load, rate, query_ms


def scaled(nodes: list[TextNode]) -> list[TextNode]:
    out = []
    for i in range(N_NODES):
        src = nodes[i % len(nodes)]
        out.append(TextNode(id_=f"{src.node_id}#{i}", text=src.text, metadata=dict(src.metadata)))
    return out


def main() -> None:
    logging.disable(logging.WARNING)
    started = time.perf_counter()
    nodes = real_nodes()
    rows: list[tuple[str, str, str]] = []
    local = throughput(nodes)
    if local is None:
        rows.append(("local embedding", "skipped", "pip install 'codecite[local]'"))
    else:
        load, rate, query_ms = local
        rows.append(("local model load", f"{load:.2f} s", "once per process"))
        rows.append(
            (
                f"local embedding ({min(len(nodes), THROUGHPUT_NODES)} nodes)",
                f"{rate:.1f} nodes/s",
                "CPU, batch 64",
            )
        )
        rows.append(("local query embedding p50", f"{query_ms:.1f} ms", "added to a query"))

    rng = np.random.default_rng(0)
    big = scaled(nodes)
    matrix = rng.normal(size=(N_NODES, DIM)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        save_vectors(Path(tmp), [n.node_id for n in big], matrix)
        loads = []
        for _ in range(5):
            t = time.perf_counter()
            stored = load_vectors(Path(tmp))
            dense = ArrayDenseIndex(stored.ids, stored.matrix)
            loads.append(time.perf_counter() - t)
    load_s = statistics.median(loads)
    rows.append(
        (
            f"vector load {N_NODES:,} x {DIM}",
            f"{load_s * 1000:.1f} ms",
            f"target < 1000 ms: {'ok' if load_s < 1 else 'MISSED'}",
        )
    )

    lexical = CodeciteRetriever(
        big, build_bm25([tokenize(n.text) for n in big]), similarity_top_k=10
    )
    qvec = rng.normal(size=DIM).astype(np.float32)
    hybrid = HybridRetriever(
        lexical,
        dense,
        embed_query=lambda q: qvec,  # model cost apart
        stored_dimension=DIM,
        similarity_top_k=10,
        symbol_gate=False,
    )
    lex_ms = p50_ms(lambda q: lexical.retrieve_context(q))
    hyb_ms = p50_ms(lambda q: hybrid.retrieve_context(q))
    rows.append((f"lexical query p50 ({N_NODES:,} nodes)", f"{lex_ms:.1f} ms", "baseline 1.00x"))
    rows.append(
        (
            f"hybrid query p50 ({N_NODES:,} nodes)",
            f"{hyb_ms:.1f} ms",
            f"{hyb_ms / lex_ms:.2f}x lexical; target < 30 ms: {'ok' if hyb_ms < 30 else 'MISSED'}",
        )
    )
    if local is not None:
        rows.append(
            (
                "hybrid + local query embedding",
                f"{hyb_ms + local[2]:.1f} ms",
                f"{(hyb_ms + local[2]) / lex_ms:.2f}x lexical",
            )
        )

    width = max(len(r[0]) for r in rows) + 2
    print(
        f"dense benchmark: {len(nodes)} real nodes from this repository; "
        f"{N_NODES:,} nodes x {DIM} dims for load and latency"
    )
    print(f"{'measure':<{width}}{'value':>14}   note")
    for name, value, note in rows:
        print(f"{name:<{width}}{value:>14}   {note}")
    print(
        f"(benchmark wall time {time.perf_counter() - started:.1f}s, python "
        f"{sys.version.split()[0]})"
    )


if __name__ == "__main__":
    main()
