"""The top ``k`` of a query's scores: the ranking's order, ties and per-file cap."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CANDIDATES_PER_RESULT = 4  # rank_order sorts this many candidates per result asked for


def rank_order(
    scores: np.ndarray,
    k: int,
    max_per_file: int,
    doc_files: Sequence[str | None],
    tiebreak: np.ndarray | None = None,
    last: np.ndarray | None = None,
    rows: np.ndarray | None = None,
) -> list[int]:
    """Indexes of the top ``k`` positive scores. Ties go to nodes not marked ``last``
    (an alias ranks after the symbol it renames), then to the higher ``tiebreak``
    (e.g. a propagated symbol's own score), then to node order.

    At most ``max_per_file`` sections of one doc or recipe file are kept (0 = no
    limit), so one long page cannot crowd out the symbol it documents. ``rows``:
    the node of each score, ascending (so that their order is node order); the
    nodes are returned. None: score i is node i's.
    """
    positive = np.flatnonzero(scores > 0)
    if positive.size == 0:
        return []
    wanted = k * CANDIDATES_PER_RESULT
    if positive.size > wanted:  # sort only the best: those scoring at least the wanted-th
        cut = np.partition(scores[positive], positive.size - wanted)[positive.size - wanted]
        best = positive[scores[positive] >= cut]
        order = _sorted(best, scores, tiebreak, last)
        out = _capped(order if rows is None else rows[order], k, max_per_file, doc_files)
        if len(out) >= k:  # else the caps skipped too many: rank them all
            return out
    order = _sorted(positive, scores, tiebreak, last)
    return _capped(order if rows is None else rows[order], k, max_per_file, doc_files)


def _sorted(
    rows: np.ndarray, scores: np.ndarray, tiebreak: np.ndarray | None, last: np.ndarray | None
) -> np.ndarray:
    third = -tiebreak[rows] if tiebreak is not None else np.zeros(rows.size)
    second = last[rows] if last is not None else np.zeros(rows.size, dtype=bool)
    return rows[np.lexsort((rows, third, second, -scores[rows]))]


def _capped(
    order: np.ndarray, k: int, max_per_file: int, doc_files: Sequence[str | None]
) -> list[int]:
    """The first ``k`` of ``order``, at most ``max_per_file`` sections per doc file."""
    if max_per_file <= 0:
        return [int(i) for i in order[:k]]
    out: list[int] = []
    per_file: dict[str, int] = {}
    for i in order:
        path = doc_files[i]
        if path is not None:
            if per_file.get(path, 0) >= max_per_file:
                continue
            per_file[path] = per_file.get(path, 0) + 1
        out.append(int(i))
        if len(out) >= k:
            break
    return out


__all__ = ["CANDIDATES_PER_RESULT", "rank_order"]
