"""The records of a validation: one :class:`Finding` per problem, and the report.

``validate_generated_code`` returns a :class:`ValidationReport`, a plain dict
with fixed keys (it is printed as JSON by ``codecite validate --json``):
``ok, syntax_ok, errors, warnings, checked`` (the five keys of the original
validator's format), ``findings`` (the same problems with line, level, symbol
and close real names) and ``import_checked``. See docs/validation.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

ERROR = "error"  # proven absent or wrong
WARNING = "warning"  # could not be proven either way


class FindingRecord(TypedDict):
    """One finding as JSON (``ValidationReport["findings"]``)."""

    line: int
    level: str
    symbol: str
    message: str
    suggestions: list[str]


class ValidationReport(TypedDict):
    """The result of ``validate_generated_code``; ``ok`` means no error (warnings allowed).

    Example:
        >>> build_report([], syntax_ok=True, checked=["pkg.f"], import_checked=[])["ok"]
        True
    """

    ok: bool
    syntax_ok: bool
    errors: list[str]
    warnings: list[str]
    checked: list[str]
    findings: list[FindingRecord]
    import_checked: list[str]


@dataclass(frozen=True)
class Finding:
    """One problem: line, ``error``/``warning``, the symbol, the message, close names.

    ``probe`` is the ``(module, name)`` an import check may try (not part of the JSON).
    """

    line: int
    level: str
    symbol: str
    message: str
    suggestions: tuple[str, ...] = ()
    probe: tuple[str, str] | None = None

    def to_json(self) -> FindingRecord:
        return {
            "line": self.line,
            "level": self.level,
            "symbol": self.symbol,
            "message": self.message,
            "suggestions": list(self.suggestions),
        }


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def build_report(
    findings: list[Finding], *, syntax_ok: bool, checked: list[str], import_checked: list[str]
) -> ValidationReport:
    """The report of a run: messages by level (each once, in source order), and the findings
    (a name used twice on a line is one finding: astropy's ``SkyCoord(1 * u.deg, 2 * u.deg)``)."""
    findings = list(dict.fromkeys(findings))
    errors = _unique(f.message for f in findings if f.level == ERROR)
    return {
        "ok": syntax_ok and not errors,
        "syntax_ok": syntax_ok,
        "errors": errors,
        "warnings": _unique(f.message for f in findings if f.level == WARNING),
        "checked": _unique(checked),
        "findings": [f.to_json() for f in findings],
        "import_checked": import_checked,
    }
