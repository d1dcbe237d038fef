"""Readable views of results: rows, a terminal table, an HTML table for notebooks."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any, Protocol

from codecite.node_parsers.schema import citation
from codecite.node_parsers.schema import node_label as label_of
from codecite.node_parsers.signatures import without_doc


class RetrievedContext(Protocol):
    """What the tables read of a ``results.RetrievedContext`` (which imports this module)."""

    @property
    def query(self) -> str: ...
    @property
    def nodes(self) -> Sequence[Any]: ...  # Hit or NodeWithScore
    @property
    def top_score(self) -> float: ...


def node_row(rank: int, nws: Any) -> dict[str, Any]:
    """One result as a row; ``nws`` is a ``Hit`` or a LlamaIndex ``NodeWithScore``."""
    meta = nws.node.metadata
    return {
        "rank": rank,
        "score": round(float(nws.score or 0.0), 4),
        "id": nws.node.node_id,
        "kind": meta.get("kind"),
        "workflow": meta.get("workflow"),
        "label": label_of(meta),
        "source_path": meta.get("source_path"),
        "start_line": meta.get("start_line"),
        "end_line": meta.get("end_line"),
        "citation": citation(meta),
    }


def evidence_row(rank: int, hit: Any, max_snippet: int) -> dict[str, Any]:
    """``node_row`` plus the signature and a one-line snippet of the text (agent tools)."""
    row = node_row(rank, hit)
    signature = hit.node.metadata.get("signature")
    row["signature"] = without_doc(signature) if signature else signature
    text = " ".join(hit.node.get_content().split())
    row["snippet"] = text[:max_snippet] + ("..." if len(text) > max_snippet else "")
    return row


def text_table(ctx: RetrievedContext, width: int = 60) -> str:
    """A fixed-width table: rank, score, kind, workflow, label, path:lines.

    The workflow column is left out when no result has a workflow.
    """
    rows = [node_row(i, nws) for i, nws in enumerate(ctx.nodes, 1)]
    flow = any(r["workflow"] for r in rows)
    head = f"{'#':>3}  {'score':>8}  {'kind':<13}  " + (f"{'workflow':<14}  " if flow else "")
    lines = [f"{head}{'label':<{width}}  where"]
    for r in rows:
        label = r["label"] if len(r["label"]) <= width else r["label"][: width - 1] + "…"
        workflow = f"{(r['workflow'] or '-'):<14}  " if flow else ""
        lines.append(
            f"{r['rank']:>3}  {r['score']:>8.3f}  {r['kind'] or '':<13}  "
            f"{workflow}{label:<{width}}  {r['citation']}"
        )
    return "\n".join(lines)


def html_table(ctx: RetrievedContext) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("rank", "score", "kind", "workflow", "label", "where"))
    rows = []
    for i, nws in enumerate(ctx.nodes, 1):
        r = node_row(i, nws)
        cells = (
            r["rank"],
            f"{r['score']:.3f}",
            r["kind"],
            r["workflow"] or "",
            r["label"],
            r["citation"],
        )
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    caption = html.escape(f"{ctx.query!r} (top score {ctx.top_score:.2f})")
    return (
        f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
