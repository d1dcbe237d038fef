"""Context assembly: from ranked evidence to what an answer may be built from.

``RetrievedContext`` -> :class:`AssembledContext`: the query, the ranked
evidence with numbered citations (``path:start-end``), the project context
resolved from the registry, related symbols, API cards of retrieved code
symbols, and the confidence decision (``codecite.answers.confidence.assess``).

API cards exist so that generated code uses real signatures and parameter
names instead of prose paraphrases (see docs/answers.md, "Context assembly").

The rendered context respects a token budget (tokens estimated as
``ceil(chars / 4)``): evidence is kept in rank order, a body may be shortened,
but a citation header is never cut; what does not fit is dropped whole.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from codecite.answers.citations import Citation, citation_for
from codecite.answers.confidence import Confidence
from codecite.answers.protocols import IndexLike
from codecite.answers.registry import RegistryEntry
from codecite.answers.routing import Route
from codecite.node_parsers.signatures import (
    annotation_doc,
    documented_returns,
    readable,
    without_doc,
)
from codecite.retrievers.results import RetrievedContext, Scored
from codecite.store.symbols import SymbolTable
from codecite.vocabulary import CODE_KINDS, NodeKind

logger = logging.getLogger(__name__)

DEFAULT_TOKEN_BUDGET = 3000
DEFAULT_MAX_EVIDENCE = 6
MAX_API_CARDS = 3
MAX_RELATED = 8
MIN_BODY_TOKENS = 24
MAX_SHOWN_PARAMS = 12  # a card lists this many parameters, then how many more there are
PARAM_DOC_CHARS = 100
ELLIPSIS = " [...]"


def estimate_tokens(text: str) -> int:
    """A model-independent token estimate: four characters a token, rounded up."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True)
class Evidence:
    """A ranked node as placed in the context (``body`` may be shortened by the budget)."""

    citation: Citation
    node: Scored
    body: str
    truncated: bool = False

    @property
    def metadata(self) -> dict[str, Any]:
        return self.node.node.metadata

    def render(self) -> str:
        return f"{self.citation.header()}\n{self.body}"


@dataclass(frozen=True)
class Param:
    """One parameter of an API card."""

    name: str
    annotation: str | None = None
    default: str | None = None
    kind: str = "positional_or_keyword"
    doc: str | None = None  # documentation written into the annotation (``signatures``)

    def render(self) -> str:
        text = self.name + (f": {self.annotation}" if self.annotation else "")
        text += f" = {self.default}" if self.default is not None else ""
        text += " (keyword-only)" if self.kind == "keyword_only" else ""
        return text + (f" — {first_sentence(self.doc)[:PARAM_DOC_CHARS]}" if self.doc else "")


@dataclass(frozen=True)
class ApiCard:
    """The real interface of a retrieved code symbol.

    Example:
        >>> ApiCard("pkg.f", "function", "f(x, y=1)", (Param("x"),), None, "Add.", 1).render()
        '[1] pkg.f (function)\\n  signature: f(x, y=1)\\n  parameters: x\\n  summary: Add.'
    """

    symbol: str
    symbol_type: str | None
    signature: str
    params: tuple[Param, ...]
    returns: str | None
    summary: str
    citation_id: int

    def render(self) -> str:
        lines = [
            f"[{self.citation_id}] {self.symbol} ({self.symbol_type or 'symbol'})",
            f"  signature: {self.signature}",
        ]
        if shown := shown_params(self.params):
            lines.append("  parameters: " + shown)
        if self.returns:
            lines.append(f"  returns: {self.returns}")
        if self.summary:
            lines.append(f"  summary: {self.summary}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "symbol": self.symbol,
            "symbol_type": self.symbol_type,
            "signature": self.signature,
            "returns": self.returns,
            "summary": self.summary,
            "citation_id": self.citation_id,
            "params": [p.__dict__ for p in self.params],
        }


@dataclass(frozen=True)
class AssembledContext:
    """Everything an answer may use, and whether it is strong enough to answer."""

    query: str
    route: Route
    evidence: tuple[Evidence, ...]
    api_cards: tuple[ApiCard, ...]
    related: tuple[str, ...]
    confidence: Confidence
    top_score: float
    project: RegistryEntry | None = None
    workflow: str | None = None
    degraded: str | None = None
    dropped: int = 0
    budget: int = DEFAULT_TOKEN_BUDGET
    candidates: tuple[Scored, ...] = field(default_factory=tuple)
    mode: str = "lexical"  # how the evidence was found: RetrievedContext.mode

    @property
    def is_confident(self) -> bool:
        return self.confidence.confident

    @property
    def citations(self) -> tuple[Citation, ...]:
        return tuple(e.citation for e in self.evidence)

    def by_id(self, cid: int) -> Evidence | None:
        return next((e for e in self.evidence if e.citation.id == cid), None)

    def render(self) -> str:
        """The context block given to an LLM: project, API cards, numbered sources."""
        parts = []
        if self.project is not None:
            parts.append(f"Project context: {self.project.summary()}")
        if self.api_cards:
            parts.append("API cards:\n" + "\n".join(c.render() for c in self.api_cards))
        if self.related:
            parts.append("Related symbols: " + ", ".join(self.related))
        parts.append("Sources:\n" + "\n\n".join(e.render() for e in self.evidence))
        return "\n\n".join(parts)

    def tokens(self) -> int:
        return estimate_tokens(self.render())


