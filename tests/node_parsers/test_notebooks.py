"""Jupyter notebooks read as the Markdown or reST document they hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codecite
from codecite.node_parsers.notebooks import NotebookError, parse_notebook


def _notebook(cells: list[dict]) -> str:
    """A notebook as Jupyter writes it: indent 1, one source line per list element."""
    for cell in cells:
        cell.setdefault("metadata", {})
        text = cell["source"]
        cell["source"] = [line + "\n" for line in text.split("\n")[:-1]] + [text.split("\n")[-1]]
        if cell["cell_type"] == "code":
            cell.update(
                execution_count=None,
                outputs=[{"output_type": "stream", "text": ["# Noise in an output\n"]}],
            )
    return json.dumps(
        {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1
    )


MARKDOWN_NB = _notebook(
    [
        {"cell_type": "markdown", "source": "# Palettes\n\nPick colors for your plots."},
        {"cell_type": "code", "source": "import plotkit\nplotkit.color_palette('deep')"},
        {"cell_type": "markdown", "source": "## Sequential palettes\n\nFor numbers that grow."},
        {"cell_type": "raw", "source": "Raw text nobody renders."},
    ]
)
RST_NB = _notebook(
    [
        {
            "cell_type": "raw",
            "metadata": {"raw_mimetype": "text/restructuredtext"},
            "source": ".. currentmodule:: plotkit",
        },
        {"cell_type": "raw", "source": "Violin plots\n============\n\nUse :func:`violinplot`."},
        {"cell_type": "code", "source": "plotkit.violinplot(data, split=True)"},
        {"cell_type": "raw", "source": "Splitting\n---------\n\nSplit by a second variable."},
    ]
)


def test_markdown_cells_make_sections_and_code_cells_their_examples() -> None:
    nodes = parse_notebook(MARKDOWN_NB, "docs/palettes.ipynb")
    assert [n.metadata["heading_path"] for n in nodes] == [
        ["Palettes"],
        ["Palettes", "Sequential palettes"],
    ]
    first = nodes[0]
    assert "```python\nimport plotkit\nplotkit.color_palette('deep')\n```" in first.text
    assert "plotkit.color_palette" in first.metadata["code_refs"]
    text = " ".join(n.text for n in nodes)
    assert "Noise in an output" not in text and "nobody renders" not in text


def test_a_section_cites_the_notebook_lines_of_its_cells() -> None:
    lines = MARKDOWN_NB.split("\n")
    for node in parse_notebook(MARKDOWN_NB, "docs/palettes.ipynb"):
        heading = node.metadata["heading_path"][-1]
        start, end = node.metadata["start_line"], node.metadata["end_line"]
        assert heading in lines[start - 1]
        quoted = "\n".join(lines[start - 1 : end])
        body_line = "For numbers that grow." if heading.startswith("Seq") else "color_palette"
        assert body_line in quoted


def test_notebooks_with_rest_raw_cells_are_read_as_rest() -> None:
    nodes = parse_notebook(RST_NB, "docs/violin.ipynb")
    # the directive before the first title is a preamble, as in any .rst page
    assert [n.metadata["heading_path"] for n in nodes] == [
        ["violin"],
        ["Violin plots"],
        ["Violin plots", "Splitting"],
    ]
    assert nodes[1].metadata["refs"] == ["violinplot"]
    assert "plotkit.violinplot" in nodes[1].metadata["code_refs"]


@pytest.mark.parametrize(
    ("text", "reason"), [("{not json", "not valid JSON"), ('{"worksheets": []}', "no 'cells' list")]
)
def test_a_file_that_is_no_notebook_is_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(NotebookError, match=reason):
        parse_notebook(text, "docs/broken.ipynb")


def test_notebooks_are_indexed_by_default_and_a_broken_one_is_reported(tmp_path: Path) -> None:
    (tmp_path / "plotkit").mkdir()
    (tmp_path / "plotkit" / "__init__.py").write_text(
        'def violinplot(data, split=False):\n    """Draw a violin plot."""\n'
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "violin.ipynb").write_text(RST_NB)
    (tmp_path / "docs" / "broken.ipynb").write_text("{not json")
    report = codecite.build(tmp_path)
    assert any("docs/broken.ipynb" in w and "not valid JSON" in w for w in report.warnings)
    index = codecite.load(tmp_path)
    ctx = index.query("split a violin by a second variable", k=3)
    assert ctx.nodes[0].node.metadata["source_path"] == "docs/violin.ipynb"
    # the notebook's section names the function: it lends it relevance
    assert "plotkit.violinplot" in {n.node.metadata.get("symbol") for n in ctx.nodes}


def test_an_executed_notebook_is_indexed_although_its_outputs_are_large(tmp_path: Path) -> None:
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text('"""A tool."""\n')
    (tmp_path / "docs").mkdir()
    cells = json.loads(MARKDOWN_NB)
    cells["cells"][1]["outputs"] = [
        {
            "output_type": "display_data",
            "metadata": {},
            "data": {"image/png": "iVBORw0KGgo" * 150_000},
        }
    ]
    (tmp_path / "docs" / "executed.ipynb").write_text(json.dumps(cells, indent=1))
    (tmp_path / "docs" / "huge.md").write_text("# Huge\n\n" + "word " * 300_000)
    assert (tmp_path / "docs" / "executed.ipynb").stat().st_size > 1024 * 1024
    codecite.build(tmp_path)
    paths = {n.metadata["source_path"] for n in codecite.load(tmp_path).nodes}
    assert "docs/executed.ipynb" in paths and "docs/huge.md" not in paths
    assert "iVBORw0KGgo" not in " ".join(n.text for n in codecite.load(tmp_path).nodes)
