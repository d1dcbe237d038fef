"""reStructuredText section titles and reST sections.

A title's level is the order in which its adornment style (character, and
whether it is overlined) first appears in the file, as docutils decides it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .doc_lines import Heading, split_lines
from .glossary import glossary_headings
from .refs import defined_names
from .sections import DEFAULT_MAX_SECTION_CHARS, DocChunk, chunks, chunks_to_nodes

if TYPE_CHECKING:
    from .schema import NodeRecord

_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")


def _adornment(line: str) -> str | None:
    """The adornment character of a column-0 punctuation line, else None."""
    m = _RST_ADORNMENT.match(line)
    return m.group(1) if m else None


def _rst_overlined(lines: Sequence[str], i: int) -> tuple[tuple[str, bool], str, int] | None:
    char = _adornment(lines[i])
    if char is None or i + 2 >= len(lines):
        return None
    title = lines[i + 1].strip()
    if not title or _adornment(title) or _adornment(lines[i + 2]) != char:
        return None
    width = min(len(lines[i].rstrip()), len(lines[i + 2].rstrip()))
    return ((char, True), title, i + 3) if width >= len(title) else None


def _rst_underlined(lines: Sequence[str], i: int) -> tuple[tuple[str, bool], str, int] | None:
    if i + 1 >= len(lines) or not lines[i].strip() or lines[i][0].isspace():
        return None
    title = lines[i].rstrip()
    char = _adornment(lines[i + 1])
    if char is None or _adornment(title) or len(lines[i + 1].rstrip()) < len(title):
        return None
    return (char, False), title, i + 2


def rst_headings(lines: Sequence[str]) -> list[Heading]:
    """Section titles; level = order of first appearance of each adornment style.

    A title and its underline must start in column 0 and follow a blank line (or
    a previous title), so adornment-like lines in literal blocks and directive
    bodies (always indented) and transitions (no title line) are never titles.
    """
    styles: dict[tuple[str, bool], int] = {}
    heads: list[Heading] = []
    i = 0
    while i < len(lines):
        after_break = (
            i == 0 or not lines[i - 1].strip() or (bool(heads) and heads[-1].body_start == i)
        )
        found = (_rst_overlined(lines, i) or _rst_underlined(lines, i)) if after_break else None
        if found is None:
            i += 1
            continue
        style, title, body_start = found
        heads.append(Heading(styles.setdefault(style, len(styles)), title, i, body_start))
        i = body_start
    return heads


def rst_chunks(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[DocChunk]:
    """reStructuredText sections as chunks."""
    lines = split_lines(text)
    heads = rst_headings(lines)
    if "glossary::" in text:
        heads = sorted(heads + glossary_headings(lines), key=lambda h: h.start)
    return chunks(lines, heads, 0, source_path, max_chars)


def parse_rst(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[NodeRecord]:
    """reStructuredText -> ``doc_section`` nodes.

    Example:
        >>> nodes = parse_rst("API\\n===\\n\\n.. autofunction:: pkg.load\\n", "docs/api.rst")
        >>> nodes[0].metadata["heading"], nodes[0].metadata["refs"]
        ('API', ['pkg.load'])
    """
    nodes = chunks_to_nodes(rst_chunks(text, source_path, max_chars), source_path)
    for line, name in defined_names(text):  # the API each section defines (refs.defined_names)
        for node in nodes:
            meta = node.metadata
            if meta["start_line"] <= line <= meta["end_line"]:
                documents = meta.setdefault("documents", [])
                if name not in documents:
                    documents.append(name)
                break
    return nodes
