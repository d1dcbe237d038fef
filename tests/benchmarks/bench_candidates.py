"""The candidate scorer against the whole-corpus scorer, in one process, interleaved.

    python tests/benchmarks/bench_candidates.py [--reference REV] [--rounds N] [--root DIR]

On the bench corpus (``_corpus.py``, about 16,000 nodes) and ``bench_query.py``'s
150 queries: the median over the queries of ``LexicalScorer.retrieve_context``
(each query's best of ``--rounds``, the three scorers taking turns query by
query) for the scorer of ``--reference`` (before the change, as
``check_sparse.py`` imports it), the scorer now (the candidates, or every node when
they are more than ``EVERY_NODE_SHARE`` of the nodes), the scorer now always at the
candidates (``_every_node_share = 1``) and always at every node
(``_candidates_only = False``); and the share of the nodes that are candidates.
``--root``: a corpus built already instead (e.g. ``bench_scale.py``'s fifteen
copies, built with ``codecite build``).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _corpus import make_corpus
from bench_query import N_QUERIES, realistic_queries
from check_sparse import REFERENCE, Reference, reference_retrievers

import codecite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", default=REFERENCE)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--root", type=Path, help="a built corpus (default: the bench corpus)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ref = Reference(reference_retrievers(args.reference, Path(tmp) / "reference"))
        root = args.root
        if root is None:
            root = make_corpus(Path(tmp) / "corpus")
            codecite.build(root)
        index = codecite.load(root, check_stale=False)
        queries = realistic_queries(index, N_QUERIES)
        new = index.scorer(10)
        anyshare = copy.copy(new)
        anyshare._every_node_share = 1.0
        every = copy.copy(new)
        every._candidates_only = False
        scorers = {
            "before": ref.scorer(new),
            "now": new,
            "candidates always": anyshare,
            "every node always": every,
        }
        for scorer in scorers.values():
            for q in queries[:5]:
                scorer.retrieve_context(q)  # warm up
        best: dict[str, list[float]] = {name: [] for name in scorers}
        for q in queries:
            times: dict[str, list[float]] = {name: [] for name in scorers}
            for _ in range(args.rounds):
                for name, scorer in scorers.items():
                    t = time.perf_counter()
                    scorer.retrieve_context(q)
                    times[name].append((time.perf_counter() - t) * 1000)
            for name in scorers:
                best[name].append(min(times[name]))
        shares = []
        for q in queries:
            tokens, expansion, _, _ = new.read_query(q)
            forms = new.query_variants(tokens, expansion)
            shares.append(new.candidates(tokens, expansion, forms).size / len(index.nodes))
        before = statistics.median(best["before"])
        print(f"corpus: {len(index.nodes)} nodes; {len(queries)} queries")
        print(f"candidates: median {statistics.median(shares):.1%} of the nodes")
        print(f"{'retrieve_context':<20}{'p50 (ms)':>10}{'p95 (ms)':>10}{'p50 vs before':>15}")
        for name, values in best.items():
            p50 = statistics.median(values)
            p95 = statistics.quantiles(values, n=100)[94]
            print(f"{name:<20}{p50:>10.3f}{p95:>10.3f}{p50 / before:>15.2f}")


if __name__ == "__main__":
    main()
