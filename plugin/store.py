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
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from codecite.errors import (
    IndexIntegrityError,
    IndexLockedError,
    IndexNotFoundError,
    ManifestError,
)

FORMAT_VERSION = 2  # 2: tokens.txt replaced by reuse/ (term counts, node keys)
MANIFEST = "manifest.json"
NODES = "nodes.jsonl"
SYMBOLS = "symbols.json"
FEEDBACK = "feedback.json"
MAX_JSON_BYTES = 512 * 1024 * 1024
MAX_BULK_BYTES = 4 * 1024 * 1024 * 1024  # nodes.jsonl, arrays
REBUILD_FIX = "run `codecite build --full`"
REQUIRED = (NODES, SYMBOLS, "reuse/keys.json", "reuse/vocab.json")  # checksummed always
INDEX_MARKERS = (MANIFEST, NODES)  # a folder with neither is not a codecite index


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
        raise IndexIntegrityError(f"index file '{path}' is {size} bytes, over the limit of "
                                  f"{max_bytes(path)}; {REBUILD_FIX}")


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
        raise IndexIntegrityError(f"index file '{path}' ({name}) is not valid JSON ({exc}); "
                                  f"{REBUILD_FIX}") from exc


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
                raise IndexIntegrityError(f"index file '{path}' line {lineno} is not valid "
                                          f"JSON (truncated or edited?); {REBUILD_FIX}") from exc
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
    return IndexIntegrityError(f"index file '{path}' does not match its checksum in "
                               f"{MANIFEST} (truncated or edited); {REBUILD_FIX}")


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
        raise IndexNotFoundError(f"no index at '{index_dir}' (missing {MANIFEST}); "
                                 "run `codecite build`")
    try:
        manifest = read_json(path)
    except IndexIntegrityError as exc:
        raise ManifestError(str(exc)) from exc
    if not isinstance(manifest, dict) or "format_version" not in manifest:
        raise ManifestError(f"'{path}' is not a codecite manifest; {REBUILD_FIX}")
    version = manifest["format_version"]
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ManifestError(f"index at '{index_dir}' has format version {version}, newer than "
                            f"this codecite reads ({FORMAT_VERSION}); upgrade codecite "
                            "(`pip install -U codecite`) or rebuild with `codecite build --full`")
    if version < FORMAT_VERSION:
        raise ManifestError(f"index at '{index_dir}' has old format version {version}; "
                            f"{REBUILD_FIX}")
    _check_manifest_shape(path, manifest)
    return manifest


_MANIFEST_SHAPE = {"node_count": int, "checksums": dict, "files": dict, "skipped": list,
                   "warnings": list, "fingerprint": str}


def _check_manifest_shape(path: Path, manifest: dict[str, Any]) -> None:
    """The fields readers rely on have their types (a hand edit fails here, not later)."""
    for key, kind in _MANIFEST_SHAPE.items():
        value = manifest.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ManifestError(f"'{path}' field '{key}' is missing or not a "
                                f"{kind.__name__} (edited?); {REBUILD_FIX}")
    checksums = manifest["checksums"]
    if not all(isinstance(v, str) for v in checksums.values()) or \
            not all(isinstance(v, dict) for v in manifest["files"].values()):
        raise ManifestError(f"'{path}' has malformed checksums or files (edited?); "
                            f"{REBUILD_FIX}")
    missing = [name for name in REQUIRED if name not in checksums]
    if missing:
        raise ManifestError(f"'{path}' records no checksum for {missing[0]} (edited?); "
                            f"{REBUILD_FIX}")


def checksum_files(index_dir: Path, known: dict[str, str] | None = None) -> dict[str, str]:
    """SHA-256 of every index file except the manifest and feedback, by relative path.

    ``known`` digests (computed while writing) are taken as they are.
    """
    out = {}
    for path in sorted(index_dir.rglob("*")):
        rel = path.relative_to(index_dir).as_posix()
        if path.is_file() and rel not in (MANIFEST, FEEDBACK):
            out[rel] = (known or {}).get(rel) or file_sha256(path)
    return out


def verify_files(index_dir: Path, manifest: dict[str, Any],
                 only: Iterable[str] | None = None) -> None:
    """Raise ``IndexIntegrityError`` naming the first missing or altered file."""
    expected = manifest.get("checksums", {})
    names = list(only) if only is not None else list(expected)
    for rel in names:
        path = index_dir / rel
        if rel not in expected:
            continue
        if not path.is_file():
            raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}")
        check_size(path)
        try:
            digest = file_sha256(path)
        except FileNotFoundError as exc:  # removed by a build swapping the index in
            raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
        if digest != expected[rel]:
            raise _checksum_mismatch(path)


