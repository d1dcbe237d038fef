"""Golden nodes of the fixture repository: kind, symbol or heading path, span.

Regenerate after an intended parser change with:

    CODECITE_UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import codecite

GOLDEN = Path(__file__).parent / "golden" / "sample_repo_nodes.jsonl"


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
