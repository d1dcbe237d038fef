"""The factors of the composed score, each a pure function (DESIGN.md, "Retrieval model").

    s(c) = L(c) * [1 + 0.12 (priority(c) - 1)] * b_wf * b_recipe * b_sym * b_fb

Multiplicative, so one strong signal (an exact symbol match) is not diluted by
several weak ones; each factor is 1 unless its condition fires, and none can
lift a chunk with L(c) = 0 (no boost creates relevance).
"""

from __future__ import annotations

from .tokenizer import Mentions, is_compound

DEFAULT_PRIORITY_STEP = 0.12
DEFAULT_WORKFLOW_BOOST = 1.6
DEFAULT_RECIPE_BOOST = 1.25
DEFAULT_SYMBOL_BOOST = 1.5
DEFAULT_FEEDBACK_FLOOR = 0.15
FEEDBACK_STEP = 0.2
FEEDBACK_CEILING = 2.0


def lexical_score(bm25_q: float, bm25_e: float, expansion_weight: float = 0.35) -> float:
    """``L(c) = BM25(c, q) + w * BM25(c, e(q))``: expansion terms count less than the user's."""
    return bm25_q + expansion_weight * bm25_e


def priority_factor(priority: int, step: float = DEFAULT_PRIORITY_STEP) -> float:
    """``1 + step * (priority - 1)``: static preference for configured path prefixes.

    Priority 1 (the default) is neutral; it never goes below 0 for priority 0
    with the default step (0.88).
    """
    return max(0.0, 1.0 + step * (priority - 1))


def workflow_factor(
    node_workflow: str | None, query_workflow: str | None, boost: float = DEFAULT_WORKFLOW_BOOST
) -> float:
    """``boost`` when the node's workflow tag equals the workflow inferred from the query."""
    return boost if query_workflow is not None and node_workflow == query_workflow else 1.0


def recipe_factor(kind: str, boost: float = DEFAULT_RECIPE_BOOST) -> float:
    """``boost`` for recipe nodes: curated workflow guides answer "how do I" best."""
    return boost if kind == "recipe" else 1.0


def symbol_factor(
    leaf: str | None, mentions: Mentions, boost: float = DEFAULT_SYMBOL_BOOST
) -> float:
    """``boost`` when the query names the node's leaf symbol as a whole identifier.

    ``mentions`` holds the query's lowered whole words (dotted names split) and
    those written as code. ``correct`` is not mentioned by "correction";
    ``StaticShiftAgent`` and ``staticshiftagent`` both are. A one-word leaf
    (``load``) counts only when written as code (```load```, ``x.load``,
    ``load(``): as plain English it names nothing in particular.
    """
    if not leaf:
        return 1.0
    word = leaf.lower()
    if word in mentions.words and (is_compound(leaf) or word in mentions.code):
        return boost
    return 1.0


def feedback_factor(
    votes: float,
    floor: float = DEFAULT_FEEDBACK_FLOOR,
    step: float = FEEDBACK_STEP,
    ceiling: float = FEEDBACK_CEILING,
) -> float:
    """``clamp(1 + step * votes, floor, ceiling)`` from net up-minus-down votes.

    The floor demotes a hard negative without erasing it from consideration.
    """
    return min(ceiling, max(floor, 1.0 + step * votes))


def compose(lexical: float, *factors: float) -> float:
    """``L(c)`` times every factor; exactly 0 when ``L(c)`` is 0."""
    if lexical <= 0.0:
        return 0.0
    score = lexical
    for f in factors:
        score *= f
    return score


def propagated_score(own: float, best_referencing_section: float, share: float) -> float:
    """``max(own, share * best)``: a symbol gains from the best doc section naming it.

    The maximum, not a sum: summing over all referencing sections lets a heavily
    referenced class win every query (measured MRR 0.58 -> 0.15 on one corpus).
    """
    return max(own, share * best_referencing_section)
