"""The corpus: which files are indexed, which are skipped and why, the fingerprint.

Fingerprint (docs/architecture.md) = SHA-256 over the sorted indexable files of
``relpath ":" sha256(bytes)``, content-based, never mtime.

Whatever a file holds, the walk never fails on it: each file is indexed or
skipped with a reason (``SkipReason``), and the reason is reported by
``codecite build`` and ``codecite stats``.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field
from enum import Enum

from codecite.safe_io import (
    MAX_METADATA_BYTES,
    Refusal,
    read_regular_file,
)

logger = logging.getLogger(__name__)

TEST_DIRS = frozenset({"tests", "test", "_tests", "_test"})
# other projects' code copied in (scikit-learn's `externals`, pip's `_vendor`): no API of this one
VENDORED_DIRS = frozenset(
    {"_vendor", "vendor", "_vendored", "vendored", "externals", "_externals", "extern", "_extern"}
    | {"third_party", "_third_party", "thirdparty", "_thirdparty"}
)
EXCLUDED_DIRS = frozenset(
    {
        *TEST_DIRS,
        "__pycache__",
        "build",
        "dist",
        ".git",
        ".hg",
        ".svn",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        ".env",
        "env",
        ".eggs",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".ipynb_checkpoints",
        "_build",
        "_static",
        "static",
        "site-packages",
        "htmlcov",
        ".idea",
        ".vscode",
        ".github",
        "_templates",
    }
)
EXCLUDED_DIR_SUFFIXES = (".egg-info", ".dist-info")
# a notebook's outputs (images, tables) are dropped before indexing, and they make up
# most of an executed notebook's size: it may be this many times max_file_bytes
NOTEBOOK_SIZE_FACTOR = 16


class SkipReason(str, Enum):
    """Why a file under an indexed root was not indexed."""

    TESTS = "tests"
    BUILT_IN = "built-in exclusion"
    EXCLUDED = "excluded by config"
    SUFFIX = "suffix not indexed"
    TOO_LARGE = "larger than max_file_bytes"
    BINARY = "binary (NUL bytes)"
    UNREADABLE = "unreadable"
    LINK_OUTSIDE = "symlink outside the repository"
    LINK_LOOP = "symlink loop"
    LINK_BROKEN = "symlink to nothing"
    LINK_DUPLICATE = "symlink to a folder indexed at its own path"
    SPECIAL = "not a regular file"
    METADATA_TOO_LARGE = f"metadata file larger than {MAX_METADATA_BYTES >> 20} MiB"
    MISSING_ROOT = "configured root does not exist"
    BAD_NAME = "file name is not valid UTF-8"
    HIDDEN = "hidden folder; add it to roots to index it"
    VENDORED = "vendored third-party code; add it to roots to index it"

    def __str__(self) -> str:
        return self.value


class FileRole(str, Enum):
    PYTHON = "python"
    DOC = "doc"
    RECIPE = "recipe"
    STUB = "stub"  # a .pyi beside its module: read for the names it binds, no nodes


RACY_NS = 2_000_000_000


@dataclass(frozen=True)
class CorpusFile:
    """An indexable file: its bytes (``None`` when trusted unchanged) and digest.

    A walk given the previous build's ``{rel: {digest, size, mtime_ns}}`` does
    not re-read a file whose size and mtime_ns are unchanged: it reuses the
    content digest recorded for it (the fingerprint stays content-based; only
    the re-reading is skipped, as git does for its index).
    """

    rel: str
    role: FileRole
    data: bytes | None
    digest: str
    size: int = 0
    mtime_ns: int = 0
    path: str | None = None

    def content(self) -> bytes:
        """The file's bytes, read now if the walk trusted an unchanged stat."""
        if self.data is not None:
            return self.data
        if self.path is None:
            raise OSError(f"no content or path for '{self.rel}'")
        return read_file(self.path)

    def stat_entry(self) -> dict[str, int]:
        """Size and mtime to trust next time, or nothing for a "racy" file.

        A file modified within ``RACY_NS`` of the walk could change again with
        the same size and timestamp (timestamps are coarse); it is re-read next
        time rather than trusted (git's racy-clean rule).
        """
        if self.mtime_ns >= time.time_ns() - RACY_NS:
            return {}
        return {"size": self.size, "mtime_ns": self.mtime_ns}


@dataclass(frozen=True)
class SkippedFile:
    rel: str
    reason: SkipReason


@dataclass
class Corpus:
    files: list[CorpusFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)

    @property
    def digests(self) -> dict[str, str]:
        return {f.rel: f.digest for f in self.files}

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.digests)


def fingerprint_of(digests: dict[str, str]) -> str:
    """SHA-256 over ``relpath:sha256(bytes)`` of the sorted indexable files."""
    h = hashlib.sha256()
    for rel in sorted(digests):
        h.update(f"{rel}:{digests[rel]}".encode())
    return h.hexdigest()


def printable_name(rel: str) -> str:
    """``rel`` with undecodable file-name bytes (surrogate escapes) shown as U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


# metadata files at the repository root that codecite reads (``codecite.config.model``): the
# walk reports one that is not a regular file inside the repository, as it would a source
METADATA_FILES = ("codecite.toml", "pyproject.toml", "PKG-INFO")

REFUSED_REASONS = {
    Refusal.NOT_REGULAR: SkipReason.SPECIAL,
    Refusal.OUTSIDE: SkipReason.LINK_OUTSIDE,
    Refusal.TOO_LARGE: SkipReason.TOO_LARGE,
}


def read_file(path: str) -> bytes:
    """The bytes of a corpus file (one place, so tests can make a read fail).

    Opened without blocking and read only if the opened file is a regular file,
    at most its size (``safe_io.read_regular_file``). The walk has already
    checked that the path leads inside the repository and that its size is
    within ``max_file_bytes``; raises ``UnsafeFileError`` if it was swapped since.
    """
    return read_regular_file(path, root=None, limit=None)
