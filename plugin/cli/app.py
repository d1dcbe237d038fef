"""``codecite`` command line: a thin layer over the Python API.

Heavy modules (LlamaIndex, bm25s) are imported inside each command, so
``codecite --help`` starts fast. User mistakes print one line with the fix and
exit 2; failures exit 1; never a traceback for a user mistake.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-C", "--repo", dest="root", default=".", help="repository root (default: current folder)"
    )
    p.add_argument(
        "--config",
        dest="config_file",
        default=None,
        help="settings file (codecite.toml or pyproject.toml)",
    )
    p.add_argument("--index-dir", default=None, help="index folder (default .codecite)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codecite", description="A grounded, cited technical memory of a Python codebase."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (helptext, configure, _fn) in COMMANDS.items():
        p = sub.add_parser(name, help=helptext, description=helptext)
        configure(p)
    return parser


# -- build / stats ---------------------------------------------------------------------


def _configure_build(p: argparse.ArgumentParser) -> None:
    p.add_argument("root_pos", nargs="?", metavar="PATH", help="repository root")
    _common(p)
    p.add_argument("--full", action="store_true", help="re-parse every file")
    p.add_argument("--wait", action="store_true", help="wait for a running build to finish")
    p.add_argument("--embed", action="store_true", help="also embed nodes (dense retrieval)")
    p.add_argument("--embed-backend", default=None, help="openai or local")
    p.add_argument("--embed-model", default=None, help="embedding model name")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _progress_printer() -> Callable[[str, int, int], None] | None:
    if not sys.stderr.isatty():
        return None
    state = {"last": -1}

    def show(stage: str, done: int, total: int) -> None:
        pct = int(100 * done / max(total, 1))
        if pct != state["last"] or done == total:
            state["last"] = pct
            bar = "#" * (pct // 4)
            end = "\n" if done == total else ""
            print(f"\r{stage:<10} [{bar:<25}] {done}/{total}", end=end, file=sys.stderr)

    return show


def cmd_build(args: argparse.Namespace) -> int:
    from codecite.indexer.build import build_index
    from codecite.indexer.redaction import RedactionSummary

    root = args.root_pos or args.root
    embed = _embed_request(args) if args.embed else None
    report = build_index(
        root,
        full=args.full,
        config_file=args.config_file,
        index_dir=args.index_dir,
        wait=args.wait,
        progress=_progress_printer(),
        embed=embed,
    )
    redaction = RedactionSummary.of_index(report.index_dir)
    if args.json:
        print(
            json.dumps({**report.__dict__, "redaction": redaction.to_json()}, default=str, indent=1)
        )
        return EXIT_OK
    if report.up_to_date:
        print(
            f"index is up to date ({report.nodes} nodes from {report.files} files, "
            f"{report.seconds:.2f}s): {report.index_dir}"
        )
        _print_embedding(report.embedding, report.nodes, stale_only=True)
        return EXIT_OK
    if report.repaired:
        print(f"previous index not reused: {report.repaired}; rebuilt it in full")
    print(
        f"built {report.index_dir}: {report.nodes} nodes from {report.files} files "
        f"({report.reparsed} parsed) in {report.seconds:.2f}s"
    )
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(report.kinds.items())))
    if redaction.line():  # the whole index's: a reused file keeps its count
        print(f"  {redaction.line()}")
    _print_embedding(report.embedding, report.nodes)
    for reason, paths in sorted(report.skipped.items()):
        shown = ", ".join(paths[:5]) + (f", ... ({len(paths)} in all)" if len(paths) > 5 else "")
        print(f"  skipped ({reason}): {shown}")
    for warning in report.warnings[:20]:
        print(f"  warning: {warning}")
    return EXIT_OK


def _embed_request(args: argparse.Namespace) -> dict[str, Any]:
    # required: --embed that cannot embed fails (exit 1) and leaves the index as it was
    return {"backend": args.embed_backend, "model": args.embed_model, "required": True}


def _print_embedding(info: dict[str, Any] | None, nodes: int, stale_only: bool = False) -> None:
    """The line about vectors: how many nodes lack a current one, else the count."""
    if not info:
        return
    from codecite.dense.vectors import stale_note

    note = stale_note(info, nodes)
    if note is None and not stale_only:
        note = f"embeddings: {info['count']} vectors ({info['backend']} {info['model']})"
    if note is not None:
        print(f"  {note}")


def _configure_stats(p: argparse.ArgumentParser) -> None:
    _common(p)
    p.add_argument("--json", action="store_true", help="print JSON")


_AS_COMMAND = False  # run as the ``codecite`` command (``entry``), not ``main()`` in-process


def _load(args: argparse.Namespace, check_stale: bool = True) -> Any:
    import gc

    from codecite.index import CodeciteIndex

    index = CodeciteIndex.load(
        args.root, index_dir=args.index_dir, config_file=args.config_file, check_stale=check_stale
    )
    if _AS_COMMAND:  # the index lives as long as the process: keep the collector from
        gc.freeze()  # walking it again (one full pass took 0.2 s of a question at 16k nodes)
    return index


def cmd_stats(args: argparse.Namespace) -> int:
    from codecite.indexer.redaction import RedactionSummary

    index = _load(args, check_stale=False)
    stats = index.stats()
    redaction = RedactionSummary.of_manifest(index.manifest)
    stats["redaction"] = redaction.to_json()
    if args.json:
        print(json.dumps(stats, indent=1))
        return EXIT_OK
    print(
        f"index {stats['index_dir']} (format {stats['format_version']}, codecite "
        f"{stats['codecite_version']}, created {stats['created']})"
    )
    print(
        f"  {stats['nodes']} nodes from {stats['files']} files; "
        f"{'STALE: run `codecite build`' if stats['stale'] else 'fresh'}"
    )
    print(f"  fingerprint {stats['fingerprint']}")
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in stats["by_kind"].items()))
    print("  by workflow: " + ", ".join(f"{k} {v}" for k, v in stats["by_workflow"].items()))
    emb = stats.get("embedding")
    print(
        f"  embeddings: {emb['backend']} {emb['model']} dim {emb['dimension']}"
        if emb
        else "  embeddings: none (lexical only)"
    )
    _print_embedding(emb, stats["nodes"], stale_only=True)
    print(
        f"  doc references resolved: {(stats.get('doc_refs') or {}).get('edges', 0)}; "
        f"mined expansion words: {(stats.get('mined_expansion') or {}).get('words', 0)}"
    )
    print(
        f"  secrets redacted: {redaction.values} in {len(redaction.files)} file(s)"
        if redaction.enabled
        else "  secrets redacted: off (redact_secrets = false)"
    )
    for path, count in redaction.files.items():
        print(f"    {path}: {count}")
    for reason, paths in sorted(stats["skipped"].items()):
        print(f"  skipped ({reason}): {len(paths)}")
        for path in paths[:50]:
            print(f"    {path}")
    for warning in stats["warnings"]:
        print(f"  warning: {warning}")
    return EXIT_OK


# -- query / feedback ---------------------------------------------------------------------


def _configure_query(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", help="the question or symbol")
    _common(p)
    p.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--kind", action="append", default=None, help="only this node kind (repeatable)")
    p.add_argument("--workflow", default=None, help="only nodes of this workflow")
    p.add_argument("--path", dest="path_prefix", default=None, help="only under this path")
    p.add_argument("--dense", action="store_true", help="fuse dense retrieval (needs --embed)")
    p.add_argument("--explain", action="store_true", help="show each score's factors")
    p.add_argument("--json", action="store_true", help="print JSON")


def cmd_query(args: argparse.Namespace) -> int:
    from codecite.retrievers.render import text_table

    index = _load(args)
    ctx = index.query(
        args.text,
        k=args.k,
        kind=args.kind,
        workflow=args.workflow,
        path=args.path_prefix,
        dense=args.dense,
    )
    if args.json:
        print(json.dumps(ctx.to_json(), indent=1))
        return EXIT_OK
    if ctx.degraded:
        print(f"note: dense retrieval unavailable ({ctx.degraded}); lexical ranking shown")
    if not ctx.nodes:
        print(f"no evidence matches {args.text!r} (tokens: {' '.join(ctx.tokens) or 'none'})")
        return EXIT_OK
    print(text_table(ctx))
    if args.explain:
        from codecite.retrievers.explain import explain_text

        print()
        print(explain_text(ctx))
    return EXIT_OK


def _configure_feedback(p: argparse.ArgumentParser) -> None:
    p.add_argument("direction", choices=["up", "down"])
    p.add_argument("symbol", help="fully qualified symbol")
    _common(p)
    p.add_argument("--query", default=None, help="the query the vote is about")


def cmd_feedback(args: argparse.Namespace) -> int:
    index = _load(args, check_stale=False)
    if args.symbol not in {n.metadata.get("symbol") for n in index.nodes}:
        raise _usage(
            f"symbol {args.symbol!r} is not in the index; use a fully qualified "
            "name as `codecite query` shows it"
        )
    factor = index.feedback(args.symbol, args.direction == "up", args.query)
    print(f"recorded {args.direction} for {args.symbol}; feedback factor now {factor:.2f}")
    return EXIT_OK


class _UsageError(Exception):
    pass


def _usage(message: str) -> _UsageError:
    return _UsageError(message)


COMMANDS: dict[
    str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
] = {
    "build": ("build or update the index", _configure_build, cmd_build),
    "stats": ("show what is indexed and what was skipped", _configure_stats, cmd_stats),
    "query": ("rank cited evidence for a question", _configure_query, cmd_query),
    "feedback": ("vote a symbol up or down for future rankings", _configure_feedback, cmd_feedback),
}


def register(
    name: str,
    helptext: str,
    configure: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
) -> None:
    """Add a subcommand (used by the modules that implement ask, eval, validate...)."""
    COMMANDS[name] = (helptext, configure, run)


def _load_extra_commands() -> None:
    import codecite.cli.answers
    import codecite.cli.eval
    import codecite.cli.validate  # noqa: F401  (each registers its commands)


def main(argv: Sequence[str] | None = None) -> int:
    _load_extra_commands()
    parser = _parser()
    args = parser.parse_args(argv)
    if args.version:
        from codecite import __version__

        print(f"codecite {__version__}")
        return EXIT_OK
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    import logging

    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s: %(message)s"
    )
    return _run(args)


def entry() -> None:
    """The ``codecite`` command: ``main`` then exit without a final garbage collection.

    At exit Python collects every object it tracks; after loading a 16,000-node
    index that pass alone took 0.35 s of a 2 s ``codecite query``. Freezing the
    heap first skips it; nothing is lost, the process ends right after. As a
    command, a loaded index is frozen too (``_load``); ``main()`` called in a
    host process leaves its collector alone.
    """
    global _AS_COMMAND
    _AS_COMMAND = True
    code = main()
    import gc

    gc.freeze()
    sys.exit(code)


def _run(args: argparse.Namespace) -> int:
    from codecite.errors import CodeciteError, ConfigError, IndexNotFoundError, QueryError

    try:
        return COMMANDS[args.command][2](args)
    except _UsageError as exc:
        print(f"codecite {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ConfigError, QueryError, IndexNotFoundError) as exc:
        print(f"codecite {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CodeciteError as exc:
        print(f"codecite {args.command}: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except BrokenPipeError:  # `codecite query ... | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print(
            f"codecite {args.command}: interrupted; the previous index is intact", file=sys.stderr
        )
        return 130
    except OSError as exc:  # a folder that cannot be written or read, a full disk, ...
        building = args.command == "build"
        fix = (
            "or build the index elsewhere with --index-dir DIR"
            if building
            else "or build an index of your own with `codecite build --index-dir DIR`"
        )
        message, code = os_error_line(exc, "", fix, "writable" if building else "readable")
        print(f"codecite {args.command}: {message}", file=sys.stderr)
        return code


def os_error_line(exc: OSError, what: str, fix: str, access: str = "writable") -> tuple[str, int]:
    """One line for a failed file operation on ``what`` (e.g. "--json file ") and its
    exit code: 2 when the path itself is the mistake (a missing folder, a file where a
    folder must be, a folder where a file must be), 1 for the environment (no
    permission, a read-only or full disk). ``fix`` ends the permission advice, which
    asks to make the folder ``access`` ("writable" or "readable")."""
    import errno
    import os

    path = exc.filename if exc.filename is not None else "?"
    folder = os.path.dirname(os.path.abspath(path)) if exc.filename is not None else "?"
    if exc.errno == errno.ENOENT:
        if os.path.isdir(folder):
            return f"{what}'{path}' does not exist; give another path", EXIT_USAGE
        return (
            f"{what}'{path}' cannot be made: its folder '{folder}' does not exist; "
            "create that folder or give another path"
        ), EXIT_USAGE
    if exc.errno == errno.EEXIST and os.path.isfile(path):
        return f"'{path}' is a file where a folder is needed; give another path", EXIT_USAGE
    if exc.errno == errno.ENOTDIR:
        return (
            f"{what}'{path}' runs through a file as if it were a folder; give another path"
        ), EXIT_USAGE
    if exc.errno == errno.EISDIR:
        return f"{what}'{path}' is a folder; give a file name", EXIT_USAGE
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            f"no permission to use {what}'{path}'; make '{folder}' {access} for you, {fix}"
        ), EXIT_FAIL
    if exc.errno == errno.EROFS:
        return f"{what}'{path}' is on a read-only file system; {fix.removeprefix('or ')}", EXIT_FAIL
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return f"no space left to write {what}'{path}'; free some disk space", EXIT_FAIL
    return (
        f"cannot use {what}'{path}' ({exc.strerror or type(exc).__name__}); "
        f"{fix.removeprefix('or ')}"
    ), EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
