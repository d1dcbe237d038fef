"""Evaluation of a codecite index: suites, metrics, the harness, baseline, plots, reports.

Product code never imports this package (only the ``eval`` / ``report``
commands in ``codecite.cli.eval`` do); it depends on the product, not back.

Example:
    >>> from codecite.evals import load_suites, run_eval          # doctest: +SKIP
    >>> report = run_eval(codecite.load("."), load_suites(["q.jsonl"]))  # doctest: +SKIP
    >>> print(report.table())                                      # doctest: +SKIP
"""

from __future__ import annotations

from .harness import EvalReport, decide, run_eval
from .metrics import RecordOutcome, aggregate, is_test_path, symbol_matches
from .plot import plot_curves
from .report import reproducibility_report
from .runs import Decision
from .suite import (
    Suite,
    SuiteRecord,
    bundled_suite_paths,
    default_suite_paths,
    load_suite,
    load_suites,
)

__all__ = [
    "Decision",
    "EvalReport",
    "RecordOutcome",
    "Suite",
    "SuiteRecord",
    "aggregate",
    "bundled_suite_paths",
    "decide",
    "default_suite_paths",
    "is_test_path",
    "load_suite",
    "load_suites",
    "plot_curves",
    "reproducibility_report",
    "run_eval",
    "symbol_matches",
]
