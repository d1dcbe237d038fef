"""Dense vectors at build time: embed new or changed nodes, reuse the rest.

:func:`write_vectors` is the build's hook (``codecite build --embed``, and every
later build of an index with vectors). Vectors are never dropped silently: a plain
build that cannot embed the changed nodes keeps the others and reports the rest as
stale; an explicit ``--embed`` that cannot embed fails and leaves the index as it
was. See docs/dense.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from codecite.config.model import CodeciteConfig
from codecite.dense import embeddings as emb
from codecite.dense import texts as embedded
from codecite.dense.backends import NotConfigured, cached_embedding, resolve_spec
from codecite.dense.spec import Backend, EmbeddingSpec
from codecite.dense.vectors import (
    reusable_vectors,
    save_vectors,
    stale_note,
    text_key,
)
from codecite.errors import (
    CodeciteError,
    EmbeddingError,
)
from codecite.retrievers.fusion import l2_normalise
from codecite.retrievers.hybrid import redact_secrets
from codecite.store.files import Manifest

logger = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class _VectorBuild:
    """The vectors of one build: where they go, the nodes, what was asked, and the
    previous index's manifest (read, never written)."""

    index_dir: Path
    cfg: CodeciteConfig
    records: list[dict[str, Any]]
    embed: Mapping[str, Any] | BaseEmbedding | None
    manifest: Manifest | None

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
    keys = [text_key(embedded.active(r)) for r in records]  # what each vector is made of
    todo = [i for i, key in enumerate(keys) if key not in old]
    fresh: list[Any] = []
    if todo:
        try:
            spec, fresh = _embed_todo(
                spec, embed, [embedded.active(records[i]) for i in todo], len(records), progress
            )
        except EmbeddingError as exc:
            same = job.previous is not None and _made_by(job.previous, spec)
            return _cannot_embed(job, exc, spec, old if same else None)
    matrix = _assemble(keys, todo, fresh, old, spec)
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
    """The embedding of a backend by name; ``NotConfigured`` when it cannot be tried."""
    if spec.backend is Backend.CUSTOM:
        raise NotConfigured(
            f"the vectors were made by a custom embedding (model "
            f"{spec.model!r}); pass it again: codecite.build(embed=<model>)"
        )
    reason = emb.not_configured_reason(spec)
    if reason is not None:
        raise NotConfigured(reason)
    try:
        return cached_embedding(spec)
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
    not_configured = isinstance(exc, NotConfigured)
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
    short = emb.missing_requirement(spec) if isinstance(exc, NotConfigured) else None
    detail = short or str(exc).split("; ", 1)[0]
    return redact_secrets(f"backend {spec.backend.value} unavailable: {detail}")[:300]


def _keep_previous(
    job: _VectorBuild, info: dict[str, Any], reason: str, old: Mapping[str, np.ndarray] | None
) -> dict[str, Any] | None:
    """The previous vectors of every node whose text is unchanged; the rest is ``stale``."""
    backend, model = str(info.get("backend")), info.get("model")
    if old is None:
        old = reusable_vectors(job.cfg.index_path, job.manifest, backend, model)
    keyed = [(r, text_key(embedded.active(r))) for r in job.records]
    kept = [(r, key) for r, key in keyed if key in old]
    if not kept:
        logger.warning(
            "the index's vectors cannot be kept (no node text is unchanged, or "
            "they are unreadable) and %s; the index is lexical only; run "
            "`codecite build --embed`",
            reason,
        )
        return None
    matrix = np.stack([old[key] for _, key in kept])
    save_vectors(job.index_dir, [r["id"] for r, _ in kept], matrix, normalise=False)
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
        "text": embedded.ACTIVE_RULE,
    }


def _assemble(
    keys: Sequence[str],
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
        else np.asarray(old[key], dtype=np.float32)
        for i, key in enumerate(keys)
    ]
    dims = {row.shape for row in rows}
    if len(dims) != 1 or len(next(iter(dims))) != 1 or not all(np.isfinite(r).all() for r in rows):
        raise EmbeddingError(
            f"{spec.describe()} returned vectors of mixed or invalid shapes "
            f"{sorted(str(d) for d in dims)[:3]}; run `codecite build --full "
            "--embed`, and check the model if it persists"
        )
    return np.stack(rows)


def _previous_manifest(cfg: CodeciteConfig) -> Manifest | None:
    """The manifest of the index this build replaces, if its vectors may be carried over.

    An index not sealed here (``codecite.store.seal``) is rebuilt in full by the builder;
    its vectors are not carried into an index that will be sealed here either.
    """
    from codecite.store.files import read_manifest_text
    from codecite.store.seal import verifies

    try:
        manifest, text = read_manifest_text(cfg.index_path)
    except (CodeciteError, OSError, ValueError):
        return None
    if not cfg.trust_index_from_elsewhere and not verifies(manifest, text):
        if manifest.get("embedding"):
            logger.warning(
                "the vectors of the index at '%s' are not reused: it was not "
                "built here (see docs/reliability.md)",
                cfg.index_path,
            )
        return None
    return manifest
