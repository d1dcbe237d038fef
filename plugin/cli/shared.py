"""What every ``codecite`` command module shares: the command record, the common
options, exit codes, loading the index and the one-line message for a failed file operation.

A command module lists its commands as data (a tuple of :class:`Command`) and
``codecite.cli.app`` names each module explicitly; nothing registers itself on
import. Heavy modules (LlamaIndex, bm25s) are imported inside functions, so
``codecite --help`` starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codecite.errors import CodeciteError, UsageError

# The exit codes of ``codecite``; an error's code is its class's ``exit_code``.
EXIT_OK = 0
EXIT_FAIL = CodeciteError.exit_code  # 1: a failure
EXIT_USAGE = UsageError.exit_code  # 2: the user's mistake, named with its fix
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


@dataclass(frozen=True)
class Command:
    """One ``codecite`` subcommand: its name, its one-line help, the function that
    adds its arguments to its parser, and the function that runs it (returns the
    exit code; a :class:`~codecite.errors.CodeciteError` it raises becomes one line
    on stderr and that error's ``exit_code``).

    Example:
        >>> def run(args):
        ...     print("hello")
        ...     return EXIT_OK
        >>> hello = Command("hello", "say hello", add_common_options, run)
        >>> hello.name
        'hello'
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    aliases: tuple[str, ...] = ()  # other names people type for it (``serve`` for ``mcp``)


def add_common_options(p: argparse.ArgumentParser) -> None:
    """``-C/--repo``, ``--config`` and ``--index-dir``: where the repository and its index are."""
    p.add_argument(
        "-C",
        "--repo",
        dest="root",
        default=None,
        help="repository root (default: the one an --index-dir index was built from, "
        "else the current folder)",
    )
    p.add_argument(
        "--config",
        dest="config_file",
        default=None,
        help="settings file (codecite.toml or pyproject.toml)",
    )
    p.add_argument("--index-dir", default=None, help="index folder (default .codecite)")


def settle_root(args: argparse.Namespace) -> None:
    """Fill in ``args.root`` when neither ``-C`` nor a PATH gave it; a relative
    ``--index-dir`` is read from the current folder, as a shell path is, by every command.

    An ``--index-dir`` index records the repository it was built from: run from another
    folder (``codecite stats --index-dir ~/idx/parso``), the command uses that repository,
    not the current folder, which would read as "built from other sources" and whose
    `codecite build` would replace the index with one of the wrong tree. A recorded
    folder that no longer exists leaves the current folder. Said on stderr when it applies.
    """
    from pathlib import Path

    from codecite.store.opening import recorded_root

    if getattr(args, "index_dir", None) and "\x00" not in args.index_dir:
        args.index_dir = os.path.abspath(args.index_dir)  # as a shell path: from here
    if not hasattr(args, "root") or args.root is not None:
        return  # no such option, or -C given
    args.root = "."
    if getattr(args, "root_pos", None):
        return
    if not getattr(args, "index_dir", None):
        _nearest_index(args)
        return
    index_dir = Path(args.index_dir)
    recorded = recorded_root(index_dir)
    if recorded is None or recorded == Path.cwd().resolve():
        return
    args.root = str(recorded)
    print(
        f"codecite {args.command}: using '{recorded}', the repository the index at "
        f"'{index_dir}' was built from (-C PATH chooses another)",
        file=sys.stderr,
    )


def _nearest_index(args: argparse.Namespace) -> None:
    """Run from a subfolder of an indexed repository (``doc/``, the package folder), use
    that repository, as git does: the nearest folder above holding ``.codecite`` built
    from it. Not past a folder that is a project of its own (``pyproject.toml``,
    ``codecite.toml``) or a repository's top (``.git``)."""
    from pathlib import Path

    from codecite.store.opening import recorded_root

    here = Path.cwd()
    marks = (".codecite", "pyproject.toml", "codecite.toml", ".git")
    if any((here / mark).exists() for mark in marks):
        return
    for folder in here.parents:
        if recorded_root(folder / ".codecite") == folder:
            args.root = str(folder)
            print(
                f"codecite {args.command}: using '{folder}', the nearest folder above with "
                "an index (-C PATH chooses another)",
                file=sys.stderr,
            )
            return
        if any((folder / mark).exists() for mark in marks[1:]):
            return


def load_index(args: argparse.Namespace, check_stale: bool = True) -> Any:
    """The index the common options name.

    Run as the ``codecite`` command (``args.as_command``, set by
    ``codecite.cli.app.entry``), the index lives as long as the process: the
    loaded heap is frozen so the collector does not walk it again (one full pass
    took 0.2 s of a question at 16k nodes), before the staleness check walks the
    corpus; and a command other than ``chat`` then runs with the cycle collector
    off: its work after the load is bounded, reference counting frees what it
    drops, and the pass the first query's tables triggered took 0.17 s of a
    48,000-node query. ``main()`` called in a host process leaves its collector
    alone.
    """
    import gc

    from codecite.index import CodeciteIndex

    as_command = getattr(args, "as_command", False)
    index = CodeciteIndex.load(
        args.root,
        index_dir=args.index_dir,
        config_file=args.config_file,
        check_stale=check_stale and not as_command,
    )
    if as_command:
        gc.freeze()
        if getattr(args, "command", None) != "chat":
            gc.disable()
        if check_stale:
            index.warn_if_stale()
    return index


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
