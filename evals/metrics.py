"""Evaluation metrics as pure functions over ranked results.

Every formula is written out in the docstring of the function computing it
and again in ``docs/evaluation.md``. Ranks are 1-based; ``None`` means "not
retrieved". A metric whose field no record uses is left out of the report
(``aggregate``) rather than shown as a misleading 0; a metric a system cannot
produce (the baseline has no router) is ``None`` and printed "n/a".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .suite import SuiteRecord

HIT_KS = (1, 5, 10)
MRR_CUTOFF = 10
TEST_NAME = re.compile(r"(^test_.*\.py$)|(_test\.py$)|(^conftest\.py$)")
TEST_DIRS = frozenset(("tests", "test"))
Metrics = dict[str, float | int | None]


# -- matching ---------------------------------------------------------------------------


def is_test_path(path: str | None) -> bool:
    """A test file: a ``tests/`` or ``test/`` folder segment, or a pytest file name."""
    if not path:
        return False
    parts = path.replace("\\", "/").split("/")
    return any(p in TEST_DIRS for p in parts[:-1]) or bool(TEST_NAME.search(parts[-1]))


def symbol_matches(
    expected: str, retrieved: str | None, known: frozenset[str] | set[str] = frozenset()
) -> bool:
    """Exact equality; a dotted name absent from ``known`` may also match as a suffix.

    ``StaticShiftAgent.run`` (a relative ``Class.method`` name) matches
    ``geokit.agents.static_shift.StaticShiftAgent.run``. A fully qualified
    name (one in ``known``, the index's symbols) matches only itself, and a
    descendant (``A.b`` for expected ``A``) never counts.
    """
    if not retrieved:
        return False
    if retrieved == expected:
        return True
    return "." in expected and expected not in known and retrieved.endswith("." + expected)


def first_ranks(expected: Sequence[str], ranked: Sequence[Iterable[str]]) -> dict[str, int | None]:
    """For each expected item, the first 1-based rank whose hit set contains it.

    ``ranked[i]`` is the set of expected items the result at rank ``i + 1`` hits,
    so duplicates (two nodes of one symbol) count once, at the better rank.
    """
    ranks: dict[str, int | None] = dict.fromkeys(expected)
    for rank, hits in enumerate(ranked, 1):
        for item in hits:
            if item in ranks and ranks[item] is None:
                ranks[item] = rank
    return ranks


def guard_violations(must_not_contain: Iterable[str], texts: Iterable[str]) -> tuple[str, ...]:
    """The guard strings found (case-insensitively) in the retrieved evidence text."""
    haystack = "\n".join(texts).casefold()
    return tuple(g for g in must_not_contain if g.casefold() in haystack)


# -- per-record scores ---------------------------------------------------------------------


def recall_at_k(ranks: Mapping[str, int | None], k: int) -> float:
    """``|{s in E : rank(s) <= k}| / |E|`` for the expected symbols ``E``."""
    if not ranks:
        return 0.0
    return sum(1 for r in ranks.values() if r is not None and r <= k) / len(ranks)


def hit_at_k(rank: int | None, k: int) -> float:
    """1 when the first hit is within the top ``k``, else 0."""
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None, cutoff: int = MRR_CUTOFF) -> float:
    """``1 / rank`` of the first hit, 0 when there is none within ``cutoff``."""
    return 1.0 / rank if rank is not None and rank <= cutoff else 0.0


def best_rank(ranks: Iterable[int | None]) -> int | None:
    present = [r for r in ranks if r is not None]
    return min(present) if present else None


# -- aggregates ---------------------------------------------------------------------------


def mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def accuracy(pairs: Iterable[tuple[str | None, str | None]]) -> float | None:
    """Share of ``(predicted, expected)`` pairs that agree (case-insensitive)."""
    return mean(
        1.0 if p is not None and e is not None and p.casefold() == e.casefold() else 0.0
        for p, e in pairs
    )


def precision_recall(pairs: Iterable[tuple[bool, bool]]) -> tuple[float | None, float | None]:
    """Precision ``TP / (TP + FP)`` and recall ``TP / (TP + FN)`` of ``(predicted, expected)``.

    Either is ``None`` when its denominator is 0 (nothing predicted /
    nothing expected), following "undefined" rather than inventing a value.
    """
    pairs = list(pairs)
    tp = sum(1 for p, e in pairs if p and e)
    predicted = sum(1 for p, _ in pairs if p)
    expected = sum(1 for _, e in pairs if e)
    return (tp / predicted if predicted else None, tp / expected if expected else None)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile by linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


@dataclass(frozen=True)
class RecordOutcome:
    """What one system did with one record, reduced to what the metrics need.

    ``workflows`` are the workflow tags of the top-k results in rank order;
    ``has_router`` / ``has_tags`` say whether the system has that
    capability at all (the plain baseline has neither; it never clarifies).
    """

    record: SuiteRecord
    symbol_ranks: Mapping[str, int | None] = field(default_factory=lambda: MappingProxyType({}))
    source_rank: int | None = None
    n_retrieved: int = 0
    workflows: tuple[str | None, ...] = ()
    violations: tuple[str, ...] = ()
    test_file_in_top_k: bool = False
    intent: str | None = None
    workflow: str | None = None
    line: str | None = None
    clarification: bool = False
    latency_ms: float = 0.0
    has_router: bool = True
    has_tags: bool = True

    @property
    def first_rank(self) -> int | None:
        """First rank hitting an expected symbol or source."""
        return best_rank([*self.symbol_ranks.values(), self.source_rank])

    @property
    def symbol_rank(self) -> int | None:
        return best_rank(self.symbol_ranks.values())


def _routing(outcomes: Sequence[RecordOutcome], out: Metrics) -> None:
    routed = outcomes[0].has_router
    for name, attr, expect in (
        ("intent_accuracy", "intent", "expected_intent"),
        ("workflow_accuracy", "workflow", "expected_workflow"),
        ("line_accuracy", "line", "expected_line"),
    ):
        used = [o for o in outcomes if getattr(o.record, expect)]
        if used:
            out[name] = (
                accuracy((getattr(o, attr), getattr(o.record, expect)) for o in used)
                if routed
                else None
            )


def _symbols(outcomes: Sequence[RecordOutcome], k: int, out: Metrics) -> None:
    used = [o for o in outcomes if o.record.expected_symbols]
    if not used:
        return
    out[f"symbol_recall@{k}"] = mean(recall_at_k(o.symbol_ranks, k) for o in used)
    for hk in HIT_KS:
        out[f"symbol_hit@{hk}"] = mean(hit_at_k(o.symbol_rank, hk) for o in used)


def _sources(outcomes: Sequence[RecordOutcome], k: int, out: Metrics) -> None:
    used = [o for o in outcomes if o.record.expected_sources]
    if used:
        out[f"source_hit@{k}"] = mean(hit_at_k(o.source_rank, k) for o in used)
    ranked = [o for o in outcomes if o.record.expected_symbols or o.record.expected_sources]
    if ranked:
        out[f"mrr@{MRR_CUTOFF}"] = mean(reciprocal_rank(o.first_rank) for o in ranked)


def _coverage(outcomes: Sequence[RecordOutcome], out: Metrics) -> None:
    used = [o for o in outcomes if o.record.expected_retrieval_workflow]
    if used:
        out["retrieval_workflow_coverage"] = (
            mean(
                1.0 if set(o.record.expected_retrieval_workflow) & set(o.workflows) else 0.0
                for o in used
            )
            if outcomes[0].has_tags
            else None
        )


def _guards(outcomes: Sequence[RecordOutcome], out: Metrics) -> None:
    in_scope = [o for o in outcomes if o.record.expect_clarification is not True]
    if in_scope:
        out["nonempty_retrieval_rate"] = mean(1.0 if o.n_retrieved else 0.0 for o in in_scope)
    if any(o.record.must_not_contain for o in outcomes):
        out["guard_violations"] = sum(1 for o in outcomes if o.violations)
    out["test_file_pollution"] = mean(1.0 if o.test_file_in_top_k else 0.0 for o in outcomes)


def _clarification(outcomes: Sequence[RecordOutcome], out: Metrics) -> None:
    used = [o for o in outcomes if o.record.expect_clarification is not None]
    if used:
        p, r = precision_recall(
            (o.clarification, bool(o.record.expect_clarification)) for o in used
        )
        out["clarification_precision"], out["clarification_recall"] = p, r


def aggregate(outcomes: Sequence[RecordOutcome], k: int) -> Metrics:
    """Every metric the records' fields support, for one group of outcomes."""
    out: Metrics = {"records": len(outcomes)}
    if not outcomes:
        return out
    _routing(outcomes, out)
    _symbols(outcomes, k, out)
    _sources(outcomes, k, out)
    _coverage(outcomes, out)
    _guards(outcomes, out)
    _clarification(outcomes, out)
    latencies = [o.latency_ms for o in outcomes]
    out["latency_p50_ms"] = percentile(latencies, 50)
    out["latency_p95_ms"] = percentile(latencies, 95)
    return out


def hit_curve(outcomes: Sequence[RecordOutcome], max_k: int) -> list[float]:
    """Symbol hit@k for k = 1..max_k over records with expected symbols (for plots)."""
    used = [o for o in outcomes if o.record.expected_symbols]
    return [mean(hit_at_k(o.symbol_rank, k) for o in used) or 0.0 for k in range(1, max_k + 1)]


LOWER_IS_BETTER = frozenset(
    ("guard_violations", "test_file_pollution", "latency_p50_ms", "latency_p95_ms")
)


def lift(system: Any, baseline: Any) -> float | None:
    """``system - baseline``; for ``LOWER_IS_BETTER`` metrics a negative lift is the gain."""
    if not isinstance(system, (int, float)) or not isinstance(baseline, (int, float)):
        return None
    return system - baseline
