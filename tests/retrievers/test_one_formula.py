"""One ranking formula: the scorer, ``--explain`` and ``boosts`` are the same functions.

For real queries on the built fixture (plain, and with priorities, workflows and
votes configured), the factors ``--explain`` shows multiply, by ``boosts.compose``,
to exactly the score every hit was returned with; and editing a function of
``codecite.retrievers.boosts`` changes the ranking that runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from fixture_facts import FIXTURE_CONFIG, SAMPLE_QUERIES

import codecite
from codecite.retrievers import boosts
from codecite.retrievers.explain import explain_text
from codecite.retrievers.propagation import ALIAS_SHARE
from codecite.retrievers.tokenizer import identifier_mentions
from codecite.vocabulary import CODE_KINDS

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"
QUERIES = [*SAMPLE_QUERIES, "station reader survey folder"]
VOTES = {
    "geokit.agents.static_shift.StaticShiftAgent": 2,
    "geokit.io.load_survey": -6,
    "geokit.phase.skew": 1,
}
f32 = boosts.SCORE_DTYPE


@pytest.fixture(scope="module")
def plain(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    """The fixture with priorities, two workflows and votes for and against symbols."""
    root = tmp_path_factory.mktemp("configured") / "sample_repo"
    shutil.copytree(FIXTURE_REPO, root, ignore=shutil.ignore_patterns(".codecite*"))
    (root / "codecite.toml").write_text(FIXTURE_CONFIG, encoding="utf-8")
    codecite.build(root)
    index = codecite.load(root)
    for symbol, votes in VOTES.items():
        for _ in range(abs(votes)):
            index.feedback(symbol, up=votes > 0)
    return index


def _check_every_hit(index: codecite.CodeciteIndex, query: str) -> None:
    retriever = index.retriever(20)
    ctx = retriever.retrieve_context(query)
    assert ctx.nodes, query
    final, parts = retriever.score_all(query)
    rows = retriever._arrays.positions()
    s = retriever.settings
    for hit in ctx.nodes:
        b = ctx.breakdown[hit.node.node_id]
        lexical = boosts.lexical_score(
            f32(b.bm25_q), f32(b.bm25_e), s.expansion_weight, f32(b.bm25_v), s.variant_weight
        )
        assert float(lexical) == b.lexical
        assert b.recompose() == b.composed
        if b.propagated_from is None:
            assert hit.score == b.recompose(), (query, hit.node.node_id)
            continue
        src = rows[b.propagated_from]
        alias = index.node(b.propagated_from).metadata.get("kind") in CODE_KINDS
        lender, share = (
            (final[src], ALIAS_SHARE) if alias else (parts["composed"][src], s.propagation_share)
        )
        lent = boosts.lent_score(lender, share, boosts.FACTOR_DTYPES["feedback"](b.feedback))
        assert hit.score == float(f32(lent)) > b.composed, (query, hit.node.node_id)


@pytest.mark.parametrize("query", QUERIES)
def test_explained_factors_compose_to_every_returned_score(
    plain: codecite.CodeciteIndex, configured: codecite.CodeciteIndex, query: str
) -> None:
    _check_every_hit(plain, query)
    _check_every_hit(configured, query)


def test_the_configured_fixture_fires_every_factor(configured: codecite.CodeciteIndex) -> None:
    seen: dict[str, set[float]] = {name: set() for name in boosts.FACTORS}
    for query in QUERIES:
        for b in configured.query(query, k=20).breakdown.values():
            for name, value in zip(boosts.FACTORS, b.factors(), strict=True):
                seen[name].add(value)
    assert all(len(values) > 1 for values in seen.values()), seen


def test_editing_a_factor_function_changes_the_ranking(
    plain: codecite.CodeciteIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = "static shift StaticShiftAgent"
    plain = plain.with_settings(name_boost=1.0)  # b_sym alone (b_name would keep it first)
    before = plain.query(query, k=10)
    agent = "geokit.agents.static_shift.StaticShiftAgent"
    assert before.nodes[0].node.metadata["symbol"] == agent
    monkeypatch.setattr(
        boosts, "symbol_factor", lambda leaf, *args, **kwargs: np.ones(np.shape(leaf))
    )
    after = plain.query(query, k=10)
    assert [n.node.node_id for n in after.nodes] != [n.node.node_id for n in before.nodes]
    assert after.nodes[0].node.metadata["symbol"] != agent
    assert {b.symbol for b in after.breakdown.values()} == {1.0}
    assert "x symbol 1.50" in explain_text(before) and "x symbol 1.50" not in explain_text(after)


def test_editing_compose_changes_the_scores(
    plain: codecite.CodeciteIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = "phase tensor skew"
    before = {n.node.node_id: n.score for n in plain.query(query, k=5).nodes}
    original = boosts.compose
    monkeypatch.setattr(boosts, "compose", lambda lexical, *f: 2 * original(lexical, *f))
    after = plain.query(query, k=5)
    assert {n.node.node_id: n.score for n in after.nodes} != before
    own = [n for n in after.nodes if after.breakdown[n.node.node_id].propagated_from is None]
    assert own and all(after.breakdown[n.node.node_id].recompose() == n.score for n in own)


def test_array_and_scalar_calls_agree() -> None:
    leaves = ["StaticShiftAgent", "load", "skew", None, "estimate_ss_ama"]
    mentions = identifier_mentions("staticshiftagent `load` and skew of estimate_ss_ama")
    lowered = np.array([(leaf or "").lower() for leaf in leaves])
    compound = np.array(
        [(bool(leaf) and leaf != leaf.lower()) or "_" in (leaf or "") for leaf in leaves]
    )
    vector = boosts.symbol_factor(lowered, mentions, compound=compound)
    assert vector.tolist() == [boosts.symbol_factor(leaf, mentions) for leaf in leaves]
    tags = np.array(["qc", None, "ss"], dtype=object)
    for workflow in ("qc", None):
        assert boosts.workflow_factor(tags, workflow).tolist() == [
            boosts.workflow_factor(t, workflow) for t in tags
        ]
    kinds = np.array(["recipe", "doc_section"])
    assert boosts.recipe_factor(kinds).tolist() == [boosts.recipe_factor(k) for k in kinds]
    assert boosts.priority_factor(np.array([0, 1, 3])).tolist() == [
        boosts.priority_factor(p) for p in (0, 1, 3)
    ]
    votes = np.array([-100.0, 0.0, 2.0, 50.0])
    assert boosts.feedback_factor(votes).tolist() == [boosts.feedback_factor(v) for v in votes]


def test_breakdowns_are_made_when_read_once_each_and_in_rank_order(
    plain: codecite.CodeciteIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retrieval defers its explanations: none is made until read, each once."""
    retriever = plain.retriever(8)
    made: list[int] = []
    explain = retriever._breakdown

    def counting(j: int, terms: dict[str, np.ndarray]) -> object:
        made.append(j)
        return explain(j, terms)

    monkeypatch.setattr(retriever, "_breakdown", counting)
    ctx = retriever.retrieve_context("static shift correction of the survey")
    assert len(ctx.nodes) > 2 and made == []
    ids = [hit.node.node_id for hit in ctx.nodes]
    assert list(ctx.breakdown) == ids and all(i in ctx.breakdown for i in ids)
    # what waits to be explained is the hits' own terms, not the per-node vectors
    pending = ctx.breakdown._items[ids[0]].args[1]  # type: ignore[attr-defined, union-attr]
    assert {v.shape for v in pending.values()} == {(len(ids),)}
    first = ctx.breakdown[ids[1]]
    assert len(made) == 1 and ctx.breakdown[ids[1]] is first
    explained = dict(ctx.breakdown)
    assert len(made) == len(ids) and list(explained) == ids
    assert [b.final for b in explained.values()] == [hit.score for hit in ctx.nodes]
    rows = [row["breakdown"] for row in ctx.to_json()["results"]]
    assert rows == [b.to_json() for b in explained.values()] and len(made) == len(ids)
