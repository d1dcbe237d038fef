"""LlamaIndex's names on the index: ``as_retriever``, ``as_chat_engine`` (follow-ups,
sync, streaming, async), and ``streaming=True`` on the offline path too."""

from __future__ import annotations

import asyncio

from llama_index.core.base.llms.types import MessageRole
from llama_index.core.base.response.schema import StreamingResponse
from llama_index.core.chat_engine.types import BaseChatEngine
from llama_index.core.schema import NodeWithScore

from codecite.retrievers.bm25 import CodeciteRetriever


def test_as_retriever_is_the_retriever(geokit_index) -> None:
    retriever = geokit_index.as_retriever(similarity_top_k=3, kind="python_symbol")
    assert isinstance(retriever, CodeciteRetriever)
    nodes = retriever.retrieve("load a survey line")
    same = geokit_index.retriever(3, kind="python_symbol").retrieve("load a survey line")
    assert [n.node.node_id for n in nodes] == [n.node.node_id for n in same]
    assert all(n.node.metadata["kind"] == "python_symbol" for n in nodes)


def test_chat_engine_keeps_follow_ups(geokit_index) -> None:
    chat = geokit_index.as_chat_engine()
    assert isinstance(chat, BaseChatEngine)
    first = chat.chat("how do I load a survey line?")
    second = chat.chat("what about its parameters?")
    assert second.metadata["standalone_query"] == (
        "what are the parameters of geokit.io.load_survey?"
    )
    assert 'sort_by = "lon" (keyword-only)' in second.response
    assert second.source_nodes and all(isinstance(n, NodeWithScore) for n in second.source_nodes)
    assert [m.role for m in chat.chat_history] == [MessageRole.USER, MessageRole.ASSISTANT] * 2
    assert chat.chat_history[1].content == first.response
    chat.reset()
    assert chat.chat_history == []
    alone = chat.chat("what about its parameters?")  # no turn to build on after a reset
    assert alone.metadata["standalone_query"] == "what about its parameters?"


def test_chat_engine_streams_sync_and_async(geokit_index) -> None:
    chat = geokit_index.as_chat_engine()
    streamed = chat.stream_chat("how do I load a survey line?")
    pieces = list(streamed.response_gen)
    assert len(pieces) > 3
    whole = geokit_index.as_chat_engine().chat("how do I load a survey line?").response
    assert "".join(pieces) == whole
    assert chat.chat_history[-1].content == whole.strip()  # the history keeps it stripped

    async def run() -> tuple[str, str]:
        other = geokit_index.as_chat_engine()
        plain = await other.achat("how do I load a survey line?")
        response = await other.astream_chat("what about its parameters?")
        text = "".join([piece async for piece in response.async_response_gen()])
        return plain.response, text

    plain, text = asyncio.run(run())
    assert plain == whole
    assert 'sort_by = "lon" (keyword-only)' in text


def test_streaming_offline_answer_and_clarification(geokit_index) -> None:
    engine = geokit_index.as_query_engine(streaming=True)
    plain = geokit_index.as_query_engine()
    for question in ("how do I load a survey line?", "what is the weather on mars"):
        response = engine.query(question)
        assert isinstance(response, StreamingResponse)
        pieces = list(response.response_gen)
        assert len(pieces) > 1
        expected = plain.query(question)
        assert "".join(pieces) == str(expected)
        assert response.metadata["path"] == expected.metadata["path"]