# -- building blocks --------------------------------------------------------------------


def shown_params(params: Sequence[Param]) -> str:
    """A card's parameters (not ``self``/``cls``), at most ``MAX_SHOWN_PARAMS`` of them."""
    shown = [p.render() for p in params if p.name not in ("self", "cls")]
    more = len(shown) - MAX_SHOWN_PARAMS
    return "; ".join(shown[:MAX_SHOWN_PARAMS]) + (f"; ... ({more} more)" if more > 0 else "")


_ADMONITION = re.compile(r"(?:!!!|\?\?\?\+?)[ \t]")  # mkdocs-material: ``!!! note "Title"``


def without_admonitions(text: str) -> str:
    """``text`` without the admonition blocks it opens with: pydantic's docstrings start
    ``!!! abstract "Usage Documentation"`` and a link to a docs page, then the summary."""
    paragraphs = text.strip().split("\n\n")
    while len(paragraphs) > 1 and _ADMONITION.match(paragraphs[0]):
        paragraphs.pop(0)
    return "\n\n".join(paragraphs)


def first_sentence(text: str | None) -> str:
    """The first sentence of a docstring (up to the first ". " or blank line), past an
    opening admonition."""
    if not text:
        return ""
    para = " ".join(without_admonitions(text).split("\n\n", 1)[0].split())
    end = para.find(". ")
    return para if end < 0 else para[: end + 1]


def api_card(meta: dict[str, Any], cid: int) -> ApiCard | None:
    """An API card from a code node's metadata, None for other nodes."""
    if meta.get("kind") not in CODE_KINDS or not meta.get("symbol"):
        return None
    params = tuple(
        Param(
            str(p.get("name")),
            without_doc(p["annotation"]) if p.get("annotation") else None,
            p.get("default"),
            str(p.get("kind") or "positional_or_keyword"),
            annotation_doc(p.get("annotation")),
        )
        for p in meta.get("params") or ()
    )
    return ApiCard(
        str(meta["symbol"]),
        meta.get("symbol_type"),
        readable(str(meta.get("signature") or meta["symbol"])),
        params,
        meta.get("returns") or documented_returns(meta.get("docstring")),  # numpydoc's too
        first_sentence(meta.get("docstring")),
        cid,
    )


def _body(nws: Scored) -> str:
    return nws.node.get_content().strip()


def fit_evidence(nodes: Sequence[Scored], budget: int) -> tuple[list[Evidence], int]:
    """Number and place ``nodes`` in rank order within ``budget`` tokens.

    A body that does not fit is shortened (its header stays whole) when at
    least ``MIN_BODY_TOKENS`` remain; after that, the rest is dropped whole.
    Returns the evidence and how many nodes were dropped. The first node is
    always kept (with a shortened body if need be).
    """
    out: list[Evidence] = []
    left = budget
    for i, nws in enumerate(nodes):
        ev = Evidence(citation_for(i + 1, nws.node.metadata), nws, _body(nws))
        cost = estimate_tokens(ev.render()) + 1
        if cost <= left:
            out.append(ev)
            left -= cost
            continue
        room = left - estimate_tokens(ev.citation.header()) - 2
        if room >= MIN_BODY_TOKENS or not out:
            out.append(_shorten(ev, max(room, MIN_BODY_TOKENS)))
        break
    return out, len(nodes) - len(out)


def _shorten(ev: Evidence, tokens: int) -> Evidence:
    chars = max(tokens * 4 - len(ELLIPSIS), 0)
    cut = ev.body[:chars]
    space = cut.rfind(" ")
    cut = cut[:space] if space > chars // 2 else cut
    return Evidence(ev.citation, ev.node, cut.rstrip() + ELLIPSIS, truncated=True)


# -- related symbols ------------------------------------------------------------------------


