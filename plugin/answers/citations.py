"""Citations: numbered ``[id] path:start-end`` sources, and the check of an answer's ids.

:class:`Citation` is where one piece of evidence lives; its ``ref`` is the one
``path:start-end`` string of the code base
(:func:`codecite.node_parsers.schema.citation`). :func:`check_citations`
removes ids an LLM cited that are not in its context and reports them;
:func:`filter_stream` does the same for a stream of text as it arrives (see
docs/answers.md, "Citation check" and "Streaming").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any

from codecite.node_parsers.schema import citation
from codecite.node_parsers.schema import node_label as label_of

# starts only where a blank run starts: no retry inside a long run of blanks (linear)
_CITE = re.compile(r"(?<!\s)(\s*)\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]")
MAX_PENDING_CHARS = 12  # a held-back "[1, 2" longer than this is not a citation


@dataclass(frozen=True)
class Citation:
    """Where one piece of evidence lives: ``[id] path:start-end`` plus its label.

    Example:
        >>> Citation(1, "pkg/io.py", 3, 9, "pkg.io.load", "python_symbol").header()
        '[1] pkg/io.py:3-9 pkg.io.load (python_symbol)'
    """

    id: int
    path: str
    start_line: int | None
    end_line: int | None
    label: str
    kind: str

    @property
    def ref(self) -> str:
        return citation(
            {"source_path": self.path, "start_line": self.start_line, "end_line": self.end_line}
        )

    def header(self) -> str:
        return f"[{self.id}] {self.ref} {self.label} ({self.kind})"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "ref": self.ref,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "label": self.label,
            "kind": self.kind,
        }


def citation_for(cid: int, meta: dict[str, Any]) -> Citation:
    """The citation numbered ``cid`` of a node's metadata."""
    return Citation(
        cid,
        str(meta.get("source_path", "")),
        meta.get("start_line"),
        meta.get("end_line"),
        label_of(meta),
        str(meta.get("kind", "")),
    )


@dataclass(frozen=True)
class CitationCheck:
    """An LLM answer after the citation check."""

    text: str
    cited: tuple[int, ...]
    invalid: tuple[int, ...]

    @property
    def uncited(self) -> bool:
        return not self.cited


def check_citations(text: str, valid: Iterable[int]) -> CitationCheck:
    """Remove cited ids that are not in the context; report them and what remains cited.

    ``"uses f [1][7]"`` with valid ``{1}`` -> ``"uses f [1]"``, invalid ``(7,)``.

    Example:
        >>> check_citations("uses f [1][7]", {1}).text
        'uses f [1]'
    """
    valid_ids = set(valid)
    cited: list[int] = []
    invalid: list[int] = []

    def fix(m: re.Match[str]) -> str:
        ids = [int(x) for x in re.split(r"[,;]", m.group(2))]
        keep = [i for i in ids if i in valid_ids]
        invalid.extend(i for i in ids if i not in valid_ids)
        cited.extend(i for i in keep if i not in cited)
        return f"{m.group(1)}[{', '.join(map(str, keep))}]" if keep else ""

    cleaned = _CITE.sub(fix, text)
    return CitationCheck(cleaned, tuple(cited), tuple(dict.fromkeys(invalid)))


def _split_pending(buffer: str) -> tuple[str, str]:
    """Text safe to emit, and a tail that may be the start of a citation (``"... [1"``)."""
    start = buffer.rfind("[")
    if start < 0 or "]" in buffer[start:] or len(buffer) - start > MAX_PENDING_CHARS:
        return buffer, ""
    return buffer[:start], buffer[start:]


def filter_stream(
    deltas: Iterable[str], valid: Iterable[int], on_done: Callable[[CitationCheck], None]
) -> Generator[str, None, None]:
    """Yield ``deltas`` with invalid citations removed; ``on_done`` gets the full check."""
    valid_ids = set(valid)
    pending, full = "", []
    for delta in deltas:
        safe, pending = _split_pending(pending + (delta or ""))
        if safe:
            out = check_citations(safe, valid_ids).text
            full.append(safe)
            yield out
    if pending:
        full.append(pending)
        yield check_citations(pending, valid_ids).text
    on_done(check_citations("".join(full), valid_ids))
