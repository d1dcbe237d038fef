"""Gallery scripts read as the reST pages they render to."""

from __future__ import annotations

from pathlib import Path

import codecite
from codecite.node_parsers.scripts import is_script, parse_example_script

GALLERY = '''"""
Violin plots
============

Split each violin by a second variable.
"""
import plotkit as pk

###############################################################################
# Load the tips table and draw one violin per day.
tips = pk.load_dataset("tips")
pk.violinplot(data=tips, x="day", split=True)

# %%
# Smaller violins
# ---------------
#
# Narrow them with a width.
pk.violinplot(data=tips, width=.5)
'''
APP = '''"""A tiny web application."""
from plotkit import App

app = App(__name__)


def index():
    return "hello"


if __name__ == "__main__":
    app.run()
'''


def test_a_gallery_script_is_a_page_of_prose_and_code_on_its_own_lines() -> None:
    assert is_script(GALLERY) and not is_script(APP) and not is_script("def broken(:\n")
    nodes = parse_example_script(GALLERY, "examples/violins.py")
    assert [n.metadata["heading_path"] for n in nodes] == [
        ["Violin plots"],
        ["Violin plots", "Smaller violins"],
    ]
    first, second = nodes
    assert "Split each violin" in first.text and "one violin per day" in first.text
    assert '    pk.violinplot(data=tips, x="day", split=True)' in first.text
    assert "###" not in first.text and "%%" not in second.text
    assert "pk.violinplot" in first.metadata["code_refs"]
    lines = GALLERY.split("\n")
    assert lines[first.metadata["start_line"] - 1] == "Violin plots"
    assert lines[second.metadata["start_line"] - 1] == "# Smaller violins"
    assert lines[second.metadata["end_line"] - 1] == "pk.violinplot(data=tips, width=.5)"


def test_gallery_scripts_under_examples_are_indexed_as_pages(tmp_path: Path) -> None:
    (tmp_path / "plotkit").mkdir()
    (tmp_path / "plotkit" / "__init__.py").write_text(
        'def violinplot(data, x=None, split=False, width=.8):\n    """Draw violins."""\n'
    )
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "violins.py").write_text(GALLERY)
    (tmp_path / "examples" / "app.py").write_text(APP)
    codecite.build(tmp_path)
    nodes = codecite.load(tmp_path).nodes
    by_path: dict[str, list[str]] = {}
    for n in nodes:
        by_path.setdefault(n.metadata["source_path"], []).append(n.metadata["kind"])
    assert by_path["examples/violins.py"] == ["doc_section", "doc_section"]
    # an example application stays code: its module docstring and functions
    assert sorted(by_path["examples/app.py"]) == ["module_doc", "python_symbol", "python_symbol"]


def test_a_notebook_exported_to_a_script_keeps_its_markdown_headings() -> None:
    source = (
        "#!/usr/bin/env python\n\n# # Stationarity tests\n#\n# Check a series first.\n\n"
        "import toolkit as tk\n\n# ## The ADF test\n#\n# It tests for a unit root.\n\n"
        "tk.adfuller(series)\n"
    )
    assert is_script(source)
    nodes = parse_example_script(source, "examples/python/stationarity.py")
    assert [n.metadata["heading_path"] for n in nodes] == [
        ["Stationarity tests"],
        ["Stationarity tests", "The ADF test"],
    ]
    assert "usr/bin" not in " ".join(n.text for n in nodes)
    lines = source.split("\n")
    assert lines[nodes[1].metadata["start_line"] - 1] == "# ## The ADF test"
    assert "tk.adfuller" in nodes[1].metadata["code_refs"]


def test_gallery_scripts_in_an_examples_folder_of_the_docs_are_pages(tmp_path: Path) -> None:
    """scikit-image keeps its gallery in ``doc/examples/<topic>/``: its 141 scripts gave
    1,604 one-line variables as API (``plot_dog.filtered_image``) and no prose."""
    (tmp_path / "plotkit").mkdir()
    (tmp_path / "plotkit" / "__init__.py").write_text('def violinplot(data):\n    """Draw."""\n')
    for folder in ("doc/examples/plots", "docs/tutorials", "plotkit/examples"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "violins.py").write_text(GALLERY)
    codecite.build(tmp_path)
    kinds: dict[str, list[str]] = {}
    for n in codecite.load(tmp_path).nodes:
        kinds.setdefault(n.metadata["source_path"], []).append(n.metadata["kind"])
    assert kinds["doc/examples/plots/violins.py"] == ["doc_section", "doc_section"]
    assert kinds["docs/tutorials/violins.py"] == ["doc_section", "doc_section"]
    # a package's own ``examples`` subpackage is code, as any module of the package
    assert "doc_section" not in kinds["plotkit/examples/violins.py"]


def test_a_gallery_script_named_like_a_test_is_an_example(tmp_path: Path) -> None:
    """nilearn's ``plot_second_level_one_sample_test.py`` shows a statistical test: it was
    skipped as a test file, 3 of the 7 second-level GLM tutorials."""
    (tmp_path / "plotkit").mkdir()
    (tmp_path / "plotkit" / "__init__.py").write_text('def violinplot(data):\n    """Draw."""\n')
    (tmp_path / "examples" / "stats").mkdir(parents=True)
    (tmp_path / "examples" / "stats" / "plot_one_sample_test.py").write_text(GALLERY)
    (tmp_path / "examples" / "stats" / "check_test.py").write_text("def test_it():\n    pass\n")
    report = codecite.build(tmp_path)
    paths = {n.metadata["source_path"] for n in codecite.load(tmp_path).nodes}
    assert "examples/stats/plot_one_sample_test.py" in paths
    assert "examples/stats/check_test.py" in report.skipped["tests"]  # defines a test


def test_python_files_of_the_docs_are_no_api(tmp_path: Path) -> None:
    """nilearn's ``doc/make_atlas_table.py`` made ``doc.make_atlas_table.fsaverage`` (a
    script variable) the first answer to ``fsaverage``; statsmodels' 160 plot-script
    variables were API (``docs.source.plots.graphics_gofplots_qqplot.ax``)."""
    (tmp_path / "plotkit").mkdir()
    (tmp_path / "plotkit" / "__init__.py").write_text('def violinplot(data):\n    """Draw."""\n')
    (tmp_path / "doc" / "plots").mkdir(parents=True)
    (tmp_path / "doc" / "plots" / "violins.py").write_text(GALLERY)
    (tmp_path / "doc" / "make_table.py").write_text(
        'fsaverage = "fsaverage5"\n\n\ndef main():\n    """Write the table."""\n\n\n'
        'if __name__ == "__main__":\n    main()\n'
    )
    codecite.build(tmp_path)
    nodes = codecite.load(tmp_path).nodes
    symbols = {n.metadata.get("symbol") for n in nodes}
    assert "doc.make_table.fsaverage" not in symbols and "doc.make_table.main" in symbols
    kinds = [
        n.metadata["kind"] for n in nodes if n.metadata["source_path"] == "doc/plots/violins.py"
    ]
    assert kinds == ["doc_section", "doc_section"]  # a plot script is a page
