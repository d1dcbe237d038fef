"""The checks made when an index is opened: trust, tokenizer, feedback, a racing swap.

:class:`codecite.index.CodeciteIndex` runs them on load, so that a damaged, foreign
or half-replaced index fails with one line naming the file and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codecite.config.model import CodeciteConfig
from codecite.errors import (
    IndexIntegrityError,
    IndexNotFoundError,
    ManifestError,
    UntrustedIndexError,
)
from codecite.store.files import MANIFEST, Manifest, read_json, read_manifest
from codecite.store.lock import build_running
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


def manifest_now(index_dir: Path) -> Any:
    try:
        return read_manifest(index_dir)
    except IndexNotFoundError as exc:
        raise IndexIntegrityError(
            f"index at '{index_dir}' was replaced while it was being read; load it again"
        ) from exc


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


def check_trusted(cfg: CodeciteConfig, manifest: Manifest) -> None:
    """Refuse an index this user did not build here, unless the settings trust it."""
    from codecite.store.seal import verifies

    if cfg.trust_index_from_elsewhere or verifies(manifest):
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
