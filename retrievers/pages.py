"""Page evidence: a node scored with its whole file's words, not only its own.

A conceptual question ("if one plugin raises partway through a hook call, do the
others still run?") often spreads its words over a page: no one section holds
them all, and a small section meets code nodes that hold a few. Stock
LlamaIndex's ~1,000-token chunks hold most of a page, which is why they win
such questions (docs/quality.md, "Docs questions against stock").

So each file (a doc page or a module) is also a BM25 document, its term counts
the sum of its nodes' counts: computed from the index's term counts when first
needed, or persisted beside the node index (``bm25_pages/``, the same layout)
when the configuration turns page evidence on. For a query, the file's BM25
score ``P(f)`` goes to the file's best-matching node only, so a page takes one
place in the ranking, as one stock chunk does::

    L(c) = BM25(c, q) + w * BM25(c, e(q)) + wv * BM25(c, v(q)) + wp * P(f(c)) [c best in f]

``wp`` is ``page_weight`` (docs/retrieval.md, docs/quality.md for the figures).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from codecite.errors import IndexIntegrityError
from codecite.vocabulary import REBUILD_FIX

from .lexical import Bm25Arrays, _stable_order, bm25_arrays, bm25_from_arrays, bm25_scores

if TYPE_CHECKING:
    import bm25s

PAGES_DIR = "bm25_pages"
TermCounts = tuple[list[str], np.ndarray, np.ndarray, np.ndarray]  # vocab, ptr, ids, tf


def page_of(paths: Sequence[str]) -> tuple[np.ndarray, int]:
    """Each node's file as a page number (first appearance order), and the page count."""
    pages: dict[str, int] = {}
    rows = np.fromiter((pages.setdefault(p, len(pages)) for p in paths), np.int64, len(paths))
    return rows, len(pages)


def page_arrays(
    vocab: list[str],
    doc_ptr: np.ndarray,
    doc_ids: np.ndarray,
    doc_tf: np.ndarray,
    pages: np.ndarray,
    n_pages: int,
    k1: float = 1.5,
    b: float = 0.75,
) -> Bm25Arrays:
    """The BM25 matrix of the pages, from the nodes' term counts (``bm25_arrays``'s input)."""
    entry_page = np.repeat(pages, np.diff(doc_ptr))
    # by page, then term: linear radix passes (a node's page never decreases in a build)
    order = _stable_order(doc_ids.astype(np.int32))
    order = order[_stable_order(entry_page[order].astype(np.int32))]
    page_sorted, ids = entry_page[order], doc_ids[order]
    starts = np.flatnonzero(
        np.concatenate(([True], (page_sorted[1:] != page_sorted[:-1]) | (ids[1:] != ids[:-1])))
    )
    counts = np.add.reduceat(doc_tf[order].astype(np.int64), starts) if starts.size else starts
    page_ptr = np.zeros(n_pages + 1, dtype=np.int64)
    np.cumsum(np.bincount(page_sorted[starts], minlength=n_pages), out=page_ptr[1:])
    return bm25_arrays(vocab, page_ptr, ids[starts].astype(np.int32), counts, k1=k1, b=b)


class PageEvidence:
    """Which page each node is on, and the pages' BM25 index (``load`` makes it when
    first needed: an index whose ``page_weight`` is 0 never reads or computes it)."""

    def __init__(
        self, pages: np.ndarray | Callable[[], np.ndarray], load: Callable[[], bm25s.BM25]
    ) -> None:
        self._pages, self._load = pages, load

    @cached_property
    def pages(self) -> np.ndarray:
        """The page of each node (made on first use when given as a callable)."""
        return self._pages() if callable(self._pages) else self._pages

    @cached_property
    def bm25(self) -> bm25s.BM25:
        bm25 = self._load()
        if int(bm25.scores["num_docs"]) != int(self.pages.max(initial=-1)) + 1:
            raise IndexIntegrityError(
                f"the page index has {bm25.scores['num_docs']} pages, the nodes lie on "
                f"{int(self.pages.max(initial=-1)) + 1} files; {REBUILD_FIX}"
            )
        return bm25

    @classmethod
    def from_tokens(cls, paths: Sequence[str], tokens: Sequence[Sequence[str]]) -> PageEvidence:
        """Pages of nodes tokenized in memory (a retriever made from nodes, not an index)."""
        from .lexical import build_bm25

        pages, n_pages = page_of(paths)
        texts: list[list[str]] = [[] for _ in range(n_pages)]
        for page, toks in zip(pages.tolist(), tokens, strict=True):
            texts[page].extend(toks)
        return cls(pages, lambda: build_bm25(texts or [[]]))

    @classmethod
    def from_counts(
        cls, paths: Sequence[str], counts: Callable[[], TermCounts], k1: float, b: float
    ) -> PageEvidence:
        """Pages of an index, computed from its per-node term counts when first needed
        (the pages too: a load of an index whose ``page_weight`` is 0 computes neither)."""
        pages = cache(lambda: page_of(paths))
        return cls(
            lambda: pages()[0],
            lambda: bm25_from_arrays(page_arrays(*counts(), *pages(), k1=k1, b=b)),
        )

    def bonus(
        self, tokens: list[str], lexical: np.ndarray, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """``P(f(c))`` for the best-matching node of each file (by ``lexical``), else 0.

        ``rows``: the node of each ``lexical`` score, ascending (None: every node),
        holding every node whose score is above 0.
        """
        out = np.zeros(len(lexical), dtype=np.float32)
        hit = np.flatnonzero(lexical > 0)
        if not hit.size:
            return out
        scores = bm25_scores(self.bm25, tokens)  # of every page: a page has many nodes
        of_row = self.pages if rows is None else self.pages[rows]
        pages = of_row[hit]
        # the first node of the highest lexical score on each page
        order = np.lexsort((hit, -lexical[hit], pages))
        first = np.ones(len(order), dtype=bool)
        first[1:] = pages[order][1:] != pages[order][:-1]
        best = hit[order][first]
        out[best] = scores[of_row[best]]
        return out


def load_pages(folder: Path, paths: Sequence[str]) -> PageEvidence | None:
    """The pages persisted in ``folder`` for nodes on ``paths`` (None if it has none)."""
    from .lexical import load_bm25_folder

    if not folder.is_dir():
        return None
    return PageEvidence(page_of(paths)[0], lambda: load_bm25_folder(folder))
