"""Glossary terms (MyST ``{glossary}``, reST ``.. glossary::``) as headings of their own.

A glossary defines many terms in one block; as one section it would match
every question about any of them and name every symbol they mention. Split,
each definition is a section of its own under the page's heading path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .doc_lines import Heading, indent_of, outside_fences

GLOSSARY_LEVEL = 99  # below every real heading: a term ends at the next term or heading
_MYST_GLOSSARY = re.compile(r"^ {0,3}(:{3,}|`{3,})\{glossary\}\s*$")
_RST_GLOSSARY = re.compile(r"^(\s*)\.\. glossary::\s*$")
_RST_CODE_DIRECTIVE = re.compile(
    r"^\s*\.\. (?:code-block|sourcecode|code|doctest|testcode|parsed-literal)::"
)


def _in_rst_literal(lines: Sequence[str], i: int) -> bool:
    """Line ``i`` is inside a literal block (``Example::``) or a code directive."""
    indent = indent_of(lines[i])
    for j in range(i - 1, -1, -1):
        line = lines[j]
        if not line.strip() or indent_of(line) >= indent:
            continue
        stripped = line.strip()
        if _RST_CODE_DIRECTIVE.match(line) or (
            stripped.endswith("::") and not stripped.startswith("..")
        ):
            return True
        indent = indent_of(line)
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
                return i + 1, j, indent_of(lines[i])
        return None
    m = _RST_GLOSSARY.match(lines[i])
    if m is None or _in_rst_literal(lines, i):
        return None
    base = len(m.group(1))
    body = [j for j in range(i + 1, len(lines)) if lines[j].strip()]
    end = next((j for j in body if indent_of(lines[j]) <= base), len(lines))
    inside = [j for j in body if j < end and not lines[j].strip().startswith(":")]
    return (i + 1, end, indent_of(lines[inside[0]])) if inside else None


def glossary_headings(
    lines: Sequence[str], first: int = 0, markdown: bool = False
) -> list[Heading]:
    """Each term of a glossary as a heading at ``GLOSSARY_LEVEL``.

    Consecutive term lines (synonyms sharing one definition) make one title.
    """
    heads: list[Heading] = []
    opener_allowed = outside_fences(lines) if markdown else [True] * len(lines)
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
            if line.strip() and indent_of(line) == indent and not line.strip().startswith(":"):
                k = j
                while k + 1 < hi and lines[k + 1].strip() and indent_of(lines[k + 1]) == indent:
                    k += 1
                title = ", ".join(lines[t].strip() for t in range(j, k + 1))
                heads.append(Heading(GLOSSARY_LEVEL, title, j, k + 1))
                j = k + 1
            else:
                j += 1
        i = hi
    return heads
