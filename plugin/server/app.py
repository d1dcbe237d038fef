"""``codecite mcp``: the tools of ``codecite.server.tools`` as a Model Context Protocol
server (the official ``mcp`` SDK, ``pip install 'codecite[mcp]'``), over stdio or
streamable HTTP on 127.0.0.1. See docs/mcp.md.

The index is loaded once and kept (``ResidentIndex``); a build that replaces it
is picked up on the next call. Tool errors are MCP errors whose message says
what to send instead; nothing but the protocol is written to stdout (logs go to
stderr).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import WithJsonSchema

from codecite.errors import CodeciteError, UsageError
from codecite.server import tools
from codecite.server.resident import ResidentIndex

# a count an agent passes: a JSON integer in the schema, checked by the tool itself, so that
# ``true`` or ``"3"`` get the tool's one-line message, not pydantic's (and ``true`` is never 1)
Count = Annotated[Any, WithJsonSchema({"type": "integer"})]

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "codecite is a cited memory of one Python codebase ({project}): its source, docs, "
    "examples and recipes. Use `search` to find where something lives, `lookup_symbol` "
    "for the exact signature of a name before calling it, `read` to see the lines behind "
    "a citation, `ask` for a cited answer, and `validate_code` on every script you write "
    "for this package before showing it. Cite results by their path:start-end."
)
DESCRIPTIONS = {
    "search": (
        "Search the indexed codebase (code, docs, examples, recipes) and return ranked "
        "evidence: each result has a node id, a citation path:start-end, kind, label, "
        "signature, a snippet and why it ranked (lexical score and boosts). Accepts a "
        "question, a task in your own words, or an exact name such as pkg.mod.Class or "
        "Class.method. Optional: k (1-50), kind (python_symbol, python_method, "
        "doc_section, module_doc, recipe), path (a folder or file prefix)."
    ),
    "ask": (
        "Answer a question about the codebase with numbered citations, or, when the "
        "evidence is weak, return a clarification request with candidate topics (path "
        "'clarification'): it never invents an API. Pass the same session_id to keep "
        "follow-ups ('and its parameters?') in context."
    ),
    "lookup_symbol": (
        "Resolve an exact dotted or public name (pkg.Class, pkg.mod.func, Class.method, a "
        "re-exported name) to its definition: signature, parameters with defaults, "
        "docstring summary, citation and related symbols. When it does not exist, "
        "found=false and did_you_mean lists real names to try."
    ),
    "read": (
        "Read the exact source lines behind a result: pass its node id or citation "
        "(path:start-end), optionally with context_lines (0-50) around it. Only files of "
        "the indexed corpus; at most 400 lines."
    ),
    "validate_code": (
        "Check Python code you wrote against the package's real namespace without running "
        "it: imports, attributes, call keywords and arguments. Returns ok, errors (with "
        "did-you-mean suggestions), warnings and the names verified. Fix every error "
        "before showing the code."
    ),
    "index_status": (
        "What is indexed (nodes, files, kinds), whether the index is stale against the "
        "files on disk, and the command that rebuilds it."
    ),
}


def make_server(resident: ResidentIndex, llm: Any = None) -> Any:
    """The MCP server over ``resident`` (imports the ``mcp`` SDK)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError as exc:
        raise UsageError("codecite mcp needs the MCP SDK: pip install 'codecite[mcp]'") from exc

    project = _project(resident)
    from codecite import __version__

    server = MCPServer(
        name="codecite",
        version=__version__,
        instructions=INSTRUCTIONS.format(project=project),
        log_level="WARNING",  # no per-request access log (uvicorn's goes to stdout)
    )
    sessions = tools.Sessions()

    def guarded(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                return fn(*args, **kwargs)
            except (tools.ToolInputError, CodeciteError) as exc:
                raise ToolError(str(exc)) from exc
            except Exception as exc:  # a bug must not end the server: report it, go on
                logger.exception("codecite tool failed")
                failed = f"codecite failed on this call ({type(exc).__name__}: {exc})"
                raise ToolError(failed) from exc

        return call

    @server.tool(name="search", description=DESCRIPTIONS["search"])
    def search(
        query: str, k: Count = 8, kind: str | None = None, path: str | None = None
    ) -> dict[str, Any]:
        return guarded(tools.search)(resident, query, k, kind, path)

    @server.tool(name="ask", description=DESCRIPTIONS["ask"])
    def ask(question: str, session_id: str | None = None) -> dict[str, Any]:
        return guarded(tools.ask)(resident, sessions, question, session_id, llm)

    @server.tool(name="lookup_symbol", description=DESCRIPTIONS["lookup_symbol"])
    def lookup_symbol(name: str) -> dict[str, Any]:
        return guarded(tools.lookup_symbol)(resident, name)

    @server.tool(name="read", description=DESCRIPTIONS["read"])
    def read(ref: str, context_lines: Count = 0) -> dict[str, Any]:
        return guarded(tools.read)(resident, ref, context_lines)

    @server.tool(name="validate_code", description=DESCRIPTIONS["validate_code"])
    def validate_code(code: str) -> dict[str, Any]:
        return guarded(tools.validate_code)(resident, code)

    @server.tool(name="index_status", description=DESCRIPTIONS["index_status"])
    def index_status() -> dict[str, Any]:
        return guarded(tools.index_status)(resident)

    return server


def _project(resident: ResidentIndex) -> str:
    try:
        config = resident.current().config
    except CodeciteError:
        return "not built yet"
    return ", ".join(config.packages) or config.root.name


def serve(resident: ResidentIndex, http_port: int | None = None, llm: Any = None) -> None:
    """Run the server until the client goes away (stdio) or the process is stopped."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    resident.current()  # load before the first call; a missing index fails here, clearly
    server = make_server(resident, llm)
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=http_port)
