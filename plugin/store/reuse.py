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
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np

from codecite.errors import IndexIntegrityError
from codecite.store.files import REBUILD_FIX

REUSE_DIR = "reuse"
KEYS_FILE = f"{REUSE_DIR}/keys.json"
KEYS_ARRAY = f"{REUSE_DIR}/keys.npy"
SYMBOLS_TEXT = f"{REUSE_DIR}/symbols.txt"
VOCAB_FILE = f"{REUSE_DIR}/vocab.json"
ARRAYS = ("doc_ptr", "doc_ids", "doc_tf", "prose_ptr", "prose_ids", "ident_ptr", "ident_ids")
ARRAY_FILES = tuple(f"{REUSE_DIR}/{name}.npy" for name in ARRAYS)
REUSE_FILES = (KEYS_FILE, KEYS_ARRAY, SYMBOLS_TEXT, VOCAB_FILE, *ARRAY_FILES)
# The metadata fields derived tables read; every other field stays in nodes.jsonl only.
KEY_FIELDS = (
    "kind",
    "symbol",
    "module",
    "symbol_type",
    "signature",
    "refs",
    "code_refs",
    "docstring",
    "public",
    "workflow",
)
CODED = ("kind", "symbol_type", "workflow", "module")  # few distinct values: stored as codes
CODE_KINDS = ("python_symbol", "python_method")
DOC_KINDS = ("doc_section", "recipe", "module_doc")
MAX_PROSE_WORDS = 80
FIX = REBUILD_FIX
T = TypeVar("T")


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
        "docstring": bool(meta.get("docstring")),
        "public": meta.get("public"),
        "workflow": meta.get("workflow"),
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
    docstring: list[bool] = field(default_factory=list)
    public: list[bool | None] = field(default_factory=list)
    workflow: list[str | None] = field(default_factory=list)

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
        module (-1 for none), the docstring flag and the public flag (-1 unset);
        ``keys.json`` the code tables and the few sparse columns (assignment
        signatures, doc references); ``symbols.txt`` one symbol a line.
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
        matrix = np.array(columns, dtype=np.int32).reshape(len(columns), len(self)).T
        np.save(index_dir / KEYS_ARRAY, np.ascontiguousarray(matrix), allow_pickle=False)
        (index_dir / SYMBOLS_TEXT).write_text(
            "\n".join(s or "" for s in self.symbol), encoding="utf-8"
        )
        sparse = {
            "signature": {i: v for i, v in enumerate(self.signature) if v is not None},
            "refs": {i: v for i, v in enumerate(self.refs) if v},
            "code_refs": {i: v for i, v in enumerate(self.code_refs) if v},
        }
        (index_dir / KEYS_FILE).write_text(
            json.dumps(
                {"tables": {name: list(t) for name, t in tables.items()}, **sparse},
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )

    @classmethod
    def load(cls, index_dir: Path, data: dict[str, bytes]) -> Keys:
        """The keys saved by ``save``, from the files' verified bytes (by relative path)."""
        path = index_dir / REUSE_DIR
        try:
            matrix = np.load(io.BytesIO(data[KEYS_ARRAY]), allow_pickle=False)
            meta = json.loads(data[KEYS_FILE])
            symbols = data[SYMBOLS_TEXT].decode("utf-8").split("\n")
            tables = [[None, *meta["tables"][name]] for name in CODED]  # code -1 -> None
            n = len(matrix)
            ok = (
                matrix.ndim == 2
                and matrix.shape[1] == len(CODED) + 2
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
                f"index folder '{path}' holds an unreadable keys table ({exc}); {FIX}"
            ) from exc
        if not ok:
            raise IndexIntegrityError(
                f"index folder '{path}' holds an inconsistent keys table (edited?); {FIX}"
            )
        cols = matrix.T.tolist() if n else [[] for _ in range(len(CODED) + 2)]
        coded = {
            name: [table[c + 1] for c in col]
            for name, table, col in zip(CODED, tables, cols, strict=False)
        }
        signature: list[str | None] = [None] * n
        refs: list[list[str]] = [[] for _ in range(n)]
        code_refs: list[list[str]] = [[] for _ in range(n)]
        for i, v in meta.get("signature", {}).items():
            signature[int(i)] = v
        for i, v in meta.get("refs", {}).items():
            refs[int(i)] = v
        for i, v in meta.get("code_refs", {}).items():
            code_refs[int(i)] = v
        return cls(
            kind=coded["kind"],
            symbol=[s or None for s in symbols[:n]],
            module=coded["module"],
            symbol_type=coded["symbol_type"],
            signature=signature,
            refs=refs,
            code_refs=code_refs,
            docstring=[bool(d) for d in cols[-2]],
            public=[None if p < 0 else bool(p) for p in cols[-1]],
            workflow=coded["workflow"],
        )


# -- term rows -------------------------------------------------------------------------


@dataclass
class NodeTerms:
    """Node i's terms: ``doc_ids[doc_ptr[i]:doc_ptr[i+1]]`` with counts ``doc_tf[...]``.

    ``prose_ids`` rows (by ``prose_ptr``) are node i's mined-expansion words,
    ``ident_ids`` rows its name parts. Every id indexes ``vocab``, which is
    sorted and may hold name parts no node's text has.
    """

    vocab: list[str]
    doc_ptr: np.ndarray
    doc_ids: np.ndarray
    doc_tf: np.ndarray
    prose_ptr: np.ndarray
    prose_ids: np.ndarray
    ident_ptr: np.ndarray
    ident_ids: np.ndarray

    @property
    def size(self) -> int:
        return len(self.doc_ptr) - 1

    def columns(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """(ptr, ids) of the term, prose and name-part rows."""
        return (
            (self.doc_ptr, self.doc_ids),
            (self.prose_ptr, self.prose_ids),
            (self.ident_ptr, self.ident_ids),
        )

    def save(self, index_dir: Path) -> None:
        (index_dir / REUSE_DIR).mkdir(parents=True, exist_ok=True)
        (index_dir / VOCAB_FILE).write_text(
            json.dumps(self.vocab, ensure_ascii=False), encoding="utf-8"
        )
        for name, rel in zip(ARRAYS, ARRAY_FILES, strict=True):
            np.save(index_dir / rel, getattr(self, name), allow_pickle=False)

    @classmethod
    def load(cls, index_dir: Path, data: dict[str, bytes] | None = None) -> NodeTerms:
        """The arrays saved by ``save``; from ``data`` (verified bytes by relative path)
        when given, else read from ``index_dir``."""
        from codecite.store.files import check_size, read_json

        vocab = json.loads(data[VOCAB_FILE]) if data else read_json(index_dir / VOCAB_FILE)
        arrays = {}
        for name, rel in zip(ARRAYS, ARRAY_FILES, strict=True):
            try:
                if data:
                    arrays[name] = np.load(io.BytesIO(data[rel]), allow_pickle=False)
                else:
                    check_size(index_dir / rel)
                    arrays[name] = np.load(index_dir / rel, allow_pickle=False)
            except (ValueError, OSError) as exc:
                raise IndexIntegrityError(
                    f"index file '{index_dir / rel}' is not a valid array ({exc}); {FIX}"
                ) from exc
        terms = cls(vocab, **arrays)
        terms._check(index_dir)
        return terms

    def _check(self, index_dir: Path) -> None:
        ok = isinstance(self.vocab, list) and all(isinstance(t, str) for t in self.vocab)
        for ptr, ids in (
            (self.doc_ptr, self.doc_ids),
            (self.prose_ptr, self.prose_ids),
            (self.ident_ptr, self.ident_ids),
        ):
            ok = (
                ok
                and ptr.ndim == 1
                and ids.ndim == 1
                and len(ptr) == len(self.doc_ptr)
                and ptr.dtype.kind == "i"
                and ids.dtype.kind == "i"
                and ptr[0] == 0
                and ptr[-1] == len(ids)
                and bool(np.all(np.diff(ptr) >= 0))
                and (ids.size == 0 or (ids.min() >= 0 and ids.max() < len(self.vocab)))
            )
        ok = ok and self.doc_tf.shape == self.doc_ids.shape and self.doc_tf.dtype.kind == "i"
        if not ok:
            raise IndexIntegrityError(
                f"index folder '{index_dir / REUSE_DIR}' holds inconsistent arrays (edited?); {FIX}"
            )


@dataclass
class NewRows:
    """Rows of re-parsed files: each node's tokens, prose words and name parts."""

    tokens: list[list[str]]
    prose: list[list[str]]
    idents: list[list[str]]


@dataclass
class OldRows:
    """Rows ``start:stop`` of the previous build's ``NodeTerms``."""

    start: int
    stop: int


def assemble(parts: Iterable[NewRows | OldRows], old: NodeTerms | None) -> NodeTerms:
    """One ``NodeTerms`` for the nodes of ``parts``, in order, over a fresh sorted vocabulary.

    Old rows are copied (ids remapped), new rows counted; terms no row uses
    any more are dropped, so the result equals counting every node afresh.
    """
    parts = merge_runs(parts)
    terms: set[str] = set()
    for part in parts:
        if isinstance(part, NewRows):
            for rows in (part.tokens, part.prose, part.idents):
                for row in rows:
                    terms.update(row)
    old_used = np.empty(0, dtype=np.int64)
    if old is not None:
        used = np.zeros(len(old.vocab), dtype=bool)
        for p in parts:
            if isinstance(p, OldRows):
                for ptr, ids in old.columns():
                    used[ids[ptr[p.start] : ptr[p.stop]]] = True
        old_used = np.flatnonzero(used)
    kept = [old.vocab[i] for i in old_used.tolist()] if old is not None else []
    # the kept terms are in order already, so this sort is a linear merge of two runs
    vocab = sorted(kept + sorted(terms.difference(kept)))
    index = {t: i for i, t in enumerate(vocab)}
    remap = np.full(len(old.vocab) if old is not None else 0, -1, dtype=np.int32)
    if old is not None and old_used.size:
        remap[old_used] = [index[old.vocab[i]] for i in old_used.tolist()]
    out: list[tuple[list[np.ndarray], list[np.ndarray]]] = [([], []) for _ in range(3)]
    doc_tf: list[np.ndarray] = []
    for part in parts:
        if isinstance(part, OldRows):
            assert old is not None
            for (lengths, chunks), (ptr, old_ids) in zip(out, old.columns(), strict=True):
                lengths.append(np.diff(ptr[part.start : part.stop + 1]))
                chunks.append(remap[old_ids[ptr[part.start] : ptr[part.stop]]])
            doc_tf.append(old.doc_tf[old.doc_ptr[part.start] : old.doc_ptr[part.stop]])
            continue
        counts = [Counter(toks) for toks in part.tokens]
        new: tuple[list[list[str]], ...] = ([list(c) for c in counts], part.prose, part.idents)
        for (lengths, chunks), rows in zip(out, new, strict=True):
            lengths.append(np.array([len(r) for r in rows], dtype=np.int64))
            chunks.append(np.array([index[t] for r in rows for t in r], dtype=np.int32))
        doc_tf.append(np.array([n for c in counts for n in c.values()], dtype=np.int32))
    (doc_len, doc_ids), (prose_len, prose_ids), (ident_len, ident_ids) = out
    return NodeTerms(
        vocab,
        _ptr(doc_len),
        _cat(doc_ids),
        _cat(doc_tf),
        _ptr(prose_len),
        _cat(prose_ids),
        _ptr(ident_len),
        _cat(ident_ids),
    )


def merge_runs(parts: Iterable[T]) -> list[T]:
    """Consecutive old rows that follow each other in the old arrays, as one slice."""
    out: list[T] = []
    for part in parts:
        last = out[-1] if out else None
        if isinstance(part, OldRows) and isinstance(last, OldRows) and last.stop == part.start:
            out[-1] = cast(T, OldRows(last.start, part.stop))
        else:
            out.append(part)
    return out


def _cat(chunks: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(chunks).astype(np.int32) if chunks else np.empty(0, np.int32)


def _ptr(lengths: list[np.ndarray]) -> np.ndarray:
    ptr = np.zeros(1 + sum(len(x) for x in lengths), dtype=np.int64)
    if lengths:
        np.cumsum(np.concatenate(lengths), out=ptr[1:])
    return ptr
