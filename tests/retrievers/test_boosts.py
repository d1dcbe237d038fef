"""The factors of the composed score, as pure functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codecite.retrievers import boosts
from codecite.retrievers.tokenizer import identifier_mentions

finite = st.floats(min_value=-50, max_value=50, allow_nan=False)


@given(st.integers(min_value=0, max_value=20), st.integers(min_value=0, max_value=20))
def test_priority_factor_is_monotone(a: int, b: int) -> None:
    lo, hi = sorted((a, b))
    assert boosts.priority_factor(lo) <= boosts.priority_factor(hi)
    assert boosts.priority_factor(1) == 1.0
    assert boosts.priority_factor(3) == 1.24


@given(finite, finite)
def test_feedback_factor_is_floored_and_monotone(a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert boosts.feedback_factor(lo) <= boosts.feedback_factor(hi)
    assert boosts.feedback_factor(lo) >= boosts.DEFAULT_FEEDBACK_FLOOR


def test_feedback_values() -> None:
    assert boosts.feedback_factor(0) == 1.0
    assert boosts.feedback_factor(-100) == 0.15
    assert boosts.feedback_factor(2) == 1.4


def test_each_boost_is_one_unless_its_condition_fires() -> None:
    assert boosts.workflow_factor("qc", "qc") == 1.6
    assert boosts.workflow_factor("qc", None) == 1.0
    assert boosts.workflow_factor(None, None) == 1.0
    assert boosts.recipe_factor("recipe") == 1.25 and boosts.recipe_factor("doc_section") == 1.0


def test_symbol_factor_whole_identifier_rule() -> None:
    m = identifier_mentions("the correction of StaticShiftAgent output")
    assert boosts.symbol_factor("StaticShiftAgent", m) == 1.5
    assert boosts.symbol_factor("correct", m) == 1.0
    lower = identifier_mentions("what does staticshiftagent do")
    assert boosts.symbol_factor("StaticShiftAgent", lower) == 1.5
    prose = identifier_mentions("how do I load data")
    assert boosts.symbol_factor("load", prose) == 1.0
    assert boosts.symbol_factor("load", identifier_mentions("what does `load` return")) == 1.5


@given(
    st.floats(min_value=0, max_value=100),
    st.lists(st.floats(min_value=0.15, max_value=3), max_size=6),
)
def test_compose_never_lifts_zero_and_multiplies(lexical: float, factors: list[float]) -> None:
    score = boosts.compose(lexical, *factors)
    if lexical == 0:
        assert score == 0
    else:
        expected = lexical
        for f in factors:
            expected *= f
        assert abs(score - expected) <= 1e-9 * max(1.0, expected)


def test_lexical_and_propagation() -> None:
    assert boosts.lexical_score(2.0, 4.0) == 2.0 + 0.35 * 4.0
    assert boosts.propagated_score(1.0, boosts.lent_score(10.0, 0.4)) == 4.0
    assert boosts.propagated_score(5.0, boosts.lent_score(10.0, 0.4)) == 5.0
    assert boosts.lent_score(10.0, 0.4, feedback=0.5) == 2.0


@pytest.mark.parametrize(
    ("path", "low"),
    [
        ("CHANGELOG.md", True),
        ("docs/changes.rst", True),
        ("doc/whatsnew/v0.11.1.rst", True),
        ("doc/source/whats_new/v2.0.rst", True),
        ("doc/build/changelog/migration_10.rst", True),
        ("docs/history.rst", True),
        ("docs/release-process.rst", False),
        ("doc/source/release/1.15.0-notes.rst", True),
        ("docs/release.rst", False),
        ("docs/tutorial/changing_values.md", False),
        ("docs/api.rst", False),
        ("docs/licensing_faq/overview.md", False),
    ],
)
def test_changelog_pages_and_folders_are_low_value_docs(path: str, low: bool) -> None:
    from codecite.retrievers.settings import ScoringSettings

    factor = ScoringSettings().zero_config_factor({"kind": "doc_section", "source_path": path})
    assert factor == (0.5 if low else 1.0)


@given(
    st.lists(
        st.tuples(
            st.sampled_from([True, False, None]),
            st.sampled_from(["python_symbol", "python_method", "doc_section", "recipe", None]),
            st.sampled_from(["docs/changelog.rst", "docs/guide.rst", "pkg/mod.py", ""]),
        ),
        max_size=30,
    ),
    st.floats(0.5, 2.0),
    st.floats(0.1, 1.0),
)
def test_zero_config_factors_of_many_nodes_equal_the_rule_node_by_node(
    rows: list[tuple], doc_factor: float, low_value: float
) -> None:
    """The scorer takes every node's factor at once (asked once per distinct input)."""
    from codecite.retrievers.settings import ScoringSettings

    settings = ScoringSettings(doc_factor=doc_factor, low_value_doc_factor=low_value)
    public, kinds, paths = (list(c) for c in zip(*rows, strict=True)) if rows else ([], [], [])
    expected = [
        settings.zero_config_factor({"public": p, "kind": k, "source_path": s}) for p, k, s in rows
    ]
    assert settings.zero_config_factors(public, kinds, paths) == expected
