"""``FileResult``: what one corpus file contributes to a build, parsed now or reused."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codecite.store.reuse import Keys, OldRows


@dataclass
class FileResult:
    """What one file contributed: nodes, their keys and terms, namespace, warnings.

    A re-parsed file has ``records`` and ``tokens``; a reused one has its
    undecoded ``chunk`` of ``nodes.jsonl`` (one line per node) and the
    ``rows`` of the previous term arrays. Both have ``keys`` (one per node).
    """

    rel: str
    digest: str
    records: list[dict[str, Any]] = field(default_factory=list)
    tokens: list[list[str]] = field(default_factory=list)
    namespace: dict[str, Any] | None = None
    namespace_line: bytes | None = None
    warnings: list[str] = field(default_factory=list)
    keys: Keys = field(default_factory=Keys)  # empty for a reused file: see ``rows``
    chunk: bytes | None = None
    rows: OldRows | None = None
    redacted: int = 0  # secret values replaced by placeholders (codecite.indexer.redaction)

    @property
    def count(self) -> int:
        return self.rows.stop - self.rows.start if self.rows is not None else len(self.keys)
