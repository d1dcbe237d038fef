"""The checks made when an index is opened (trust, tokenizer, feedback, a racing swap),
and the one write a loaded index makes: a feedback vote.

:class:`codecite.index.CodeciteIndex` runs them on load, so that a damaged, foreign
or half-replaced index fails with one line naming the file and the fix.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from codecite.config.model import CodeciteConfig
from codecite.errors import (
    IndexIntegrityError,
    ManifestError,
    UntrustedIndexError,
)
from codecite.store.files import (
    FEEDBACK,
    FEEDBACK_TMP,
    MANIFEST,
    Manifest,
    read_json,
)
from codecite.store.lock import build_lock, build_running
from codecite.store.ownership import recover_unlocked
from codecite.vocabulary import REBUILD_FIX

# What a damaged but checksum-consistent file can raise while being turned into objects.
DECODE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)


def decoded(path: Path, make: Any) -> Any:
    """``make()``, with any decoding failure reported as damage to ``path``."""
    try:
        return make()
    except FileNotFoundError as exc:
        raise IndexIntegrityError(
            f"index file '{exc.filename or path}' is missing; {REBUILD_FIX}"
        ) from exc
    except (OSError, *DECODE_ERRORS) as exc:
        raise IndexIntegrityError(
            f"index file '{path}' cannot be read ({type(exc).__name__}: "
            f"{str(exc)[:200]}); {REBUILD_FIX}"
        ) from exc


def check_feedback(path: Path) -> None:
    """``feedback.json`` is kept across builds, so its fix is removing it, not rebuilding."""
    if not path.exists():
        return
    try:
        data = read_json(path)
    except IndexIntegrityError as exc:
        data = exc
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise IndexIntegrityError(
            f"'{path}' is damaged or not a feedback table; remove it "
            "(its votes are lost) or restore it from a backup"
        )


def manifest_stamp(index_dir: Path) -> tuple[int, int, int] | None:
    """Identity of the manifest file now: a swapped-in index has another one."""
    try:
        st = (index_dir / MANIFEST).stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def put_back(index_dir: Path) -> bool:
    """True when the index is there after all: put back after a build killed mid-swap.

    A running build between its two renames is not touched: the load is retried.
    """
    if build_running(index_dir):
        if index_dir.exists():
            return True
        raise IndexIntegrityError(
            f"index at '{index_dir}' is being replaced by a running build; load it again"
        )
    return recover_unlocked(index_dir) or index_dir.exists()


def check_trusted(cfg: CodeciteConfig, manifest: Manifest, text: bytes) -> None:
    """Refuse an index this user did not build here, unless the settings trust it."""
    from codecite.store.seal import verifies

    if cfg.trust_index_from_elsewhere or verifies(manifest, text):
        return
    raise UntrustedIndexError(
        f"index at '{cfg.index_path}' was not built by this user on this machine (its keyed "
        "digest does not verify), so its text may match no source file; run `codecite build` "
        "to rebuild it here, or set trust_index_from_elsewhere = true in [tool.codecite] to "
        "serve a prebuilt index you ship on purpose"
    )


def check_tokenizer(index_dir: Path, manifest: Manifest) -> None:
    """Queries must be tokenized exactly as the index was (settings persisted at build)."""
    from codecite.retrievers.tokenizer import TokenizerSettings

    current = TokenizerSettings().to_json()
    if manifest.get("tokenizer") != current:
        raise ManifestError(
            f"index at '{index_dir}' was tokenized with "
            f"{manifest.get('tokenizer')}, this codecite tokenizes queries with "
            f"{current}; {REBUILD_FIX}"
        )


def record_vote(
    index_dir: Path, symbol: str, up: bool, query: str | None
) -> tuple[dict[str, Any], int]:
    """Add one vote for ``symbol`` to ``feedback.json``: the whole file, and its net votes.

    Under the build lock: a build copies feedback.json into the index it swaps in,
    and two votes at once must not lose one (read-modify-write).
    """
    path = index_dir / FEEDBACK
    with build_lock(index_dir, wait=True):
        data = read_json(path) if path.is_file() else {}
        entry = data.setdefault(symbol, {"votes": 0, "up": 0, "down": 0, "queries": []})
        entry["votes"] += 1 if up else -1
        entry["up" if up else "down"] += 1
        if query:
            entry["queries"] = [*entry["queries"][-19:], query]
        tmp = path.with_name(f"{FEEDBACK_TMP}{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    return data, int(entry["votes"])


def stale_fix(recorded: Any, root: Path) -> str:
    """What to do about a stale index whose manifest records ``recorded`` as its root:
    rebuild, or, built from another repository than ``root``, use that one."""
    if not isinstance(recorded, str) or not recorded or Path(recorded) == root:
        return "run `codecite build`"
    return (
        f"it was built from '{recorded}', not '{root}': pass -C '{recorded}' "
        "to use it, or run `codecite build` to index this folder in its place"
    )


def manifest_summary(index_dir: Path, m: Manifest) -> dict[str, Any]:
    """What ``codecite stats`` prints of an index, from its manifest."""
    skipped: dict[str, list[str]] = {}
    for s in m.get("skipped", []):
        skipped.setdefault(s["reason"], []).append(s["path"])
    return {
        "index_dir": str(index_dir),
        "format_version": m["format_version"],
        "codecite_version": m.get("codecite_version"),
        "created": m.get("created"),
        "nodes": m.get("node_count"),
        "files": len(m.get("files", {})),
        "by_kind": m.get("counts", {}).get("by_kind", {}),
        "by_workflow": m.get("counts", {}).get("by_workflow", {}),
        "fingerprint": m.get("fingerprint"),
        "config_digest": m.get("config_digest"),
        "embedding": m.get("embedding"),
        "doc_refs": m.get("doc_refs"),
        "mined_expansion": m.get("mined_expansion"),
        "calibration": m.get("calibration"),
        "skipped": skipped,
        "warnings": m.get("warnings", []),
    }


MANIFEST_HEAD_BYTES = 65536  # "root" is among a manifest's first keys


def recorded_root(index_dir: Any) -> Any:
    """The existing folder the index at ``index_dir`` was built from, or None.

    Read from the manifest's head only: the load that follows decodes the whole manifest
    (megabytes at 100,000 nodes), and a command should not pay for it twice. A regular
    file only, opened without blocking."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(Path(index_dir) / "manifest.json", flags)
        try:
            head = os.read(fd, MANIFEST_HEAD_BYTES) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        finally:
            os.close(fd)
        found = re.search(rb'"root":\s*("(?:[^"\\]|\\.)*")', head)
        root = json.loads(found.group(1)) if found else None
    except (OSError, ValueError):
        return None
    if not isinstance(root, str) or not root:
        return None
    folder = Path(root)
    return folder if folder.is_absolute() and folder.is_dir() else None
