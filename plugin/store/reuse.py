"""What an incremental build reuses: per-node term counts and the keys derived tables read.

A one-file change must not re-tokenize or re-decode every node. So a build
stores, beside ``nodes.jsonl`` and in the same node order:

- ``reuse/keys.*``, ``reuse/symbols.txt``: per node, the few metadata fields
  the derived tables read (kind, symbol, module, refs, ...), as columns;
- ``reuse/vocab.json`` and ``reuse/*.npy``: each node's term counts (for
  BM25), its prose words and whole name (for mined expansion) as CSR arrays
  over one sorted vocabulary.

The next build slices the rows of unchanged files out of these arrays, adds
the rows of re-parsed files, and recomputes every corpus-wide table from
arrays in milliseconds. The vocabulary is kept sorted, so an incremental build
writes exactly what a full build would.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codecite.errors import IndexIntegrityError
from codecite.vocabulary import CODE_KINDS, DOC_KINDS, REBUILD_FIX

REUSE_DIR = "reuse"
KEYS_FILE = f"{REUSE_DIR}/keys.json"
KEYS_ARRAY = f"{REUSE_DIR}/keys.npy"
SYMBOLS_TEXT = f"{REUSE_DIR}/symbols.txt"
VOCAB_FILE = f"{REUSE_DIR}/vocab.json"
ARRAYS = ("doc_ptr", "doc_ids", "doc_tf", "prose_ptr", "prose_ids", "ident_ptr", "ident_ids")
ARRAY_FILES = tuple(f"{REUSE_DIR}/{name}.npy" for name in ARRAYS)
TERM_FILES = (VOCAB_FILE, *ARRAY_FILES)  # ``codecite.store.term_counts.NodeTerms``
REUSE_FILES = (KEYS_FILE, KEYS_ARRAY, SYMBOLS_TEXT, *TERM_FILES)
# The metadata fields derived tables read; every other field stays in nodes.jsonl only.
KEY_FIELDS = (
    "kind",
    "symbol",
    "module",
    "symbol_type",
    "signature",
    "refs",
    "code_refs",
    "documents",
    "docstring",
    "public",
    "workflow",
    "priority",
    "bases",
    "messages",
)
CODED = ("kind", "symbol_type", "workflow", "module")  # few distinct values: stored as codes
MAX_PROSE_WORDS = 80


def node_keys(meta: dict[str, Any]) -> dict[str, Any]:
    """The slim per-node record derived tables work on (see ``KEY_FIELDS``)."""
    kind = meta.get("kind")
    return {
        "kind": kind,
        "symbol": meta.get("symbol"),
        "module": meta.get("module"),
        "symbol_type": meta.get("symbol_type"),
        "signature": meta.get("signature") if meta.get("symbol_type") == "assignment" else None,
        "refs": list(meta.get("refs") or []) if kind in DOC_KINDS else [],
        "code_refs": list(meta.get("code_refs") or []) if kind in DOC_KINDS else [],
        "documents": list(meta.get("documents") or []) if kind in DOC_KINDS else [],
        "docstring": bool(meta.get("docstring")),
        "public": meta.get("public"),
        "workflow": meta.get("workflow"),
        "priority": meta.get("priority"),
        "bases": list(meta.get("bases") or []),
        "messages": list(meta.get("messages") or []),
    }


def name_parts(symbol: str | None) -> list[str]:
    """Identifier tokens of a symbol's leaf name: the lowered leaf and its parts."""
    from codecite.retrievers.tokenizer import split_identifier

    leaf = (symbol or "").rsplit(".", 1)[-1]
    parts = {p.lower() for p in split_identifier(leaf) if len(p) > 1}
    parts.add(leaf.lower())
    return sorted(parts)


def mined(kind: str | None, docstring: Any) -> bool:
    """Whether a node takes part in mined expansion: a documented code symbol."""
    return kind in CODE_KINDS and bool(docstring)


