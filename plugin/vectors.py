"""Dense vectors on disk and in external vector stores.

The built-in store is two files in the index directory, no pickle:

- ``vectors.npy``: float32, one L2-normalised row per node (``np.save``,
  ``allow_pickle=False``); 10,000 x 384 is 15 MB and loads in milliseconds;
- ``vector_ids.json``: the node id of each row, in row order.

Incremental builds reuse the previous index's row of every node whose id *and*
text are unchanged, when the previous vectors came from the same backend and
model; only the rest is embedded.

For an index that outgrows one machine, ``export_to_vector_store`` copies the
vectors into any LlamaIndex ``BasePydanticVectorStore`` (Qdrant, Chroma,
pgvector, ...) and ``VectorStoreDenseIndex`` searches it in place of the arrays.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from codecite.errors import IndexIntegrityError
from codecite.retrievers.fusion import l2_normalise
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


def save_vectors(index_dir: Path, ids: Sequence[str], matrix: np.ndarray) -> None:
    """Write ``vectors.npy`` (normalised float32, no pickle) and ``vector_ids.json``."""
    rows = l2_normalise(np.asarray(matrix, dtype=np.float32).reshape(len(ids), -1))
    with (index_dir / VECTORS).open("wb") as fh:
        np.save(fh, rows, allow_pickle=False)
    (index_dir / VECTOR_IDS).write_text(json.dumps(list(ids)), encoding="utf-8")


def load_vectors(index_dir: Path) -> StoredVectors:
    """Read the vectors of an index; errors name the file and the fix."""
    fix = "run `codecite build --embed`"
    try:
        matrix = np.load(index_dir / VECTORS, allow_pickle=False)
        ids = json.loads((index_dir / VECTOR_IDS).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"'{exc.filename}' is missing; {fix}") from exc
    except (OSError, ValueError) as exc:
        raise IndexIntegrityError(f"vectors in '{index_dir}' are unreadable ({exc}); "
                                  f"{fix}") from exc
    if matrix.ndim != 2 or matrix.dtype != np.float32 or not isinstance(ids, list) \
            or len(ids) != matrix.shape[0]:
        raise IndexIntegrityError(f"'{index_dir / VECTORS}' ({matrix.shape}, {matrix.dtype}) "
                                  f"does not match '{VECTOR_IDS}' ({len(ids)} ids); {fix}")
    return StoredVectors(tuple(str(i) for i in ids), matrix)


def reusable_vectors(previous_dir: Path, previous_manifest: dict[str, Any] | None,
                     backend: str, model: str | None) -> dict[str, tuple[str, np.ndarray]]:
    """``node id -> (text, vector)`` of the previous index, if made by the same backend+model.

    The caller reuses a row only when the node's text is unchanged: a node id is
    stable across edits of its body, so the id alone does not say the vector is valid.
    """
    info = (previous_manifest or {}).get("embedding") or {}
    if info.get("backend") != backend or info.get("model") != model:
        return {}
    try:
        stored = load_vectors(previous_dir)
        texts = _node_texts(previous_dir / "nodes.jsonl")
    except (IndexIntegrityError, OSError, ValueError, KeyError) as exc:
        logger.info("previous vectors not reusable (%s); embedding every node", exc)
        return {}
    return {node_id: (texts[node_id], stored.matrix[row])
            for row, node_id in enumerate(stored.ids) if node_id in texts}


def _node_texts(path: Path) -> dict[str, str]:
    out = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out[rec["id"]] = rec["text"]
    return out


# -- external vector stores ------------------------------------------------------------------

def point_id(node_id: str) -> str:
    """A UUID for ``node_id`` (stores such as Qdrant accept only UUIDs or integers).

    Deterministic (UUID5), so re-exporting overwrites instead of duplicating.
    """
    return str(uuid.uuid5(_NAMESPACE, node_id))


def export_to_vector_store(store: Any, stored: StoredVectors, nodes: Sequence[Any],
                           batch_size: int = 256) -> int:
    """Copy the index's vectors into a LlamaIndex vector store; returns the count.

    Each point is a ``TextNode`` with the node's text, a UUID5 id derived from the
    node id, the node id under metadata ``codecite_id``, and kind/path metadata.
    """
    from llama_index.core.schema import TextNode

    by_id = {n.node_id: n for n in nodes}
    batch: list[TextNode] = []
    count = 0
    for row, node_id in enumerate(stored.ids):
        node = by_id.get(node_id)
        if node is None:
            continue
        meta = {NODE_ID_KEY: node_id, "kind": node.metadata.get("kind"),
                "source_path": node.metadata.get("source_path")}
        batch.append(TextNode(id_=point_id(node_id), text=node.text, metadata=meta,
                              embedding=stored.matrix[row].tolist()))
        if len(batch) >= batch_size:
            count += len(store.add(batch))
            batch = []
    if batch:
        count += len(store.add(batch))
    return count


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

    def search(self, query: np.ndarray, depth: int, floor: float,
               allowed: frozenset[str] | None) -> DenseHits:
        from llama_index.core.vector_stores.types import VectorStoreQuery

        top = depth * (self.overfetch if allowed is not None else 1)
        result = self.store.query(VectorStoreQuery(query_embedding=[float(x) for x in query],
                                                   similarity_top_k=top))
        pairs = [(self._node_id(result, i), float(sim))
                 for i, sim in enumerate(result.similarities or [])]
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
    "point_id",
    "reusable_vectors",
    "save_vectors",
]
