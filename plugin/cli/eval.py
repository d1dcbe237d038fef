"""``codecite eval`` and ``codecite report``: score suites, write a reproducibility record.

The only product module that imports ``codecite.evals``; ``COMMANDS`` lists its
commands for ``codecite.cli.app``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from codecite.cli.shared import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    Command,
    add_common_options,
    load_index,
    os_error_line,
)
from codecite.errors import CodeciteError, UsageError


def _threshold(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name.strip(), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected METRIC=VALUE (e.g. symbol_hit@10=0.6), got {text!r}"
        ) from None


def _configure_eval(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "suites",
        nargs="*",
        metavar="SUITE",
        help="JSONL suite files (default: the repository's evals/suites/*.jsonl)",
    )
    add_common_options(p)
    p.add_argument("-k", type=int, default=10, help="results read per query (default 10)")
    p.add_argument("--dense", action="store_true", help="also score hybrid dense retrieval")
    p.add_argument(
        "--baseline",
        action="store_true",
        help="compare with plain SentenceSplitter + BM25Retriever",
    )
    p.add_argument(
        "--json",
        dest="json_file",
        default=None,
        metavar="FILE",
        help="write the full report as JSON",
    )
    p.add_argument("--plot", default=None, metavar="FILE.png", help="draw hit@k curves")
    p.add_argument(
        "--fail-under",
        action="extend",
        nargs="+",
        type=_threshold,
        default=[],
        metavar="METRIC=VALUE",
        help="exit 1 when METRIC is below VALUE",
    )
    p.add_argument(
        "--fail-over",
        action="extend",
        nargs="+",
        type=_threshold,
        default=[],
        metavar="METRIC=VALUE",
        help="exit 1 when METRIC is above VALUE (violations, pollution, latency)",
    )


def _suite_paths(args: argparse.Namespace, given: list[str]) -> list[Path]:
    from codecite.evals import default_suite_paths

    if given:
        return [Path(s) for s in given]
    found = list(default_suite_paths(args.root))
    if not found:
        raise UsageError(
            f"no suites given and none in '{Path(args.root) / 'evals' / 'suites'}'; "
            "pass SUITE.jsonl files"
        )
    return found


def _command_line(
    args: argparse.Namespace, paths: list[Path], k: int, dense: bool, baseline: bool
) -> str:
    """The ``codecite eval`` invocation equivalent to this run (for the record)."""
    parts = ["codecite", "eval", *map(str, paths), "-k", str(k), "-C", str(args.root)]
    parts += ["--index-dir", args.index_dir] if args.index_dir else []
    parts += ["--config", args.config_file] if args.config_file else []
    parts += ["--dense"] * dense + ["--baseline"] * baseline
    return " ".join(shlex.quote(p) for p in parts)


def _evaluate(
    args: argparse.Namespace,
    given: list[str],
    k: int = 10,
    dense: bool = False,
    baseline: bool = False,
) -> tuple[Any, Any, Any]:
    from codecite.cli.build import stage_bars
    from codecite.evals import load_suites, run_eval

    if k <= 0:
        raise UsageError(f"-k must be a positive integer, got {k}")
    paths = _suite_paths(args, given)
    suites = load_suites(paths)  # a SuiteError names the file and line: exit 2
    index = load_index(args)
    with stage_bars() as progress:  # a bar on stderr when it is a terminal
        report = run_eval(
            index,
            suites,
            k=k,
            dense=dense,
            baseline=baseline,
            command=_command_line(args, paths, k, dense, baseline),
            progress=progress,
        )
    return index, suites, report


def _check(report: Any, limits: list[tuple[str, float]], below: bool) -> list[str]:
    """Messages for every threshold the primary system's metrics break."""
    overall = report.overall()
    failures = []
    for name, limit in limits:
        if name not in overall:
            raise UsageError(
                f"unknown metric {name!r} for --fail-{'under' if below else 'over'}; "
                f"this run reports: {', '.join(overall)}"
            )
        value = overall[name]
        broken = value is None or (value < limit if below else value > limit)
        if broken:
            word = "below" if below else "above"
            failures.append(
                f"{name} = {'n/a' if value is None else f'{value:.4g}'} is "
                f"{word} the threshold {limit:g}"
            )
    return failures


