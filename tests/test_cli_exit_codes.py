"""Each error class's ``exit_code`` is what ``codecite`` exits with when a command stops on it.

For every class a real command is made to fail the way users meet it; the
command must raise exactly that class, print one line naming the command, and
end with the class's ``exit_code``, both through ``main()`` and as a process.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import codecite
from codecite import errors
from codecite.cli import app, shared
from codecite.errors import CodeciteError
from codecite.store.lock import build_lock

Scenario = Callable[[Path, pytest.MonkeyPatch], list[str]]


def _bad_key(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    cache = repo.parent / "cache"
    (cache / "codecite").mkdir(parents=True)
    (cache / "codecite" / "index-key").write_text("not hex\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return ["build", str(repo)]


def _bad_setting(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    (repo / "codecite.toml").write_text('rootz = ["x"]\n')
    return ["build", str(repo)]


def _foreign_folder(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    foreign = repo.parent / "foreign"
    foreign.mkdir()
    (foreign / "manifest.json").write_text('{"hello": 1}')
    return ["build", str(repo), "--index-dir", str(foreign)]


def _no_index(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return ["query", "load a survey", "-C", str(repo)]


def _zeroed_file(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    codecite.build(repo)
    path = repo / ".codecite" / "bm25" / "data.csc.index.npy"
    path.write_bytes(b"\x00" * path.stat().st_size)
    return ["query", "load a survey", "-C", str(repo)]


def _foreign_manifest(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    _foreign_folder(repo, monkeypatch)
    return ["stats", "-C", str(repo), "--index-dir", str(repo.parent / "foreign")]


def _other_users_index(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    codecite.build(repo)
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo.parent / "other-user-cache"))
    return ["query", "load a survey", "-C", str(repo)]


def _empty_query(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    codecite.build(repo)
    return ["query", "  ", "-C", str(repo)]


def _embedding_without_key(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return ["build", str(repo), "--embed", "--embed-backend", "openai"]


def _malformed_suite(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    codecite.build(repo)
    suite = repo.parent / "suite.jsonl"
    suite.write_text("not json\n")
    return ["eval", str(suite), "-C", str(repo)]


def _unknown_symbol(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    codecite.build(repo)
    return ["feedback", "up", "geokit.nope", "-C", str(repo)]


SCENARIOS: dict[type[CodeciteError], Scenario] = {
    errors.CodeciteError: _bad_key,
    errors.ConfigError: _bad_setting,
    errors.ForeignPathError: _foreign_folder,
    errors.IndexNotFoundError: _no_index,
    errors.IndexIntegrityError: _zeroed_file,
    errors.ManifestError: _foreign_manifest,
    errors.UntrustedIndexError: _other_users_index,
    errors.QueryError: _empty_query,
    errors.EmbeddingError: _embedding_without_key,
    errors.SuiteError: _malformed_suite,
    errors.UsageError: _unknown_symbol,
}
# Raised by the Python API only: the CLI never loads strictly, and a model mismatch
# needs stored vectors (tests/dense covers it with fake backends). IndexLockedError
# has its own test below (the lock is held while the command runs).
NOT_FROM_A_PLAIN_COMMAND = {
    errors.StaleIndexError,
    errors.EmbeddingModelMismatchError,
    errors.IndexLockedError,
}


def _all_error_classes() -> list[type[CodeciteError]]:
    """The hierarchy of ``codecite.errors`` (private subclasses elsewhere never leave
    their module)."""
    found, todo = [], [CodeciteError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(sub for sub in cls.__subclasses__() if sub.__module__ == errors.__name__)
    return found


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[BaseException]:
    """Record what the command ``name`` raises (and re-raise it)."""
    raised: list[BaseException] = []
    command = app.COMMANDS[name]

    def run(args):  # type: ignore[no-untyped-def]
        try:
            return command.run(args)
        except BaseException as exc:
            raised.append(exc)
            raise

    monkeypatch.setitem(app.COMMANDS, name, dataclasses.replace(command, run=run))
    return raised


def _as_process(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codecite", *argv], capture_output=True, text=True, timeout=120
    )


def _assert_one_line_and_code(
    argv: list[str], cls: type[CodeciteError], monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    raised = _spy(monkeypatch, argv[0])
    code = app.main(argv)
    err = capsys.readouterr().err
    assert [type(exc) for exc in raised] == [cls], raised
    assert code == cls.exit_code
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"codecite {argv[0]}: ")
    process = _as_process(argv)
    assert process.returncode == cls.exit_code, process.stderr
    assert process.stderr.startswith(f"codecite {argv[0]}: ") and "Traceback" not in process.stderr


def test_every_error_class_has_a_scenario_or_a_reason() -> None:
    assert set(_all_error_classes()) == set(SCENARIOS) | NOT_FROM_A_PLAIN_COMMAND


@pytest.mark.parametrize("cls", list(SCENARIOS), ids=lambda cls: cls.__name__)
def test_a_failing_command_exits_with_its_errors_code(
    cls: type[CodeciteError], sample_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    argv = SCENARIOS[cls](sample_repo, monkeypatch)
    _assert_one_line_and_code(argv, cls, monkeypatch, capsys)


def test_a_locked_index_exits_with_its_errors_code(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    codecite.build(sample_repo)
    with build_lock(sample_repo / ".codecite"):
        _assert_one_line_and_code(
            ["build", str(sample_repo), "--full"], errors.IndexLockedError, monkeypatch, capsys
        )


@pytest.mark.parametrize("cls", _all_error_classes(), ids=lambda cls: cls.__name__)
def test_any_error_a_command_raises_ends_it_with_that_code(
    cls: type[CodeciteError], monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    def fail(args):  # type: ignore[no-untyped-def]
        raise cls("what went wrong; the fix")

    monkeypatch.setitem(app.COMMANDS, "stats", dataclasses.replace(app.COMMANDS["stats"], run=fail))
    assert app.main(["stats"]) == cls.exit_code
    assert capsys.readouterr().err == "codecite stats: what went wrong; the fix\n"


def test_the_codes_are_two_for_user_mistakes_and_one_for_failures() -> None:
    mistakes = {
        errors.ConfigError,
        errors.ForeignPathError,
        errors.IndexNotFoundError,
        errors.QueryError,
        errors.SuiteError,
        errors.UsageError,
    }
    for cls in _all_error_classes():
        assert cls.exit_code == (shared.EXIT_USAGE if cls in mistakes else shared.EXIT_FAIL), cls
    assert (shared.EXIT_OK, shared.EXIT_FAIL, shared.EXIT_USAGE) == (0, 1, 2)


def test_commands_are_listed_in_help_order() -> None:
    assert list(app.COMMANDS) == [
        *("build", "stats", "query", "feedback", "ask", "chat"),
        *("eval", "report", "validate", "check-recipes", "mcp"),
    ]
