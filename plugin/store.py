"""The index on disk: files, integrity checks, atomic replacement, the build lock.

Layout of ``.codecite/`` (no pickle anywhere)::

    manifest.json   format version, counts, digests, fingerprint, file checksums
    nodes.jsonl     one node a line: id, text, metadata
    tokens.txt      one node's tokens a line (same order), reused by incremental builds
    symbols.json    the package namespace as parsed (modules, symbols)
    extras/*.json   derived tables (doc references, mined expansion, ...)
    bm25/           bm25s arrays (.npy, allow_pickle=False) and vocabulary JSON
    vectors.npy     float32 vectors, only when built with embeddings
    feedback.json   per-symbol feedback, carried across rebuilds

A build writes a sibling temporary folder and swaps it in with two renames; the
manifest records a SHA-256 of every other file, so a reader that raced a swap
or met a damaged file notices and says which file and what to run.
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

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
NODES = "nodes.jsonl"
TOKENS = "tokens.txt"
SYMBOLS = "symbols.json"
FEEDBACK = "feedback.json"
MAX_JSON_BYTES = 512 * 1024 * 1024
REBUILD_FIX = "run `codecite build --full`"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_json(path: Path, what: str | None = None) -> Any:
    """Parse a JSON file with a size limit; errors name the file and the fix."""
    name = what or path.name
    try:
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}") from exc
    if size > MAX_JSON_BYTES:
        raise IndexIntegrityError(f"index file '{path}' is {size} bytes, over the limit; "
                                  f"{REBUILD_FIX}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexIntegrityError(f"index file '{path}' ({name}) is not valid JSON ({exc}); "
                                  f"{REBUILD_FIX}") from exc


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, sort_keys=False), encoding="utf-8")


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")


def read_jsonl(path: Path) -> list[Any]:
    if not path.is_file():
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}")
    rows = []
    with path.open("r", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise IndexIntegrityError(f"index file '{path}' line {lineno} is not valid "
                                          f"JSON (truncated or edited?); {REBUILD_FIX}") from exc
    return rows


def write_token_lines(path: Path, rows: Iterable[list[str]]) -> None:
    """One node's tokens a line, space separated (tokens never contain spaces)."""
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(" ".join(row))
            fh.write("\n")


def read_token_lines(path: Path) -> list[list[str]]:
    if not path.is_file():
        raise IndexIntegrityError(f"index file '{path}' is missing; {REBUILD_FIX}")
    with path.open("r", encoding="utf-8") as fh:
        return [line.split() for line in fh]


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
    return manifest


def checksum_files(index_dir: Path) -> dict[str, str]:
    """SHA-256 of every index file except the manifest and feedback, by relative path."""
    out = {}
    for path in sorted(index_dir.rglob("*")):
        rel = path.relative_to(index_dir).as_posix()
        if path.is_file() and rel not in (MANIFEST, FEEDBACK):
            out[rel] = file_sha256(path)
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
        if file_sha256(path) != expected[rel]:
            raise IndexIntegrityError(f"index file '{path}' does not match its checksum in "
                                      f"{MANIFEST} (truncated or edited); {REBUILD_FIX}")


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
    """Replace ``index_dir`` by ``staged``; keeps feedback; never leaves a half index."""
    old_feedback = index_dir / FEEDBACK
    if old_feedback.is_file() and not (staged / FEEDBACK).exists():
        shutil.copy2(old_feedback, staged / FEEDBACK)
    retired = None
    if index_dir.exists():
        retired = index_dir.with_name(f"{index_dir.name}.old-{os.getpid()}-{time.time_ns()}")
        os.replace(index_dir, retired)
    os.replace(staged, index_dir)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)


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
