"""`codecite mcp` under a real MCP client: the SDK's stdio client talks to the server as
a subprocess (initialise, list tools, one call of each, bad calls, concurrent calls, a
rebuild mid-session)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import codecite

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TOOLS = {"search", "ask", "lookup_symbol", "read", "validate_code", "index_status"}


def build(repo: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "codecite", "build", "-C", str(repo)],
        check=True,
        capture_output=True,
    )


def session_run(repo: Path, script: Any) -> Any:
    """Run ``script(session)`` against `codecite mcp -C repo` over stdio."""

    async def main() -> Any:
        params = StdioServerParameters(  # the test's environment: its key and cache folder
            command=sys.executable,
            args=["-m", "codecite", "mcp", "-C", str(repo)],
            env=dict(os.environ),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)

    return anyio.run(main)


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def error(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result
    return str(result.content[0].text)


@pytest.fixture
def repo(sample_repo: Path) -> Path:
    build(sample_repo)
    return sample_repo


def test_a_client_lists_the_tools_and_calls_each(repo: Path) -> None:
    async def script(s: ClientSession) -> dict[str, Any]:
        listed = await s.list_tools()
        out: dict[str, Any] = {"tools": {t.name: t for t in listed.tools}}
        out["search"] = await call(s, "search", query="how do I correct static shift", k=3)
        first = out["search"]["results"][0]
        out["read"] = await call(s, "read", ref=first["id"])
        out["read_citation"] = await call(s, "read", ref="geokit/io.py:9-10", context_lines=1)
        out["lookup"] = await call(s, "lookup_symbol", name="geokit.load_survey")
        out["lookup_missing"] = await call(s, "lookup_symbol", name="geokit.io.load_surveys")
        out["ask"] = await call(s, "ask", question="how do I correct static shift")
        out["validate"] = await call(s, "validate_code", code="from geokit import static_shift\n")
        out["status"] = await call(s, "index_status")
        return out

    out = session_run(repo, script)
    assert set(out["tools"]) == TOOLS
    for tool in out["tools"].values():
        assert len(tool.description) > 80 and tool.input_schema["type"] == "object"
    assert set(out["tools"]["search"].input_schema["required"]) == {"query"}

    results = out["search"]["results"]
    assert len(results) == 3
    assert all(r["id"] and ":" in r["citation"] and "why" in r for r in results)
    first = results[0]
    lines = (repo / first["source_path"]).read_text(encoding="utf-8").splitlines()
    assert out["read"]["text"] == "\n".join(lines[first["start_line"] - 1 : first["end_line"]])
    io_lines = (repo / "geokit" / "io.py").read_text(encoding="utf-8").splitlines()
    assert out["read_citation"]["text"] == "\n".join(io_lines[7:11])
    assert out["read"]["changed_since_build"] is False

    lookup = out["lookup"]
    assert lookup["found"] and lookup["symbol"] == "geokit.io.load_survey"
    assert lookup["signature"].startswith("load_survey(") and lookup["citation"].startswith(
        "geokit/io.py:"
    )
    assert [p["name"] for p in lookup["params"]][:1] == ["path"]
    assert out["lookup_missing"] == {
        "name": "geokit.io.load_surveys",
        "found": False,
        "did_you_mean": ["geokit.io.load_survey"],
    }

    assert out["ask"]["path"] == "offline_answer" and out["ask"]["citations"]
    assert "[1]" in out["ask"]["answer"]
    assert not out["validate"]["ok"]
    assert "static_shift" in out["validate"]["errors"][0]
    status = out["status"]
    assert status["nodes"] > 20 and status["stale"] is False and status["loads"] == 1
    assert status["rebuild"] == f"codecite build -C {repo}"


def test_bad_calls_are_errors_a_model_can_act_on_and_the_server_goes_on(repo: Path) -> None:
    async def script(s: ClientSession) -> dict[str, Any]:
        return {
            "empty": await error(s, "search", query="  "),
            "k": await error(s, "search", query="shift", k=500),
            "k_true": await error(s, "search", query="shift", k=True),
            "k_text": await error(s, "search", query="shift", k="3"),
            "lines_text": await error(s, "read", ref="geokit/io.py:1-2", context_lines="2"),
            "nul": await error(s, "search", query="\u0000"),
            "kind": await error(s, "search", query="shift", kind="nonsense"),
            "outside": await error(s, "read", ref="../../etc/passwd:1-3"),
            "unknown_ref": await error(s, "read", ref="not a ref"),
            "past_end": await error(s, "read", ref="geokit/io.py:500-600"),
            "question": await error(s, "ask", question=""),
            "after": await call(s, "search", query="load a survey line", k=1),
        }

    out = session_run(repo, script)
    assert "query is empty" in out["empty"]
    assert "k must be an integer from 1 to 50" in out["k"]
    assert "k must be an integer from 1 to 50, got True" in out["k_true"]  # not run with k = 1
    assert "k must be an integer from 1 to 50, got '3'" in out["k_text"]  # one line, not pydantic's
    assert "context_lines must be 0 to" in out["lines_text"]
    assert "query is empty" in out["nul"]
    assert "unknown kind 'nonsense'" in out["kind"]
    assert "is not a file of the indexed corpus" in out["outside"]
    assert "neither a node id nor a citation" in out["unknown_ref"]
    lines = len((repo / "geokit" / "io.py").read_text(encoding="utf-8").splitlines())
    assert f"'geokit/io.py' has {lines} lines; lines 500-600 are past its end" in out["past_end"]
    assert "question is empty" in out["question"]
    assert out["after"]["results"], "the server stopped answering after bad calls"


def test_concurrent_calls_and_a_rebuild_mid_session(repo: Path) -> None:
    async def script(s: ClientSession) -> dict[str, Any]:
        answers: list[dict[str, Any]] = []

        async def one(q: str) -> None:
            answers.append(await call(s, "search", query=q, k=2))

        async with anyio.create_task_group() as tg:
            for q in ["static shift", "load survey", "phase tensor", "recipe", "agents"] * 2:
                tg.start_soon(one, q)
        before = await call(s, "lookup_symbol", name="geokit.io.load_borehole")
        target = repo / "geokit" / "io.py"
        target.write_text(
            target.read_text(encoding="utf-8")
            + '\n\ndef load_borehole(path):\n    """Read a borehole log file."""\n',
            encoding="utf-8",
        )
        edited = await call(s, "read", ref="geokit/io.py:1-2")  # before the rebuild
        build(repo)  # a build replaces the index while the server runs
        after = await call(s, "lookup_symbol", name="geokit.io.load_borehole")
        status = await call(s, "index_status")
        fresh = await call(s, "read", ref="geokit/io.py:1-2")
        return {
            "answers": answers,
            "before": before,
            "after": after,
            "status": status,
            "edited": edited,
            "fresh": fresh,
        }

    out = session_run(repo, script)
    assert len(out["answers"]) == 10 and all(a["results"] for a in out["answers"])
    assert out["before"]["found"] is False
    assert out["after"]["found"] and out["after"]["summary"] == "Read a borehole log file."
    assert out["status"]["loads"] == 2 and out["status"]["stale"] is False
    assert (out["edited"]["changed_since_build"], out["fresh"]["changed_since_build"]) == (
        True,
        False,
    )


def test_streamable_http_on_localhost(repo: Path) -> None:
    import socket

    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:  # a free port, released for the server
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "codecite", "mcp", "-C", str(repo), "--http", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )

    async def script() -> tuple[list[str], dict[str, Any]]:
        while server.poll() is None:  # until it listens, however long start-up takes
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                await anyio.sleep(0.05)
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        url = f"http://127.0.0.1:{port}/mcp"
        async with streamable_http_client(url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                hello = await session.initialize()
                listed = await session.list_tools()
                found = await call(session, "search", query="load a survey line", k=2)
                return [t.name for t in listed.tools], found, hello.server_info.version

    try:
        names, found, version = anyio.run(script)
    finally:
        server.terminate()
        try:
            out, _ = server.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # it would not stop: end it
            server.kill()
            out, _ = server.communicate()
    assert set(names) == TOOLS
    assert found["results"][0]["citation"]
    assert version == codecite.__version__
    assert b"POST /mcp" not in out  # stdout carries no request log


def test_an_index_held_by_a_call_survives_a_rebuild(repo: Path) -> None:
    """What a call in flight holds: the old index answers in full after the swap."""
    from codecite.server.resident import ResidentIndex
    from codecite.server.tools import lookup_symbol, validate_code

    resident = ResidentIndex(repo)
    held = resident.current()
    (repo / "geokit" / "extra.py").write_text('def fresh():\n    """New."""\n', encoding="utf-8")
    build(repo)
    old_view = held.query("load a survey line", k=3)  # the call goes on with what it holds
    assert old_view.nodes and held.symbol_table.symbols
    assert "geokit.extra.fresh" not in held.symbol_table.symbols
    assert lookup_symbol(resident, "geokit.extra.fresh")["found"]  # the next call: new index
    assert validate_code(resident, "from geokit.extra import fresh\n")["ok"]
    assert resident.loads == 2


def test_lookup_symbol_follows_an_alias_to_its_definition(tmp_path: Path) -> None:
    """attrs' ``ib = attr = attrib``: an agent asking for ``pkg.ib`` gets ``attrib``'s
    signature and summary, not a one-line assignment with no parameters."""
    from codecite.server.resident import ResidentIndex
    from codecite.server.tools import lookup_symbol

    (tmp_path / "fieldkit").mkdir()
    (tmp_path / "fieldkit" / "__init__.py").write_text(
        'def attrib(default=None, *, validator=None):\n    """Make a field."""\n\n\n'
        "ib = attr = attrib\nLIMIT = 3\n"
    )
    build(tmp_path)
    resident = ResidentIndex(tmp_path)
    found = lookup_symbol(resident, "fieldkit.ib")
    assert (found["symbol"], found["alias"]) == ("fieldkit.attrib", "fieldkit.ib")
    assert [p["name"] for p in found["params"]] == ["default", "validator"]
    assert found["summary"] == "Make a field."
    plain = lookup_symbol(resident, "fieldkit.LIMIT")  # a value, not an alias
    assert plain["symbol"] == "fieldkit.LIMIT" and "alias" not in plain


def test_lookup_symbol_never_finds_a_member_the_class_lacks(tmp_path: Path) -> None:
    """``pkg.Dataset.sell``: not found (the class stood in for it), with the class's real
    members as suggestions under the name the agent wrote, not the class as a match."""
    from codecite.server.resident import ResidentIndex
    from codecite.server.tools import lookup_symbol

    (tmp_path / "gridkit" / "core").mkdir(parents=True)
    (tmp_path / "gridkit" / "core" / "dataset.py").write_text(
        'class Dataset:\n    """Labelled arrays."""\n\n'
        '    def sel(self, **where):\n        """Select by label."""\n\n'
        '    def isel(self, **where):\n        """Select by position."""\n'
    )
    (tmp_path / "gridkit" / "__init__.py").write_text("from .core.dataset import Dataset\n")
    build(tmp_path)
    resident = ResidentIndex(tmp_path)
    assert lookup_symbol(resident, "gridkit.Dataset.sel")["symbol"] == (
        "gridkit.core.dataset.Dataset.sel"
    )
    for wrong in ("gridkit.Dataset.sell", "gridkit.Dataset.sel.foo", "Dataset.to_parquet"):
        missing = lookup_symbol(resident, wrong)
        assert missing["found"] is False and "symbol" not in missing, wrong
    assert lookup_symbol(resident, "gridkit.Dataset.sell")["did_you_mean"][0] == (
        "gridkit.Dataset.sel"
    )


def test_lookup_symbol_suggests_inherited_members_and_only_real_names(tmp_path: Path) -> None:
    """statsmodels' ``OLS.fti`` had no suggestion (``fit`` is ``RegressionModel``'s);
    pydantic's ``pydantic.Feild`` suggested ``pydantic.rebuild``, a name nothing binds."""
    from codecite.server.resident import ResidentIndex
    from codecite.server.tools import lookup_symbol

    (tmp_path / "fitkit" / "core").mkdir(parents=True)
    (tmp_path / "fitkit" / "core" / "models.py").write_text(
        'class RegressionModel:\n    def fit(self):\n        """Fit the model."""\n\n\n'
        'class OLS(RegressionModel):\n    """Ordinary least squares."""\n\n\n'
        'def Field(default=None):\n    """A field."""\n\n\n'
        'def rebuild():\n    """Rebuild the schema."""\n'
    )
    (tmp_path / "fitkit" / "__init__.py").write_text("from .core.models import OLS, Field\n")
    build(tmp_path)
    resident = ResidentIndex(tmp_path)
    assert lookup_symbol(resident, "fitkit.OLS.fti")["did_you_mean"][0] == "fitkit.OLS.fit"
    near = lookup_symbol(resident, "fitkit.Feild")["did_you_mean"]
    assert near[0] == "fitkit.Field" and "fitkit.rebuild" not in near