def _neighbours(symbol: str, meta: dict[str, Any], table: SymbolTable) -> list[str]:
    """Same-class members of a method; same-module top-level symbols of a symbol."""
    members, in_file, _ = table.related_maps()
    if meta.get("kind") == NodeKind.PYTHON_METHOD.value:
        parent = symbol.rsplit(".", 1)[0]
        return [s for s in members.get(parent, ()) if s != symbol] + [parent]
    return [s for s in in_file.get(str(meta.get("source_path")), ()) if s != symbol]


def resolve_ref(ref: str, index: IndexLike) -> str | None:
    """A doc reference (``estimate_ss_ama``, ``~pkg.mod.Class``) -> a qualified symbol."""
    table = index.symbol_table
    name = ref.strip().lstrip("~").rstrip("()")
    resolved = table.resolve(name)
    if resolved in table.symbols:
        return resolved
    for pkg in sorted(table.top_packages):
        resolved = table.resolve(f"{pkg}.{name}")
        if resolved in table.symbols:
            return resolved
    matches = table.related_maps()[2].get(name.rsplit(".", 1)[-1], [])
    return matches[0] if len(matches) == 1 else None


def related_symbols(
    evidence: Iterable[Evidence], index: IndexLike, limit: int = MAX_RELATED
) -> tuple[str, ...]:
    """Neighbours of retrieved code and symbols named by retrieved doc sections."""
    evidence = list(evidence)
    table = index.symbol_table
    seen = {e.metadata.get("symbol") for e in evidence}
    out: list[str] = []
    for ev in evidence:
        meta = ev.metadata
        if meta.get("kind") in CODE_KINDS and meta.get("symbol"):
            names = _neighbours(meta["symbol"], meta, table)
        else:
            names = [r for r in (resolve_ref(ref, index) for ref in meta.get("refs") or ()) if r]
        for name in names:
            if name not in seen and not name.rsplit(".", 1)[-1].startswith("_"):
                seen.add(name)
                out.append(name)
    return tuple(out[:limit])


# -- assembly ------------------------------------------------------------------------------------


def assemble(
    index: IndexLike,
    ctx: RetrievedContext,
    confidence: Confidence,
    route: Route,
    *,
    project: RegistryEntry | None = None,
    budget: int = DEFAULT_TOKEN_BUDGET,
    max_evidence: int = DEFAULT_MAX_EVIDENCE,
    query: str | None = None,
) -> AssembledContext:
    """Build the :class:`AssembledContext` of one retrieval pass.

    ``query`` is the user's (standalone) question when it differs from the
    text that was retrieved with (``ctx.query``).
    """
    nodes = ctx.nodes[:max_evidence]
    cards = _cards(nodes)
    reserved = sum(estimate_tokens(c.render()) for c in cards) + (
        estimate_tokens(project.summary()) + 8 if project else 0
    )
    evidence, dropped = fit_evidence(nodes, max(budget - reserved, MIN_BODY_TOKENS * 2))
    kept = {e.citation.id for e in evidence}
    cards = tuple(c for c in cards if c.citation_id in kept)
    related = related_symbols(evidence, index)
    actx = AssembledContext(
        query=query or ctx.query,
        route=route,
        evidence=tuple(evidence),
        api_cards=cards,
        related=related,
        confidence=confidence,
        top_score=ctx.top_score,
        project=project,
        workflow=route.workflow or ctx.workflow,
        degraded=ctx.degraded,
        dropped=dropped,
        budget=budget,
        candidates=tuple(ctx.nodes[:3]),
        mode=ctx.mode,
    )
    actx = _enforce_budget(actx)
    if actx.dropped:
        logger.info("context budget %d tokens: dropped %d evidence items", budget, actx.dropped)
    return actx


def _enforce_budget(actx: AssembledContext) -> AssembledContext:
    """Trim related symbols, then the lowest-ranked evidence, until the render fits."""
    while actx.tokens() > actx.budget:
        if actx.related:
            actx = replace(actx, related=actx.related[:-1])
        elif len(actx.evidence) > 1:
            kept = actx.evidence[:-1]
            ids = {e.citation.id for e in kept}
            actx = replace(
                actx,
                evidence=kept,
                dropped=actx.dropped + 1,
                api_cards=tuple(c for c in actx.api_cards if c.citation_id in ids),
            )
        elif estimate_tokens(actx.evidence[0].body) > MIN_BODY_TOKENS + 2:  # shortened to fit
            over = actx.tokens() - actx.budget
            first = actx.evidence[0]
            room = max(estimate_tokens(first.body) - over, MIN_BODY_TOKENS)
            actx = replace(actx, evidence=(_shorten(first, room),))
        else:
            break
    return actx


def _cards(nodes: Sequence[Scored]) -> tuple[ApiCard, ...]:
    cards = [api_card(n.node.metadata, i) for i, n in enumerate(nodes, 1)]
    return tuple(c for c in cards if c is not None)[:MAX_API_CARDS]
