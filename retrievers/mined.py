"""Corpus-mined expansion: identifier tokens that co-occur with prose words.

Learned at build time from the corpus itself (see ``mine_expansion``); used as
e(q) when no configured expansion fires. Conservative: only words seen often
enough, only a few identifier tokens per word, only above a PMI threshold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_MIN_WORD_DOCS = 3
DEFAULT_MIN_PAIR_DOCS = 2
DEFAULT_MIN_PMI = 2.0
DEFAULT_TERMS_PER_WORD = 3
MAX_EXPANSION_TERMS = 12


def mine_expansion(
    prose_tokens: Sequence[Sequence[str]],
    ident_tokens: Sequence[Sequence[str]],
    min_word_docs: int = DEFAULT_MIN_WORD_DOCS,
    min_pair_docs: int = DEFAULT_MIN_PAIR_DOCS,
    min_pmi: float = DEFAULT_MIN_PMI,
    terms_per_word: int = DEFAULT_TERMS_PER_WORD,
) -> dict[str, list[str]]:
    """Word -> identifier tokens with the highest PMI over node co-occurrence.

    ``prose_tokens[i]`` are the prose words of node i (docstring / section body),
    ``ident_tokens[i]`` its identifier tokens (symbol name parts). PMI =
    log(P(w, t) / (P(w) P(t))) over nodes.
    """
    vocab: dict[str, int] = {}
    word_rows = [
        [vocab.setdefault(w, len(vocab)) for w in dict.fromkeys(ws)] for ws in prose_tokens
    ]
    ident_rows = [
        [vocab.setdefault(t, len(vocab)) for t in dict.fromkeys(ts)] for ts in ident_tokens
    ]
    return mine_rows(
        Rows.of(word_rows),
        Rows.of(ident_rows),
        list(vocab),
        min_word_docs=min_word_docs,
        min_pair_docs=min_pair_docs,
        min_pmi=min_pmi,
        terms_per_word=terms_per_word,
    )


@dataclass
class Rows:
    """CSR rows of distinct ids: row i is ``ids[ptr[i]:ptr[i+1]]``."""

    ptr: np.ndarray
    ids: np.ndarray

    @classmethod
    def of(cls, rows: Sequence[Sequence[int]]) -> Rows:
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rows], out=ptr[1:])
        ids = np.fromiter((i for r in rows for i in r), dtype=np.int64, count=int(ptr[-1]))
        return cls(ptr, ids)

    def take(self, rows: np.ndarray) -> Rows:
        """The sub-matrix of the given rows, in that order."""
        lengths = np.diff(self.ptr)[rows]
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        offsets = np.arange(ptr[-1]) - np.repeat(ptr[:-1], lengths)
        return Rows(ptr, self.ids[np.repeat(self.ptr[:-1][rows], lengths) + offsets])


def mine_rows(
    word_rows: Rows,
    ident_rows: Rows,
    vocab: Sequence[str],
    *,
    vocab_sorted: bool = False,
    min_word_docs: int = DEFAULT_MIN_WORD_DOCS,
    min_pair_docs: int = DEFAULT_MIN_PAIR_DOCS,
    min_pmi: float = DEFAULT_MIN_PMI,
    terms_per_word: int = DEFAULT_TERMS_PER_WORD,
) -> dict[str, list[str]]:
    """``mine_expansion`` over id rows: node i has words ``vocab[j]`` for j in its word row.

    Words and identifier tokens share ``vocab``. Counting is vectorized: every
    (word, identifier) pair of a node becomes one integer code, and pair counts
    are a ``np.unique`` over the codes.
    """
    n = len(word_rows.ptr) - 1
    size = len(vocab)
    if n == 0 or not size:
        return {}
    word_df = np.bincount(word_rows.ids, minlength=size)
    ident_df = np.bincount(ident_rows.ids, minlength=size)
    node_of_word = np.repeat(np.arange(n), np.diff(word_rows.ptr))
    frequent = word_df[word_rows.ids] >= min_word_docs  # rarer words can never pass below
    w_entries, nodes = word_rows.ids[frequent], node_of_word[frequent]
    fan = np.diff(ident_rows.ptr)[nodes]
    w = np.repeat(w_entries, fan)
    offsets = np.arange(len(w)) - np.repeat(np.cumsum(fan) - fan, fan)
    t = ident_rows.ids[np.repeat(ident_rows.ptr[:-1][nodes], fan) + offsets]
    distinct = t != w  # a word never expands to itself
    code_type = np.uint32 if size * size < 2**32 else np.int64  # halves the sort's memory
    codes, counts = np.unique(
        w[distinct].astype(code_type) * code_type(size) + t[distinct].astype(code_type),
        return_counts=True,
    )
    codes = codes.astype(np.int64)
    w_ids, t_ids = codes // size, codes % size
    pmi = np.log(counts * n / (word_df[w_ids] * ident_df[t_ids]))
    keep = (counts >= min_pair_docs) & (pmi >= min_pmi)
    w_ids, t_ids = w_ids[keep], t_ids[keep]
    score = pmi[keep] * np.log1p(counts[keep])
    rank = np.arange(size)
    if not vocab_sorted:
        rank[np.argsort(np.array(vocab, dtype=object))] = np.arange(size)
    order = np.lexsort((rank[t_ids], -score, w_ids))  # word, best score, then name
    w_ids, t_ids = w_ids[order], t_ids[order]
    first = np.r_[True, w_ids[1:] != w_ids[:-1]] if w_ids.size else np.empty(0, bool)
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(w_ids)), 0))
    top = np.arange(len(w_ids)) - group_start < terms_per_word
    table: dict[str, list[str]] = {}
    for wi, ti in zip(w_ids[top].tolist(), t_ids[top].tolist(), strict=True):
        table.setdefault(vocab[wi], []).append(vocab[ti])
    return dict(sorted(table.items()))


def mined_terms(query_tokens: Sequence[str], table: Mapping[str, Sequence[str]]) -> list[str]:
    """Expansion tokens for a query from a mined table, minus the query's own tokens."""
    seen = set(query_tokens)
    out: list[str] = []
    for tok in query_tokens:
        for term in table.get(tok, ()):
            if term not in seen:
                seen.add(term)
                out.append(term)
    return out[:MAX_EXPANSION_TERMS]
