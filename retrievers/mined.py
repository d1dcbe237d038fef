"""Corpus-mined expansion: identifier tokens that co-occur with prose words.

Learned at build time from the corpus itself (see ``mine_expansion``); used as
e(q) when no configured expansion fires. Conservative: only words seen often
enough, only a few identifier tokens per word, only above a PMI threshold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

DEFAULT_MIN_WORD_DOCS = 3
DEFAULT_MIN_PAIR_DOCS = 2
DEFAULT_MIN_PMI = 2.0
DEFAULT_TERMS_PER_WORD = 3
MAX_EXPANSION_TERMS = 12


def mine_expansion(prose_tokens: Sequence[Sequence[str]], ident_tokens: Sequence[Sequence[str]],
                   min_word_docs: int = DEFAULT_MIN_WORD_DOCS,
                   min_pair_docs: int = DEFAULT_MIN_PAIR_DOCS,
                   min_pmi: float = DEFAULT_MIN_PMI,
                   terms_per_word: int = DEFAULT_TERMS_PER_WORD) -> dict[str, list[str]]:
    """Word -> identifier tokens with the highest PMI over node co-occurrence.

    ``prose_tokens[i]`` are the prose words of node i (docstring / section body),
    ``ident_tokens[i]`` its identifier tokens (symbol name parts). PMI =
    log(P(w, t) / (P(w) P(t))) over nodes.
    """
    n = len(prose_tokens)
    if n == 0:
        return {}
    pairs, word_df, ident_df, words, idents = _count_pairs(prose_tokens, ident_tokens)
    codes, counts = np.unique(pairs, return_counts=True) if pairs.size else (pairs, pairs)
    w_ids, t_ids = codes // len(idents), codes % len(idents)
    keep = (counts >= min_pair_docs) & (word_df[w_ids] >= min_word_docs)
    w_ids, t_ids, counts = w_ids[keep], t_ids[keep], counts[keep]
    pmi = np.log(counts * n / (word_df[w_ids] * ident_df[t_ids]))
    strong = pmi >= min_pmi
    scored: dict[str, list[tuple[float, str]]] = {}
    for w, t, c, p in zip(w_ids[strong], t_ids[strong], counts[strong], pmi[strong],
                          strict=True):
        scored.setdefault(words[w], []).append((float(p) * math.log1p(int(c)), idents[t]))
    return {w: [t for _, t in sorted(ps, key=lambda p: (-p[0], p[1]))[:terms_per_word]]
            for w, ps in sorted(scored.items())}


def _count_pairs(prose_tokens: Sequence[Sequence[str]], ident_tokens: Sequence[Sequence[str]]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], list[str]]:
    """Every (word, identifier token) pair per node as one int code, plus document freqs."""
    word_ids: dict[str, int] = {}
    ident_ids: dict[str, int] = {}
    node_words, node_idents = [], []
    for words, idents in zip(prose_tokens, ident_tokens, strict=True):
        ids = {ident_ids.setdefault(t, len(ident_ids)) for t in idents}
        ws = {word_ids.setdefault(w, len(word_ids)) for w in words}
        node_words.append(np.fromiter(ws, dtype=np.int64, count=len(ws)))
        node_idents.append(np.fromiter(ids, dtype=np.int64, count=len(ids)))
    n_idents = max(len(ident_ids), 1)
    word_df = np.bincount(np.concatenate(node_words or [np.empty(0, np.int64)]),
                          minlength=len(word_ids))
    ident_df = np.bincount(np.concatenate(node_idents or [np.empty(0, np.int64)]),
                           minlength=len(ident_ids))
    words = list(word_ids)
    idents = list(ident_ids)
    same = {word_ids[w] * n_idents + ident_ids[w] for w in word_ids.keys() & ident_ids.keys()}
    chunks = [(ws[:, None] * n_idents + ts[None, :]).ravel()
              for ws, ts in zip(node_words, node_idents, strict=True) if ws.size and ts.size]
    pairs = np.concatenate(chunks) if chunks else np.empty(0, np.int64)
    if same:
        pairs = pairs[~np.isin(pairs, np.fromiter(same, dtype=np.int64))]
    return pairs, word_df, ident_df, words, idents


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
