"""The build lock and the journal of folders a build creates beside the index.

The lock is a kernel lock (``fcntl.flock``) on ``<index>.lock``: the kernel
releases it when its holder exits, however it exits, so there is no pid file
and no takeover logic, and two processes can never hold it at once.

The same file holds the *journal*: the names of the staging and retired
folders that builds created beside the index and have not removed yet. A
build records a name before it creates or renames anything to it, and the
next build (or a load after a crash) removes exactly those names. A sibling
folder codecite did not record, such as a user's ``idx.old-2023/``, is never
touched (docs/reliability.md, "Nothing a user owns").

The lock file is written only when it is empty or already a codecite lock
file; any other file of that name is refused, never overwritten.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from codecite.errors import ForeignPathError, IndexLockedError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

JOURNAL_TAG = '{"codecite_lock"'  # how every journal this module writes begins
_HELD: set[int] = set()  # descriptors of the build locks this process holds


def _drop_inherited_locks() -> None:
    """In a forked child (a parse worker): close the parent's lock descriptors. A flock
    belongs to the open file, which a fork shares: a worker left running after its build
    was killed (SIGKILL, SIGTERM) would hold the lock for every later build."""
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_inherited_locks)
LOCK_WAIT_SECONDS = 600.0  # `codecite build --wait` gives up after this long
LOCK_POLL_SECONDS = (0.002, 0.05)  # a waiting build retries this often: first, at most
STAGING, RETIRED = "staging", "retired"


def lock_path(index_dir: Path) -> Path:
    return index_dir.with_name(index_dir.name + ".lock")


def _is_ours(raw: bytes) -> bool:
    """Empty, a journal of ours (even one torn by a crash), or an older codecite's pid."""
    text = raw.strip()
    return not text or text.startswith(JOURNAL_TAG.encode()) or text.isdigit()


def _parse(raw: bytes) -> list[dict[str, str]]:
    """The journal's entries; a torn or older file has none (so nothing is removed)."""
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return []
    entries = data.get("created") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    return [
        e
        for e in entries
        if isinstance(e, dict)
        and isinstance(e.get("name"), str)
        and e.get("role") in (STAGING, RETIRED)
        and "/" not in e["name"]
        and e["name"] not in ("", ".", "..")
    ]


@dataclass
class Journal:
    """The folders recorded beside ``index_dir``, read and written under the lock."""

    index_dir: Path
    fd: int

    def entries(self) -> list[dict[str, str]]:
        os.lseek(self.fd, 0, os.SEEK_SET)
        raw = b""
        while chunk := os.read(self.fd, 1 << 16):
            raw += chunk
        return _parse(raw)

    def path_of(self, entry: dict[str, str]) -> Path:
        return self.index_dir.with_name(entry["name"])

    def _write(self, entries: list[dict[str, str]]) -> None:
        data = json.dumps({"codecite_lock": 1, "pid": os.getpid(), "created": entries}).encode()
        os.lseek(self.fd, 0, os.SEEK_SET)
        os.write(self.fd, data)
        os.ftruncate(self.fd, len(data))

    def record(self, path: Path, role: str) -> None:
        """Record ``path`` (a sibling of the index) before creating or renaming to it."""
        entries = [e for e in self.entries() if e["name"] != path.name]
        self._write([*entries, {"name": path.name, "role": role}])

    def forget(self, path: Path) -> None:
        self._write([e for e in self.entries() if e["name"] != path.name])


def _open_lock_file(index_dir: Path) -> int:
    """The lock file's descriptor, refusing a file of that name codecite did not write."""
    path = lock_path(index_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ForeignPathError(
                f"'{path}' is a symbolic link, not a codecite lock file; choose another index_dir"
            ) from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or not _is_ours(os.pread(fd, 4096, 0)):
            raise ForeignPathError(
                f"'{path}' exists and is not a codecite lock file; codecite "
                "will not overwrite it: move it, or choose another index_dir"
            )
    except BaseException:
        os.close(fd)
        raise
    return fd


def _try_lock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover - Windows: no kernel lock, one build at a time
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _holder(fd: int) -> int | None:
    """The pid the lock holder wrote into the journal, if it says."""
    try:
        pid = json.loads(os.pread(fd, 4096, 0)).get("pid")
    except (OSError, ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) and not isinstance(pid, bool) else None


def _still_linked(fd: int, path: Path) -> bool:
    """The locked file is still the one at ``path`` (a releasing build unlinks it)."""
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
    except OSError:
        return False


@contextlib.contextmanager
def build_lock(
    index_dir: Path, wait: bool = False, timeout: float = LOCK_WAIT_SECONDS
) -> Iterator[Journal]:
    """Hold the exclusive build lock of ``index_dir``; yields its journal.

    With ``wait`` a second build waits for the first (up to ``timeout``
    seconds); otherwise it fails at once with a message naming the fix. On
    release the lock file is removed while still locked, unless its journal
    still names a leftover (a process that opened it meanwhile notices that
    the file is gone and opens the new one).
    """
    deadline = time.monotonic() + timeout
    pause = LOCK_POLL_SECONDS[0]
    while True:
        fd = _open_lock_file(index_dir)
        if _try_lock(fd):
            if _still_linked(fd, lock_path(index_dir)):
                break
        elif not wait or time.monotonic() > deadline:
            holder = _holder(fd)
            os.close(fd)
            raise IndexLockedError(
                f"another build{f' (pid {holder})' if holder else ''} is writing the index at "
                f"'{index_dir}'; wait for it, or run `codecite build --wait`"
            )
        else:
            time.sleep(pause)
            pause = min(pause * 2, LOCK_POLL_SECONDS[1])
        os.close(fd)
    journal = Journal(index_dir, fd)
    journal._write(journal.entries())  # the holder's pid, for the message above
    _HELD.add(fd)
    try:
        yield journal
    finally:
        try:
            if not journal.entries():
                os.unlink(lock_path(index_dir))
        except OSError:
            pass
        _HELD.discard(fd)
        os.close(fd)  # closing the descriptor releases the kernel lock


def build_running(index_dir: Path) -> bool:
    """True while another process holds the build lock of ``index_dir``."""
    if fcntl is None:  # pragma: no cover
        return False
    try:
        fd = os.open(
            lock_path(index_dir),
            os.O_RDONLY
            | os.O_NONBLOCK
            | getattr(os, "O_NOFOLLOW", 0)
            | getattr(os, "O_CLOEXEC", 0),
        )
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False
