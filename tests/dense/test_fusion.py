"""The fusion math: RRF by hand, the cosine floor, the fusion depth, ties, properties."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from codecite.retrievers.fusion import (
    convex_fusion,
    cosine_ranking,
    fusion_depth,
    l2_normalise,
    mentions_known_symbol,
    reciprocal_rank_fusion,
)
from codecite.retrievers.tokenizer import writes_identifiers


def _scores(fused):
    return {f.node_id: f.score for f in fused}


def test_rrf_hand_computed():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "a", "d"]])
    assert [f.node_id for f in fused] == ["a", "c", "b", "d"]
    s = _scores(fused)
    assert s["a"] == pytest.approx(1 / 60 + 1 / 61)  # 0.0330601
    assert s["c"] == pytest.approx(1 / 62 + 1 / 60)  # 0.0327957
    assert s["b"] == pytest.approx(1 / 61)  # absent from dense: nothing from it
    assert s["d"] == pytest.approx(1 / 62)
    assert {f.node_id: f.ranks for f in fused} == {
        "a": (0, 1),
        "b": (1, None),
        "c": (2, 0),
        "d": (None, 2),
    }


def test_rrf_absent_nodes_get_nothing_and_empty_rankings():
    assert reciprocal_rank_fusion([[], []]) == []
    only = reciprocal_rank_fusion([["x"], []])
    assert [(f.node_id, f.score, f.ranks) for f in only] == [("x", 1 / 60, (0, None))]


def test_rrf_ties_break_on_best_rank_then_id():
    # x (lexical 0) and y (dense 0) both score 1/60; then z, w tie at 1/61.
    fused = reciprocal_rank_fusion([["y", "w"], ["x", "z"]])
    assert [f.node_id for f in fused] == ["x", "y", "w", "z"]
    # p and q swap places: equal scores, equal best rank -> by id.
    assert [f.node_id for f in reciprocal_rank_fusion([["q", "p"], ["p", "q"]])] == ["p", "q"]


def test_rrf_depth_cuts_each_ranking():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["d", "e", "c"]], depth=2)
    assert {f.node_id for f in fused} == {"a", "b", "d", "e"}


def test_rrf_repeated_id_keeps_first_rank():
    fused = reciprocal_rank_fusion([["a", "a", "b"], []])
    assert _scores(fused) == {"a": 1 / 60, "b": 1 / 62}


@pytest.mark.parametrize(("k", "depth"), [(1, 50), (5, 50), (10, 50), (11, 55), (40, 200)])
def test_fusion_depth_is_max_5k_50(k, depth):
    assert fusion_depth(k) == depth


def test_cosine_floor_keeps_exactly_020_and_drops_019():
    rows = np.array(
        [[0.2, np.sqrt(1 - 0.04)], [0.19, np.sqrt(1 - 0.19**2)], [1.0, 0.0], [-1.0, 0.0]],
        dtype=np.float32,
    )
    ranked, best = cosine_ranking(rows, np.array([1.0, 0.0]), depth=10, floor=0.20)
    assert [i for i, _ in ranked] == [2, 0]
    assert ranked[0][1] == pytest.approx(1.0)
    assert best == pytest.approx(1.0)


def test_cosine_best_is_reported_below_the_floor():
    rows = np.array([[0.1, np.sqrt(0.99)]], dtype=np.float32)
    ranked, best = cosine_ranking(rows, np.array([1.0, 0.0]), depth=10)
    assert ranked == []
    assert best == pytest.approx(0.1)


def test_cosine_depth_ties_and_mask():
    rng = np.random.default_rng(0)
    rows = l2_normalise(rng.normal(size=(200, 16)))
    rows[5] = rows[9]  # an exact tie: the lower row comes first
    query = rows[9].copy()
    ranked, _ = cosine_ranking(rows, query, depth=7, floor=-1.0)
    cos = rows @ query
    expected = sorted(range(200), key=lambda i: (-cos[i], i))[:7]
    assert [i for i, _ in ranked] == expected
    assert [i for i, _ in ranked][:2] == [5, 9]
    mask = np.ones(200, dtype=bool)
    mask[[5, 9]] = False
    masked, best = cosine_ranking(rows, query, depth=7, floor=-1.0, mask=mask)
    assert {5, 9}.isdisjoint(i for i, _ in masked)
    assert best == pytest.approx(max(cos[mask]))


def test_cosine_all_masked_and_empty():
    rows = np.eye(3, dtype=np.float32)
    assert cosine_ranking(rows, rows[0], 5, mask=np.zeros(3, dtype=bool)) == ([], None)
    assert cosine_ranking(np.zeros((0, 3), np.float32), rows[0], 5) == ([], None)


def test_l2_normalise_keeps_zero_rows():
    out = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])


def test_symbol_gate_reading_of_a_mention():
    leaves = {"estimate_ss_ama": [1], "load": [2]}
    assert mentions_known_symbol({"estimate_ss_ama", "run"}, leaves)
    assert mentions_known_symbol({"load", "data"}, leaves)  # plain whole word
    compound = {"estimate_ss_ama"}
    assert not mentions_known_symbol({"load", "data"}, leaves, compound)  # English "load"
    assert mentions_known_symbol({"load"}, leaves, compound, code={"load"})  # `load()`
    assert not mentions_known_symbol({"loading"}, leaves)


# -- properties ---------------------------------------------------------------------------

ids = st.lists(st.sampled_from([f"n{i}" for i in range(30)]), max_size=40)


@given(ids, ids, st.integers(min_value=1, max_value=40))
def test_fused_ids_are_the_union_of_kept_inputs(lex, dense, depth):
    fused = reciprocal_rank_fusion([lex, dense], depth=depth)
    assert {f.node_id for f in fused} == set(lex[:depth]) | set(dense[:depth])
    assert len(fused) == len({f.node_id for f in fused})


@given(ids, ids)
def test_rrf_is_order_invariant_in_the_rankings(lex, dense):
    ab = reciprocal_rank_fusion([lex, dense])
    ba = reciprocal_rank_fusion([dense, lex])
    assert [(f.node_id, f.score) for f in ab] == [(f.node_id, f.score) for f in ba]


@given(ids, ids)
def test_rrf_never_mutates_inputs_and_scores_follow_the_formula(lex, dense):
    before = copy.deepcopy([lex, dense])
    fused = reciprocal_rank_fusion([lex, dense])
    assert [lex, dense] == before
    for f in fused:
        assert f.score == pytest.approx(sum(1 / (60 + r) for r in f.ranks if r is not None))
        assert 0 < f.score <= 2 / 60
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)


@given(st.integers(min_value=1, max_value=60), st.integers(min_value=0, max_value=2**31))
def test_cosine_ranking_is_sorted_floored_and_bounded(depth, seed):
    rng = np.random.default_rng(seed)
    rows = l2_normalise(rng.normal(size=(80, 8)))
    ranked, best = cosine_ranking(rows, rows[0], depth)
    cos = [c for _, c in ranked]
    assert len(ranked) <= depth
    assert cos == sorted(cos, reverse=True)
    assert all(c >= 0.20 for c in cos)
    assert best == pytest.approx(1.0, abs=1e-5)


# -- convex fusion ---------------------------------------------------------------------


def test_convex_fusion_hand_computed():
    lexical = [("a", 4.0), ("b", 2.0), ("c", 1.0)]
    dense = [("c", 0.80), ("d", 0.70), ("a", 0.60)]
    fused = convex_fusion(lexical, dense, 0.5, margin=0.15)
    s = _scores(fused)
    assert s["a"] == pytest.approx(0.5 * 1.0)  # 0.60 is 0.20 below the best: nothing from dense
    assert s["b"] == pytest.approx(0.5 * 0.5)
    assert s["c"] == pytest.approx(0.5 * 0.25 + 0.5 * 1.0)
    assert s["d"] == pytest.approx(0.5 * (0.70 - 0.80 + 0.15) / 0.15)
    assert [f.node_id for f in fused] == ["c", "a", "b", "d"]
    assert {f.node_id: f.ranks for f in fused}["a"] == (0, 2)


def test_convex_fusion_drops_dense_candidates_far_below_the_best_cosine():
    fused = convex_fusion([("a", 1.0)], [("b", 0.9), ("c", 0.74), ("d", 0.76)], 0.5, margin=0.15)
    assert [f.node_id for f in fused] == ["a", "b", "d"]  # c: 0.16 below the best
    assert fused[0].score == fused[1].score  # a tie goes to the best rank, then the id


def test_convex_fusion_trusting_lexical_more_keeps_a_clear_lexical_winner_first():
    lexical = [("named", 8.0), ("x", 1.0)]
    dense = [("x", 0.9), ("y", 0.85)]
    assert convex_fusion(lexical, dense, 0.5)[0].node_id == "x"
    assert convex_fusion(lexical, dense, 0.75)[0].node_id == "named"


def test_convex_fusion_depth_and_repeats():
    fused = convex_fusion([("a", 2.0), ("a", 1.0), ("b", 1.0)], [("b", 0.5)], 0.5, depth=2)
    assert {f.node_id: f.ranks for f in fused} == {"a": (0, None), "b": (None, 0)}


def test_convex_fusion_with_one_side_empty_is_that_side():
    assert [f.node_id for f in convex_fusion([("a", 2.0), ("b", 1.0)], [], 0.5)] == ["a", "b"]
    assert [f.node_id for f in convex_fusion([], [("a", 0.5), ("b", 0.4)], 0.5)] == ["a", "b"]
    assert convex_fusion([("a", 0.0)], [], 0.5)[0].score == 0.0  # no lexical evidence at all


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("how do I add a column to a table", False),
        ("don't reassign a field", False),
        ("Table.add_column", True),
        ("what does `frozen` do", True),
        ("call evolve() on it", True),
        ("StaticShiftAgent options", True),
        ("use add_column", True),
    ],
)
def test_a_query_writes_identifiers(query, code):
    assert writes_identifiers(query) is code
