"""``index.as_chat_engine()``: the answer pass as a LlamaIndex chat engine, with follow-ups.

Each message goes through :class:`codecite.answers.answerer.Answerer` with one
:class:`~codecite.answers.session.Session`, so "and its parameters?" is made
standalone from the turns before (``followups``), and the reply is the cited
answer or the clarification request. ``chat_history`` holds the user and
assistant messages; ``reset()`` forgets both. Streaming yields the reply as it
is written (an LLM's deltas, or the offline text in pieces).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Generator
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.chat_engine.types import (
    AgentChatResponse,
    BaseChatEngine,
    StreamingAgentChatResponse,
)

from codecite.answers.answerer import Answer, Answerer, _in_pieces
from codecite.answers.session import Session
from codecite.retrievers.results import to_node_with_score


class _History:
    """What ``StreamingAgentChatResponse`` writes the finished reply into."""

    def __init__(self, messages: list[ChatMessage]) -> None:
        self.messages = messages

    def put(self, message: ChatMessage) -> None:
        self.messages.append(message)

    async def aput(self, message: ChatMessage) -> None:
        self.messages.append(message)


class CodeciteChatEngine(BaseChatEngine):
    """Chat over a codecite index: cited answers or clarifications, follow-ups kept.

    Example:
        >>> chat = codecite.load(".").as_chat_engine()          # doctest: +SKIP
        >>> chat.chat("how do I load a survey line?")            # doctest: +SKIP
        >>> chat.chat("and its parameters?")                     # doctest: +SKIP
    """

    def __init__(self, index: Any, **answer_options: Any) -> None:
        from codecite.answers.engine import ENGINE_OPTIONS, engine_options
        from codecite.answers.llms import checked_llm

        self._index = index  # the chat keeps its own session
        allowed = ENGINE_OPTIONS - {"session"}
        self._options = engine_options("as_chat_engine", answer_options, allowed)
        if "llm" in self._options:  # refused now, not at the first message
            self._options["llm"] = checked_llm(self._options["llm"])
        self._session = Session()
        self._history: list[ChatMessage] = []
        self._lock = threading.Lock()  # one message at a time: turns build on each other
        self._writers: list[threading.Thread] = []  # streamed replies still being recorded

    def _answer(self, message: str, chat_history: list[ChatMessage] | None) -> Answer:
        if chat_history is not None:
            self._history[:] = list(chat_history)
        self._history.append(ChatMessage(role=MessageRole.USER, content=message))
        answerer = Answerer(
            index=self._index, session=self._session, source=to_node_with_score, **self._options
        )
        return answerer.query(message)

    def chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> AgentChatResponse:
        with self._lock:
            answer = self._answer(message, chat_history)
            text = answer.text if answer.stream is None else "".join(answer.stream)
            self._history.append(ChatMessage(role=MessageRole.ASSISTANT, content=text))
        return AgentChatResponse(
            response=text, source_nodes=answer.sources, metadata=answer.metadata
        )

    def stream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        with self._lock:
            answer = self._answer(message, chat_history)
        response = StreamingAgentChatResponse(
            chat_stream=_chat_stream(_pieces(answer)), source_nodes=answer.sources
        )
        thread = threading.Thread(
            target=response.write_response_to_history, args=(_History(self._history),)
        )
        response.write_response_to_history_thread = thread
        self._writers.append(thread)
        thread.start()
        return response

    async def achat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> AgentChatResponse:
        return await asyncio.to_thread(self.chat, message, chat_history)

    async def astream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        answer = await asyncio.to_thread(self._locked_answer, message, chat_history)
        response = StreamingAgentChatResponse(
            achat_stream=_achat_stream(_pieces(answer)), source_nodes=answer.sources
        )
        response.awrite_response_to_history_task = asyncio.create_task(
            response.awrite_response_to_history(_History(self._history))
        )
        return response

    def _locked_answer(self, message: str, chat_history: list[ChatMessage] | None) -> Answer:
        with self._lock:
            return self._answer(message, chat_history)

    def reset(self) -> None:
        with self._lock:
            self._session = Session()
            self._history.clear()

    @property
    def chat_history(self) -> list[ChatMessage]:
        """The messages so far; a streamed reply counts once its stream was read to the end."""
        while self._writers:
            self._writers.pop().join()
        return list(self._history)


def _pieces(answer: Answer) -> Generator[str, None, None]:
    if answer.stream is not None:
        yield from answer.stream
    else:
        yield from _in_pieces(answer.text)


def _chat_stream(pieces: Generator[str, None, None]) -> Generator[ChatResponse, None, None]:
    text = ""
    for piece in pieces:
        text += piece
        yield ChatResponse(
            message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=piece
        )


async def _achat_stream(
    pieces: Generator[str, None, None],
) -> AsyncGenerator[ChatResponse, None]:
    for response in _chat_stream(pieces):
        yield response
