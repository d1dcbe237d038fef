"""A build replaces or removes only what codecite made and recorded.

Each test plants something a user owns where a build used to delete, move or
overwrite it (a web app's ``manifest.json``, a home folder, a sibling named
like a leftover, an existing file as ``--index-dir``) and checks that it is
byte-for-byte intact afterwards. docs/reliability.md lists these promises.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from reliability_support import cli, cli_inproc, copy_sample

import codecite
from codecite.errors import ForeignPathError
from codecite.store import files as store


def _tree(path: Path) -> dict[str, str]:
    """Every file under ``path`` with the SHA-256 of its bytes (links by their target)."""
    out = {}
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix()
        if p.is_symlink():
            out[rel] = "link:" + str(p.readlink())
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[rel] = "dir"
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return copy_sample(tmp_path / "repo")


def _web_app(folder: Path) -> Path:
    (folder / "src").mkdir(parents=True)
    (folder / "manifest.json").write_text('{"name": "my app", "start_url": "/"}')
    (folder / "src" / "app.js").write_text("console.log('hi')\n")
    return folder


def _refused(code: int, err: str, folder: Path) -> None:
    assert code == 2, err
    assert f"refusing to build into '{folder}'" in err
    assert err.count("\n") == 1  # one line, no traceback
    # the fix never names a command or an action that would delete the folder
    assert "--full" not in err and "remove" not in err and "delete" not in err


def test_folder_with_a_foreign_manifest_is_never_replaced(repo: Path, tmp_path: Path) -> None:
    site = _web_app(tmp_path / "mysite")
    before = _tree(site)
    code, _, err = cli_inproc("build", str(repo), "--index-dir", str(site))
    _refused(code, err, site)
    assert "'src/'" in err or "'manifest.json'" in err
    assert _tree(site) == before
    assert not list(tmp_path.glob("mysite.*"))  # no lock, staging or retired folder beside it


def test_home_folder_is_never_replaced(repo: Path, tmp_path: Path) -> None:
    home = _web_app(tmp_path / "home")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("private\n")
    (home / "Documents").mkdir()
    (home / "Documents" / "thesis.tex").write_text("\\section{One}\n")
    before = _tree(home)
    code, _, err = cli_inproc("build", str(repo), "--index-dir", str(home), "--full")
    _refused(code, err, home)
    assert _tree(home) == before


def test_index_dir_from_the_repository_settings_is_checked_too(repo: Path) -> None:
    _web_app(repo / "site")
    before = _tree(repo / "site")
    (repo / "codecite.toml").write_text('index_dir = "site"\n')
    code, _, err = cli_inproc("build", str(repo))
    _refused(code, err, repo / "site")
    assert _tree(repo / "site") == before
    with pytest.raises(ForeignPathError):
        codecite.build(repo)


def test_existing_file_as_index_dir_is_refused_and_not_moved(repo: Path) -> None:
    license_file = repo / "LICENSE"
    license_file.write_text("MIT License\n")
    code, _, err = cli_inproc("build", str(repo), "--index-dir", str(license_file))
    _refused(code, err, license_file)
    assert "existing file" in err
    assert license_file.read_text() == "MIT License\n"
    assert sorted(p.name for p in repo.glob("LICENSE*")) == ["LICENSE"]


def test_symlink_as_index_dir_is_refused(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("mine\n")
    (repo / "idx").symlink_to(target)
    code, _, err = cli_inproc("build", str(repo), "--index-dir", str(repo / "idx"))
    _refused(code, err, repo / "idx")
    assert (target / "keep.txt").read_text() == "mine\n" and (repo / "idx").is_symlink()


def test_a_file_dropped_into_the_index_makes_it_foreign(repo: Path) -> None:
    codecite.build(repo)
    (repo / ".codecite" / "notes.txt").write_text("my notes\n")
    code, _, err = cli_inproc("build", str(repo), "--full")
    _refused(code, err, repo / ".codecite")
    assert "'notes.txt'" in err and (repo / ".codecite" / "notes.txt").read_text() == "my notes\n"


def test_empty_folder_and_own_index_are_replaced(repo: Path, tmp_path: Path) -> None:
    empty = tmp_path / "idx"
    empty.mkdir()
    code, out, err = cli_inproc("build", str(repo), "--index-dir", str(empty))
    assert code == 0 and out.startswith("built "), err  # a first build: nothing "not reused"
    assert codecite.build(repo, index_dir=str(empty), full=True).nodes > 0
    assert (empty / store.MARKER).is_file()
    marker = json.loads((empty / store.MARKER).read_text())
    manifest = json.loads((empty / store.MANIFEST).read_text())
    assert set(marker["files"]) == {*manifest["checksums"], store.MANIFEST}
    assert not codecite.build(repo, index_dir=str(empty), full=True).up_to_date


def test_index_of_format_2_without_a_marker_is_still_replaced(repo: Path) -> None:
    codecite.build(repo)
    index = repo / ".codecite"
    (index / store.MARKER).unlink()
    manifest = json.loads((index / store.MANIFEST).read_text())
    (index / store.MANIFEST).write_text(json.dumps({**manifest, "format_version": 2}))
    code, out, err = cli_inproc("build", str(repo))
    assert code == 0, err
    assert out.startswith("previous index not reused: ") and "old format version 2" in out
    assert (
        json.loads((index / store.MANIFEST).read_text())["format_version"] == store.FORMAT_VERSION
    )


@pytest.mark.parametrize("kind", ["old", "tmp"])
def test_sibling_folders_named_like_leftovers_survive_every_build(repo: Path, kind: str) -> None:
    mine = repo / f".codecite.{kind}-2023"
    mine.mkdir()
    (mine / "photo.jpg").write_bytes(b"\xff\xd8 not a real photo")
    index_like = repo / f".codecite.{kind}-backup"  # even a copy of an index is the user's
    codecite.build(repo)
    store_copy = _tree(repo / ".codecite")
    index_like.mkdir()
    for rel, digest in store_copy.items():
        if digest != "dir":
            (index_like / rel).parent.mkdir(parents=True, exist_ok=True)
            (index_like / rel).write_bytes((repo / ".codecite" / rel).read_bytes())
    before = {p.name: _tree(p) for p in (mine, index_like)}
    assert codecite.build(repo).up_to_date  # a no-change build
    (repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')
    codecite.build(repo)
    codecite.build(repo, full=True)
    assert {p.name: _tree(p) for p in (mine, index_like)} == before


def test_killed_build_leftovers_are_removed_because_they_were_recorded(repo: Path) -> None:
    codecite.build(repo)
    stopper = (
        "import os, signal, codecite.indexer.build as b\n"
        "def die(*a, **k):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "b.swap_in = die\n"
        "b.build_index(__import__('sys').argv[1], full=True)\n"
    )
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", stopper, str(repo)], timeout=120)
    assert proc.returncode == -9
    staged = sorted(p.name for p in repo.glob(".codecite.tmp-*"))
    assert len(staged) == 1  # the killed build's staging folder, recorded in the journal
    journal = json.loads((repo / ".codecite.lock").read_text())
    assert [e["name"] for e in journal["created"]] == staged
    assert cli("build", str(repo)).returncode == 0
    assert not list(repo.glob(".codecite.tmp-*")) and not (repo / ".codecite.lock").exists()


def test_foreign_lock_file_is_refused_not_overwritten(repo: Path) -> None:
    (repo / ".codecite.lock").write_text("my padlock notes\n")
    code, _, err = cli_inproc("build", str(repo))
    assert code == 2 and "is not a codecite lock file" in err and err.count("\n") == 1
    assert (repo / ".codecite.lock").read_text() == "my padlock notes\n"
    assert not (repo / ".codecite").exists()


@pytest.mark.parametrize("content", ["", "12345\n", '{"codecite_lock": 1, "pid": 4'])
def test_empty_stale_or_torn_lock_file_never_blocks(repo: Path, content: str) -> None:
    (repo / ".codecite.lock").write_text(content)  # an old pid file, a torn journal
    code, out, err = cli_inproc("build", str(repo))
    assert code == 0 and out.startswith("built "), err
    assert not (repo / ".codecite.lock").exists()
