"""Citations count lines as Python does, whatever ends them: ``\\n``, ``\\r\\n`` or a lone
``\\r`` (old Mac files), and a form feed or a Unicode line separator ends none."""

from __future__ import annotations

import ast
from pathlib import Path

import codecite
from codecite.node_parsers.doc_lines import source_lines
from codecite.server.resident import ResidentIndex
from codecite.server.tools import read

SOURCE = (
    'def first():\n    """One."""\n    return 1\n\n\x0c\n'  # a form feed: a page break
    'def second():\n    """Two \u2028 lines?"""\n    return 2\n'
)


def _ast_lines(text: str) -> dict[str, tuple[int, int | None]]:
    tree = ast.parse(text)
    return {n.name: (n.lineno, n.end_lineno) for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_every_line_end_cites_the_lines_python_counts(tmp_path: Path) -> None:
    (tmp_path / "ends").mkdir()
    (tmp_path / "ends" / "__init__.py").write_text("")
    variants = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}
    for name, end in variants.items():
        (tmp_path / "ends" / f"{name}.py").write_bytes(SOURCE.replace("\n", end).encode("utf-8"))
    codecite.build(tmp_path)
    index = codecite.load(tmp_path)
    resident = ResidentIndex(tmp_path)
    for name in variants:
        text = (tmp_path / "ends" / f"{name}.py").read_bytes().decode("utf-8")
        expected = _ast_lines(text)
        assert expected == {"first": (1, 3), "second": (6, 8)}
        for function, (start, end) in expected.items():
            (node,) = index.symbol_nodes(f"ends.{name}.{function}")
            meta = node.metadata
            assert (meta["start_line"], meta["end_line"]) == (start, end), (name, function)
            shown = read(resident, node.node_id)["text"]
            assert shown.startswith(f"def {function}():"), (name, shown)


def test_source_lines_end_where_python_ends_a_line() -> None:
    assert source_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert source_lines("a\x0cb\u2028c\n") == ["a\x0cb\u2028c"]  # splitlines() gives three
    assert source_lines("") == [] and source_lines("x\n\n") == ["x", ""]
