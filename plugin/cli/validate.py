"""``codecite validate`` and ``codecite check-recipes``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from codecite.cli.shared import EXIT_FAIL, EXIT_OK, Command, add_common_options, load_index
from codecite.errors import UsageError


def _configure_validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a Python file to check, or - for standard input")
    add_common_options(p)
    p.add_argument(
        "--import-check",
        action="store_true",
        help="also import the installed package for names the index cannot prove",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def cmd_validate(args: argparse.Namespace) -> int:
    from codecite.validation.checker import validate_generated_code

    if args.file == "-":
        code = sys.stdin.read()
    else:
        path = Path(args.file)
        if not path.is_file():
            raise UsageError(f"no file '{args.file}'; pass a Python file or - for stdin")
        code = path.read_text(encoding="utf-8", errors="replace")
    index = load_index(args, check_stale=False)
    result = validate_generated_code(code, index=index, import_check=args.import_check)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        levels = [finding["level"] for finding in result["findings"]]
        for finding in result["findings"]:
            print(f"{args.file}:{finding['line']}: {finding['level']}: {finding['message']}")
        print(  # the lines printed above: one message on three lines is three errors
            f"{'ok' if result['ok'] else 'FAILED'}: {levels.count('error')} error(s), "
            f"{levels.count('warning')} warning(s), {len(result['checked'])} name(s) verified"
        )
        if not result["checked"] and result["syntax_ok"]:
            _say_unindexed(code, index)
    return EXIT_OK if result["ok"] else EXIT_FAIL


def _say_unindexed(code: str, index: object) -> None:
    """Nothing verified: say which imported packages this index does not hold, so that a
    check run against the wrong index (or none of its packages) does not pass unnoticed."""
    import ast

    imported: set[str] = set()
    for node in ast.walk(ast.parse(code)):  # parsed once: the check already parsed it fine
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".", 1)[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".", 1)[0])
    held = sorted(index.symbol_table.top_packages)  # type: ignore[attr-defined]
    foreign = sorted(imported - set(held) - set(sys.stdlib_module_names))
    if foreign:
        print(
            f"note: nothing was checked: this index holds {', '.join(held) or 'no package'}; "
            f"{', '.join(foreign)} is not in it (-C PATH names another repository)"
        )


def _configure_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", help="recipe files or folders (default: configured recipes)")
    add_common_options(p)


def cmd_check_recipes(args: argparse.Namespace) -> int:
    from codecite.validation.recipes import check_recipes

    index = load_index(args, check_stale=False)
    root = index.config.root
    paths = args.paths or [str(root / r) for r in index.config.recipes]
    if not paths:
        raise UsageError(
            "no recipe folders configured or given; pass paths or set "
            '`recipes = ["recipes"]` in [tool.codecite]'
        )
    reports = check_recipes(paths, index.symbol_table, cli_commands=set(args.command_names))
    failed = 0
    for report in reports:
        status = "ok" if report.ok else "FAILED"
        print(
            f"{report.path}: {status} ({len(report.checked)} checked, "
            f"{len(report.problems)} problem(s), {len(report.warnings)} warning(s))"
        )
        for problem in report.problems:
            print(f"  {problem.message}")
        for warning in report.warnings:
            print(f"  warning: {getattr(warning, 'message', warning)}")
        failed += not report.ok
    print(f"{len(reports)} recipe(s), {failed} with problems")
    return EXIT_FAIL if failed else EXIT_OK


COMMANDS = (
    Command(
        "validate",
        "check generated code against the indexed package",
        _configure_validate,
        cmd_validate,
    ),
    Command(
        "check-recipes",
        "check that recipes name real symbols and commands",
        _configure_check,
        cmd_check_recipes,
    ),
)
