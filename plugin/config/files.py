"""Reading the settings and metadata files of a repository, safely and size-bounded.

A file of the repository is opened only when it is a regular file inside it of at most
``MAX_METADATA_BYTES`` (``codecite.safe_io``); any other is ignored like an absent one.
"""

from __future__ import annotations

import errno
import logging
import sys
from pathlib import Path
from typing import Any

from codecite.errors import ConfigError
from codecite.safe_io import MAX_METADATA_BYTES, UnsafeFileError, read_regular_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

logger = logging.getLogger(__name__)


def read_metadata(path: Path, root: Path) -> bytes | None:
    """The bytes of a settings or metadata file of the repository at ``root``.

    None when it is absent, or refused by ``safe_io.read_regular_file``: not a
    regular file (a FIFO would block, a device never end), leading out of the
    repository, or larger than ``MAX_METADATA_BYTES``. A refused file is ignored
    like an absent one; the corpus walk lists it in ``codecite stats``.
    """
    try:
        return read_regular_file(path, root=root, limit=MAX_METADATA_BYTES)
    except UnsafeFileError as exc:
        logger.info("%s; ignored", exc)
        return None
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            return None
        raise


def read_toml(path: Path, root: Path | None = None) -> dict[str, Any] | None:
    """The TOML in ``path``: a file of the repository at ``root`` (None when absent or
    refused, see ``read_metadata``), or without ``root`` the file the user named,
    which must be a regular file of at most ``MAX_METADATA_BYTES``."""
    try:
        raw = (
            read_regular_file(path, root=None, limit=MAX_METADATA_BYTES)
            if root is None
            else read_metadata(path, root)
        )
        if raw is None:
            return None
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        return tomllib.loads(text)
    except UnsafeFileError as exc:
        raise ConfigError(
            f"settings file '{path}' is {exc.reason}; pass a regular file "
            f"of at most {MAX_METADATA_BYTES >> 20} MiB such as codecite.toml "
            "or pyproject.toml"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read '{path}': {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"'{path}' is not valid TOML ({exc}); fix the syntax") from exc


def read_pyproject(root: Path) -> dict[str, Any]:
    """The repository's ``pyproject.toml``, ``{}`` when absent or unreadable."""
    try:
        return read_toml(root / "pyproject.toml", root) or {}
    except ConfigError:
        return {}
