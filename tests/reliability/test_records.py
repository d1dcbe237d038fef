"""Loaded node records are typed.

A ``nodes.jsonl`` edited with its checksum updated (and the manifest sealed
again, as a careful tamperer with this user's key would) passes every
checksum; only the record check can refuse ``"start_line": "abc"`` (cited as
``README.rst:abc-78``) or ``NaN`` (printed back as invalid JSON by
``--json``). A record is checked when it is first read (a load reads none:
``codecite.store.stored``): a query returning a bad record, or ``codecite stats
--verify`` reading them all, fails with one line naming the file, the line, the
field and the fix, and ``codecite query`` exits 1 without a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reliability_support import cli, cli_inproc, reseal_nodes

import codecite
from codecite.errors import IndexIntegrityError
from codecite.store import files as store
from codecite.store.records import METADATA_FIELDS, Shape, read_node_records, record_problem

FIX = "run `codecite build --full`"
LINE = 2  # the record edited: a doc section of docs/guide/static_shift.rst
QUERY = "static shift correction shape"  # finds that record first


@pytest.fixture
def built(sample_repo: Path) -> Path:
    codecite.build(sample_repo)
    return sample_repo


def _nodes(root: Path) -> Path:
    return root / ".codecite" / "nodes.jsonl"


def _reseal(root: Path) -> None:
    """Record the new digests of nodes.jsonl and seal the manifest with this user's key."""
    reseal_nodes(root / ".codecite")


def _edit_record(root: Path, lineno: int, field: str, raw: str) -> str:
    """Set metadata ``field`` of record ``lineno`` to the JSON text ``raw``; the source path."""
    lines = _nodes(root).read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[lineno - 1])
    rec["metadata"][field] = "@@VALUE@@"
    lines[lineno - 1] = json.dumps(rec, ensure_ascii=False).replace('"@@VALUE@@"', raw)
    _nodes(root).write_text("\n".join(lines) + "\n", encoding="utf-8")
    _reseal(root)
    return str(rec["metadata"]["source_path"])


def _replace_line(root: Path, lineno: int, text: str) -> None:
    lines = _nodes(root).read_text(encoding="utf-8").splitlines()
    lines[lineno - 1] = text
    _nodes(root).write_text("\n".join(lines) + "\n", encoding="utf-8")
    _reseal(root)


def _load_error(root: Path) -> str:
    """The error reading every record gives (``codecite stats --verify``); a query meets
    the same error when it returns the record (the tests through the real command)."""
    index = codecite.load(root, check_stale=False)  # a load reads no record
    with pytest.raises(IndexIntegrityError) as err:
        index.verify()
    return str(err.value)


def _message(root: Path, field: str, shown: str, should: str, lineno: int = LINE) -> str:
    return (
        f"index file '{_nodes(root)}' line {lineno}: field '{field}' is {shown}, "
        f"not {should} (edited?); {FIX}"
    )


# -- the two cases, through the real command ------------------------------------


def test_query_refuses_a_text_line_number(built: Path) -> None:
    source = _edit_record(built, LINE, "start_line", '"abc"')
    for args in (("query", QUERY), ("query", QUERY, "--json")):
        run = cli(*args, "-C", str(built))
        assert run.returncode == 1 and run.stdout == ""
        assert (
            run.stderr
            == "codecite query: "
            + _message(built, "metadata.start_line", '"abc"', "an integer >= 1")
            + "\n"
        )
        assert "Traceback" not in run.stderr and f"{source}:abc" not in run.stdout


def test_query_refuses_nan_and_json_never_prints_it(built: Path) -> None:
    _edit_record(built, LINE, "end_line", "NaN")
    run = cli("query", QUERY, "--json", "-C", str(built))
    assert run.returncode == 1 and run.stdout == "" and "NaN" not in run.stdout
    assert (
        run.stderr
        == "codecite query: "
        + _message(built, "metadata.end_line", "NaN", "a finite JSON number")
        + "\n"
    )
    assert "Traceback" not in run.stderr


