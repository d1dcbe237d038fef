"""What a retrieval returns besides the ranked nodes: the query's reading and each score."""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from codecite.node_parsers.schema import node_label, text_node

from . import boosts
from .render import html_table, node_row, text_table

if TYPE_CHECKING:
    from llama_index.core.schema import NodeWithScore


class Scored(Protocol):
    """What codecite reads of a ranked node: a ``Hit`` or a LlamaIndex ``NodeWithScore``."""

    node: Any
    score: float | None


class Hit:
    """One ranked node: the node (a ``NodeRecord``) and its score ``s(c)``.

    Reads like a LlamaIndex ``NodeWithScore`` where codecite reads one (``node``,
    ``score``, ``node_id``, ``text``, ``metadata``, ``get_content()``);
    ``to_node_with_score`` makes the LlamaIndex object at the boundary.
    """

    __slots__ = ("node", "score")

    def __init__(self, node: Any, score: float | None) -> None:
        self.node = node
        self.score = score

    @property
    def node_id(self) -> str:
        return str(self.node.node_id)

    @property
    def text(self) -> str:
        return str(self.node.text)

    @property
    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.node.metadata
        return meta

    def get_content(self, metadata_mode: Any = None) -> str:
        return str(self.node.get_content())

    def get_score(self, raise_error: bool = False) -> float:
        return 0.0 if self.score is None else float(self.score)

    def __repr__(self) -> str:
        return f"Hit({self.node!r}, score={self.score!r})"


def to_node_with_score(hit: Any) -> NodeWithScore:
    """The LlamaIndex ``NodeWithScore`` of a ``Hit`` (one is returned as is)."""
    from llama_index.core.schema import NodeWithScore

    if isinstance(hit, NodeWithScore):
        return hit
    return NodeWithScore(node=text_node(hit.node), score=hit.score)


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
    bm25_page: float = 0.0  # P(f): the file's BM25, on the file's best node (retrievers.pages)
    propagated_label: str | None = None  # the lender's label and kind, for --explain
    propagated_kind: str | None = None
    rerank_score: float | None = None  # a node postprocessor's score (retrievers.rerank)

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


# the score parts (``LexicalScorer.score_all``) and index vectors a breakdown reads, by field
_PART_TERMS = {"bm25_q": "q", "bm25_e": "e", "bm25_v": "v", "bm25_page": "page"}
_PART_TERMS |= {"lexical": "lexical", "workflow": "wf", "symbol": "sym", "name": "name"}
_PART_TERMS |= {"composed": "composed"}
_INDEX_TERMS = ("priority", "recipe", "feedback", "zero_config")


def hit_terms(
    order: Any, parts: dict[str, Any], final: np.ndarray, arrays: Any
) -> dict[str, np.ndarray]:
    """Every term of the ranked rows ``order``, gathered once: a context keeps these k
    numbers per term, not the scorer's per-node vectors, until it is explained.

    ``parts["rows"]`` is the node of each entry of the score vectors and ``final``,
    ascending (the scorer's candidates; None: every node, in order).
    """
    rows = np.asarray(order, dtype=np.intp)
    scored = parts.get("rows")
    at = rows if scored is None else np.searchsorted(scored, rows)
    terms = {field: np.asarray(parts[key])[at] for field, key in _PART_TERMS.items()}
    terms.update({field: getattr(arrays, field)[rows] for field in _INDEX_TERMS})
    terms["final"] = final[at]
    sources = parts["sources"]
    if sources is None:
        terms["sources"] = np.full(rows.size, -1)
    else:  # the lender's node
        lent = sources[at]
        terms["sources"] = lent if scored is None else np.where(lent >= 0, scored[lent], -1)
    return terms


def breakdown_at(j: int, terms: dict[str, np.ndarray], nodes: Any) -> ScoreBreakdown:
    """The ``ScoreBreakdown`` of the ``j``-th ranked row of ``hit_terms``."""
    src = int(terms["sources"][j])
    lender = nodes[src] if src >= 0 else None
    values: dict[str, Any] = {f: float(terms[f][j]) for f in (*_PART_TERMS, *_INDEX_TERMS, "final")}
    return ScoreBreakdown(
        **values,
        propagated_from=lender.node_id if lender is not None else None,
        propagated_label=node_label(lender.metadata) if lender is not None else None,
        propagated_kind=lender.metadata.get("kind") if lender is not None else None,
    )


class Breakdowns(MutableMapping[str, "ScoreBreakdown"]):
    """Node id -> ``ScoreBreakdown``, each made when first read (``defer``).

    A retrieval explains every hit it returns, but most callers (a LlamaIndex
    pipeline, ``retrieve()``) never read the explanation: making ten breakdowns
    was about a tenth of a query's time at 16,000 nodes. Reads, ``dict()`` and
    iteration give what an eager dict would, in the order the hits were added.
    """

    def __init__(self) -> None:
        self._items: dict[str, ScoreBreakdown | Callable[[], ScoreBreakdown]] = {}

    def defer(self, node_id: str, make: Callable[[], ScoreBreakdown]) -> None:
        """Explain ``node_id`` with ``make()`` when (and if) its breakdown is read."""
        self._items[node_id] = make

    def __getitem__(self, node_id: str) -> ScoreBreakdown:
        item = self._items[node_id]
        if not isinstance(item, ScoreBreakdown):
            item = self._items[node_id] = item()
        return item

    def __setitem__(self, node_id: str, value: ScoreBreakdown) -> None:
        self._items[node_id] = value

    def __delitem__(self, node_id: str) -> None:
        del self._items[node_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._items

    def __repr__(self) -> str:
        return f"Breakdowns({dict(self)!r})"


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
    nodes: list[Hit] = field(default_factory=list)  # or NodeWithScore: both read alike
    breakdown: MutableMapping[str, ScoreBreakdown] = field(default_factory=Breakdowns)
    top_score: float = 0.0
    top_cosine: float | None = None
    degraded: str | None = None
    mode: str = "lexical"
    variants: list[str] = field(default_factory=list)
    page_weight: float = 0.0  # wp: 0 when page evidence is off
    raisers: list[str] = field(default_factory=list)  # code raising a quoted message
    reranked_by: list[str] = field(default_factory=list)  # node postprocessors applied
    rewrites: list[str] = field(default_factory=list)  # LLM rewrites fused with the query
    page_lead: str | None = None  # the doc page put first (retrievers.page_lead)
    fusion: str | None = None  # hybrid: how the two rankings were fused, in words

    def node_with_scores(self) -> list[NodeWithScore]:
        """The ranked nodes as LlamaIndex ``NodeWithScore`` (for a LlamaIndex pipeline)."""
        return [to_node_with_score(hit) for hit in self.nodes]

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
            "page_lead": self.page_lead,
            "fusion": self.fusion,
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

    def __str__(self) -> str:
        """``print(ctx)``: the ranked table ``codecite query`` prints, not the fields."""
        return text_table(self)

    def _repr_html_(self) -> str:
        return html_table(self)
