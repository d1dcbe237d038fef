"""`codecite mcp` search latency with the index resident: a real MCP client over stdio.

    python tests/benchmarks/bench_mcp.py [--queries 150]

Corpus: the one of bench_build/bench_query (installed llama_index, openai and
pydantic plus docs/, about 16,000 nodes), built once in a temporary folder. The
SDK's stdio client starts ``codecite mcp`` as a subprocess and calls ``search``
(k=8) for each query; the table gives the round trip (client to server and back)
p50/p95 next to ``index.query`` in this process over the same index and queries,
and their ratio. Target: round trip p50 <= 10 ms at 16k nodes. Nothing asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from _corpus import make_corpus

import codecite


def queries_of(index: codecite.CodeciteIndex, count: int) -> list[str]:
    """Docstring first lines of symbols, and symbol names, as questions."""
    out: list[str] = []
    for node in index.nodes:
        meta = node.metadata
        if meta.get("docstring") and meta.get("symbol"):
            out.append(meta["docstring"].strip().split("\n", 1)[0][:120] or meta["symbol"])
            out.append(meta["symbol"])
        if len(out) >= count:
            break
    return out[:count]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def round_trips(root: Path, queries: list[str]) -> tuple[list[float], float]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "codecite", "mcp", "-C", str(root)],
        env=dict(os.environ),
    )
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool("search", {"query": "warm up", "k": 8})
        ready = time.perf_counter() - start
        timings = []
        for q in queries:
            t = time.perf_counter()
            result = await session.call_tool("search", {"query": q, "k": 8})
            timings.append((time.perf_counter() - t) * 1000)
            assert not result.is_error, result.content[0].text
    return timings, ready


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=150)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = make_corpus(Path(tmp) / "corpus")
        subprocess.run(
            [sys.executable, "-m", "codecite", "build", "-C", str(root)],
            check=True,
            capture_output=True,
        )
        index = codecite.load(root, check_stale=False)
        queries = queries_of(index, args.queries)
        index.query("warm up", k=8)
        local = []
        for q in queries:
            t = time.perf_counter()
            index.query(q, k=8)
            local.append((time.perf_counter() - t) * 1000)
        remote, ready = anyio.run(round_trips, root, queries)
        print(
            f"corpus: {len(index.nodes)} nodes; {len(queries)} queries; server ready in "
            f"{ready:.2f} s (start, load, first search)"
        )
        print(f"{'measure':<34}{'p50 ms':>9}{'p95 ms':>9}")
        for name, values in (
            ("index.query() in process", local),
            ("mcp search round trip (stdio)", remote),
        ):
            print(f"{name:<34}{statistics.median(values):>9.2f}{percentile(values, 0.95):>9.2f}")
        ratio = statistics.median(remote) / statistics.median(local)
        print(f"round trip / in-process p50: {ratio:.2f}; target round trip p50 <= 10 ms")


if __name__ == "__main__":
    main()