def _served(root: Path, files: dict[str, str | bytes]) -> Any:
    """A repository of ``files`` (path -> source), built, as the MCP server holds it."""
    from codecite.server.resident import ResidentIndex

    for rel, source in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(source if isinstance(source, bytes) else source.encode())
    build(root)
    return ResidentIndex(root)


def test_lookup_symbol_suggests_through_star_imports_and_for_a_bare_name(tmp_path: Path) -> None:
    """sunpy's ``sunpy.time.parse_tme`` (``sunpy/time/__init__.py`` star-imports the module
    defining ``parse_time``) and a bare ``train_test_splt`` had no suggestion at all."""
    from codecite.server.tools import lookup_symbol

    resident = _served(
        tmp_path,
        {
            "timekit/_impl/__init__.py": "",
            "timekit/_impl/parse.py": 'def parse_time(text):\n    """Parse a time."""\n\n\n'
            'def is_time(value):\n    """Is it a time?"""\n',
            "timekit/__init__.py": "from timekit._impl.parse import *\n",
            "timekit/clock.py": '"""Clocks."""\n\nfrom timekit._impl.parse import parse_time\n',
        },
    )
    assert lookup_symbol(resident, "timekit.parse_tme")["did_you_mean"] == [
        "timekit.parse_time",
        "timekit.is_time",
    ]
    # by its public name, not the private definition nor a module merely importing it
    assert lookup_symbol(resident, "parse_tme")["did_you_mean"][0] == "timekit.parse_time"
    index = codecite.load(tmp_path)
    assert (
        "did you mean `parse_time`"
        in index.ask("how to call timekit.parse_tme").metadata["absent_names"][0]
    )


