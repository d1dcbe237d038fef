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
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, replace
from typing import Any

from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.bridge.pydantic import Field
from llama_index.core.prompts import PromptTemplate
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore

from codecite.answers.context import (
    CODE_KINDS,
    DEFAULT_MAX_EVIDENCE,
    DEFAULT_TOKEN_BUDGET,
    AssembledContext,
    Evidence,
    assemble,
    citation_for,
)
from codecite.answers.routing import Intent, content_query, route_query
from codecite.answers.session import ProjectRegistry, Rewrite, Turn, rewrite_followup

logger = logging.getLogger(__name__)

PATH_ANSWER, PATH_OFFLINE, PATH_CLARIFY = "answer", "offline_answer", "clarification"
DEFAULT_TOP_K = 8
PASSAGE_CHARS = 700
DOC_KINDS = ("recipe", "doc_section", "module_doc")
NO_RUN_NOTICE = "codecite only reports: it will not run anything."
# starts only where a blank run starts: no retry inside a long run of blanks (linear)
_CITE = re.compile(r"(?<!\s)(\s*)\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]")

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


# -- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CitationCheck:
    """An LLM answer after the citation check."""

    text: str
    cited: tuple[int, ...]
    invalid: tuple[int, ...]

    @property
    def uncited(self) -> bool:
        return not self.cited


@dataclass(frozen=True)
class Prepared:
    """Everything decided before an answer is written."""

    query: str
    rewrite: Rewrite
    retrieval_query: str
    context: AssembledContext


# -- citation check -------------------------------------------------------------------------


def check_citations(text: str, valid: Iterable[int]) -> CitationCheck:
    """Remove cited ids that are not in the context; report them and what remains cited.

    ``"uses f [1][7]"`` with valid ``{1}`` -> ``"uses f [1]"``, invalid ``(7,)``.
    """
    valid_ids = set(valid)
    cited: list[int] = []
    invalid: list[int] = []

    def fix(m: re.Match[str]) -> str:
        ids = [int(x) for x in re.split(r"[,;]", m.group(2))]
        keep = [i for i in ids if i in valid_ids]
        invalid.extend(i for i in ids if i not in valid_ids)
        cited.extend(i for i in keep if i not in cited)
        return f"{m.group(1)}[{', '.join(map(str, keep))}]" if keep else ""

    cleaned = _CITE.sub(fix, text)
    return CitationCheck(cleaned, tuple(cited), tuple(dict.fromkeys(invalid)))


def _split_pending(buffer: str) -> tuple[str, str]:
    """Text safe to emit, and a tail that may be the start of a citation (``"... [1"``)."""
    start = buffer.rfind("[")
    if start < 0 or "]" in buffer[start:] or len(buffer) - start > 12:
        return buffer, ""
    return buffer[:start], buffer[start:]


def filter_stream(
    deltas: Iterable[str], valid: Iterable[int], on_done: Callable[[CitationCheck], None]
) -> Generator[str, None, None]:
    """Yield ``deltas`` with invalid citations removed; ``on_done`` gets the full check."""
    valid_ids = set(valid)
    pending, full = "", []
    for delta in deltas:
        safe, pending = _split_pending(pending + (delta or ""))
        if safe:
            out = check_citations(safe, valid_ids).text
            full.append(safe)
            yield out
    if pending:
        full.append(pending)
        yield check_citations(pending, valid_ids).text
    on_done(check_citations("".join(full), valid_ids))


# -- texts ------------------------------------------------------------------------------------


def _strip_heading(ev: Evidence) -> str:
    """The body without the heading lines a node's text starts with."""
    body = ev.body
    heading = " > ".join(ev.metadata.get("heading_path") or [])
    if heading and body.startswith(heading):
        return body[len(heading) :].lstrip("\n")
    lines = body.splitlines()
    title = ev.metadata.get("heading")
    if ev.metadata.get("kind") == "recipe" and title in lines[:4]:
        return "\n".join(lines[lines.index(title) + 1 :]).lstrip("\n")
    return body


def _passage(ev: Evidence) -> str:
    body = _strip_heading(ev)
    if len(body) > PASSAGE_CHARS:
        cut = body[:PASSAGE_CHARS]
        body = cut[: cut.rfind(" ")] + " [...]" if " " in cut else cut
    return "\n".join(f"    {line}" if line.strip() else "" for line in body.splitlines())


def _card_text(actx: AssembledContext) -> list[str]:
    if not actx.api_cards:
        return []
    card = actx.api_cards[0]
    lines = [f"`{card.symbol}` — `{card.signature}` [{card.citation_id}]"]
    if card.summary:
        lines.append(card.summary)
    shown = [p.render() for p in card.params if p.name not in ("self", "cls")]
    if shown:
        lines.append("Parameters: " + "; ".join(shown))
    if card.returns:
        lines.append(f"Returns: {card.returns}")
    return lines


def _passage_text(actx: AssembledContext) -> list[str]:
    ev = next((e for e in actx.evidence if e.metadata.get("kind") in DOC_KINDS), None)
    if ev is None:
        return []
    return [f"From {ev.citation.label} [{ev.citation.id}]:", _passage(ev)]


