"""A real LlamaIndex vector store (Qdrant, local mode, offline) in place of vectors.npy.

Skipped when qdrant-client or llama-index-vector-stores-qdrant is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dense_fakes import BowEmbedding

import codecite
from codecite.dense.retrieval import stored_vectors
from codecite.dense.vectors import VectorStoreDenseIndex, export_to_vector_store, point_id

qdrant_client = pytest.importorskip("qdrant_client")
qdrant_store = pytest.importorskip("llama_index.vector_stores.qdrant")

# local mode says payload indexes (which QdrantVectorStore creates) do nothing there
pytestmark = pytest.mark.filterwarnings(
    "ignore:Payload indexes have no effect in the local Qdrant:UserWarning"
)


@pytest.fixture
def store(tmp_path: Path):
    client = qdrant_client.QdrantClient(path=str(tmp_path / "qdrant"))  # one client per path
    yield qdrant_store.QdrantVectorStore("codecite", client=client)
    client.close()


def test_qdrant_holds_the_vectors_and_ranks_like_the_arrays(sample_repo: Path, store):
    bow = BowEmbedding(model_name="bow")
    codecite.build(sample_repo, embed=bow)
    index = codecite.load(sample_repo)
    vectors = stored_vectors(index)
    assert export_to_vector_store(store, vectors, index.nodes) == len(index.nodes)
    assert export_to_vector_store(store, vectors, index.nodes) == len(index.nodes)  # idempotent
    builtin = index.retriever(5, dense=True, embed_model=bow, symbol_gate=False)
    external = index.retriever(
        5, dense=True, embed_model=bow, symbol_gate=False, vector_store=store
    )
    assert isinstance(external.dense, VectorStoreDenseIndex)
    for query in ("static shift correction", "read a station of the survey", "phase skew"):
        a, b = builtin.retrieve_context(query), external.retrieve_context(query)
        assert b.mode == "hybrid" and b.degraded is None
        assert [n.node.node_id for n in b.nodes] == [n.node.node_id for n in a.nodes]
        assert b.top_cosine == pytest.approx(a.top_cosine, abs=1e-5)


def test_filters_apply_to_store_results(sample_repo: Path, store):
    bow = BowEmbedding(model_name="bow")
    codecite.build(sample_repo, embed=bow)
    index = codecite.load(sample_repo)
    export_to_vector_store(store, stored_vectors(index), index.nodes)
    ctx = index.query(
        "static shift",
        k=10,
        dense=True,
        kind="doc_section",
        embed_model=bow,
        vector_store=store,
        symbol_gate=False,
    )
    assert ctx.nodes and {n.node.metadata["kind"] for n in ctx.nodes} == {"doc_section"}


def test_point_ids_are_stable_uuids():
    assert point_id("a") == point_id("a") != point_id("b")
    assert len(point_id("geokit.io.load_survey")) == 36
