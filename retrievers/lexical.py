"""The bm25s index built on codecite's own token lists, persisted without pickle.

bm25s lowercases before it splits, which loses CamelCase; so codecite
tokenizes itself and hands bm25s the token lists. ``get_scores`` scores every
node at once, which the boosted retriever needs for q and e(q).
"""

from __future__ import annotations

import logging
from pathlib import Path

import bm25s
import numpy as np

logger = logging.getLogger(__name__)
# bm25s sets its own logger to DEBUG at import, which floods any basicConfig handler.
logging.getLogger("bm25s").setLevel(logging.WARNING)

BM25_DIR = "bm25"


def build_bm25(corpus_tokens: list[list[str]], k1: float = 1.5, b: float = 0.75) -> bm25s.BM25:
    """A bm25s index (Lucene BM25) over already tokenized nodes."""
    bm25 = bm25s.BM25(k1=k1, b=b)
    bm25.index(corpus_tokens, show_progress=False)
    return bm25


def save_bm25(bm25: bm25s.BM25, index_dir: Path) -> None:
    bm25.save(str(index_dir / BM25_DIR), corpus=None, allow_pickle=False, show_progress=False)


def load_bm25(index_dir: Path) -> bm25s.BM25:
    return bm25s.BM25.load(str(index_dir / BM25_DIR), load_corpus=False, allow_pickle=False,
                           show_progress=False)


def bm25_scores(bm25: bm25s.BM25, tokens: list[str]) -> np.ndarray:
    """BM25 of every node for ``tokens`` (zeros when no token is in the vocabulary)."""
    num_docs = int(bm25.scores["num_docs"])
    ids = [bm25.vocab_dict[t] for t in tokens if t in bm25.vocab_dict and t != ""]
    if not ids:
        return np.zeros(num_docs, dtype=np.float32)
    return np.asarray(bm25.get_scores_from_ids(ids), dtype=np.float32)
