"""No traceback for a user mistake.

An output path that cannot be written (``eval --json``, ``eval --plot``,
``report --out``), a repository folder that cannot be written, an index of
another user: each gets one line naming the path and the fix, exit 2 when the
path itself is the mistake (a missing folder, a folder where a file must be, a
file where a folder must be) or 1 for the environment (no permission). Output
paths are checked before the evaluation runs, and the check leaves nothing
behind. The index folder follows the user's umask like any output folder, so
another user can query an index they may read.

As root, permission bits do not stop anything, so the permission cases run in
a child that drops to uid 65534 (``nobody``); they are skipped when the tests
do not run as root (then there is no second user to be).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from reliability_support import as_nobody, cli_inproc, copy_sample, nobody_folder

import codecite

SUITE = (
    '{"query": "load a survey", "expected_symbols": ["geokit.io.load_survey"], '
    '"kind": "identifier"}\n'
)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.jsonl"
    path.write_text(SUITE, encoding="utf-8")
    return path


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("a regular file\n", encoding="utf-8")
    return path


def _one_line(code: int, out: str, err: str, expected_code: int, command: str) -> str:
    assert code == expected_code, err
    assert out == "" and "Traceback" not in err
    assert err.startswith(f"codecite {command}: ") and err.count("\n") == 1, err
    return err[len(f"codecite {command}: ") : -1]


# -- output paths that cannot be files: the user's mistake, exit 2, before any work --------


@pytest.mark.parametrize("flag", ["--json", "--plot"])
def test_eval_output_in_a_missing_folder(built_sample: Path, suite: Path, flag: str) -> None:
    code, out, err = cli_inproc(
        "eval", str(suite), "-C", str(built_sample), flag, "/nonexistent-dir/x.out"
    )
    assert _one_line(code, out, err, 2, "eval") == (
        f"{flag} file '/nonexistent-dir/x.out' cannot be made: its folder '/nonexistent-dir' "
        "does not exist; create that folder or give another path"
    )


@pytest.mark.parametrize("flag", ["--json", "--plot"])
def test_eval_output_that_is_a_folder(
    built_sample: Path, suite: Path, tmp_path: Path, flag: str
) -> None:
    code, out, err = cli_inproc("eval", str(suite), "-C", str(built_sample), flag, str(tmp_path))
    assert _one_line(code, out, err, 2, "eval") == (
        f"{flag} file '{tmp_path}' is a folder; give a file name"
    )


@pytest.mark.parametrize("flag", ["--json", "--plot"])
def test_eval_output_under_a_file(built_sample: Path, suite: Path, a_file: Path, flag: str) -> None:
    code, out, err = cli_inproc(
        "eval", str(suite), "-C", str(built_sample), flag, str(a_file / "x.out")
    )
    assert _one_line(code, out, err, 2, "eval") == (
        f"{flag} file '{a_file / 'x.out'}' runs through a file as if it were a folder; "
        "give another path"
    )


@pytest.mark.parametrize("where", ["missing folder", "folder", "under a file"])
def test_report_out_that_cannot_be_written(
    built_sample: Path, tmp_path: Path, a_file: Path, where: str
) -> None:
    target = {
        "missing folder": tmp_path / "nope" / "r.md",
        "folder": tmp_path,
        "under a file": a_file / "r.md",
    }[where]
    code, out, err = cli_inproc("report", "-C", str(built_sample), "--out", str(target))
    message = _one_line(code, out, err, 2, "report")
    assert message.startswith(f"--out file '{target}' ") and "give " in message


def test_the_check_leaves_nothing_behind(built_sample: Path, tmp_path: Path) -> None:
    """A new output path is created and removed by the check; an existing file is not
    truncated when the evaluation then fails."""
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    old.write_text("previous report\n", encoding="utf-8")
    bad_suite = tmp_path / "bad.jsonl"
    bad_suite.write_text("{not json\n", encoding="utf-8")
    for target in (new, old):
        code, _, err = cli_inproc(
            "eval", str(bad_suite), "-C", str(built_sample), "--json", str(target)
        )
        assert code == 2 and "bad.jsonl" in err and "Traceback" not in err
    assert not new.exists() and old.read_text(encoding="utf-8") == "previous report\n"


def test_good_outputs_are_still_written(built_sample: Path, suite: Path, tmp_path: Path) -> None:
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    code, _, err = cli_inproc("eval", str(suite), "-C", str(built_sample), "--json", str(out))
    assert code == 0 and err == "" and out.read_text(encoding="utf-8").startswith("{")
    code, printed, err = cli_inproc("report", "-C", str(built_sample), "--out", str(md))
    assert code == 0 and printed == f"wrote {md}\n" and md.stat().st_size > 0


def test_index_dir_under_a_file(sample_repo: Path, a_file: Path) -> None:
    code, out, err = cli_inproc("build", str(sample_repo), "--index-dir", str(a_file / "idx"))
    assert _one_line(code, out, err, 2, "build") == (
        f"'{a_file}' is a file where a folder is needed; give another path"
    )


# -- the index folder follows the umask ------------------------------------------------------


@pytest.fixture
def set_umask() -> Iterator[Callable[[int], None]]:
    """Set the process umask for one test (``set_umask(0o027)``); restored after."""
    previous = os.umask(0o022)

    def set_to(mask: int) -> None:
        os.umask(mask)

    try:
        yield set_to
    finally:
        os.umask(previous)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002, 0o077])
def test_index_folder_follows_the_umask(
    sample_repo: Path, set_umask: Callable[[int], None], mask: int
) -> None:
    set_umask(mask)
    codecite.build(sample_repo)
    index = sample_repo / ".codecite"
    modes = {
        p.relative_to(sample_repo).as_posix(): stat.S_IMODE(p.stat().st_mode)
        for p in [index, *index.rglob("*")]
    }
    expected = {rel: (0o777 if (sample_repo / rel).is_dir() else 0o666) & ~mask for rel in modes}
    assert modes == expected


# -- permissions: as another user (root drops to nobody) -------------------------------------


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user can enter (tmp_path is root's own, mode 0700), removed after."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs root to run as 'nobody' (as a user there is no second user to be)")
    base = nobody_folder()
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def roots_repo(shared: Path, set_umask: Callable[[int], None]) -> Path:
    """The fixture repository built by root with umask 022, trusted from elsewhere (the
    keyed digest is per user: another user's index is refused unless trusted)."""
    set_umask(0o022)
    root = copy_sample(shared / "repo")
    (root / "codecite.toml").write_text("trust_index_from_elsewhere = true\n")
    for path in [root, *root.rglob("*")]:  # the sources: copytree kept the checkout's modes
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    codecite.build(root)  # the index: modes from the umask alone
    return root


def test_another_user_can_query_a_readable_index(roots_repo: Path, shared: Path) -> None:
    code, out, err = as_nobody(shared, "query", "load a survey", "-C", str(roots_repo))
    assert code == 0 and "geokit/io.py" in out and "Traceback" not in err, err


def test_another_users_private_index_is_one_line(roots_repo: Path, shared: Path) -> None:
    (roots_repo / ".codecite").chmod(0o700)
    code, out, err = as_nobody(shared, "query", "load a survey", "-C", str(roots_repo))
    message = _one_line(code, out, err, 1, "query")
    assert message.startswith(f"no permission to use '{roots_repo / '.codecite'}")
    assert message.endswith(
        f"make '{roots_repo / '.codecite'}' readable for you, or build an "
        "index of your own with `codecite build --index-dir DIR`"
    )


def test_build_in_a_folder_that_cannot_be_written(roots_repo: Path, shared: Path) -> None:
    (roots_repo / "geokit" / "phase.py").write_text('def changed():\n    """New."""\n')
    code, out, err = as_nobody(shared, "build", str(roots_repo))
    message = _one_line(code, out, err, 1, "build")
    assert message.startswith(f"no permission to use '{roots_repo}")
    assert message.endswith(
        f"make '{roots_repo}' writable for you, or build the index elsewhere with --index-dir DIR"
    )


@pytest.mark.parametrize("flag", ["--json", "--plot", "--out"])
def test_output_in_a_folder_that_cannot_be_written(
    roots_repo: Path, shared: Path, flag: str
) -> None:
    (shared / "suite.jsonl").write_text(SUITE, encoding="utf-8")
    command = "report" if flag == "--out" else "eval"
    args = ["-C", str(roots_repo), flag, str(roots_repo / "out.file")]
    code, out, err = as_nobody(
        shared, command, *([str(shared / "suite.jsonl")] * (command == "eval")), *args
    )
    assert _one_line(code, out, err, 1, command) == (
        f"no permission to use {flag} file '{roots_repo / 'out.file'}'; make '{roots_repo}' "
        f"writable for you, or give {flag} a path in a folder you can write"
    )
