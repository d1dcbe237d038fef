"""Message evidence: a pasted error or warning message names the code that raises it.

``ValueError: MarkdownIt. Failed to enable unknown rule(s): ['tables']`` names
no symbol; its text is the template of a ``raise`` in ``MarkdownIt.enable``
(``node_parsers.python_messages`` keeps each function's templates in its
``messages`` metadata). When a query quotes a message (``SomethingError: ...``,
``...Warning: ...``, or an exception named otherwise in CamelCase), every
template whose literal parts all occur in it, in order, is a candidate (the
last part may be cut off where the paste ends: a message pasted up to a line
break, without its trailing URL); those matching the most literal text are the nodes the
query names, and join the exact-name factor ``b_name`` (docs/retrieval.md, 4).
What was pasted, from the exception's name on, is the message: the names in
it ("MarkdownIt." above, the exception, a value filled into the template) are
not names the user gave, so the name table reads only the words before it. A
pasted ``OperationalError: Connection already opened.`` asks where that comes
from (``Database.connect``), which then ranks above the exception class (ranked
by its words alone).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

# "pkg.errors.SomeError: text", "TqdmWarning: text", "SystemExit: text", and an
# exception named otherwise in CamelCase: "networkx.exception.NetworkXUnfeasible: text"
PASTED = re.compile(
    r"(?:^|[\s`'\"(])(?P<error>[A-Za-z_][\w.]*?(?:Error|Exception|Warning|Exit|Interrupt|Failure)"
    r"|(?:[A-Za-z_]\w*\.)*[A-Z][a-z0-9]+[A-Z]\w*)"
    r"\s*:\s*(?P<message>\S.*)",
    re.DOTALL,
)
MIN_MATCHED_CHARS = 12  # literal text a template must share with the query to count
PLACEHOLDER = "{}"


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def pasted_message(query: str) -> str | None:
    """The message part of a query that quotes ``SomeError: message``, or None."""
    found = PASTED.search(query)
    return found.group("message") if found else None


def _matched(said: str, parts: Sequence[str]) -> int:
    """How much literal text of a template (its ``parts``) the paste ``said`` holds, in
    order: all of every part, the last one possibly cut off where the paste ends; 0 if a
    part is missing."""
    at, matched = 0, 0
    for part in parts:
        i = said.find(part, at)
        if i >= 0:
            matched += len(part)
            at = i + len(part)
            continue
        cut = _cut_off(said, at, part)
        if matched == 0 and cut < 2 * MIN_MATCHED_CHARS:
            return 0  # a cut-off first part must say more to count
        return matched + cut if cut else 0
    return matched


def _cut_off(said: str, at: int, part: str) -> int:
    """How much of ``part`` the paste ends with, when it stops inside it ("... IO
    dependencies" for "... IO dependencies, see: https://..."): the length of the
    longest such tail of ``said`` from ``at`` on, at least ``MIN_MATCHED_CHARS``; else 0."""
    head = part[:MIN_MATCHED_CHARS]
    i = said.find(head, at)
    while i >= 0:
        if part.startswith(said[i:].rstrip(" .`'\"")):
            return len(said) - i
        i = said.find(head, i + 1)
    return 0


class MessageTable:
    """The message templates of every node, matched against a pasted message."""

    def __init__(self, messages: Sequence[Sequence[str] | None]) -> None:
        self.size = len(messages)
        self.entries: list[tuple[int, list[str]]] = []
        for row, templates in enumerate(messages):
            for template in templates or ():
                parts = [p for p in (_norm(x) for x in template.split(PLACEHOLDER)) if p]
                if parts:
                    self.entries.append((row, parts))

    def match(self, query: str) -> tuple[np.ndarray, str] | None:
        """Nodes whose message the query quotes, and the query before the pasted message.

        None when the query quotes no message or no template matches.
        """
        pasted = PASTED.search(query) if self.entries else None
        if pasted is None:
            return None
        said = _norm(pasted.group("message"))
        best = 0
        rows: list[int] = []
        for row, parts in self.entries:
            matched = _matched(said, parts)
            if matched < MIN_MATCHED_CHARS or matched < best:
                continue
            if matched > best:
                best, rows = matched, []
            rows.append(row)
        if not rows:
            return None
        mask = np.zeros(self.size, dtype=bool)
        mask[rows] = True
        # what was pasted, from the exception's name on, is the message: its names (the
        # exception, values filled into the template) are not names the user gave, and the
        # raiser is what it names; the user's own words before it still may name symbols
        return mask, query[: pasted.start("error")]
