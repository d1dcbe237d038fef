"""A stock LlamaIndex ReAct agent consuming `codecite mcp` through llama-index-tools-mcp
(a scripted LLM, so it runs offline): the tools arrive with their schemas and answer."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
tools_mcp = pytest.importorskip("llama_index.tools.mcp")
sys.path.insert(0, str(Path(__file__).parents[1] / "answers"))
from answers_support import ScriptedLLM  # noqa: E402
from llama_index.core.agent.workflow import ReActAgent, ToolCallResult  # noqa: E402

SCRIPT = [
    "Thought: find where surveys are loaded.\nAction: search\n"
    'Action Input: {"query": "load survey line", "k": 3}\n',
    "Thought: the exact signature.\nAction: lookup_symbol\n"
    'Action Input: {"name": "geokit.load_survey"}\n',
    "Thought: check my script.\nAction: validate_code\n"
    'Action Input: {"code": "from geokit import load_survey\\n'
    'load_survey(\\"data/L22\\", sort=\\"lat\\")\\n"}\n',
    "Thought: I can answer without using any more tools.\n"
    "Answer: call geokit.load_survey(path, sort_by='lat') (geokit/io.py:9-14).\n",
]


# llama-index-workflows inspects the agent's members, touching pydantic's deprecated
# ``__fields__``; the warning is attributed to ``inspect``, so pyproject's filter misses it.
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning")
def test_a_llamaindex_agent_uses_the_server_tools(sample_repo: Path) -> None:
    build = [sys.executable, "-m", "codecite", "build", "-C", str(sample_repo)]
    subprocess.run(build, check=True, capture_output=True)
    client = tools_mcp.BasicMCPClient(
        sys.executable,
        args=["-m", "codecite", "mcp", "-C", str(sample_repo)],
        env=dict(os.environ),
        timeout=600,  # a hang guard only: a busy machine may start the server slowly
    )
    llm = ScriptedLLM(script=SCRIPT)

    async def run() -> tuple[list[str], list[ToolCallResult], str]:
        tools = await tools_mcp.McpToolSpec(client=client).to_tool_list_async()
        agent = ReActAgent(tools=tools, llm=llm, streaming=False)
        handler = agent.run(user_msg="How do I load line L22 sorted by latitude?")
        calls = [ev async for ev in handler.stream_events() if isinstance(ev, ToolCallResult)]
        return [t.metadata.name for t in tools], calls, str(await handler)

    names, calls, final = asyncio.run(run())
    assert sorted(names) == sorted(
        ["search", "ask", "lookup_symbol", "read", "validate_code", "index_status"]
    )
    assert [c.tool_name for c in calls] == ["search", "lookup_symbol", "validate_code"]
    outputs = [c.tool_output.raw_output for c in calls]
    texts = [json.loads(o.content[0].text) for o in outputs]
    assert texts[0]["results"][0]["citation"]
    assert texts[1]["symbol"] == "geokit.io.load_survey"
    assert texts[2]["ok"] is False and "sort" in texts[2]["errors"][0]
    assert "lookup_symbol" in llm.prompts[0]  # the tool descriptions reach the model
    assert "geokit/io.py:9-14" in final
