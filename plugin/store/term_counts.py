"""Per-node term counts of an index as CSR arrays, and joining old and new rows.

:class:`NodeTerms` holds each node's BM25 term counts, mined-expansion words and
name parts over one sorted vocabulary (``reuse/*.npy``, ``reuse/vocab.json``);
:func:`assemble` makes the arrays of a new build from the rows of re-parsed files
(:class:`NewRows`) and slices of the previous index (``OldRows``), so an
incremental build writes exactly what a full build would.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from codecite.errors import IndexIntegrityError
from codecite.retrievers.columns import node_columns
from codecite.retrievers.pages import PageEvidence
from codecite.store.reuse import ARRAY_FILES, ARRAYS, REUSE_DIR, TERM_FILES, VOCAB_FILE, OldRows
from codecite.vocabulary import REBUILD_FIX

if TYPE_CHECKING:
    from codecite.store.files import Manifest

T = TypeVar("T")


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

    def counts(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """``(vocab, doc_ptr, doc_ids, doc_tf)``: what the BM25 matrices are made from."""
        return self.vocab, self.doc_ptr, self.doc_ids, self.doc_tf

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
                    f"index file '{index_dir / rel}' is not a valid array ({exc}); {REBUILD_FIX}"
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
                f"index folder '{index_dir / REUSE_DIR}' holds inconsistent arrays (edited?); "
                f"{REBUILD_FIX}"
            )


@dataclass
class NewRows:
    """Rows of re-parsed files: each node's tokens, prose words and name parts."""

    tokens: list[list[str]]
    prose: list[list[str]]
    idents: list[list[str]]


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


def counted_pages(
    index_dir: Path, manifest: Manifest, nodes: Sequence[Any], k1: float, b: float
) -> PageEvidence:
    """Page evidence of the index at ``index_dir``, made from its term counts on first use
    (read then, and checked against ``manifest``'s checksums)."""
    from codecite.store.files import read_verified

    def counts() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        data = {rel: read_verified(index_dir, manifest, rel) for rel in TERM_FILES}
        return NodeTerms.load(index_dir, data).counts()

    paths = [str(p) for p in node_columns(nodes).source_path]
    return PageEvidence.from_counts(paths, counts, k1, b)
