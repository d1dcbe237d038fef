"""Review workflow recipes against the indexed package and the CLI.

A recipe that names an API which no longer exists teaches the assistant to
hallucinate it, so recipes are checked like generated code: every dotted name
in backticks or in a fenced Python block that starts with an indexed top-level
package must resolve in the symbol table; Python blocks also go through
:func:`~codecite.validation.checker.validate_generated_code`; every ``codecite <cmd>``
in backticks or a shell block must be a known subcommand. Nothing is imported.

Example:
    >>> reports = check_recipes("recipes", table)  # doctest: +SKIP
    >>> [p.message for r in reports for p in r.problems]  # doctest: +SKIP
    ['recipes/x.md:12: `pkg.nothing` does not exist in the indexed package']
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from codecite.errors import ConfigError
from codecite.safe_io import MAX_METADATA_BYTES, read_regular_file
from codecite.store.symbols import SymbolTable
from codecite.validation.checker import validate_generated_code
from codecite.validation.namespace import Namespace, RefKind
from codecite.validation.suggestions import with_hint

logger = logging.getLogger(__name__)

DEFAULT_CLI_COMMANDS = frozenset(
    {
        "build",
        "stats",
        "query",
        "ask",
        "chat",
        "eval",
        "report",
        "validate",
        "check-recipes",
        "feedback",
    }
)
PYTHON_LANGS = frozenset({"python", "py", "python3", "pycon", "pytb"})
SHELL_LANGS = frozenset({"bash", "sh", "shell", "console", "zsh", "shell-session", ""})
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_INLINE = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(\s*\()?")
_CLI = re.compile(r"\bcodecite\s+([a-z][\w-]*)")


@dataclass(frozen=True)
class RecipeProblem:
    """One problem in a recipe; ``message`` starts ``path:line:``."""

    line: int
    symbol: str
    message: str
    level: str = "error"


@dataclass(frozen=True)
class RecipeReport:
    """What was checked in one recipe and what failed.

    Example:
        >>> RecipeReport("recipes/x.md", ("pkg.f",), ()).ok
        True
    """

    path: str
    checked: tuple[str, ...]
    problems: tuple[RecipeProblem, ...]
    warnings: tuple[RecipeProblem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class _Block:
    lang: str
    start: int  # line number of the block's first content line
    lines: tuple[str, ...]


def _split(text: str) -> tuple[list[tuple[int, str]], list[_Block]]:
    """Prose lines (numbered) and fenced blocks of a Markdown file."""
    prose: list[tuple[int, str]] = []
    blocks: list[_Block] = []
    fence: tuple[str, str, int] | None = None
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence, body = (match.group(1), match.group(2).lower(), number + 1), []
        elif fence is not None and line.strip().startswith(fence[0]):
            blocks.append(_Block(fence[1], fence[2], tuple(body)))
            fence = None
        elif fence is not None:
            body.append(line)
        else:
            prose.append((number, line))
    return prose, blocks


def _doctest_to_code(lines: Iterable[str]) -> str:
    """Keep ``>>>``/``...`` statements, blank out output, so line numbers still match."""
    out = []
    for line in lines:
        stripped = line.lstrip()
        out.append(stripped[4:] if stripped.startswith((">>> ", "... ")) else "")
    return "\n".join(out) + "\n"


class _RecipeChecker:
    """Checks one recipe's text; collects problems and checked symbols."""

    def __init__(self, label: str, ns: Namespace, cli_commands: set[str]) -> None:
        self.label, self.ns, self.cli = label, ns, cli_commands
        self.checked: list[str] = []
        self.problems: list[RecipeProblem] = []
        self.warnings: list[RecipeProblem] = []

    def problem(self, line: int, symbol: str, text: str, level: str = "error") -> None:
        record = RecipeProblem(line, symbol, f"{self.label}:{line}: {text}", level)
        (self.problems if level == "error" else self.warnings).append(record)

    def dotted(self, line: int, fragment: str) -> None:
        for match in _DOTTED.finditer(fragment):
            name = match.group(1)
            if not self.ns.checks(name) or name.split(".", 1)[0] not in self.ns.indexed:
                continue
            ref = self.ns.chain(name, called=bool(match.group(2)))
            if ref.kind is RefKind.ABSENT:
                self.problem(
                    line,
                    name,
                    with_hint(f"`{name}` does not exist in the indexed package", ref.suggestions),
                )
            elif ref.kind is RefKind.UNKNOWN:
                self.problem(
                    line, name, f"`{name}` cannot be verified statically: {ref.reason}", "warning"
                )
            elif name not in self.checked:
                self.checked.append(name)

    def cli_command(self, line: int, fragment: str) -> None:
        for match in _CLI.finditer(fragment):
            command = match.group(1)
            if command not in self.cli:
                known = ", ".join(sorted(self.cli))
                self.problem(
                    line,
                    f"codecite {command}",
                    f"`codecite {command}` is not a codecite subcommand (known: {known})",
                )

    def python_block(self, block: _Block) -> None:
        seen = {p.line for p in self.problems}
        for offset, line in enumerate(block.lines):
            self.dotted(block.start + offset, line)
        code = (
            _doctest_to_code(block.lines)
            if block.lang == "pycon" or any(line.lstrip().startswith(">>>") for line in block.lines)
            else "\n".join(block.lines)
        )
        result = validate_generated_code(code, self.ns.table, package=self.ns.packages)
        flagged = {p.line for p in self.problems} - seen
        for finding in result["findings"]:
            number = block.start + max(finding["line"], 1) - 1
            if number not in flagged:
                self.problem(number, finding["symbol"], finding["message"], finding["level"])
        self.checked.extend(s for s in result["checked"] if s not in self.checked)

    def run(self, text: str) -> RecipeReport:
        prose, blocks = _split(text)
        for number, line in prose:
            for fragment in _INLINE.findall(line):
                self.dotted(number, fragment)
                self.cli_command(number, fragment)
        for block in blocks:
            if block.lang in PYTHON_LANGS:
                self.python_block(block)
            elif block.lang in SHELL_LANGS:
                for offset, line in enumerate(block.lines):
                    self.cli_command(block.start + offset, line)
        return RecipeReport(
            self.label, tuple(self.checked), tuple(self.problems), tuple(self.warnings)
        )


