"""Where each record of ``nodes.jsonl`` ends, and a digest of it: ``lines.npy``.

A load maps ``nodes.jsonl`` and decodes only the records asked for
(``codecite.store.stored``); hashing the whole file to return ten records, and
finding every newline in it, was most of what a load had left at 50,000 nodes
(docs/architecture.md, "Loading"). So the build writes, for every line, its end
offset and an 8-byte BLAKE2b digest of its bytes. A load checks the file's size
against the last offset (a truncated or grown file fails there), and a record's
digest when the record is first read (an edited or damaged record fails there,
naming its line); ``codecite stats --verify`` still checks the whole file's
SHA-256, as a build does before it reuses a record.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from codecite.errors import IndexIntegrityError
from codecite.store.files import LINES, checksum_mismatch
from codecite.vocabulary import REBUILD_FIX

__all__ = [
    "LINES",
    "checked_line_table",
    "line_table",
    "read_line_table",
    "record_digest",
    "save_line_table",
]


def record_digest(line: bytes | memoryview) -> int:
    """The 8-byte BLAKE2b digest of one line of ``nodes.jsonl`` (newline included)."""
    return int.from_bytes(hashlib.blake2b(line, digest_size=8).digest(), "little")


def line_table(
    chunks: Sequence[bytes], known: Sequence[np.ndarray | None] | None = None
) -> np.ndarray:
    """The ``LINES`` array of the file ``chunks`` make, one after another: shape
    (lines, 2), uint64, each line's end offset and its ``record_digest``.

    Every chunk is whole lines (the build writes each file's records as one chunk).
    ``known[i]``, when given, is chunk ``i``'s rows of the previous index's table (a
    reused file's unchanged lines): shifted to the chunk's offset, not hashed again,
    so that a one-file build hashes one file's lines.
    """
    parts: list[np.ndarray] = []
    offset = 0
    for i, chunk in enumerate(chunks):
        if chunk and not chunk.endswith(b"\n"):
            raise ValueError("a chunk of nodes.jsonl does not end with a newline")
        rows = known[i] if known is not None else None
        first = int(rows[0, 0]) - (chunk.find(b"\n") + 1) if rows is not None and len(rows) else 0
        if rows is not None and len(rows) and int(rows[-1, 0]) - first == len(chunk):
            part = rows.copy()  # ends shifted from the chunk's old offset to its new one
            part[:, 0] = rows[:, 0] - np.uint64(first) + np.uint64(offset)
        else:
            part = _hashed(chunk, offset)
        parts.append(part)
        offset += len(chunk)
    return np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.uint64)


def _hashed(chunk: bytes, offset: int) -> np.ndarray:
    ends: list[int] = []
    digests: list[int] = []
    view = memoryview(chunk)
    start = 0
    at = chunk.find(b"\n")
    while at >= 0:
        ends.append(offset + at + 1)
        digests.append(record_digest(view[start : at + 1]))
        start = at + 1
        at = chunk.find(b"\n", start)
    table = np.empty((len(ends), 2), dtype=np.uint64)
    table[:, 0] = ends
    table[:, 1] = digests
    return table


def save_line_table(path: Path, table: np.ndarray) -> None:
    np.save(path, table, allow_pickle=False)


def checked_line_table(path: Path, data: bytes, nodes: Path, size: int) -> np.ndarray:
    """The ``LINES`` table from the verified bytes of the file at ``path``, checked to
    describe the ``nodes`` file of ``size`` bytes (else that file was truncated or grown)."""
    try:
        table = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise IndexIntegrityError(
            f"index file '{path}' is not a valid array ({exc}); {REBUILD_FIX}"
        ) from exc
    shaped = table.ndim == 2 and table.shape[1] == 2 and table.dtype == np.uint64
    ends = table[:, 0].astype(np.int64) if shaped else np.zeros(0, dtype=np.int64)
    if not shaped or bool(np.any(np.diff(ends, prepend=0) <= 0)):
        raise IndexIntegrityError(
            f"index file '{path}' does not describe the lines of {nodes.name} (edited?); "
            f"{REBUILD_FIX}"
        )
    if (int(ends[-1]) if len(ends) else 0) != size:
        raise checksum_mismatch(nodes)
    return table


def read_line_table(path: Path, data: bytes, nodes: Path, size: int) -> tuple[list[int], list[int]]:
    """``(starts, digests)`` of ``checked_line_table``: ``starts`` holds the offset of every
    line of the ``nodes`` file and then its ``size``."""
    table = checked_line_table(path, data, nodes, size)
    return [0, *table[:, 0].tolist()], table[:, 1].tolist()
