"""Example scripts (a gallery's ``examples/*.py``) -> ``doc_section`` nodes.

A gallery example is a page, not an API: its docstring is the title and the
story (reST, as sphinx-gallery renders it), its comments the narration, and
its top-level code the usage a reader came for. The Python parser keeps only
definitions, so a script that calls ``sns.lmplot(...)`` at top level left
nothing but its title in the index. Here the script is read as the reST page
it renders to: the docstring, each run of comment lines as prose (cell
markers such as ``# %%`` dropped), each run of code as a ``code-block`` (its
imports and calls become the section's code references). Nothing is
executed; node lines are the script's own.
"""

from __future__ import annotations

import ast
import re

from .rst import rst_chunks
from .schema import NodeRecord
from .sections import DEFAULT_MAX_SECTION_CHARS, chunks_to_nodes, on_source_lines

_CELL_MARKER = re.compile(r"^#\s*(%%|In\s*\[.*\]:?)|^#{5,}\s*$|^#!")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(\S.*)$")
_ADORNMENTS = "=-~^\"'"


def _tree(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _calls_at_top_level(tree: ast.Module | None) -> bool:
    return tree is not None and any(
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) for stmt in tree.body
    )


def script_document(text: str, tree: ast.Module | None = None) -> tuple[str, list[int]]:
    r'''The script as a reST page, and per page line the script line it came from.

    Example:
        >>> page, lines = script_document('"""\nBars\n====\n"""\n# Draw them.\nbar(x)\n')
        >>> page.split("\n")
        ['Bars', '====', '', 'Draw them.', '', '.. code-block:: python', '', '    bar(x)', '']
        >>> lines
        [2, 3, 3, 5, 5, 6, 6, 6, 6]
    '''
    source = text.split("\n")
    out: list[str] = []
    origin: list[int] = []
    first = 0  # index of the first line after the module docstring
    tree = tree if tree is not None else _tree(text)
    if (
        tree is not None
        and tree.body
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, ast.Constant)
        and isinstance(tree.body[0].value.value, str)
    ):
        node = tree.body[0]
        doc = ast.get_docstring(tree) or ""
        doc_lines = doc.split("\n")
        start = node.lineno + (1 if source[node.lineno - 1].strip() in ('"""', "'''") else 0)
        for j, line in enumerate(doc_lines):
            out.append(line)
            origin.append(min(start + j, node.end_lineno or start + j))
        out.append("")
        origin.append(origin[-1] if origin else 1)
        first = node.end_lineno or 0
    block: list[tuple[int, str]] = []
    kind = ""

    def flush() -> None:
        nonlocal block
        lines = [(n, s) for n, s in block]
        while lines and not lines[-1][1].strip():
            lines.pop()
        if lines and kind == "code":
            out.extend([".. code-block:: python", ""])
            origin.extend([lines[0][0], lines[0][0]])
            out.extend(f"    {s}" for _, s in lines)
            origin.extend(n for n, _ in lines)
        elif lines:
            for n, text in lines:
                heading = _MD_HEADING.match(text)
                if heading:  # `# ## Title`, as notebooks exported to scripts write it
                    title = heading.group(2).strip()
                    out.extend(["", title, _ADORNMENTS[len(heading.group(1)) - 1] * len(title), ""])
                    origin.extend([n, n, n, n])
                else:
                    out.append(text)
                    origin.append(n)
        if lines:
            out.append("")
            origin.append(lines[-1][0])
        block = []

    for i in range(first, len(source)):
        line = source[i]
        stripped = line.strip()
        if _CELL_MARKER.match(stripped):
            flush()
            kind = ""
            continue
        now = (
            "prose"
            if stripped.startswith("#") and not line.startswith((" ", "\t"))
            else ("code" if stripped else kind)
        )
        if now != kind and stripped:
            flush()
            kind = now
        text_line = re.sub(r"^#\s?", "", line) if now == "prose" else line
        block.append((i + 1, text_line))
    flush()
    return "\n".join(out), origin


def parse_example_script(
    text: str,
    source_path: str,
    max_chars: int = DEFAULT_MAX_SECTION_CHARS,
    tree: ast.Module | None = None,
) -> list[NodeRecord]:
    """An example script's page as ``doc_section`` nodes on the script's own lines."""
    page, origin = script_document(text, tree)
    if not page.strip():
        return []
    return on_source_lines(
        chunks_to_nodes(rst_chunks(page, source_path, max_chars), source_path), origin
    )


def is_script(text: str) -> bool:
    """True when the module does something at top level: a bare call statement
    (``sns.lmplot(...)``, ``plt.show()``) outside ``if __name__ == "__main__"``.
    An example *application* (functions, classes, an ``app = Flask()``) is code
    to read as code; a gallery script is a page."""
    return _calls_at_top_level(_tree(text))


def example_page(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS, always: bool = False
) -> list[NodeRecord] | None:
    """The page of an example file that is a script (``is_script``; ``always``: any file),
    else None; the file is parsed once for both."""
    tree = _tree(text)
    if not always and not _calls_at_top_level(tree):
        return None
    return parse_example_script(text, source_path, max_chars, tree)
