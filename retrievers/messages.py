"""Message evidence: a pasted error or warning message names the code that raises it.

``ValueError: MarkdownIt. Failed to enable unknown rule(s): ['tables']`` names
no symbol; its text is the template of a ``raise`` in ``MarkdownIt.enable``
(``node_parsers.python_messages`` keeps each function's templates in its
``messages`` metadata). When a query quotes a message (``SomethingError: ...``,
``...Warning: ...``), every template whose literal parts all occur in it, in
order, is a candidate; those matching the most literal text are the nodes the
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

# "pkg.errors.SomeError: text", "TqdmWarning: text", "SystemExit: text"
PASTED = re.compile(
    r"(?:^|[\s`'\"(])(?P<error>[A-Za-z_][\w.]*?(?:Error|Exception|Warning|Exit|Interrupt|Failure))"
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
            at, matched = 0, 0
            for part in parts:
                i = said.find(part, at)
                if i < 0:
                    break
                matched += len(part)
                at = i + len(part)
            else:
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
