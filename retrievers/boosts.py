"""The terms of the composed score, each a pure function (docs/retrieval.md, sections 2-5).

    L(c) = BM25(c, q) + 0.35 * BM25(c, e(q)) + 0.8 * BM25(c, v(q)) [+ wp * P(f(c))]
    s(c) = L(c) * priority(c) * b_wf * b_recipe * b_sym * b_fb * z(c) * b_name

A query with no searchable word that names symbols (``get``, ``where()``: the
tokenizer drops stopwords, in node texts and queries alike) gives each named
symbol L(c) = ``NAMED_ALONE`` and every other node 0, so naming one is never
"no evidence" (``candidates.named_alone``).

The bracketed page term is opt-in (``page_weight``, default 0): ``retrievers.pages``
adds it to ``lexical_score`` for each file's best node. ``b_name`` also names the
code raising a pasted error message (``retrievers.messages``).

These are the functions the scorer runs: ``retrievers/bm25.py`` calls them on
one NumPy array per term (a value per node), ``retrievers/propagation.py`` along
the doc-reference edges, and ``ScoreBreakdown.recompose`` (what ``--explain``
shows) on one node's scalars. Each takes scalars or arrays and returns the same
shape: a NumPy scalar (a ``float``) for scalars. The zero-config factor z(c)
is ``ScoringSettings.zero_config_factor``, computed once per node.

Multiplicative, so one strong signal (an exact symbol match) is not diluted by
several weak ones; each factor is 1 unless its condition fires, and none can
lift a chunk with L(c) = 0 (no boost creates relevance).

Rounding is part of the formula: the factors multiply in the order of
``FACTORS``, each at the precision of ``FACTOR_DTYPES``, and the product
multiplies ``L(c)`` last. The recipe factor is float64 while the others are
float32, so the product is float32 up to the recipe factor and float64 after
it; changing an order or a precision moves scores in their last bits.
"""

from __future__ import annotations

import operator
from collections.abc import Container, Mapping, Sequence
from functools import reduce
from types import MappingProxyType
from typing import Any

import numpy as np

from codecite.vocabulary import NodeKind

from .defaults import (  # the defaults of the factors, beside the settings they seed
    DEFAULT_EXPANSION_WEIGHT,
    DEFAULT_FEEDBACK_FLOOR,
    DEFAULT_NAME_BOOST,
    DEFAULT_PRIORITY_STEP,
    DEFAULT_PROPAGATION_SHARE,
    DEFAULT_RECIPE_BOOST,
    DEFAULT_SYMBOL_BOOST,
    DEFAULT_VARIANT_WEIGHT,
    DEFAULT_WORKFLOW_BOOST,
)
from .tokenizer import Mentions, is_compound

NEUTRAL = 1.0  # the value of a factor whose condition does not fire
NEUTRAL_PRIORITY = 1
NAMED_ALONE = 1.0  # L(c) of a symbol named by a query that has no searchable word
NAME_MARGIN = 1.05  # a named definition scores at least this much above the best other node
FEEDBACK_STEP = 0.2
FEEDBACK_CEILING = 2.0

# The factors of s(c) in the order they multiply (``ScoreBreakdown`` has a field for each).
FACTORS = ("priority", "workflow", "recipe", "symbol", "feedback", "zero_config", "name")
SCORE_DTYPE = np.float32  # BM25 scores, L(c), s(c) and the final score
FACTOR_DTYPES = MappingProxyType(
    {
        "priority": np.float32,
        "workflow": np.float32,
        "recipe": np.float64,
        "symbol": np.float32,
        "feedback": np.float32,
        "zero_config": np.float32,
        "name": np.float32,
    }
)


def _value(result: np.ndarray) -> Any:
    """An array result as is; a 0-d one (from scalar inputs) as its NumPy scalar."""
    return result if result.ndim else result[()]


def lexical_score(
    bm25_q: Any,
    bm25_e: Any,
    expansion_weight: float = DEFAULT_EXPANSION_WEIGHT,
    bm25_v: Any = 0.0,
    variant_weight: float = DEFAULT_VARIANT_WEIGHT,
) -> Any:
    """``L(c) = BM25(c, q) + w_e * BM25(c, e(q)) + w_v * BM25(c, v(q))`` (docs/retrieval.md, 2).

    Expansion terms and word-form variants count less than the user's own words.
    """
    return bm25_q + expansion_weight * bm25_e + variant_weight * bm25_v


def own_words_score(
    lexical: Any, bm25_v: Any, variant_weight: float = DEFAULT_VARIANT_WEIGHT
) -> Any:
    """``L(c) - w_v * BM25(c, v(q))``: the lexical score without word-form variants.

    What ``top_score``, the confidence proxy, composes (docs/retrieval.md, 4):
    variants widen the search, they do not make codecite surer of the answer.
    """
    return lexical - variant_weight * bm25_v


def priority_factor(priority: Any, step: float = DEFAULT_PRIORITY_STEP) -> Any:
    """``max(0, 1 + step * (priority - 1))`` (docs/retrieval.md, 4).

    A static preference for configured path prefixes. Priority 1 (the default)
    is neutral; priority 0 gives 0.88 with the default step, never below 0.
    """
    return _value(np.maximum(0.0, NEUTRAL + step * (np.asarray(priority) - NEUTRAL_PRIORITY)))


