"""The answer pass: a cited answer, or an honest clarification request.

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

The pass never runs a workflow: for a workflow request it reports what would
need the user's explicit confirmation. Memory never replaces that confirmation.

``Answerer`` is plain Python: the offline path (``codecite ask``, ``chat``)
imports nothing of LlamaIndex. ``codecite.answers.engine.CodeciteQueryEngine`` is
the same pass as a LlamaIndex query engine. The offline texts are composed in
:mod:`codecite.answers.texts`, the citation check is
:mod:`codecite.answers.citations`; see docs/answers.md.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from codecite.answers.absent import absent_names
from codecite.answers.citations import CitationCheck, check_citations, filter_stream
from codecite.answers.confidence import assess
from codecite.answers.context import (
    DEFAULT_MAX_EVIDENCE,
    DEFAULT_TOKEN_BUDGET,
    AssembledContext,
    assemble,
)
from codecite.answers.followups import Rewrite, rewrite_followup
from codecite.answers.overview import OVERVIEW_MODE, overview_context
from codecite.answers.protocols import IndexLike
from codecite.answers.query_rewrite import ask_rewrites, fused_context
from codecite.answers.registry import ProjectRegistry
from codecite.answers.routing import Intent, content_query, route_query
from codecite.answers.session import Turn
from codecite.answers.texts import clarification, index_summary, offline_answer, workflow_notice
from codecite.errors import QueryError
from codecite.retrievers.rerank import rerank_context
from codecite.retrievers.results import Scored
from codecite.vocabulary import CODE_KINDS

logger = logging.getLogger(__name__)

PATH_ANSWER, PATH_OFFLINE, PATH_CLARIFY = "answer", "offline_answer", "clarification"
DEFAULT_TOP_K = 8
DEFAULT_ANSWER_PROMPT = (
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
)  # a str or a LlamaIndex PromptTemplate: both ``.format(context=, query=, extra_rules=)``
CITE_AGAIN = (
    "Your previous answer cited no source. Every claim must end with the [id] of the "
    "source it comes from; answer again.\n\n"
)
UNCITED_NOTE = (
    "(The language model's answer cited none of the sources, twice; this is the cited "
    "answer composed from the evidence instead.)"
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


@dataclass
class Answer:
    """An answer pass's result: the text, its sources and what was decided.

    ``str(answer)`` is the text and ``metadata`` the same dictionary a LlamaIndex
    ``Response`` of the query engine carries. With ``stream`` set, the text arrives
    from the iterator (citation ids checked as they come) and ``sources`` and
    ``metadata`` are final once it is exhausted.
    """

    text: str
    sources: list[Any]
    metadata: dict[str, Any]
    stream: Generator[str, None, None] | None = None

    def __str__(self) -> str:
        return self.text


def resolve_llm(llm: Any = None) -> Any:
    """``llm`` if given, else ``Settings.llm`` only if the user set one (never a default).

    LlamaIndex's ``Settings`` is read only when ``llama_index.core`` is already
    imported: otherwise no one can have set it, and importing it costs a second.
    """
    if llm is not None:
        return llm
    if "llama_index.core" not in sys.modules:
        return None
    from llama_index.core import Settings

    chosen = getattr(Settings, "_llm", None)
    if chosen is None or type(chosen).__name__ == "MockLLM":
        return None
    return chosen


def _same(hit: Scored) -> Any:
    return hit


@dataclass
class Answerer:
    """Answer from a codecite index with citations, or ask for clarification.

    ``source`` turns each evidence node into what ``Answer.sources`` holds (the
    query engine passes ``to_node_with_score``); by default the plain hits.

    Example:
        >>> answerer = Answerer(index=codecite.load("."))            # doctest: +SKIP
        >>> a = answerer.query("how do I load a survey?")           # doctest: +SKIP
        >>> a.metadata["path"], a.metadata["citations"][0]["ref"]   # doctest: +SKIP
    """

    index: IndexLike
    llm: Any = None
    session: Any = None
    registry: Any = None
    similarity_top_k: int = DEFAULT_TOP_K
    max_evidence: int = DEFAULT_MAX_EVIDENCE
    token_budget: int = DEFAULT_TOKEN_BUDGET
    streaming: bool = False
    dense: bool = False
    answer_template: Any = DEFAULT_ANSWER_PROMPT
    source: Callable[[Scored], Any] = field(default=_same)
    node_postprocessors: Sequence[Any] = ()  # LlamaIndex rerankers (retrievers.rerank)
    rewrite_queries: bool = False  # with an LLM: its rewrites fused in (query_rewrite)
    rewrite_cache: dict[str, Any] = field(default_factory=dict)
    _rewrite: Any = field(default=None, init=False, repr=False)  # this question's rewrites

    def _registry(self) -> ProjectRegistry:
        if self.registry is None:
            self.registry = ProjectRegistry.from_config(self.index.config)
        return self.registry

    def prepare(self, query: str) -> Prepared:
        """Rewrite, resolve, route, retrieve, assess and assemble (no answer yet)."""
        if not isinstance(query, str) or not query.strip():  # as index.ask says it
            raise QueryError("the question is empty; ask a question or name a symbol")
        registry = self._registry()
        rewrite = rewrite_followup(query, self.session, registry)
        standalone = rewrite.standalone
        project = registry.resolve(standalone)
        route = route_query(standalone, self.index.config)
        if self.dense:
            retriever = self.index.retriever(self.similarity_top_k, dense=True)
        else:
            retriever = self.index.scorer(self.similarity_top_k)
        ctx = retriever.retrieve_context(content_query(standalone, route))
        if route.intent == Intent.META.value and not ctx.nodes:  # "what can you do?"
            ctx = overview_context(self.index, standalone, self.similarity_top_k)
        lexical = getattr(retriever, "lexical", retriever)  # a hybrid wraps the lexical one
        calibration = (getattr(self.index, "manifest", None) or {}).get("calibration")
        floor = self.index.config.confidence_floor
        conf = assess(lexical, ctx, project is not None, floor=floor, calibration=calibration)
        llm = resolve_llm(self.llm) if self.rewrite_queries else None
        if llm is not None:  # after the decision, which reads the user's own words
            ctx = self._rewritten(llm, retriever, ctx, standalone)
        ctx = rerank_context(ctx, self.node_postprocessors, standalone)
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

    def _rewritten(self, llm: Any, retriever: Any, ctx: Any, query: str) -> Any:
        packages = ", ".join(self.index.config.packages) or "in this repository"
        cache = getattr(self.session, "rewrites", self.rewrite_cache)
        rewrite = ask_rewrites(llm, query, packages, cache)
        self._rewrite = rewrite
        return fused_context(retriever, ctx, rewrite, self.similarity_top_k)

    def query(self, query_str: str) -> Answer:
        prep = self.prepare(query_str)
        actx = prep.context
        llm = resolve_llm(self.llm)
        meta = self._metadata(prep)
        notes = meta["absent_names"] = absent_names(self.index, actx.query)
        if not actx.is_confident and actx.route.intent != Intent.META.value:
            text, options = clarification(actx, prep.rewrite)
            text = "".join(f"Note: {note}\n\n" for note in notes) + text
            meta.update(path=PATH_CLARIFY, options=options, citations=[])
            answer = Answer(text, [], meta)
        elif llm is None or (actx.route.intent == Intent.META.value and not actx.is_confident):
            answer = self._offline(actx, meta)
        else:
            answer = self._llm_answer(llm, actx, meta)
        self._remember(prep, meta)
        if self.streaming and answer.stream is None:  # the offline text, streamed too
            answer.stream = _in_pieces(answer.text)
        return answer

    def _offline(self, actx: AssembledContext, meta: dict[str, Any]) -> Answer:
        meta_q = actx.route.intent == Intent.META.value
        summary = index_summary(self.index) if meta_q else None
        if meta_q and not actx.is_confident and actx.mode != OVERVIEW_MODE:
            actx = _without_evidence(actx)
            meta["citations"] = []
        meta["path"] = PATH_OFFLINE
        notes = meta.get("absent_names", [])
        return Answer(offline_answer(actx, summary, notes), self._sources(actx), meta)

    def _sources(self, actx: AssembledContext, cited: Iterable[int] | None = None) -> list[Any]:
        if cited is None:
            return [self.source(e.node) for e in actx.evidence]
        return [self.source(ev.node) for cid in cited if (ev := actx.by_id(cid)) is not None]

    def _prompt(self, actx: AssembledContext) -> str:
        rules = WORKFLOW_RULE if actx.route.intent == Intent.WORKFLOW.value else ""
        return str(
            self.answer_template.format(context=actx.render(), query=actx.query, extra_rules=rules)
        )

    def _llm_answer(self, llm: Any, actx: AssembledContext, meta: dict[str, Any]) -> Answer:
        prompt = self._prompt(actx)
        valid = [e.citation.id for e in actx.evidence]
        meta["path"] = PATH_ANSWER
        if self.streaming:
            return self._stream(llm, prompt, actx, meta, valid)
        check = check_citations(llm.complete(prompt).text, valid)
        meta["llm_attempts"] = 1
        if check.uncited:  # once more, with the rule it broke said first
            check = check_citations(llm.complete(CITE_AGAIN + prompt).text, valid)
            meta["llm_attempts"] = 2
        _record_check(meta, check, actx)
        if check.uncited:  # a claim with no source is not an answer: the cited offline one
            return self._uncited_fallback(actx, meta)
        text = check.text
        if actx.route.intent == Intent.WORKFLOW.value:
            text = text.rstrip() + "\n\n" + "\n".join(workflow_notice(actx))
        return Answer(text, self._sources(actx, check.cited), meta)

    def _uncited_fallback(self, actx: AssembledContext, meta: dict[str, Any]) -> Answer:
        offline = self._offline(actx, meta)
        meta["fallback"] = "uncited_llm_answer"
        meta["citations"] = [c.to_json() for c in actx.citations]
        offline.text = f"{UNCITED_NOTE}\n\n{offline.text}"
        return offline

    def _stream(
        self, llm: Any, prompt: str, actx: AssembledContext, meta: dict[str, Any], valid: list[int]
    ) -> Answer:
        sources = self._sources(actx)
        checked: list[CitationCheck] = []

        def done(check: CitationCheck) -> None:
            _record_check(meta, check, actx)
            sources[:] = self._sources(actx, check.cited)
            checked.append(check)

        def stream() -> Generator[str, None, None]:
            deltas = (r.delta or "" for r in llm.stream_complete(prompt))
            yield from filter_stream(deltas, valid, done)
            if checked and checked[0].uncited:  # streamed already: the cited answer follows
                fallback = self._uncited_fallback(actx, meta)
                sources[:] = fallback.sources
                yield "\n\n" + fallback.text

        return Answer("", sources, meta, stream=stream())

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
                "features": conf.features,
            },
            "top_score": actx.top_score,
            "line": actx.project.to_json() if actx.project else None,  # the registry entry
            "citations": [c.to_json() for c in actx.citations],
            "api_cards": [c.to_json() for c in actx.api_cards],
            "related": list(actx.related),
            "degraded": actx.degraded,
            "dropped": actx.dropped,
            "runs_anything": False,
            "query_rewrite": self._rewrite.to_json() if self._rewrite is not None else None,
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


STREAM_PIECE = 24  # characters per streamed piece of an offline text


def _in_pieces(text: str) -> Generator[str, None, None]:
    for start in range(0, len(text), STREAM_PIECE):
        yield text[start : start + STREAM_PIECE]


def _record_check(meta: dict[str, Any], check: CitationCheck, actx: AssembledContext) -> None:
    meta["invalid_citations"] = list(check.invalid)
    meta["uncited"] = check.uncited
    meta["cited_ids"] = list(check.cited)
    meta["citations"] = [c.to_json() for c in actx.citations if c.id in check.cited]
    if check.invalid:
        logger.warning("answer cited ids not in its context, removed: %s", list(check.invalid))


def _without_evidence(actx: AssembledContext) -> AssembledContext:
    return replace(actx, evidence=(), api_cards=(), related=())
