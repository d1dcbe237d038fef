"""Evidence for a question about the assistant itself ("what can you do?").

Such a question names nothing the corpus contains, so retrieval finds nothing;
what answers it is the project's own overview: the opening sections of its
README (and of the other root documents) and its recipes, the tasks it
documents step by step. :func:`overview_context` returns them as an ordinary
``RetrievedContext`` with ``mode="overview"``, so the answer cites them like any
other evidence (docs/answers.md, "Questions about the index").
"""

from __future__ import annotations

from typing import Any

from codecite.retrievers.results import Hit, RetrievedContext
from codecite.vocabulary import NodeKind

OVERVIEW_SECTIONS = 3  # opening sections of each root document
OVERVIEW_MODE = "overview"


def _is_root_doc(path: str, root_docs: set[str]) -> bool:
    return path in root_docs or ("/" not in path and path.lower().startswith("readme"))


def overview_nodes(nodes: list[Any], root_docs: tuple[str, ...] = ()) -> list[Any]:
    """Root documents' opening sections (file order), then one node per recipe."""
    roots = set(root_docs)
    sections: dict[str, list[Any]] = {}
    recipes: dict[str, Any] = {}
    for node in nodes:
        meta = node.metadata
        path = str(meta.get("source_path") or "")
        kind = meta.get("kind")
        if kind == NodeKind.DOC_SECTION.value and _is_root_doc(path, roots):
            sections.setdefault(path, []).append(node)
        elif kind == NodeKind.RECIPE.value:
            recipes.setdefault(path, node)
    opening = [
        node
        for path in sorted(sections, key=lambda p: (not p.lower().startswith("readme"), p))
        for node in sorted(sections[path], key=lambda n: n.metadata.get("start_line") or 0)[
            :OVERVIEW_SECTIONS
        ]
    ]
    return opening + [recipes[p] for p in sorted(recipes)]


def overview_context(index: Any, query: str, k: int) -> RetrievedContext:
    """The overview evidence for ``query``, at most ``k`` nodes, in the order above."""
    ctx = RetrievedContext(
        query=query, tokens=[], expansion=[], expansion_source=None, workflow=None
    )
    ctx.mode = OVERVIEW_MODE
    root_docs = tuple(getattr(index.config, "root_docs", ()) or ())
    ctx.nodes = [Hit(node, 0.0) for node in overview_nodes(list(index.nodes), root_docs)[:k]]
    return ctx