def workflow_factor(
    node_workflow: Any, query_workflow: str | None, boost: float = DEFAULT_WORKFLOW_BOOST
) -> Any:
    """``b_wf``: ``boost`` when the node's workflow tag equals the one inferred from the query.

    docs/retrieval.md, 4. ``node_workflow`` is one tag or an array of them
    (``None`` for an untagged node); no inferred workflow, no boost.
    """
    if query_workflow is None:  # the common case, without comparing every tag
        return _value(np.full(np.shape(node_workflow), NEUTRAL))
    tags = np.asarray(node_workflow, dtype=object)
    fires = np.logical_and(tags == query_workflow, query_workflow is not None)
    return _value(np.where(fires, boost, NEUTRAL))


def recipe_factor(kind: Any, boost: float = DEFAULT_RECIPE_BOOST) -> Any:
    """``b_recipe``: ``boost`` for recipe nodes (docs/retrieval.md, 4).

    Curated workflow guides answer "how do I" best.
    """
    return _value(np.where(np.asarray(kind) == NodeKind.RECIPE.value, boost, NEUTRAL))


def named_leaves(mentions: Mentions, compound_names: Container[str]) -> set[str]:
    """The lower-cased leaf names a query names as whole identifiers: the rule of ``b_sym``.

    A compound name (``select_template``, ``FileSystemLoader``) counts wherever the
    query has it as a whole word; a one-word name (``load``) only where the query
    writes it as code. ``compound_names``: the lower-cased leaves that are compound.
    """
    return {w for w in mentions.words if w in compound_names or w in mentions.code}


class LeafIndex:
    """Every code node's leaf symbol name, looked up through the name table's own maps, so
    that ``names_symbol`` costs a few lookups and making the index costs none.

    ``by_lower`` maps a lower-cased leaf name to the symbols spelled so and ``rows`` a
    symbol to its nodes (``codecite.retrievers.names.NameTable``'s ``by_lower_leaf`` and
    ``rows``); ``size`` is the number of nodes. A lower-cased name counts as compound
    when any symbol spelled so is compound.
    """

    def __init__(
        self, size: int, by_lower: Mapping[str, Sequence[str]], rows: Mapping[str, Sequence[int]]
    ) -> None:
        self.size = size
        self.shape = (size,)  # what ``np.shape`` reports: one value per node
        self._by_lower = by_lower
        self._rows = rows
        self.compound = _CompoundLeaves(by_lower)

    def positions(self, name: str) -> list[int]:
        """The nodes whose leaf name lowers to ``name``."""
        return [row for symbol in self._by_lower.get(name, ()) for row in self._rows[symbol]]

    def mask(self, mentions: Mentions) -> np.ndarray:
        out = np.zeros(self.size, dtype=bool)
        for name in named_leaves(mentions, self.compound):
            out[self.positions(name)] = True
        return out

    def at(self, rows: np.ndarray | None) -> LeafIndex:
        """This index read at ``rows`` only (node rows; None: every node): its ``mask``
        has one value per row."""
        return self if rows is None else _LeafIndexAt(self, rows)


class _LeafIndexAt(LeafIndex):
    """A ``LeafIndex`` read at some nodes only (``LeafIndex.at``)."""

    def __init__(self, index: LeafIndex, rows: np.ndarray) -> None:
        self.__dict__.update(index.__dict__)
        self.shape = (rows.size,)
        self._at = rows

    def mask(self, mentions: Mentions) -> np.ndarray:
        return super().mask(mentions)[self._at]


class _CompoundLeaves(Container[str]):
    """The lower-cased leaf names some symbol spells as a compound name, asked per name."""

    def __init__(self, by_lower: Mapping[str, Sequence[str]]) -> None:
        self._by_lower = by_lower
        self._known: dict[str, bool] = {}  # each name asked once: methods share names

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        found = self._known.get(name)
        if found is None:
            symbols = self._by_lower.get(name, ())
            found = self._known[name] = any(is_compound(s.rpartition(".")[2]) for s in symbols)
        return found


def names_symbol(leaf: Any, mentions: Mentions, compound: Any = None) -> Any:
    """Does the query name the node's leaf symbol as a whole identifier? (docs/retrieval.md, 4)

    ``mentions`` holds the query's lowered whole words (dotted names split) and
    those written as code. ``correct`` is not mentioned by "correction";
    ``StaticShiftAgent`` and ``staticshiftagent`` both are. A one-word leaf
    (``load``) counts only when written as code (```load```, ``x.load``,
    ``load(``): as plain English it names nothing in particular.

    ``leaf`` is one name (``None``: not a symbol), a :class:`LeafIndex` (what
    the scorer passes), or an array of lower-cased leaf names (``""``: not a
    symbol) with ``compound`` saying, per node, which count as compound names.
    The query is lower-cased, so a lower-cased name counts as compound when any
    symbol spelled so is compound. The dense symbol gate asks the same question
    of every node.
    """
    if isinstance(leaf, LeafIndex):
        return leaf.mask(mentions)
    if leaf is None or isinstance(leaf, str):
        name = (leaf or "").lower()
        is_one = compound if compound is not None else is_compound(leaf or "")
        compound_names = {name} if is_one else set()
        return np.bool_(bool(name) and name in named_leaves(mentions, compound_names))
    names = np.asarray(leaf)
    compound_names = set(names[np.asarray(compound, dtype=bool)].tolist())
    named = np.array(sorted(named_leaves(mentions, compound_names)), dtype=str)
    return _value(np.isin(names, named) & (names != ""))


