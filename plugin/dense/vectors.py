"""Dense vectors on disk and in external vector stores.

The built-in store is two files in the index directory, no pickle:

- ``vectors.npy``: float32, one L2-normalised row per node (``np.save``,
  ``allow_pickle=False``); 10,000 x 384 is 15 MB and loads in milliseconds;
- ``vector_ids.json``: the node id of each row, in row order.

Every later build carries the vectors over (``docs/dense.md``, "Vectors across
builds"): a row of the previous index is reused for every node whose *text* is
unchanged (node ids hash the line span, so a node can keep its id with new text,
or move with the same text), when the previous vectors came from the same backend
and model and pass the manifest checksums; only the rest is embedded. When the
backend cannot embed them, the manifest's ``embedding`` entry counts them as
``stale``.

For an index that outgrows one machine, ``export_to_vector_store`` copies the
vectors into any LlamaIndex ``BasePydanticVectorStore`` (Qdrant, Chroma,
pgvector, ...) and ``VectorStoreDenseIndex`` searches it in place of the arrays.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from codecite.dense.texts import rule_of
from codecite.errors import CodeciteError, IndexIntegrityError
from codecite.retrievers.fusion import l2_normalise
from codecite.store.files import NODES, Manifest, read_verified

if TYPE_CHECKING:  # the hybrid module imports LlamaIndex; the build does not need it
    from codecite.retrievers.hybrid import DenseHits

logger = logging.getLogger(__name__)

VECTORS = "vectors.npy"
VECTOR_IDS = "vector_ids.json"
NODE_ID_KEY = "codecite_id"
_NAMESPACE = uuid.UUID("6f1c1d1e-5a56-4c8e-9d0b-c0dec17e0001")


@dataclass(frozen=True)
class StoredVectors:
    """Vectors of one index: node ids in row order and the (n, d) float32 matrix."""

    ids: tuple[str, ...]
    matrix: np.ndarray

    @property
    def dimension(self) -> int:
        return int(self.matrix.shape[1])


def save_vectors(
    index_dir: Path, ids: Sequence[str], matrix: np.ndarray, normalise: bool = True
) -> None:
    """Write ``vectors.npy`` (normalised float32, no pickle) and ``vector_ids.json``.

    ``normalise=False`` when the rows already are (reused rows then stay bit-identical).
    """
    rows = np.asarray(matrix, dtype=np.float32).reshape(len(ids), -1)
    if normalise:
        rows = l2_normalise(rows)
    with (index_dir / VECTORS).open("wb") as fh:
        np.save(fh, rows, allow_pickle=False)
    (index_dir / VECTOR_IDS).write_text(json.dumps(list(ids)), encoding="utf-8")


def load_vectors(index_dir: Path) -> StoredVectors:
    """Read the vectors of an index; errors name the file and the fix."""
    try:
        matrix = np.load(index_dir / VECTORS, allow_pickle=False)
        ids = json.loads((index_dir / VECTOR_IDS).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"'{exc.filename}' is missing; {_FIX}") from exc
    except (OSError, ValueError) as exc:
        raise IndexIntegrityError(
            f"vectors in '{index_dir}' are unreadable ({exc}); {_FIX}"
        ) from exc
    return _checked(index_dir, matrix, ids)


_FIX = "run `codecite build --embed`"


def _checked(index_dir: Path, matrix: np.ndarray, ids: Any) -> StoredVectors:
    if (
        matrix.ndim != 2
        or matrix.dtype != np.float32
        or not isinstance(ids, list)
        or len(ids) != matrix.shape[0]
    ):
        raise IndexIntegrityError(
            f"'{index_dir / VECTORS}' ({matrix.shape}, {matrix.dtype}) "
            f"does not match '{VECTOR_IDS}' ({len(ids)} ids); {_FIX}"
        )
    return StoredVectors(tuple(str(i) for i in ids), matrix)


def load_verified(index_dir: Path, manifest: Manifest) -> StoredVectors:
    """The vectors of an index, each file checked against its manifest checksum."""
    try:
        matrix = np.load(
            io.BytesIO(read_verified(index_dir, manifest, VECTORS)), allow_pickle=False
        )
        ids = json.loads(read_verified(index_dir, manifest, VECTOR_IDS))
    except (OSError, ValueError) as exc:
        raise IndexIntegrityError(
            f"vectors in '{index_dir}' are unreadable ({exc}); {_FIX}"
        ) from exc
    return _checked(index_dir, matrix, ids)


def text_key(text: str) -> str:
    """What a vector depends on besides the model: the text embedded (a SHA-256 prefix;
    ``codecite.dense.texts``)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def reusable_vectors(
    previous_dir: Path, previous_manifest: Manifest | None, backend: str, model: str | None
) -> dict[str, np.ndarray]:
    """``text key -> vector`` of the previous index, if made by the same backend+model.

    Keyed by the text embedded (made again by the rule the previous build recorded,
    ``codecite.dense.texts``), not by node id: a node id hashes path, name and line
    span, so it stays the same when a body is edited in place (the vector is then
    invalid) and changes when lines are inserted above (the vector is still valid). An
    unknown rule makes nothing reusable. Every file
    read is verified against the previous manifest's checksums; a damaged or
    hand-edited file makes nothing reusable (logged), never a wrong vector.
    """
    info = (previous_manifest or {}).get("embedding") or {}
    if previous_manifest is None or info.get("backend") != backend or info.get("model") != model:
        return {}
    rule = rule_of(info)  # the text its vectors were made of (an unknown rule: none reusable)
    if rule is None:
        return {}
    try:
        stored = load_verified(previous_dir, previous_manifest)
        texts = _embedded_texts(read_verified(previous_dir, previous_manifest, NODES), rule)
    except (CodeciteError, OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning(
            "the previous vectors cannot be reused (%s); they are re-embedded "
            "where the backend allows",
            exc,
        )
        return {}
    return {
        text_key(texts[node_id]): stored.matrix[row]
        for row, node_id in enumerate(stored.ids)
        if node_id in texts
    }


def _embedded_texts(data: bytes, rule: Callable[[Mapping[str, Any]], str]) -> dict[str, str]:
    out = {}
    for line in data.splitlines():
        rec = json.loads(line)
        out[rec["id"]] = rule(rec)
    return out


def stale_note(info: dict[str, Any] | None, node_count: int | None = None) -> str | None:
    """The status line of an index whose vectors do not cover every node, else ``None``.

    ``embeddings: 12 of 480 nodes stale (backend openai unavailable: OPENAI_API_KEY
    not set); run `codecite build --embed` when it is``.
    """
    stale = int((info or {}).get("stale") or 0)
    if not info or stale <= 0:
        return None
    total = node_count if node_count is not None else int(info.get("count") or 0) + stale
    reason = info.get("stale_reason") or f"backend {info.get('backend')} unavailable"
    return (
        f"embeddings: {stale} of {total} nodes stale ({reason}); "
        "run `codecite build --embed` when it is"
    )


# -- external vector stores ------------------------------------------------------------------


def point_id(node_id: str) -> str:
    """A UUID for ``node_id`` (stores such as Qdrant accept only UUIDs or integers).

    Deterministic (UUID5), so re-exporting overwrites instead of duplicating.
    """
    return str(uuid.uuid5(_NAMESPACE, node_id))


def export_to_vector_store(
    store: Any,
    stored: StoredVectors,
    nodes: Sequence[Any],
    batch_size: int = 256,
    prune: bool = True,
) -> int:
    """Copy the index's vectors into a LlamaIndex vector store; returns the count.

    Each point is a ``TextNode`` with the node's text, a UUID5 id derived from the
    node id, the node id under metadata ``codecite_id``, and kind/path metadata.
    Points are upserted by that id, so exporting after a rebuild updates the store
    in place; with ``prune`` the points codecite exported for nodes the index no
    longer has are deleted, and nothing else (a store that cannot list its points
    is left as it is, with a warning).
    """
    from llama_index.core.schema import TextNode

    by_id = {n.node_id: n for n in nodes}
    batch: list[TextNode] = []
    count = 0
    for row, node_id in enumerate(stored.ids):
        node = by_id.get(node_id)
        if node is None:
            continue
        meta = {
            NODE_ID_KEY: node_id,
            "kind": node.metadata.get("kind"),
            "source_path": node.metadata.get("source_path"),
        }
        batch.append(
            TextNode(
                id_=point_id(node_id),
                text=node.text,
                metadata=meta,
                embedding=stored.matrix[row].tolist(),
            )
        )
        if len(batch) >= batch_size:
            count += len(store.add(batch))
            batch = []
    if batch:
        count += len(store.add(batch))
    if prune:
        _prune(store, {point_id(i) for i in stored.ids})
    return count


def _prune(store: Any, current: set[str]) -> None:
    """Delete the points codecite exported (they carry ``codecite_id``) that are not
    ``current`` (point ids); a point anyone else put in the store is left alone."""
    try:
        held = store.get_nodes()
    except NotImplementedError:
        logger.warning("the vector store cannot list its points: old points were not deleted")
        return
    gone = [
        n.node_id for n in held if NODE_ID_KEY in (n.metadata or {}) and n.node_id not in current
    ]
    if gone:
        store.delete_nodes(gone)


class VectorStoreDenseIndex:
    """A LlamaIndex vector store as codecite's dense index (same contract as the arrays).

    Filters of the lexical side are applied to the store's answers, so the
    store is asked for more than ``depth`` hits when a filter is active.

    Example:
        >>> from qdrant_client import QdrantClient                       # doctest: +SKIP
        >>> from llama_index.vector_stores.qdrant import QdrantVectorStore  # doctest: +SKIP
        >>> store = QdrantVectorStore("code", client=QdrantClient(path="qdrant"))  # doctest: +SKIP
        >>> dense = VectorStoreDenseIndex(store, dimension=384)           # doctest: +SKIP
    """

    def __init__(self, store: Any, dimension: int, overfetch: int = 4) -> None:
        self.store = store
        self.dimension = dimension
        self.overfetch = overfetch

    def search(
        self, query: np.ndarray, depth: int, floor: float, allowed: frozenset[str] | None
    ) -> DenseHits:
        from llama_index.core.vector_stores.types import VectorStoreQuery

        from codecite.retrievers.hybrid import DenseHits

        top = depth * (self.overfetch if allowed is not None else 1)
        result = self.store.query(
            VectorStoreQuery(query_embedding=[float(x) for x in query], similarity_top_k=top)
        )
        pairs = [
            (self._node_id(result, i), float(sim))
            for i, sim in enumerate(result.similarities or [])
        ]
        kept = [(n, s) for n, s in pairs if n and (allowed is None or n in allowed)]
        kept.sort(key=lambda p: (-p[1], p[0]))
        best = kept[0][1] if kept else None
        return DenseHits(tuple(p for p in kept if p[1] >= floor)[:depth], best)

    @staticmethod
    def _node_id(result: Any, i: int) -> str | None:
        if result.nodes and i < len(result.nodes):
            return result.nodes[i].metadata.get(NODE_ID_KEY)
        return None


__all__ = [
    "VECTORS",
    "VECTOR_IDS",
    "StoredVectors",
    "VectorStoreDenseIndex",
    "export_to_vector_store",
    "load_vectors",
    "load_verified",
    "point_id",
    "reusable_vectors",
    "save_vectors",
    "stale_note",
    "text_key",
]
