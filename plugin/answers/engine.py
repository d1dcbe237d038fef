"""The query engine: ``answerer.Answerer`` as a LlamaIndex ``CustomQueryEngine``.

The answer pass (cited answer, offline answer or clarification) is
:class:`codecite.answers.answerer.Answerer`; this module is its LlamaIndex face:
a ``Response`` (or ``StreamingResponse``) whose ``source_nodes`` are
``NodeWithScore``, made for the cited evidence only. See docs/answers.md.
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any

from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.bridge.pydantic import Field, PrivateAttr, field_validator
from llama_index.core.prompts import PromptTemplate
from llama_index.core.query_engine import CustomQueryEngine
from pydantic import SkipValidation

from codecite.answers.answerer import DEFAULT_ANSWER_PROMPT as ANSWER_PROMPT_TEXT
from codecite.answers.answerer import (
    DEFAULT_TOP_K,
    PATH_ANSWER,
    PATH_CLARIFY,
    PATH_OFFLINE,
    WORKFLOW_RULE,
    Answerer,
    Prepared,
    resolve_llm,
)
from codecite.answers.context import DEFAULT_MAX_EVIDENCE, DEFAULT_TOKEN_BUDGET
from codecite.answers.llms import checked_llm
from codecite.answers.protocols import IndexLike
from codecite.retrievers.results import to_node_with_score

DEFAULT_ANSWER_PROMPT = PromptTemplate(ANSWER_PROMPT_TEXT)


class CodeciteQueryEngine(CustomQueryEngine):
    """Answer from a codecite index with citations, or ask for clarification.

    Example:
        >>> engine = CodeciteQueryEngine(index=codecite.load("."))    # doctest: +SKIP
        >>> r = engine.query("how do I load a survey?")              # doctest: +SKIP
        >>> r.metadata["path"], r.metadata["citations"][0]["ref"]    # doctest: +SKIP
    """

    index: SkipValidation[IndexLike] = Field(description="the loaded CodeciteIndex")
    llm: Any = Field(default=None, description="a LlamaIndex LLM; None: Settings.llm if set")
    session: Any = Field(default=None, description="a codecite.answers.session.Session or None")
    registry: Any = Field(default=None, description="ProjectRegistry (default: from config)")
    similarity_top_k: int = Field(default=DEFAULT_TOP_K, gt=0)
    max_evidence: int = Field(default=DEFAULT_MAX_EVIDENCE, gt=0)
    token_budget: int = Field(default=DEFAULT_TOKEN_BUDGET, gt=0)
    streaming: bool = Field(default=False)
    dense: bool = Field(default=False)
    answer_template: Any = Field(default=DEFAULT_ANSWER_PROMPT)
    node_postprocessors: list[Any] = Field(
        default_factory=list, description="LlamaIndex node postprocessors (rerankers)"
    )
    rewrite_queries: bool = Field(
        default=False, description="with an LLM, fuse its query rewrites in (query_rewrite)"
    )
    _rewrite_cache: dict[str, Any] = PrivateAttr(default_factory=dict)

    @field_validator("llm")
    @classmethod
    def _llm(cls, llm: Any) -> Any:  # "openai:gpt-4o-mini" as --llm takes it; 42 refused now
        return checked_llm(llm)

    def answerer(self) -> Answerer:
        """The plain answer pass with this engine's settings (sources as ``NodeWithScore``)."""
        answerer = Answerer(
            index=self.index,
            llm=self.llm,
            session=self.session,
            registry=self.registry,
            similarity_top_k=self.similarity_top_k,
            max_evidence=self.max_evidence,
            token_budget=self.token_budget,
            streaming=self.streaming,
            dense=self.dense,
            answer_template=self.answer_template,
            source=to_node_with_score,
            node_postprocessors=self.node_postprocessors,
            rewrite_queries=self.rewrite_queries,
            rewrite_cache=self._rewrite_cache,
        )
        answerer._registry()
        self.registry = answerer.registry  # made once, kept for the next query
        return answerer

    def prepare(self, query: str) -> Prepared:
        """Rewrite, resolve, route, retrieve, assess and assemble (no answer yet)."""
        return self.answerer().prepare(query)

    def custom_query(self, query_str: str) -> Response | StreamingResponse:
        answer = self.answerer().query(query_str)
        if answer.stream is not None:
            return StreamingResponse(answer.stream, answer.sources, answer.metadata)
        return Response(answer.text, answer.sources, answer.metadata)


ENGINE_OPTIONS = frozenset(CodeciteQueryEngine.model_fields) - {"index"}


def engine_options(
    where: str, options: dict[str, Any], allowed: frozenset[str] = ENGINE_OPTIONS
) -> dict[str, Any]:
    """``options`` of ``where()`` (``as_query_engine``, ``as_chat_engine``, ``as_tools``)
    checked by name, as a function's keywords are: a misspelt one is an error naming the
    close one, not a setting silently ignored. ``k`` is ``similarity_top_k`` (as in ask)."""
    out = dict(options)
    if "k" in out:
        out["similarity_top_k"] = out.pop("k")
    for name in out:
        if name not in allowed:
            near = get_close_matches(name, allowed, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise TypeError(
                f"{where}() got an unexpected keyword argument {name!r}{hint}; "
                f"it takes {', '.join(sorted(allowed))}"
            )
    return out


__all__ = [
    "DEFAULT_ANSWER_PROMPT",
    "ENGINE_OPTIONS",
    "PATH_ANSWER",
    "PATH_CLARIFY",
    "PATH_OFFLINE",
    "WORKFLOW_RULE",
    "CodeciteQueryEngine",
    "engine_options",
    "resolve_llm",
]
