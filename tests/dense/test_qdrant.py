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


def test_a_rebuild_then_export_upserts_and_deletes_by_node_id(sample_repo: Path, store):
    bow = BowEmbedding(model_name="bow")
    codecite.build(sample_repo, embed=bow)
    first = codecite.load(sample_repo)
    export_to_vector_store(store, stored_vectors(first), first.nodes)
    from llama_index.core.schema import TextNode

    mine = TextNode(id_=point_id("the user's own"), text="mine", embedding=[0.0] * 63 + [1.0])
    store.add([mine])  # a point the user put in the same collection
    io = sample_repo / "geokit" / "io.py"
    text = io.read_text(encoding="utf-8")
    start = text.index("def load_survey(")
    end = text.index("\n\n\n", start) + 3 if "\n\n\n" in text[start:] else len(text)
    edited = text[:start] + text[end:]  # load_survey removed ...
    edited += '\n\ndef load_borehole(path):\n    """Read a borehole log of resistivity."""\n'
    io.write_text(edited, encoding="utf-8")  # ... load_borehole added
    codecite.build(sample_repo, embed=bow)
    second = codecite.load(sample_repo)
    export_to_vector_store(store, stored_vectors(second), second.nodes)

    held = {n.metadata.get("codecite_id", n.node_id) for n in store.get_nodes()}
    assert held == {n.node_id for n in second.nodes} | {mine.node_id}  # the user's stays
    symbols = {n.metadata.get("symbol") for n in second.nodes}
    assert "geokit.io.load_borehole" in symbols and "geokit.io.load_survey" not in symbols
    hybrid = second.retriever(3, dense=True, embed_model=bow, symbol_gate=False, vector_store=store)
    ctx = hybrid.retrieve_context("read a borehole log of resistivity")
    assert ctx.mode == "hybrid" and ctx.degraded is None
    assert ctx.nodes[0].node.metadata["symbol"] == "geokit.io.load_borehole"


def test_the_store_is_queried_with_the_model_that_made_the_vectors(sample_repo: Path, store):
    from codecite.errors import EmbeddingModelMismatchError

    codecite.build(sample_repo, embed=BowEmbedding(model_name="bow"))
    index = codecite.load(sample_repo)
    export_to_vector_store(store, stored_vectors(index), index.nodes)
    other = BowEmbedding(model_name="another-model")
    with pytest.raises(EmbeddingModelMismatchError, match="another-model"):
        index.retriever(3, dense=True, embed_model=other, vector_store=store)