def symbol_factor(
    leaf: Any, mentions: Mentions, boost: float = DEFAULT_SYMBOL_BOOST, compound: Any = None
) -> Any:
    """``b_sym``: ``boost`` where the query names the node's leaf symbol (``names_symbol``).

    docs/retrieval.md, 4: an exact name is the strongest single signal.
    """
    return _value(np.where(names_symbol(leaf, mentions, compound), boost, NEUTRAL))


def name_factor(named: Any, boost: float = DEFAULT_NAME_BOOST, lift: float = NEUTRAL) -> Any:
    """``b_name = boost * lift`` for the symbol the query names, 1 elsewhere (docs/retrieval.md, 4).

    ``named`` is one bool per node, ``retrievers.names.NameTable.mask``: the
    definition a dotted path, a public re-export or an identifier resolves to,
    one symbol per name the query writes. ``b_sym`` lifts every node sharing
    the leaf name; ``b_name`` puts the one meant first: ``lift``
    (``name_lift``) is what it takes to score above every node the query does
    not name, when ``boost`` is not enough (``arrow.get`` in arrow's own
    index, where "arrow" and "get" are in nearly every node). A ``boost`` of
    1 turns the factor off.
    """
    value = boost * max(NEUTRAL, lift) if boost > NEUTRAL else NEUTRAL
    return _value(np.where(np.asarray(named, dtype=bool), value, NEUTRAL))


def name_lift(final: np.ndarray, composed: np.ndarray, named: np.ndarray) -> float:
    """How much more than ``boost`` ``b_name`` must be for every named node to rank first.

    ``final`` and ``composed`` are the scores made with ``b_name = boost``;
    the lift scales the named nodes' ``composed`` so that the lowest of them
    passes the best final score of the rest by ``NAME_MARGIN`` (1 when they
    already do, or when nothing else scores). Named nodes with no lexical
    evidence keep their 0: no boost creates relevance.
    """
    named = named & (composed > 0)
    others = final[~named]
    if not named.any() or others.size == 0 or others.max(initial=0.0) <= 0:
        return NEUTRAL
    need = float(others.max()) * NAME_MARGIN / float(composed[named].min())
    return max(NEUTRAL, need)


def feedback_factor(
    votes: Any,
    floor: float = DEFAULT_FEEDBACK_FLOOR,
    step: float = FEEDBACK_STEP,
    ceiling: float = FEEDBACK_CEILING,
) -> Any:
    """``b_fb = clamp(1 + step * votes, floor, ceiling)`` from net up-minus-down votes.

    docs/retrieval.md, 4. The floor demotes a hard negative without erasing it
    from consideration.
    """
    return _value(np.minimum(ceiling, np.maximum(floor, NEUTRAL + step * np.asarray(votes))))


def factor_product(*factors: Any) -> Any:
    """The factors multiplied left to right, in the order given (the scorer's: ``FACTORS``).

    ``1 * x`` is ``x`` exactly, so the first factor starts the product (one
    whole-corpus multiplication fewer per composed score).
    """
    if not factors:
        return NEUTRAL
    return reduce(operator.mul, factors[1:], factors[0])


def compose(lexical: Any, *factors: Any) -> Any:
    """``s(c) = L(c) * (product of the factors)``; exactly 0 where ``L(c) <= 0``.

    docs/retrieval.md, 3 and 4: no boost creates relevance. The factors are
    multiplied first (``factor_product``), ``L(c)`` last.
    """
    return _value(np.where(np.asarray(lexical) > 0, lexical * factor_product(*factors), 0.0))


def lent_score(
    section_score: Any, share: float = DEFAULT_PROPAGATION_SHARE, feedback: Any = NEUTRAL
) -> Any:
    """``share * s(section) * b_fb(sym)``: what a section lends a symbol it names.

    docs/retrieval.md, 5. The feedback factor of the receiving symbol applies,
    so a demoted symbol stays demoted whatever section names it. An alias lends
    its target its whole score (``share`` 1).
    """
    return share * section_score * feedback


def propagated_score(own: Any, best_lent: Any) -> Any:
    """``s'(sym) = max(s(sym), best lent score)``: a symbol gains from the best section naming it.

    docs/retrieval.md, 5. The maximum, not a sum: summing over all referencing
    sections lets a heavily referenced class win every query (measured MRR
    0.58 -> 0.15 on one corpus). An equal lent score leaves the node its own.
    """
    return _value(np.where(best_lent > own, best_lent, own))
