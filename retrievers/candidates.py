"""A query's candidate nodes: those that can score, the only ones a retrieval scores.

``L(c)`` is above 0 only at a node holding one of the query's tokens, expansion
tokens or word-form variants, and no factor lifts a node whose ``L(c)`` is 0
(``boosts``); doc propagation and aliases lend only from a node that scores, to
the nodes their edges name (``propagation``). So a query's scores are 0 at every
node but these, and the scorer composes them at these alone: each vector holds
one value per candidate, in node order (docs/architecture.md, "Query speed").
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np


class Candidates:
    """Some nodes of an index, marked one byte a node, listed in ascending order.

    Example:
        >>> marked = np.array([False, True, False, True])
        >>> c = Candidates(marked)
        >>> c.rows.tolist(), c.position(np.array([3, 1])).tolist()
        ([1, 3], [1, 0])
    """

    def __init__(self, marked: np.ndarray) -> None:
        self.marked = marked
        self.size = int(np.count_nonzero(marked))
        self._positions: np.ndarray | None = None

    @cached_property
    def rows(self) -> np.ndarray:
        """The candidate nodes, ascending."""
        return np.flatnonzero(self.marked)

    def position(self, nodes: np.ndarray) -> np.ndarray:
        """Where each of ``nodes`` (all candidates) is in ``rows``: one gather, no search."""
        if self._positions is None:  # uninitialised but at the candidates, which are set
            self._positions = np.empty(self.marked.size, dtype=np.int32)
            self._positions[self.rows] = np.arange(self.rows.size, dtype=np.int32)
        return self._positions[nodes]


__all__ = ["Candidates"]


def named_alone(names: Any, query: str, has_words: bool, resolving: bool) -> np.ndarray | None:
    """The nodes (a bool per node) of the symbols a query names when it has no
    searchable word (``get``, ``where()``: the tokenizer drops stopwords, in node texts
    and queries alike), or None: it has a word, resolution is off (``resolving``, the
    name boost above 1) or it names nothing. They score ``boosts.NAMED_ALONE``."""
    if has_words or not resolving:
        return None
    named = names.mask(query)
    return named if named.any() else None
