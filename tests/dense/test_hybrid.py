"""The hybrid retriever on the fixture repository, with an in-process embedding."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from dense_fakes import BowEmbedding
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.query_engine import RetrieverQueryEngine

import codecite
from codecite.dense.retrieval import hybrid_retriever
from codecite.dense.vectors import VECTOR_IDS, VECTORS, load_vectors
from codecite.errors import EmbeddingModelMismatchError
from codecite.retrievers.explain import explain_text
from codecite.retrievers.hybrid import HybridRetriever


@pytest.fixture
def embedded(sample_repo: Path) -> Path:
    codecite.build(sample_repo, embed=BowEmbedding(model_name="bow"))
    return sample_repo


def _bow() -> BowEmbedding:
    return BowEmbedding(model_name="bow")


def test_vectors_on_disk_are_normalised_float32_without_pickle(embedded: Path):
    index_dir = embedded / ".codecite"
    matrix = np.load(index_dir / VECTORS, allow_pickle=False)
    ids = json.loads((index_dir / VECTOR_IDS).read_text())
    nodes = [json.loads(line)["id"] for line in (index_dir / "nodes.jsonl").open()]
    assert matrix.dtype == np.float32 and matrix.shape == (len(nodes), 64)
    assert ids == nodes
    norms = np.linalg.norm(matrix, axis=1)
    np.testing.assert_allclose(norms[norms > 0], 1.0, rtol=1e-5)
    manifest = json.loads((index_dir / "manifest.json").read_text())
    assert manifest["embedding"] == {
        "backend": "custom",
        "model": "bow",
        "dimension": 64,
        "count": len(nodes),
        "api_base": None,
        "text": "node-text",
    }
    assert load_vectors(index_dir).ids == tuple(nodes)


def test_hybrid_is_a_retriever_and_fills_the_breakdown(embedded: Path):
    index = codecite.load(embedded)
    retriever = index.retriever(5, dense=True, embed_model=_bow(), symbol_gate=False)
    assert isinstance(retriever, BaseRetriever) and isinstance(retriever, HybridRetriever)
    retriever.fusion = "rrf"  # the convex default: test_the_default_fusion_is_convex...
    ctx = retriever.retrieve_context("static shift correction of the survey")
    lexical = index.query("static shift correction of the survey", k=50)
    assert ctx.mode == "hybrid" and ctx.degraded is None
    assert ctx.top_score == pytest.approx(lexical.top_score)  # lexical s(c), not RRF
    assert ctx.top_cosine is not None and 0.2 <= ctx.top_cosine <= 1.0
    assert 1 <= len(ctx.nodes) <= 5
    lex_rank = {n.node.node_id: r for r, n in enumerate(lexical.nodes)}
    for nws in ctx.nodes:
        b = ctx.breakdown[nws.node.node_id]
        assert b.final == pytest.approx(nws.score)
        assert b.lexical_rank == lex_rank.get(nws.node.node_id)
        expected = sum(1 / (60 + r) for r in (b.lexical_rank, b.dense_rank) if r is not None)
        assert nws.score == pytest.approx(expected)
        assert (b.dense_rank is None) == (b.dense_cosine is None)
    scores = [n.score for n in ctx.nodes]
    assert scores == sorted(scores, reverse=True)
    assert [
        n.node.node_id for n in retriever.retrieve("static shift correction of the survey")
    ] == [n.node.node_id for n in ctx.nodes]


def test_results_are_new_objects(embedded: Path):
    index = codecite.load(embedded)
    lexical = index.retriever(5)
    before = lexical.retrieve_context("phase tensor skew")
    hybrid = hybrid_retriever(index, lexical, 5, embed_model=_bow(), symbol_gate=False)
    fused = hybrid.retrieve_context("phase tensor skew")
    after = lexical.retrieve_context("phase tensor skew")
    assert [(n.node.node_id, n.score) for n in before.nodes] == [
        (n.node.node_id, n.score) for n in after.nodes
    ]
    assert not {id(n) for n in fused.nodes} & {id(n) for n in after.nodes}


def test_symbol_gate_keeps_the_lexical_ranking(embedded: Path):
    index = codecite.load(embedded)
    query = "what does estimate_ss_ama return"
    lexical = index.query(query, k=5)
    gated = index.retriever(5, dense=True, embed_model=_bow()).retrieve_context(query)
    assert [n.node.node_id for n in gated.nodes] == [n.node.node_id for n in lexical.nodes]
    assert [n.score for n in gated.nodes] == pytest.approx([n.score for n in lexical.nodes])
    assert gated.mode == "hybrid" and gated.top_cosine is not None
    ungated = index.retriever(5, dense=True, embed_model=_bow(), symbol_gate=False)
    fused = ungated.retrieve_context(query).nodes[0].score
    assert 0.0 < fused <= 1.0 and fused != pytest.approx(lexical.nodes[0].score)  # a fused score


def test_filters_apply_to_the_dense_side(embedded: Path):
    index = codecite.load(embedded)
    ctx = index.query(
        "static shift", k=10, dense=True, kind="doc_section", embed_model=_bow(), symbol_gate=False
    )
    assert ctx.nodes
    assert {n.node.metadata["kind"] for n in ctx.nodes} == {"doc_section"}


def test_no_vectors_degrades_visibly(built_sample: Path, caplog: pytest.LogCaptureFixture):
    index = codecite.load(built_sample)
    lexical = index.query("static shift", k=5)
    with caplog.at_level(logging.WARNING, logger="codecite"):
        ctx = index.query("static shift", k=5, dense=True)
    assert ctx.degraded and "codecite build --embed" in ctx.degraded
    assert ctx.mode == "lexical" and ctx.top_cosine is None
    assert [n.node.node_id for n in ctx.nodes] == [n.node.node_id for n in lexical.nodes]
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_missing_vector_file_degrades(embedded: Path):
    index = codecite.load(embedded)
    (embedded / ".codecite" / VECTORS).unlink()
    ctx = hybrid_retriever(index, index.retriever(5), 5, embed_model=_bow()).retrieve_context(
        "static shift"
    )
    assert ctx.degraded and VECTORS in ctx.degraded and ctx.nodes


def test_custom_embedding_without_the_model_degrades(embedded: Path):
    ctx = codecite.load(embedded).query("static shift", dense=True)
    assert ctx.degraded and "embed_model" in ctx.degraded


def test_failing_query_embedding_degrades(embedded: Path):
    class Broken(BowEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            raise ConnectionError("server went away")

    ctx = codecite.load(embedded).query(
        "static shift", dense=True, embed_model=Broken(model_name="bow")
    )
    assert ctx.degraded and "server went away" in ctx.degraded
    assert ctx.nodes and ctx.mode == "lexical"


def test_other_model_or_dimension_is_refused(embedded: Path):
    index = codecite.load(embedded)
    with pytest.raises(EmbeddingModelMismatchError, match=r"'other'.*'bow'"):
        index.retriever(dense=True, embed_model=BowEmbedding(model_name="other"))
    narrow = index.retriever(dense=True, embed_model=BowEmbedding(model_name="bow", dim=32))
    with pytest.raises(EmbeddingModelMismatchError, match=r"dimension 32.*64"):
        narrow.retrieve_context("static shift")


def test_works_inside_a_stock_query_engine(embedded: Path):
    from llama_index.core.llms.mock import MockLLM
    from llama_index.core.response_synthesizers import get_response_synthesizer

    retriever = codecite.load(embedded).retriever(3, dense=True, embed_model=_bow())
    synth = get_response_synthesizer(llm=MockLLM(max_tokens=8), response_mode="simple_summarize")
    engine = RetrieverQueryEngine(retriever=retriever, response_synthesizer=synth)
    response = engine.query("phase tensor skew")
    assert 1 <= len(response.source_nodes) <= 3


def test_fusion_constants_come_from_the_config(sample_repo: Path):
    (sample_repo / "codecite.toml").write_text(
        '[retrieval]\ncosine_floor = 0.3\nrrf_k = 10\nfusion = "rrf"\n'
    )
    codecite.build(sample_repo, embed=_bow())
    retriever = codecite.load(sample_repo).retriever(
        10, dense=True, embed_model=_bow(), symbol_gate=False
    )
    assert (retriever.cosine_floor, retriever.rrf_k) == (0.3, 10)
    ctx = retriever.retrieve_context("static shift correction of the survey")
    both = [
        ctx.breakdown[n.node.node_id]
        for n in ctx.nodes
        if ctx.breakdown[n.node.node_id].dense_rank is not None
        and ctx.breakdown[n.node.node_id].lexical_rank is not None
    ]
    assert both
    for b in both:
        assert b.dense_cosine >= 0.3
        assert b.final == pytest.approx(1 / (10 + b.lexical_rank) + 1 / (10 + b.dense_rank))


def test_the_default_fusion_is_convex_and_follows_its_formula(sample_repo: Path):
    """``F = 0.5 * s / s_max + 0.5 * clip((cos - best + 0.35) / 0.35)`` for a question in
    words (docs/dense.md, "Ranking"); the breakdown keeps both ranks."""
    codecite.build(sample_repo, embed=_bow())
    retriever = codecite.load(sample_repo).retriever(
        10, dense=True, embed_model=_bow(), symbol_gate=False
    )
    assert retriever.fusion == "convex"
    query = "static shift correction of the survey"
    ctx = retriever.retrieve_context(query)
    lexical = retriever.lexical.retrieve_context(query, similarity_top_k=50)
    s = {n.node.node_id: n.score for n in lexical.nodes}
    s_max = max(s.values())
    for n in ctx.nodes:
        b = ctx.breakdown[n.node.node_id]
        lex = s.get(n.node.node_id, 0.0) / s_max if b.lexical_rank is not None else 0.0
        near = (
            min(1.0, max(0.0, (b.dense_cosine - ctx.top_cosine + 0.35) / 0.35))
            if b.dense_rank is not None
            else 0.0
        )
        assert b.final == pytest.approx(0.5 * lex + 0.5 * near)
        assert n.score == pytest.approx(b.final)
    assert [n.score for n in ctx.nodes] == sorted((n.score for n in ctx.nodes), reverse=True)


def test_the_context_says_how_it_was_fused(embedded: Path):
    index = codecite.load(embedded)
    retriever = index.retriever(5, dense=True, embed_model=_bow(), symbol_gate=False)
    words = retriever.retrieve_context("static shift correction of the survey")
    code = retriever.retrieve_context("what does `estimate_ss_ama` return")
    assert words.fusion.startswith("convex: 0.5 x s/s_max") and "in words" in words.fusion
    assert code.fusion.startswith("convex: 0.75 x s/s_max") and "identifiers" in code.fusion
    assert words.to_json()["fusion"] == words.fusion
    assert f"fusion:          {words.fusion}" in explain_text(words)
    gated = index.retriever(5, dense=True, embed_model=_bow()).retrieve_context(
        "what does estimate_ss_ama return"
    )
    assert gated.fusion.startswith("none: the query names a known symbol")


def test_an_unknown_fusion_is_refused(embedded: Path):
    lexical = codecite.load(embedded).retriever(5)
    with pytest.raises(ValueError, match="fusion 'RRF' is not one of convex, rrf"):
        HybridRetriever(lexical, fusion="RRF")
