"""Run suites against a codecite index (and optionally the plain baseline).

A *system* retrieves ranked items for a query and says which expected
symbols an item hits; the harness turns each (system, record) pair into a
``RecordOutcome`` and aggregates those with ``metrics.aggregate`` overall,
per suite and per ``kind``. The result is a frozen ``EvalReport``.

Routing and clarification come from the answers layer through one small
adapter, ``decide``, so switching it to another API touches one function.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from .baseline import BaselineSystem
from .metrics import (
    MRR_CUTOFF,
    Metrics,
    RecordOutcome,
    aggregate,
    best_rank,
    first_ranks,
    guard_violations,
    hit_curve,
    is_test_path,
    symbol_matches,
)
from .render import report_table
from .runs import CODECITE, DENSE, Decision, RankedItem, Run, item_of
from .suite import Suite, SuiteRecord

logger = logging.getLogger(__name__)


def decide(index: Any, query: str, ctx: Any) -> Decision:
    """The adapter to the answers layer: ``index.ask`` when present, else a fallback.

    Without ``ask`` there is no router: intent/workflow/line are unknown and a
    clarification is assumed exactly when retrieval found nothing.
    """
    ask = getattr(index, "ask", None)
    if ask is None:
        return Decision(
            workflow=getattr(ctx, "workflow", None), clarification=not ctx.nodes, routed=False
        )
    meta = getattr(ask(query), "metadata", None) or {}
    line = meta.get("line")
    if isinstance(line, Mapping):  # the resolved registry entry; suites name it
        line = line.get("name")
    return Decision(
        intent=meta.get("intent"),
        workflow=meta.get("workflow"),
        line=line,
        clarification=meta.get("path") == "clarification",
        path=meta.get("path"),
    )


Decider = Callable[[Any, str, Any], Decision]


def _answer_retrieval(index: Any, query: str, top: int, dense: bool) -> Any:
    """What ``ask`` retrieves: the query without a code request's opening phrase, and for
    a question about the assistant that finds nothing, its overview (README, recipes)."""
    if not hasattr(index, "config"):
        return index.query(query, k=top, dense=dense)
    from codecite.answers.overview import overview_context
    from codecite.answers.routing import Intent, content_query, route_query

    route = route_query(query, index.config)  # once, for both
    ctx = index.query(content_query(query, route), k=top, dense=dense)
    if not ctx.nodes and route.intent == Intent.META.value:
        return overview_context(index, query, top)
    return ctx


class System(Protocol):
    name: str
    has_tags: bool

    def run(self, query: str, top: int) -> Run: ...

    def symbol_hits(self, expected: Sequence[str], item: RankedItem) -> frozenset[str]: ...


class CodeciteSystem:
    """codecite's own retrieval (lexical, or hybrid with ``dense``) plus the decider."""

    has_tags = True

    def __init__(self, index: Any, *, dense: bool = False, decider: Decider = decide) -> None:
        self.index, self.dense, self.decider = index, dense, decider
        self.name = DENSE if dense else CODECITE
        self.known = frozenset(
            str(n.metadata["symbol"]) for n in index.nodes if n.metadata.get("symbol")
        )

    def run(self, query: str, top: int) -> Run:
        start = time.perf_counter()
        ctx = _answer_retrieval(self.index, query, top, self.dense)
        latency = (time.perf_counter() - start) * 1000.0
        decision = self.decider(self.index, query, ctx)
        return Run(tuple(item_of(n) for n in ctx.nodes), decision, latency, ctx.degraded)

    def symbol_hits(self, expected: Sequence[str], item: RankedItem) -> frozenset[str]:
        return frozenset(e for e in expected if symbol_matches(e, item.symbol, self.known))


def judge(system: System, record: SuiteRecord, k: int, top: int) -> RecordOutcome:
    """Run one record through one system and score it."""
    run = system.run(record.query, top)
    items = run.items[:top]
    expected = record.expected_symbols
    ranks = first_ranks(expected, [system.symbol_hits(expected, it) for it in items])
    sources = set(record.expected_sources)
    top_k = items[:k]
    d = run.decision
    return RecordOutcome(
        record=record,
        symbol_ranks=MappingProxyType(ranks),
        source_rank=best_rank(r for r, it in enumerate(items, 1) if it.source_path in sources),
        n_retrieved=len(top_k),
        workflows=tuple(it.workflow for it in top_k),
        violations=guard_violations(record.must_not_contain, (it.text for it in top_k)),
        test_file_in_top_k=any(is_test_path(it.source_path) for it in top_k),
        intent=d.intent,
        workflow=d.workflow,
        line=d.line,
        clarification=d.clarification,
        latency_ms=run.latency_ms,
        has_router=d.routed,
        has_tags=system.has_tags,
    )


