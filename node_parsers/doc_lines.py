"""Line helpers shared by the Markdown and reStructuredText scanners.

Headings are found with small line scanners rather than a full Markdown or
docutils parse: only titles, levels and line spans are needed, and a scanner
is error tolerant, dependency free and keeps exact 1-based line numbers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Heading:
    """A heading found by a scanner; ``start``/``body_start`` are 0-based line indexes."""

    level: int
    title: str
    start: int
    body_start: int


class FenceTracker:
    """Feeds lines one by one and says whether each belongs to a fenced code block."""

    def __init__(self) -> None:
        self.marker: str | None = None

    def inside(self, line: str) -> bool:
        """True for the opener, the content and the closer of a fence."""
        m = FENCE.match(line)
        if self.marker is None:
            if m is None or (m.group(1)[0] == "`" and "`" in m.group(2)):
                return False
            self.marker = m.group(1)
            return True
        if (
            m
            and m.group(1)[0] == self.marker[0]
            and len(m.group(1)) >= len(self.marker)
            and not m.group(2).strip()
        ):
            self.marker = None
        return True


def outside_fences(lines: Sequence[str]) -> list[bool]:
    """Per line: no fenced code block is open when the line starts."""
    fences = FenceTracker()
    out = []
    for line in lines:
        out.append(fences.marker is None)
        fences.inside(line)
    return out


def front_matter_end(lines: Sequence[str]) -> int:
    """Index of the first line after a leading ``---`` front matter block (0 if none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i + 1
    return 0


def indent_of(line: str) -> int:
    """Width of the line's leading whitespace."""
    return len(line) - len(line.lstrip())


def stem(source_path: str) -> str:
    """The file name without suffix: the heading of text before any heading."""
    return PurePosixPath(source_path).stem or source_path or "document"


_LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` as Python and editors number them: ``\n``, ``\r\n`` or a lone
    ``\r`` ends one. (``str.splitlines`` also ends a line at a form feed or a Unicode line
    separator, which shifts every later line of a citation.)"""
    lines = _LINE_END.split(text)
    if lines[-1] == "":  # a final line end opens no line
        lines.pop()
    return lines


def split_lines(text: str) -> list[str]:
    """The document's lines, a leading byte order mark dropped."""
    return source_lines(text.lstrip("\ufeff"))
