"""The nodes of a loaded index, decoded from ``nodes.jsonl`` only when one is asked for.

A query returns ten nodes; decoding the 50,000 records of a large index to return
them was most of a load (docs/architecture.md, "Loading"). So a loaded index holds
``nodes.jsonl`` mapped into memory with the byte offset of each line (the build's
line table, ``codecite.store.lines``), and the few
metadata fields scoring reads as columns, taken from the build's keys table
(``codecite.store.reuse.Keys``: the same values, written by the same build) and
the manifest's file list (each file's nodes are consecutive, in manifest order).

``StoredNodes[i]`` decodes line ``i`` strictly and type-checks it, as a full read
does (``codecite.store.records.decode_record``: a bad value is named with its file,
line and field), once, after checking the line's digest; iterating decodes every
line. The file itself is checked by size when the index is opened, and by checksum
in the full check (``CodeciteIndex.verify``, ``codecite stats --verify``).
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

from codecite.errors import IndexIntegrityError
from codecite.node_parsers.schema import CODE_KINDS, NodeRecord
from codecite.retrievers.columns import COLUMN_FIELDS, NodeColumns
from codecite.store.files import NODES, Manifest, read_verified
from codecite.store.lines import LINES, read_line_table, record_digest
from codecite.store.records import decode_record
from codecite.store.reuse import KEYS_ARRAY, KEYS_FILE, REUSE_DIR, SYMBOLS_TEXT, Keys
from codecite.store.symbols import SYMBOL_KEYS
from codecite.vocabulary import REBUILD_FIX

# The id as the builder writes a record: first key, a JSON string without escapes.
_ID_AT = re.compile(rb'\s*\{"id": "([^"\\]*)"')


class StoredNodes(Sequence[NodeRecord]):
    """``nodes.jsonl`` as a sequence of ``NodeRecord``, each decoded on first access."""

    def __init__(self, path: Path, keys: Keys, manifest: Manifest, lines: bytes) -> None:
        """``lines``: the verified bytes of the build's ``LINES`` table."""
        self.path = path
        with path.open("rb") as fh:
            size = fh.seek(0, 2)
            self._data: Any = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._starts, self._digests = read_line_table(path.with_name(LINES), lines, path, size)
        n = len(self._starts) - 1
        files = manifest.get("files", {})
        counts = [int(info.get("nodes", 0)) for info in files.values()]
        if len(keys) != n or sum(counts) != n:
            raise IndexIntegrityError(
                f"index file '{path}' has {n} nodes, its keys table {len(keys)} and the "
                f"manifest {sum(counts)}; {REBUILD_FIX}"
            )
        paths = [rel for rel, count in zip(files, counts, strict=True) for _ in range(count)]
        # the keys table holds every column under the same name, the paths excepted
        self._columns = NodeColumns(
            **{name: getattr(keys, name) for name in COLUMN_FIELDS}, source_path=paths
        )
        self._records: list[NodeRecord | None] = [None] * n
        self._ids: list[str] | None = None

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, i: int) -> NodeRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[NodeRecord]: ...
    def __getitem__(self, i: int | slice) -> NodeRecord | list[NodeRecord]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        record = self._records[i]  # IndexError past the end, as a list
        if record is None:
            j = i % len(self._records)
            raw = self._data[self._starts[j] : self._starts[j + 1]]
            if record_digest(raw) != self._digests[j]:
                raise IndexIntegrityError(
                    f"index file '{self.path}' line {j + 1} does not match its digest in "
                    f"{LINES} (damaged or edited); {REBUILD_FIX}"
                )
            rec = decode_record(self.path, j + 1, raw)
            record = self._records[j] = NodeRecord(rec["id"], rec["text"], rec["metadata"])
        return record

    def __iter__(self) -> Iterator[NodeRecord]:
        return (self[i] for i in range(len(self)))

    def columns(self) -> NodeColumns:
        """The metadata fields scoring reads, without decoding a record."""
        return self._columns

    def verify(self) -> int:
        """Decode and type-check every record, and check the columns scoring reads agree
        with the records' metadata (what ``codecite stats --verify`` runs); the count."""
        cols = self._columns
        for i, node in enumerate(self):
            meta = node.metadata
            for name in COLUMN_FIELDS:
                stored, written = getattr(cols, name)[i], meta.get(name)
                if name in ("bases", "messages"):
                    stored, written = list(stored), list(written or [])
                if stored != written:
                    raise IndexIntegrityError(
                        f"index file '{self.path}' line {i + 1}: field 'metadata.{name}' does "
                        f"not match the keys table ({REUSE_DIR}/; edited?); {REBUILD_FIX}"
                    )
            if meta.get("source_path") != cols.source_path[i]:
                raise IndexIntegrityError(
                    f"index file '{self.path}' line {i + 1} is not from the file the manifest "
                    f"lists there ({cols.source_path[i]}; edited?); {REBUILD_FIX}"
                )
        return len(self)

    def ids(self) -> list[str]:
        """Every node's id, read off the start of each line (decoded where it is escaped)."""
        if self._ids is None:
            ids = []
            for i in range(len(self)):
                found = _ID_AT.match(self._data, self._starts[i], self._starts[i + 1])
                ids.append(found.group(1).decode("utf-8") if found else self[i].node_id)
            self._ids = ids
        return self._ids


# The files ``stored_nodes`` reads, each checked against its checksum as it is read.
READ_AT_LOAD = (KEYS_ARRAY, KEYS_FILE, SYMBOLS_TEXT, LINES)


def stored_nodes(index_dir: Path, manifest: Manifest) -> StoredNodes:
    """The nodes of the index at ``index_dir``: ``nodes.jsonl`` checked by size and by a
    record's digest when it is read, the tables it needs by checksum (``READ_AT_LOAD``)."""
    data = {rel: read_verified(index_dir, manifest, rel) for rel in READ_AT_LOAD}
    keys = Keys.load(index_dir, data, reading=True)
    return StoredNodes(index_dir / NODES, keys, manifest, data[LINES])


class StoredSymbols(Mapping[str, dict[str, Any]]):
    """The symbol table's ``symbols`` for a loaded index: every code symbol is known from
    the columns (the first node of a name wins: a property's getter before its setter),
    and its details (``SYMBOL_KEYS``) are read from its record when first asked for."""

    def __init__(self, nodes: StoredNodes) -> None:
        cols = nodes.columns()
        self._nodes = nodes
        self._rows: dict[str, int] = {}
        for i, (kind, symbol) in enumerate(zip(cols.kind, cols.symbol, strict=True)):
            if kind in CODE_KINDS and symbol and symbol not in self._rows:
                self._rows[symbol] = i
        self._details: dict[str, dict[str, Any]] = {}

    def __getitem__(self, name: str) -> dict[str, Any]:
        found = self._details.get(name)
        if found is None:
            meta = self._nodes[self._rows[name]].metadata  # KeyError for an unknown name
            found = self._details[name] = {k: meta.get(k) for k in SYMBOL_KEYS}
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def brief(self, name: str) -> tuple[str | None, str]:
        """(kind, source path) of ``name`` without reading its record."""
        cols, row = self._nodes.columns(), self._rows[name]
        return cols.kind[row], cols.source_path[row]
