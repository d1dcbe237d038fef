"""Dense retrieval at query time: fuse the stored vectors with the lexical ranking.

- ``hybrid_retriever(index, lexical, k)``: what ``index.retriever(dense=True)``
  returns, a ``HybridRetriever`` (``codecite.retrievers.hybrid``).
- ``stored_vectors(index)``: the index's vectors, checked against its nodes.

Building vectors is ``codecite.dense.build``; choosing the model is
``codecite.dense.backends``. See docs/dense.md.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Mapping
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.schema import QueryBundle

from codecite.config.model import EmbeddingSettings
from codecite.dense import embeddings as emb
from codecite.dense.backends import cached_embedding
from codecite.dense.spec import Backend, EmbeddingSpec
from codecite.dense.vectors import (
    StoredVectors,
    VectorStoreDenseIndex,
    load_vectors,
    stale_note,
)
from codecite.errors import (
    CodeciteError,
    EmbeddingModelMismatchError,
)
from codecite.retrievers.hybrid import ArrayDenseIndex, HybridRetriever, redact_secrets
from codecite.retrievers.results import RetrievedContext

logger = logging.getLogger(__name__)
NO_VECTORS = "index has no vectors (built without --embed); run `codecite build --embed`"

_dense_cache: weakref.WeakKeyDictionary[Any, ArrayDenseIndex] = weakref.WeakKeyDictionary()


# -- configuration ------------------------------------------------------------------------


# -- build --------------------------------------------------------------------------------


# -- query --------------------------------------------------------------------------------


def hybrid_retriever(
    index: Any,
    lexical: Any,
    similarity_top_k: int,
    *,
    embed_model: BaseEmbedding | None = None,
    vector_store: Any = None,
    symbol_gate: bool = True,
) -> HybridRetriever:
    """The hybrid retriever of a loaded index (``index.retriever(dense=True)``).

    Args:
        index: a ``CodeciteIndex``.
        lexical: its ``CodeciteRetriever`` (filters included).
        similarity_top_k: how many results.
        embed_model: embeds queries; default: the backend+model recorded in the
            manifest (needed when the index was built with a custom embedding).
        vector_store: a LlamaIndex vector store holding the vectors (see
            ``codecite.dense.vectors.export_to_vector_store``) instead of ``vectors.npy``.
        symbol_gate: keep the lexical ranking for queries naming a known symbol.

    Raises:
        EmbeddingModelMismatchError: queries would be embedded by another model
            than the stored vectors. Everything else degrades to lexical.
    """
    info = index.manifest.get("embedding")
    common: dict[str, Any] = {
        "similarity_top_k": similarity_top_k,
        "symbol_gate": symbol_gate,
        "cosine_floor": index.config.retrieval.cosine_floor,
        "rrf_k": index.config.retrieval.rrf_k,
        "fusion": index.config.retrieval.fusion,
    }
    if not info:
        return HybridRetriever(lexical, degraded=NO_VECTORS, **common)
    model, dimension = info.get("model"), info.get("dimension")
    if embed_model is None:
        _check_config(index.config.embedding, info)
        embed_model, reason = _query_embedding(index.config.embedding, info)
        if embed_model is None:
            return HybridRetriever(lexical, degraded=reason, stored_model=model, **common)
    dense, reason = _dense_index(index, vector_store, dimension)
    common.update(
        stored_model=model,
        stored_dimension=dimension,
        degraded=reason,
        embed_query=emb.query_embedder(embed_model),
    )
    stale = stale_note(info, index.manifest.get("node_count"))
    if stale is not None:
        return PartlyStaleHybridRetriever(lexical, dense, embed_model, stale=stale, **common)
    return HybridRetriever(lexical, dense, embed_model, **common)


class PartlyStaleHybridRetriever(HybridRetriever):
    """The hybrid retriever over vectors that miss some nodes (``embedding.stale``).

    Those nodes are found by the lexical side only; every context the dense side
    ranked says so in ``degraded`` (``docs/dense.md``, "Vectors across builds").
    """

    def __init__(self, *args: Any, stale: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stale = stale

    def retrieve_context(
        self, query: str | QueryBundle, similarity_top_k: int | None = None
    ) -> RetrievedContext:
        ctx = super().retrieve_context(query, similarity_top_k)
        if ctx.degraded is None and ctx.mode == "hybrid":
            ctx.degraded = self.stale
        return ctx


def _check_config(settings: EmbeddingSettings, info: Mapping[str, Any]) -> None:
    """Explicitly configured backend/model must be what made the vectors."""
    for key, configured in (("backend", settings.backend), ("model", settings.model)):
        if configured in (None, "none") or configured == info.get(key):
            continue
        raise EmbeddingModelMismatchError(
            f"[tool.codecite.embedding] {key} is {configured!r} but the index vectors were "
            f"made by {info.get('backend')} model {info.get('model')!r}; vectors of two "
            f"models are not comparable. Run `codecite build --embed` to re-embed with "
            f'{configured!r}, or set {key} = "{info.get(key)}"'
        )


def _query_embedding(
    settings: EmbeddingSettings, info: Mapping[str, Any]
) -> tuple[BaseEmbedding | None, str | None]:
    backend = info.get("backend")
    if backend not in (Backend.OPENAI.value, Backend.LOCAL.value):
        return None, (
            f"the vectors were made by a custom embedding (model "
            f"{info.get('model')!r}); pass it: index.retriever(dense=True, "
            "embed_model=...)"
        )
    spec = EmbeddingSpec(
        Backend(backend),
        info.get("model"),
        emb.public_url(settings.api_base) or info.get("api_base"),
        settings.batch_size,
    )
    reason = emb.not_configured_reason(spec)
    if reason is not None:
        return None, reason
    try:
        return cached_embedding(spec), None
    except Exception as exc:  # a broken backend degrades at query time
        return None, f"{spec.describe()} unavailable ({redact_secrets(str(exc))[:200]})"


def _dense_index(index: Any, vector_store: Any, dimension: int | None) -> tuple[Any, str | None]:
    if vector_store is not None:
        return VectorStoreDenseIndex(vector_store, int(dimension or 0)), None
    try:
        if index not in _dense_cache:
            stored = load_vectors(index.config.index_path)
            _dense_cache[index] = ArrayDenseIndex(stored.ids, stored.matrix)
        return _dense_cache[index], None
    except (CodeciteError, TypeError) as exc:
        return None, str(exc)


def stored_vectors(index: Any) -> StoredVectors:
    """The vectors of a loaded index (for exporting them to a vector store)."""
    return load_vectors(index.config.index_path)


__all__ = ["hybrid_retriever", "stored_vectors"]
