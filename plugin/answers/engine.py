"""The query engine: an answer with citations, or an honest clarification request.

One pass: make a follow-up standalone (session), resolve registry mentions,
route (intent, workflow), retrieve, decide confidence
(``codecite.answers.confidence.assess``), assemble the context, then take one path:

- ``clarification``: not confident; say what was understood, what is missing
  and offer up to three closest candidates; no answer text pretending otherwise;
- ``offline_answer``: confident and no LLM; a deterministic answer composed
  from the top evidence (API card, best passage, numbered citations); the same
  input gives byte-identical output;
- ``answer``: confident with a LlamaIndex LLM; a prompt that numbers every
  source and demands ``[id]`` citations, then a citation check that removes
  ids not in the context (``invalid_citations``) and flags an answer that
  cites nothing (``uncited``). Streaming filters ids as they arrive.

The engine never runs a workflow: for a workflow request it reports what would
need the user's explicit confirmation. Memory never replaces that confirmation.

The offline texts are composed in :mod:`codecite.answers.texts`, the citation
check is :mod:`codecite.answers.citations`; see docs/answers.md.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.bridge.pydantic import Field
from llama_index.core.prompts import PromptTemplate
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore
from pydantic import SkipValidation

from codecite.answers.citations import CitationCheck, check_citations, filter_stream
from codecite.answers.confidence import assess
from codecite.answers.context import (
    DEFAULT_MAX_EVIDENCE,
    DEFAULT_TOKEN_BUDGET,
    AssembledContext,
    Evidence,
    assemble,
)
from codecite.answers.followups import Rewrite, rewrite_followup
from codecite.answers.protocols import IndexLike
from codecite.answers.registry import ProjectRegistry
from codecite.answers.routing import Intent, content_query, route_query
from codecite.answers.session import Turn
from codecite.answers.texts import clarification, index_summary, offline_answer, workflow_notice
from codecite.vocabulary import CODE_KINDS

logger = logging.getLogger(__name__)

PATH_ANSWER, PATH_OFFLINE, PATH_CLARIFY = "answer", "offline_answer", "clarification"
DEFAULT_TOP_K = 8
DEFAULT_ANSWER_PROMPT = PromptTemplate(
    "You answer questions about a Python codebase using ONLY the numbered sources below.\n"
    "Rules:\n"
    "- Cite every claim with the id of its source in square brackets, e.g. [1] or [2][3].\n"
    "- Use only the ids listed below; never invent an id, a function, a parameter or a path.\n"
    "- When you write code, use the exact signatures of the API cards.\n"
    "- If the sources do not answer the question, say so plainly.\n"
    "{extra_rules}\n"
    "{context}\n\n"
    "Question: {query}\n"
    "Answer (with [id] citations):"
)
WORKFLOW_RULE = (
    "- Never claim to have run anything: describe the steps and say which "
    "need the user's confirmation."
)


@dataclass(frozen=True)
class Prepared:
    """Everything decided before an answer is written."""

    query: str
    rewrite: Rewrite
    retrieval_query: str
    context: AssembledContext


def resolve_llm(llm: Any = None) -> Any:
    """``llm`` if given, else ``Settings.llm`` only if the user set one (never a default)."""
    if llm is not None:
        return llm
    from llama_index.core import Settings

    chosen = getattr(Settings, "_llm", None)
    if chosen is None or type(chosen).__name__ == "MockLLM":
        return None
    return chosen


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
    similarity_top_k: int = Field(default=DEFAULT_TOP_K)
    max_evidence: int = Field(default=DEFAULT_MAX_EVIDENCE)
    token_budget: int = Field(default=DEFAULT_TOKEN_BUDGET)
    streaming: bool = Field(default=False)
    dense: bool = Field(default=False)
    answer_template: Any = Field(default=DEFAULT_ANSWER_PROMPT)

    def _registry(self) -> ProjectRegistry:
        if self.registry is None:
            self.registry = ProjectRegistry.from_config(self.index.config)
        return self.registry

    def prepare(self, query: str) -> Prepared:
        """Rewrite, resolve, route, retrieve, assess and assemble (no answer yet)."""
        registry = self._registry()
        rewrite = rewrite_followup(query, self.session, registry)
        standalone = rewrite.standalone
        project = registry.resolve(standalone)
        route = route_query(standalone, self.index.config)
        retriever = self.index.retriever(self.similarity_top_k, dense=self.dense)
        ctx = retriever.retrieve_context(content_query(standalone, route))
        lexical = getattr(retriever, "lexical", retriever)  # a hybrid wraps the lexical one
        conf = assess(lexical, ctx, project is not None, floor=self.index.config.confidence_floor)
        actx = assemble(
            self.index,
            ctx,
            conf,
            route,
            project=project,
            budget=self.token_budget,
            max_evidence=self.max_evidence,
            query=standalone,
        )
        return Prepared(query, rewrite, ctx.query, actx)

    def custom_query(self, query_str: str) -> Response | StreamingResponse:
        prep = self.prepare(query_str)
        actx = prep.context
        llm = resolve_llm(self.llm)
        meta = self._metadata(prep)
        if not actx.is_confident and actx.route.intent != Intent.META.value:
            text, options = clarification(actx, prep.rewrite)
            meta.update(path=PATH_CLARIFY, options=options, citations=[])
            response: Response | StreamingResponse = Response(text, [], meta)
        elif llm is None or (actx.route.intent == Intent.META.value and not actx.is_confident):
            response = self._offline(actx, meta)
        else:
            response = self._llm_answer(llm, actx, meta)
        self._remember(prep, meta)
        return response

    def _offline(self, actx: AssembledContext, meta: dict[str, Any]) -> Response:
        meta_q = actx.route.intent == Intent.META.value
        summary = index_summary(self.index) if meta_q else None
        if meta_q and not actx.is_confident:
            actx = _without_evidence(actx)
            meta["citations"] = []
        meta["path"] = PATH_OFFLINE
        return Response(offline_answer(actx, summary), list(_nodes(actx.evidence)), meta)

    def _prompt(self, actx: AssembledContext) -> str:
        rules = WORKFLOW_RULE if actx.route.intent == Intent.WORKFLOW.value else ""
        return self.answer_template.format(
            context=actx.render(), query=actx.query, extra_rules=rules
        )

    def _llm_answer(
        self, llm: Any, actx: AssembledContext, meta: dict[str, Any]
    ) -> Response | StreamingResponse:
        prompt = self._prompt(actx)
        valid = [e.citation.id for e in actx.evidence]
        meta["path"] = PATH_ANSWER
        if self.streaming:
            return self._stream(llm, prompt, actx, meta, valid)
        check = check_citations(llm.complete(prompt).text, valid)
        text = check.text
        if actx.route.intent == Intent.WORKFLOW.value:
            text = text.rstrip() + "\n\n" + "\n".join(workflow_notice(actx))
        _record_check(meta, check, actx)
        return Response(text, _cited_nodes(actx, check), meta)

    def _stream(
        self, llm: Any, prompt: str, actx: AssembledContext, meta: dict[str, Any], valid: list[int]
    ) -> StreamingResponse:
        nodes: list[NodeWithScore] = list(_nodes(actx.evidence))

        def done(check: CitationCheck) -> None:
            _record_check(meta, check, actx)
            nodes[:] = _cited_nodes(actx, check)

        deltas = (r.delta or "" for r in llm.stream_complete(prompt))
        return StreamingResponse(filter_stream(deltas, valid, done), nodes, meta)

    def _metadata(self, prep: Prepared) -> dict[str, Any]:
        actx = prep.context
        conf = actx.confidence
        return {
            "path": None,
            "query": prep.query,
            "standalone_query": prep.rewrite.standalone,
            "rewrite": prep.rewrite.rule,
            "retrieval_query": prep.retrieval_query,
            "intent": actx.route.intent,
            "workflow": actx.workflow,
            "confident": conf.confident,
            "confidence": {
                "confident": conf.confident,
                "score": conf.score,
                "floor": conf.floor,
                "rule": conf.rule,
                "reason": conf.reason,
            },
            "top_score": actx.top_score,
            "line": actx.project.to_json() if actx.project else None,  # the registry entry
            "citations": [c.to_json() for c in actx.citations],
            "api_cards": [c.to_json() for c in actx.api_cards],
            "related": list(actx.related),
            "degraded": actx.degraded,
            "dropped": actx.dropped,
            "runs_anything": False,
        }

    def _remember(self, prep: Prepared, meta: dict[str, Any]) -> None:
        if self.session is None:
            return
        actx = prep.context
        symbols = (
            tuple(
                dict.fromkeys(
                    str(e.metadata["symbol"])
                    for e in actx.evidence
                    if e.metadata.get("kind") in CODE_KINDS and e.metadata.get("symbol")
                )
            )
            if meta["path"] != PATH_CLARIFY
            else ()
        )
        self.session.record(
            Turn(
                query=prep.query,
                standalone=prep.rewrite.standalone,
                intent=actx.route.intent,
                path=str(meta["path"]),
                workflow=actx.workflow,
                entry=actx.project.name if actx.project else None,
                symbols=symbols,
                citations=tuple(c["ref"] for c in meta.get("citations", [])),
            )
        )


def _nodes(evidence: Iterable[Evidence]) -> Iterable[NodeWithScore]:
    return (e.node for e in evidence)


def _cited_nodes(actx: AssembledContext, check: CitationCheck) -> list[NodeWithScore]:
    return [ev.node for cid in check.cited if (ev := actx.by_id(cid)) is not None]


def _record_check(meta: dict[str, Any], check: CitationCheck, actx: AssembledContext) -> None:
    meta["invalid_citations"] = list(check.invalid)
    meta["uncited"] = check.uncited
    meta["cited_ids"] = list(check.cited)
    meta["citations"] = [c.to_json() for c in actx.citations if c.id in check.cited]
    if check.invalid:
        logger.warning("answer cited ids not in its context, removed: %s", list(check.invalid))


def _without_evidence(actx: AssembledContext) -> AssembledContext:
    return replace(actx, evidence=(), api_cards=(), related=())
