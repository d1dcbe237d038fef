"""The command line as a user runs it: real processes, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_facts import SAMPLE_FILES, SAMPLE_NODES

import codecite


def run(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codecite", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_build_stats_query_round_trip(sample_repo: Path) -> None:
    out = run(sample_repo, "build")
    assert out.returncode == 0, out.stderr
    assert f"{SAMPLE_NODES} nodes from {SAMPLE_FILES} files" in out.stdout
    assert "skipped (tests): geokit/conftest.py, geokit/tests/" in out.stdout
    assert "geokit/broken.py: syntax errors near line(s) 9; partially parsed" in out.stdout
    again = run(sample_repo, "build")
    assert again.returncode == 0 and again.stdout.startswith("index is up to date")
    stats = json.loads(run(sample_repo, "stats", "--json").stdout)
    assert stats["nodes"] == SAMPLE_NODES and stats["stale"] is False
    assert stats["by_kind"]["python_symbol"] == 14
    text = run(sample_repo, "stats").stdout
    assert "fresh" in text and "docs/conf.py" in text
    table = run(sample_repo, "query", "phase tensor skew", "-k", "3")
    assert table.returncode == 0
    first = table.stdout.splitlines()[1]
    assert "geokit.phase.skew" in first and "geokit/phase.py:17-19" in first


def test_stats_verify_reads_every_file_again(sample_repo: Path) -> None:
    """An edit that keeps a file's size and mtime is not seen by a plain walk (it trusts
    both, docs/architecture.md); ``stats --verify`` reads every file again and says stale."""
    import os

    target = sample_repo / "geokit" / "phase.py"
    old = target.stat().st_mtime_ns - 3600 * 10**9  # older than the walk's trust window
    os.utime(target, ns=(old, old))
    assert run(sample_repo, "build").returncode == 0
    before = target.stat()
    text = target.read_text()
    target.write_text(text.replace("phase", "PHASE", 1))  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size
    assert json.loads(run(sample_repo, "stats", "--json").stdout)["stale"] is False
    verified = json.loads(run(sample_repo, "stats", "--json", "--verify").stdout)
    assert verified["stale"] is True
    assert "STALE" in run(sample_repo, "stats", "--verify").stdout


def test_query_explain_and_json(sample_repo: Path) -> None:
    run(sample_repo, "build")
    explain = run(sample_repo, "query", "StaticShiftAgent", "--explain", "-k", "2").stdout
    assert "query tokens:    staticshiftagent static shift agent" in explain
    assert "x symbol 1.50" in explain
    data = json.loads(
        run(sample_repo, "query", "load survey", "--json", "--kind", "python_symbol").stdout
    )
    assert data["results"][0]["label"] == "geokit.io.load_survey"
    assert data["results"][0]["breakdown"]["bm25_q"] > 0
    assert {r["kind"] for r in data["results"]} == {"python_symbol"}


def test_user_mistakes_are_one_line_with_exit_2(sample_repo: Path) -> None:
    missing = run(sample_repo, "query", "shift")
    assert missing.returncode == 2 and "run `codecite build`" in missing.stderr
    assert "Traceback" not in missing.stderr
    (sample_repo / "codecite.toml").write_text('rootz = ["x"]\n')
    bad = run(sample_repo, "build")
    assert bad.returncode == 2 and "'rootz' is not a known key" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    (sample_repo / "codecite.toml").unlink()
    run(sample_repo, "build")
    empty = run(sample_repo, "query", "  ")
    assert empty.returncode == 2 and "empty" in empty.stderr
    assert run(sample_repo, "query", "x", "-k", "0").returncode == 2
    assert run(sample_repo).returncode == 2  # no command: help


def test_where_options_may_come_before_the_command(sample_repo: Path, tmp_path: Path) -> None:
    """``codecite -C PATH validate ...`` (git's order) failed with a raw "invalid choice"."""
    assert run(sample_repo, "build").returncode == 0
    code = tmp_path / "gen.py"
    code.write_text("from geokit.io import load_surveys\n")
    before = run(tmp_path, "-C", str(sample_repo), "validate", str(code))
    after = run(tmp_path, "validate", str(code), "-C", str(sample_repo))
    assert before.returncode == after.returncode == 1
    assert before.stdout == after.stdout and "load_surveys" in before.stdout
    stats = run(tmp_path, "-v", f"--repo={sample_repo}", "stats", "--json")
    assert json.loads(stats.stdout)["nodes"] == SAMPLE_NODES


def test_stale_query_warns_with_the_fix(sample_repo: Path) -> None:
    run(sample_repo, "build")
    (sample_repo / "geokit" / "phase.py").write_text('def other():\n    """Other."""\n')
    out = run(sample_repo, "query", "other")
    assert out.returncode == 0 and "run `codecite build`" in out.stderr


def test_an_index_dir_is_used_with_the_repository_it_was_built_from(
    sample_repo: Path, tmp_path: Path
) -> None:
    index = tmp_path / "idx" / "geokit"
    assert run(tmp_path, "build", str(sample_repo), "--index-dir", str(index)).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.md").write_text("# Notes\n\nNothing about geokit.\n")
    # run from another folder without -C: the recorded repository, said on stderr
    stats = run(elsewhere, "stats", "--json", "--index-dir", str(index))
    assert json.loads(stats.stdout)["stale"] is False
    assert f"using '{sample_repo.resolve()}'" in stats.stderr
    query = run(elsewhere, "query", "phase tensor skew", "-k", "1", "--index-dir", str(index))
    assert "geokit.phase.skew" in query.stdout and "other sources" not in query.stderr
    # a build without a PATH rebuilds that repository, never the current folder
    rebuilt = run(elsewhere, "build", "--index-dir", str(index))
    assert rebuilt.returncode == 0 and "index is up to date" in rebuilt.stdout
    # -C names another folder: stale, and the message names the recorded repository
    other = run(elsewhere, "stats", "-C", ".", "--index-dir", str(index))
    assert f"STALE: it was built from '{sample_repo.resolve()}'" in other.stdout
    assert "using" not in other.stderr


def test_load_with_only_an_index_dir_takes_its_repository(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``codecite.load(index_dir=...)`` from another folder, as the CLI: the index's own
    repository, not the current folder (which read as "built from other sources")."""
    assert run(tmp_path, "build", str(sample_repo), "--index-dir", "idx/geokit").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    index = codecite.load(index_dir="../idx/geokit")  # relative: from here, as a shell path
    assert Path(index.config.root) == sample_repo.resolve() and not index.is_stale()
    assert index.query("phase tensor skew", k=1).nodes[0].node.metadata["symbol"] == (
        "geokit.phase.skew"
    )
    here = codecite.load(".", index_dir=str(tmp_path / "idx" / "geokit"), check_stale=False)
    assert Path(here.config.root) == elsewhere.resolve() and here.is_stale()  # the path given


def test_a_relative_index_dir_is_read_from_the_current_folder(
    sample_repo: Path, tmp_path: Path
) -> None:
    """`build REPO --index-dir idx/geokit` then `stats --index-dir idx/geokit`, from one
    folder: one index, where the shell path says, not inside the repository."""
    assert run(tmp_path, "build", str(sample_repo), "--index-dir", "idx/geokit").returncode == 0
    assert (tmp_path / "idx" / "geokit" / "manifest.json").is_file()
    assert not (sample_repo / "idx").exists()
    stats = run(tmp_path, "stats", "--json", "--index-dir", "idx/geokit")
    assert stats.returncode == 0 and json.loads(stats.stdout)["stale"] is False


def test_the_index_folder_written_two_ways_is_one_index(sample_repo: Path, tmp_path: Path) -> None:
    """`.codecite` and the same folder as an absolute --index-dir: where the index is kept
    is not a setting of what it holds, so neither build re-parses the other's files."""
    assert run(sample_repo, "build").returncode == 0
    absolute = str(sample_repo.resolve() / ".codecite")
    again = run(tmp_path, "build", str(sample_repo), "--index-dir", absolute)
    assert again.returncode == 0 and again.stdout.startswith("index is up to date"), again.stdout
    query = run(tmp_path, "query", "skew", "-k", "1", "--index-dir", absolute)
    assert query.returncode == 0 and "other settings" not in query.stderr


def test_feedback_command(sample_repo: Path) -> None:
    run(sample_repo, "build")
    ok = run(sample_repo, "feedback", "down", "geokit.phase.skew", "--query", "skew")
    assert ok.returncode == 0 and "feedback factor now 0.80" in ok.stdout
    bad = run(sample_repo, "feedback", "up", "geokit.nothing")
    assert bad.returncode == 2 and "not in the index" in bad.stderr
    public = run(sample_repo, "feedback", "up", "geokit.StaticShiftAgent")  # a re-export
    agent = "geokit.agents.static_shift.StaticShiftAgent"
    assert public.returncode == 0, public.stderr
    assert f"recorded up for {agent} (geokit.StaticShiftAgent)" in public.stdout
    votes = json.loads((sample_repo / ".codecite" / "feedback.json").read_text())
    assert votes[agent]["up"] == 1 and "geokit.StaticShiftAgent" not in votes


def test_validate_and_check_recipes(sample_repo: Path) -> None:
    run(sample_repo, "build")
    code = "from geokit import static_shift\nfrom geokit.agents import StaticShiftAgent\n"
    out = run(sample_repo, "validate", "-", stdin=code)
    assert out.returncode == 1
    assert "-:1: error: 'geokit' has no attribute or submodule 'static_shift'" in out.stdout
    twice = "import geokit\ngeokit.load_surveys()\nx = 1\ngeokit.load_surveys()\n"
    repeated = run(sample_repo, "validate", "-", stdin=twice)  # one message, two lines
    assert repeated.stdout.count(": error: ") == 2 and "FAILED: 2 error(s)" in repeated.stdout
    good = run(sample_repo, "validate", "-", stdin="from geokit.agents import StaticShiftAgent\n")
    assert good.returncode == 0 and good.stdout.startswith("ok:")
    assert run(sample_repo, "validate", "missing.py").returncode == 2
    recipes = run(sample_repo, "check-recipes")
    assert recipes.returncode == 0 and "recipes/static_shift.md: ok" in recipes.stdout
    (sample_repo / "recipes" / "bad.md").write_text("# Bad\n\nUse `geokit.agents.Nope`.\n")
    bad = run(sample_repo, "check-recipes")
    assert bad.returncode == 1 and "bad.md:3: `geokit.agents.Nope` does not exist" in bad.stdout


def _on_a_terminal(cwd: Path, *args: str) -> tuple[int, str, str]:
    """Run codecite with stderr on an 80-column pseudo-terminal: (code, stdout, stderr)."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    with subprocess.Popen(
        [sys.executable, "-m", "codecite", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=slave
    ) as process:
        os.close(slave)
        out, _ = process.communicate(timeout=120)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    return process.returncode, out.decode(), err.decode()


def test_build_progress_is_drawn_only_on_a_terminal(sample_repo: Path) -> None:
    piped = run(sample_repo, "build")
    assert piped.returncode == 0 and piped.stderr == ""
    code, out, err = _on_a_terminal(sample_repo, "build", "--full")
    assert code == 0 and out.startswith("built ")
    assert "parsing: 100%" in err and f"{SAMPLE_FILES}/{SAMPLE_FILES}" in err
    assert _on_a_terminal(sample_repo, "stats")[2] == ""  # only a build shows progress


def test_from_a_subfolder_the_nearest_indexed_folder_above_is_used(
    sample_repo: Path, tmp_path: Path
) -> None:
    """``cd doc && codecite query X`` said "no index at doc/.codecite; run codecite build in
    doc", which would index the docs alone. As git does: the nearest folder above."""
    assert run(sample_repo, "build").returncode == 0
    below = sample_repo / "geokit"
    query = run(below, "query", "phase tensor skew", "-k", "1")
    assert query.returncode == 0 and "geokit.phase.skew" in query.stdout
    assert f"using '{sample_repo.resolve()}', the nearest folder above" in query.stderr
    alone = tmp_path / "alone" / "sub"  # nothing indexed above: the current folder, as before
    alone.mkdir(parents=True)
    missing = run(alone, "query", "anything")
    assert missing.returncode != 0 and "no index at" in missing.stderr


def test_a_misspelt_option_names_the_close_one(sample_repo: Path) -> None:
    out = run(sample_repo, "query", "--kindd", "doc_section", "phase")
    assert out.returncode == 2
    assert "unrecognized arguments: --kindd" in out.stderr
    assert "(did you mean --kind?)" in out.stderr and "usage: codecite query" in out.stderr


def test_validate_says_when_nothing_it_checked_is_in_the_index(
    sample_repo: Path, tmp_path: Path
) -> None:
    assert run(sample_repo, "build").returncode == 0
    script = tmp_path / "other.py"
    script.write_text("import json\nimport pywt\npywt.dwt_1d([1, 2], 'haar')\n")
    out = run(sample_repo, "validate", str(script))
    assert out.returncode == 0 and "0 name(s) verified" in out.stdout
    assert "note: nothing was checked: this index holds " in out.stdout
    assert "geokit" in out.stdout and "; pywt is not in it" in out.stdout
    script.write_text("import geokit\ngeokit.load_survey\n")
    assert "note:" not in run(sample_repo, "validate", str(script)).stdout


def test_serve_is_another_name_for_mcp(tmp_path: Path) -> None:
    """Both testers typed ``codecite serve`` for the MCP server (other tools' word)."""
    out = run(tmp_path, "serve", "--help")
    assert out.returncode == 0 and "Model Context Protocol" in out.stdout
