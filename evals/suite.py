"""Evaluation suites: JSONL files of questions with their expected behaviour.

One JSON object per line; blank lines and lines starting with ``#`` are
skipped. The field names are those of docs/evaluation.md ("Suite format");
fields this harness does not know are kept in ``SuiteRecord.extra`` rather
than rejected, because suites outlive harness versions. A line that is not a
JSON object, or whose known fields have the wrong type, raises ``SuiteError``
naming the file and line number.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from codecite.errors import SuiteError

logger = logging.getLogger(__name__)

BUNDLED_DIR = Path(__file__).resolve().parent / "suites"
TEXT_FIELDS = ("expected_intent", "expected_workflow", "expected_line", "kind")
LIST_FIELDS = (
    "expected_symbols",
    "expected_sources",
    "must_not_contain",
    "expected_retrieval_workflow",
)
KNOWN_FIELDS = frozenset(("query", "expect_clarification", *TEXT_FIELDS, *LIST_FIELDS))


@dataclass(frozen=True)
class SuiteRecord:
    """One question and what a good system does with it.

    Example:
        >>> SuiteRecord(query="where is the config loaded", expected_symbols=("a.load",))
        ... # doctest: +ELLIPSIS
        SuiteRecord(query='where is the config loaded', ...)
    """

    query: str
    expected_intent: str | None = None
    expected_workflow: str | None = None
    expected_retrieval_workflow: tuple[str, ...] = ()
    expected_line: str | None = None
    expected_symbols: tuple[str, ...] = ()
    expected_sources: tuple[str, ...] = ()
    must_not_contain: tuple[str, ...] = ()
    expect_clarification: bool | None = None
    kind: str | None = None
    suite: str = ""
    line_no: int = 0
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Suite:
    """A loaded suite file: its path, display name and records in file order."""

    path: Path
    name: str
    records: tuple[SuiteRecord, ...]


def _where(path: Path, line_no: int) -> str:
    return f"suite '{path}', line {line_no}"


def _text(value: Any, key: str, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value or None
    raise SuiteError(f"{where}: field {key!r} must be a string, got {type(value).__name__}")


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    """A list of strings (a bare string is read as a one-item list)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(dict.fromkeys(v for v in value if v))  # de-duplicated, order kept
    raise SuiteError(f"{where}: field {key!r} must be a list of strings")


def _flag(value: Any, where: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise SuiteError(f"{where}: field 'expect_clarification' must be true or false")


def parse_record(data: Any, path: Path, line_no: int, suite: str = "") -> SuiteRecord:
    """Validate one decoded line and build its record."""
    where = _where(path, line_no)
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: expected a JSON object, got {type(data).__name__}")
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise SuiteError(f"{where}: field 'query' is required and must be a non-empty string")
    text = {key: _text(data.get(key), key, where) for key in TEXT_FIELDS}
    lists = {key: _strings(data.get(key), key, where) for key in LIST_FIELDS}
    extra = {k: v for k, v in data.items() if k not in KNOWN_FIELDS}
    return SuiteRecord(
        query=query.strip(),
        expected_intent=text["expected_intent"],
        expected_workflow=text["expected_workflow"],
        expected_line=text["expected_line"],
        kind=text["kind"],
        expected_retrieval_workflow=lists["expected_retrieval_workflow"],
        expected_symbols=lists["expected_symbols"],
        expected_sources=lists["expected_sources"],
        must_not_contain=lists["must_not_contain"],
        expect_clarification=_flag(data.get("expect_clarification"), where),
        suite=suite,
        line_no=line_no,
        extra=MappingProxyType(extra),
    )


def _decode(line: str, path: Path, line_no: int) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise SuiteError(
            f"{_where(path, line_no)}: not valid JSON ({exc.msg} at column "
            f"{exc.colno}); write one JSON object per line"
        ) from None
    except RecursionError:
        raise SuiteError(
            f"{_where(path, line_no)}: JSON nested too deeply; write one flat JSON object per line"
        ) from None


def load_suite(path: str | Path, name: str | None = None) -> Suite:
    """Read one suite file; raises ``SuiteError`` on a missing file or a bad line."""
    path = Path(path)
    name = name or path.stem
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(
            f"cannot read suite '{path}': {exc}; pass an existing UTF-8 JSONL file"
        ) from None
    records = []
    for line_no, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        records.append(parse_record(_decode(stripped, path, line_no), path, line_no, name))
    if not records:
        raise SuiteError(f"suite '{path}' has no records; add one JSON object per line")
    logger.info("loaded %d records from %s", len(records), path)
    return Suite(path=path, name=name, records=tuple(records))


def load_suites(paths: Iterable[str | Path]) -> tuple[Suite, ...]:
    """Load several suites; two files with the same stem get their parent folder prefixed."""
    files = [Path(p) for p in paths]
    stems = [f.stem for f in files]
    return tuple(
        load_suite(f, f"{f.parent.name}/{f.stem}" if stems.count(f.stem) > 1 else None)
        for f in files
    )


def bundled_suite_paths() -> tuple[Path, ...]:
    """The suites shipped with codecite (questions about codecite's own repository)."""
    return tuple(sorted(BUNDLED_DIR.glob("*.jsonl")))


def default_suite_paths(root: str | Path) -> tuple[Path, ...]:
    """Suites a repository keeps in ``evals/suites/*.jsonl`` (codecite's own layout)."""
    return tuple(sorted((Path(root) / "evals" / "suites").glob("*.jsonl")))