def _code_sketch(actx: AssembledContext) -> list[str]:
    """For a code request: the import and a call of the lead callable, from its card."""
    card = next((c for c in actx.api_cards if c.symbol_type in ("function", "class")), None)
    if card is None or "." not in card.symbol:
        return []
    module, name = card.symbol.rsplit(".", 1)
    required = [
        p.name
        for p in card.params
        if p.default is None
        and p.kind in ("positional_only", "positional_or_keyword")
        and p.name not in ("self", "cls")
    ]
    return [
        "Starting point (check it with `codecite validate`):",
        "```python",
        f"from {module} import {name}",
        "",
        f"result = {name}({', '.join(required)})",
        "```",
    ]


def sources_block(evidence: Iterable[Evidence]) -> list[str]:
    return [
        "Sources:",
        *(
            f"[{e.citation.id}] {e.citation.ref} {e.citation.label} ({e.citation.kind})"
            for e in evidence
        ),
    ]


def offline_answer(actx: AssembledContext, index_summary: str | None = None) -> str:
    """The deterministic answer: lead API card and best passage (order by rank), sources."""
    blocks: list[list[str]] = [
        [f"Answer from the indexed sources (offline, no language model) for: {actx.query}"]
    ]
    if index_summary:
        blocks.append([index_summary])
    if actx.project is not None:
        blocks.append([f"Project context: {actx.project.summary()}"])
    card, passage = _card_text(actx), _passage_text(actx)
    lead_is_code = bool(actx.evidence) and actx.evidence[0].metadata.get("kind") in (
        "python_symbol",
        "python_method",
    )
    blocks += [card, passage] if lead_is_code else [passage, card]
    if actx.route.intent == Intent.CODE.value:
        blocks.append(_code_sketch(actx))
    others = [
        e
        for e in actx.evidence
        if f"[{e.citation.id}]" not in "\n".join("\n".join(b) for b in blocks)
    ]
    if others:
        blocks.append(
            ["See also: " + "; ".join(f"{e.citation.label} [{e.citation.id}]" for e in others)]
        )
    if actx.related:
        blocks.append(["Related symbols: " + ", ".join(actx.related)])
    if actx.route.intent == Intent.WORKFLOW.value:
        blocks.append(workflow_notice(actx))
    if actx.evidence:
        blocks.append(sources_block(actx.evidence))
    return "\n\n".join("\n".join(b) for b in blocks if b) + "\n"


def workflow_notice(actx: AssembledContext) -> list[str]:
    """What a workflow request would need confirmed; the engine itself runs nothing."""
    lines = [NO_RUN_NOTICE, "Running it needs your explicit confirmation of:"]
    for card in actx.api_cards:
        if card.symbol_type in ("function", "class", "method", "classmethod", "staticmethod"):
            lines.append(f"  - calling `{card.signature}` ({card.symbol}) [{card.citation_id}]")
    target = actx.project
    lines.append(
        f"  - the data it acts on: {target.summary()}"
        if target
        else "  - the data it acts on (no registered project entry was named)"
    )
    lines.append("  - where results are written (nothing is overwritten without asking)")
    return lines


def clarification(actx: AssembledContext, rewrite: Rewrite) -> tuple[str, list[dict[str, Any]]]:
    """The clarification text and its options (up to three closest candidates)."""
    conf = actx.confidence
    understood = [f"intent {actx.route.intent}"]
    if actx.workflow:
        understood.append(f"workflow {actx.workflow}")
    if rewrite.rule:
        understood.append(f"read as {rewrite.standalone!r}")
    lines = [
        f"I need a clarification before answering {rewrite.original!r}.",
        f"What I understood: {', '.join(understood)}.",
        f"What is missing: evidence strong enough to answer ({conf.reason}; "
        f"score {conf.score:.2f}, floor {conf.floor:.2f}).",
    ]
    options = [_option(i, n) for i, n in enumerate(actx.candidates[:3], 1)]
    if options:
        lines.append("Did you mean one of these?")
        lines += [f"  {o['option']}. {o['label']} ({o['kind']}, {o['ref']})" for o in options]
    else:
        lines.append(
            "Nothing in the index is close. Name a function, class, module or "
            "documented task of this project."
        )
    if actx.route.intent == Intent.WORKFLOW.value:
        lines.append(NO_RUN_NOTICE)
    return "\n".join(lines) + "\n", options


def _option(i: int, nws: NodeWithScore) -> dict[str, Any]:
    c = citation_for(i, nws.node.metadata)
    return {"option": i, "label": c.label, "kind": c.kind, "ref": c.ref}


def index_summary(index: Any) -> str:
    """One paragraph about the index itself (for ``meta`` questions)."""
    m = index.manifest
    by_kind = m.get("counts", {}).get("by_kind", {})
    kinds = ", ".join(f"{v} {k}" for k, v in sorted(by_kind.items()))
    packages = ", ".join(index.config.packages) or "the repository"
    return (
        f"About this index: codecite indexed {m.get('node_count')} nodes from "
        f"{len(m.get('files', {}))} files of {packages} ({kinds}). It answers only "
        "from these sources, with citations, and asks for clarification when the "
        "evidence is weak."
    )


# -- the engine --------------------------------------------------------------------------------


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

    index: Any = Field(description="the loaded CodeciteIndex")
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
        from codecite.answers.confidence import assess

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
            "line": actx.project.to_json() if actx.project else None,
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
                line=actx.project.name if actx.project else None,
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