def _output_failure(exc: OSError, flag: str) -> Exception:
    """The one-line error for an output file that cannot be written: a path that
    cannot be a file is the user's mistake (exit 2), permissions the environment's (1)."""
    message, code = os_error_line(
        exc, f"{flag} file ", f"or give {flag} a path in a folder you can write"
    )
    return UsageError(message) if code == EXIT_USAGE else CodeciteError(message)


def _check_output(flag: str, name: str | None) -> None:
    """Refuse an output path that cannot be written before any work is done.

    Tried for real (the OS knows permissions, read-only disks and ACLs): an
    existing file is opened for writing without truncating it; a new one is
    created and removed again (it is ours: made with ``O_EXCL``).
    """
    if not name:
        return
    try:
        if os.path.lexists(name):
            os.close(os.open(name, os.O_WRONLY | os.O_NONBLOCK))  # EISDIR for a folder
            return
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise _output_failure(exc, flag) from None
    os.unlink(name)


def _write_output(flag: str, write: Any) -> None:
    try:
        write()
    except OSError as exc:  # since the check: a full disk, a folder removed meanwhile
        raise _output_failure(exc, flag) from None


def _write_outputs(args: argparse.Namespace, report: Any) -> None:
    if args.json_file:
        text = json.dumps(report.to_json(), indent=1) + "\n"
        _write_output("--json", lambda: Path(args.json_file).write_text(text, encoding="utf-8"))
    if args.plot:
        from codecite.evals import plot_curves

        try:
            _write_output("--plot", lambda: plot_curves(report.curves, args.plot))
        except ImportError as exc:
            raise UsageError(str(exc)) from None


def cmd_eval(args: argparse.Namespace) -> int:
    _check_output("--json", args.json_file)
    _check_output("--plot", args.plot)
    _, _, report = _evaluate(args, args.suites, args.k, args.dense, args.baseline)
    print(report.table())
    _write_outputs(args, report)
    failures = _check(report, args.fail_under, True) + _check(report, args.fail_over, False)
    for message in failures:
        print(f"codecite eval: FAIL {message}", file=sys.stderr)
    return EXIT_FAIL if failures else EXIT_OK


def _configure_report(p: argparse.ArgumentParser) -> None:
    add_common_options(p)
    p.add_argument(
        "--eval",
        dest="eval_suites",
        nargs="*",
        default=None,
        metavar="SUITE",
        help="also run these suites (none named: the repository's own)",
    )
    p.add_argument("-k", type=int, default=10, help="results read per query (default 10)")
    p.add_argument("--out", default=None, metavar="FILE", help="write Markdown here")


def cmd_report(args: argparse.Namespace) -> int:
    from codecite.evals import reproducibility_report

    _check_output("--out", args.out)
    if args.eval_suites is None:
        index, suites, report = load_index(args, check_stale=False), (), None
    else:
        index, suites, report = _evaluate(args, args.eval_suites, args.k)
    text = reproducibility_report(index, eval_report=report, suites=suites)
    if args.eval_suites is None and "\n- sources: STALE" in text:  # the record walked once
        logging.getLogger("codecite").warning(
            "index at '%s' was built from other sources; run `codecite build`",
            index.config.index_path,
        )
    if args.out:
        _write_output("--out", lambda: Path(args.out).write_text(text, encoding="utf-8"))
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return EXIT_OK


COMMANDS = (
    Command(
        "eval",
        "score evaluation suites (optionally against a plain baseline)",
        _configure_eval,
        cmd_eval,
    ),
    Command(
        "report",
        "write a Markdown reproducibility record of the index and its evaluation",
        _configure_report,
        cmd_report,
    ),
)
