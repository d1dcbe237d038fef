"""Golden nodes of the fixture repository: kind, name, span, signature, params, docstring.

Regenerate after an intended parser change with:

    CODECITE_UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from pathlib import Path

import codecite

GOLDEN = Path(__file__).parent / "golden" / "sample_repo_nodes.jsonl"


def _summary(docstring: object) -> str | None:
    """The docstring's first line: what a reader sees first."""
    if not isinstance(docstring, str) or not docstring.strip():
        return None
    return docstring.strip().splitlines()[0]


def _rows(root: Path) -> list[str]:
    index = codecite.load(root, check_stale=False)
    rows = []
    for node in index.nodes:
        m = node.metadata
        rows.append(
            json.dumps(
                {
                    "path": m["source_path"],
                    "kind": m["kind"],
                    "name": m.get("symbol") or m.get("heading_path"),
                    "span": [m["start_line"], m["end_line"]],
                    "workflow": m.get("workflow"),
                    "signature": m.get("signature"),
                    "params": m.get("params"),
                    "returns": m.get("returns"),
                    "summary": _summary(m.get("docstring")),
                    "symbol_type": m.get("symbol_type"),
                    "decorators": m.get("decorators"),
                    "text_sha": hashlib.sha256(node.text.encode("utf-8")).hexdigest()[:16],
                },
                sort_keys=True,
            )
        )
    return sorted(rows)


def test_fixture_nodes_match_golden(built_sample: Path) -> None:
    rows = _rows(built_sample)
    if os.environ.get("CODECITE_UPDATE_GOLDEN"):
        GOLDEN.write_text("\n".join(rows) + "\n", encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8").splitlines()
    diff = "\n".join(difflib.unified_diff(expected, rows, "golden", "built", lineterm=""))
    assert rows == expected, f"nodes differ from {GOLDEN.name}:\n{diff}"
