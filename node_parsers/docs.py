"""Documentation files (Markdown, reStructuredText) -> one node per section.

A section is what a reader cites ("see *Loaders > Custom loaders*"), so each
heading opens one ``doc_section`` node whose text is the heading path plus the
body: the path gives BM25 and embeddings the context a bare body lacks. Long
sections are split on paragraph boundaries (never inside a fenced code block
when avoidable), so no node grows past ``max_chars``.

Each node also lists ``refs``: the raw API names the section mentions (Sphinx
roles, autodoc and ``py:`` directives, MyST roles, inline literals that look
like dotted names). Resolving them to symbols is the index's job, not ours.

Headings are found with small line scanners rather than a full Markdown or
docutils parse: we only need titles, levels and line spans, and a scanner is
error tolerant, dependency free and keeps exact 1-based line numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import PurePosixPath
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.schema import BaseNode, TextNode

from codecite.errors import ConfigError  # a ValueError too: bad arguments, never bad text

from .schema import NodeKind, make_node, make_node_id

DEFAULT_MAX_SECTION_CHARS = 4000
MARKDOWN_SUFFIXES = (".md", ".markdown")
RST_SUFFIXES = (".rst", ".txt")

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# linear forms (docs/reliability.md, "Long queries"): the title is greedy up to its last
# non-blank character instead of lazy (which re-scanned the trailing blanks at each
# step), and a closing-hash run is tried only from the start of the blanks before it
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(?![ \t])((?:.*[^ \t\n])?))?[ \t]*$")
_ATX_CLOSER = re.compile(r"(?:^|(?<![ \t])[ \t]+)#+$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])(?:\s|$)")
_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")

_API_ROLES = frozenset({"func", "class", "meth", "attr", "mod", "exc", "data", "obj", "const"})
_RST_ROLE = re.compile(r":(?:(\w+):)?([\w-]+):`([^`]+)`")
_MYST_ROLE = re.compile(r"\{(?:(\w+):)?([\w-]+)\}`([^`]+)`")
_DIRECTIVE_KINDS = "function|class|module|method|attribute|data|exception|decorator|property"
_RST_DIRECTIVE = re.compile(
    rf"^[ \t]*\.\.[ \t]+(?:auto|py:)(?:{_DIRECTIVE_KINDS})::[ \t]*([^\n]*)$", re.M
)
_MYST_DIRECTIVE = re.compile(
    rf"^[ \t]*(?:`{{3,}}|:{{3,}})\{{(?:auto|py:)(?:{_DIRECTIVE_KINDS})\}}[ \t]*([^\n]*)$", re.M
)
_INLINE_LITERAL = re.compile(r"(?<!`)(`{1,2})([^`\n]+?)\1(?!`)")
_DOTTED_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class Heading:
    """A heading found by a scanner; ``start``/``body_start`` are 0-based line indexes."""

    level: int
    title: str
    start: int
    body_start: int


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


# -- shared line helpers -------------------------------------------------------


class _FenceTracker:
    """Feeds lines one by one and says whether each belongs to a fenced code block."""

    def __init__(self) -> None:
        self.marker: str | None = None

    def inside(self, line: str) -> bool:
        """True for the opener, the content and the closer of a fence."""
        m = _FENCE.match(line)
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


def front_matter_end(lines: Sequence[str]) -> int:
    """Index of the first line after a leading ``---`` front matter block (0 if none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i + 1
    return 0


def _stem(source_path: str) -> str:
    return PurePosixPath(source_path).stem or source_path or "document"


def _split_lines(text: str) -> list[str]:
    return text.lstrip("\ufeff").splitlines()


# -- Markdown headings ---------------------------------------------------------


def _markdown_mask(lines: Sequence[str]) -> list[bool]:
    """True for lines inside fenced code or an HTML comment (never headings)."""
    fences = _FenceTracker()
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
    if _ATX.match(title_line) or _SETEXT.match(title_line) or _FENCE.match(title_line):
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


# -- reStructuredText headings -------------------------------------------------


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


# -- glossaries -------------------------------------------------------------------

GLOSSARY_LEVEL = 99  # below every real heading: a term ends at the next term or heading
_MYST_GLOSSARY = re.compile(r"^ {0,3}(:{3,}|`{3,})\{glossary\}\s*$")
_RST_GLOSSARY = re.compile(r"^(\s*)\.\. glossary::\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_RST_CODE_DIRECTIVE = re.compile(
    r"^\s*\.\. (?:code-block|sourcecode|code|doctest|testcode|parsed-literal)::"
)


def _in_rst_literal(lines: Sequence[str], i: int) -> bool:
    """Line ``i`` is inside a literal block (``Example::``) or a code directive."""
    indent = _indent(lines[i])
    for j in range(i - 1, -1, -1):
        line = lines[j]
        if not line.strip() or _indent(line) >= indent:
            continue
        stripped = line.strip()
        if _RST_CODE_DIRECTIVE.match(line) or (
            stripped.endswith("::") and not stripped.startswith("..")
        ):
            return True
        indent = _indent(line)
        if indent == 0:
            return False
    return False


def _glossary_block(lines: Sequence[str], i: int) -> tuple[int, int, int] | None:
    """(first body line, end exclusive, term indent) of a glossary opening at line ``i``."""
    m = _MYST_GLOSSARY.match(lines[i])
    if m is not None:  # MyST: terms at column 0 up to the closing fence
        marker = m.group(1)
        for j in range(i + 1, len(lines)):
            closer = lines[j].strip()  # the fence character only, at least as many times
            if len(closer) >= len(marker) and set(closer) == {marker[0]}:
                return i + 1, j, _indent(lines[i])
        return None
    m = _RST_GLOSSARY.match(lines[i])
    if m is None or _in_rst_literal(lines, i):
        return None
    base = len(m.group(1))
    body = [j for j in range(i + 1, len(lines)) if lines[j].strip()]
    end = next((j for j in body if _indent(lines[j]) <= base), len(lines))
    inside = [j for j in body if j < end and not lines[j].strip().startswith(":")]
    return (i + 1, end, _indent(lines[inside[0]])) if inside else None


def _outside_fences(lines: Sequence[str]) -> list[bool]:
    """Per line: no fenced code block is open when the line starts."""
    fences = _FenceTracker()
    out = []
    for line in lines:
        out.append(fences.marker is None)
        fences.inside(line)
    return out


def glossary_headings(
    lines: Sequence[str], first: int = 0, markdown: bool = False
) -> list[Heading]:
    """Each term of a glossary (MyST ``{glossary}``, reST ``.. glossary::``) as a heading.

    A glossary defines many terms in one block; as one section it would match
    every question about any of them and name every symbol they mention. Split,
    each definition is a section of its own under the page's heading path.
    Consecutive term lines (synonyms sharing one definition) make one title.
    """
    heads: list[Heading] = []
    opener_allowed = _outside_fences(lines) if markdown else [True] * len(lines)
    i = first
    while i < len(lines):
        block = _glossary_block(lines, i) if opener_allowed[i] else None
        if block is None:
            i += 1
            continue
        lo, hi, indent = block
        j = lo
        while j < hi:
            line = lines[j]
            if line.strip() and _indent(line) == indent and not line.strip().startswith(":"):
                k = j
                while k + 1 < hi and lines[k + 1].strip() and _indent(lines[k + 1]) == indent:
                    k += 1
                title = ", ".join(lines[t].strip() for t in range(j, k + 1))
                heads.append(Heading(GLOSSARY_LEVEL, title, j, k + 1))
                j = k + 1
            else:
                j += 1
        i = hi
    return heads


# -- sections and splitting ------------------------------------------------------


def _sections(
    lines: Sequence[str], heads: Sequence[Heading], first: int, stem: str
) -> Iterator[tuple[tuple[str, ...], int | None, int, int]]:
    """(heading_path, heading line or None, body start, body end exclusive), 0-based."""
    yield (stem,), None, first, heads[0].start if heads else len(lines)
    stack: list[Heading] = []
    for k, head in enumerate(heads):
        while stack and stack[-1].level >= head.level:
            stack.pop()
        stack.append(head)
        end = heads[k + 1].start if k + 1 < len(heads) else len(lines)
        path = tuple(h.title for h in stack)
        if stack[0].level == GLOSSARY_LEVEL:  # glossary terms above every heading: under the stem
            path = (stem, *path)
        yield path, head.start, head.body_start, end


@dataclass(frozen=True)
class _Unit:
    first: int
    last: int
    text: str


def _blocks(lines: Sequence[str], lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """Inclusive ranges of paragraphs; a fenced code block is one paragraph."""
    fences = _FenceTracker()
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
    chunks = []
    for n, group in enumerate(_pack(_units(lines, first, last, budget), budget)):
        text = _join(group)
        begin = start if n == 0 else group[0].first
        chunks.append(
            DocChunk(path, begin + 1, group[-1].last + 1, text, extract_refs(title + "\n" + text))
        )
    return chunks


def _chunks(
    lines: Sequence[str], heads: Sequence[Heading], first: int, source_path: str, max_chars: int
) -> list[DocChunk]:
    if max_chars < 1:
        raise ConfigError(f"max_chars must be a positive number of characters, not {max_chars}")
    chunks: list[DocChunk] = []
    for path, head_line, lo, hi in _sections(lines, heads, first, _stem(source_path)):
        chunks.extend(_section_chunks(lines, path, head_line, lo, hi, max_chars))
    return chunks


def markdown_chunks(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[DocChunk]:
    """Markdown sections as chunks (front matter skipped, line numbers kept)."""
    lines = _split_lines(text)
    first = front_matter_end(lines)
    heads = markdown_headings(lines, first)
    if "{glossary}" in text:
        heads = sorted(
            heads + glossary_headings(lines, first, markdown=True), key=lambda h: h.start
        )
    return _chunks(lines, heads, first, source_path, max_chars)


def rst_chunks(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[DocChunk]:
    """reStructuredText sections as chunks."""
    lines = _split_lines(text)
    heads = rst_headings(lines)
    if "glossary::" in text:
        heads = sorted(heads + glossary_headings(lines), key=lambda h: h.start)
    return _chunks(lines, heads, 0, source_path, max_chars)


# -- refs ------------------------------------------------------------------------


def _clean_target(raw: str) -> str | None:
    """``Title <~pkg.f()>`` -> ``pkg.f``; None when it is not a dotted name."""
    m = re.search(r"<([^<>]+)>\s*$", raw)
    target = (m.group(1) if m else raw).strip().lstrip("~!").lstrip(".")
    target = target.removesuffix("()")
    return target if _DOTTED_NAME.match(target) else None


def _blank(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with the given spans replaced by spaces (positions are kept)."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _blank_fences(text: str) -> str:
    fences = _FenceTracker()
    return "\n".join(" " * len(line) if fences.inside(line) else line for line in text.split("\n"))


def _role_hits(text: str) -> tuple[list[tuple[int, str]], str]:
    """API role targets with positions, and the text with every role blanked out."""
    hits: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    for pattern in (_RST_ROLE, _MYST_ROLE):
        for m in pattern.finditer(text):
            spans.append(m.span())
            target = _clean_target(m.group(3))
            if m.group(2) in _API_ROLES and m.group(1) in (None, "py") and target:
                hits.append((m.start(), target))
    return hits, _blank(text, spans)


_LINK_TARGET = re.compile(r"\]\(\s*<?(~?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:\(\))?)>?\s*\)")


def extract_refs(text: str) -> tuple[str, ...]:
    """Raw API names mentioned in ``text``, de-duplicated, in order of appearance.

    Example:
        >>> extract_refs("Use :func:`~pkg.load` or `Env.get()`; see :ref:`intro`.")
        ('pkg.load', 'Env.get')
    """
    outside_code = _blank_fences(text)
    hits = [
        (m.start(), m.group(1).split("(")[0].strip())
        for pattern, source in ((_RST_DIRECTIVE, outside_code), (_MYST_DIRECTIVE, text))
        for m in pattern.finditer(source)
    ]
    role_hits, rest = _role_hits(outside_code)
    hits += role_hits
    for m in _INLINE_LITERAL.finditer(rest):
        name = m.group(2).strip().removesuffix("()")
        hits.append((m.start(), name))
    for m in _LINK_TARGET.finditer(rest):  # MyST cross-references: [`x`](pkg.mod.x)
        hits.append((m.start(), m.group(1).strip().lstrip("~").removesuffix("()")))
    seen: dict[str, None] = {}
    for _, name in sorted(hits, key=lambda hit: hit[0]):
        if _DOTTED_NAME.match(name):
            seen.setdefault(name, None)
    return tuple(seen)


_CODE_LINE = re.compile(r"^(?:\s*(?:>>>|\.\.\.)\s|\s{3,}\S)")
_CODE_IMPORT = re.compile(r"\bfrom\s+([A-Za-z_][\w.]*)\s+import\s+\(?\s*([\w\s,]+)")
_CODE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(")


def extract_code_refs(text: str) -> tuple[str, ...]:
    """API names a section's code examples use: imported names and called names.

    Code is what is inside Markdown fences, doctest lines (``>>>``, ``...``) and
    indented lines (reST literal and code blocks). Names only; whether they are
    the section's topic is decided later, against the whole corpus (a name
    every example imports says nothing about one section).

    Example:
        >>> extract_code_refs("Use it:\n\n    >>> from pkg.box import Box\n    >>> Box(1)\n")
        ('pkg.box.Box', 'Box')
    """
    fences = _FenceTracker()
    code = [line for line in text.split("\n") if fences.inside(line) or _CODE_LINE.match(line)]
    names: dict[str, None] = {}
    for line in code:
        for m in _CODE_IMPORT.finditer(line):
            for name in m.group(2).split(","):
                leaf = name.strip().split(" ")[0]
                if leaf.isidentifier():
                    names.setdefault(f"{m.group(1)}.{leaf}", None)
        for m in _CODE_CALL.finditer(line):
            if m.group(1) not in _NOT_API:
                names.setdefault(m.group(1), None)
    return tuple(names)


_NOT_API = frozenset(
    {
        "print",
        "len",
        "list",
        "dict",
        "set",
        "tuple",
        "str",
        "int",
        "float",
        "bool",
        "range",
        "isinstance",
        "type",
        "super",
        "repr",
        "open",
        "sorted",
        "getattr",
        "setattr",
        "hasattr",
        "lambda",
        "if",
        "for",
        "while",
        "return",
    }
)


# -- nodes -----------------------------------------------------------------------


def ensure_unique_ids(nodes: list[TextNode]) -> list[TextNode]:
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
) -> list[TextNode]:
    """Nodes from chunks; ``header(i)`` is prepended to the i-th node's text."""
    nodes = []
    for i, chunk in enumerate(chunks):
        meta = {**chunk.metadata(source_path, kind), **(extra or {})}
        nodes.append(make_node((header(i) if header else "") + chunk.text, meta))
    return ensure_unique_ids(nodes)


def on_source_lines(nodes: list[TextNode], origin: Sequence[int]) -> list[TextNode]:
    """Nodes parsed from a document derived from a file (a notebook's cells, a
    script's comments and code), their lines mapped back to that file's:
    ``origin[i]`` is the file line of derived line ``i + 1``."""
    for node in nodes:
        for key in ("start_line", "end_line"):
            line = int(node.metadata[key])
            if origin:
                node.metadata[key] = origin[min(max(line, 1), len(origin)) - 1]
    return nodes


def parse_markdown(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[TextNode]:
    """Markdown -> ``doc_section`` nodes.

    Example:
        >>> nodes = parse_markdown("# Guide\\n\\n## Install\\n\\npip install x\\n", "docs/g.md")
        >>> [(n.metadata["heading_path"], n.metadata["start_line"]) for n in nodes]
        [(['Guide', 'Install'], 3)]
    """
    return chunks_to_nodes(markdown_chunks(text, source_path, max_chars), source_path)


def parse_rst(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[TextNode]:
    """reStructuredText -> ``doc_section`` nodes.

    Example:
        >>> nodes = parse_rst("API\\n===\\n\\n.. autofunction:: pkg.load\\n", "docs/api.rst")
        >>> nodes[0].metadata["heading"], nodes[0].metadata["refs"]
        ('API', ['pkg.load'])
    """
    return chunks_to_nodes(rst_chunks(text, source_path, max_chars), source_path)


def parse_doc(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[TextNode]:
    """Dispatch on the suffix: ``.md``/``.markdown`` -> Markdown, ``.rst``/``.txt`` -> rst."""
    suffix = PurePosixPath(source_path).suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return parse_markdown(text, source_path, max_chars)
    if suffix in RST_SUFFIXES:
        return parse_rst(text, source_path, max_chars)
    raise ConfigError(
        f"cannot parse '{source_path}' as documentation: suffix {suffix or '(none)'!r} is not "
        f"one of {', '.join(MARKDOWN_SUFFIXES + RST_SUFFIXES)}; rename it or drop it from "
        "the configured doc suffixes"
    )


def _source_path(doc: BaseNode, default_suffix: str) -> str:
    meta = doc.metadata
    return str(
        meta.get("source_path")
        or meta.get("file_path")
        or meta.get("file_name")
        or f"{doc.node_id}{default_suffix}"
    )


class DocSectionNodeParser(NodeParser):
    """Split Markdown and reStructuredText documents into section nodes.

    Each input document needs ``source_path`` (repository relative) in its
    metadata; the suffix picks the format.

    Example:
        >>> from llama_index.core import Document
        >>> doc = Document(text="Usage\\n=====\\n\\nCall :func:`pkg.run`.\\n",
        ...                metadata={"source_path": "docs/usage.rst"})
        >>> [n.metadata["heading"] for n in DocSectionNodeParser().get_nodes_from_documents([doc])]
        ['Usage']
    """

    max_chars: int = Field(
        default=DEFAULT_MAX_SECTION_CHARS,
        gt=0,
        description="Longest node text; longer sections are split on paragraph boundaries.",
    )

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteDocSectionNodeParser"

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for doc in nodes:
            path = _source_path(doc, ".md")
            out.extend(parse_doc(doc.get_content(), path, self.max_chars))
        return out
