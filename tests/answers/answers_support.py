"""Shared helpers for answer tests: a scripted LLM and citation assertions.

Reusable on any built repository (the fixture here, codecite's own index in
the lead's tests): ``assert_answered(index, question, paths)`` and
``assert_clarified(index, question)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from llama_index.core.base.llms.types import (
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.bridge.pydantic import Field
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_completion_callback


class ScriptedLLM(CustomLLM):
    """Returns canned texts in order (the last one repeats); records every prompt."""

    script: list[str] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    chunk: int = Field(default=3, description="characters per streamed delta")

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            model_name="scripted", is_chat_model=False, is_function_calling_model=False
        )

    def _next(self, prompt: str) -> str:
        self.prompts.append(prompt)
        index = min(len(self.prompts) - 1, len(self.script) - 1)
        return self.script[index]

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._next(prompt))

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        text = self._next(prompt)

        def gen() -> CompletionResponseGen:
            for i in range(0, len(text), self.chunk):
                yield CompletionResponse(
                    text=text[: i + self.chunk], delta=text[i : i + self.chunk]
                )

        return gen()


def cited_paths(response: Any) -> list[str]:
    return [c["path"] for c in response.metadata["citations"]]


def assert_citations_real(root: Path, response: Any) -> None:
    """Every citation names an existing file and a line span inside it."""
    for c in response.metadata["citations"]:
        lines = (root / c["path"]).read_text(encoding="utf-8").splitlines()
        assert 1 <= c["start_line"] <= c["end_line"] <= max(len(lines), 1), c
        assert c["ref"] == f"{c['path']}:{c['start_line']}-{c['end_line']}"
        assert f"[{c['id']}] {c['ref']}" in str(response)


def assert_answered(
    index: Any, question: str, paths: Iterable[str], top: int = 3, **kwargs: Any
) -> Any:
    """The question is answered (offline) and one of ``paths`` is among the top citations."""
    response = index.ask(question, **kwargs)
    meta = response.metadata
    assert meta["path"] == "offline_answer", (question, meta["confidence"])
    assert meta["confident"] is True
    top_paths = cited_paths(response)[:top]
    assert set(paths) & set(top_paths), (question, top_paths)
    assert [n.node.metadata["source_path"] for n in response.source_nodes] == cited_paths(response)
    assert_citations_real(index.config.root, response)
    return response


def assert_clarified(index: Any, question: str, **kwargs: Any) -> Any:
    """The question gets a clarification request and no answer or citations."""
    response = index.ask(question, **kwargs)
    meta = response.metadata
    assert meta["path"] == "clarification", (question, meta["confidence"])
    assert meta["confident"] is False
    assert meta["citations"] == [] and response.source_nodes == []
    assert "clarification" in str(response) and len(meta["options"]) <= 3
    return response


def run_turns(engine: Any, turns: Sequence[str]) -> list[Any]:
    return [engine.query(t) for t in turns]
