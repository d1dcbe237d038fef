"""The language model of an answer: a LlamaIndex LLM, or one named as ``PROVIDER:MODEL``.

``codecite ask --llm openai:gpt-4o-mini`` and ``index.as_query_engine(llm=...)`` take the
same forms; the provider's package is imported only when its model is asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

from codecite.errors import UsageError

LLM_PROVIDERS = {
    "openai": ("llama_index.llms.openai", "OpenAI", "llama-index-llms-openai"),
    "ollama": ("llama_index.llms.ollama", "Ollama", "llama-index-llms-ollama"),
}


def make_llm(spec: str | None) -> Any:
    """``"openai:gpt-4o-mini"`` -> that LlamaIndex LLM (imported lazily); None -> None."""
    if not spec:
        return None
    provider, _, model = spec.partition(":")
    if provider not in LLM_PROVIDERS or not model:
        raise UsageError(
            f"--llm {spec!r} is not PROVIDER:MODEL with PROVIDER one of "
            f"{', '.join(LLM_PROVIDERS)} (e.g. openai:gpt-4o-mini)"
        )
    module, cls, package = LLM_PROVIDERS[provider]
    try:
        return getattr(importlib.import_module(module), cls)(model=model)
    except ImportError as exc:
        raise UsageError(f"--llm {provider} needs `pip install {package}`") from exc


def checked_llm(llm: Any) -> Any:
    """``llm`` as an answer uses it: None (offline, or ``Settings.llm``), a LlamaIndex LLM,
    or a ``PROVIDER:MODEL`` string made into one. Anything else is refused when the engine
    is made, not at its first question."""
    if isinstance(llm, str):
        return make_llm(llm)
    if llm is not None and not callable(getattr(llm, "complete", None)):
        raise ValueError(
            f"llm must be a LlamaIndex LLM (llama_index.llms.openai.OpenAI(model=...)) or "
            f"'PROVIDER:MODEL' with PROVIDER one of {', '.join(LLM_PROVIDERS)}; "
            f"got {type(llm).__name__} {llm!r}"
        )
    return llm


__all__ = ["LLM_PROVIDERS", "checked_llm", "make_llm"]
