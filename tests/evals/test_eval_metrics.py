"""Metric functions on hand-made rankings with hand-computed values."""

from __future__ import annotations

import pytest

from codecite.evals import RecordOutcome, SuiteRecord, aggregate, is_test_path, symbol_matches
from codecite.evals.metrics import (
    accuracy,
    first_ranks,
    guard_violations,
    hit_at_k,
    hit_curve,
    percentile,
    precision_recall,
    recall_at_k,
    reciprocal_rank,
)

KNOWN = frozenset({"pkg.mod.Agent", "pkg.mod.Agent.run", "pkg.mod.load"})


@pytest.mark.parametrize(
    ("expected", "retrieved", "hit"),
    [
        ("pkg.mod.Agent", "pkg.mod.Agent", True),
        ("pkg.mod.Agent", "pkg.mod.Agent.run", False),  # a descendant never counts
        ("Agent.run", "pkg.mod.Agent.run", True),  # relative Class.method name
        ("gent.run", "pkg.mod.Agent.run", False),  # suffix at a dot boundary only
        ("run", "pkg.mod.Agent.run", False),  # undotted names: equality only
        ("mod.load", "pkg.mod.load", True),
        ("pkg.mod.load", "other.pkg.mod.load", False),  # fully qualified: exact only
        ("pkg.mod.Agent", None, False),
    ],
)
def test_symbol_matching(expected: str, retrieved: str | None, hit: bool) -> None:
    assert symbol_matches(expected, retrieved, KNOWN) is hit


@pytest.mark.parametrize(
    ("path", "polluting"),
    [
        ("tests/test_a.py", True),
        ("pkg/test/util.py", True),
        ("pkg/test_io.py", True),
        ("pkg/io_test.py", True),
        ("conftest.py", True),
        ("pkg/testing.py", False),
        ("docs/tests.md", False),
        ("pkg/contest.py", False),
        ("", False),
        (None, False),
    ],
)
def test_test_paths(path: str | None, polluting: bool) -> None:
    assert is_test_path(path) is polluting


def test_first_ranks_with_duplicates_and_misses() -> None:
    ranked = [set(), {"a"}, {"a", "b"}, set(), {"b"}]
    assert first_ranks(["a", "b", "c"], ranked) == {"a": 2, "b": 3, "c": None}
    assert first_ranks(["a"], []) == {"a": None}


def test_rank_metrics() -> None:
    ranks = {"a": 2, "b": 3, "c": None}
    assert recall_at_k(ranks, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranks, 10) == pytest.approx(2 / 3)
    assert recall_at_k({}, 10) == 0.0
    assert (hit_at_k(2, 1), hit_at_k(2, 2), hit_at_k(None, 10)) == (0.0, 1.0, 0.0)
    assert reciprocal_rank(4) == 0.25
    assert reciprocal_rank(11) == 0.0 and reciprocal_rank(None) == 0.0


def test_guards_are_case_insensitive() -> None:
    texts = ["def load(): ...", "See Static_Shift_FIX for details"]
    assert guard_violations(["static_shift_fix", "nope"], texts) == ("static_shift_fix",)
    assert guard_violations(["x"], []) == ()


def test_small_aggregates() -> None:
    assert accuracy([("code", "Code"), (None, "code"), ("meta", "code")]) == pytest.approx(1 / 3)
    assert accuracy([]) is None
    assert precision_recall([(True, True), (True, False), (False, True), (False, False)]) == (
        0.5,
        0.5,
    )
    assert precision_recall([(False, True)]) == (None, 0.0)
    assert precision_recall([]) == (None, None)
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([10.0, 20.0], 95) == pytest.approx(19.5)
    assert percentile([], 50) is None


def outcome(record: SuiteRecord, **kw: object) -> RecordOutcome:
    return RecordOutcome(record=record, **kw)  # type: ignore[arg-type]


def test_aggregate_hand_computed() -> None:
    r1 = SuiteRecord(
        "q1",
        expected_symbols=("a", "b"),
        expected_sources=("x.py",),
        must_not_contain=("ghost",),
        expect_clarification=False,
        kind="p",
    )
    r2 = SuiteRecord("q2", expected_symbols=("c",), expect_clarification=False, kind="p")
    r3 = SuiteRecord("q3", expect_clarification=True, kind="oos")
    outcomes = [
        outcome(
            r1,
            symbol_ranks={"a": 1, "b": 7},
            source_rank=2,
            n_retrieved=10,
            violations=("ghost",),
            latency_ms=10.0,
            clarification=False,
        ),
        outcome(
            r2,
            symbol_ranks={"c": None},
            n_retrieved=0,
            test_file_in_top_k=True,
            latency_ms=20.0,
            clarification=True,
        ),
        outcome(r3, n_retrieved=3, latency_ms=30.0, clarification=True),
    ]
    m = aggregate(outcomes, k=5)
    assert m["records"] == 3
    assert m["symbol_recall@5"] == pytest.approx((0.5 + 0.0) / 2)
    assert (m["symbol_hit@1"], m["symbol_hit@5"], m["symbol_hit@10"]) == (0.5, 0.5, 0.5)
    assert m["source_hit@5"] == 1.0
    assert m["mrr@10"] == pytest.approx((1.0 + 0.0) / 2)
    assert m["nonempty_retrieval_rate"] == 0.5  # r3 expects a clarification
    assert m["guard_violations"] == 1
    assert m["test_file_pollution"] == pytest.approx(1 / 3)
    assert m["clarification_precision"] == 0.5 and m["clarification_recall"] == 1.0
    assert m["latency_p50_ms"] == 20.0 and m["latency_p95_ms"] == pytest.approx(29.0)
    for absent in (
        "intent_accuracy",
        "workflow_accuracy",
        "line_accuracy",
        "retrieval_workflow_coverage",
    ):
        assert absent not in m
    assert hit_curve(outcomes, 8) == [0.5] * 8


def test_aggregate_records_without_fields_and_empty() -> None:
    m = aggregate([outcome(SuiteRecord("bare"), n_retrieved=0)], k=10)
    assert set(m) == {
        "records",
        "nonempty_retrieval_rate",
        "test_file_pollution",
        "latency_p50_ms",
        "latency_p95_ms",
    }
    assert m["nonempty_retrieval_rate"] == 0.0
    assert aggregate([], k=10) == {"records": 0}


def test_routing_and_coverage_and_systems_without_them() -> None:
    r = SuiteRecord(
        "q",
        expected_intent="workflow",
        expected_workflow="static_shift",
        expected_line="L22",
        expected_retrieval_workflow=("static_shift",),
    )
    routed = outcome(
        r, intent="workflow", workflow="other", line="L22", workflows=(None, "static_shift")
    )
    m = aggregate([routed], k=10)
    assert (m["intent_accuracy"], m["workflow_accuracy"], m["line_accuracy"]) == (1.0, 0.0, 1.0)
    assert m["retrieval_workflow_coverage"] == 1.0
    plain = aggregate([outcome(r, has_router=False, has_tags=False)], k=10)
    assert plain["intent_accuracy"] is None and plain["retrieval_workflow_coverage"] is None
