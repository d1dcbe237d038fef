"""Word-form variants of query words, found in the index's own vocabulary.

A question says "cached", "log" or "validation"; the code says ``cache``,
``logging`` and ``validators``. Stemming the index would merge those, but it
mangles identifiers and changes what an exact word match means (and measured
no better). So the index stays unstemmed and only the **query** reaches out:
each plain query word brings the vocabulary words that share its Snowball
stem, scored as a third part of the lexical score,

    L(c) = BM25(c, q) + w_e * BM25(c, e(q)) + w_v * BM25(c, v(q))

with ``w_v = variant_weight`` (0.8): a variant is weaker evidence than the
user's own word. Only code nodes (symbols and methods) take ``v(q)``: the
gap variants bridge is between a question's words and the code's forms, while
documentation is written in the user's words already. Letting doc sections
take variants too pushed sections that merely share a word form ("typed" ->
``type``) above the symbols: on six held-out suites it cost 8 of 114 symbol
hits at 5 (docs/quality.md); one page can still lead through them
(``page_lead``). The forms of one word are alternatives:
``BM25(c, v(q))`` takes, per query word, the best of its variants
(``variant_scores``). Identifiers (words with ``_`` or digits) never
vary, and a query word's variants come only from words the corpus actually
contains.

The confidence rule ignores ``v(q)`` (``top_score`` and coverage are those of
the user's own words): variants widen the search, not the claim.

Snowball comes from PyStemmer, which ``llama-index-retrievers-bm25`` already
requires.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .lexical import term_postings

if TYPE_CHECKING:
    import bm25s

    from .candidates import Candidates

MIN_WORD_LENGTH = 3
MAX_VARIANTS_PER_WORD = 4


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    try:
        import Stemmer
    except ImportError as exc:  # pragma: no cover - a dependency of llama-index-retrievers-bm25
        raise ImportError("query word variants need PyStemmer: pip install PyStemmer") from exc
    return Stemmer.Stemmer("english")


def _plain(word: str) -> bool:
    return len(word) >= MIN_WORD_LENGTH and word.isascii() and word.isalpha()


def variant_table(vocabulary: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Stem -> the plain vocabulary words with that stem, for stems that have two or more.

    Example:
        >>> table = variant_table(["cache", "cached", "caching", "load_all", "loader"])
        >>> table
        {'cach': ('cache', 'cached', 'caching')}
    """
    words = sorted(w for w in vocabulary if _plain(w))
    groups: dict[str, list[str]] = {}
    for word, stem in zip(words, _stemmer().stemWords(words), strict=True):
        groups.setdefault(stem, []).append(word)
    return {stem: tuple(ws) for stem, ws in groups.items() if len(ws) > 1}


def variant_groups(
    query_tokens: Sequence[str], table: Mapping[str, Sequence[str]], exclude: Iterable[str] = ()
) -> list[tuple[str, ...]]:
    """Per plain query word that has any, its variants not already in the query.

    Example:
        >>> variant_groups(["cached", "load_all"], {"cach": ("cache", "cached", "caching")})
        [('cache', 'caching')]
    """
    seen = set(query_tokens) | set(exclude)
    plain = [t for t in query_tokens if _plain(t)]
    out: list[tuple[str, ...]] = []
    for stem in _stemmer().stemWords(plain):
        group = tuple(t for t in table.get(stem, ()) if t not in seen)[:MAX_VARIANTS_PER_WORD]
        if group:
            seen.update(group)
            out.append(group)
    return out


def variant_scores(
    bm25: bm25s.BM25, groups: Sequence[Sequence[str]], candidates: Candidates | None = None
) -> np.ndarray:
    """``BM25(c, v(q))`` = sum over query words of the best BM25 among the word's variants.

    The forms of one word are alternatives, not extra evidence: a node that says
    "rank", "ranked" and "ranks" matched the query word "ranking" once, so it
    must not outscore one that says "ranked" alone three times over. ``candidates``:
    of these nodes only (holding every node that has a variant).
    """
    size = int(bm25.scores["num_docs"]) if candidates is None else candidates.size
    total = np.zeros(size, dtype=np.float32)
    for group in groups:
        columns = [c for c in (term_postings(bm25, t) for t in group) if c is not None]
        if not columns:
            continue
        best = np.zeros_like(total)
        for nodes, scores in columns:  # a term's nodes are distinct: a gather and a scatter
            at = nodes if candidates is None else candidates.position(nodes)
            best[at] = np.maximum(best[at], scores)
        total += best
    return total