def test_lookup_symbol_says_when_a_name_comes_from_outside_the_index(tmp_path: Path) -> None:
    """fastapi's ``fastapi.Request`` (Starlette's) and ``FastAPI.add_middleware`` (inherited
    from Starlette) were plain ``found: false``, as if they did not exist."""
    from codecite.server.tools import lookup_symbol

    resident = _served(
        tmp_path,
        {
            "webkit/app.py": "from starlette.applications import Starlette\n\n\n"
            'class App(Starlette):\n    """An app."""\n\n'
            '    def get(self, path):\n        """Route a GET."""\n',
            "webkit/__init__.py": "from starlette.requests import Request\nfrom .app import App\n",
        },
    )
    request = lookup_symbol(resident, "webkit.Request")
    assert request["found"] is False and request["did_you_mean"] == []
    assert request["outside_index"] == "starlette.requests.Request"
    inherited = lookup_symbol(resident, "webkit.App.add_middleware")
    assert "outside_index" not in inherited
    assert inherited["note"] == (
        "`webkit.App` has a base class outside the index, which may define `add_middleware`"
    )
    typo = lookup_symbol(resident, "webkit.Requst")  # a typo is still one
    assert "note" not in typo and typo["did_you_mean"][0] == "webkit.Request"


def test_lookup_symbol_reads_members_through_a_module_level_instance(tmp_path: Path) -> None:
    """sunpy's ``Fido = UnifiedDownloaderFactory(...)``: ``sunpy.net.Fido.fetch`` was
    ``found: false`` (suggesting other clients' ``fetch``), ``sunpy.map.Map`` had no summary."""
    from codecite.server.tools import lookup_symbol

    resident = _served(
        tmp_path,
        {
            "sunkit/base.py": 'class Downloader:\n    """Downloads."""\n\n'
            '    def fetch(self, *results):\n        """Download the records."""\n',
            "sunkit/factory.py": "from .base import Downloader\n\n\n"
            'class Factory(Downloader):\n    """A unified search and download tool."""\n\n'
            "    ROW_LIMIT: int = 50\n\n"
            '    def search(self, *query):\n        """Search every client."""\n\n'
            "    def close(self):\n        pass\n\n\n"
            "Fido = Factory(registry={})\n",
            "sunkit/__init__.py": "from .factory import Fido\n",
        },
    )
    fetch = lookup_symbol(resident, "sunkit.Fido.fetch")  # inherited by the class
    assert fetch["found"] and fetch["symbol"] == "sunkit.base.Downloader.fetch"
    assert fetch["instance_of"] == "sunkit.factory.Factory"
    fido = lookup_symbol(resident, "sunkit.Fido")
    assert (
        fido["symbol"] == "sunkit.factory.Fido" and fido["instance_of"] == "sunkit.factory.Factory"
    )
    assert fido["summary"] == "A unified search and download tool."
    assert lookup_symbol(resident, "sunkit.Fido.serch")["did_you_mean"][0] == "sunkit.Fido.search"
    # astroquery: a member without a docstring has no summary, not its holder's class's
    # (`Observations.login` read "MAST Observations query class.")
    assert lookup_symbol(resident, "sunkit.Fido.close")["summary"] == ""
    # an attribute of what the instance holds (`Vizier.ROW_LIMIT`) was found: false
    limit = lookup_symbol(resident, "sunkit.Fido.ROW_LIMIT")
    assert limit["found"] and limit["symbol"] == "sunkit.factory.Factory.ROW_LIMIT"


