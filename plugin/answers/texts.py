"""The texts of the offline paths: an answer composed from evidence, or a clarification.

Everything here is deterministic: the same assembled context gives a
byte-identical text. :func:`offline_answer` leads with the API card or the best
passage (whichever ranks first), then other evidence, related symbols and the
numbered sources; :func:`clarification` says what was understood, what is
missing and offers up to three closest candidates; :func:`workflow_notice`
lists what a workflow request would need the user to confirm (nothing is run).
See docs/answers.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from codecite.answers.citations import citation_for
from codecite.answers.context import AssembledContext, Evidence, shown_params
from codecite.answers.followups import Rewrite
from codecite.answers.protocols import IndexLike
from codecite.answers.routing import Intent
from codecite.retrievers.results import Scored
from codecite.vocabulary import CODE_KINDS, DOC_KINDS, NodeKind

PASSAGE_CHARS = 700
MAX_OPTIONS = 3
CALLABLE_TYPES = ("function", "class", "method", "classmethod", "staticmethod")
NO_RUN_NOTICE = "codecite only reports: it will not run anything."


def _strip_heading(ev: Evidence) -> str:
    """The body without the heading lines a node's text starts with."""
    body = ev.body
    heading = " > ".join(ev.metadata.get("heading_path") or [])
    if heading and body.startswith(heading):
        return body[len(heading) :].lstrip("\n")
    lines = body.splitlines()
    title = ev.metadata.get("heading")
    if ev.metadata.get("kind") == NodeKind.RECIPE.value and title in lines[:4]:
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
    if shown := shown_params(card.params):
        lines.append("Parameters: " + shown)
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
    """``Sources:`` and one ``[id] path:start-end label (kind)`` line per piece of evidence."""
    return ["Sources:", *(e.citation.header() for e in evidence)]


def offline_answer(
    actx: AssembledContext, index_summary: str | None = None, notes: Iterable[str] = ()
) -> str:
    """The deterministic answer: ``notes`` (names the package lacks, ``answers.absent``)
    first, then lead API card and best passage (order by rank), sources."""
    blocks: list[list[str]] = [
        [f"Answer from the indexed sources (offline, no language model) for: {actx.query}"],
        [f"Note: {note}" for note in notes],
    ]
    if index_summary:
        blocks.append([index_summary])
    if actx.project is not None:
        blocks.append([f"Project context: {actx.project.summary()}"])
    card, passage = _card_text(actx), _passage_text(actx)
    lead_is_code = bool(actx.evidence) and actx.evidence[0].metadata.get("kind") in CODE_KINDS
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
        if card.symbol_type in CALLABLE_TYPES:
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
        f"What is missing: evidence strong enough to answer ({conf.reason}).",
    ]
    options = [_option(i, n) for i, n in enumerate(actx.candidates[:MAX_OPTIONS], 1)]
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


def _option(i: int, nws: Scored) -> dict[str, Any]:
    c = citation_for(i, nws.node.metadata)
    return {"option": i, "label": c.label, "kind": c.kind, "ref": c.ref}


def index_summary(index: IndexLike) -> str:
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
