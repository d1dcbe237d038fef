"""The boosted retriever: the exact composition of docs/retrieval.md, filters, rank-1 cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

import codecite
from codecite.errors import QueryError
from codecite.retrievers.settings import ScoringSettings
from codecite.retrievers.tokenizer import query_tokens

CONFIG = """
[tool.codecite]
[tool.codecite.priorities]
"geokit/agents" = 3
[tool.codecite.workflows.static_shift]
keywords = ["static shift", "galvanic"]
[tool.codecite.workflows.phase]
keywords = ["phase tensor", "strike"]
[tool.codecite.expansions]
"vertical offset" = ["static", "shift", "galvanic"]
"""
NEUTRAL = ScoringSettings(
    priority_step=0.0,
    workflow_boost=1.0,
    recipe_boost=1.0,
    symbol_boost=1.0,
    name_boost=1.0,
    doc_propagation=False,
    mined_expansion=False,
    public_api_factor=1.0,
    low_value_doc_factor=1.0,
    max_sections_per_file=0,
    query_variants=False,
)


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    import shutil

    root = tmp_path_factory.mktemp("cfg") / "repo"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "sample_repo", root)
    (root / "pyproject.toml").write_text(CONFIG)
    codecite.build(root)
    return codecite.load(root)


def _top(index: codecite.CodeciteIndex, query: str, **kw: object) -> str:
    ctx = index.query(query, k=5, **kw)
    meta = ctx.nodes[0].node.metadata
    return meta.get("symbol") or " > ".join(meta["heading_path"])


def test_neutral_settings_rank_exactly_like_plain_bm25s(configured: codecite.CodeciteIndex) -> None:
    retriever = configured.retriever(50, settings=NEUTRAL)
    for query in ("phase tensor skew", "load survey line", "StaticShiftAgent run"):
        ctx = retriever.retrieve_context(query)
        plain = configured.bm25.get_scores(query_tokens(query))
        order = [i for i in np.lexsort((np.arange(plain.size), -plain)) if plain[i] > 0][:50]
        assert [n.node.node_id for n in ctx.nodes] == [configured.nodes[i].node_id for i in order]
        assert np.allclose([n.score for n in ctx.nodes], plain[order], rtol=1e-5)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.sampled_from(
            [
                "shift",
                "phase",
                "bread",
                "survey",
                "galvanic",
                "zzz",
                "vertical offset",
                "strike",
                "StaticShiftAgent",
                "the",
            ]
        ),
        min_size=1,
        max_size=5,
    )
)
def test_zero_lexical_nodes_never_appear(
    configured: codecite.CodeciteIndex, words: list[str]
) -> None:
    ctx = configured.retriever(100).retrieve_context(" ".join(words))
    for nws in ctx.nodes:
        b = ctx.breakdown[nws.node.node_id]
        assert b.lexical > 0 or b.propagated_from is not None
        assert nws.score > 0


def test_composition_numbers(configured: codecite.CodeciteIndex) -> None:
    ctx = configured.query("static shift StaticShiftAgent", k=20)
    assert ctx.workflow == "static_shift"
    by_symbol = {
        n.node.metadata.get("symbol") or n.node.metadata["heading_path"][-1]: ctx.breakdown[
            n.node.node_id
        ]
        for n in ctx.nodes
    }
    agent = by_symbol["geokit.agents.static_shift.StaticShiftAgent"]
    assert agent.priority == pytest.approx(1.24) and agent.symbol == pytest.approx(1.5)
    assert agent.workflow == pytest.approx(1.6)  # the class text says "static shift"
    assert agent.name == pytest.approx(4.0)  # the query names the class
    assert agent.composed == pytest.approx(agent.lexical * 1.24 * 1.6 * 1.5 * 4 * 1.03, rel=1e-5)
    recipe = by_symbol["Correct static shift on a survey line"]
    assert (recipe.recipe, recipe.workflow, recipe.priority) == pytest.approx((1.25, 1.6, 1.0))
    assert recipe.composed == pytest.approx(recipe.lexical * 1.25 * 1.6, rel=1e-5)
    exact = configured.with_settings(query_variants=False)
    own_words = exact.query("static shift StaticShiftAgent")
    assert ctx.top_score == pytest.approx(own_words.top_score, rel=1e-6)  # v(q) left out
    assert own_words.top_score == pytest.approx(  # b_name left out too
        max(b.composed / b.name for b in own_words.breakdown.values()), rel=1e-6
    )


def test_expansion_is_added_at_its_weight(configured: codecite.CodeciteIndex) -> None:
    ctx = configured.query("remove the vertical offset of my curves", k=5)
    assert ctx.expansion == ["static", "shift", "galvanic"] and ctx.expansion_source == "configured"
    b = ctx.breakdown[ctx.nodes[0].node.node_id]
    assert b.lexical == pytest.approx(b.bm25_q + 0.35 * b.bm25_e + 0.8 * b.bm25_v, rel=1e-5)
    assert ctx.nodes[0].node.metadata["source_path"].startswith(("geokit/agents", "recipes"))


def test_feedback_demotes_but_never_erases(tmp_path: Path, sample_repo: Path) -> None:
    codecite.build(sample_repo)
    index = codecite.load(sample_repo)
    symbol = "geokit.phase.strike_angle"
    before = index.query("strike direction", k=10)
    assert before.nodes[0].node.metadata["symbol"] == symbol
    for _ in range(10):
        factor = index.feedback(symbol, up=False, query="strike direction")
    assert factor == 0.15
    after = index.query("strike direction", k=10)
    scores = {n.node.metadata.get("symbol"): n.score for n in after.nodes}
    assert scores[symbol] == pytest.approx(before.nodes[0].score * 0.15, rel=1e-5)
    assert after.nodes[0].node.metadata.get("symbol") != symbol
    codecite.build(sample_repo, full=True)  # feedback survives a rebuild
    assert codecite.load(sample_repo).query("strike direction").breakdown[
        before.nodes[0].node.node_id
    ].feedback == pytest.approx(0.15)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("StaticShiftAgent", "geokit.agents.static_shift.StaticShiftAgent"),
        ("estimate_ss_ama", "geokit.agents.static_shift.estimate_ss_ama"),
        ("phase tensor skew", "geokit.phase.skew"),
    ],
)
def test_rank_one_cases(configured: codecite.CodeciteIndex, query: str, expected: str) -> None:
    assert _top(configured, query) == expected


def test_sub_token_finds_the_class_among_code(configured: codecite.CodeciteIndex) -> None:
    assert (
        _top(configured, "agent", kind="python_symbol")
        == "geokit.agents.static_shift.StaticShiftAgent"
    )
    assert (
        _top(configured, "shift agent", kind="python_symbol")
        == "geokit.agents.static_shift.StaticShiftAgent"
    )


def test_filters_apply_before_ranking(configured: codecite.CodeciteIndex) -> None:
    ctx = configured.query("static shift", k=50, kind="python_method")
    assert ctx.nodes and {n.node.metadata["kind"] for n in ctx.nodes} == {"python_method"}
    ctx = configured.query("static shift", k=50, path="docs")
    assert {n.node.metadata["source_path"].split("/")[0] for n in ctx.nodes} == {"docs"}
    ctx = configured.query("static shift", k=50, workflow="static_shift")
    assert {n.node.metadata["workflow"] for n in ctx.nodes} == {"static_shift"}
    only_io = MetadataFilters(filters=[MetadataFilter(key="source_path", value="geokit/io.py")])
    ctx = configured.query("survey", k=50, filters=only_io)
    assert {n.node.metadata["source_path"] for n in ctx.nodes} == {"geokit/io.py"}


def test_a_path_naming_one_file_returns_its_sections_past_the_per_file_cap(
    tmp_path: Path,
) -> None:
    """astropy: ``query "HDUList" -k 10 --path docs/io/fits/index.rst`` gave 2 rows of a
    file with 25 sections (two per doc file, so one page cannot crowd out the rest)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text('"""Lists."""\n')
    (tmp_path / "docs").mkdir()
    page = "".join(f"Part {i}\n======\n\nThe list list of part {i}.\n\n" for i in range(6))
    (tmp_path / "docs" / "lists.rst").write_text(page)
    (tmp_path / "docs" / "other.rst").write_text("Other\n=====\n\nA list.\n")
    codecite.build(tmp_path)
    index = codecite.load(tmp_path)
    assert len(index.query("list", k=10, path="docs/lists.rst").nodes) == 6
    capped = index.query("list", k=10, path="docs")  # a folder: the cap holds
    assert [n.node.metadata["source_path"] for n in capped.nodes].count("docs/lists.rst") == 2


