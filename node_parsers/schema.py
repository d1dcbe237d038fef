"""The node schema shared by every parser: kinds, metadata keys, stable ids.

Metadata key names are part of codecite's public contract (listed in docs/migration.md).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from codecite.vocabulary import CODE_KINDS as CODE_KINDS  # declared once, re-exported here
from codecite.vocabulary import NodeKind as NodeKind

if TYPE_CHECKING:  # importing llama_index.core is slow: only text_node needs it
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


class NodeRecord:
    """A node as codecite holds it from parsing to the answer: id, text, metadata.

    A plain record, not a LlamaIndex ``TextNode``: building, loading, scoring and
    the offline answer need nothing else, and importing ``llama_index.core`` is most
    of a short command's time. It reads like a ``TextNode`` where codecite reads
    one (``node_id``, ``text``, ``metadata``, ``get_content()``); ``text_node`` makes
    the ``TextNode`` at the LlamaIndex boundary (a retriever's results, a query
    engine's sources), for the nodes returned only.

    Example:
        >>> n = NodeRecord("a1", "def f(): ...", {"kind": "python_symbol"})
        >>> n.get_content(), n.metadata["kind"]
        ('def f(): ...', 'python_symbol')
    """

    __slots__ = ("metadata", "node_id", "text")

    def __init__(self, node_id: str, text: str, metadata: dict[str, Any]) -> None:
        self.node_id = node_id
        self.text = text
        self.metadata = metadata

    @property
    def id_(self) -> str:
        return self.node_id

    @id_.setter
    def id_(self, value: str) -> None:
        self.node_id = value

    def get_content(self, metadata_mode: Any = None) -> str:
        """The text (codecite keeps its metadata out of the text it scores and shows)."""
        return self.text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodeRecord):
            return NotImplemented
        return (self.node_id, self.text, self.metadata) == (
            other.node_id,
            other.text,
            other.metadata,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like a TextNode

    def __repr__(self) -> str:
        return f"NodeRecord({self.node_id!r}, {node_label(self.metadata)!r})"


def hidden_keys(metadata: dict[str, Any]) -> list[str]:
    """The metadata keys a ``TextNode`` keeps out of the text it embeds or prompts with."""
    return [k for k in HIDDEN_METADATA_KEYS if k in metadata] + ["public"]


def text_node(node: Any) -> TextNode:
    """The LlamaIndex ``TextNode`` of a ``NodeRecord`` (a ``TextNode`` is returned as is).

    Built without validation: the record was validated when the index was written
    and its checksum verified on load. Deep validation of a node's metadata was
    most of the load time when every node was made (0.45 s of 0.85 s at 16,000
    nodes), so a node is what ``model_construct`` would make: the defaults of one
    constructed template, this record's values and fresh lists and dicts (nothing
    is shared between nodes).
    """
    from llama_index.core.schema import TextNode

    if isinstance(node, TextNode):
        return node
    hidden = hidden_keys(node.metadata)
    template = _template()
    if template is None:
        return TextNode.model_construct(
            id_=node.node_id,
            text=node.text,
            metadata=node.metadata,
            excluded_embed_metadata_keys=hidden,
            excluded_llm_metadata_keys=list(hidden),
        )
    defaults, fields_set = template
    values = defaults.copy()
    values.update(
        id_=node.node_id,
        text=node.text,
        metadata=node.metadata,
        relationships={},
        excluded_embed_metadata_keys=hidden,
        excluded_llm_metadata_keys=list(hidden),
    )
    out = TextNode.__new__(TextNode)
    object.__setattr__(out, "__dict__", values)
    object.__setattr__(out, "__pydantic_fields_set__", set(fields_set))
    object.__setattr__(out, "__pydantic_extra__", None)
    object.__setattr__(out, "__pydantic_private__", None)
    return out


@lru_cache(maxsize=1)
def _template() -> tuple[dict[str, Any], frozenset[str]] | None:
    """Field values of a node made by ``model_construct`` and the fields it set; None
    if ``TextNode`` has extra or private fields (then ``model_construct`` is used)."""
    from llama_index.core.schema import TextNode

    node = TextNode.model_construct(
        id_="",
        text="",
        metadata={},
        relationships={},
        excluded_embed_metadata_keys=[],
        excluded_llm_metadata_keys=[],
    )
    if node.__pydantic_extra__ is not None or node.__pydantic_private__ is not None:
        return None
    return dict(node.__dict__), frozenset(node.__pydantic_fields_set__)


def make_node(text: str, metadata: dict[str, Any]) -> NodeRecord:
    """A node record with a stable id (``make_node_id``) and the default workflow and priority."""
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
    return NodeRecord(node_id, text, metadata)


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
