"""Agent tools: ask, search and validate, as stock LlamaIndex tools.

``as_tools(index)`` returns a ``QueryEngineTool`` (cited answer or
clarification), a ``FunctionTool`` that searches the codebase and returns
cited rows as JSON, and a ``FunctionTool`` that checks generated code against
the package's real namespace. The descriptions are written for an agent: what
each tool is for, what it returns, and when to prefer it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from llama_index.core.tools import BaseTool, FunctionTool, QueryEngineTool

from codecite.answers.protocols import IndexLike

logger = logging.getLogger(__name__)
SEARCH_K = 8
MAX_SEARCH_K = 50
MAX_SNIPPET = 240

ASK_DESCRIPTION = (
    "Answer a question about the {project} codebase from its source, docs, examples and "
    "recipes, with numbered citations (path:start-end). When the evidence is weak it "
    "returns a clarification request with up to three candidate topics instead of an "
    "answer; never invents APIs. It never runs workflows. Input: a natural-language "
    "question."
)
SEARCH_DESCRIPTION = (
    "Search the {project} codebase and return ranked, cited evidence as JSON rows "
    "(rank, score, kind, label, citation path:start-end, signature, snippet). Use it to "
    "find where a function, class or documented task lives before writing code."
)
VALIDATE_DESCRIPTION = (
    "Check generated Python code against the real {project} namespace without running "
    "it. Returns JSON {{ok, syntax_ok, errors, warnings, checked}}: errors name imports, "
    "attributes or keyword arguments that do not exist. Use it on every script you write "
    "before showing it."
)


def _project(index: IndexLike) -> str:
    return ", ".join(index.config.packages) or index.config.root.name


def search_rows(index: IndexLike, query: str, k: int = SEARCH_K) -> list[dict[str, Any]]:
    """Cited rows for ``query``: the ``codecite query`` table as data, plus a snippet."""
    from codecite.retrievers.render import evidence_row

    ctx = index.query(query, k=k)
    rows = [evidence_row(i, nws, MAX_SNIPPET) for i, nws in enumerate(ctx.nodes, 1)]
    for row in rows:
        row.pop("id", None)
    return rows


def _search_fn(index: IndexLike) -> Any:
    def codecite_search(query: str, k: int = SEARCH_K) -> str:
        """Ranked, cited evidence for ``query`` as JSON rows (an error the model can act on
        for an empty query or a ``k`` outside 1-50, as the MCP server's ``search``)."""
        if not isinstance(query, str) or not query.strip():
            return json.dumps({"error": "query is empty: pass words or a symbol name"})
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_SEARCH_K:
            return json.dumps(
                {"error": f"k must be an integer from 1 to {MAX_SEARCH_K}, got {k!r}"}
            )
        rows = search_rows(index, query, k=k)
        return json.dumps({"query": query, "results": rows}, indent=1)

    return codecite_search


def _validate_fn(index: IndexLike) -> Any:
    def codecite_validate(code: str) -> str:
        """Check generated code against the indexed package; JSON report."""
        from codecite.validation.checker import validate_generated_code

        report = validate_generated_code(code, index=index)
        keys = ("ok", "syntax_ok", "errors", "warnings", "checked")
        return json.dumps({k: report.get(k) for k in keys}, indent=1)

    return codecite_validate


def as_tools(
    index: IndexLike, *, llm: Any = None, session: Any = None, **engine_kwargs: Any
) -> list[BaseTool]:
    """LlamaIndex tools for an agent: ``codecite_ask``, ``codecite_search``,
    ``codecite_validate``.

    Example:
        >>> tools = codecite.as_tools(codecite.load("."))           # doctest: +SKIP
        >>> agent = ReActAgent(tools=tools, llm=my_llm)             # doctest: +SKIP
    """
    from codecite.answers.engine import CodeciteQueryEngine, engine_options

    project = _project(index)
    options = engine_options("as_tools", engine_kwargs)
    engine = CodeciteQueryEngine(index=index, llm=llm, session=session, **options)
    return [
        QueryEngineTool.from_defaults(
            query_engine=engine,
            name="codecite_ask",
            description=ASK_DESCRIPTION.format(project=project),
        ),
        FunctionTool.from_defaults(
            fn=_search_fn(index),
            name="codecite_search",
            description=SEARCH_DESCRIPTION.format(project=project),
        ),
        FunctionTool.from_defaults(
            fn=_validate_fn(index),
            name="codecite_validate",
            description=VALIDATE_DESCRIPTION.format(project=project),
        ),
    ]
