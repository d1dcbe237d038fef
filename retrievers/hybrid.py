"""The hybrid retriever: the lexical ranking fused with a dense (cosine) ranking.

``HybridRetriever`` is a LlamaIndex ``BaseRetriever`` around a
``CodeciteRetriever``. Per query it takes the lexical top ``max(5k, 50)``, the
dense top ``max(5k, 50)`` with cosine >= 0.20, fuses them keyed by node id
(``fusion.py``: by score, ``convex_fusion``, leaning lexical for a query that
writes identifiers; or by rank, ``reciprocal_rank_fusion``, with ``fusion="rrf"``)
and returns the top ``k`` as new ``NodeWithScore`` objects whose score is the
fused score.

Two rules keep it safe to turn on:

- **Symbol gate** (``symbol_gate=True``): when the query names a known symbol
  (some node's leaf symbol name is a whole word of the query, read as the
  lexical symbol boost reads it: ``boosts.names_symbol``), the lexical ranking is
  kept as is; dense still reports its cosines. See
  ``fusion.mentions_known_symbol`` for the measurement behind it.
- **Visible degradation**: no dense side (no vectors, no backend) or a failed
  query embedding never raises; the lexical ranking comes back with
  ``RetrievedContext.degraded`` saying why, and one warning is logged. A query
  embedded by another model (or dimension) than the stored vectors is a
  configuration error and raises ``EmbeddingModelMismatchError``.

``RetrievedContext.top_score`` stays the lexical ``s(c)`` of the best lexical hit,
not the fused score: RRF scores depend on ranks only (the best node of *any*
query scores about 2/60), so they barely separate answerable from unanswerable
questions, while ``s(c)`` does. ``top_cosine`` carries the dense side's signal.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from codecite.errors import EmbeddingModelMismatchError

from . import boosts
from .defaults import DEFAULT_FUSION, DEFAULT_LEXICAL_TRUST, DEFAULT_LEXICAL_TRUST_CODE
from .fusion import (
    DEFAULT_COSINE_FLOOR,
    DEFAULT_RRF_K,
    Fused,
    convex_fusion,
    cosine_ranking,
    fusion_depth,
    l2_normalise,
    reciprocal_rank_fusion,
)
from .rerank import rerank_context
from .results import Hit, RetrievedContext, ScoreBreakdown
from .tokenizer import identifier_mentions, writes_identifiers

logger = logging.getLogger(__name__)

FUSIONS = ("convex", "rrf")  # fusion.convex_fusion, fusion.reciprocal_rank_fusion
MASK_CACHE_SIZE = 8  # filter masks kept per retriever (one per distinct filter)
EMBED_REBUILD_FIX = "run `codecite build --embed` (same backend and model as the query side)"


@dataclass(frozen=True)
class DenseHits:
    """A dense search: ``(node_id, cosine)`` pairs at or above the floor, best first,
    and the best cosine of any allowed node (a confidence signal, floor or not)."""

    ranked: tuple[tuple[str, float], ...]
    best: float | None


class DenseIndex(Protocol):
    """Where the vectors live: the built-in arrays or a LlamaIndex vector store."""

    dimension: int

    def search(
        self, query: np.ndarray, depth: int, floor: float, allowed: frozenset[str] | None
    ) -> DenseHits: ...


class ArrayDenseIndex:
    """The built-in dense index: L2-normalised float32 rows in memory, one per node id.

    Example:
        >>> dense = ArrayDenseIndex(["a", "b"], np.eye(2, dtype=np.float32))
        >>> dense.search(np.array([1.0, 0.0]), depth=5, floor=0.2, allowed=None).ranked
        (('a', 1.0),)
    """

    def __init__(self, ids: Sequence[str], matrix: np.ndarray) -> None:
        if len(ids) != matrix.shape[0]:
            raise ValueError(f"{len(ids)} ids for {matrix.shape[0]} vectors")
        self.ids = list(ids)
        self.matrix = l2_normalise(matrix)
        self.dimension = int(self.matrix.shape[1]) if self.matrix.ndim == 2 else 0
        self._masks: dict[frozenset[str], np.ndarray] = {}

    def _mask(self, allowed: frozenset[str] | None) -> np.ndarray | None:
        if allowed is None:
            return None
        if allowed not in self._masks:
            if len(self._masks) >= MASK_CACHE_SIZE:
                self._masks.clear()
            self._masks[allowed] = np.array([i in allowed for i in self.ids], dtype=bool)
        return self._masks[allowed]

    def search(
        self, query: np.ndarray, depth: int, floor: float, allowed: frozenset[str] | None
    ) -> DenseHits:
        ranked, best = cosine_ranking(self.matrix, query, depth, floor, self._mask(allowed))
        return DenseHits(tuple((self.ids[i], c) for i, c in ranked), best)


class HybridRetriever(BaseRetriever):
    """Lexical + dense retrieval fused by Reciprocal Rank Fusion.

    Args:
        lexical: the ``CodeciteRetriever`` (its filters apply to both sides).
        dense: where the vectors are (``ArrayDenseIndex`` or a vector-store adapter);
            ``None`` means lexical only, with ``degraded`` saying why.
        embed_model: the LlamaIndex embedding that embeds queries.
        stored_model / stored_dimension: what made the stored vectors; a query
            embedding from anything else is refused.
        embed_query: how to embed one query (default ``embed_model.get_query_embedding``;
            codecite passes one with bounded retries).
        symbol_gate: keep the lexical ranking when the query names a known symbol.
        degraded: the reason the dense side is unavailable, if it is.

    Example:
        >>> retriever = codecite.load(".").retriever(5, dense=True)     # doctest: +SKIP
        >>> retriever.retrieve_context("make the progress bar quieter")  # doctest: +SKIP
    """

    def __init__(
        self,
        lexical: Any,
        dense: DenseIndex | None = None,
        embed_model: Any = None,
        *,
        stored_model: str | None = None,
        stored_dimension: int | None = None,
        similarity_top_k: int | None = None,
        embed_query: Callable[[str], Sequence[float]] | None = None,
        symbol_gate: bool = True,
        cosine_floor: float = DEFAULT_COSINE_FLOOR,
        rrf_k: int = DEFAULT_RRF_K,
        fusion: str = DEFAULT_FUSION,
        degraded: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.lexical = lexical
        self.dense = dense
        self.embed_model = embed_model
        self.stored_model = stored_model
        self.stored_dimension = stored_dimension or (dense.dimension if dense else None)
        self.similarity_top_k = int(similarity_top_k or lexical.similarity_top_k)
        self.symbol_gate = symbol_gate
        self.cosine_floor = cosine_floor
        self.rrf_k = rrf_k
        if fusion not in FUSIONS:
            raise ValueError(f"fusion {fusion!r} is not one of {', '.join(FUSIONS)}")
        self.fusion = fusion
        self._embed_query = embed_query or (
            embed_model.get_query_embedding if embed_model is not None else None
        )
        self.unavailable = degraded or (
            None
            if dense is not None and self._embed_query is not None
            else "no dense index or embedding model given"
        )
        self._rows = lexical._arrays.positions()  # node id -> row, no record decoded
        self._allowed = _allowed_ids(lexical)
        check_model(embed_model, stored_model)

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteHybridRetriever"

    # -- the pass ----------------------------------------------------------------------
    def retrieve_context(
        self, query: str | QueryBundle, similarity_top_k: int | None = None
    ) -> RetrievedContext:
        """Rank nodes for ``query`` by fused lexical + dense evidence, and explain it."""
        query_str = query.query_str if isinstance(query, QueryBundle) else str(query)
        k = max(1, int(similarity_top_k or self.similarity_top_k))
        depth = fusion_depth(k)
        lex = self.lexical.retrieve_context(query_str, similarity_top_k=depth)
        dense, embed = self.dense, self._embed_query
        if self.unavailable is not None or dense is None or embed is None:
            return self._degrade(lex, k, self.unavailable or "no dense index")
        try:
            vector = self._query_vector(embed, query_str)
        except EmbeddingModelMismatchError:
            raise
        except Exception as exc:
            return self._degrade(lex, k, f"query embedding failed ({_short(exc)})")
        hits = dense.search(vector, depth, self.cosine_floor, self._allowed)
        return self._fuse(lex, hits, k, depth, self.symbol_gate and self._names_symbol(query_str))

    def _names_symbol(self, query: str) -> bool:
        """The gate's test, with the lexical retriever's own reading of a mention."""
        arrays = self.lexical._arrays
        mentions = identifier_mentions(query)
        return bool(np.any(boosts.names_symbol(arrays.leaf_index, mentions)))

    node_postprocessors: Sequence[Any] = ()  # LlamaIndex rerankers, after the fusion

    def retrieve_explained(self, query: str | QueryBundle) -> RetrievedContext:
        """The fused hits after the ``node_postprocessors``, with their breakdowns (as
        ``CodeciteRetriever.retrieve_explained``)."""
        text = query.query_str if isinstance(query, QueryBundle) else str(query)
        return rerank_context(self.retrieve_context(query), self.node_postprocessors, text)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.retrieve_explained(query_bundle).node_with_scores()

    def _query_vector(self, embed: Callable[[str], Sequence[float]], query: str) -> np.ndarray:
        vector = np.asarray(embed(query), dtype=np.float32)
        if self.stored_dimension is not None and vector.shape != (self.stored_dimension,):
            raise EmbeddingModelMismatchError(
                f"the query embedding of model {_model_name(self.embed_model)!r} has dimension "
                f"{vector.size}, the stored vectors of model {self.stored_model!r} have "
                f"{self.stored_dimension}; query with the model the index was built with or "
                f"{EMBED_REBUILD_FIX}"
            )
        return l2_normalise(vector)

    # -- results -----------------------------------------------------------------------
    def _fuse(
        self, lex: RetrievedContext, hits: DenseHits, k: int, depth: int, gated: bool
    ) -> RetrievedContext:
        lex_ids = [n.node.node_id for n in lex.nodes]
        # best cosine (in float32, as the arrays hold it) first, equal ones in node order:
        # the same ranking from the built-in arrays and from any vector store
        ranked = sorted(
            (p for p in hits.ranked if p[0] in self._rows),
            key=lambda p: (-np.float32(p[1]), self._rows[p[0]]),
        )
        dense_ids = [node_id for node_id, _ in ranked]
        cosine = dict(hits.ranked)
        if self.fusion == "convex":
            code = writes_identifiers(lex.query)
            trust = DEFAULT_LEXICAL_TRUST_CODE if code else DEFAULT_LEXICAL_TRUST
            lexical = [(n.node.node_id, float(n.score or 0.0)) for n in lex.nodes]
            dense_ranked = [(i, cosine[i]) for i in dense_ids]
            ranking = convex_fusion(lexical, dense_ranked, trust, depth=depth)
            why = "the query writes identifiers" if code else "a question in words"
            how = f"convex: {trust:g} x s/s_max + {1 - trust:g} x cosine closeness ({why})"
        else:
            ranking = reciprocal_rank_fusion([lex_ids, dense_ids], depth, self.rrf_k)
            how = f"rrf: 1/({self.rrf_k} + lexical rank) + 1/({self.rrf_k} + dense rank)"
        fused = {f.node_id: f for f in ranking}
        if gated:
            chosen = [fused[i] for i in lex_ids[:k]]
            scores = {n.node.node_id: float(n.score or 0.0) for n in lex.nodes[:k]}
        else:
            chosen = sorted(fused.values(), key=_fused_order)[:k]
            scores = {f.node_id: f.score for f in chosen}
        out = _context_like(lex, mode="hybrid")
        out.top_cosine = hits.best
        out.fusion = "none: the query names a known symbol, lexical ranking kept" if gated else how
        for f in chosen:
            out.nodes.append(Hit(self.lexical.nodes[self._rows[f.node_id]], scores[f.node_id]))
            out.breakdown[f.node_id] = _breakdown(
                lex.breakdown.get(f.node_id), f, cosine.get(f.node_id), scores[f.node_id]
            )
        if gated:
            logger.debug("symbol gate: query names a known symbol; lexical ranking kept")
        return out

    def _degrade(self, lex: RetrievedContext, k: int, reason: str) -> RetrievedContext:
        # the one notice (on stderr from the CLI); the context carries it too (ctx.degraded)
        logger.warning("dense retrieval unavailable (%s); lexical ranking returned", reason)
        out = _context_like(lex, mode="lexical")
        out.degraded = reason
        for n in lex.nodes[:k]:
            out.nodes.append(Hit(n.node, n.score))
            if n.node.node_id in lex.breakdown:
                out.breakdown[n.node.node_id] = lex.breakdown[n.node.node_id]
        return out


def check_model(embed_model: Any, stored_model: str | None) -> None:
    """Refuse a query model other than the one that made the stored vectors."""
    if embed_model is None or stored_model is None:
        return
    name = _model_name(embed_model)
    if name != stored_model:
        raise EmbeddingModelMismatchError(
            f"queries would be embedded by model {name!r} but the index vectors were made "
            f"by model {stored_model!r}; vectors of two models are not comparable. Use "
            f"model {stored_model!r} for queries (e.g. [tool.codecite.embedding] model = "
            f'"{stored_model}") or {EMBED_REBUILD_FIX}'
        )


def _model_name(embed_model: Any) -> str:
    return str(getattr(embed_model, "model_name", None) or type(embed_model).__name__)


def _allowed_ids(lexical: Any) -> frozenset[str] | None:
    """Ids passing the lexical retriever's metadata filters (they apply before ranking)."""
    mask = getattr(lexical, "_mask", None)
    if mask is None:
        return None
    ids = lexical._arrays.positions()
    return frozenset(node_id for node_id, row in ids.items() if mask[row])


