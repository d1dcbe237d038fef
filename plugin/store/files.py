"""The index on disk: its layout, bounded JSON reads and writes, checksums, the manifest.

Layout of ``.codecite/`` (no pickle anywhere)::

    manifest.json   format version, counts, digests, fingerprint, file checksums
    nodes.jsonl     one node a line: id, text, metadata
    reuse/          per-node keys and term counts (same order), reused by incremental builds
    symbols.json    the package namespace as parsed (modules, symbols)
    extras/*.json   derived tables (doc references, mined expansion, ...)
    bm25/           bm25s arrays (.npy, allow_pickle=False) and vocabulary JSON
    vectors.npy     float32 vectors, only when built with embeddings
    feedback.json   per-symbol feedback, carried across rebuilds

The manifest records a SHA-256 of every other file, so a reader that raced a
swap or met a damaged file notices and says which file and what to run. How an
index is replaced (staging, swap, recovery) is ``codecite.store.ownership``.

Every index file is size-checked before it is hashed or parsed (``MAX_BYTES``),
so a hand-edited or planted file cannot make a load parse gigabytes of JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any, TypedDict, cast

from codecite.errors import (
    IndexIntegrityError,
    IndexNotFoundError,
    ManifestError,
)
from codecite.vocabulary import REBUILD_FIX

FORMAT_VERSION = 5  # history in CHANGELOG.md
MANIFEST = "manifest.json"
MARKER = ".codecite-index"  # written only by codecite: what makes a folder replaceable
NODES = "nodes.jsonl"
LINES = "lines.npy"  # where each line of NODES ends, and its digest (codecite.store.lines)
SYMBOLS = "symbols.json"
FEEDBACK = "feedback.json"
MAX_JSON_BYTES = 512 * 1024 * 1024
MAX_BULK_BYTES = 4 * 1024 * 1024 * 1024  # nodes.jsonl, arrays
REQUIRED = (NODES, LINES, SYMBOLS, "reuse/keys.json", "reuse/vocab.json")  # in every index
UNLISTED = (MANIFEST, MARKER, FEEDBACK)  # index files without a checksum of their own
FEEDBACK_TMP = "feedback.tmp-"  # + pid: a vote being written (``CodeciteIndex.feedback``)


def is_unlisted(rel: str) -> bool:
    return rel in UNLISTED or rel.startswith(FEEDBACK_TMP)


def max_bytes(path: Path) -> int:
    """The size limit of an index file: JSON tables are parsed whole, so smaller."""
    return MAX_JSON_BYTES if path.suffix == ".json" else MAX_BULK_BYTES


def check_size(path: Path) -> None:
    """Raise ``IndexIntegrityError`` when ``path`` is missing or over its size limit."""
    try:
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    if size > max_bytes(path):
        raise IndexIntegrityError(
            f"index file '{path}' is {size} bytes, over the limit of "
            f"{max_bytes(path)}; {REBUILD_FIX}"
        )


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_json(path: Path, what: str | None = None) -> Any:
    """Parse a JSON file with a size limit; errors name the file and the fix."""
    return read_json_text(path, what)[0]


def read_json_text(path: Path, what: str | None = None) -> tuple[Any, bytes]:
    """``read_json``, and the bytes it parsed."""
    name = what or path.name
    check_size(path)
    try:
        text = path.read_bytes()
        return json.loads(text.decode("utf-8")), text
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise IndexIntegrityError(
            f"index file '{path}' ({name}) is not valid JSON ({exc}); {REBUILD_FIX}"
        ) from exc


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, sort_keys=False), encoding="utf-8")


def write_manifest(index_dir: Path, text: bytes) -> None:
    """Write ``manifest.json``: the sealed bytes of ``codecite.store.seal.sealed_text``."""
    (index_dir / MANIFEST).write_bytes(text)


def read_jsonl(path: Path) -> list[Any]:
    check_size(path)
    rows = []
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                rows.append(json.loads(line))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                raise IndexIntegrityError(
                    f"index file '{path}' line {lineno} is not valid "
                    f"JSON (truncated or edited?); {REBUILD_FIX}"
                ) from exc
    return rows


def write_bytes_hashed(path: Path, chunks: Iterable[bytes]) -> str:
    """Write ``chunks`` one after another to ``path``; the SHA-256 of the whole file.

    Hashed while written, so the file need not be read back, and never joined
    into one buffer (a one-file build writes tens of MB of reused node lines).
    """
    h = hashlib.sha256()
    with path.open("wb") as fh:
        for chunk in chunks:
            h.update(chunk)
            fh.write(chunk)
    return h.hexdigest()


def read_verified(index_dir: Path, manifest: Manifest, rel: str) -> bytes:
    """The bytes of an index file, checked against the manifest checksum in one read."""
    path = index_dir / rel
    check_size(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    if hashlib.sha256(data).hexdigest() != manifest.get("checksums", {}).get(rel):
        raise checksum_mismatch(path)
    return data


def checksum_mismatch(path: Path) -> IndexIntegrityError:
    return IndexIntegrityError(
        f"index file '{path}' does not match its checksum in "
        f"{MANIFEST} (truncated or edited); {REBUILD_FIX}"
    )


@contextlib.contextmanager
def _open_text(path: Path) -> Iterator[Any]:
    """``path`` opened as UTF-8 text; a file gone since the size check is reported."""
    try:
        fh = path.open("r", encoding="utf-8")
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    with fh:
        yield fh


# -- manifest -----------------------------------------------------------------------


class Manifest(TypedDict, total=False):
    """``manifest.json``: what a build made, from what, and a checksum of every file.

    ``read_manifest`` checks the fields readers rely on (``_MANIFEST_SHAPE``);
    the build writes every field (``codecite.indexer.manifest``).
    """

    format_version: int
    codecite_version: str
    created: str
    root: str
    config_source: str | None
    config_digest: str
    tokenizer: dict[str, Any]
    parser_version: int
    fingerprint: str
    node_count: int
    counts: dict[str, int]
    files: dict[str, dict[str, Any]]
    redaction: dict[str, Any]
    skipped: list[Any]
    warnings: list[str]
    lexical: dict[str, Any]
    doc_refs: dict[str, Any]
    mined_expansion: dict[str, Any]
    calibration: dict[str, Any]  # answer-or-ask, per index (codecite.indexer.calibration)
    embedding: dict[str, Any] | None
    checksums: dict[str, str]
    seal: str


def read_manifest(index_dir: Path) -> Manifest:
    """The manifest of an index, checked for format version."""
    return read_manifest_text(index_dir)[0]


def read_manifest_text(index_dir: Path) -> tuple[Manifest, bytes]:
    """The manifest of an index, checked for format version, and the file's bytes (what
    its seal is checked on: ``codecite.store.seal.verifies``)."""
    path = index_dir / MANIFEST
    if not path.is_file():
        raise IndexNotFoundError(
            f"no index at '{index_dir}' (missing {MANIFEST}); run `codecite build`"
        )
    try:
        manifest, text = read_json_text(path)
    except IndexIntegrityError as exc:
        raise ManifestError(str(exc)) from exc
    if not isinstance(manifest, dict) or "format_version" not in manifest:
        raise ManifestError(f"'{path}' is not a codecite manifest; {REBUILD_FIX}")
    version = manifest["format_version"]
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ManifestError(
            f"index at '{index_dir}' has format version {version}, newer than "
            f"this codecite reads ({FORMAT_VERSION}); upgrade codecite "
            "(`pip install -U codecite`) or rebuild with `codecite build --full`"
        )
    if version < FORMAT_VERSION:
        raise ManifestError(
            f"index at '{index_dir}' has old format version {version}; {REBUILD_FIX}"
        )
    _check_manifest_shape(path, manifest)
    return cast(Manifest, manifest), text


_MANIFEST_SHAPE = {
    "node_count": int,
    "checksums": dict,
    "files": dict,
    "skipped": list,
    "warnings": list,
    "fingerprint": str,
}


def _check_manifest_shape(path: Path, manifest: dict[str, Any]) -> None:
    """The fields readers rely on have their types (a hand edit fails here, not later)."""
    for key, kind in _MANIFEST_SHAPE.items():
        value = manifest.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ManifestError(
                f"'{path}' field '{key}' is missing or not a "
                f"{kind.__name__} (edited?); {REBUILD_FIX}"
            )
    checksums = manifest["checksums"]
    if not all(isinstance(v, str) for v in checksums.values()) or not all(
        isinstance(v, dict) for v in manifest["files"].values()
    ):
        raise ManifestError(f"'{path}' has malformed checksums or files (edited?); {REBUILD_FIX}")
    missing = [name for name in REQUIRED if name not in checksums]
    if missing:
        raise ManifestError(
            f"'{path}' records no checksum for {missing[0]} (edited?); {REBUILD_FIX}"
        )


def _index_files(index_dir: Path) -> list[str]:
    """Every file under ``index_dir`` that must have a checksum, by relative path.

    ``os.walk`` skips what vanishes meanwhile (a build swapping the index in): the
    checksum loop then reports the missing file, which a load retries.
    """
    out = []
    for here, dirs, files in os.walk(index_dir):
        dirs.sort()
        base = os.path.relpath(here, index_dir).replace(os.sep, "/")
        for name in files + [d for d in dirs if os.path.islink(os.path.join(here, d))]:
            rel = name if base == "." else f"{base}/{name}"
            if not is_unlisted(rel):
                out.append(rel)
    return sorted(out)


def checksum_files(index_dir: Path, known: dict[str, str] | None = None) -> dict[str, str]:
    """SHA-256 of every index file except the manifest, the marker and feedback.

    ``known`` digests (computed while writing) are taken as they are.
    """
    return {
        rel: (known or {}).get(rel) or file_sha256(index_dir / rel)
        for rel in _index_files(index_dir)
    }


def verify_files(
    index_dir: Path,
    manifest: Manifest,
    only: Iterable[str] | None = None,
    read_later: Collection[str] = (),
) -> None:
    """Raise ``IndexIntegrityError`` naming the first missing, altered or unlisted file.

    Every index file has a checksum: a file the manifest does not list is damage
    too (a deleted entry must not hide an edited file). Files in ``read_later`` are
    checked for presence and size only: their reader checks their content when (and
    if) it reads them (``read_verified``, or ``nodes.jsonl``'s per-record digests).
    """
    expected = manifest.get("checksums", {})
    if only is None:
        unlisted = [rel for rel in _index_files(index_dir) if rel not in expected]
        if unlisted:
            raise IndexIntegrityError(
                f"index file '{index_dir / unlisted[0]}' has no checksum "
                f"in {MANIFEST} (edited?); {REBUILD_FIX}"
            )
    for rel in list(only) if only is not None else list(expected):
        path = index_dir / rel
        if rel not in expected:
            raise IndexIntegrityError(
                f"index file '{path}' has no checksum in {MANIFEST} (edited?); {REBUILD_FIX}"
            )
        if path.is_symlink() or not path.is_file():
            raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}")
        check_size(path)
        if rel in read_later:
            continue
        try:
            digest = file_sha256(path)
        except FileNotFoundError as exc:  # removed by a build swapping the index in
            raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
        if digest != expected[rel]:
            raise checksum_mismatch(path)


# -- what codecite made ------------------------------------------------------------------


# -- atomic replacement ----------------------------------------------------------------