def mining_rows(
    kind: str | None, symbol: str | None, docstring: Any, tokens: Sequence[str]
) -> tuple[list[str], list[str]]:
    """What a node contributes to mined expansion: (prose words, identifier tokens).

    For a documented code node: its tokens that are plain words (no ``_``)
    and not parts of its own name, first occurrences only, the first
    ``MAX_PROSE_WORDS`` (name, signature, summary); and its whole leaf name,
    lowered. Only whole names are mined: a part (``command``, ``loader``,
    ``info`` of ``to_info_dict``) is shared by many names and, as an
    expansion, raises all of them (measured in docs/quality.md). Other nodes
    contribute nothing.
    """
    if not mined(kind, docstring):
        return [], []
    own_set = set(name_parts(symbol))
    words = [t for t in dict.fromkeys(tokens) if "_" not in t and t not in own_set]
    return words[:MAX_PROSE_WORDS], [(symbol or "").rsplit(".", 1)[-1].lower()]


# -- keys ----------------------------------------------------------------------------


@dataclass
class Keys:
    """The keys (``KEY_FIELDS``) of a run of nodes, as columns in node order."""

    kind: list[str] = field(default_factory=list)
    symbol: list[str | None] = field(default_factory=list)
    module: list[str | None] = field(default_factory=list)
    symbol_type: list[str | None] = field(default_factory=list)
    signature: list[str | None] = field(default_factory=list)
    refs: list[list[str]] = field(default_factory=list)
    code_refs: list[list[str]] = field(default_factory=list)
    documents: list[list[str]] = field(default_factory=list)  # API a doc section defines
    docstring: list[bool] = field(default_factory=list)
    public: list[bool | None] = field(default_factory=list)
    workflow: list[str | None] = field(default_factory=list)
    priority: list[int | None] = field(default_factory=list)
    bases: list[list[str]] = field(default_factory=list)
    messages: list[list[str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.kind)

    @classmethod
    def of(cls, rows: Iterable[dict[str, Any]]) -> Keys:
        """Columns from ``node_keys`` dicts."""
        keys = cls()
        for row in rows:
            for name in KEY_FIELDS:
                getattr(keys, name).append(row.get(name))
        return keys

    @classmethod
    def concat(cls, parts: Iterable[Keys | OldRows], old: Keys | None = None) -> Keys:
        """Keys of new files, and runs of rows of the ``old`` keys, one after another."""
        keys = cls()
        for part in parts:
            for name in KEY_FIELDS:
                column = getattr(keys, name)
                if isinstance(part, OldRows):
                    assert old is not None
                    column.extend(getattr(old, name)[part.start : part.stop])
                else:
                    column.extend(getattr(part, name))
        return keys

    def save(self, index_dir: Path) -> None:
        """Columns as arrays and plain text, which load several times faster than JSON.

        ``keys.npy`` holds per node the codes of kind, symbol type, workflow and
        module (-1 for none), the docstring flag, the public flag and the priority
        (-1 unset); ``keys.json`` the code tables and the sparse columns (assignment
        signatures, doc references, bases, raised messages); ``symbols.txt`` one
        symbol a line.
        """
        tables: dict[str, dict[Any, int]] = {name: {} for name in CODED}
        columns = [
            [
                -1 if v is None else tables[name].setdefault(v, len(tables[name]))
                for v in getattr(self, name)
            ]
            for name in CODED
        ]
        columns.append([int(d) for d in self.docstring])
        columns.append([-1 if p is None else int(p) for p in self.public])
        columns.append([-1 if p is None else int(p) for p in self.priority])
        import numpy as np  # here, not at import: a build with nothing to do never saves keys

        matrix = np.array(columns, dtype=np.int32).reshape(len(columns), len(self)).T
        np.save(index_dir / KEYS_ARRAY, np.ascontiguousarray(matrix), allow_pickle=False)
        (index_dir / SYMBOLS_TEXT).write_text(
            "\n".join(s or "" for s in self.symbol), encoding="utf-8"
        )
        sparse = {
            "signature": {i: v for i, v in enumerate(self.signature) if v is not None},
            "refs": {i: v for i, v in enumerate(self.refs) if v},
            "code_refs": {i: v for i, v in enumerate(self.code_refs) if v},
            "documents": {i: v for i, v in enumerate(self.documents) if v},
            "bases": {i: v for i, v in enumerate(self.bases) if v},
            "messages": {i: v for i, v in enumerate(self.messages) if v},
        }
        (index_dir / KEYS_FILE).write_text(
            json.dumps(
                {"tables": {name: list(t) for name, t in tables.items()}, **sparse},
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )

    @classmethod
    def load(cls, index_dir: Path, data: dict[str, bytes], reading: bool = False) -> Keys:
        """The keys saved by ``save``, from the files' verified bytes (by relative path).

        ``reading``: for a loaded index, which reads only the columns scoring needs
        (``codecite.retrievers.columns.COLUMN_FIELDS``): the build's other columns
        (module, signature, doc references, docstring flags) are left empty, and a row
        without bases or messages holds one shared empty tuple, not a list of its own
        (four lists a node were most of the objects a load made).
        """
        import numpy as np

        path = index_dir / REUSE_DIR
        try:
            matrix = np.load(io.BytesIO(data[KEYS_ARRAY]), allow_pickle=False)
            meta = json.loads(data[KEYS_FILE])
            symbols = data[SYMBOLS_TEXT].decode("utf-8").split("\n")
            tables = [[None, *meta["tables"][name]] for name in CODED]  # code -1 -> None
            n = len(matrix)
            ok = (
                matrix.ndim == 2
                and matrix.shape[1] == len(CODED) + 3
                and len(symbols) == max(n, 1)
                and matrix.dtype == np.int32
                and all(
                    int(matrix[:, j].max(initial=-1)) < len(t) - 1
                    and int(matrix[:, j].min(initial=-1)) >= -1
                    for j, t in enumerate(tables)
                )
            )
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError) as exc:
            raise IndexIntegrityError(
                f"index folder '{path}' holds an unreadable keys table ({exc}); {REBUILD_FIX}"
            ) from exc
        if not ok:
            raise IndexIntegrityError(
                f"index folder '{path}' holds an inconsistent keys table (edited?); {REBUILD_FIX}"
            )
        cols = matrix.T.tolist() if n else [[] for _ in range(len(CODED) + 3)]
        coded = {
            name: [table[c + 1] for c in col]
            for name, table, col in zip(CODED, tables, cols, strict=False)
            if not (reading and name == "module")
        }

        def sparse(name: str, empty: Any = None) -> list[Any]:
            column = [empty] * n if reading or empty is None else [[] for _ in range(n)]
            for i, v in meta.get(name, {}).items():
                column[int(i)] = v
            return column

        build = not reading  # the columns only a build reads
        return cls(
            kind=coded["kind"],
            symbol=[s or None for s in symbols[:n]],
            module=coded["module"] if build else [],
            symbol_type=coded["symbol_type"],
            signature=sparse("signature") if build else [],
            refs=sparse("refs", ()) if build else [],
            code_refs=sparse("code_refs", ()) if build else [],
            documents=sparse("documents", ()) if build else [],
            docstring=[bool(d) for d in cols[-3]] if build else [],
            public=[None if p < 0 else bool(p) for p in cols[-2]],
            workflow=coded["workflow"],
            priority=[None if p < 0 else p for p in cols[-1]],
            bases=sparse("bases", ()),
            messages=sparse("messages", ()),
        )


# -- term rows -------------------------------------------------------------------------


@dataclass
class OldRows:
    """Rows ``start:stop`` of the previous build's ``NodeTerms``."""

    start: int
    stop: int
