"""Suite loading: comments, unknown fields, reference-design records, errors with file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codecite.errors import SuiteError
from codecite.evals import bundled_suite_paths, load_suite, load_suites

REFERENCE_RECORD = {
    "query": "correct static shift on line 22",
    "expected_intent": "workflow",
    "expected_workflow": "static_shift",
    "expected_line": "L22",
    "expected_symbols": ["geokit.agents.static_shift.StaticShiftAgent"],
    "must_not_contain": ["static_shift_fix"],
}


def write(tmp_path: Path, *lines: str, name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_comments_blank_lines_and_line_numbers(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# a comment",
        "",
        json.dumps({"query": "a"}),
        "   ",
        "  # indented comment",
        json.dumps({"query": "b", "kind": "docs"}),
    )
    suite = load_suite(path)
    assert [r.query for r in suite.records] == ["a", "b"]
    assert [r.line_no for r in suite.records] == [3, 6]
    assert suite.name == "s" and suite.records[1].kind == "docs"


def test_reference_record_loads_unchanged(tmp_path: Path) -> None:
    record = load_suite(write(tmp_path, json.dumps(REFERENCE_RECORD))).records[0]
    assert record.expected_intent == "workflow"
    assert record.expected_workflow == "static_shift"
    assert record.expected_line == "L22"
    assert record.expected_symbols == ("geokit.agents.static_shift.StaticShiftAgent",)
    assert record.must_not_contain == ("static_shift_fix",)
    assert record.expect_clarification is None and record.expected_sources == ()


def test_unknown_fields_are_kept(tmp_path: Path) -> None:
    line = json.dumps({"query": "q", "notes": "from the paper", "priority": 3})
    record = load_suite(write(tmp_path, line)).records[0]
    assert dict(record.extra) == {"notes": "from the paper", "priority": 3}


def test_lists_are_deduplicated_and_strings_accepted(tmp_path: Path) -> None:
    line = json.dumps(
        {
            "query": "q",
            "expected_symbols": ["a.b", "a.b", "c"],
            "expected_retrieval_workflow": "static_shift",
        }
    )
    record = load_suite(write(tmp_path, line)).records[0]
    assert record.expected_symbols == ("a.b", "c")
    assert record.expected_retrieval_workflow == ("static_shift",)


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"kind": "docs"}), "'query' is required"),
        (json.dumps({"query": "  "}), "'query' is required"),
        (json.dumps({"query": "q", "expected_symbols": [1]}), "'expected_symbols'"),
        (json.dumps({"query": "q", "expected_intent": 3}), "'expected_intent'"),
        (json.dumps({"query": "q", "expect_clarification": "yes"}), "'expect_clarification'"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path: Path, line: str, fragment: str) -> None:
    path = write(tmp_path, "# header", json.dumps({"query": "ok"}), line)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert f"suite '{path}', line 3" in str(info.value)
    assert fragment in str(info.value)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="cannot read suite"):
        load_suite(tmp_path / "missing.jsonl")
    with pytest.raises(SuiteError, match="has no records"):
        load_suite(write(tmp_path, "# only a comment"))


def test_same_stem_in_two_folders_gets_distinct_names(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = write(tmp_path / "a", json.dumps({"query": "x"}))
    two = write(tmp_path / "b", json.dumps({"query": "y"}))
    suites = load_suites([one, two])
    assert [s.name for s in suites] == ["a/s", "b/s"]
    assert suites[1].records[0].suite == "b/s"


def test_bundled_self_suite_is_well_formed() -> None:
    paths = bundled_suite_paths()
    assert any(p.name == "codecite_self.jsonl" for p in paths)
    records = [r for s in load_suites(paths) for r in s.records]
    assert len(records) >= 40
    kinds = {r.kind for r in records}
    assert {"paraphrase", "identifier", "docs", "out_of_scope"} <= kinds
    for r in records:
        assert r.expect_clarification is (r.kind == "out_of_scope"), r.query
