"""docs/notebooks/explore.ipynb runs top to bottom, and is committed without outputs.

It is executed with nbclient on a temporary copy of the fixture repository
(``CODECITE_NOTEBOOK_REPO`` points the notebook at it), with the notebook's own
folder as the kernel's working directory.
"""

from __future__ import annotations

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


def test_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nbclient import NotebookClient

    repo = fixture_copy(tmp_path)
    monkeypatch.setenv("CODECITE_NOTEBOOK_REPO", str(repo))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<table><caption>" in h and "recipes/static_shift.md" in h for h in html)
    text = "".join(o.get("text", "") for o in outputs)
    assert "s = (bm25_q + w*bm25_e + wv*bm25_v)" in text and "symbol_hit@10" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert (repo / ".codecite" / "manifest.json").is_file()
