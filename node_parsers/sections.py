"""Headings -> sections -> ``doc_section`` nodes, long sections split on paragraphs.

A section is what a reader cites ("see *Loaders > Custom loaders*"), so each
heading opens one node whose text is the heading path plus the body: the path
gives BM25 and embeddings the context a bare body lacks. Long sections are
split on paragraph boundaries (never inside a fenced code block when
avoidable), so no node grows past ``max_chars``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from codecite.errors import ConfigError  # a ValueError too: bad arguments, never bad text

from .doc_lines import FenceTracker, Heading, stem
from .glossary import GLOSSARY_LEVEL
from .refs import extract_code_refs, extract_refs
from .schema import NodeKind, make_node, make_node_id

if TYPE_CHECKING:
    from .schema import NodeRecord

DEFAULT_MAX_SECTION_CHARS = 4000


@dataclass(frozen=True)
class DocChunk:
    """One section (or one piece of a long section), before it becomes a node."""

    heading_path: tuple[str, ...]
    start_line: int
    end_line: int
    body: str
    refs: tuple[str, ...]

    @property
    def heading(self) -> str:
        return self.heading_path[-1]

    @property
    def text(self) -> str:
        """Heading path, a blank line, then the body: what BM25 and embeddings see."""
        return " > ".join(self.heading_path) + "\n\n" + self.body

    def metadata(self, source_path: str, kind: str) -> dict[str, Any]:
        return {
            "kind": kind,
            "source_path": source_path,
            "heading": self.heading,
            "heading_path": list(self.heading_path),
            "start_line": self.start_line,
            "end_line": self.end_line,
            "refs": list(self.refs),
            "code_refs": list(extract_code_refs(self.body)),
        }


def _sections(
    lines: Sequence[str], heads: Sequence[Heading], first: int, page: str
) -> Iterator[tuple[tuple[str, ...], int | None, int, int]]:
    """(heading_path, heading line or None, body start, body end exclusive), 0-based;
    ``page`` heads the text before the first heading."""
    yield (page,), None, first, heads[0].start if heads else len(lines)
    stack: list[Heading] = []
    for k, head in enumerate(heads):
        while stack and stack[-1].level >= head.level:
            stack.pop()
        stack.append(head)
        end = heads[k + 1].start if k + 1 < len(heads) else len(lines)
        path = tuple(h.title for h in stack)
        if stack[0].level == GLOSSARY_LEVEL:  # glossary terms above every heading: under the stem
            path = (page, *path)
        yield path, head.start, head.body_start, end


@dataclass(frozen=True)
class _Unit:
    first: int
    last: int
    text: str


def _blocks(lines: Sequence[str], lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """Inclusive ranges of paragraphs; a fenced code block is one paragraph."""
    fences = FenceTracker()
    start: int | None = None
    for i in range(lo, hi + 1):
        in_fence = fences.inside(lines[i])
        if lines[i].strip() or in_fence:
            start = i if start is None else start
        elif start is not None:
            yield start, i - 1
            start = None
    if start is not None:
        yield start, hi


def _units(lines: Sequence[str], lo: int, hi: int, budget: int) -> Iterator[_Unit]:
    """Paragraphs that fit; larger ones as lines; longer lines as hard pieces."""
    for a, b in _blocks(lines, lo, hi):
        text = "\n".join(lines[a : b + 1])
        if len(text) <= budget:
            yield _Unit(a, b, text)
            continue
        for i in range(a, b + 1):
            for k in range(0, max(len(lines[i]), 1), budget):
                yield _Unit(i, i, lines[i][k : k + budget])


def _separator(prev: _Unit, unit: _Unit) -> str:
    if prev.last == unit.first:
        return ""
    return "\n" if unit.first == prev.last + 1 else "\n\n"


def _pack(units: Iterator[_Unit], budget: int) -> list[list[_Unit]]:
    """Greedy packing of consecutive units into groups of at most ``budget`` chars."""
    groups: list[list[_Unit]] = []
    size = 0
    for unit in units:
        add = len(unit.text) + (len(_separator(groups[-1][-1], unit)) if groups else 0)
        if not groups or size + add > budget:
            groups.append([unit])
            size = len(unit.text)
        else:
            groups[-1].append(unit)
            size += add
    return groups


def _join(group: Sequence[_Unit]) -> str:
    parts = [group[0].text]
    for prev, unit in pairwise(group):
        parts.append(_separator(prev, unit) + unit.text)
    return "".join(parts)


def _trim(lines: Sequence[str], lo: int, hi: int) -> tuple[int, int] | None:
    """First and last non-blank line indexes in ``[lo, hi)``, or None."""
    filled = [i for i in range(lo, hi) if lines[i].strip()]
    return (filled[0], filled[-1]) if filled else None


def _section_chunks(
    lines: Sequence[str],
    path: tuple[str, ...],
    head_line: int | None,
    lo: int,
    hi: int,
    max_chars: int,
) -> list[DocChunk]:
    span = _trim(lines, lo, hi)
    if span is None:
        return []
    first, last = span
    start = first if head_line is None else head_line
    body = "\n".join(lines[first : last + 1])
    title = "" if head_line is None else path[-1]
    whole = DocChunk(path, start + 1, last + 1, body, extract_refs(title + "\n" + body))
    if len(whole.text) <= max_chars:
        return [whole]
    budget = max(max_chars - len(" > ".join(path)) - 2, max_chars // 2, 1)
    pieces = []
    for n, group in enumerate(_pack(_units(lines, first, last, budget), budget)):
        text = _join(group)
        begin = start if n == 0 else group[0].first
        pieces.append(
            DocChunk(path, begin + 1, group[-1].last + 1, text, extract_refs(title + "\n" + text))
        )
    return pieces


def chunks(
    lines: Sequence[str], heads: Sequence[Heading], first: int, source_path: str, max_chars: int
) -> list[DocChunk]:
    """Every section of a document from line ``first`` on, as chunks of at most
    ``max_chars``; text before the first heading is headed by the file's stem."""
    if max_chars < 1:
        raise ConfigError(f"max_chars must be a positive number of characters, not {max_chars}")
    out: list[DocChunk] = []
    for path, head_line, lo, hi in _sections(lines, heads, first, stem(source_path)):
        out.extend(_section_chunks(lines, path, head_line, lo, hi, max_chars))
    return out