def test_lookup_symbol_finds_a_class_attribute_that_is_no_node(tmp_path: Path) -> None:
    """sqlmodel's ``SQLModel.metadata`` (``metadata: ClassVar[MetaData]``) and typer's
    ``Typer.registered_commands`` (set on ``self``) were ``found: false``: an agent would
    conclude that what every tutorial uses does not exist."""
    from codecite.server.tools import lookup_symbol, read

    resident = _served(
        tmp_path,
        {
            "ormkit/main.py": "from typing import ClassVar\n\n\n"
            'class Model:\n    """A table model."""\n\n    metadata: ClassVar[dict] = {}\n\n'
            "    def __init__(self):\n        self.registered = []\n\n"
            '    def save(self):\n        """Save it."""\n\n\n'
            'class Hero(Model):\n    """A hero."""\n',
            "ormkit/__init__.py": "from .main import Hero, Model\n",
        },
    )
    metadata = lookup_symbol(resident, "ormkit.Hero.metadata")  # inherited
    assert metadata["found"] and metadata["kind"] == "attribute"
    assert metadata["symbol"] == "ormkit.main.Model.metadata"
    assert metadata["annotation"] == "ClassVar[dict]" and metadata["citation"].startswith(
        "ormkit/main.py:4-"
    )
    registered = lookup_symbol(resident, "ormkit.Model.registered")
    assert registered["found"] and registered["symbol"] == "ormkit.main.Model.registered"
    assert lookup_symbol(resident, "ormkit.Model.registred")["did_you_mean"][0] == (
        "ormkit.Model.registered"
    )
    assert lookup_symbol(resident, "ormkit.Model.save")["kind"] == "python_method"
    past = read(resident, "ormkit/main.py:10-999")  # a range ending past the file says so
    assert past["end_line"] == past["file_lines"] == 17 and past["truncated"] is False


