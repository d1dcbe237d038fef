"""The bm25s index built on codecite's own token lists, persisted without pickle.

bm25s lowercases before it splits, which loses CamelCase; so codecite
tokenizes itself and hands bm25s the token lists. ``get_scores`` scores every
node at once, which the boosted retriever needs for q and e(q).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import bm25s

    from .candidates import Candidates

logger = logging.getLogger(__name__)


def quiet_bm25s() -> None:
    """bm25s sets its own logger to DEBUG (again when llama-index-retrievers-bm25 is
    imported), which floods any handler with "Building index from IDs objects"."""
    logging.getLogger("bm25s").setLevel(logging.WARNING)


quiet_bm25s()

BM25_DIR = "bm25"


def build_bm25(corpus_tokens: list[list[str]], k1: float = 1.5, b: float = 0.75) -> bm25s.BM25:
    """A bm25s index (Lucene BM25) over already tokenized nodes."""
    import bm25s

    bm25 = bm25s.BM25(k1=k1, b=b)
    bm25.index(corpus_tokens, show_progress=False)
    return bm25


@dataclass
class Bm25Arrays:
    """The bm25s score matrix (CSC, documents by term) and vocabulary, as bm25s stores them."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    num_docs: int
    vocab_dict: dict[str, int]
    k1: float
    b: float


def bm25_arrays(
    vocab: list[str],
    doc_ptr: np.ndarray,
    doc_ids: np.ndarray,
    doc_tf: np.ndarray,
    k1: float = 1.5,
    b: float = 0.75,
) -> Bm25Arrays:
    """The matrix ``build_bm25`` would make, from per-node term counts.

    Node i holds term ``vocab[doc_ids[j]]`` ``doc_tf[j]`` times for j in
    ``doc_ptr[i]:doc_ptr[i+1]``. bm25s builds its matrix one document at a
    time in Python; from counts the same Lucene BM25 matrix (idf
    ``log(1 + (N - df + 0.5) / (df + 0.5))``, tf part ``tf / (k1 (1 - b + b
    dl / avgdl) + tf)``, float32, columns by term) is a few array operations,
    which is what lets an incremental build recompute it for every node.
    """
    n_docs = len(doc_ptr) - 1
    vocab_dict = {t: i for i, t in enumerate(vocab)}
    n_vocab = len(vocab_dict)
    vocab_dict.setdefault("", n_vocab)  # as bm25s: an empty token after the matrix columns
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int32), np.diff(doc_ptr))
    tf = doc_tf.astype(np.float64)
    doc_len = np.bincount(doc_of, weights=tf, minlength=n_docs)
    avg_len = doc_len.mean() if n_docs else 0.0
    df = np.bincount(doc_ids, minlength=n_vocab)
    idf = np.zeros(n_vocab, dtype=np.float32)
    seen = df > 0
    idf[seen] = np.log(1 + (n_docs - df[seen] + 0.5) / (df[seen] + 0.5))
    tfc = tf / (k1 * ((1 - b) + b * doc_len[doc_of] / avg_len) + tf)
    scores = (idf[doc_ids].astype(np.float64) * tfc).astype(np.float32)
    order = _stable_order(doc_ids)  # by term, documents ascending within
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return Bm25Arrays(scores[order], doc_of[order], indptr, n_docs, vocab_dict, k1, b)


def _stable_order(ids: np.ndarray) -> np.ndarray:
    """``np.argsort(ids, kind="stable")`` for non-negative int32 ids, as two 16-bit passes.

    NumPy's stable sort is a radix sort only for 16-bit keys; two passes (low
    half, then high half) give the same order in linear time.
    """
    low = np.argsort((ids & 0xFFFF).astype(np.uint16), kind="stable")
    high = np.argsort((ids[low] >> 16).astype(np.uint16), kind="stable")
    return low[high]


def bm25_from_arrays(arrays: Bm25Arrays) -> bm25s.BM25:
    """A bm25s index object holding ``arrays`` (what ``load_bm25`` returns after a save)."""
    import bm25s

    bm25 = bm25s.BM25(k1=arrays.k1, b=arrays.b)
    bm25.scores = {
        "data": arrays.data,
        "indices": arrays.indices,
        "indptr": arrays.indptr,
        "num_docs": arrays.num_docs,
    }
    bm25.vocab_dict = arrays.vocab_dict
    bm25.nonoccurrence_array = None  # Lucene BM25 has no non-occurrence term
    bm25.unique_token_ids_set = set(arrays.vocab_dict.values())
    return bm25


