"""The typed record of one ``nodes.jsonl`` line, checked as an index is loaded.

A checksum proves that ``nodes.jsonl`` is the file the manifest describes, not
that its values have the types every reader assumes. A record edited with its
checksum updated (or written by a buggy build) could hold ``"start_line":
"abc"`` and be cited as ``README.rst:abc-78``, or ``NaN``, which Python's
``json`` module accepts and ``codecite query --json`` would print back as
invalid JSON. So each line is decoded strictly (``NaN``, ``Infinity`` and
numbers too large for a float are refused) and checked against the record
below; the first bad one raises ``IndexIntegrityError`` naming the file, the
line, the field and the fix.

The record (``METADATA_FIELDS`` is the table the check reads)::

    id          str
    text        str
    metadata    source_path  str                  required
                kind         a NodeKind value     required
                start_line   int >= 1             required (true/false are not ints)
                end_line     int >= start_line    required
                symbol heading signature docstring module symbol_type     str
                workflow returns                                          str or null
                priority                                                  int >= 0
                public has_init                                           true or false
                heading_path refs code_refs decorators bases              list of str
                params fields                  list of objects with a str "name"
                any other key                  any JSON value (codecite reads none)

The check is a hand-written type test per field rather than a pydantic model:
loading is performance-sensitive, and ``type(v) is T`` tests cost less than a
pydantic ``TypeAdapter`` validating the same dicts, with no schema to build when
``codecite`` starts (figures in docs/reliability.md, "Loaded records are typed").

Example:
    >>> record_problem({"id": "a", "text": "t", "metadata": {
    ...     "source_path": "README.md", "kind": "doc_section",
    ...     "start_line": "abc", "end_line": 4}})
    ('metadata.start_line', 'abc', 'an integer >= 1')
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
from collections.abc import Iterator
from enum import Enum
from operator import methodcaller
from pathlib import Path
from typing import Any, BinaryIO

from codecite.errors import IndexIntegrityError
from codecite.node_parsers.schema import NodeKind
from codecite.store.files import check_size
from codecite.vocabulary import REBUILD_FIX

__all__ = [
    "METADATA_FIELDS",
    "REQUIRED_METADATA",
    "Shape",
    "decode_record",
    "read_node_records",
    "record_problem",
]


class Shape(str, Enum):
    """What a field's value must be; the value is how a message says it."""

    TEXT = "a string"
    TEXT_OR_NULL = "a string or null"
    LINE = "an integer >= 1"
    COUNT = "an integer >= 0"
    FLAG = "true or false"
    TEXTS = "a list of strings"
    TABLES = 'a list of objects with a string "name"'
    KIND = "one of " + ", ".join(k.value for k in NodeKind)


METADATA_FIELDS: dict[str, Shape] = {
    "source_path": Shape.TEXT,
    "kind": Shape.KIND,
    "start_line": Shape.LINE,
    "end_line": Shape.LINE,
    "symbol": Shape.TEXT,
    "heading": Shape.TEXT,
    "signature": Shape.TEXT,
    "docstring": Shape.TEXT,
    "module": Shape.TEXT,
    "symbol_type": Shape.TEXT,
    "workflow": Shape.TEXT_OR_NULL,
    "returns": Shape.TEXT_OR_NULL,
    "priority": Shape.COUNT,
    "public": Shape.FLAG,
    "has_init": Shape.FLAG,
    "heading_path": Shape.TEXTS,
    "refs": Shape.TEXTS,
    "code_refs": Shape.TEXTS,
    "decorators": Shape.TEXTS,
    "bases": Shape.TEXTS,
    "params": Shape.TABLES,
    "fields": Shape.TABLES,
}
REQUIRED_METADATA = ("source_path", "kind", "start_line", "end_line")

# The Python type of each shape; ``type(v) is int`` refuses bools (``type(True) is bool``)
_PYTHON_TYPE = {
    Shape.TEXT: str,
    Shape.TEXT_OR_NULL: str,
    Shape.LINE: int,
    Shape.COUNT: int,
    Shape.FLAG: bool,
    Shape.TEXTS: list,
    Shape.TABLES: list,
    Shape.KIND: str,
}
_TYPE_OF: dict[str, Any] = {key: _PYTHON_TYPE[shape] for key, shape in METADATA_FIELDS.items()}
_LEAST = {
    key: 1 if shape is Shape.LINE else 0
    for key, shape in METADATA_FIELDS.items()
    if shape in (Shape.LINE, Shape.COUNT)
}
_NULLABLE = frozenset(k for k, s in METADATA_FIELDS.items() if s is Shape.TEXT_OR_NULL)
_TABLE_KEYS = frozenset(k for k, s in METADATA_FIELDS.items() if s is Shape.TABLES)
_KINDS = frozenset(k.value for k in NodeKind)
# "".join raises TypeError on any item that is not a str, and .get AttributeError on any
# table that is not an object: one C-level pass per list instead of a Python loop
_JOIN = "".join
_NAME_OF = methodcaller("get", "name")

Problem = tuple[str, Any, str]  # field, its value, what it should be


class _Shown(str):
    """A value shown as it is written (``missing``, ``NaN``), not quoted."""

    def __repr__(self) -> str:
        return str(self)


_MISSING = _Shown("missing")