def test_a_good_index_prints_strict_json(built: Path) -> None:
    code, out, err = cli_inproc("query", QUERY, "--json", "-C", str(built))
    assert code == 0 and err == ""
    json.loads(out, parse_constant=lambda name: pytest.fail(f"--json printed {name}"))


# -- every field, every kind of wrong value ----------------------------------------------


@pytest.mark.parametrize(
    ("field", "raw", "should"),
    [
        ("start_line", '"abc"', "an integer >= 1"),
        ("start_line", "true", "an integer >= 1"),  # a bool is not a line number
        ("start_line", "0", "an integer >= 1"),
        ("start_line", "1.5", "an integer >= 1"),
        ("end_line", "null", "an integer >= 1"),
        ("end_line", "-3", "an integer >= 1"),
        ("source_path", "42", "a string"),
        ("source_path", '["README.md"]', "a string"),
        ("kind", '"bogus"', Shape.KIND.value),
        ("kind", "7", Shape.KIND.value),
        ("symbol", "{}", "a string"),
        ("workflow", "3", "a string or null"),
        ("priority", '"high"', "an integer >= 0"),
        ("priority", "-1", "an integer >= 0"),
        ("priority", "false", "an integer >= 0"),
        ("public", '"yes"', "true or false"),
        ("public", "1", "true or false"),
        ("heading_path", '"Static shift correction"', "a list of strings"),
        ("heading_path", '["a", 1]', "a list of strings"),
        ("refs", "null", "a list of strings"),
        ("params", '[{"name": 1}]', 'a list of objects with a string "name"'),
        ("params", '["x"]', 'a list of objects with a string "name"'),
        ("docstring", "[]", "a string"),
    ],
)
def test_bad_field_is_named_with_file_and_line(
    built: Path, field: str, raw: str, should: str
) -> None:
    _edit_record(built, LINE, field, raw)
    assert _load_error(built) == _message(built, f"metadata.{field}", raw, should)


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
@pytest.mark.parametrize("field", ["end_line", "priority", "extra_key"])
def test_non_finite_numbers_are_refused_anywhere(built: Path, field: str, raw: str) -> None:
    _edit_record(built, LINE, field, raw)
    assert _load_error(built) == _message(built, f"metadata.{field}", raw, "a finite JSON number")


def test_non_finite_number_deep_in_a_value_is_located(built: Path) -> None:
    _edit_record(built, LINE, "params", '[{"name": "x", "default": [1, NaN]}]')
    assert _load_error(built) == _message(
        built, "metadata.params.0.default.1", "NaN", "a finite JSON number"
    )


@pytest.mark.parametrize(
    ("line", "field", "shown", "should"),
    [
        ('{"id": 1, "text": "x", "metadata": {}}', "id", "1", "a string"),
        ('{"text": "x", "metadata": {}}', "id", "missing", "a string"),
        ('{"id": "a", "metadata": {}}', "text", "missing", "a string"),
        ('{"id": "a", "text": "x"}', "metadata", "missing", "an object"),
        ('{"id": "a", "text": "x", "metadata": []}', "metadata", "[]", "an object"),
        ("[1, 2]", "record", "[1, 2]", "an object with id, text and metadata"),
        (
            '{"id": "a", "text": "x", "metadata": {"source_path": "a.py", "kind": "recipe", '
            '"start_line": 1}}',
            "metadata.end_line",
            "missing",
            "an integer >= 1",
        ),
        (
            '{"id": "a", "text": "x", "metadata": {"source_path": "a.py", "kind": "recipe", '
            '"start_line": 9, "end_line": 3}}',
            "metadata.end_line",
            "3",
            "an integer >= start_line (9)",
        ),
    ],
)
def test_bad_record_shape_is_named(
    built: Path, line: str, field: str, shown: str, should: str
) -> None:
    _replace_line(built, LINE, line)
    assert _load_error(built) == _message(built, field, shown, should)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"Static", b"St\xffatic"),  # not UTF-8
        (b"}}", b'}} {"id": "b"}'),
    ],
)  # extra data
def test_undecodable_line_is_named(built: Path, old: bytes, new: bytes) -> None:
    data = _nodes(built).read_bytes().split(b"\n")
    data[LINE - 1] = data[LINE - 1].replace(old, new, 1)
    _nodes(built).write_bytes(b"\n".join(data))
    _reseal(built)
    assert _load_error(built) == (
        f"index file '{_nodes(built)}' line {LINE} is not valid JSON (truncated or edited?); {FIX}"
    )