@pytest.mark.parametrize("bad", [{"k": 0}, {"k": -3}, {"kind": "python_class"}])
def test_bad_arguments_are_clear_errors(configured: codecite.CodeciteIndex, bad: dict) -> None:
    with pytest.raises(QueryError):
        configured.query("shift", **bad)


def test_odd_queries_give_clear_results(configured: codecite.CodeciteIndex) -> None:
    with pytest.raises(QueryError, match="empty"):
        configured.query("   ")
    assert configured.query("the and of").nodes == []
    assert configured.query("shift" * 20_000 + " ((*?[").nodes == []
    assert configured.query("静的 \x00\x07 shift", k=10_000).nodes


def test_retrievers_of_one_index_share_its_node_vectors(configured: codecite.CodeciteIndex) -> None:
    first, second = configured.retriever(5), configured.retriever(3, kind="python_symbol")
    assert first._arrays is second._arrays  # made once, not on every query
    neutral = configured.retriever(5, settings=NEUTRAL)
    assert neutral._arrays is not first._arrays
    assert set(neutral._arrays.priority.tolist()) == {1.0}
    assert set(first._arrays.priority.tolist()) != {1.0}


def test_printing_a_context_prints_the_ranked_table(configured: codecite.CodeciteIndex) -> None:
    """``print(ctx)`` printed a 3 KB dump of the dataclass's fields."""
    from codecite.retrievers.render import text_table

    ctx = configured.query("static shift", k=3)
    assert str(ctx) == text_table(ctx) and str(ctx).splitlines()[0].split()[:2] == ["#", "score"]
    assert len(str(ctx).splitlines()) == 1 + len(ctx.nodes)
    assert repr(ctx).startswith("RetrievedContext(query='static shift'")  # the fields still
