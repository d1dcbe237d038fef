"""What one system returns for one query, shared by the harness, the baseline and reports.

The systems' names, how a system routed a query (``Decision``) and its ranked
items (``RankedItem``, ``Run``); the harness scores them (docs/evaluation.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codecite.node_parsers.schema import citation

CODECITE, DENSE, BASELINE = "codecite", "codecite+dense", "baseline"


@dataclass(frozen=True)
class Decision:
    """How the system routed a query, and whether it asked for clarification."""

    intent: str | None = None
    workflow: str | None = None
    line: str | None = None
    clarification: bool = False
    path: str | None = None
    routed: bool = True


@dataclass(frozen=True)
class RankedItem:
    """One retrieved result, reduced to what the metrics look at."""

    source_path: str
    text: str
    symbol: str | None = None
    workflow: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    score: float = 0.0

    @property
    def label(self) -> str:
        where = citation(
            {
                "source_path": self.source_path,
                "start_line": self.start_line,
                "end_line": self.end_line,
            }
        )
        return f"{self.symbol} ({where})" if self.symbol else where


@dataclass(frozen=True)
class Run:
    items: tuple[RankedItem, ...]
    decision: Decision
    latency_ms: float
    degraded: str | None = None


def item_of(nws: Any) -> RankedItem:
    meta = nws.node.metadata
    return RankedItem(
        source_path=str(meta.get("source_path", "")),
        text=nws.node.get_content(),
        symbol=meta.get("symbol"),
        workflow=meta.get("workflow"),
        start_line=meta.get("start_line"),
        end_line=meta.get("end_line"),
        score=float(nws.score or 0.0),
    )
