"""Corpus-mined expansion: identifier tokens that co-occur with prose words.

Learned at build time from the corpus itself (see ``mine_expansion``); used as
e(q) when no configured expansion fires. Conservative: only words seen often
enough, only a few identifier tokens per word, only above a PMI threshold.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

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
    word_df: Counter[str] = Counter()
    ident_df: Counter[str] = Counter()
    pair_df: Counter[tuple[str, str]] = Counter()
    for words, idents in zip(prose_tokens, ident_tokens):
        ws, ids = set(words), set(idents)
        word_df.update(ws)
        ident_df.update(ids)
        pair_df.update((w, t) for w in ws for t in ids if w != t)
    scored: dict[str, list[tuple[float, str]]] = {}
    for (w, t), c in pair_df.items():
        if c < min_pair_docs or word_df[w] < min_word_docs:
            continue
        pmi = math.log(c * n / (word_df[w] * ident_df[t]))
        if pmi >= min_pmi:
            scored.setdefault(w, []).append((pmi * math.log1p(c), t))
    return {w: [t for _, t in sorted(pairs, key=lambda p: (-p[0], p[1]))[:terms_per_word]]
            for w, pairs in sorted(scored.items())}


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