def test_read_decodes_a_file_as_the_build_did(tmp_path: Path) -> None:
    """A ``# -*- coding: latin-1 -*-`` module: the build reads `café`; ``read`` showed
    ``caf\ufffd``, as if the file were broken."""
    from codecite.server.tools import read

    latin = b'# -*- coding: latin-1 -*-\n"""Old kit."""\n\nNAME = "caf\xe9"\n'
    resident = _served(tmp_path, {"oldkit/__init__.py": latin})
    assert read(resident, "oldkit/__init__.py:4-4")["text"] == 'NAME = "caf\xe9"'


def test_lookup_symbol_summary_skips_an_opening_admonition(tmp_path: Path) -> None:
    """pydantic's docstrings open with ``!!! abstract "Usage Documentation"`` and a link:
    36 central symbols had that markup as their summary."""
    from codecite.server.resident import ResidentIndex
    from codecite.server.tools import lookup_symbol

    (tmp_path / "modelkit").mkdir()
    (tmp_path / "modelkit" / "__init__.py").write_text(
        'class BaseModel:\n    """!!! abstract "Usage Documentation"\n'
        "        [Models](../concepts/models.md)\n\n"
        '    A base class for creating models.\n\n    More text.\n    """\n'
    )
    build(tmp_path)
    found = lookup_symbol(ResidentIndex(tmp_path), "modelkit.BaseModel")
    assert found["summary"] == "A base class for creating models."


def test_lookup_symbol_says_why_a_class_may_have_members_the_index_lacks(tmp_path: Path) -> None:
    """astroquery's ``@async_to_sync`` makes ``query_region`` from ``query_region_async``:
    ``Vizier.query_region`` was plain ``found: false`` through the instance, and "has a base
    class outside the index" on the class, which was not the reason."""
    from codecite.server.tools import lookup_symbol

    resident = _served(
        tmp_path,
        {
            "aq/__init__.py": "from .core import Vizier, VizierClass\n",
            "aq/core.py": "def async_to_sync(cls):\n    return cls\n\n\n"
            "@async_to_sync\nclass VizierClass:\n"
            '    def query_region_async(self, coords):\n        """Query."""\n\n\n'
            "Vizier = VizierClass()\n",
        },
    )
    for name, shown in (
        ("aq.Vizier.query_region", "aq.core.VizierClass"),
        ("aq.VizierClass.query_region", "aq.VizierClass"),
    ):
        found = lookup_symbol(resident, name)
        assert not found["found"]
        assert found["note"] == (
            f"`{shown}` is decorated with @async_to_sync, which may add `query_region` at run time"
        )
        assert found["did_you_mean"] == [f"{name}_async"]
