"""Doc-to-symbol propagation: a symbol gains relevance from the doc section naming it.

Documentation names the API it explains (``:func:`pkg.f```, ``.. autoclass::``,
backticked names). At build time those references are resolved to symbol
nodes; at query time a referenced symbol's score becomes

    s'(sym) = max(s(sym), share * max_{sec refs sym} s(sec))

The maximum, not a sum: summing lets heavily referenced symbols win everything.

Some edges start at a code node instead: an alias assignment (``ib = attr =
attrib``, ``frozen = partial(define, ...)``) points at the symbol it renames.
An alias is the same object under another name, so its target takes the
alias's whole final score, after the section edges (a section naming
``attr.ib`` names ``attrib`` too):

    s''(target) = max(s'(target), s'(alias))

and at an equal score the target ranks first (``rank_order``'s ``last``): the
definition is what a reader of ``attr.ib`` needs.

A query's scores may be given at its candidates only (``candidates``), every
other node scoring 0: only a node with a positive score lends, so the edges that
matter are those leaving the candidates (``reach`` adds their receivers to the
candidates first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from . import boosts

if TYPE_CHECKING:
    from .candidates import Candidates

ALIAS_SHARE = 1.0  # an alias is the same object: its target takes the alias's whole score


class DocPropagation:
    """Edges (lender node index -> symbol node index) and the max-share rule."""

    def __init__(
        self,
        sections: Sequence[int],
        symbols: Sequence[int],
        size: int,
        code: np.ndarray | None = None,
    ) -> None:
        """``code`` marks code nodes: an edge that starts at one is an alias edge."""
        self.sections = np.asarray(sections, dtype=np.int64)
        self.symbols = np.asarray(symbols, dtype=np.int64)
        self.size = size
        alias = (
            code[self.sections] if code is not None else np.zeros(self.sections.size, dtype=bool)
        )
        self._doc = _Edges(self.sections[~alias], self.symbols[~alias])
        self._alias = _Edges(self.sections[alias], self.symbols[alias])
        self.is_alias = np.zeros(size, dtype=bool)
        self.is_alias[self._alias.lenders] = True

    def __len__(self) -> int:
        return int(self.sections.size)

    def mentions(self) -> np.ndarray:
        """Per node, how many sections or aliases point at it: how much the docs say of it."""
        return np.bincount(self.symbols, minlength=self.size)

    def reach(self, marked: np.ndarray) -> None:
        """Mark (one bool per node) every node the marked ones can lend to: the symbols
        their sections name, then the targets of the aliases among all those."""
        for edges in (self._doc, self._alias):  # a byte per edge: no score is read
            marked[edges.receivers[marked[edges.lenders]]] = True

    def apply(
        self,
        scores: np.ndarray,
        share: float,
        mask: np.ndarray | None = None,
        factor: np.ndarray | None = None,
        candidates: Candidates | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """New scores and, per score, the score it took its own from (-1: own).

        ``factor`` (per node, e.g. user feedback) scales what a symbol receives, so
        a demoted symbol stays demoted whatever section names it. ``candidates``:
        the nodes ``scores`` hold, one each in node order, among them every node
        the positive ones lend to (``reach``); None: score i is node i's. ``mask``
        and ``factor`` hold a value per node either way.
        """
        sources = np.full(scores.size, -1, dtype=np.int64)
        if share <= 0:
            return scores, sources
        out = self._lend(scores, sources, self._doc, share, mask, factor, candidates)
        out = self._lend(out, sources, self._alias, ALIAS_SHARE, mask, factor, candidates)
        return out, sources

    def after_ties(
        self,
        final: np.ndarray,
        sources: np.ndarray,
        module_doc: np.ndarray,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """Per node, does it rank after the nodes of an equal score (``rank_order``'s ``last``)?

        An alias after the symbol it renames; and a module docstring after a symbol it
        lent its whole score to: the docstring says what the module's code does, the
        code is the answer (pyCSAMT's "run phase tensor and dimensionality analysis":
        ``PhaseAnalysisAgent`` first, its module's docstring second, not the reverse).
        A doc page keeps its place before the symbols it names: a docs question asks
        for the page. ``final`` and ``sources`` as ``apply`` made them (at ``rows``,
        if given); ``module_doc`` per node.
        """
        took = np.flatnonzero(sources >= 0)
        lenders = sources[took]
        lender_rows = lenders if rows is None else rows[lenders]
        tied = lenders[(final[took] == final[lenders]) & module_doc[lender_rows]]
        alias = self.is_alias if rows is None else self.is_alias[rows]
        if tied.size == 0:
            return alias
        out = alias.copy()
        out[tied] = True
        return out

    def _lend(
        self,
        scores: np.ndarray,
        sources: np.ndarray,
        edges: _Edges,
        share: float,
        mask: np.ndarray | None,
        factor: np.ndarray | None,
        candidates: Candidates | None,
    ) -> np.ndarray:
        """``max(score, best lent score)`` along the edges (``boosts``); ``sources`` updated.

        Only lenders with a positive score can lend (``lent_score`` of 0 is 0, and
        no score is negative), so the rule runs on those edges and their receivers
        alone: a query's matching sections, not every edge or node of the index.
        With ``candidates``, the edges leaving them are found first (a byte per
        edge), then those whose lender scores, in the same order.
        """
        out = scores.astype(boosts.SCORE_DTYPE)  # a copy: the receivers that gain change
        if candidates is None:
            live = np.flatnonzero(scores[edges.lenders] > 0)
            lent = edges.lenders[live]  # as an index into ``scores``
        else:
            live = np.flatnonzero(candidates.marked[edges.lenders])
            lent = candidates.position(edges.lenders[live])
            scoring = scores[lent] > 0
            live, lent = live[scoring], lent[scoring]
        if live.size == 0:
            return out
        receivers = edges.receivers[live]  # nodes; ``took``: as indexes into ``scores``
        took = receivers if candidates is None else candidates.position(receivers)
        contrib = boosts.lent_score(
            scores[lent], share, factor[receivers] if factor is not None else boosts.NEUTRAL
        )
        # live edges stay grouped by receiver, in their order: one max per group
        opens = np.concatenate(([True], receivers[1:] != receivers[:-1]))
        starts = np.flatnonzero(opens)
        taking = took[starts]  # each receiver once, and the best it is lent
        best = np.maximum.reduceat(contrib, starts).astype(boosts.SCORE_DTYPE)
        if mask is not None:
            best = np.where(mask[receivers[starts]], best, 0.0).astype(boosts.SCORE_DTYPE)
        own = out[taking]
        out[taking] = boosts.propagated_score(own, best)
        improved = best > own  # where propagated_score took the lent score
        per_edge = np.cumsum(opens) - 1  # each edge's receiver, as an index into ``taking``
        winners = np.flatnonzero(improved[per_edge] & (contrib == best[per_edge]))
        if winners.size:  # a receiver's first winning edge (edges keep their order per receiver)
            won = took[winners]  # sorted: the first of each run is its first winner
            first = np.concatenate(([True], won[1:] != won[:-1]))
            sources[won[first]] = lent[winners[first]]
        return out


class _Edges:
    """Edges grouped by receiver (in their order within a group), for one max per receiver."""

    def __init__(self, lenders: np.ndarray, receivers: np.ndarray) -> None:
        order = np.argsort(receivers, kind="stable")
        self.lenders, self.receivers = lenders[order], receivers[order]
