"""Word-form variants of query words (``v(q)``) on the fixture repository."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from llama_index.core.schema import TextNode

import codecite
from codecite.retrievers.bm25 import CodeciteRetriever, variant_scores
from codecite.retrievers.evidence import coverage
from codecite.retrievers.explain import explain_text
from codecite.retrievers.lexical import bm25_scores
from codecite.retrievers.variants import variant_groups, variant_table


@pytest.fixture(scope="module")
def index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


def test_table_groups_the_forms_the_corpus_holds(index: codecite.CodeciteIndex) -> None:
    table = variant_table(index.bm25.vocab_dict)
    groups = variant_groups(["correct", "estimate_ss_ama", "curves"], table)
    assert groups[0] == ("corrected", "correction", "corrects")
    assert all("_" not in t for g in groups for t in g)  # identifiers never vary
    assert all(t in index.bm25.vocab_dict for g in groups for t in g)


def test_code_that_says_correction_matches_correct_and_docs_take_no_variants(
    index: codecite.CodeciteIndex,
) -> None:
    ctx = index.query("how do I correct static shift", k=20)
    assert {"corrected", "correction"} <= set(ctx.variants)
    by_label = {
        n.node.metadata.get("symbol") or n.node.metadata.get("heading"): ctx.breakdown[
            n.node.node_id
        ]
        for n in ctx.nodes
    }
    agent = by_label["geokit.agents.static_shift.StaticShiftAgent"]  # "the correction factor"
    assert agent.bm25_v > 0
    assert agent.lexical == pytest.approx(
        agent.bm25_q + 0.35 * agent.bm25_e + 0.8 * agent.bm25_v, rel=1e-5
    )
    checks = next(n for n in ctx.nodes if n.node.metadata.get("heading") == "Checks")
    assert "corrected curves" in checks.node.get_content()
    assert by_label["Checks"].bm25_v == 0  # variants reach toward code; prose is the user's
    assert "variants v(q):   corrected correction" in explain_text(ctx)
    plain = index.with_settings(query_variants=False).query("how do I correct static shift")
    assert plain.variants == [] and all(b.bm25_v == 0 for b in plain.breakdown.values())


def test_forms_of_one_word_count_once(index: codecite.CodeciteIndex) -> None:
    groups = [("corrected", "correction", "corrects"), ("shifts",)]
    singles = [[bm25_scores(index.bm25, [t]) for t in g] for g in groups]
    expected = sum(np.max(s, axis=0) for s in singles)
    assert np.allclose(variant_scores(index.bm25, groups), expected)


def test_a_node_repeating_forms_does_not_outscore_its_words() -> None:
    code = {"kind": "python_symbol"}
    nodes = [
        TextNode(text="rank ranked ranks of a table", metadata=code),
        TextNode(text="ranked rows", metadata=code),
        TextNode(text="unrelated words here"),
        TextNode(text="more words"),
    ]
    retriever = CodeciteRetriever.from_nodes(nodes)
    ctx = retriever.retrieve_context("ranking")
    assert ctx.variants == ["rank", "ranked", "ranks"]
    b = ctx.breakdown[nodes[0].node_id]
    singles = [float(bm25_scores(retriever.bm25, [t])[0]) for t in ctx.variants]
    assert b.bm25_v == pytest.approx(max(singles)) and b.bm25_v < sum(singles) / 2


def test_confidence_judges_the_users_own_words(index: codecite.CodeciteIndex) -> None:
    query = "how do I correct static shift"
    on, off = index.with_settings(query_variants=True), index.with_settings(query_variants=False)
    ctx_on, ctx_off = on.query(query, k=10), off.query(query, k=10)
    assert ctx_on.top_score == pytest.approx(ctx_off.top_score)
    assert coverage(on.retriever(), ctx_on) == pytest.approx(coverage(off.retriever(), ctx_off))
