"""Answer or ask: the confidence decision behind clarification requests.

The rule (docs/answers.md, "Confidence: answer or ask"): ``confident <=>
project context resolved OR top_score >= tau``. An explicit
``confidence_floor`` keeps exactly that rule with the raw composed score. But
raw BM25 grows with corpus size and query length (tau = 25.0 was calibrated on
one 11,000-chunk corpus), so with no configured floor the build calibrates the
index on itself (``codecite.indexer.calibration``: questions generated from its
own docstrings and docs, and bundled off-topic questions) and the decision reads
several signals (``codecite.retrievers.evidence``), each with its own floor:

1. *unknown name*: a name in the query (an acronym, CamelCase, a mid-sentence
   capital) occurs nowhere in the corpus: "PostgreSQL", "Celery";
2. *vague*: fewer than two specific words once complaint words are set aside;
3. *coverage*: the share of the query's idf mass the top evidence matches, at
   least ``CALIBRATED_COVERAGE_FLOOR`` (``DEFAULT_COVERAGE_FLOOR`` on an index
   built before calibration existed, where it is the only floor);
4. *score*: the best node's composed score, at least the index's calibrated
   floor: ``SCORE_FACTOR`` times the median best score of the generated questions.
   A question scoring under 40% of what a typical question about this corpus
   scores is probably about something else.

The first signal that falls short is the reason the clarification gives.
A question that writes one of the corpus's symbols exactly or pastes a message
its code raises is answered whatever its coverage and score (*exact names*,
``codecite.retrievers.evidence``).
Measured on 45 suites and the vague sets: docs/answers.md.

In hybrid mode (``dense=True``) a shortfall of coverage or score is overruled
when the dense evidence agrees: the best cosine is at least
``DENSE_SUPPORT_COSINE`` and at least ``DENSE_SUPPORT_AGREEMENT`` of the top
five lexical results are also among the top five by cosine. Two rankings made
from different evidence pointing at the same nodes say the question is about
this corpus, though its words are not the corpus's (docs/answers.md, "Dense
evidence"). An unknown name or a vague question is never overruled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codecite.retrievers.evidence import (
    CALIBRATED_COVERAGE_FLOOR,
    DEFAULT_COVERAGE_FLOOR,
    SCORE_FACTOR,
    judge,
)
from codecite.retrievers.results import RetrievedContext

DENSE_SUPPORT_COSINE = 0.5  # the best cosine, with the local MiniLM backend
DENSE_SUPPORT_AGREEMENT = 3  # of the top five, in both rankings
DENSE_SUPPORT_DEPTH = 5

__all__ = [
    "CALIBRATED_COVERAGE_FLOOR",
    "DEFAULT_COVERAGE_FLOOR",
    "DENSE_SUPPORT_AGREEMENT",
    "DENSE_SUPPORT_COSINE",
    "SCORE_FACTOR",
    "Confidence",
    "assess",
    "dense_agreement",
    "zero_config",
]


@dataclass(frozen=True)
class Confidence:
    """The decision and the numbers behind it.

    ``score`` and ``floor`` are those of the signal that decided (the first that
    fell short, else coverage); ``features`` has every signal measured.
    """

    confident: bool
    score: float
    floor: float
    rule: str
    reason: str
    features: dict[str, Any] = field(default_factory=dict)


def assess(
    retriever: Any,
    ctx: RetrievedContext,
    project_resolved: bool = False,
    floor: float | None = None,
    calibration: dict[str, Any] | None = None,
) -> Confidence:
    """Decide whether the evidence in ``ctx`` is strong enough to answer.

    ``floor``: an explicitly configured ``confidence_floor`` (raw ``top_score``
    rule); None selects the zero-config rule, with the index's ``calibration``
    (the manifest's entry) when it has one.
    """
    if project_resolved:
        return Confidence(
            True,
            ctx.top_score,
            floor or 0.0,
            "project_context",
            "the query names a registered project entry",
        )
    if floor is not None:
        ok = ctx.top_score >= floor
        return Confidence(
            ok,
            ctx.top_score,
            floor,
            "configured_floor",
            f"top score {ctx.top_score:.2f} {'>=' if ok else '<'} floor {floor:.2f}",
        )
    return zero_config(retriever, ctx, calibration)


def zero_config(
    retriever: Any, ctx: RetrievedContext, calibration: dict[str, Any] | None = None
) -> Confidence:
    """The zero-config decision: the four signals of the module docstring, in order."""
    v = judge(retriever, ctx, calibration)
    f = {**v.features, "fell_short": v.fell_short}
    cov_floor = f["coverage_floor"]
    if ctx.top_cosine is not None:
        f["top_cosine"], f["dense_agreement"] = ctx.top_cosine, dense_agreement(ctx)
        if v.fell_short in ("coverage", "score") and _dense_supports(f):
            why = (
                f"the lexical evidence fell short on {v.fell_short}, but the dense evidence "
                f"agrees: best cosine {ctx.top_cosine:.2f} (>= {DENSE_SUPPORT_COSINE:.2f}), "
                f"{f['dense_agreement']} of the top {DENSE_SUPPORT_DEPTH} in both rankings"
            )
            return Confidence(True, ctx.top_cosine, DENSE_SUPPORT_COSINE, "dense_support", why, f)
    if v.fell_short == "unknown_name":
        why = f"{', '.join(f['unknown_names'])} does not occur in the indexed corpus"
        return Confidence(False, 0.0, cov_floor, "calibrated", why, f)
    if v.fell_short == "vague":
        why = (
            "the question is too vague: once complaint words are set aside it names no "
            "specific feature; say which function, option, message or task it is about"
        )
        return Confidence(False, 0.0, cov_floor, "calibrated", why, f)
    score = f["coverage"]
    if v.fell_short == "coverage":
        why = f"the best evidence covers {shares(score, cov_floor)} of the query"
        return Confidence(False, score, cov_floor, "calibrated", why, f)
    if v.fell_short == "score":
        top, low = f["top_score"], f["score_floor"]
        why = (
            f"the best evidence scores {top:.2f}, under this index's calibrated floor {low:.2f} "
            f"({SCORE_FACTOR:.0%} of the median score of questions generated from it)"
        )
        return Confidence(False, top, low, "calibrated", why, f)
    if f["pasted_message_of"]:
        why = f"the question pastes a message raised by {', '.join(f['pasted_message_of'])}"
        return Confidence(True, score, cov_floor, "calibrated", why, f)
    if f["exact_names"]:
        why = f"the question names {', '.join(f['exact_names'][:3])}, a symbol of this corpus"
        return Confidence(True, score, cov_floor, "calibrated", why, f)
    why = f"the best evidence covers {score:.0%} of the query (>= {cov_floor:.0%})"
    if "score_floor" in f:
        why += f" and scores {f['top_score']:.2f} (>= {f['score_floor']:.2f})"
    return Confidence(True, score, cov_floor, "calibrated", why, f)


def shares(value: float, floor: float) -> str:
    """``"29.8% (< 30.0%)"``: one decimal when whole percents would read ``30% (< 30%)``."""
    spec = ".1%" if f"{value:.0%}" == f"{floor:.0%}" else ".0%"
    return f"{value:{spec}} (< {floor:{spec}})"


def dense_agreement(ctx: RetrievedContext) -> int:
    """How many nodes are in the top five of both the lexical and the dense ranking."""
    depth = DENSE_SUPPORT_DEPTH
    return sum(
        1
        for b in ctx.breakdown.values()
        if b.lexical_rank is not None
        and b.dense_rank is not None
        and b.lexical_rank < depth
        and b.dense_rank < depth
    )


def _dense_supports(features: dict[str, Any]) -> bool:
    return (
        features["top_cosine"] >= DENSE_SUPPORT_COSINE
        and features["dense_agreement"] >= DENSE_SUPPORT_AGREEMENT
    )
