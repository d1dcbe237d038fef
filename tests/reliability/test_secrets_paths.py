"""API keys never reach disk, output or logs; config paths stay in the repository.

Keys: a key planted in the environment (and an ``api_key`` attempted in the
settings file) must not appear in any file of the index, in the output of
build / stats / query / ask / report, in their logs, or in error messages.

Paths: no settings-file value may make codecite read or write outside the
repository root. An index folder given explicitly (``--index-dir``, the
``index_dir=`` argument) may lie outside; none may be the root or hold
indexed sources, and a build never replaces a folder that is not an index.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from reliability_support import cli, cli_inproc

import codecite
from codecite.errors import ConfigError, ForeignPathError

KEY = "sk-planted-3f9c2a7be1d04c58a6b1e2f3c4d5e6f7"
EMBEDDING_TABLE = (
    '[embedding]\nbackend = "openai"\nmodel = "text-embedding-3-small"\n'
    'api_base = "http://127.0.0.1:9/v1"\n'
)


def _files_holding(folder: Path, needle: str, skip: tuple[Path, ...] = ()) -> list[str]:
    hits = []
    for path in folder.rglob("*"):
        if (
            path.is_file()
            and not path.is_symlink()
            and path not in skip
            and needle.encode() in path.read_bytes()
        ):
            hits.append(str(path))
    return hits


def test_planted_key_is_never_written_or_shown(
    sample_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    shown = []
    for argv in (
        ["build", str(sample_repo), "--full"],
        ["stats"],
        ["stats", "--json"],
        ["query", "phase tensor", "--explain"],
        ["query", "phase", "--dense"],
        ["ask", "how do I correct static shift?", "--json"],
        ["report", "--out", str(tmp_path / "report.md")],
        ["report"],
    ):
        extra = [] if argv[0] == "build" else ["-C", str(sample_repo)]
        code, out, err = cli_inproc("-v", *argv, *extra)
        assert code == 0, (argv, err)
        shown += [out, err]
    index = codecite.load(sample_repo)
    shown += [
        repr(index.stats()),
        repr(index.manifest),
        str(index.ask("load a survey")),
        caplog.text,
    ]
    assert not [text for text in shown if KEY in text]
    assert not any(KEY[3:20] in text for text in shown)  # not even a fragment
    assert _files_holding(sample_repo, KEY) == []
    assert _files_holding(tmp_path, KEY) == []


def test_planted_key_in_real_processes(sample_repo: Path, tmp_path: Path) -> None:
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    outputs = []
    for argv in (
        ["build"],
        ["stats"],
        ["query", "phase", "--dense"],
        ["ask", "static shift"],
        ["report"],
    ):
        run = cli("-v", *argv, cwd=sample_repo, env=env)
        assert run.returncode == 0, run.stderr
        outputs += [run.stdout, run.stderr]
    assert not [o for o in outputs if KEY in o]
    assert _files_holding(tmp_path, KEY) == []


def test_planted_key_not_in_embedding_errors(sample_repo: Path, tmp_path: Path) -> None:
    """An embedding backend that cannot be reached fails without showing the key."""
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    (sample_repo / "codecite.toml").write_text(EMBEDDING_TABLE)
    run = cli("-v", "build", "--embed", cwd=sample_repo, env=env)
    assert run.returncode == 1 and run.stderr.count("\n") >= 1
    assert "Traceback" not in run.stderr and KEY not in run.stdout + run.stderr
    assert _files_holding(tmp_path, KEY) == []


def test_a_key_in_the_settings_file_is_refused_without_echoing_it(tmp_path: Path) -> None:
    (tmp_path / "codecite.toml").write_text(f'[embedding]\napi_key = "{KEY}"\n')
    with pytest.raises(ConfigError) as err:
        codecite.load_config(tmp_path)
    assert "key 'embedding.api_key' is not a known key" in str(err.value)
    assert KEY not in str(err.value)
    code, out, err_text = cli_inproc("build", str(tmp_path))
    assert code == 2 and KEY not in out + err_text


# -- paths from the settings file ---------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('roots = ["../../etc"]', "roots"),
        ('roots = ["/etc"]', "roots"),
        ('root_docs = ["/etc/passwd"]', "root_docs"),
        ('root_docs = ["../outside.md"]', "root_docs"),
        ('recipes = ["../recipes"]', "recipes"),
        ('registry_file = "../secret.json"', "registry_file"),
        ('registry_file = "/etc/shadow"', "registry_file"),
        ('index_dir = "../../tmp/x"', "index_dir"),
        ('index_dir = "/tmp/codecite-index"', "index_dir"),
        ('index_dir = "."', "index_dir"),
        ('index_dir = "docs/.."', "index_dir"),
        ('index_dir = "geokit"', "index_dir"),
        ('index_dir = "docs"', "index_dir"),
        ('index_dir = ""', "index_dir"),
        ('index_dir = ["a", "b"]', "index_dir"),
        ('[package_dirs]\ngeokit = "../geokit"', "package_dirs.geokit"),
        ('[priorities]\n"../x" = 2', "priorities"),
        ('roots = ["etc_link"]', "roots"),
    ],
)
def test_config_paths_outside_the_repository_are_refused(
    sample_repo: Path, toml: str, key: str
) -> None:
    (sample_repo / "etc_link").symlink_to("/etc")
    (sample_repo / "codecite.toml").write_text(toml + "\n")
    outside_before = sorted(p.name for p in sample_repo.parent.iterdir())
    with pytest.raises(ConfigError) as err:
        codecite.build(sample_repo)
    message = str(err.value)
    assert f"key '{key}'" in message and str(sample_repo / "codecite.toml") in message
    code, out, err_text = cli_inproc("build", str(sample_repo))
    assert code == 2 and out == "" and len(err_text.strip().splitlines()) == 1
    assert f"key '{key}'" in err_text
    assert sorted(p.name for p in sample_repo.parent.iterdir()) == outside_before
    assert not (sample_repo / ".codecite").exists()


def test_inside_paths_are_still_accepted(sample_repo: Path) -> None:
    (sample_repo / "codecite.toml").write_text(
        'index_dir = "build/idx"\nroots = ["geokit"]\nroot_docs = ["README.md"]\n'
    )
    report = codecite.build(sample_repo)
    assert report.index_dir == sample_repo / "build" / "idx" and report.nodes > 0


# -- the index folder given explicitly ---------------------------------------------------------


def test_explicit_index_dir_may_lie_outside(sample_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "idx"
    code, out, err = cli_inproc("build", str(sample_repo), "--index-dir", str(outside))
    assert code == 0, err
    assert (outside / "manifest.json").is_file() and not (sample_repo / ".codecite").exists()
    code, out, _ = cli_inproc("query", "phase", "-C", str(sample_repo), "--index-dir", str(outside))
    assert code == 0 and "geokit" in out


@pytest.mark.parametrize("given", [".", "..", "/", "geokit", "docs/.."])
def test_explicit_index_dir_never_replaces_the_repository(
    sample_repo: Path, given: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = sorted(str(p) for p in sample_repo.rglob("*"))
    with pytest.raises(ConfigError, match=r"^--index-dir names"):
        codecite.build(sample_repo, index_dir=given)  # relative to the root
    monkeypatch.chdir(sample_repo)  # the command line reads it from the current folder
    code, _, err = cli_inproc("build", str(sample_repo), "--index-dir", given)
    assert code == 2 and "--index-dir names" in err
    assert sorted(str(p) for p in sample_repo.rglob("*")) == before


def test_a_folder_that_is_not_an_index_is_never_replaced(sample_repo: Path, tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(
        ForeignPathError,
        match=r"refusing to build into .*precious'.* not a "
        "codecite index: it holds 'thesis.tex'",
    ):
        codecite.build(sample_repo, index_dir=str(precious))
    assert [p.name for p in precious.iterdir()] == ["thesis.tex"]
    code, _, err = cli_inproc("build", str(sample_repo), "--index-dir", str(precious))
    assert code == 2 and "refusing to build into" in err
    assert not list(tmp_path.glob("precious.*"))  # no staging folder or lock left behind