def _recipe_files(
    recipe_dir_or_files: str | Path | Iterable[str | Path],
) -> Iterator[tuple[Path, str]]:
    """(path, label) pairs; a folder's files are labelled ``folder/relative.md``."""
    items = (
        [recipe_dir_or_files]
        if isinstance(recipe_dir_or_files, (str, Path))
        else list(recipe_dir_or_files)
    )
    for item in map(Path, items):
        if item.is_dir():
            for path in sorted(item.rglob("*.md")):
                if path.is_file():  # a FIFO or device named *.md is not a recipe
                    yield path, path.relative_to(item.parent).as_posix()
        else:
            yield item, item.as_posix()


def check_recipes(
    recipe_dir_or_files: str | Path | Iterable[str | Path],
    table: SymbolTable,
    cli_commands: set[str] | frozenset[str] = DEFAULT_CLI_COMMANDS,
) -> list[RecipeReport]:
    """Check recipe Markdown files against ``table`` and the known CLI subcommands.

    Args:
        recipe_dir_or_files: a folder (searched for ``*.md``) or Markdown files.
        table: the indexed package's symbol table.
        cli_commands: the ``codecite`` subcommands a recipe may mention.

    Returns:
        One :class:`RecipeReport` per file, in path order.
    """
    ns = Namespace.of(table, table.top_packages)
    reports = []
    for path, label in _recipe_files(recipe_dir_or_files):
        checker = _RecipeChecker(label, ns, set(cli_commands))
        try:
            data = read_regular_file(path, root=None, limit=MAX_METADATA_BYTES)
        except OSError as exc:
            raise ConfigError(
                f"recipe '{label}' cannot be read ({exc}); give a regular Markdown file"
            ) from exc
        reports.append(checker.run(data.decode("utf-8", errors="replace")))
        logger.debug("recipe %s: %d problem(s)", label, len(reports[-1].problems))
    return reports
