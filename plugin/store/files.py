"""The index on disk: files, integrity checks, atomic replacement, the build lock.

Layout of ``.codecite/`` (no pickle anywhere)::

    manifest.json   format version, counts, digests, fingerprint, file checksums
    nodes.jsonl     one node a line: id, text, metadata
    reuse/          per-node keys and term counts (same order), reused by incremental builds
    symbols.json    the package namespace as parsed (modules, symbols)
    extras/*.json   derived tables (doc references, mined expansion, ...)
    bm25/           bm25s arrays (.npy, allow_pickle=False) and vocabulary JSON
    vectors.npy     float32 vectors, only when built with embeddings
    feedback.json   per-symbol feedback, carried across rebuilds

A build writes a sibling temporary folder and swaps it in with two renames; the
manifest records a SHA-256 of every other file, so a reader that raced a swap
or met a damaged file notices and says which file and what to run. A build
killed between the two renames leaves the previous index under a retired name;
``recover_index`` puts it back (the next build or load does it).

Every index file is size-checked before it is hashed or parsed (``MAX_BYTES``),
so a hand-edited or planted file cannot make a load parse gigabytes of JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from codecite.errors import (
    ForeignPathError,
    IndexIntegrityError,
    IndexLockedError,
    IndexNotFoundError,
    ManifestError,
)
from codecite.store.lock import RETIRED, STAGING, Journal, build_lock, build_running, lock_path

FORMAT_VERSION = 3  # history in CHANGELOG.md
MANIFEST = "manifest.json"
MARKER = ".codecite-index"  # written only by codecite: what makes a folder replaceable
NODES = "nodes.jsonl"
SYMBOLS = "symbols.json"
FEEDBACK = "feedback.json"
MAX_JSON_BYTES = 512 * 1024 * 1024
MAX_BULK_BYTES = 4 * 1024 * 1024 * 1024  # nodes.jsonl, arrays
REBUILD_FIX = "run `codecite build --full`"
REQUIRED = (NODES, SYMBOLS, "reuse/keys.json", "reuse/vocab.json")  # in every index
UNLISTED = (MANIFEST, MARKER, FEEDBACK)  # index files without a checksum of their own
FEEDBACK_TMP = "feedback.tmp-"  # + pid: a vote being written (``CodeciteIndex.feedback``)


def _unlisted(rel: str) -> bool:
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
    name = what or path.name
    check_size(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise IndexIntegrityError(
            f"index file '{path}' ({name}) is not valid JSON ({exc}); {REBUILD_FIX}"
        ) from exc


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, sort_keys=False), encoding="utf-8")


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


def read_verified(index_dir: Path, manifest: dict[str, Any], rel: str) -> bytes:
    """The bytes of an index file, checked against the manifest checksum in one read."""
    path = index_dir / rel
    check_size(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    if hashlib.sha256(data).hexdigest() != manifest.get("checksums", {}).get(rel):
        raise _checksum_mismatch(path)
    return data


def _checksum_mismatch(path: Path) -> IndexIntegrityError:
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


def read_manifest(index_dir: Path) -> dict[str, Any]:
    """The manifest of an index, checked for format version."""
    path = index_dir / MANIFEST
    if not path.is_file():
        raise IndexNotFoundError(
            f"no index at '{index_dir}' (missing {MANIFEST}); run `codecite build`"
        )
    try:
        manifest = read_json(path)
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
    return manifest


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
            if not _unlisted(rel):
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
    index_dir: Path, manifest: dict[str, Any], only: Iterable[str] | None = None
) -> None:
    """Raise ``IndexIntegrityError`` naming the first missing, altered or unlisted file.

    Every index file has a checksum: a file the manifest does not list is damage
    too (a deleted entry must not hide an edited file).
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
        try:
            digest = file_sha256(path)
        except FileNotFoundError as exc:  # removed by a build swapping the index in
            raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
        if digest != expected[rel]:
            raise _checksum_mismatch(path)


# -- what codecite made ------------------------------------------------------------------


