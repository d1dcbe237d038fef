"""The ranking math of dense retrieval: cosine ranking and Reciprocal Rank Fusion.

Pure functions over arrays and id sequences (no I/O, no LlamaIndex objects),
each with its formula and the reason for it, in the style of bm25s'
``scoring.py``. ``retrievers/hybrid.py`` wires them to the lexical retriever.

The constants are the defaults of docs/dense.md ("Ranking").
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .defaults import DEFAULT_COSINE_FLOOR, DEFAULT_DENSE_MARGIN, DEFAULT_RRF_K

MIN_FUSION_DEPTH = 50
FUSION_DEPTH_FACTOR = 5


@dataclass(frozen=True)
class Fused:
    """One node of a fused ranking: its RRF score and 0-based rank in each input.

    A rank is ``None`` when the node was absent from that ranking (or below its
    fusion depth); it then contributed nothing from it.
    """

    node_id: str
    score: float
    ranks: tuple[int | None, ...]

    @property
    def best_rank(self) -> int:
        return min(r for r in self.ranks if r is not None)


def fusion_depth(k: int) -> int:
    """How many of each ranking are fused: ``max(5k, 50)``.

    Fusing deeper than ``k`` lets a node that is, say, 30th lexically but 2nd
    by meaning reach the top ``k``; a floor of 50 keeps small ``k`` from
    starving the fusion, and the bound keeps the long tail (where both rankings
    are noise) from adding up to a spurious winner.
    """
    return max(FUSION_DEPTH_FACTOR * int(k), MIN_FUSION_DEPTH)


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32); an all-zero row stays zero.

    With unit rows the cosine is a plain dot product, so a query costs one
    matrix-vector product. A zero row (an empty text) has cosine 0 with
    everything and so never passes the cosine floor.
    """
    m = np.asarray(matrix, dtype=np.float32)
    squeeze = m.ndim == 1
    m = np.atleast_2d(m)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    out = np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)
    return out[0] if squeeze else out


def cosine_ranking(
    matrix: np.ndarray,
    query: np.ndarray,
    depth: int,
    floor: float = DEFAULT_COSINE_FLOOR,
    mask: np.ndarray | None = None,
) -> tuple[list[tuple[int, float]], float | None]:
    """Rows by cosine with ``query``, best first: ``cos(i) = v_i . q`` (unit vectors).

    Only rows with ``cos >= floor`` are ranked (0.20, docs/dense.md "Ranking"). The floor is
    what "no match" means for dense retrieval: every vector has *some* nearest
    neighbour, and without a floor an off-topic question would always fuse in
    ``depth`` arbitrary nodes. Ties are broken by row order, so the ranking is
    deterministic. ``mask`` (one bool per row) removes filtered rows before
    ranking. Returns the ranked ``(row, cosine)`` pairs (at most ``depth``) and
    the best cosine of any allowed row, floor or not (``None`` if no row is
    allowed), which callers report as a confidence signal.
    """
    if matrix.shape[0] == 0:
        return [], None
    cos = matrix @ np.asarray(query, dtype=np.float32)
    if mask is not None:
        cos = np.where(mask, cos, -np.inf)
    best = float(cos.max())
    if not np.isfinite(best):
        return [], None
    keep = np.flatnonzero(cos >= floor)
    if depth <= 0:
        return [], best
    if keep.size > depth:
        part = np.argpartition(-cos[keep], depth - 1)[:depth]
        keep = keep[part]
    order = keep[np.lexsort((keep, -cos[keep]))]
    return [(int(i), float(cos[i])) for i in order], best


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], depth: int | None = None, k: int = DEFAULT_RRF_K
) -> list[Fused]:
    """Fuse rankings of node ids: ``RRF(i) = sum_r 1 / (k + rank_r(i))``, 0-based ranks.

    Cormack, Clarke & Buettcher (SIGIR 2009), with k = 60. RRF uses ranks only,
    so it needs no calibration between BM25 scores (unbounded) and cosines
    (in [-1, 1]); a node absent from a ranking gets nothing from it. Only the
    first ``depth`` ids of each ranking count (``None``: all). Keyed by node id,
    never by text (LlamaIndex's ``QueryFusionRetriever`` keys on text, which
    merges identical code in two files). A repeated id keeps its first rank.

    Ordered by score, then by the node's best rank in any input, then by id:
    symmetric in the rankings, so swapping them gives the same result.

    Example:
        >>> [(f.node_id, round(f.score, 5)) for f in reciprocal_rank_fusion([["a", "b"], ["b"]])]
        [('b', 0.03306), ('a', 0.01667)]
    """
    ranks: dict[str, list[int | None]] = {}
    for r, ranking in enumerate(rankings):
        cut = ranking if depth is None else ranking[:depth]
        for pos, node_id in enumerate(cut):
            slot = ranks.setdefault(node_id, [None] * len(rankings))
            if slot[r] is None:
                slot[r] = pos
    fused = [Fused(node_id, _rrf_score(rs, k), tuple(rs)) for node_id, rs in ranks.items()]
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.node_id))
    return fused


