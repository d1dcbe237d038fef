"""Special files never block or flood a build or a query.

A FIFO waits for a writer forever, a character device such as ``/dev/zero``
never ends, a symlink may lead out of the repository. Every file codecite
opens from a repository (corpus files; ``PKG-INFO``, ``pyproject.toml``,
``codecite.toml``) is checked to be a regular file inside the repository,
opened without blocking and read within a size limit; anything else is
skipped with its reason in ``codecite stats``. The cases that would hang run
``codecite`` in a real process with a timeout, so a hang fails the test
instead of stalling the suite.
"""

from __future__ import annotations

import json
import os
import resource
import stat
from pathlib import Path

import pytest
from reliability_support import cli, copy_sample

import codecite
from codecite.config import load_config, project_name
from codecite.node_parsers.notebooks import NotebookError, parse_notebook

HANG = 60  # seconds: a build of the fixture takes about one; more means it hangs
MEMORY = 2 << 30  # address-space cap for a process that might read a device without end
SPECIAL = "not a regular file"
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod of a character device needs root"
)


def _skipped(root: Path, *args: str) -> dict[str, list[str]]:
    """The ``skipped`` table of ``codecite stats --json``, from a real process."""
    run = cli("stats", "-C", str(root), "--json", *args, timeout=HANG)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["skipped"]


def _build(root: Path, *args: str, **kwargs: object) -> None:
    run = cli("build", str(root), *args, timeout=HANG, **kwargs)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr


def _files(root: Path) -> list[str]:
    return sorted(json.loads((root / ".codecite" / "manifest.json").read_text())["files"])


def test_fifo_source_file_is_skipped_not_waited_on(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    os.mkfifo(root / "geokit" / "x.py")
    _build(root)  # the old code waited for a writer, holding the build lock
    assert _skipped(root)[SPECIAL] == ["geokit/x.py"]
    assert "geokit/x.py" not in _files(root)


@pytest.mark.parametrize("name", ["PKG-INFO", "pyproject.toml", "codecite.toml"])
def test_fifo_metadata_file_blocks_neither_query_nor_build(name: str, tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    _build(root)
    os.mkfifo(root / name)
    run = cli("query", "read a survey file", "-C", str(root), timeout=HANG)
    assert run.returncode == 0, run.stderr  # loading the settings read PKG-INFO: it hung
    assert "geokit/io.py" in run.stdout
    _build(root, "--full")
    assert _skipped(root)[SPECIAL] == [name]


def test_fifo_named_by_config_flag_is_a_one_line_error(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    fifo = tmp_path / "settings.toml"
    os.mkfifo(fifo)
    run = cli("build", str(root), "--config", str(fifo), timeout=HANG)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and str(fifo) in run.stderr and SPECIAL in run.stderr


def _cap_memory() -> None:  # in the child: an endless read fails fast instead of eating RAM
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@needs_root
def test_character_device_is_skipped_not_read(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    os.mknod(root / "geokit" / "z.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero
    _build(root, preexec_fn=_cap_memory)  # the old code read it until MemoryError
    assert _skipped(root)[SPECIAL] == ["geokit/z.py"]


def test_pkg_info_link_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    """An outside ``Name: evil.pkg`` would make ``evil/`` a namespace package."""
    root = copy_sample(tmp_path / "repo")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: evil.pkg\n")
    (root / "PKG-INFO").symlink_to(tmp_path / "elsewhere" / "PKG-INFO")
    (root / "evil" / "pkg").mkdir(parents=True)
    (root / "evil" / "pkg" / "__init__.py").write_text('"""Planted."""\n')
    assert project_name(root) is None
    assert "evil" not in load_config(root).packages
    codecite.build(root)
    stats = codecite.load(root).stats()
    assert stats["skipped"]["symlink outside the repository"] == ["PKG-INFO"]
    assert not [f for f in _files(root) if f.startswith("evil/")]


def test_settings_link_out_of_the_repository_is_ignored(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "codecite.toml").write_text('exclude = ["geokit/io.py"]\n')
    (root / "codecite.toml").symlink_to(tmp_path / "elsewhere" / "codecite.toml")
    cfg = load_config(root)
    assert cfg.source is None and cfg.exclude == ()


def test_oversized_metadata_file_is_ignored(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    padding = "# padding\n" * (500 * 1024)  # 5 MiB, above the 4 MiB metadata limit
    (root / "pyproject.toml").write_text('[project]\nname = "evil.pkg"\n' + padding)
    assert project_name(root) is None
    codecite.build(root)
    skipped = codecite.load(root).stats()["skipped"]
    assert skipped["metadata file larger than 4 MiB"] == ["pyproject.toml"]


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("geokit/up", ".."),  # the repository root, above the walk root geokit/
        ("geokit/agents/top", "../.."),  # two levels up
        ("docs/guide/home", "../.."),
    ],
)
def test_link_to_an_enclosing_folder_is_not_walked(link: str, target: str, tmp_path: Path) -> None:
    """Followed, it indexed the repository again below itself, where the built-in
    exclusions (``docs/conf.py``) no longer matched."""
    root = copy_sample(tmp_path / "repo")
    (root / link).symlink_to(target)
    codecite.build(root)
    assert not [f for f in _files(root) if f.startswith(link + "/")]
    assert link in codecite.load(root).stats()["skipped"]["symlink loop"]


def test_suffixes_compare_case_insensitively(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    (root / "codecite.toml").write_text('suffixes = [".py", ".MD"]\n')
    codecite.build(root)
    files = _files(root)
    assert "docs/usage.md" in files and "README.md" in files


def test_notebook_json_error_says_where_once() -> None:
    with pytest.raises(NotebookError) as err:
        parse_notebook('{"cells": [{"source": "never closed', "docs/broken.ipynb")
    message = str(err.value)
    assert "at at" not in message  # "Unterminated string starting at at line 1"
    assert message == "not valid JSON (Unterminated string starting at: line 1 column 23)"


def test_fifo_registry_file_is_a_one_line_error_not_a_hang(tmp_path: Path) -> None:
    from codecite.answers.registry import load_registry_file
    from codecite.errors import ConfigError

    root = copy_sample(tmp_path / "repo")
    os.mkfifo(root / "registry.toml")
    with pytest.raises(ConfigError, match=r"registry_file 'registry.toml' cannot be read"):
        load_registry_file(root, "registry.toml")


def test_fifo_recipe_is_skipped_in_a_folder_and_refused_by_name(tmp_path: Path) -> None:
    from codecite.errors import ConfigError
    from codecite.store.symbols import SymbolTable
    from codecite.validation.recipes import check_recipes

    folder = tmp_path / "recipes"
    folder.mkdir()
    (folder / "real.md").write_text("# Real\n\nRun `codecite build`.\n")
    os.mkfifo(folder / "pipe.md")
    table = SymbolTable.of_names([], [])
    assert [r.path for r in check_recipes(folder, table)] == ["recipes/real.md"]
    with pytest.raises(ConfigError, match=r"recipe '.*pipe.md' cannot be read"):
        check_recipes([folder / "pipe.md"], table)
