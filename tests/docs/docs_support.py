"""Reading fenced blocks out of Markdown pages, for the documentation tests.

A block is skipped when the last non-blank line before its opening fence is an
HTML comment ``<!-- skip-test: reason -->`` or ``<!-- not-executed: reason -->``
(a reason is required). Use it sparingly: for commands that only make sense in
codecite's own checkout (its test suite) or snippets that need a key or a file
of the reader's own.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
FIXTURE_REPO = REPO / "tests" / "fixtures" / "sample_repo"
_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*(skip-test|not-executed)\s*:\s*(\S.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    """One fenced block: the page, the 1-based line of its fence, language, text."""

    page: Path
    line: int
    lang: str
    text: str
    skip_reason: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(REPO).as_posix()}:{self.line}"


def blocks(page: Path, langs: frozenset[str]) -> list[Block]:
    """The fenced blocks of ``page`` whose language is in ``langs``."""
    out: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i].strip())
        if not match:
            i += 1
            continue
        fence, lang, start = match.group(1), match.group(2).lower(), i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        i += 1
        if lang in langs:
            out.append(
                Block(page, start + 1, lang, "\n".join(body) + "\n", _skip_reason(lines, start))
            )
    return out


def _skip_reason(lines: list[str], fence_index: int) -> str | None:
    j = fence_index - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0:
        return None
    match = _MARKER.match(lines[j].strip())
    return match.group(2) if match else None


def fixture_copy(dest: Path) -> Path:
    """A private copy of the fixture repository (never build in place)."""
    target = dest / "sample_repo"
    shutil.copytree(FIXTURE_REPO, target, ignore=shutil.ignore_patterns(".codecite*"))
    return target
