"""docs/notebooks/explore.ipynb runs top to bottom, and is committed without outputs.

It is executed with nbclient on a temporary copy of the fixture repository and
on a second repository (``CODECITE_NOTEBOOK_REPO`` points the notebook at each),
with the notebook's own folder as the kernel's working directory.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from docs_support import DOCS, fixture_copy

NOTEBOOK = DOCS / "notebooks" / "explore.ipynb"


def test_committed_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    for i, cell in enumerate(code):
        assert cell.outputs == [] and cell.execution_count is None, (
            f"code cell {i} has outputs; clear them before committing"
        )


def execute(
    repo: Path | None, monkeypatch: pytest.MonkeyPatch, scratch: Path, where: Path = NOTEBOOK
) -> list:
    """Run the notebook; its kernel's temporary folders go under ``scratch``."""
    from nbclient import NotebookClient

    monkeypatch.setenv("TMPDIR", str(scratch))  # the notebook's mkdtemp, removed with tmp_path

    if repo is None:
        monkeypatch.delenv("CODECITE_NOTEBOOK_REPO", raising=False)
    else:
        monkeypatch.setenv("CODECITE_NOTEBOOK_REPO", str(repo))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(where, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(where.parent)}},
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    return outputs


def check(outputs: list, repo: Path) -> None:
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    tables = [h for h in html if "<table><caption>" in h]
    assert len(tables) >= 3, "a table per question picked from the index"
    text = "".join(o.get("text", "") for o in outputs)
    assert "s = (bm25_q + w*bm25_e + wv*bm25_v)" in text and "symbol_hit@10" in text
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 3  # corpus composition, score factors, hit@k
    assert (repo / ".codecite" / "manifest.json").is_file()


def test_notebook_executes_on_the_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = fixture_copy(tmp_path)
    outputs = execute(repo, monkeypatch, tmp_path)
    check(outputs, repo)
    html = "".join(o["data"].get("text/html", "") for o in outputs if "data" in o)
    assert "geokit/" in html


def test_notebook_executes_on_another_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """codecite's own retrievers package and docs, a repository the notebook never saw."""
    repo = tmp_path / "other"
    shutil.copytree(
        DOCS.parent / "retrievers",
        repo / "retrievers",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copytree(DOCS, repo / "docs", ignore=shutil.ignore_patterns("notebooks"))
    outputs = execute(repo, monkeypatch, tmp_path)
    check(outputs, repo)
    html = "".join(o["data"].get("text/html", "") for o in outputs if "data" in o)
    assert "retrievers/" in html and "geokit" not in html


def test_a_copy_of_the_notebook_runs_on_the_folder_it_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fixture_copy(tmp_path)  # a user's repository, the notebook copied into it
    shutil.copy(NOTEBOOK, repo / "explore.ipynb")
    outputs = execute(None, monkeypatch, tmp_path, where=repo / "explore.ipynb")
    check(outputs, repo)
