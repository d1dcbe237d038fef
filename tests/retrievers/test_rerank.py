"""Rerankers the LlamaIndex way: ``node_postprocessors`` on the retriever and the engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

import codecite
from codecite.retrievers.explain import explain_text


class ShortestFirst(BaseNodePostprocessor):
    """A reranker of our own: the shortest text first, scored 1 / length."""

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        ranked = sorted(nodes, key=lambda n: len(n.node.get_content()))
        return [NodeWithScore(node=n.node, score=1.0 / len(n.node.get_content())) for n in ranked]


@pytest.fixture(scope="module")
def index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


QUERY = "static shift correction"


def test_the_retriever_applies_its_postprocessors_in_order(index) -> None:
    plain = index.as_retriever(8).retrieve(QUERY)
    reranked = index.as_retriever(8, node_postprocessors=[ShortestFirst()]).retrieve(QUERY)
    assert sorted(n.node.node_id for n in plain) == sorted(n.node.node_id for n in reranked)
    lengths = [len(n.node.get_content()) for n in reranked]
    assert lengths == sorted(lengths)
    assert [n.score for n in reranked] == pytest.approx([1.0 / x for x in lengths])
    # a stock postprocessor after ours: a cutoff on its scores drops the long ones
    cutoff = SimilarityPostprocessor(similarity_cutoff=1.0 / 300)
    kept = index.as_retriever(8, node_postprocessors=[ShortestFirst(), cutoff]).retrieve(QUERY)
    assert 0 < len(kept) < len(reranked)
    assert all(len(n.node.get_content()) <= 300 for n in kept)


def test_the_engine_reranks_the_evidence_and_explain_shows_both_scores(index) -> None:
    engine = index.as_query_engine(node_postprocessors=[ShortestFirst()])
    response = engine.query("how do I correct static shift?")
    assert response.metadata["path"] == "offline_answer"
    lengths = [len(n.node.get_content()) for n in response.source_nodes]
    assert lengths == sorted(lengths)
    plain = index.as_query_engine().query("how do I correct static shift?")
    assert plain.metadata["confidence"] == response.metadata["confidence"]  # decided before

    retriever = index.as_retriever(3, node_postprocessors=[ShortestFirst()])
    ctx = retriever.retrieve_explained(QUERY)
    assert [h.node.node_id for h in ctx.nodes] == [
        n.node.node_id for n in retriever.retrieve(QUERY)
    ]
    first = ctx.breakdown[ctx.nodes[0].node.node_id]
    assert first.rerank_score == pytest.approx(ctx.nodes[0].score)
    assert first.final > 0 and first.final != first.rerank_score  # s(c) kept beside it
    assert "reranked by ShortestFirst: " in explain_text(ctx)


def test_the_hybrid_retriever_reranks_after_its_fusion(index) -> None:
    # this index has no vectors: the hybrid retriever degrades to the lexical ranking,
    # and the postprocessors still run on what it returns
    hybrid = index.as_retriever(8, dense=True, node_postprocessors=[ShortestFirst()])
    lengths = [len(n.node.get_content()) for n in hybrid.retrieve(QUERY)]
    assert lengths and lengths == sorted(lengths)
    assert "reranked by ShortestFirst: " in explain_text(hybrid.retrieve_explained(QUERY))