def save_bm25(bm25: bm25s.BM25, index_dir: Path) -> None:
    bm25.save(str(index_dir / BM25_DIR), corpus=None, allow_pickle=False, show_progress=False)


def save_bm25_arrays(arrays: Bm25Arrays, index_dir: Path, name: str = BM25_DIR) -> None:
    """Write ``arrays`` in bm25s's own layout (``load_bm25`` reads it with bm25s).

    Written here rather than by ``bm25s.BM25.save`` so that a build never
    imports bm25s (and the scipy it pulls in): a tenth of a one-file build.
    ``name``: the folder under ``index_dir`` (the pages have their own).
    """
    folder = index_dir / name
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("data", "indices", "indptr"):
        np.save(folder / f"{name}.csc.index.npy", getattr(arrays, name), allow_pickle=False)
    (folder / "vocab.index.json").write_text(
        json.dumps(arrays.vocab_dict, ensure_ascii=False), encoding="utf-8"
    )
    params: dict[str, Any] = {
        "k1": arrays.k1,
        "b": arrays.b,
        "delta": 0.5,
        "method": "lucene",
        "idf_method": "lucene",
        "dtype": "float32",
        "int_dtype": "int32",
        "num_docs": arrays.num_docs,
        "version": version("bm25s"),
        "backend": "numpy",
    }
    (folder / "params.index.json").write_text(json.dumps(params, indent=4), encoding="utf-8")


def load_bm25(index_dir: Path) -> bm25s.BM25:
    return load_bm25_folder(index_dir / BM25_DIR)


def load_bm25_folder(folder: Path) -> bm25s.BM25:
    """A bm25s index saved in ``folder`` (bm25s's layout; nothing pickled)."""
    import bm25s

    return bm25s.BM25.load(str(folder), load_corpus=False, allow_pickle=False, show_progress=False)


def bm25_scores(
    bm25: bm25s.BM25, tokens: list[str], candidates: Candidates | None = None
) -> np.ndarray:
    """BM25 of every node for ``tokens`` (zeros when no token is in the vocabulary).

    ``candidates``: of these nodes only (holding every node that contains one of
    ``tokens``). The sums are bm25s' own, term after term in the query's order at
    the precision of the index (``get_scores_from_ids``), so each node's score has
    the same bits either way.
    """
    ids = [bm25.vocab_dict[t] for t in tokens if t in bm25.vocab_dict and t != ""]
    if candidates is None:
        if not ids:
            return np.zeros(int(bm25.scores["num_docs"]), dtype=np.float32)
        return np.asarray(bm25.get_scores_from_ids(ids), dtype=np.float32)
    if getattr(bm25, "nonoccurrence_array", None) is not None:  # BM25L/BM25+: every node
        return bm25_scores(bm25, tokens)[candidates.rows]
    out = np.zeros(candidates.size, dtype=np.dtype(getattr(bm25, "dtype", np.float32)))
    if ids:  # one add.at over the terms' columns in query order: bm25s' sums, in its order
        s = bm25.scores
        spans = [(int(s["indptr"][i]), int(s["indptr"][i + 1])) for i in ids]
        nodes = np.concatenate([s["indices"][start:end] for start, end in spans])
        scores = np.concatenate([s["data"][start:end] for start, end in spans])
        np.add.at(out, candidates.position(nodes), scores)
    return out.astype(np.float32, copy=False)


def postings(bm25: bm25s.BM25, terms: Iterable[str]) -> list[np.ndarray]:
    """The nodes that contain each of ``terms`` (those in the vocabulary): where
    ``bm25_scores`` of them is above 0."""
    s, vocab = bm25.scores, bm25.vocab_dict
    ids = [vocab[t] for t in terms if t and t in vocab]
    return [s["indices"][int(s["indptr"][i]) : int(s["indptr"][i + 1])] for i in ids]


def term_postings(bm25: bm25s.BM25, term: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(nodes, BM25 scores) of the nodes that contain ``term``, or None when no node does.

    The column of bm25s' precomputed score matrix: ``bm25_scores(bm25, [term])`` is
    these scores at these nodes and 0 elsewhere, without making the dense array.
    """
    tid = bm25.vocab_dict.get(term) if term else None
    if tid is None:
        return None
    s = bm25.scores
    start, end = int(s["indptr"][tid]), int(s["indptr"][tid + 1])
    return s["indices"][start:end], np.asarray(s["data"][start:end], dtype=np.float32)
