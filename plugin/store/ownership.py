"""Which folders codecite may replace, and the staged swap that replaces an index.

A folder is replaced only when codecite wrote it: its ``.codecite-index`` marker lists
every file a build put there, so anything else inside (a user's file, a foreign
``manifest.json``) refuses the build (:func:`check_replaceable`). A build writes a
sibling staging folder, journals it in the lock file and swaps it in with two renames
(:func:`swap_in`); a build killed between the renames leaves the previous index under
a retired name that :func:`recover_index` puts back. See docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from codecite.errors import (
    ForeignPathError,
    IndexLockedError,
)
from codecite.store.files import (
    FEEDBACK,
    FORMAT_VERSION,
    MANIFEST,
    MARKER,
    UNLISTED,
    is_unlisted,
    write_json,
)
from codecite.store.lock import RETIRED, STAGING, Journal, build_lock, build_running, lock_path


def _listed_files(index_dir: Path) -> set[str] | None:
    """The files a codecite index folder may hold, from its marker (or, for an index of
    format 2, which had no marker, from its manifest's checksums); None: not an index."""
    try:
        marker = json.loads((index_dir / MARKER).read_text(encoding="utf-8"))
        if (
            isinstance(marker, dict)
            and marker.get("codecite_index") == 1
            and isinstance(marker.get("files"), list)
        ):
            return {str(f) for f in marker["files"]} | set(UNLISTED)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        pass
    try:
        manifest = json.loads((index_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    if (
        isinstance(manifest, dict)
        and manifest.get("format_version") == 2
        and isinstance(manifest.get("checksums"), dict)
    ):
        return set(manifest["checksums"]) | set(UNLISTED)
    return None


def _foreign_entries(index_dir: Path, listed: set[str] | None, most: int = 3) -> list[str]:
    """Up to ``most`` entries under ``index_dir`` that its file list does not name (every
    entry when there is no list); a foreign folder is named, not searched."""
    allowed = listed or set()
    folders = {Path(f).parent.as_posix() for f in allowed} | {"."}
    folders |= {p.as_posix() for f in folders for p in Path(f).parents}
    found: list[str] = []
    for here, dirs, files in os.walk(index_dir):
        base = Path(here).relative_to(index_dir).as_posix()
        keep = []
        for name in sorted(dirs + files):
            rel = name if base == "." else f"{base}/{name}"
            full = Path(here) / name
            if name in dirs and not full.is_symlink():
                ok = rel in folders
                if ok:
                    keep.append(name)
            else:
                ok = (
                    (rel in allowed or (listed is not None and is_unlisted(rel)))
                    and full.is_file()
                    and not full.is_symlink()
                )
            if not ok:
                found.append(rel + ("/" if name in dirs else ""))
                if len(found) >= most:
                    return found
        dirs[:] = keep
    return found


def check_replaceable(index_dir: Path) -> None:
    """Raise ``ForeignPathError`` unless a build may replace ``index_dir``.

    A build replaces only a folder codecite made: absent, empty, or an index
    whose marker (or format-2 manifest) lists every file in it. Anything else,
    a file, a link, a web app's ``manifest.json`` beside its sources, a home
    folder, is refused, naming the folder, and the message never suggests a
    command that would delete it (docs/reliability.md, "Nothing a user owns").
    """
    if not os.path.lexists(index_dir):
        return
    fix = (
        "choose an index_dir of its own: a new or empty folder, or an index codecite "
        "built (the default is '.codecite' in the repository)"
    )
    if index_dir.is_symlink():
        raise ForeignPathError(
            f"refusing to build into '{index_dir}': it is a symbolic link; {fix}"
        )
    if not index_dir.is_dir():
        raise ForeignPathError(
            f"refusing to build into '{index_dir}': it is an existing file, not a folder; {fix}"
        )
    if not any(index_dir.iterdir()):
        return
    listed = _listed_files(index_dir)
    foreign = _foreign_entries(index_dir, listed)
    if foreign:
        what = "it is not a codecite index: " if listed is None else ""
        raise ForeignPathError(
            f"refusing to build into '{index_dir}': {what}it holds "
            f"{', '.join(repr(f) for f in foreign)}, which codecite did not "
            f"write; {fix}"
        )


def _owned_leftover(path: Path) -> bool:
    """A journal entry still looks like what codecite made there: never a link, and an
    empty folder, or one holding a codecite index or staging marker."""
    if path.is_symlink() or not path.is_dir():
        return False
    return not any(path.iterdir()) or _listed_files(path) is not None


def write_marker(index_dir: Path, files: Iterable[str] = ()) -> None:
    """Mark ``index_dir`` as made by codecite, listing the files it may hold."""
    write_json(
        index_dir / MARKER,
        {"codecite_index": 1, "format_version": FORMAT_VERSION, "files": sorted(files)},
    )


def _new_sibling(index_dir: Path, kind: str) -> Path:
    """A sibling name no file has: ``<index>.<kind>-<pid>-<random>``."""
    while True:
        path = index_dir.with_name(f"{index_dir.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}")
        if not os.path.lexists(path):
            return path


@contextlib.contextmanager
def staging_dir(index_dir: Path, journal: Journal) -> Iterator[Path]:
    """A new folder beside ``index_dir``, recorded in the journal before it is made and
    removed unless it was swapped in. Made with the user's umask, like any output folder."""
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = _new_sibling(index_dir, "tmp")
        journal.record(tmp, STAGING)
        try:
            tmp.mkdir(mode=0o777)
            break
        except FileExistsError:  # appeared since the check: not ours, never touched
            journal.forget(tmp)
    try:
        write_marker(tmp)
        yield tmp
    finally:
        if tmp.is_dir() and not tmp.is_symlink() and tmp.resolve() != index_dir.resolve():
            shutil.rmtree(tmp, ignore_errors=True)
        journal.forget(tmp)


def swap_in(staged: Path, index_dir: Path, journal: Journal) -> None:
    """Replace ``index_dir`` by ``staged``; keeps feedback; never leaves a half index.

    Refuses to replace a folder codecite did not make (``check_replaceable``).
    The previous index is renamed to a recorded sibling first, so a build
    killed between the two renames can be undone by ``recover_index``.
    """
    check_replaceable(index_dir)
    old_feedback = index_dir / FEEDBACK
    if old_feedback.is_file() and not (staged / FEEDBACK).exists():
        shutil.copy2(old_feedback, staged / FEEDBACK)
    retired = None
    if index_dir.exists():
        retired = _new_sibling(index_dir, "old")
        journal.record(retired, RETIRED)
        os.replace(index_dir, retired)
    try:
        os.replace(staged, index_dir)
    except BaseException:  # interrupted between the renames: put the previous index back
        if retired is not None and not os.path.lexists(index_dir):
            os.replace(retired, index_dir)
            journal.forget(retired)
        raise
    journal.forget(staged)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
        journal.forget(retired)


def recover_index(index_dir: Path, journal: Journal, clean: bool = False) -> bool:
    """Put back the previous index of a build killed between its two renames.

    Call with the build lock held. Only folders recorded in the journal are
    considered; with ``clean`` the other recorded leftovers (staging folders,
    retired indexes) are removed. Returns True when an index was put back.
    """
    restored = False
    entries = journal.entries()
    if not os.path.lexists(index_dir):
        retired = [
            e for e in entries if e["role"] == RETIRED and _owned_leftover(journal.path_of(e))
        ]
        if retired:
            os.replace(journal.path_of(retired[-1]), index_dir)  # the newest recorded
            journal.forget(journal.path_of(retired[-1]))
            restored = True
    if clean:
        for entry in journal.entries():
            path = journal.path_of(entry)
            if _owned_leftover(path):
                shutil.rmtree(path, ignore_errors=True)
            journal.forget(path)
    return restored


def recover_unlocked(index_dir: Path) -> bool:
    """``recover_index`` for a reader: only when no build holds the lock, and only when
    a lock file (whose journal records what a killed build left) is there."""
    if build_running(index_dir) or not lock_path(index_dir).is_file():
        return False
    try:
        with build_lock(index_dir) as journal:
            return recover_index(index_dir, journal)
    except (IndexLockedError, ForeignPathError, OSError):
        return False
