"""Markdown headings (ATX ``# Title`` and setext underlines) and Markdown sections.

Lines inside fenced code or an HTML comment are never headings; a leading
``---`` front matter block is skipped with its line numbers kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .doc_lines import FENCE, FenceTracker, Heading, front_matter_end, split_lines
from .glossary import glossary_headings
from .sections import DEFAULT_MAX_SECTION_CHARS, DocChunk, chunks, chunks_to_nodes

if TYPE_CHECKING:
    from .schema import NodeRecord

# linear forms (docs/reliability.md, "Long queries"): the title is greedy up to its last
# non-blank character instead of lazy (which re-scanned the trailing blanks at each
# step), and a closing-hash run is tried only from the start of the blanks before it
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(?![ \t])((?:.*[^ \t\n])?))?[ \t]*$")
_ATX_CLOSER = re.compile(r"(?:^|(?<![ \t])[ \t]+)#+$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])(?:\s|$)")


def _markdown_mask(lines: Sequence[str]) -> list[bool]:
    """True for lines inside fenced code or an HTML comment (never headings)."""
    fences = FenceTracker()
    in_comment = False
    mask: list[bool] = []
    for line in lines:
        if in_comment:
            mask.append(True)
            in_comment = "-->" not in line
            continue
        masked = fences.inside(line)
        if not masked and "<!--" in line:
            in_comment = "-->" not in line[line.index("<!--") + 4 :]
        mask.append(masked)
    return mask


def _atx_heading(line: str, i: int) -> Heading | None:
    m = _ATX.match(line)
    if m is None:
        return None
    title = _ATX_CLOSER.sub("", m.group(2) or "").strip()
    return Heading(len(m.group(1)), title, i, i + 1) if title else None


def _setext_heading(
    lines: Sequence[str], i: int, first: int, mask: Sequence[bool], previous: Heading | None
) -> Heading | None:
    m = _SETEXT.match(lines[i])
    if m is None or i - 1 < first or mask[i - 1]:
        return None
    title_line = lines[i - 1]
    if not title_line.strip() or title_line.startswith("    ") or _LIST_ITEM.match(title_line):
        return None
    if _ATX.match(title_line) or _SETEXT.match(title_line) or FENCE.match(title_line):
        return None
    if previous is not None and previous.body_start > i - 1:
        return None
    return Heading(1 if m.group(1)[0] == "=" else 2, title_line.strip(), i - 1, i + 1)


def markdown_headings(lines: Sequence[str], first: int = 0) -> list[Heading]:
    """ATX and setext headings from line ``first`` on, skipping code and comments."""
    mask = _markdown_mask(lines)
    heads: list[Heading] = []
    for i in range(first, len(lines)):
        if mask[i]:
            continue
        head = _atx_heading(lines[i], i) or _setext_heading(
            lines, i, first, mask, heads[-1] if heads else None
        )
        if head is not None:
            heads.append(head)
    return heads


def markdown_chunks(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[DocChunk]:
    """Markdown sections as chunks (front matter skipped, line numbers kept)."""
    lines = split_lines(text)
    first = front_matter_end(lines)
    heads = markdown_headings(lines, first)
    if "{glossary}" in text:
        heads = sorted(
            heads + glossary_headings(lines, first, markdown=True), key=lambda h: h.start
        )
    return chunks(lines, heads, first, source_path, max_chars)


def parse_markdown(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[NodeRecord]:
    """Markdown -> ``doc_section`` nodes.

    Example:
        >>> nodes = parse_markdown("# Guide\\n\\n## Install\\n\\npip install x\\n", "docs/g.md")
        >>> [(n.metadata["heading_path"], n.metadata["start_line"]) for n in nodes]
        [(['Guide', 'Install'], 3)]
    """
    return chunks_to_nodes(markdown_chunks(text, source_path, max_chars), source_path)