def ensure_unique_ids(nodes: list[NodeRecord]) -> list[NodeRecord]:
    """Re-key nodes whose id repeats (hard-split pieces of one long line share a span)."""
    seen: set[str] = set()
    for n, node in enumerate(nodes):
        if node.id_ in seen:
            meta = node.metadata
            name = "/".join(meta.get("heading_path") or []) + f"#{n}"
            node.id_ = make_node_id(
                meta["source_path"],
                str(meta["kind"]),
                name,
                int(meta["start_line"]),
                int(meta["end_line"]),
            )
        seen.add(node.id_)
    return nodes


def chunks_to_nodes(
    chunks: Sequence[DocChunk],
    source_path: str,
    kind: str = NodeKind.DOC_SECTION.value,
    header: Callable[[int], str] | None = None,
    extra: dict[str, Any] | None = None,
) -> list[NodeRecord]:
    """Nodes from chunks; ``header(i)`` is prepended to the i-th node's text."""
    nodes = []
    for i, chunk in enumerate(chunks):
        meta = {**chunk.metadata(source_path, kind), **(extra or {})}
        nodes.append(make_node((header(i) if header else "") + chunk.text, meta))
    return ensure_unique_ids(nodes)


def on_source_lines(nodes: list[NodeRecord], origin: Sequence[int]) -> list[NodeRecord]:
    """Nodes parsed from a document derived from a file (a notebook's cells, a
    script's comments and code), their lines mapped back to that file's:
    ``origin[i]`` is the file line of derived line ``i + 1``."""
    for node in nodes:
        for key in ("start_line", "end_line"):
            line = int(node.metadata[key])
            if origin:
                node.metadata[key] = origin[min(max(line, 1), len(origin)) - 1]
    return nodes
