"""Doc-to-symbol propagation: a symbol gains relevance from the doc section naming it.

Documentation names the API it explains (``:func:`pkg.f```, ``.. autoclass::``,
backticked names). At build time those references are resolved to symbol
nodes; at query time a referenced symbol's score becomes

    s'(sym) = max(s(sym), share * max_{sec refs sym} s(sec))

The maximum, not a sum: summing lets heavily referenced symbols win everything.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class DocPropagation:
    """Edges (section node index -> symbol node index) and the max-share rule."""

    def __init__(self, sections: Sequence[int], symbols: Sequence[int], size: int) -> None:
        self.sections = np.asarray(sections, dtype=np.int64)
        self.symbols = np.asarray(symbols, dtype=np.int64)
        self.size = size

    def __len__(self) -> int:
        return int(self.sections.size)

    def apply(self, scores: np.ndarray, share: float, mask: np.ndarray | None = None,
              factor: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New scores and, per node, the section index it took its score from (-1: own).

        ``factor`` (per node, e.g. user feedback) scales what a symbol receives, so
        a demoted symbol stays demoted whatever section names it.
        """
        sources = np.full(self.size, -1, dtype=np.int64)
        if self.sections.size == 0 or share <= 0:
            return scores, sources
        contrib = share * scores[self.sections]
        if factor is not None:
            contrib = contrib * factor[self.symbols]
        best = np.zeros(self.size, dtype=np.float32)
        np.maximum.at(best, self.symbols, contrib)
        if mask is not None:
            best = np.where(mask, best, 0.0)
        improved = best > scores
        out = np.where(improved, best, scores).astype(np.float32)
        winners = np.flatnonzero(improved[self.symbols] & (contrib == best[self.symbols]))
        for edge in winners[::-1]:  # reversed: the first winning edge is written last
            sources[self.symbols[edge]] = self.sections[edge]
        return out, sources
