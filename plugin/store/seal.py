"""The manifest's keyed digest: an index is trusted only where it was built.

The manifest records a SHA-256 of every other index file, so a digest of the
manifest covers the whole index. ``seal`` is an HMAC-SHA256 of the manifest
under a per-user key kept outside every repository (``index-key`` in the
user's cache folder, created on first use, mode 0600). An index committed to a
repository or copied from elsewhere, even with consistent checksums, does not
verify: ``codecite build`` rebuilds it and ``query``/``ask`` refuse it, unless
the user opts in with ``trust_index_from_elsewhere = true`` for an index they
ship on purpose (docs/reliability.md, "An index not built here").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codecite.errors import CodeciteError

SEAL = "seal"
KEY_BYTES = 32


def key_path() -> Path:
    """``$XDG_CACHE_HOME/codecite/index-key``, else ``~/.cache/codecite/index-key``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codecite" / "index-key"


def _read_key(path: Path) -> bytes | None:
    try:
        key = bytes.fromhex(path.read_bytes().decode().strip())
    except (OSError, ValueError):
        return None
    return key if len(key) == KEY_BYTES else None


def user_key() -> bytes | None:
    """This user's key, or None while there is none."""
    return _read_key(key_path())


def ensure_key() -> bytes:
    """This user's key, made once (never replaced) if missing."""
    path = key_path()
    key = _read_key(path)
    if key is not None:
        return key
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".index-key.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (secrets.token_hex(KEY_BYTES) + "\n").encode())
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # never replaces a key another process made first
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    except OSError as exc:
        raise CodeciteError(
            f"cannot create the per-user index key at '{path}' ({exc}); "
            "set XDG_CACHE_HOME to a folder you can write"
        ) from exc
    key = _read_key(path)
    if key is None:
        raise CodeciteError(
            f"the per-user index key at '{path}' is damaged; remove that "
            "file (codecite makes a new one, and rebuilds its indexes)"
        )
    return key


def _digest(key: bytes, manifest: Mapping[str, Any]) -> str:
    body = {k: v for k, v in manifest.items() if k != SEAL}
    blob = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hmac.new(key, blob.encode("utf-8"), hashlib.sha256).hexdigest()


def seal(manifest: Mapping[str, Any]) -> str:
    """The keyed digest to store in ``manifest[SEAL]`` (makes the key if needed)."""
    return _digest(ensure_key(), manifest)


def verifies(manifest: Mapping[str, Any]) -> bool:
    """True when ``manifest`` was sealed with this user's key."""
    key = user_key()
    stored = manifest.get(SEAL)
    return (
        key is not None
        and isinstance(stored, str)
        and hmac.compare_digest(stored, _digest(key, manifest))
    )
