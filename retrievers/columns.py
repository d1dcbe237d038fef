"""The metadata fields scoring reads, as columns: one list per field, in node order.

Scoring needs a handful of fields of every node (kind, symbol, public, ...), not
their texts. A loaded index gives them without decoding its records
(``codecite.store.stored.StoredNodes.columns``); any other sequence of nodes is read
field by field. No numpy here: ``codecite.index`` imports this for its filters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codecite.errors import QueryError


@dataclass
class NodeColumns:
    """The metadata fields the scoring reads, one list per field in node order.

    Made from the nodes' metadata (``of_nodes``) or, for a built index, from its
    stored keys without decoding a record (``codecite.store.stored``).
    """

    kind: Sequence[str | None]
    workflow: Sequence[str | None]
    priority: Sequence[int | None]
    symbol: Sequence[str | None]
    symbol_type: Sequence[str | None]
    public: Sequence[bool | None]
    bases: Sequence[Any]
    messages: Sequence[Any]
    source_path: Sequence[str]

    @classmethod
    def of_nodes(cls, nodes: Sequence[Any]) -> NodeColumns:
        metas = [n.metadata for n in nodes]
        return cls(
            **{f: [m.get(f) for m in metas] for f in COLUMN_FIELDS},
            source_path=[m.get("source_path") or "" for m in metas],
        )


COLUMN_FIELDS = (
    "kind",
    "workflow",
    "priority",
    "symbol",
    "symbol_type",
    "public",
    "bases",
    "messages",
)


def node_columns(nodes: Sequence[Any]) -> NodeColumns:
    """``nodes.columns()`` where the sequence keeps them (a loaded index), else read."""
    stored = getattr(nodes, "columns", None)
    return stored() if callable(stored) else NodeColumns.of_nodes(nodes)


def check_filters(columns: NodeColumns, workflow: Any, path: Any) -> None:
    """Refuse a filter no node can pass: a mistake (a typo), not an empty answer."""
    if workflow is not None:
        known = sorted({str(w) for w in columns.workflow if w})
        if workflow not in known:
            raise QueryError(
                f"no indexed node has workflow {workflow!r}; workflows in "
                f"this index: {', '.join(known) or 'none'}"
            )
    if path is not None:
        prefix = path.strip("/") if isinstance(path, str) else None
        if not prefix or not any(
            p == prefix or p.startswith(prefix + "/") for p in columns.source_path
        ):
            raise QueryError(
                f"no indexed file is under path {path!r}; give a "
                "repository-relative folder or file, e.g. 'docs'"
            )
