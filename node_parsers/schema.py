"""The node schema shared by every parser: kinds, metadata keys, stable ids.

Metadata key names are part of codecite's public contract (listed in docs/migration.md).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from codecite.vocabulary import CODE_KINDS as CODE_KINDS  # declared once, re-exported here
from codecite.vocabulary import NodeKind as NodeKind

if TYPE_CHECKING:  # importing llama_index.core is slow: only make_node needs it
    from llama_index.core.schema import TextNode


ParamKind = Literal[
    "positional_only", "positional_or_keyword", "var_positional", "keyword_only", "var_keyword"
]


class Param(TypedDict):
    """One parameter of a function or class signature (``metadata["params"]``).

    A TypedDict, not a dataclass: nodes store it as a JSON object, key order
    ``name, annotation, default, kind`` (``inspect.Parameter`` kinds, lower case).
    ``annotation`` and ``default`` are source text, or None when absent.

    Example:
        >>> Param(name="x", annotation="int", default="1", kind="keyword_only")["kind"]
        'keyword_only'
    """

    name: str
    annotation: str | None
    default: str | None
    kind: ParamKind


class ClassField(TypedDict):
    """An annotated class-body assignment (``metadata["fields"]``): ``size: int = 3``."""

    name: str
    annotation: str
    default: str | None


# Metadata that bm25/embeddings/LLM prompts should not see as text.
HIDDEN_METADATA_KEYS = (
    "kind",
    "source_path",
    "symbol",
    "workflow",
    "priority",
    "start_line",
    "end_line",
    "signature",
    "params",
    "returns",
    "heading",
    "heading_path",
    "decorators",
    "symbol_type",
    "fields",
    "docstring",
    "module",
    "refs",
    "code_refs",
)


def make_node_id(source_path: str, kind: str, name: str, start_line: int, end_line: int) -> str:
    """Stable id: a digest of path, kind, symbol or heading, and span.

    An unchanged file therefore yields unchanged ids, and two nodes that share a
    qualified name (a property getter and its setter) still differ by span.
    """
    raw = f"{source_path}\x1f{kind}\x1f{name}\x1f{start_line}\x1f{end_line}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def make_node(text: str, metadata: dict[str, Any]) -> TextNode:
    """Build a ``TextNode`` with a stable id and the bulky keys hidden from text."""
    from llama_index.core.schema import TextNode

    name = metadata.get("symbol") or "/".join(metadata.get("heading_path") or []) or ""
    node_id = make_node_id(
        metadata["source_path"],
        str(metadata["kind"]),
        name,
        int(metadata["start_line"]),
        int(metadata["end_line"]),
    )
    metadata.setdefault("workflow", None)
    metadata.setdefault("priority", 1)
    hidden = [k for k in HIDDEN_METADATA_KEYS if k in metadata]
    return TextNode(
        id_=node_id,
        text=text,
        metadata=metadata,
        excluded_embed_metadata_keys=hidden,
        excluded_llm_metadata_keys=hidden,
    )


def node_label(metadata: dict[str, Any]) -> str:
    """A short human label: the symbol, or the heading path, or the file."""
    if metadata.get("symbol"):
        return str(metadata["symbol"])
    path = metadata.get("heading_path") or []
    if path:
        return " > ".join(path)
    return str(metadata.get("source_path", ""))


def citation(metadata: dict[str, Any]) -> str:
    """``path:start-end`` for a node's metadata."""
    return f"{metadata.get('source_path')}:{metadata.get('start_line')}-{metadata.get('end_line')}"
