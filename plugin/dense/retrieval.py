"""Dense retrieval, opt-in: embed nodes at build time, fuse at query time.

Public entry points:

- ``write_vectors(index_dir, cfg, records, embed, progress)``: the build hook
  (``codecite build --embed``, and every later build of an index with vectors);
  embeds new or changed nodes, reuses the rest, writes ``vectors.npy`` +
  ``vector_ids.json``, returns the manifest entry ``{"backend", "model",
  "dimension", "count", "api_base"}`` (plus ``"stale"``, ``"stale_reason"`` when
  some nodes could not be embedded) or ``None``.
- ``hybrid_retriever(index, lexical, k)``: what ``index.retriever(dense=True)``
  returns, a ``HybridRetriever`` (``codecite.retrievers.hybrid``).
- ``make_embedding(settings)``: the LlamaIndex embedding configured by
  ``[tool.codecite.embedding]``, or ``None`` when none is configured.

Vectors are never dropped silently: a plain build that cannot embed the changed
nodes keeps the others and reports the rest as stale; an explicit ``--embed``
that cannot embed fails and leaves the index as it was. See ``docs/dense.md``.
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.schema import QueryBundle

from codecite.config.model import CodeciteConfig, EmbeddingSettings
from codecite.dense import embeddings as emb
from codecite.dense.embeddings import Backend, EmbeddingSpec
from codecite.dense.vectors import (
    StoredVectors,
    VectorStoreDenseIndex,
    load_vectors,
    reusable_vectors,
    save_vectors,
    stale_note,
    text_key,
)
from codecite.errors import (
    CodeciteError,
    ConfigError,
    EmbeddingError,
    EmbeddingModelMismatchError,
)
from codecite.retrievers.fusion import l2_normalise
from codecite.retrievers.hybrid import ArrayDenseIndex, HybridRetriever, redact_secrets
from codecite.retrievers.results import RetrievedContext

logger = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]
NO_VECTORS = "index has no vectors (built without --embed); run `codecite build --embed`"

_local_models: dict[EmbeddingSpec, BaseEmbedding] = {}
_dense_cache: weakref.WeakKeyDictionary[Any, ArrayDenseIndex] = weakref.WeakKeyDictionary()


# -- configuration ------------------------------------------------------------------------


def resolve_spec(
    settings: EmbeddingSettings,
    overrides: Mapping[str, Any] | None = None,
    previous: Mapping[str, Any] | None = None,
) -> EmbeddingSpec:
    """Settings from ``[tool.codecite.embedding]`` with CLI/keyword overrides on top.

    With no backend given or configured, the backend that made the index's vectors
    (``previous``: the manifest's ``embedding`` entry) is kept, with its model and
    base URL; with no vectors either: ``openai`` if ``OPENAI_API_KEY`` is set, else
    ``local`` if the extra is installed, else ``openai`` (reported as not configured).
    A model configured for one backend is not carried over to another.
    """
    o = dict(overrides or {})
    prev = dict(previous or {})
    recorded = prev.get("backend") if prev.get("backend") in {b.value for b in Backend} else None
    backend = o.get("backend") or settings.backend or recorded or _auto_backend()
    valid = [b.value for b in Backend if b is not Backend.CUSTOM]
    if backend not in valid and backend != recorded:
        raise ConfigError(
            f"embedding backend {backend!r} is unknown; use one of "
            f"{', '.join(valid)} (--embed-backend or [tool.codecite.embedding])"
        )
    same, mine = settings.backend in (None, backend), recorded == backend
    model = (
        o.get("model")
        or (settings.model if same else None)
        or (prev.get("model") if mine else None)
    )
    api_base = o.get("api_base") or settings.api_base or (prev.get("api_base") if mine else None)
    return EmbeddingSpec(
        Backend(backend),
        model,
        emb.public_url(api_base),
        int(o.get("batch_size") or settings.batch_size),
    )


def _auto_backend() -> str:
    if os.environ.get("OPENAI_API_KEY"):
        return Backend.OPENAI.value
    return Backend.LOCAL.value if emb.local_available() else Backend.OPENAI.value


def make_embedding(
    settings: EmbeddingSettings | EmbeddingSpec, overrides: Mapping[str, Any] | None = None
) -> BaseEmbedding | None:
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


class _NotConfigured(EmbeddingError):
    """The chosen backend cannot be tried at all (no key, extra missing, custom model)."""


@dataclass(frozen=True)
class _VectorBuild:
    """The vectors of one build: where they go, the nodes, what was asked, and the
    previous index's manifest (read, never written)."""

    index_dir: Path
    cfg: CodeciteConfig
    records: list[dict[str, Any]]
    embed: Mapping[str, Any] | BaseEmbedding | None
    manifest: dict[str, Any] | None

    @property
    def previous(self) -> dict[str, Any] | None:
        """The previous index's ``embedding`` entry, when it has vectors."""
        info = (self.manifest or {}).get("embedding")
        return info if isinstance(info, dict) and info else None

    @property
    def required(self) -> bool:
        return isinstance(self.embed, Mapping) and bool(self.embed.get("required"))


def write_vectors(
    index_dir: Path,
    cfg: CodeciteConfig,
    records: list[dict[str, Any]],
    embed: Mapping[str, Any] | BaseEmbedding | None,
    progress: Progress | None = None,
) -> dict[str, Any] | None:
    """Embed node texts into ``index_dir``; the manifest entry, or ``None`` if lexical only.

    ``embed`` is a dict of overrides (``{"backend", "model"}``, and ``"required"``
    from the CLI's ``--embed``), a LlamaIndex ``BaseEmbedding`` instance, or ``None``
    (configuration, else the backend recorded by the previous index). The vector of
    every node whose text is unchanged is taken from the previous index at
    ``cfg.index_path``; only the others are embedded. When they cannot be, see
    ``_cannot_embed``: an explicit request raises (nothing is swapped in), a plain
    build keeps the previous vectors and records how many nodes are ``stale``.
    """
    if not records:
        logger.info("no nodes to embed; the index is lexical only")
        return None
    job = _VectorBuild(index_dir, cfg, records, embed, _previous_manifest(cfg))
    if embed is None and cfg.embedding.backend is None and job.previous is None:
        return None  # nothing asked, nothing configured, nothing to carry over
    spec = _target_spec(cfg, embed, job.previous)
    old = reusable_vectors(cfg.index_path, job.manifest, spec.backend.value, spec.model)
    todo = [i for i, r in enumerate(records) if text_key(r["text"]) not in old]
    fresh: list[Any] = []
    if todo:
        try:
            spec, fresh = _embed_todo(
                spec, embed, [records[i]["text"] for i in todo], len(records), progress
            )
        except EmbeddingError as exc:
            same = job.previous is not None and _made_by(job.previous, spec)
            return _cannot_embed(job, exc, spec, old if same else None)
    matrix = _assemble(records, todo, fresh, old, spec)
    save_vectors(index_dir, [r["id"] for r in records], matrix, normalise=False)
    return _entry(spec.backend.value, spec.model, matrix, spec.api_base)


def _target_spec(
    cfg: CodeciteConfig, embed: Any, previous: Mapping[str, Any] | None
) -> EmbeddingSpec:
    """Which backend and model the vectors of this build come from (nothing created yet)."""
    if isinstance(embed, BaseEmbedding):
        return emb.spec_of_instance(embed, cfg.embedding.batch_size)
    spec = resolve_spec(cfg.embedding, embed, previous)
    defaults = {Backend.OPENAI: emb.DEFAULT_OPENAI_MODEL, Backend.LOCAL: emb.LOCAL_MODEL}
    return spec if spec.model else replace(spec, model=defaults.get(spec.backend))


def _made_by(info: Mapping[str, Any], spec: EmbeddingSpec) -> bool:
    return info.get("backend") == spec.backend.value and info.get("model") == spec.model


def _embed_todo(
    spec: EmbeddingSpec, embed: Any, texts: list[str], total: int, progress: Progress | None
) -> tuple[EmbeddingSpec, list[Any]]:
    """Embed ``texts`` (the nodes without a reusable vector); raises ``EmbeddingError``."""
    if isinstance(embed, BaseEmbedding):
        embedding = embed
    else:
        embedding = _backend(spec)
        api_base = emb.public_url(getattr(embedding, "api_base", None)) or spec.api_base
        spec = replace(spec, model=embedding.model_name, api_base=api_base)
    reused = total - len(texts)
    logger.info(
        "embedding %d of %d nodes with %s (%d reused)", len(texts), total, spec.describe(), reused
    )
    report = (lambda done: progress("embedding", reused + done, total)) if progress else None
    if report is not None:
        report(0)
    return spec, emb.embed_texts(embedding, texts, spec, progress=report)


def _backend(spec: EmbeddingSpec) -> BaseEmbedding:
    """The embedding of a backend by name; ``_NotConfigured`` when it cannot be tried."""
    if spec.backend is Backend.CUSTOM:
        raise _NotConfigured(
            f"the vectors were made by a custom embedding (model "
            f"{spec.model!r}); pass it again: codecite.build(embed=<model>)"
        )
    reason = emb.not_configured_reason(spec)
    if reason is not None:
        raise _NotConfigured(reason)
    try:
        return _create(spec)
    except EmbeddingError:
        raise
    except Exception as exc:
        raise emb.broken(spec, exc) from None


def _cannot_embed(
    job: _VectorBuild,
    exc: EmbeddingError,
    spec: EmbeddingSpec,
    old: Mapping[str, np.ndarray] | None,
) -> dict[str, Any] | None:
    """What a build does when the nodes without a vector cannot be embedded by ``spec``.

    - An explicit request (``--embed``, ``embed=``) fails, and the build with it, so
      the previous index, vectors included, stays as it was. One exception, kept
      from before: a Python ``embed=`` dict (not the CLI) whose backend is not
      configured, over an index without vectors, builds lexical only with a warning.
    - A plain build over an index with vectors keeps them for every unchanged node
      and records the rest as ``stale`` (``_keep_previous``).
    - A plain build without previous vectors: not configured is lexical only with
      one warning, configured but broken is an error (as before).
    """
    not_configured = isinstance(exc, _NotConfigured)
    if job.embed is not None and (not not_configured or job.previous or job.required):
        if not_configured:
            raise EmbeddingError(
                f"cannot embed: {exc}; nothing was written to '{job.cfg.index_path}'"
            ) from None
        raise exc
    if job.previous is None:
        if not not_configured:
            raise exc
        logger.warning("dense embeddings skipped: %s; the index is lexical only", exc)
        return None
    return _keep_previous(job, job.previous, _stale_reason(exc, spec), old)


def _stale_reason(exc: EmbeddingError, spec: EmbeddingSpec) -> str:
    """``backend openai unavailable: OPENAI_API_KEY not set`` (the fix is in the message)."""
    short = emb.missing_requirement(spec) if isinstance(exc, _NotConfigured) else None
    detail = short or str(exc).split("; ", 1)[0]
    return redact_secrets(f"backend {spec.backend.value} unavailable: {detail}")[:300]


def _keep_previous(
    job: _VectorBuild, info: dict[str, Any], reason: str, old: Mapping[str, np.ndarray] | None
) -> dict[str, Any] | None:
    """The previous vectors of every node whose text is unchanged; the rest is ``stale``."""
    backend, model = str(info.get("backend")), info.get("model")
    if old is None:
        old = reusable_vectors(job.cfg.index_path, job.manifest, backend, model)
    kept = [r for r in job.records if text_key(r["text"]) in old]
    if not kept:
        logger.warning(
            "the index's vectors cannot be kept (no node text is unchanged, or "
            "they are unreadable) and %s; the index is lexical only; run "
            "`codecite build --embed`",
            reason,
        )
        return None
    matrix = np.stack([old[text_key(r["text"])] for r in kept])
    save_vectors(job.index_dir, [r["id"] for r in kept], matrix, normalise=False)
    entry = _entry(backend, model, matrix, info.get("api_base"))
    stale = len(job.records) - len(kept)
    if stale:
        entry.update(stale=stale, stale_reason=reason)
        logger.warning("%s", stale_note(entry, len(job.records)))
    return entry


def _entry(
    backend: str, model: str | None, matrix: np.ndarray, api_base: str | None
) -> dict[str, Any]:
    """The manifest's ``embedding`` entry (``stale``/``stale_reason`` only when some are)."""
    return {
        "backend": backend,
        "model": model,
        "dimension": int(matrix.shape[1]),
        "count": int(matrix.shape[0]),
        "api_base": api_base,
    }


def _assemble(
    records: list[dict[str, Any]],
    todo: Sequence[int],
    fresh: Sequence[Any],
    old: Mapping[str, np.ndarray],
    spec: EmbeddingSpec,
) -> np.ndarray:
    """One row per record: fresh rows normalised here, reused rows as stored (bit-identical)."""
    new = dict(zip(todo, fresh, strict=True))
    rows = [
        l2_normalise(np.asarray(new[i], dtype=np.float32))
        if i in new
        else np.asarray(old[text_key(r["text"])], dtype=np.float32)
        for i, r in enumerate(records)
    ]
    dims = {row.shape for row in rows}
    if len(dims) != 1 or len(next(iter(dims))) != 1 or not all(np.isfinite(r).all() for r in rows):
        raise EmbeddingError(
            f"{spec.describe()} returned vectors of mixed or invalid shapes "
            f"{sorted(str(d) for d in dims)[:3]}; run `codecite build --full "
            "--embed`, and check the model if it persists"
        )
    return np.stack(rows)


def _previous_manifest(cfg: CodeciteConfig) -> dict[str, Any] | None:
    """The manifest of the index this build replaces, if its vectors may be carried over.

    An index not sealed here (``codecite.store.seal``) is rebuilt in full by the builder;
    its vectors are not carried into an index that will be sealed here either.
    """
    from codecite.store.files import read_manifest
    from codecite.store.seal import verifies

    try:
        manifest = read_manifest(cfg.index_path)
    except (CodeciteError, OSError, ValueError):
        return None
    if not cfg.trust_index_from_elsewhere and not verifies(manifest):
        if manifest.get("embedding"):
            logger.warning(
                "the vectors of the index at '%s' are not reused: it was not "
                "built here (see docs/reliability.md)",
                cfg.index_path,
            )
        return None
    return manifest


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
        return _create(spec), None
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


__all__ = ["hybrid_retriever", "make_embedding", "resolve_spec", "stored_vectors", "write_vectors"]
