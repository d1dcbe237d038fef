"""The retriever and parsers inside stock LlamaIndex pipelines."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core import Document, get_response_synthesizer
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.llms.mock import MockLLM
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.tools import RetrieverTool
from llama_index.retrievers.bm25 import BM25Retriever

import codecite
from codecite.node_parsers.docs import DocSectionNodeParser
from codecite.node_parsers.python import PythonNodeParser
from codecite.node_parsers.recipes import RecipeNodeParser
from codecite.retrievers.bm25 import CodeciteRetriever


def test_base_classes() -> None:
    assert issubclass(CodeciteRetriever, BM25Retriever)
    assert issubclass(CodeciteRetriever, BaseRetriever)
    for parser in (PythonNodeParser, DocSectionNodeParser, RecipeNodeParser):
        assert issubclass(parser, NodeParser)


def test_retriever_query_engine(built_sample: Path) -> None:
    retriever = codecite.load(built_sample).retriever(3)
    synth = get_response_synthesizer(llm=MockLLM(max_tokens=8), response_mode="simple_summarize")
    engine = RetrieverQueryEngine(retriever=retriever, response_synthesizer=synth)
    response = engine.query("phase tensor skew")
    assert response.source_nodes[0].node.metadata["symbol"] == "geokit.phase.skew"


def test_query_fusion_retriever_keeps_our_scores_order(built_sample: Path) -> None:
    index = codecite.load(built_sample)
    fusion = QueryFusionRetriever(
        [index.retriever(5), index.retriever(5, kind="doc_section")],
        llm=MockLLM(),
        num_queries=1,
        mode="reciprocal_rerank",
        similarity_top_k=5,
        use_async=False,
    )
    hits = fusion.retrieve("static shift correction")
    assert hits and all(h.node.metadata["source_path"] for h in hits)


def test_retriever_tool(built_sample: Path) -> None:
    tool = RetrieverTool.from_defaults(
        codecite.load(built_sample).retriever(2), name="search_geokit", description="search geokit"
    )
    out = tool.call("load survey")
    assert "load_survey" in str(out.content)


def test_ingestion_pipeline_output_feeds_the_retriever() -> None:
    source = Path(__file__).parents[1] / "fixtures" / "sample_repo" / "geokit" / "phase.py"
    doc = Document(text=source.read_text(), metadata={"source_path": "geokit/phase.py"})
    nodes = IngestionPipeline(transformations=[PythonNodeParser()]).run(documents=[doc])
    symbols = {n.metadata["symbol"] for n in nodes}
    assert symbols >= {"geokit.phase.skew", "geokit.phase.strike_angle"}
    retriever = CodeciteRetriever.from_nodes(nodes, similarity_top_k=2)
    assert retriever.retrieve("skew angle")[0].node.metadata["symbol"] == "geokit.phase.skew"


def test_persist_round_trip(built_sample: Path, tmp_path: Path) -> None:
    retriever = codecite.load(built_sample).retriever(5)
    retriever.persist(str(tmp_path / "r"))
    again = CodeciteRetriever.from_persist_dir(str(tmp_path / "r"))
    q = "static shift StaticShiftAgent"
    assert [(n.node.node_id, round(n.score, 4)) for n in retriever.retrieve(q)] == [
        (n.node.node_id, round(n.score, 4)) for n in again.retrieve(q)
    ]
    from_index_dir = CodeciteRetriever.from_persist_dir(str(built_sample / ".codecite"))
    assert from_index_dir.retrieve(q)[0].node.node_id == retriever.retrieve(q)[0].node.node_id


def test_loaded_nodes_equal_validated_text_nodes_and_share_nothing() -> None:
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    from codecite.node_parsers.schema import HIDDEN_METADATA_KEYS
    from codecite.retrievers.persist import node_from_record

    meta = {
        "kind": "python_symbol",
        "symbol": "pkg.f",
        "source_path": "pkg/a.py",
        "refs": ["x"],
        "public": True,
    }
    a = node_from_record({"id": "a", "text": "def f(): ...", "metadata": dict(meta)})
    b = node_from_record({"id": "b", "text": "def g(): ...", "metadata": dict(meta)})
    hidden = [k for k in HIDDEN_METADATA_KEYS if k in meta] + ["public"]
    validated = TextNode(
        id_="a",
        text="def f(): ...",
        metadata=dict(meta),
        excluded_embed_metadata_keys=hidden,
        excluded_llm_metadata_keys=hidden,
    )
    assert a.model_dump() == validated.model_dump()
    assert a.hash == validated.hash and a.get_content("llm") == validated.get_content("llm")
    assert a.model_fields_set >= {"id_", "text", "metadata"}
    a.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id="doc")
    a.excluded_llm_metadata_keys.append("note")
    a.metadata["note"] = "mine"
    assert b.relationships == {} and "note" not in b.excluded_llm_metadata_keys
    assert "note" not in a.excluded_embed_metadata_keys and "note" not in b.metadata
    assert TextNode.model_validate(a.model_dump()) == a


def test_as_retriever_checks_its_keywords(built_sample: Path) -> None:
    index = codecite.load(built_sample)
    with pytest.raises(TypeError, match="did you mean 'similarity_top_k'") as caught:
        index.as_retriever(simlarity_top_k=3)
    assert "as_retriever() got an unexpected keyword argument" in str(caught.value)
    assert "LexicalScorer" not in str(caught.value)  # the caller's name, not an internal class
    with pytest.raises(TypeError, match="did you mean 'kind'"):
        index.as_retriever(kinds=["python_symbol"])
    hits = index.as_retriever(k=2, kind="python_symbol").retrieve("static shift correction")
    assert len(hits) == 2 and {h.node.metadata["kind"] for h in hits} == {"python_symbol"}