def group_metrics(outcomes: Sequence[RecordOutcome], k: int) -> dict[str, Any]:
    """Metrics overall, per suite and per kind for one system's outcomes."""
    suites: dict[str, list[RecordOutcome]] = {}
    kinds: dict[str, list[RecordOutcome]] = {}
    for o in outcomes:
        suites.setdefault(o.record.suite, []).append(o)
        if o.record.kind:
            kinds.setdefault(o.record.kind, []).append(o)
    return {
        "overall": aggregate(outcomes, k),
        "suites": {name: aggregate(group, k) for name, group in suites.items()},
        "kinds": {name: aggregate(group, k) for name, group in sorted(kinds.items())},
    }


def _outcome_json(o: RecordOutcome) -> dict[str, Any]:
    r = o.record
    return {
        "suite": r.suite,
        "line": r.line_no,
        "query": r.query,
        "kind": r.kind,
        "symbol_ranks": dict(o.symbol_ranks),
        "source_rank": o.source_rank,
        "first_rank": o.first_rank,
        "retrieved": o.n_retrieved,
        "violations": list(o.violations),
        "test_file_in_top_k": o.test_file_in_top_k,
        "intent": o.intent,
        "workflow": o.workflow,
        "line_resolved": o.line,
        "clarification": o.clarification,
        "latency_ms": round(o.latency_ms, 3),
    }


@dataclass(frozen=True)
class EvalReport:
    """The result of ``run_eval``: metrics per system and group, curves and details.

    Example:
        >>> report = run_eval(index, load_suites(["suite.jsonl"]))  # doctest: +SKIP
        >>> report.metric("symbol_hit@10")                           # doctest: +SKIP
        0.85
    """

    k: int
    top: int
    suites: tuple[tuple[str, str, int], ...]
    systems: tuple[str, ...]
    primary: str
    metrics: Mapping[str, Mapping[str, Any]]
    curves: Mapping[str, tuple[float, ...]]
    outcomes: Mapping[str, tuple[RecordOutcome, ...]]
    notes: tuple[str, ...] = ()
    command: str | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def overall(self, system: str | None = None) -> Metrics:
        return dict(self.metrics[system or self.primary]["overall"])

    def metric(self, name: str, system: str | None = None) -> float | int | None:
        """One overall metric of ``system`` (default: the primary system)."""
        return self.overall(system).get(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "retrieved_per_query": self.top,
            "mrr_cutoff": MRR_CUTOFF,
            "command": self.command,
            "primary": self.primary,
            "notes": list(self.notes),
            "suites": [{"name": n, "path": p, "records": c} for n, p, c in self.suites],
            "metrics": {s: self.metrics[s] for s in self.systems},
            "curves": {s: list(v) for s, v in self.curves.items()},
            "records": {s: [_outcome_json(o) for o in self.outcomes[s]] for s in self.systems},
        }

    def table(self) -> str:
        return report_table(self)


def _systems(
    index: Any, dense: bool, baseline: bool, decider: Decider, top: int
) -> tuple[list[Any], list[str]]:
    systems: list[Any] = [CodeciteSystem(index, decider=decider)]
    notes: list[str] = []
    if dense:
        if index.manifest.get("embedding"):
            systems.append(CodeciteSystem(index, dense=True, decider=decider))
        else:
            notes.append(
                "dense retrieval unavailable: the index has no embeddings "
                "(run `codecite build --embed`); lexical results only"
            )
    if baseline:
        systems.append(BaselineSystem.from_index(index, top))
    return systems, notes


def run_eval(
    index: Any,
    suites: Sequence[Suite],
    *,
    k: int = 10,
    dense: bool = False,
    baseline: bool = False,
    decider: Decider = decide,
    command: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> EvalReport:
    """Score every record of ``suites`` with codecite (and the requested comparisons).

    ``progress(stage, done, total)``, if given, is called after each judged record
    (``stage`` is "evaluating"; ``total`` counts records times systems).
    """
    top = max(k, MRR_CUTOFF)
    systems, notes = _systems(index, dense, baseline, decider, top)
    records = [r for s in suites for r in s.records]
    total, done = len(records) * len(systems), 0
    outcomes: dict[str, tuple[Any, ...]] = {}
    for system in systems:
        judged = []
        for record in records:
            judged.append(judge(system, record, k, top))
            done += 1
            if progress is not None:
                progress("evaluating", done, total)
        outcomes[system.name] = tuple(judged)
    names = tuple(s.name for s in systems)
    primary = DENSE if DENSE in names else CODECITE
    return EvalReport(
        k=k,
        top=top,
        suites=tuple((s.name, str(s.path), len(s.records)) for s in suites),
        systems=names,
        primary=primary,
        metrics=MappingProxyType({n: group_metrics(outcomes[n], k) for n in names}),
        curves=MappingProxyType({n: tuple(hit_curve(outcomes[n], top)) for n in names}),
        outcomes=MappingProxyType(outcomes),
        notes=tuple(notes),
        command=command,
    )
