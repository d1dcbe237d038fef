"""What a node's vector is made of (``codecite.dense.texts``), on nodes of a real build,
and how vectors made from another text rule are carried over."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from dense_fakes import FakeLocal
from test_vectors_survive import _build, _edit, _manifest, _vectors

import codecite
from codecite.cli.app import EXIT_OK
from codecite.dense import texts
from codecite.dense.texts import embedded_text, node_text, rule_of

MODULE = '''"""Tables of survey stations."""


class StationTable:
    """A table of survey stations, one row a station.

    Rows keep their insertion order, and columns are typed.

    Parameters
    ----------
    title : str
        Shown above the table when printed.
    """

    def add_column(self, header, *, width=None, justify="left"):
        """Add a column to the table.

        Args:
            header: the column's title.
        """

    def _private(self):
        """Not part of the API."""


LIMIT = 1000
'''

DOC = """# User guide

## Tables

### Adding columns

Call `StationTable.add_column` once per column.
"""


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    repo = tmp_path_factory.mktemp("texts") / "repo"
    (repo / "stations").mkdir(parents=True)
    (repo / "stations" / "__init__.py").write_text("")
    (repo / "stations" / "table.py").write_text(MODULE)
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text(DOC)
    codecite.build(repo)
    lines = (repo / ".codecite" / "nodes.jsonl").read_text().splitlines()
    out = {}
    for rec in map(json.loads, lines):
        meta = rec["metadata"]
        key = meta.get("symbol") or " > ".join(meta.get("heading_path") or []) or meta["kind"]
        out[key] = rec
    return out


def test_a_class_is_its_name_in_words_its_parameters_its_opening_and_its_methods(records):
    text = embedded_text(records["stations.table.StationTable"])
    lines = text.splitlines()
    assert lines[0] == "station table (stations table)"
    assert "A table of survey stations, one row a station." in text
    assert "Rows keep their insertion order, and columns are typed." in text
    assert "Shown above the table" not in text and "----" not in text  # no Parameters section
    assert lines[-1] == "methods: add column"  # public methods only, in words


def test_a_method_drops_self_annotations_defaults_and_its_args_section(records):
    record = records["stations.table.StationTable.add_column"]
    text = embedded_text(record)
    assert text.splitlines() == [
        "add column (stations table station table)",
        "add_column(header, width, justify)",
        "Add a column to the table.",
    ]
    assert len(text) < len(node_text(record))


def test_an_assignment_keeps_its_value(records):
    assert embedded_text(records["stations.table.LIMIT"]).splitlines() == [
        "limit (stations table)",
        "LIMIT = 1000",
    ]


def test_a_doc_section_is_its_heading_path_then_its_body(records):
    record = records["User guide > Tables > Adding columns"]
    text = embedded_text(record)
    assert text.splitlines()[0] == "User guide > Tables > Adding columns"
    assert "Call `StationTable.add_column` once per column." in text
    assert text == record["text"]  # a section's node text already opens with its path


def test_a_module_docstring_is_the_module_in_words_and_its_opening(records):
    assert embedded_text(records["stations.table"]).splitlines() == [
        "stations table module",
        "Tables of survey stations.",
    ]


def test_the_rule_of_an_index_made_before_rules_were_recorded_is_the_node_text():
    assert rule_of({"backend": "local"}) is node_text
    assert rule_of({"backend": "local", "text": texts.TEXT_RULE}) is embedded_text
    assert rule_of({"backend": "local", "text": "a-rule-from-the-future"}) is None


def test_vectors_made_from_node_texts_are_reused_only_where_the_text_is_the_same(
    sample_repo: Path, fake_local: FakeLocal, monkeypatch: pytest.MonkeyPatch
):
    """An index embedded by the node-text rule, then built by this one after an edit:
    a node whose embedded text equals its node text (a recipe) keeps its row bit for
    bit; every other node is embedded again, from its new text."""
    monkeypatch.setattr(texts, "ACTIVE_RULE", texts.NODE_TEXT_RULE)
    assert _build(str(sample_repo), "--embed", "--embed-backend", "local") == EXIT_OK
    assert _manifest(sample_repo)["embedding"]["text"] == texts.NODE_TEXT_RULE
    before = _vectors(sample_repo)
    nodes = [
        json.loads(line)
        for line in (sample_repo / ".codecite" / "nodes.jsonl").read_text().splitlines()
    ]
    same = {r["id"] for r in nodes if embedded_text(r) == r["text"]}
    assert same and len(same) < len(nodes)
    fake_local.embedded.clear()
    monkeypatch.setattr(texts, "ACTIVE_RULE", texts.TEXT_RULE)
    _edit(sample_repo)
    assert _build(str(sample_repo)) == EXIT_OK
    assert _manifest(sample_repo)["embedding"]["text"] == texts.TEXT_RULE
    after = _vectors(sample_repo)
    now = {
        json.loads(line)["id"]: json.loads(line)
        for line in (sample_repo / ".codecite" / "nodes.jsonl").read_text().splitlines()
    }
    assert sorted(fake_local.embedded) == sorted(
        embedded_text(r) for i, r in now.items() if i not in same
    )
    for node_id in same & set(now):
        assert after[node_id] == before[node_id]
    assert np.load(sample_repo / ".codecite" / "vectors.npy").shape[0] == len(now)
