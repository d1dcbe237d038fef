"""Jupyter notebooks -> ``doc_section`` nodes.

Scientific packages write tutorials as notebooks (seaborn's whole tutorial is
``doc/_tutorial/*.ipynb``). A notebook is read as the document it holds: its
prose cells as they are, code cells as code blocks (so their imports and
calls become the section's code references), outputs left out. The prose is
Markdown, or reStructuredText when the notebook carries it in raw cells
marked ``text/restructuredtext`` (nbsphinx's way; seaborn's tutorials mark the
first and leave the rest unmarked, so then every raw cell is read as reST);
otherwise raw cells are left out. Its sections then come from the Markdown or reST
parser, and each node's lines are mapped back to the notebook file: a
citation points at the JSON lines of the cells it quotes. Nothing is
executed; the JSON is read with the standard library.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .markdown import markdown_chunks
from .rst import rst_chunks
from .schema import NodeRecord
from .sections import DEFAULT_MAX_SECTION_CHARS, chunks_to_nodes, on_source_lines

_SOURCE_KEY = re.compile(r'^\s*"source"\s*:')
RST_MIMETYPES = ("text/restructuredtext", "text/x-rst")


class NotebookError(ValueError):
    """The file is not a notebook this parser can read (the message says why)."""


def _cells(text: str) -> list[Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        # exc.msg may end in "at" ("Unterminated string starting at"): say where after a colon
        raise NotebookError(
            f"not valid JSON ({exc.msg}: line {exc.lineno} column {exc.colno})"
        ) from exc
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("no 'cells' list (only nbformat 4 notebooks are read)")
    return cells


def _is_rst(cell: Any) -> bool:
    return (
        isinstance(cell, dict)
        and cell.get("cell_type") == "raw"
        and (cell.get("metadata") or {}).get("raw_mimetype") in RST_MIMETYPES
    )


def notebook_document(text: str) -> tuple[str, list[int], bool]:
    r"""The notebook as one document, per document line the notebook file line it came
    from, and whether the document is reST (else Markdown).

    Example:
        >>> nb = '{"cells": [{"cell_type": "markdown", "source": ["# Plot\\n", "Draw."]},'
        >>> nb += ' {"cell_type": "code", "source": "plot(x)"}], "nbformat": 4}'
        >>> notebook_document(nb)[0].split("\n")
        ['# Plot', 'Draw.', '', '```python', 'plot(x)', '```', '']
    """
    cells = _cells(text)
    rst = any(_is_rst(cell) for cell in cells)
    # nbformat writes one "source" key per cell, its list one line per element
    keys = [i + 1 for i, line in enumerate(text.split("\n")) if _SOURCE_KEY.match(line)]
    exact = len(keys) == len(cells)
    out: list[str] = []
    origin: list[int] = []
    for k, cell in enumerate(cells):
        kind = cell.get("cell_type") if isinstance(cell, dict) else None
        if kind not in ("markdown", "code") and not (rst and kind == "raw"):
            continue  # beside reST-marked raw cells, unmarked raw cells are reST too
        source = cell.get("source", "")
        lines = ("".join(source) if isinstance(source, list) else str(source)).split("\n")
        if not any(line.strip() for line in lines):
            continue
        key = keys[k] if exact else 1
        listed = exact and isinstance(source, list) and len(source) == len(lines)
        where = [key + 1 + j if listed else key for j in range(len(lines))]
        if kind == "code" and rst:
            lines = [".. code-block:: python", "", *(f"    {line}" for line in lines)]
            where = [where[0], where[0], *where]
        elif kind == "code":
            lines, where = ["```python", *lines, "```"], [where[0], *where, where[-1]]
        out += [*lines, ""]
        origin += [*where, where[-1]]
    return "\n".join(out), origin, rst


def parse_notebook(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[NodeRecord]:
    """A notebook's sections as ``doc_section`` nodes, lines mapped to the notebook file.

    Raises ``NotebookError`` for a file that is not an nbformat 4 notebook.
    """
    document, origin, rst = notebook_document(text)
    chunks = (rst_chunks if rst else markdown_chunks)(document, source_path, max_chars)
    return on_source_lines(chunks_to_nodes(chunks, source_path), origin)