def convex_fusion(
    lexical: Sequence[tuple[str, float]],
    dense: Sequence[tuple[str, float]],
    lexical_weight: float,
    margin: float = DEFAULT_DENSE_MARGIN,
    depth: int | None = None,
) -> list[Fused]:
    """Fuse by score: ``F(i) = a * s(i) / s_max + (1 - a) * clip((cos(i) - best + m) / m)``.

    ``lexical`` are ``(node id, s(c))`` best first, ``dense`` ``(node id, cosine)`` best
    first; only the first ``depth`` of each count. The lexical score is divided by the
    best one (BM25's least is 0), so a lexical winner far ahead of the rest keeps most
    of its lead, and a flat lexical ranking leaves the order to the cosines. A cosine
    counts by how close it is to the best one: ``m`` (0.35) below the best or further
    gives nothing, so a dense candidate far below the best cosine is dropped, whatever
    its rank. ``a`` is how far this query's lexical ranking is trusted (the retriever
    leans lexical for a query that writes identifiers). A convex combination of
    normalised scores rather than of ranks: Bruch, Gai and Ingber, "An Analysis of
    Fusion Functions for Hybrid Retrieval" (ACM TOIS 2023) found it ahead of RRF.

    Ordered by fused score, then best rank in either input, then id.

    Example:
        >>> fused = convex_fusion([("a", 4.0), ("b", 1.0)], [("b", 0.8), ("c", 0.5)], 0.5)
        >>> [(f.node_id, round(f.score, 3)) for f in fused]
        [('b', 0.625), ('a', 0.5)]
    """
    lex = list(lexical if depth is None else lexical[:depth])
    near = list(dense if depth is None else dense[:depth])
    ranks: dict[str, list[int | None]] = {}
    scores: dict[str, float] = {}
    top = max((s for _, s in lex), default=0.0)
    for pos, (node_id, score) in enumerate(lex):
        if node_id in ranks:
            continue
        ranks[node_id] = [pos, None]
        scores[node_id] = lexical_weight * (score / top if top > 0 else 0.0)
    best = max((c for _, c in near), default=0.0)
    for pos, (node_id, cosine) in enumerate(near):
        closeness = min(1.0, max(0.0, (cosine - best + margin) / margin)) if margin > 0 else 1.0
        if closeness <= 0.0 and node_id not in ranks:
            continue  # far below the best cosine: not a candidate
        slot = ranks.setdefault(node_id, [None, None])
        if slot[1] is not None:
            continue  # a repeated id keeps its first rank
        slot[1] = pos
        scores[node_id] = scores.get(node_id, 0.0) + (1.0 - lexical_weight) * closeness
    fused = [Fused(node_id, scores[node_id], tuple(rs)) for node_id, rs in ranks.items()]
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.node_id))
    return fused


def _rrf_score(ranks: Sequence[int | None], k: int) -> float:
    return sum(1.0 / (k + r) for r in ranks if r is not None)


def mentions_known_symbol(
    words: Iterable[str],
    leaf_names: Container[str],
    compound: Container[str] | None = None,
    code: Container[str] = frozenset(),
) -> bool:
    """The symbol gate: does the query name some node's leaf symbol as a whole word?

    ``words`` are the query's lowered whole words, ``leaf_names`` the lowered
    leaf symbol names of the index. When ``compound`` is given, the lexical
    retriever's stricter reading of a mention applies (the one its symbol boost
    ``b_sym`` uses): a compound name (``estimate_ss_ama``) counts anywhere, a
    one-word name (``load``) only where the query writes it as code (``code``),
    since as plain English it names nothing in particular.

    Why a gate: measured on codecite's evaluation suites, plain RRF lowered the
    MRR of questions that name a symbol (the exact-name lexical hit was outvoted
    by nodes that merely *talk about* the same thing); keeping the lexical
    ranking for such queries removed that loss. Dense retrieval is for the other
    questions, phrased in words the code does not use.
    """
    return any(w in leaf_names and (compound is None or w in compound or w in code) for w in words)


__all__ = [
    "DEFAULT_COSINE_FLOOR",
    "DEFAULT_RRF_K",
    "Fused",
    "convex_fusion",
    "cosine_ranking",
    "fusion_depth",
    "l2_normalise",
    "mentions_known_symbol",
    "reciprocal_rank_fusion",
]