def record_problem(rec: Any) -> Problem | None:
    """None for a well-typed node record, else ``(field, value, what it should be)``.

    One pass over the metadata, written for speed: it runs on every line of
    every index load (docs/reliability.md has the cost).
    """
    if type(rec) is not dict:
        return "record", rec, "an object with id, text and metadata"
    for key in ("id", "text"):
        if type(rec.get(key)) is not str:
            return key, rec.get(key, _MISSING), Shape.TEXT.value
    meta: Any = rec.get("metadata", _MISSING)
    if type(meta) is not dict:
        return "metadata", meta, "an object"
    type_of = _TYPE_OF.get
    for key, value in meta.items():
        want = type_of(key)
        if want is None:  # a key codecite does not read
            continue
        if type(value) is not want:
            if value is None and key in _NULLABLE:
                continue
            return _problem(key, value)
        if want is list:
            if value:
                try:
                    _JOIN(map(_NAME_OF, value) if key in _TABLE_KEYS else value)
                except (TypeError, AttributeError):
                    return _problem(key, value)
        elif want is int and value < _LEAST[key]:
            return _problem(key, value)
    for key in REQUIRED_METADATA:
        if key not in meta:
            return _problem(key, _MISSING)
    if meta["kind"] not in _KINDS:
        return _problem("kind", meta["kind"])
    if meta["start_line"] > meta["end_line"]:
        return (
            "metadata.end_line",
            meta["end_line"],
            f"an integer >= start_line ({meta['start_line']})",
        )
    return None


def _problem(key: str, value: Any) -> Problem:
    return f"metadata.{key}", value, METADATA_FIELDS[key].value


# -- strict decoding -------------------------------------------------------------------


class _NotFinite(ValueError):
    """A JSON line holds NaN, Infinity or a number too large for a float."""


def _refuse_constant(name: str) -> Any:
    raise _NotFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e400: valid JSON, but float("inf") once read
        raise _NotFinite(text)
    return value


# one decoder for every line: json.loads(line, parse_constant=...) would build one per call
_STRICT = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def _decode_line(line: str) -> Any:
    """``_STRICT.decode(line)``; a line as the builder writes it (a JSON value, then the
    newline) skips the two whitespace scans of ``decode``."""
    try:
        value, end = _STRICT.raw_decode(line)
    except json.JSONDecodeError:
        return _STRICT.decode(line)  # leading whitespace is fine; the error, if any, is its
    if end != len(line) and not line[end:].isspace():
        return _STRICT.decode(line)  # raises "Extra data"
    return value


class _Mark:
    def __init__(self, text: str) -> None:
        self.text = text


def _mark_float(text: str) -> Any:
    value = float(text)
    return _Mark(text) if math.isinf(value) else value


_MARKING = json.JSONDecoder(parse_constant=_Mark, parse_float=_mark_float)


def _not_finite_field(line: str) -> tuple[str, str]:
    """Where a refused number sits in ``line`` (dotted path) and how it is written."""
    stack: list[tuple[str, Any]] = [("", _MARKING.decode(line))]
    while stack:
        where, value = stack.pop()
        if isinstance(value, _Mark):
            return where or "record", value.text
        items = (
            value.items()
            if isinstance(value, dict)
            else enumerate(value)
            if isinstance(value, list)
            else ()
        )
        stack += [(f"{where}.{k}" if where else str(k), v) for k, v in items]
    return "record", "a non-finite number"  # not reached: the strict decoder refused it


# -- reading -------------------------------------------------------------------------------


def _shown(value: Any) -> str:
    """``value`` as the file writes it (JSON), cut to 60 characters."""
    if isinstance(value, _Shown):
        return str(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _bad_record(path: Path, lineno: int, problem: Problem) -> IndexIntegrityError:
    field, value, should = problem
    return IndexIntegrityError(
        f"index file '{path}' line {lineno}: field '{field}' is "
        f"{_shown(value)}, not {should} (edited?); {REBUILD_FIX}"
    )


def read_node_records(path: Path) -> list[dict[str, Any]]:
    """Every record of a ``nodes.jsonl``, each decoded strictly and type-checked.

    Raises ``IndexIntegrityError`` naming the file, the line and (for a
    well-formed line with a bad value) the field, and the fix.
    """
    check_size(path)
    try:
        fh = path.open("rb")
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    with fh, collector_paused():
        return _read_lines(path, fh)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused meanwhile: reading records or building an index
    makes hundreds of thousands of dicts and lists, none of them garbage for long, and
    each full collection would walk them all again (reference counting still frees what
    is dropped); the collector is switched back on afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _read_lines(path: Path, fh: BinaryIO) -> list[dict[str, Any]]:
    return [decode_record(path, lineno, raw) for lineno, raw in enumerate(fh, 1)]


def decode_record(path: Path, lineno: int, raw: bytes) -> dict[str, Any]:
    """Line ``lineno`` of the ``nodes.jsonl`` at ``path``, decoded strictly and type-checked.

    Raises ``IndexIntegrityError`` naming the file, the line and (for a well-formed
    line with a bad value) the field, and the fix.
    """
    try:
        line = raw.decode("utf-8")
        rec = _decode_line(line)
    except _NotFinite:
        field, text = _not_finite_field(line)
        raise _bad_record(path, lineno, (field, _Shown(text), "a finite JSON number")) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise IndexIntegrityError(
            f"index file '{path}' line {lineno} is not valid "
            f"JSON (truncated or edited?); {REBUILD_FIX}"
        ) from exc
    problem = record_problem(rec)
    if problem is not None:
        raise _bad_record(path, lineno, problem)
    return rec  # type: ignore[no-any-return]
