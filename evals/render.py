"""Plain-text tables of an ``EvalReport`` (the CLI prints them; Markdown reuses them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .metrics import lift
from .runs import BASELINE


class EvalReport(Protocol):
    """What the tables read of a ``harness.EvalReport`` (which imports this module)."""

    @property
    def k(self) -> int: ...
    @property
    def top(self) -> int: ...
    @property
    def suites(self) -> tuple[tuple[str, str, int], ...]: ...
    @property
    def systems(self) -> tuple[str, ...]: ...
    @property
    def primary(self) -> str: ...
    @property
    def metrics(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def notes(self) -> tuple[str, ...]: ...


def fmt(value: Any, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int):  # bool is an int too
        return f"{value:+d}" if signed else str(value)
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def grid(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned first column, right-aligned others, two spaces apart."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            str(c).ljust(w) if i == 0 else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def metric_names(groups: Sequence[Mapping[str, Any]]) -> list[str]:
    """Metric names in first-seen order across ``groups``."""
    return list(dict.fromkeys(name for g in groups for name in g))


def overall_table(report: EvalReport) -> str:
    """Every system side by side; with a baseline, the lift of the primary system."""
    cols = list(report.systems)
    groups = [report.metrics[s]["overall"] for s in cols]
    with_lift = BASELINE in cols
    header = ["metric", *cols, *([f"lift ({report.primary})"] if with_lift else [])]
    rows = []
    for name in metric_names(groups):
        row = [name, *(fmt(g.get(name)) for g in groups)]
        if with_lift:
            base = report.metrics[BASELINE]["overall"].get(name)
            row.append(
                fmt(lift(report.metrics[report.primary]["overall"].get(name), base), signed=True)
                if name != "records"
                else ""
            )
        rows.append(row)
    return grid(header, rows)


def breakdown_table(report: EvalReport, section: str) -> str:
    """Metrics of the primary system per suite (``section="suites"``) or per kind."""
    groups = report.metrics[report.primary][section]
    names = list(groups)
    order = metric_names([report.metrics[report.primary]["overall"], *groups.values()])
    rows = [
        [metric, *(fmt(groups[n].get(metric)) for n in names)]
        for metric in order
        if any(metric in g for g in groups.values())
    ]
    return grid(["metric", *names], rows)


def report_table(report: EvalReport) -> str:
    records = report.metrics[report.primary]["overall"]["records"]
    parts = [
        f"{records} records from {len(report.suites)} suite(s); k={report.k}, "
        f"MRR and hit@10 over the top {report.top}",
        "",
        overall_table(report),
    ]
    for section, title in (("suites", "by suite"), ("kinds", "by kind")):
        if len(report.metrics[report.primary][section]) > 1:
            parts += ["", f"{title} ({report.primary})", breakdown_table(report, section)]
    parts += [f"note: {n}" for n in report.notes]
    return "\n".join(parts)