# -- atomic replacement ----------------------------------------------------------------

@contextlib.contextmanager
def staging_dir(index_dir: Path) -> Iterator[Path]:
    """A temporary folder beside ``index_dir``, removed unless it was swapped in."""
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{index_dir.name}.tmp-", dir=index_dir.parent))
    try:
        yield tmp
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def swap_in(staged: Path, index_dir: Path) -> None:
    """Replace ``index_dir`` by ``staged``; keeps feedback; never leaves a half index.

    Refuses to replace a folder that is not a codecite index (a misconfigured
    ``index_dir`` must never delete the user's files).
    """
    if index_dir.is_dir() and any(index_dir.iterdir()) and \
            not any((index_dir / m).exists() for m in INDEX_MARKERS):
        raise IndexIntegrityError(f"refusing to replace '{index_dir}': it is not a codecite "
                                  "index (no manifest.json or nodes.jsonl); choose another "
                                  "index_dir, or remove that folder yourself")
    old_feedback = index_dir / FEEDBACK
    if old_feedback.is_file() and not (staged / FEEDBACK).exists():
        shutil.copy2(old_feedback, staged / FEEDBACK)
    retired = None
    if index_dir.exists():
        retired = index_dir.with_name(f"{index_dir.name}.old-{os.getpid()}-{time.time_ns()}")
        os.replace(index_dir, retired)
    try:
        os.replace(staged, index_dir)
    except BaseException:  # interrupted between the renames: put the previous index back
        if retired is not None and not index_dir.exists():
            os.replace(retired, index_dir)
        raise
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)


def _siblings(index_dir: Path, kind: str) -> list[Path]:
    """Leftovers of builds on ``index_dir``: ``tmp`` (staging) or ``old`` (retired) folders."""
    return sorted(index_dir.parent.glob(f"{index_dir.name}.{kind}-*"))


def recover_index(index_dir: Path, clean: bool = False) -> bool:
    """Put back the previous index of a build killed between its two renames.

    Call with the build lock held, or when no live build holds it. With
    ``clean`` (only with the lock held) leftovers of killed builds (staging and
    retired folders) are removed. Returns True when an index was put back.
    """
    if index_dir.exists():
        if not clean:
            return False
        for leftover in _siblings(index_dir, "tmp") + _siblings(index_dir, "old"):
            shutil.rmtree(leftover, ignore_errors=True)
        return False
    retired = [p for p in _siblings(index_dir, "old") if (p / MANIFEST).is_file()]
    if not retired:
        return False
    newest = max(retired, key=lambda p: p.name.rsplit("-", 1)[-1].zfill(24))  # time_ns
    try:
        os.replace(newest, index_dir)
    except OSError:  # another process put it back first
        return False
    return True


def build_running(index_dir: Path) -> bool:
    """True while a live process holds the build lock of ``index_dir``."""
    holder = _lock_holder(lock_path(index_dir))
    return holder is not None and _pid_alive(holder)


# -- the build lock ----------------------------------------------------------------------

def lock_path(index_dir: Path) -> Path:
    return index_dir.with_name(index_dir.name + ".lock")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def build_lock(index_dir: Path, wait: bool = False, timeout: float = 600.0) -> Iterator[None]:
    """Serialize builds on one index dir with an exclusive lock file.

    A lock left by a dead process is taken over. With ``wait`` the second build
    waits for the first; otherwise it fails at once with a clear message.
    """
    path = lock_path(index_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            holder = _lock_holder(path)
            if holder is not None and not _pid_alive(holder):
                path.unlink(missing_ok=True)
                continue
            if not wait or time.monotonic() > deadline:
                raise IndexLockedError(
                    f"another build (pid {holder}) is writing the index at '{index_dir}'; "
                    f"wait for it, or run `codecite build --wait`, or remove '{path}' if no "
                    "build is running") from None
            time.sleep(0.2)
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        yield
    finally:
        path.unlink(missing_ok=True)


def _lock_holder(path: Path) -> int | None:
    try:
        return int(path.read_text().strip() or "0") or None
    except (OSError, ValueError):
        return None
