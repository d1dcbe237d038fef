"""Agent tools: shapes, descriptions, and a stock LlamaIndex ReAct agent driving them."""

from __future__ import annotations

import asyncio
import json

import pytest
from answers_support import ScriptedLLM
from llama_index.core.agent.workflow import ReActAgent, ToolCallResult
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
