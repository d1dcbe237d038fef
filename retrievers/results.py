"""What a retrieval returns besides the ranked nodes: the query's reading and each score."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from llama_index.core.schema import NodeWithScore

from . import boosts
from .render import html_table, node_row


@dataclass(frozen=True)
class ScoreBreakdown:
    """Every term of one node's composed score, for ``--explain``.

    The terms are the scorer's own vectors at this node; ``recompose`` multiplies
    them again with the scorer's functions.

    Example:
        >>> b = ScoreBreakdown(2.0, 0.0, 2.0, 1.0, 1.0, 1.0, 1.5, 1.0, 1.0, composed=3.0)
        >>> b.recompose()
        3.0
    """

    bm25_q: float
    bm25_e: float
    lexical: float
    priority: float
    workflow: float
    recipe: float
    symbol: float
    feedback: float
    zero_config: float
    composed: float
    propagated_from: str | None = None
    final: float = 0.0
    dense_cosine: float | None = None
    lexical_rank: int | None = None
    dense_rank: int | None = None
    bm25_v: float = 0.0
    name: float = 1.0

    def factors(self) -> tuple[float, ...]:
        """The factors of ``composed``, in the order the scorer multiplies them."""
        return tuple(getattr(self, name) for name in boosts.FACTORS)

    def recompose(self) -> float:
        """``s(c)`` again from the explained terms, by the scorer's own ``boosts.compose``.

        Each term at the precision the scorer holds it (``boosts.FACTOR_DTYPES``),
        so the result equals ``composed`` bit for bit (docs/retrieval.md, 4).
        """
        typed = [boosts.FACTOR_DTYPES[name](getattr(self, name)) for name in boosts.FACTORS]
        lexical = boosts.SCORE_DTYPE(self.lexical)
        return float(boosts.SCORE_DTYPE(boosts.compose(lexical, *typed)))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RetrievedContext:
    """A retrieval pass: the query, how it was read, and the ranked evidence.

    ``top_score`` is the best lexical composed score ``s(c)`` for the query's own
    words and expansion (word-form variants ``v(q)`` left out), the confidence proxy.
    """

    query: str
    tokens: list[str]
    expansion: list[str]
    expansion_source: str | None
    workflow: str | None
    nodes: list[NodeWithScore] = field(default_factory=list)
    breakdown: dict[str, ScoreBreakdown] = field(default_factory=dict)
    top_score: float = 0.0
    top_cosine: float | None = None
    degraded: str | None = None
    mode: str = "lexical"
    variants: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "tokens": self.tokens,
            "expansion": self.expansion,
            "expansion_source": self.expansion_source,
            "variants": self.variants,
            "workflow": self.workflow,
            "top_score": self.top_score,
            "top_cosine": self.top_cosine,
            "degraded": self.degraded,
            "mode": self.mode,
            "results": [
                {
                    **node_row(i, nws),
                    "breakdown": self.breakdown[nws.node.node_id].to_json()
                    if nws.node.node_id in self.breakdown
                    else None,
                }
                for i, nws in enumerate(self.nodes, 1)
            ],
        }

    def _repr_html_(self) -> str:
        return html_table(self)