def _fused_order(f: Fused) -> tuple[float, int, str]:
    return (-f.score, f.best_rank, f.node_id)


def _context_like(lex: RetrievedContext, mode: str) -> RetrievedContext:
    """A new context with the lexical reading of the query and no nodes yet."""
    return RetrievedContext(
        query=lex.query,
        tokens=list(lex.tokens),
        expansion=list(lex.expansion),
        expansion_source=lex.expansion_source,
        workflow=lex.workflow,
        top_score=lex.top_score,
        mode=mode,
        variants=list(lex.variants),
    )


_NO_LEXICAL = ScoreBreakdown(
    bm25_q=0.0,
    bm25_e=0.0,
    lexical=0.0,
    priority=1.0,
    workflow=1.0,
    recipe=1.0,
    symbol=1.0,
    feedback=1.0,
    zero_config=1.0,
    composed=0.0,
)


def _breakdown(
    lexical: ScoreBreakdown | None, fused: Fused, cosine: float | None, final: float
) -> ScoreBreakdown:
    """The lexical terms (zero for a node outside the lexical top ``depth``, which got
    nothing from that ranking), plus cosine, both ranks and the final score."""
    lex_rank, dense_rank = fused.ranks
    return replace(
        lexical or _NO_LEXICAL,
        final=final,
        dense_cosine=cosine,
        lexical_rank=lex_rank,
        dense_rank=dense_rank,
    )


_SECRET = re.compile(r"(sk-|key-|Bearer\s+)[A-Za-z0-9_\-*.]{4,}")


def redact_secrets(text: str) -> str:
    """``text`` with anything shaped like an API key (and the configured key) masked.

    Error messages of HTTP clients may quote the key they sent; codecite never
    lets one reach a log line, a result or a file.
    """
    key = os.environ.get("OPENAI_API_KEY")
    if key and len(key) >= 4:
        text = text.replace(key, "***")
    return _SECRET.sub(lambda m: m.group(1) + "***", text)


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    return redact_secrets(text)[:200]


__all__ = [
    "ArrayDenseIndex",
    "DenseHits",
    "DenseIndex",
    "HybridRetriever",
    "check_model",
    "redact_secrets",
]
