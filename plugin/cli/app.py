"""``codecite`` command line: a thin layer over the Python API.

The commands live one group per module (``build``, ``query``, ``answers``,
``eval``, ``validate``), each listing its :class:`~codecite.cli.shared.Command`
records; :data:`COMMANDS` names them here, in the order ``codecite --help``
shows them. Heavy modules (LlamaIndex, bm25s) are imported inside each command,
so ``codecite --help`` starts fast. User mistakes print one line with the fix and
exit 2; failures exit 1; never a traceback for a user mistake: a
:class:`~codecite.errors.CodeciteError` ends the command with its class's
``exit_code``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from codecite.cli import answers, build, query, serve, validate
from codecite.cli import eval as evaluation
from codecite.cli.shared import (
    EXIT_FAIL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Command,
    os_error_line,
    settle_root,
)
from codecite.errors import CodeciteError

__all__ = ["COMMANDS", "EXIT_FAIL", "EXIT_OK", "EXIT_USAGE", "entry", "main"]

COMMANDS: dict[str, Command] = {
    command.name: command
    for command in (
        *build.COMMANDS,
        *query.COMMANDS,
        *answers.COMMANDS,
        *evaluation.COMMANDS,
        *validate.COMMANDS,
        *serve.COMMANDS,
    )
}


ALIASES = {alias: c.name for c in COMMANDS.values() for alias in c.aliases}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codecite", description="A grounded, cited technical memory of a Python codebase."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS.values():
        p = sub.add_parser(
            command.name, aliases=command.aliases, help=command.help, description=command.help
        )
        command.configure(p)
    return parser


def _unrecognized(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]):
    """Stop on arguments no option takes, naming the close option (``--kindd``: ``--kind``)."""
    from difflib import get_close_matches

    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command = commands.choices.get(args.command) or parser
    options = list(command._option_string_actions)
    hints = [
        f"{word} (did you mean {near[0]}?)"
        for word in extra
        if word.startswith("-")
        for near in [get_close_matches(word.split("=", 1)[0], options, n=1)]
        if near
    ]
    message = f"unrecognized arguments: {' '.join(extra)}"
    command.error(message + (f"; {', '.join(hints)}" if hints else ""))


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``codecite`` with ``argv`` (default: ``sys.argv[1:]``) and return its exit code."""
    return _main(argv, as_command=False)


def entry() -> None:
    """The ``codecite`` command: ``main`` then exit without a final garbage collection.

    At exit Python collects every object it tracks; after loading a 16,000-node
    index that pass alone took 0.35 s of a 2 s ``codecite query``. Freezing the
    heap first skips it; nothing is lost, the process ends right after. As a
    command, a loaded index is frozen too (``shared.load_index``); ``main()``
    called in a host process leaves its collector alone.
    """
    code = _main(None, as_command=True)
    import gc

    gc.freeze()
    sys.exit(code)


_WHERE = ("-C", "--repo", "--config", "--index-dir")  # every command's, written before it too


def _where_after_command(argv: Sequence[str]) -> list[str]:
    """``codecite -C PATH validate x.py`` (git's order) as ``codecite validate -C PATH x.py``.

    Example:
        >>> _where_after_command(["-v", "-C", "repo", "--config=c.toml", "stats", "--json"])
        ['-v', 'stats', '-C', 'repo', '--config=c.toml', '--json']
    """
    front: list[str] = []
    moved: list[str] = []
    rest = list(argv)
    while rest and (rest[0] in ("-v", "--verbose") or rest[0].split("=", 1)[0] in _WHERE):
        take = 2 if rest[0] in _WHERE else 1
        (moved if rest[0] not in ("-v", "--verbose") else front).extend(rest[:take])
        rest = rest[take:]
    if not moved or not rest or rest[0].startswith("-"):
        return list(argv)
    return [*front, rest[0], *moved, *rest[1:]]


def _main(argv: Sequence[str] | None, as_command: bool) -> int:
    parser = _parser()
    argv = _where_after_command(sys.argv[1:] if argv is None else argv)
    args, extra = parser.parse_known_args(argv)
    if extra:
        _unrecognized(parser, args, extra)
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
    args.as_command = as_command
    args.command_names = frozenset(COMMANDS)  # what recipes may name (check-recipes)
    settle_root(args)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Run the command; an error it stops on becomes one line on stderr and its exit code."""
    try:
        return COMMANDS[ALIASES.get(args.command, args.command)].run(args)
    except CodeciteError as exc:  # before OSError: IndexNotFoundError is a FileNotFoundError
        print(f"codecite {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # `codecite query ... | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print(f"codecite {args.command}: interrupted; no index was changed", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:  # a folder that cannot be written or read, a full disk, ...
        message, code = _os_error(args.command, exc)
        print(f"codecite {args.command}: {message}", file=sys.stderr)
        return code


def _os_error(command: str, exc: OSError) -> tuple[str, int]:
    """The line and exit code for a file operation of ``command`` that failed."""
    building = command == "build"
    fix = (
        "or build the index elsewhere with --index-dir DIR"
        if building
        else "or build an index of your own with `codecite build --index-dir DIR`"
    )
    return os_error_line(exc, "", fix, "writable" if building else "readable")


if __name__ == "__main__":
    sys.exit(main())
