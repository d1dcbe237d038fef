"""Dense retrieval, opt-in: embed nodes at build time, fuse at query time.

Public entry points:

- ``write_vectors(index_dir, cfg, records, embed, progress)``: the build hook
  (``codecite build --embed``); embeds new or changed nodes, reuses the rest,
  writes ``vectors.npy`` + ``vector_ids.json``, returns the manifest entry
  ``{"backend", "model", "dimension", "count", "api_base"}`` or ``None``.
- ``hybrid_retriever(index, lexical, k)``: what ``index.retriever(dense=True)``
  returns, a ``HybridRetriever`` (``codecite.retrievers.hybrid``).
- ``make_embedding(settings)``: the LlamaIndex embedding configured by
  ``[tool.codecite.embedding]``, or ``None`` when none is configured.

Not configured means lexical only, with one warning; configured but broken is
an ``EmbeddingError`` at build time. See ``docs/dense.md``.
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from codecite import embeddings as emb
from codecite.config import CodeciteConfig, EmbeddingSettings
from codecite.embeddings import Backend, EmbeddingSpec
from codecite.errors import (
    CodeciteError,
    ConfigError,
    EmbeddingError,
    EmbeddingModelMismatchError,
)
from codecite.retrievers.hybrid import ArrayDenseIndex, HybridRetriever, redact_secrets
from codecite.vectors import (
    StoredVectors,
    VectorStoreDenseIndex,
    load_vectors,
    reusable_vectors,
    save_vectors,
)

logger = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]
NO_VECTORS = "index has no vectors (built without --embed); run `codecite build --embed`"

_local_models: dict[EmbeddingSpec, BaseEmbedding] = {}
_dense_cache: weakref.WeakKeyDictionary[Any, ArrayDenseIndex] = weakref.WeakKeyDictionary()


# -- configuration ------------------------------------------------------------------------

def resolve_spec(settings: EmbeddingSettings, overrides: Mapping[str, Any] | None = None
                 ) -> EmbeddingSpec:
    """Settings from ``[tool.codecite.embedding]`` with CLI/keyword overrides on top.

    With no backend anywhere: ``openai`` if ``OPENAI_API_KEY`` is set, else
    ``local`` if the extra is installed, else ``openai`` (reported as not configured).
    A model configured for one backend is not carried over to another.
    """
    o = dict(overrides or {})
    backend = o.get("backend") or settings.backend or _auto_backend()
    valid = [b.value for b in Backend if b is not Backend.CUSTOM]
    if backend not in valid:
        raise ConfigError(f"embedding backend {backend!r} is unknown; use one of "
                          f"{', '.join(valid)} (--embed-backend or [tool.codecite.embedding])")
    same = settings.backend in (None, backend)
    model = o.get("model") or (settings.model if same else None)
    return EmbeddingSpec(Backend(backend), model,
                         emb.public_url(o.get("api_base") or settings.api_base),
                         int(o.get("batch_size") or settings.batch_size))


def _auto_backend() -> str:
    if os.environ.get("OPENAI_API_KEY"):
        return Backend.OPENAI.value
    return Backend.LOCAL.value if emb.local_available() else Backend.OPENAI.value


def make_embedding(settings: EmbeddingSettings | EmbeddingSpec,
                   overrides: Mapping[str, Any] | None = None) -> BaseEmbedding | None:
    """The configured LlamaIndex embedding, or ``None`` (with the reason logged) when
    no usable backend is configured. Raises ``EmbeddingError`` for a broken one.

    Example:
        >>> make_embedding(EmbeddingSettings(backend="none")) is None
        True
    """
    spec = settings if isinstance(settings, EmbeddingSpec) else resolve_spec(settings, overrides)
    reason = emb.not_configured_reason(spec)
    if reason is not None:
        logger.info("no dense embedding: %s", reason)
        return None
    return _create(spec)


def _create(spec: EmbeddingSpec) -> BaseEmbedding:
    """A new embedding; the local model (seconds to load) is made once per process."""
    if spec.backend is not Backend.LOCAL:
        return emb.create_embedding(spec)
    if spec not in _local_models:
        _local_models[spec] = emb.create_embedding(spec)
    return _local_models[spec]


# -- build --------------------------------------------------------------------------------

def write_vectors(index_dir: Path, cfg: CodeciteConfig, records: list[dict[str, Any]],
                  embed: Mapping[str, Any] | BaseEmbedding | None,
                  progress: Progress | None = None) -> dict[str, Any] | None:
    """Embed node texts into ``index_dir``; the manifest entry, or ``None`` if lexical only.

    ``embed`` is a dict of overrides (``{"backend", "model"}`` from the CLI), a
    LlamaIndex ``BaseEmbedding`` instance, or ``None`` (configuration only).
    Vectors of unchanged nodes are taken from the previous index at
    ``cfg.index_path`` when it was embedded by the same backend and model.
    """
    chosen = _chosen_embedding(cfg, embed)
    if chosen is None:
        return None
    spec, embedding = chosen
    matrix = _vectors_for(records, spec, embedding, cfg.index_path, progress)
    if matrix is None:
        return None
    save_vectors(index_dir, [r["id"] for r in records], matrix)
    return {"backend": spec.backend.value, "model": spec.model,
            "dimension": int(matrix.shape[1]), "count": int(matrix.shape[0]),
            "api_base": spec.api_base}


def _chosen_embedding(cfg: CodeciteConfig, embed: Any
                      ) -> tuple[EmbeddingSpec, BaseEmbedding] | None:
    if isinstance(embed, BaseEmbedding):
        return emb.spec_of_instance(embed, cfg.embedding.batch_size), embed
    spec = resolve_spec(cfg.embedding, embed)
    reason = emb.not_configured_reason(spec)
    if reason is not None:  # asked for (--embed or config) but not available: say so once
        logger.warning("dense embeddings skipped: %s; the index is lexical only", reason)
        return None
    try:
        embedding = _create(spec)
    except EmbeddingError:
        raise
    except Exception as exc:
        raise emb.broken(spec, exc) from None
    api_base = emb.public_url(getattr(embedding, "api_base", None)) or spec.api_base
    return replace(spec, model=embedding.model_name, api_base=api_base), embedding


def _vectors_for(records: list[dict[str, Any]], spec: EmbeddingSpec, embedding: BaseEmbedding,
                 previous_dir: Path, progress: Progress | None) -> np.ndarray | None:
    if not records:
        logger.info("no nodes to embed; the index is lexical only")
        return None
    old = reusable_vectors(previous_dir, _previous_manifest(previous_dir),
                           spec.backend.value, spec.model)
    todo = [i for i, r in enumerate(records)
            if r["id"] not in old or old[r["id"]][0] != r["text"]]
    total, reused = len(records), len(records) - len(todo)
    logger.info("embedding %d of %d nodes with %s (%d reused)", len(todo), total,
                spec.describe(), reused)
    report = (lambda done: progress("embedding", reused + done, total)) if progress else None
    if report is not None:
        report(0)
    fresh = emb.embed_texts(embedding, [records[i]["text"] for i in todo], spec,
                            progress=report)
    return _assemble(records, todo, fresh, old, spec)


def _assemble(records: list[dict[str, Any]], todo: Sequence[int], fresh: Sequence[Any],
              old: Mapping[str, tuple[str, np.ndarray]], spec: EmbeddingSpec) -> np.ndarray:
    new = dict(zip(todo, fresh, strict=True))
    rows = [np.asarray(new[i] if i in new else old[r["id"]][1], dtype=np.float32)
            for i, r in enumerate(records)]
    dims = {row.shape for row in rows}
    if len(dims) != 1 or len(next(iter(dims))) != 1 or not all(np.isfinite(r).all()
                                                               for r in rows):
        raise EmbeddingError(f"{spec.describe()} returned vectors of mixed or invalid shapes "
                             f"{sorted(str(d) for d in dims)[:3]}; run `codecite build --full "
                             "--embed`, and check the model if it persists")
    return np.stack(rows)


def _previous_manifest(index_path: Path) -> dict[str, Any] | None:
    from codecite.store import read_manifest

    try:
        return read_manifest(index_path)
    except (CodeciteError, OSError, ValueError):
        return None


# -- query --------------------------------------------------------------------------------

def hybrid_retriever(index: Any, lexical: Any, similarity_top_k: int, *,
                     embed_model: BaseEmbedding | None = None, vector_store: Any = None,
                     symbol_gate: bool = True) -> HybridRetriever:
    """The hybrid retriever of a loaded index (``index.retriever(dense=True)``).

    Args:
        index: a ``CodeciteIndex``.
        lexical: its ``CodeciteRetriever`` (filters included).
        similarity_top_k: how many results.
        embed_model: embeds queries; default: the backend+model recorded in the
            manifest (needed when the index was built with a custom embedding).
        vector_store: a LlamaIndex vector store holding the vectors (see
            ``codecite.vectors.export_to_vector_store``) instead of ``vectors.npy``.
        symbol_gate: keep the lexical ranking for queries naming a known symbol.

    Raises:
        EmbeddingModelMismatchError: queries would be embedded by another model
            than the stored vectors. Everything else degrades to lexical.
    """
    info = index.manifest.get("embedding")
    common: dict[str, Any] = {"similarity_top_k": similarity_top_k,
                              "symbol_gate": symbol_gate,
                              "cosine_floor": index.config.retrieval.cosine_floor,
                              "rrf_k": index.config.retrieval.rrf_k}
    if not info:
        return HybridRetriever(lexical, degraded=NO_VECTORS, **common)
    model, dimension = info.get("model"), info.get("dimension")
    if embed_model is None:
        _check_config(index.config.embedding, info)
        embed_model, reason = _query_embedding(index.config.embedding, info)
        if embed_model is None:
            return HybridRetriever(lexical, degraded=reason, stored_model=model, **common)
    dense, reason = _dense_index(index, vector_store, dimension)
    return HybridRetriever(lexical, dense, embed_model, stored_model=model,
                           stored_dimension=dimension, degraded=reason,
                           embed_query=emb.query_embedder(embed_model), **common)


def _check_config(settings: EmbeddingSettings, info: Mapping[str, Any]) -> None:
    """Explicitly configured backend/model must be what made the vectors."""
    for key, configured in (("backend", settings.backend), ("model", settings.model)):
        if configured in (None, "none") or configured == info.get(key):
            continue
        raise EmbeddingModelMismatchError(
            f"[tool.codecite.embedding] {key} is {configured!r} but the index vectors were "
            f"made by {info.get('backend')} model {info.get('model')!r}; vectors of two "
            f"models are not comparable. Run `codecite build --embed` to re-embed with "
            f"{configured!r}, or set {key} = \"{info.get(key)}\"")


def _query_embedding(settings: EmbeddingSettings, info: Mapping[str, Any]
                     ) -> tuple[BaseEmbedding | None, str | None]:
    backend = info.get("backend")
    if backend not in (Backend.OPENAI.value, Backend.LOCAL.value):
        return None, (f"the vectors were made by a custom embedding (model "
                      f"{info.get('model')!r}); pass it: index.retriever(dense=True, "
                      "embed_model=...)")
    spec = EmbeddingSpec(Backend(backend), info.get("model"),
                         emb.public_url(settings.api_base) or info.get("api_base"),
                         settings.batch_size)
    reason = emb.not_configured_reason(spec)
    if reason is not None:
        return None, reason
    try:
        return _create(spec), None
    except Exception as exc:  # a broken backend degrades at query time
        return None, f"{spec.describe()} unavailable ({redact_secrets(str(exc))[:200]})"


def _dense_index(index: Any, vector_store: Any, dimension: int | None
                 ) -> tuple[Any, str | None]:
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


__all__ = ["hybrid_retriever", "make_embedding", "resolve_spec", "stored_vectors",
           "write_vectors"]
