"""The manifest's keyed digest: an index is trusted only where it was built.

The manifest records a SHA-256 of every other index file, so a digest of the
manifest covers the whole index. Its ``seal`` field is an HMAC-SHA256 of the
manifest file's bytes (that field's value blanked) under a per-user key kept
outside every repository (``index-key`` in the user's cache folder, created on
first use, mode 0600). An index committed to a
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
BLANK = "0" * 64  # the seal's value while its digest is computed
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


def _digest(key: bytes, text: bytes) -> str:
    return hmac.new(key, text, hashlib.sha256).hexdigest()


def _field(value: str) -> bytes:
    return f'"{SEAL}": "{value}"'.encode()


def sealed_text(manifest: dict[str, Any]) -> bytes:
    """``manifest`` as the bytes of ``manifest.json``, its ``seal`` field (last, and set in
    ``manifest`` too) holding the keyed digest of those bytes with the field's value
    blanked (makes the key if needed). A digest of the file's own bytes: a load checks
    it without encoding the manifest again, which took 50 ms of a load at 50,000 nodes."""
    manifest.pop(SEAL, None)
    text = json.dumps({**manifest, SEAL: BLANK}, ensure_ascii=False).encode("utf-8")
    head, _, tail = text.rpartition(_field(BLANK))
    manifest[SEAL] = _digest(ensure_key(), text)
    return head + _field(manifest[SEAL]) + tail


def verifies(manifest: Mapping[str, Any], text: bytes) -> bool:
    """True when ``manifest``, parsed from the bytes ``text``, was sealed with this user's
    key (``sealed_text``)."""
    key = user_key()
    stored = manifest.get(SEAL)
    if key is None or not isinstance(stored, str) or len(stored) != len(BLANK):
        return False
    head, field, tail = text.rpartition(_field(stored))
    return bool(field) and hmac.compare_digest(stored, _digest(key, head + _field(BLANK) + tail))
