"""Which parser reads a corpus file, and how (codecite.node_parsers.dispatch)."""

from __future__ import annotations

from pathlib import Path

from codecite.config import load_config
from codecite.indexer.corpus import CorpusFile, FileRole
from codecite.node_parsers.dispatch import parse_text, read_text

GALLERY_SCRIPT = '''"""
Bar plots
=========
"""
import pkg
tips = pkg.load("tips")
# Draw the bars.
pkg.bars(tips)
'''


def _file(rel: str, data: bytes, role: FileRole = FileRole.DOC) -> CorpusFile:
    return CorpusFile(rel, role, data, "digest")


def _kinds(rel: str, text: str, role: FileRole, tmp_path: Path) -> list[tuple[str, object]]:
    parsed = parse_text(text, _file(rel, text.encode(), role), load_config(tmp_path))
    return [
        (n.metadata["kind"], n.metadata.get("symbol") or n.metadata["heading_path"])
        for n in parsed.nodes
    ]


def test_a_gallery_script_is_a_page_and_an_example_application_is_code(tmp_path: Path) -> None:
    assert _kinds("examples/bars.py", GALLERY_SCRIPT, FileRole.PYTHON, tmp_path) == [
        ("doc_section", ["Bar plots"])
    ]
    app = '"""An app."""\ndef main():\n    """Run."""\n'
    assert _kinds("examples/app.py", app, FileRole.PYTHON, tmp_path) == [
        ("module_doc", "examples.app"),
        ("python_symbol", "examples.app.main"),
    ]
    assert ("python_symbol", "pkg.bars.tips") in _kinds(
        "pkg/bars.py", GALLERY_SCRIPT, FileRole.PYTHON, tmp_path
    )  # outside an examples folder a script is code


def test_a_tutorial_program_is_always_a_page(tmp_path: Path) -> None:
    """SQLModel's `docs_src/` (87 copies of `engine`, 86 `Hero` classes as its API, and
    `ask` showed `create_db_and_tables()` without the body that answers)."""
    program = (
        "from sqlkit import SQLModel, create_engine\n\n"
        "engine = create_engine('sqlite:///database.db')\n\n\n"
        "class Hero(SQLModel):\n    name: str\n\n\n"
        "def create_db_and_tables():\n    SQLModel.metadata.create_all(engine)\n\n\n"
        'if __name__ == "__main__":\n    create_db_and_tables()\n'
    )
    rel = "docs_src/tutorial/create_db/tutorial001.py"
    parsed = parse_text(
        program, _file(rel, program.encode(), FileRole.PYTHON), load_config(tmp_path)
    )
    assert {n.metadata["kind"] for n in parsed.nodes} == {"doc_section"}
    assert "SQLModel.metadata.create_all(engine)" in "".join(n.text for n in parsed.nodes)
    assert ("python_symbol", "examples.t.create_db_and_tables") in _kinds(
        "examples/t.py", program, FileRole.PYTHON, tmp_path
    )  # an example application elsewhere is still code


def test_a_docs_src_folder_is_examples_not_a_package(tmp_path: Path) -> None:
    for rel in ("sqlkit/__init__.py", "docs_src/__init__.py", "docs_src/tutorial001.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    cfg = load_config(tmp_path)
    assert cfg.package_dirs == {"sqlkit": "sqlkit"} and cfg.roots == ("sqlkit", "docs_src")


def test_docs_by_suffix_other_named_docs_as_markdown(tmp_path: Path) -> None:
    rst = "Usage\n=====\n\nText.\n"
    assert _kinds("docs/usage.rst", rst, FileRole.DOC, tmp_path) == [("doc_section", ["Usage"])]
    assert _kinds("CHANGES", "# 1.0\n\nFirst.\n", FileRole.DOC, tmp_path) == [
        ("doc_section", ["1.0"])
    ]


def test_a_python_file_is_decoded_as_its_coding_line_declares() -> None:
    """fastapi-style trees with ``# -*- coding: latin-1 -*-`` answered ``caf\ufffd``."""
    warnings: list[str] = []
    declared = b"#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n"
    assert read_text(_file("pkg/old.py", declared), warnings).endswith("NAME = 'caf\xe9'\n")
    late = b"import os\n# coding: latin-1\nNAME = 'caf\xe9'\n"  # not a declaration there
    assert read_text(_file("pkg/late.py", late), warnings).endswith("'caf\ufffd'\n")
    unknown = b"# coding: no-such-codec\nNAME = 'caf\xc3\xa9'\n"
    assert read_text(_file("pkg/odd.py", unknown), warnings).endswith("'caf\xe9'\n")
    doc = b".. coding: latin-1\n\ncaf\xe9\n"  # only Python source declares its coding
    assert read_text(_file("docs/page.rst", doc, FileRole.DOC), warnings).endswith("caf\ufffd\n")
    assert warnings == [
        "pkg/late.py: not valid UTF-8, decoded with replacement characters",
        "docs/page.rst: not valid UTF-8, decoded with replacement characters",
    ]


def test_problems_become_warnings_naming_the_file(tmp_path: Path) -> None:
    cfg = load_config(tmp_path)
    warnings: list[str] = []
    assert read_text(_file("pkg/latin.py", b"# caf\xe9\n"), warnings) == "# caf\ufffd\n"
    assert warnings == ["pkg/latin.py: not valid UTF-8, decoded with replacement characters"]
    notebook = parse_text('{"cells": 1}', _file("docs/nb.ipynb", b""), cfg)
    assert notebook.nodes == []
    assert notebook.warnings == [
        "docs/nb.ipynb: no 'cells' list (only nbformat 4 notebooks are read); not indexed"
    ]
    empty = parse_text("", _file("pkg/empty.py", b"", FileRole.PYTHON), cfg)
    assert empty.warnings == ["pkg/empty.py: empty file; nothing to index"]
    assert parse_text("", _file("pkg/__init__.py", b"", FileRole.PYTHON), cfg).warnings == []
