"""Reading a file of the indexed repository safely: regular files only, inside, bounded.

A repository is input, and a cloned one may be hostile. Opening a FIFO blocks
until a writer comes (forever, and with the build lock held); reading a
character device such as ``/dev/zero`` never ends; a symlink may lead out of
the repository. So every file codecite reads from a repository (corpus files
and metadata such as ``PKG-INFO``, ``pyproject.toml``, ``codecite.toml``) goes
through :func:`read_regular_file`, which refuses all of these with an
:class:`UnsafeFileError` naming a :class:`Refusal`. Callers skip the file
with that reason (``codecite stats`` lists it) or treat it as absent.
"""

from __future__ import annotations

import os
import stat
from enum import Enum

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20
# settings and package metadata (pyproject.toml, PKG-INFO) above this are not read
MAX_METADATA_BYTES = 4 * 1024 * 1024


class Refusal(str, Enum):
    """Why a file was not read."""

    NOT_REGULAR = "not a regular file"
    OUTSIDE = "outside the repository"
    TOO_LARGE = "larger than the size limit"

    def __str__(self) -> str:
        return self.value


class UnsafeFileError(OSError):
    """A file that exists but is not read: see ``reason``.

    An ``OSError``, so code that treats an unreadable file as absent does the
    same with a refused one.
    """

    def __init__(self, path: str | os.PathLike[str], reason: Refusal) -> None:
        super().__init__(f"'{os.fspath(path)}' is {reason}; not read")
        self.path = os.fspath(path)
        self.reason = reason


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def read_regular_file(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None, limit: int | None
) -> bytes:
    """The bytes of ``path`` if it is a regular file inside ``root`` of at most ``limit`` bytes.

    Steps, each closing one way a read could block, flood or escape:

    1. With ``root``: the real path (every symlink resolved) must lie inside
       the real ``root``; then that real path is opened with ``O_NOFOLLOW``,
       so a link put in its place meanwhile is not followed. ``root=None``
       means the caller has already checked where the path leads (the corpus
       walk checks every link it follows); links are then followed.
    2. ``stat`` before opening: only a regular file is opened at all (opening
       a device can have effects of its own), and one already larger than
       ``limit`` is not opened.
    3. ``open`` with ``O_NONBLOCK``: if a FIFO was swapped in after step 2,
       the open returns at once instead of waiting for a writer.
    4. ``fstat`` on the open descriptor: the file actually opened must be a
       regular file (this closes the swap between steps 2 and 3).
    5. Read at most ``limit + 1`` bytes (``limit=None``: the opened file's own
       size + 1), so a file that grows while read cannot flood memory; more
       than ``limit`` is refused.

    Raises:
        UnsafeFileError: with ``reason`` ``NOT_REGULAR``, ``OUTSIDE`` or ``TOO_LARGE``.
        OSError: the file is missing or cannot be read (``FileNotFoundError``,
            ``PermissionError``, a symlink loop, ...).

    Example:
        >>> read_regular_file("/dev/zero", root=None, limit=1024)
        Traceback (most recent call last):
        codecite.safe_io.UnsafeFileError: '/dev/zero' is not a regular file; not read
    """
    target = check_regular_file(path, root=root, limit=limit)
    flags = _OPEN_FLAGS | (getattr(os, "O_NOFOLLOW", 0) if root is not None else 0)
    fd = os.open(target, flags)
    try:
        st = os.fstat(fd)
        _check(path, st, limit)
        bound = st.st_size if limit is None else limit
        data = _read_at_most(fd, bound + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise UnsafeFileError(path, Refusal.TOO_LARGE)
    return data


def check_regular_file(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None, limit: int | None
) -> str:
    """Steps 1 and 2 of :func:`read_regular_file`, without opening: the path to open.

    For a report of what would be refused (the corpus walk lists a metadata file
    that is a FIFO); raises as :func:`read_regular_file` does.
    """
    target = os.fspath(path)
    if root is None:
        _check(path, os.stat(target), limit)
        return target
    target = os.path.realpath(target, strict=True)
    if not _inside(target, os.path.realpath(root)):
        raise UnsafeFileError(path, Refusal.OUTSIDE)
    _check(path, os.lstat(target), limit)
    return target


def _check(path: str | os.PathLike[str], st: os.stat_result, limit: int | None) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(path, Refusal.NOT_REGULAR)
    if limit is not None and st.st_size > limit:
        raise UnsafeFileError(path, Refusal.TOO_LARGE)


def _read_at_most(fd: int, count: int) -> bytes:
    """Up to ``count`` bytes from ``fd`` (fewer at end of file)."""
    chunks, left = [], count
    while left > 0:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
