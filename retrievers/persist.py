"""Retriever persistence without pickle: nodes JSONL, bm25s arrays, settings JSON.

``from_persist_dir`` reads either a ``persist()`` output or a codecite index
dir (same file names), so a built index is directly a persisted retriever.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from codecite.node_parsers.schema import CODE_KINDS, NodeRecord, text_node

from .columns import node_columns
from .lexical import load_bm25, save_bm25
from .pages import PAGES_DIR, load_pages
from .propagation import DocPropagation
from .settings import ScoringSettings

NODES_FILE = "nodes.jsonl"
SETTINGS_FILE = "retriever.json"
EDGES_FILE = "extras/doc_refs.json"
MINED_FILE = "extras/mined_expansion.json"
NAMES_FILE = "extras/public_names.json"  # re-exported public name -> defining symbol
DOCUMENTED_FILE = "extras/documented.json"  # name only the docs define -> its sections' rows
FEEDBACK_FILE = "feedback.json"
R = TypeVar("R")

if TYPE_CHECKING:
    from llama_index.core.schema import TextNode


class Persistable(Protocol):
    """What ``persist_retriever`` writes: the parts of a ``CodeciteRetriever`` (read-only)."""

    @property
    def nodes(self) -> Sequence[Any]: ...  # NodeRecord or TextNode
    @property
    def bm25(self) -> Any: ...
    @property
    def settings(self) -> ScoringSettings: ...
    @property
    def similarity_top_k(self) -> int: ...
    @property
    def propagation(self) -> DocPropagation | None: ...
    @property
    def mined_expansion(self) -> Mapping[str, Any]: ...
    @property
    def public_names(self) -> Mapping[str, str]: ...
    @property
    def documented(self) -> Mapping[str, Sequence[int]]: ...


def record_from_json(rec: dict[str, Any]) -> NodeRecord:
    """A ``NodeRecord`` from a stored record (``{"id", "text", "metadata"}``)."""
    meta = rec.get("metadata")
    if (
        not isinstance(rec.get("id"), str)
        or not isinstance(rec.get("text"), str)
        or not isinstance(meta, dict)
    ):
        raise ValueError("node record needs a string id, a string text and a metadata object")
    return NodeRecord(rec["id"], rec["text"], meta)


def node_from_record(rec: dict[str, Any]) -> TextNode:
    """A LlamaIndex ``TextNode`` from a stored record (see ``schema.text_node``)."""
    return text_node(record_from_json(rec))


def record_of(node: Any) -> dict[str, Any]:
    return {"id": node.node_id, "text": node.get_content(), "metadata": dict(node.metadata)}


def read_nodes(path: Path) -> list[NodeRecord]:
    with (path / NODES_FILE).open(encoding="utf-8") as fh:
        return [record_from_json(json.loads(line)) for line in fh if line.strip()]


def persist_retriever(retriever: Persistable, path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    with (path / NODES_FILE).open("w", encoding="utf-8") as fh:
        for node in retriever.nodes:
            fh.write(json.dumps(record_of(node), ensure_ascii=False) + "\n")
    save_bm25(retriever.bm25, path)
    (path / SETTINGS_FILE).write_text(
        json.dumps(
            {
                "settings": retriever.settings.to_json(),
                "similarity_top_k": retriever.similarity_top_k,
            }
        ),
        encoding="utf-8",
    )
    pages = getattr(retriever, "pages", None)
    if pages is not None:
        pages.bm25.save(str(path / PAGES_DIR), corpus=None, allow_pickle=False, show_progress=False)
    if retriever.propagation is not None:
        write_edges(path, retriever.propagation)
    if retriever.mined_expansion:
        (path / MINED_FILE).parent.mkdir(exist_ok=True)
        (path / MINED_FILE).write_text(json.dumps(retriever.mined_expansion), encoding="utf-8")
    if retriever.public_names:
        (path / NAMES_FILE).parent.mkdir(exist_ok=True)
        (path / NAMES_FILE).write_text(json.dumps(retriever.public_names), encoding="utf-8")
    if retriever.documented:
        (path / DOCUMENTED_FILE).parent.mkdir(exist_ok=True)
        (path / DOCUMENTED_FILE).write_text(json.dumps(retriever.documented), encoding="utf-8")


def write_edges(path: Path, prop: DocPropagation) -> None:
    (path / EDGES_FILE).parent.mkdir(exist_ok=True)
    (path / EDGES_FILE).write_text(
        json.dumps({"sections": prop.sections.tolist(), "symbols": prop.symbols.tolist()}),
        encoding="utf-8",
    )


def read_optional_json(path: Path) -> Any:
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def load_parts(path: Path, nodes: list[Any]) -> dict[str, Any]:
    """Settings, propagation edges, mined expansion and feedback stored at ``path``."""
    columns = node_columns(nodes)
    saved = read_optional_json(path / SETTINGS_FILE) or {}
    edges = read_optional_json(path / EDGES_FILE)
    feedback = read_optional_json(path / FEEDBACK_FILE) or {}
    return {
        "settings": ScoringSettings.from_json(saved.get("settings", {})),
        "similarity_top_k": saved.get("similarity_top_k", 10),
        "propagation": DocPropagation(
            edges["sections"],
            edges["symbols"],
            len(nodes),
            code=np.isin(np.array(columns.kind, dtype=object), list(CODE_KINDS)),
        )
        if edges
        else None,
        "mined_expansion": read_optional_json(path / MINED_FILE) or {},
        "public_names": read_optional_json(path / NAMES_FILE) or {},
        "documented": read_optional_json(path / DOCUMENTED_FILE) or {},
        "pages": load_pages(path / PAGES_DIR, [str(p) for p in columns.source_path]),
        "feedback": {sym: float(v.get("votes", 0)) for sym, v in feedback.items()}
        if isinstance(feedback, dict)
        else {},
    }


def load_retriever(cls: Callable[..., R], path: Path, **kwargs: Any) -> R:
    """``cls(nodes, bm25, **parts)`` from what ``path`` stores (``kwargs`` override parts)."""
    nodes = read_nodes(path)
    parts = load_parts(path, nodes)
    parts.update(kwargs)
    return cls(nodes, load_bm25(path), **parts)
