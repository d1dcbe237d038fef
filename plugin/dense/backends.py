"""Which embedding model makes an index's vectors: settings, overrides, the previous build.

:func:`resolve_spec` turns ``[tool.codecite.embedding]``, the command line and the
model that made the previous vectors into one :class:`EmbeddingSpec`;
:func:`make_embedding` creates the LlamaIndex embedding for it. See docs/dense.md.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding

from codecite.config.model import EmbeddingSettings
from codecite.dense import embeddings as emb
from codecite.dense.spec import Backend, EmbeddingSpec
from codecite.errors import (
    ConfigError,
    EmbeddingError,
)

_local_models: dict[EmbeddingSpec, BaseEmbedding] = {}

logger = logging.getLogger(__name__)


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
    return cached_embedding(spec)


def cached_embedding(spec: EmbeddingSpec) -> BaseEmbedding:
    """A new embedding; the local model (seconds to load) is made once per process."""
    if spec.backend is not Backend.LOCAL:
        return emb.create_embedding(spec)
    if spec not in _local_models:
        _local_models[spec] = emb.create_embedding(spec)
    return _local_models[spec]


class NotConfigured(EmbeddingError):
    """The chosen backend cannot be tried at all (no key, extra missing, custom model)."""
