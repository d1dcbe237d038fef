"""Agent tools: shapes, descriptions, and a stock LlamaIndex ReAct agent driving them."""

from __future__ import annotations

import asyncio
import json

import pytest
from answers_support import ScriptedLLM
from llama_index.core.agent.workflow import ReActAgent, ToolCallResult
from llama_index.core.llms.mock import MockLLM
from llama_index.core.tools import FunctionTool, QueryEngineTool

import codecite

SCRIPT = [
    "Thought: I should search the codebase first.\nAction: codecite_search\n"
    'Action Input: {"query": "load survey line", "k": 3}\n',
    "Thought: Now a cited answer.\nAction: codecite_ask\n"
    'Action Input: {"input": "what parameters does load_survey take?"}\n',
    "Thought: Check my script.\nAction: codecite_validate\n"
    'Action Input: {"code": "from geokit.io import load_survey\\n'
    'load_survey(\\"data/L22\\", sort_by=\\"lat\\")\\n"}\n',
    "Thought: I can answer without using any more tools.\n"
    "Answer: Use geokit.io.load_survey(path, sort_by='lat') (geokit/io.py:9-14).\n",
]


def test_as_tools_shapes_and_descriptions(geokit_index) -> None:
    ask, search, validate = codecite.as_tools(geokit_index)
    assert isinstance(ask, QueryEngineTool)
    assert isinstance(search, FunctionTool) and isinstance(validate, FunctionTool)
    assert [t.metadata.name for t in (ask, search, validate)] == [
        "codecite_ask",
        "codecite_search",
        "codecite_validate",
    ]
    assert "geokit" in ask.metadata.description
    assert "clarification" in ask.metadata.description
    assert "never runs" in ask.metadata.description.lower()
    assert "JSON" in search.metadata.description
    assert "code" in validate.metadata.fn_schema_str


def test_search_tool_returns_cited_rows(geokit_index) -> None:
    _, search, _ = codecite.as_tools(geokit_index)
    data = json.loads(search.call(query="strike angle phase tensor", k=2).content)
    assert len(data["results"]) == 2
    code = [r for r in data["results"] if r["citation"].endswith(".py:12-14")]
    assert code and code[0]["citation"] == "geokit/phase.py:12-14"
    assert code[0]["signature"] == "strike_angle(z, degrees=True)"


def test_validate_tool_flags_invented_names(geokit_index) -> None:
    _, _, validate = codecite.as_tools(geokit_index)
    bad = json.loads(validate.call(code="from geokit import static_shift\n").content)
    good = json.loads(validate.call(code="from geokit.io import load_survey\n").content)
    assert bad["ok"] is False and bad["errors"]
    assert good["ok"] is True and good["checked"] == ["geokit.io.load_survey"]


# llama-index-workflows inspects the agent's members, touching pydantic's deprecated
# ``__fields__``; the warning is attributed to ``inspect``, so pyproject's filter misses it.
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning")
def test_stock_react_agent_drives_the_tools(geokit_index) -> None:
    llm = ScriptedLLM(script=SCRIPT)
    agent = ReActAgent(tools=codecite.as_tools(geokit_index), llm=llm, streaming=False)

    async def run() -> tuple[list[ToolCallResult], str]:
        handler = agent.run(user_msg="How do I load line L22 sorted by latitude?")
        calls = [ev async for ev in handler.stream_events() if isinstance(ev, ToolCallResult)]
        return calls, str(await handler)

    calls, final = asyncio.run(run())
    assert [c.tool_name for c in calls] == ["codecite_search", "codecite_ask", "codecite_validate"]
    search, ask, validate = (str(c.tool_output) for c in calls)
    assert '"citation": "docs/usage.md:5-13"' in search
    assert "[1] geokit/io.py:9-14 geokit.io.load_survey (python_symbol)" in ask
    assert json.loads(validate)["ok"] is True
    assert "geokit/io.py:9-14" in final
    assert len(llm.prompts) == 4
    assert "codecite_ask" in llm.prompts[0]  # the tool descriptions reach the model


def test_options_are_checked_by_name_and_empty_questions_refused(geokit_index) -> None:
    """A misspelt option was silently ignored (`token_budgett=5`), `k` was ignored by
    the engine, and an empty question got a clarification instead of an error."""
    from codecite.errors import QueryError

    for make in (geokit_index.as_query_engine, geokit_index.as_chat_engine):
        with pytest.raises(TypeError, match=r"'token_budgett' \(did you mean 'token_budget'\?\)"):
            make(token_budgett=5)
    with pytest.raises(TypeError, match="as_tools\\(\\) got an unexpected keyword argument"):
        codecite.as_tools(geokit_index, totally_bogus=True)
    engine = geokit_index.as_query_engine(k=1)
    assert engine.similarity_top_k == 1
    assert len(engine.query("how do I load a survey line?").source_nodes) == 1
    for ask in (engine.query, geokit_index.as_chat_engine().chat):
        with pytest.raises(QueryError, match="the question is empty"):
            ask("   ")
    search = codecite.as_tools(geokit_index)[1]
    for bad, message in (({"query": " "}, "query is empty"), ({"query": "x", "k": 0}, "k must")):
        assert message in json.loads(search.call(**bad).content)["error"]
    assert json.loads(search.call(query="load survey", k=2).content)["results"]


def test_an_llm_that_is_no_llm_is_refused_when_the_engine_is_made(geokit_index) -> None:
    """``llm="openai:gpt-4o"`` and ``llm=42`` were taken, and the first question failed
    with ``'str' object has no attribute 'complete'``; a negative budget was taken too."""
    from codecite.errors import UsageError

    for make in (geokit_index.as_query_engine, geokit_index.as_chat_engine):
        with pytest.raises(ValueError, match="llm must be a LlamaIndex LLM"):
            make(llm=42)
        with pytest.raises(UsageError, match="is not PROVIDER:MODEL"):
            make(llm="gpt-4o")
    with pytest.raises(ValueError, match="llm must be a LlamaIndex LLM"):
        codecite.as_tools(geokit_index, llm=object())
    for bad in ({"token_budget": 0}, {"max_evidence": -1}, {"similarity_top_k": 0}):
        with pytest.raises(ValueError, match="greater than 0"):
            geokit_index.as_query_engine(**bad)
    llm = MockLLM(max_tokens=8)
    assert geokit_index.as_query_engine(llm=llm).llm is llm