def test_long_values_are_cut_in_the_message(built: Path) -> None:
    _edit_record(built, LINE, "start_line", json.dumps("x" * 500))
    error = _load_error(built)
    assert f"'metadata.start_line' is \"{'x' * 56}..., not" in error and len(error) < 300


# -- a good index reads exactly as before ---------------------------------------------------


def test_records_equal_plain_json_of_every_line(built: Path) -> None:
    lines = _nodes(built).read_text(encoding="utf-8").splitlines()
    assert read_node_records(_nodes(built)) == [json.loads(line) for line in lines]
    assert len(codecite.load(built, check_stale=False).nodes) == len(lines)


def test_whitespace_around_a_record_is_accepted(built: Path, tmp_path: Path) -> None:
    lines = _nodes(built).read_text(encoding="utf-8").splitlines()
    path = tmp_path / "nodes.jsonl"
    path.write_text("".join(f"  {line} \t\n" for line in lines), encoding="utf-8")
    assert read_node_records(path) == [json.loads(line) for line in lines]


def test_missing_and_oversized_files_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "nodes.jsonl"
    with pytest.raises(IndexIntegrityError, match=r"nodes.jsonl' is missing; run"):
        read_node_records(path)
    path.write_text("{}\n")
    monkeypatch.setattr(store, "MAX_BULK_BYTES", 1)
    with pytest.raises(IndexIntegrityError, match=r"over the limit of 1"):
        read_node_records(path)


# -- the fast check agrees with a plain reading of the schema ---------------------------------


def _plain_ok(shape: Shape, value: Any) -> bool:
    """The schema of codecite.store.records, read the slow and obvious way."""
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if shape in (Shape.LINE, Shape.COUNT):
        return is_int and value >= (1 if shape is Shape.LINE else 0)
    if shape in (Shape.TEXTS, Shape.TABLES):
        return isinstance(value, list) and all(
            isinstance(v, str)
            if shape is Shape.TEXTS
            else isinstance(v, dict) and isinstance(v.get("name"), str)
            for v in value
        )
    if shape is Shape.FLAG:
        return isinstance(value, bool)
    if shape is Shape.TEXT_OR_NULL and value is None:
        return True
    kinds = ("python_symbol", "python_method", "module_doc", "doc_section", "recipe")
    return isinstance(value, str) and (shape is not Shape.KIND or value in kinds)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "abc", "recipe", "doc_section", "name"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["name", "kind", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)
_good = {"source_path": "a.py", "kind": "python_symbol", "start_line": 3, "end_line": 7}


@given(field=st.sampled_from(sorted(METADATA_FIELDS)), value=_json)
def test_fast_check_agrees_with_the_plain_schema(field: str, value: Any) -> None:
    meta = {**_good, field: value}
    ok = _plain_ok(METADATA_FIELDS[field], value)
    if ok and field in ("start_line", "end_line"):
        ok = meta["start_line"] <= meta["end_line"]
    assert (record_problem({"id": "i", "text": "t", "metadata": meta}) is None) == ok


@given(
    extra=st.dictionaries(
        st.text(max_size=5).filter(lambda k: k not in METADATA_FIELDS), _json, max_size=4
    )
)
def test_keys_codecite_does_not_read_may_hold_any_json(extra: dict[str, Any]) -> None:
    assert record_problem({"id": "i", "text": "t", "metadata": {**extra, **_good}}) is None
