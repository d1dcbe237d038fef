"""The answers and validation rooms: public names, the one citation string, typed records."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import get_type_hints

import pytest

import codecite.answers
import codecite.validation
from codecite.answers.citations import Citation, citation_for
from codecite.node_parsers.schema import citation
from codecite.store.symbols import SymbolTable
from codecite.validation.checker import validate_generated_code
from codecite.validation.findings import ValidationReport

PLUGIN = Path(codecite.answers.__file__).resolve().parents[1]


@pytest.mark.parametrize("room", [codecite.answers, codecite.validation])
def test_every_exported_name_resolves(room) -> None:
    assert room.__doc__ and "TODO" not in room.__doc__
    for name in room.__all__:
        assert getattr(room, name) is not None, name
    with pytest.raises(AttributeError):
        room.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    "meta",
    [
        {"source_path": "pkg/io.py", "start_line": 3, "end_line": 9, "kind": "python_symbol"},
        {"source_path": "docs/a.md", "start_line": None, "end_line": None, "kind": "doc_section"},
    ],
)
def test_citation_ref_is_the_shared_path_start_end(meta) -> None:
    assert citation_for(1, meta).ref == citation(meta)
    assert Citation(2, "a.py", 1, 4, "a", "python_symbol").ref == "a.py:1-4"


def test_validation_report_keys_are_the_typed_ones() -> None:
    result = validate_generated_code("import os\n", SymbolTable())
    assert list(result) == list(get_type_hints(ValidationReport))
    broken = validate_generated_code("def (:\n", SymbolTable())
    assert list(broken) == list(result) and broken["syntax_ok"] is False


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize("room", ["answers", "validation"])
def test_no_room_module_imports_the_index_even_lazily(room) -> None:
    for path in sorted((PLUGIN / room).glob("*.py")):
        imported = _imported(path)
        assert "codecite.index" not in imported, path.name
        assert "codecite" not in imported, path.name  # the top package imports the index


def test_modules_of_the_rooms_import_alone() -> None:
    for room in ("answers", "validation"):
        for path in sorted((PLUGIN / room).glob("*.py")):
            if path.stem != "__init__":
                importlib.import_module(f"codecite.{room}.{path.stem}")