def _listed_files(index_dir: Path) -> set[str] | None:
    """The files a codecite index folder may hold, from its marker (or, for an index of
    format 2, which had no marker, from its manifest's checksums); None: not an index."""
    try:
        marker = json.loads((index_dir / MARKER).read_text(encoding="utf-8"))
        if (
            isinstance(marker, dict)
            and marker.get("codecite_index") == 1
            and isinstance(marker.get("files"), list)
        ):
            return {str(f) for f in marker["files"]} | set(UNLISTED)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        pass
    try:
        manifest = json.loads((index_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    if (
        isinstance(manifest, dict)
        and manifest.get("format_version") == 2
        and isinstance(manifest.get("checksums"), dict)
    ):
        return set(manifest["checksums"]) | set(UNLISTED)
    return None


def _foreign_entries(index_dir: Path, listed: set[str] | None, most: int = 3) -> list[str]:
    """Up to ``most`` entries under ``index_dir`` that its file list does not name (every
    entry when there is no list); a foreign folder is named, not searched."""
    allowed = listed or set()
    folders = {Path(f).parent.as_posix() for f in allowed} | {"."}
    folders |= {p.as_posix() for f in folders for p in Path(f).parents}
    found: list[str] = []
    for here, dirs, files in os.walk(index_dir):
        base = Path(here).relative_to(index_dir).as_posix()
        keep = []
        for name in sorted(dirs + files):
            rel = name if base == "." else f"{base}/{name}"
            full = Path(here) / name
            if name in dirs and not full.is_symlink():
                ok = rel in folders
                if ok:
                    keep.append(name)
            else:
                ok = (
                    (rel in allowed or (listed is not None and _unlisted(rel)))
                    and full.is_file()
                    and not full.is_symlink()
                )
            if not ok:
                found.append(rel + ("/" if name in dirs else ""))
                if len(found) >= most:
                    return found
        dirs[:] = keep
    return found


def check_replaceable(index_dir: Path) -> None:
    """Raise ``ForeignPathError`` unless a build may replace ``index_dir``.

    A build replaces only a folder codecite made: absent, empty, or an index
    whose marker (or format-2 manifest) lists every file in it. Anything else,
    a file, a link, a web app's ``manifest.json`` beside its sources, a home
    folder, is refused, naming the folder, and the message never suggests a
    command that would delete it (docs/reliability.md, "Nothing a user owns").
    """
    if not os.path.lexists(index_dir):
        return
    fix = (
        "choose an index_dir of its own: a new or empty folder, or an index codecite "
        "built (the default is '.codecite' in the repository)"
    )
    if index_dir.is_symlink():
        raise ForeignPathError(
            f"refusing to build into '{index_dir}': it is a symbolic link; {fix}"
        )
    if not index_dir.is_dir():
        raise ForeignPathError(
            f"refusing to build into '{index_dir}': it is an existing file, not a folder; {fix}"
        )
    if not any(index_dir.iterdir()):
        return
    listed = _listed_files(index_dir)
    foreign = _foreign_entries(index_dir, listed)
    if foreign:
        what = "it is not a codecite index: " if listed is None else ""
        raise ForeignPathError(
            f"refusing to build into '{index_dir}': {what}it holds "
            f"{', '.join(repr(f) for f in foreign)}, which codecite did not "
            f"write; {fix}"
        )


def _owned_leftover(path: Path) -> bool:
    """A journal entry still looks like what codecite made there: never a link, and an
    empty folder, or one holding a codecite index or staging marker."""
    if path.is_symlink() or not path.is_dir():
        return False
    return not any(path.iterdir()) or _listed_files(path) is not None


def write_marker(index_dir: Path, files: Iterable[str] = ()) -> None:
    """Mark ``index_dir`` as made by codecite, listing the files it may hold."""
    write_json(
        index_dir / MARKER,
        {"codecite_index": 1, "format_version": FORMAT_VERSION, "files": sorted(files)},
    )


# -- atomic replacement ----------------------------------------------------------------


def _new_sibling(index_dir: Path, kind: str) -> Path:
    """A sibling name no file has: ``<index>.<kind>-<pid>-<random>``."""
    while True:
        path = index_dir.with_name(f"{index_dir.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}")
        if not os.path.lexists(path):
            return path


@contextlib.contextmanager
def staging_dir(index_dir: Path, journal: Journal) -> Iterator[Path]:
    """A new folder beside ``index_dir``, recorded in the journal before it is made and
    removed unless it was swapped in. Made with the user's umask, like any output folder."""
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = _new_sibling(index_dir, "tmp")
        journal.record(tmp, STAGING)
        try:
            tmp.mkdir(mode=0o777)
            break
        except FileExistsError:  # appeared since the check: not ours, never touched
            journal.forget(tmp)
    try:
        write_marker(tmp)
        yield tmp
    finally:
        if tmp.is_dir() and not tmp.is_symlink() and tmp.resolve() != index_dir.resolve():
            shutil.rmtree(tmp, ignore_errors=True)
        journal.forget(tmp)


def swap_in(staged: Path, index_dir: Path, journal: Journal) -> None:
    """Replace ``index_dir`` by ``staged``; keeps feedback; never leaves a half index.

    Refuses to replace a folder codecite did not make (``check_replaceable``).
    The previous index is renamed to a recorded sibling first, so a build
    killed between the two renames can be undone by ``recover_index``.
    """
    check_replaceable(index_dir)
    old_feedback = index_dir / FEEDBACK
    if old_feedback.is_file() and not (staged / FEEDBACK).exists():
        shutil.copy2(old_feedback, staged / FEEDBACK)
    retired = None
    if index_dir.exists():
        retired = _new_sibling(index_dir, "old")
        journal.record(retired, RETIRED)
        os.replace(index_dir, retired)
    try:
        os.replace(staged, index_dir)
    except BaseException:  # interrupted between the renames: put the previous index back
        if retired is not None and not os.path.lexists(index_dir):
            os.replace(retired, index_dir)
            journal.forget(retired)
        raise
    journal.forget(staged)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
        journal.forget(retired)


def recover_index(index_dir: Path, journal: Journal, clean: bool = False) -> bool:
    """Put back the previous index of a build killed between its two renames.

    Call with the build lock held. Only folders recorded in the journal are
    considered; with ``clean`` the other recorded leftovers (staging folders,
    retired indexes) are removed. Returns True when an index was put back.
    """
    restored = False
    entries = journal.entries()
    if not os.path.lexists(index_dir):
        retired = [
            e for e in entries if e["role"] == RETIRED and _owned_leftover(journal.path_of(e))
        ]
        if retired:
            os.replace(journal.path_of(retired[-1]), index_dir)  # the newest recorded
            journal.forget(journal.path_of(retired[-1]))
            restored = True
    if clean:
        for entry in journal.entries():
            path = journal.path_of(entry)
            if _owned_leftover(path):
                shutil.rmtree(path, ignore_errors=True)
            journal.forget(path)
    return restored


def recover_unlocked(index_dir: Path) -> bool:
    """``recover_index`` for a reader: only when no build holds the lock, and only when
    a lock file (whose journal records what a killed build left) is there."""
    if build_running(index_dir) or not lock_path(index_dir).is_file():
        return False
    try:
        with build_lock(index_dir) as journal:
            return recover_index(index_dir, journal)
    except (IndexLockedError, ForeignPathError, OSError):
        return False
