"""What a node's vector is made of (``codecite.dense.texts``), and how vectors made by
another text rule are carried over: reused exactly where both rules give the same text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dense_fakes import FakeLocal
from test_vectors_survive import _build, _edit, _manifest, _vectors

from codecite.cli.app import EXIT_OK
from codecite.dense import texts
from codecite.dense.texts import node_text, rule_of
from codecite.vocabulary import CODE_KINDS

OTHER = "shouting-code"  # a rule of this test: code nodes in capitals, the rest as is


def shouting_code(record: Mapping[str, Any]) -> str:
    text = node_text(record)
    return text.upper() if record["metadata"]["kind"] in CODE_KINDS else text


def _records(repo: Path) -> dict[str, dict]:
    lines = (repo / ".codecite" / "nodes.jsonl").read_text().splitlines()
    return {rec["id"]: rec for rec in map(json.loads, lines)}


def test_the_shipped_rule_embeds_the_node_text_and_says_so(sample_repo: Path, fake_local):
    assert _build(str(sample_repo), "--embed", "--embed-backend", "local") == EXIT_OK
    assert _manifest(sample_repo)["embedding"]["text"] == texts.NODE_TEXT_RULE
    assert sorted(fake_local.embedded) == sorted(r["text"] for r in _records(sample_repo).values())


def test_the_rule_of_an_index_is_read_from_its_manifest():
    assert rule_of({"backend": "local"}) is node_text  # made before the rule was recorded
    assert rule_of({"backend": "local", "text": texts.NODE_TEXT_RULE}) is node_text
    assert rule_of({"backend": "local", "text": "a-rule-from-the-future"}) is None


def test_vectors_of_another_rule_are_reused_only_where_the_text_is_the_same(
    sample_repo: Path, fake_local: FakeLocal, monkeypatch: pytest.MonkeyPatch
):
    """An index embedded by another rule, then built by the shipped one after an edit:
    a node whose text both rules agree on (a doc section) keeps its row bit for bit;
    every code node is embedded again, from its node text."""
    monkeypatch.setitem(texts.RULES, OTHER, shouting_code)
    monkeypatch.setattr(texts, "ACTIVE_RULE", OTHER)
    assert _build(str(sample_repo), "--embed", "--embed-backend", "local") == EXIT_OK
    assert _manifest(sample_repo)["embedding"]["text"] == OTHER
    before = _vectors(sample_repo)
    fake_local.embedded.clear()
    monkeypatch.setattr(texts, "ACTIVE_RULE", texts.NODE_TEXT_RULE)
    _edit(sample_repo)
    assert _build(str(sample_repo)) == EXIT_OK
    assert _manifest(sample_repo)["embedding"]["text"] == texts.NODE_TEXT_RULE
    now = _records(sample_repo)
    same = {i for i, r in now.items() if shouting_code(r) == r["text"] and i in before}
    assert same and len(same) < len(now)
    assert sorted(fake_local.embedded) == sorted(r["text"] for i, r in now.items() if i not in same)
    after = _vectors(sample_repo)
    assert all(after[i] == before[i] for i in same)
    assert np.load(sample_repo / ".codecite" / "vectors.npy").shape[0] == len(now)


def test_vectors_of_an_unknown_rule_are_not_reused(
    sample_repo: Path, fake_local: FakeLocal, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setitem(texts.RULES, OTHER, node_text)  # the same texts, another name
    monkeypatch.setattr(texts, "ACTIVE_RULE", OTHER)
    assert _build(str(sample_repo), "--embed", "--embed-backend", "local") == EXIT_OK
    monkeypatch.delitem(texts.RULES, OTHER)  # a later codecite that does not know it
    monkeypatch.setattr(texts, "ACTIVE_RULE", texts.NODE_TEXT_RULE)
    fake_local.embedded.clear()
    _edit(sample_repo)
    assert _build(str(sample_repo)) == EXIT_OK
    assert len(fake_local.embedded) == len(_records(sample_repo))  # every node again
