"""Bad corpus input never breaks a build and never touches other files.

Each case plants one bad file in a copy of the fixture repository, builds, and
checks three things: the build completes; the file's fate (skipped with its
reason, or indexed with a warning) is in ``index.stats()`` and in the
``codecite stats`` text; every other file's node records are byte-for-byte
those of a build without the bad file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from reliability_support import (
    as_nobody,
    cli,
    cli_inproc,
    copy_sample,
    nobody_folder,
    records_by_file,
)

import codecite
from codecite.indexer import corpus, walk


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Node records per file of the untouched fixture repository."""
    root = copy_sample(tmp_path_factory.mktemp("baseline") / "repo")
    codecite.build(root)
    return records_by_file(root)


def _nested_classes(depth: int) -> str:
    body = "".join("    " * i + f"class C{i}:\n" for i in range(depth))
    return body + "    " * depth + "pass\n"


def _nested_ifs(depth: int) -> str:
    body = "".join("    " * i + f"if flag{i}:\n" for i in range(depth))
    return body + "    " * depth + "def deep_function():\n" + "    " * (depth + 1) + "pass\n"


@dataclass(frozen=True)
class Case:
    """One bad file: how to plant it, and the fate codecite must report."""

    rel: str
    plant: Callable[[Path], None]
    skipped: str | None = None  # the skip reason, or None when indexed
    warning: str | None = None  # a warning text, or None
    symbols: tuple[str, ...] = ()  # symbols that must still be indexed from it
    config: str = ""  # codecite.toml text, if the case needs one


def _write(rel: str, data: bytes | str) -> Callable[[Path], None]:
    def plant(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))

    return plant


def _link(rel: str, target: str | Callable[[Path], Path]) -> Callable[[Path], None]:
    def plant(root: Path) -> None:
        dest = target(root) if callable(target) else target
        os.symlink(dest, root / rel)

    return plant


def _outside(root: Path) -> Path:
    secret = root.parent / "outside_secret.md"
    secret.write_text("# Outside\n\nnot part of the repository\n")
    return secret


CASES = {
    "binary": Case(
        "geokit/logo.py",
        _write("geokit/logo.py", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))),
        skipped="binary (NUL bytes)",
    ),
    "nul_bytes": Case(
        "geokit/nul.py",
        _write("geokit/nul.py", b"def f():\n    pass\x00\n"),
        skipped="binary (NUL bytes)",
    ),
    "huge": Case(
        "docs/huge.md",
        _write("docs/huge.md", b"# Huge\n\n" + b"x" * (1 << 20)),
        skipped="larger than max_file_bytes",
    ),
    "not_utf8": Case(
        "docs/latin1.md",
        _write("docs/latin1.md", "# Café notes\n\nrésumé\n".encode("latin-1")),
        warning="docs/latin1.md: not valid UTF-8, decoded with replacement characters",
    ),
    "empty_py": Case(
        "geokit/empty.py",
        _write("geokit/empty.py", b""),
        warning="geokit/empty.py: empty file; nothing to index",
    ),
    "blank_md": Case(
        "docs/blank.md",
        _write("docs/blank.md", b"\n  \n\t\n"),
        warning="docs/blank.md: empty file; nothing to index",
    ),
    "syntax_error": Case(
        "geokit/bad_syntax.py",
        _write("geokit/bad_syntax.py", "def still_here():\n    '''Fine.'''\n\n\ndef broken(:\n"),
        warning="geokit/bad_syntax.py: syntax errors near line(s) 5; partially parsed",
        symbols=("geokit.bad_syntax.still_here",),
    ),
    "nested_classes": Case(
        "geokit/nested.py",
        _write("geokit/nested.py", _nested_classes(500)),
        warning="geokit/nested.py: classes nested deeper than 100 levels "
        "from line 101 were not indexed",
        symbols=("geokit.nested.C0", "geokit.nested.C0.C1.C2"),
    ),
    "nested_ifs": Case(
        "geokit/nested_ifs.py",
        _write("geokit/nested_ifs.py", _nested_ifs(500)),
        symbols=("geokit.nested_ifs.deep_function",),
    ),
    "deep_list": Case(
        "geokit/deep_list.py",
        _write("geokit/deep_list.py", "DEEP = " + "[" * 100_000 + "]" * 100_000 + "\n"),
        symbols=("geokit.deep_list.DEEP",),
    ),
    "long_line": Case(
        "geokit/long_line.py",
        _write("geokit/long_line.py", 'BLOB = "' + "a" * 5_000_000 + '"\n'),
        symbols=("geokit.long_line.BLOB",),
        config="max_file_bytes = 8000000\n",
    ),
    "link_inside": Case("docs/alias.md", _link("docs/alias.md", "usage.md")),
    "link_outside": Case(
        "docs/outside.md",
        _link("docs/outside.md", _outside),
        skipped="symlink outside the repository",
    ),
    "link_absolute_etc": Case(
        "docs/passwd.md",
        _link("docs/passwd.md", "/etc/passwd"),
        skipped="symlink outside the repository",
    ),
    "link_self_loop": Case(
        "docs/loop.md", _link("docs/loop.md", "loop.md"), skipped="symlink loop"
    ),
    "link_dir_cycle": Case("docs/cycle", _link("docs/cycle", "."), skipped="symlink loop"),
    # the package again under docs/: indexed twice, as ``docs.pkg_again.*`` API (nilearn)
    "link_dir_inside": Case(
        "docs/pkg_again",
        _link("docs/pkg_again", "../geokit"),
        skipped="symlink to a folder indexed at its own path",
    ),
    # fastapi's `.agents/` of Markdown pages was skipped, and stats did not say so
    "hidden_folder": Case(
        "geokit/.agents",
        _write("geokit/.agents/skill.md", "# Skill\n\nUse the router.\n"),
        skipped="hidden folder; add it to roots to index it",
    ),
    # scikit-learn's `sklearn/externals/` (array_api_compat and others): 23% of its code nodes
    "vendored_folder": Case(
        "geokit/_vendor",
        _write("geokit/_vendor/six.py", '"""Python 2 and 3 compatibility."""\n\nPY3 = True\n'),
        skipped="vendored third-party code; add it to roots to index it",
    ),
    "link_to_nothing": Case(
        "docs/gone.ipynb",
        _link("docs/gone.ipynb", "../notebooks/gone.ipynb"),
        skipped="symlink to nothing",
    ),
    "space_and_unicode": Case(
        "docs/notes été ü.md", _write("docs/notes été ü.md", "# Ünïcode title\n\nbody\n")
    ),
    "non_ascii_module": Case(
        "geokit/módulo.py",
        _write("geokit/módulo.py", "def función():\n    '''Sí.'''\n"),
        symbols=("geokit.módulo.función",),
    ),
    "undecodable_name": Case(
        "docs/bad\udcffname.md",
        _write("docs/bad\udcffname.md", "# Title\n\nbody\n"),
        skipped="file name is not valid UTF-8",
    ),
}


def _shown(rel: str) -> str:
    return corpus.printable_name(rel)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_file_is_reported_and_isolated(
    name: str, tmp_path: Path, baseline: dict[str, list[str]]
) -> None:
    case = CASES[name]
    root = copy_sample(tmp_path / "repo")
    case.plant(root)
    if case.config:
        (root / "codecite.toml").write_text(case.config)
    report = codecite.build(root)
    stats = codecite.load(root).stats()
    shown = _shown(case.rel) + ("/" if case.rel.endswith("cycle") else "")
    code, text, _ = cli_inproc("stats", "-C", str(root))
    assert code == 0
    if case.skipped:
        assert shown.rstrip("/") in [p.rstrip("/") for p in stats["skipped"][case.skipped]]
        assert report.skipped[case.skipped] == stats["skipped"][case.skipped]
        assert f"skipped ({case.skipped})" in text and shown.rstrip("/") in text
    if case.warning:
        assert case.warning in stats["warnings"] and f"warning: {case.warning}" in text
    else:
        assert not any(shown in w for w in stats["warnings"])
    records = records_by_file(root)
    if case.symbols:
        indexed = {s for r in records.get(case.rel, []) for s in [_symbol(r)]}
        assert set(case.symbols) <= indexed
    others = {p: r for p, r in records.items() if p != case.rel}
    assert others == baseline


def _symbol(record: str) -> str | None:
    import json

    return json.loads(record)["metadata"].get("symbol")


def test_inside_link_is_followed_with_the_link_path(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    CASES["link_inside"].plant(root)
    codecite.build(root)
    records = records_by_file(root)
    texts = {r.split('"text": ')[1] for r in records["docs/alias.md"]}
    assert texts == {r.split('"text": ')[1] for r in records["docs/usage.md"]}


def test_max_file_bytes_is_configurable(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    (root / "codecite.toml").write_text("max_file_bytes = 2000\n")
    (root / "docs" / "medium.md").write_text("# Medium\n\n" + "word " * 500)
    stats = (codecite.build(root), codecite.load(root).stats())[1]
    assert "docs/medium.md" in stats["skipped"]["larger than max_file_bytes"]


def test_unreadable_file_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root reads chmod-000 files, so the permission error is simulated here."""
    root = copy_sample(tmp_path / "repo")
    secret = root / "geokit" / "secret.py"
    secret.write_text("def hidden():\n    pass\n")
    real_read = walk.read_file

    def read_file(path: str) -> bytes:
        if path.endswith("secret.py"):
            raise PermissionError(13, "Permission denied", path)
        return real_read(path)

    monkeypatch.setattr(walk, "read_file", read_file)
    report = codecite.build(root)
    assert report.skipped["unreadable"] == ["geokit/secret.py"]
    assert "geokit/secret.py" not in records_by_file(root)


def test_a_file_made_unreadable_after_a_build_is_skipped_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`chmod 000` keeps a file's size and mtime: the next build said "up to date" and
    kept its nodes, where a full build skipped it. Root reads it anyway, so the
    permission is simulated, in both the access check and the read."""
    root = copy_sample(tmp_path / "repo")
    secret = root / "geokit" / "secret.py"
    secret.write_text('def hidden():\n    """Hidden."""\n')
    old = secret.stat().st_mtime - 3600  # an hour old: the build records size and mtime
    os.utime(secret, (old, old))
    codecite.build(root)
    assert "geokit/secret.py" in records_by_file(root)
    real_read, real_access = walk.read_file, os.access

    def read_file(path: str) -> bytes:
        if path.endswith("secret.py"):
            raise PermissionError(13, "Permission denied", path)
        return real_read(path)

    def access(path: str | os.PathLike[str], mode: int, **kwargs: object) -> bool:
        return False if str(path).endswith("secret.py") else real_access(path, mode, **kwargs)

    monkeypatch.setattr(walk, "read_file", read_file)
    monkeypatch.setattr(walk.os, "access", access)
    report = codecite.build(root)
    assert report.skipped["unreadable"] == ["geokit/secret.py"]
    assert "geokit/secret.py" not in records_by_file(root)


def test_unreadable_folder_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_sample(tmp_path / "repo")
    (root / "docs" / "private").mkdir()
    (root / "docs" / "private" / "notes.md").write_text("# Private\n")
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        if str(path).endswith("private"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(walk.os, "scandir", scandir)
    assert codecite.build(root).skipped["unreadable"] == ["docs/private"]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="needs root to drop to 'nobody'; as a user, chmod 000 works directly",
)
def test_unreadable_file_for_real_as_nobody() -> None:
    """A real permission error: the build runs as uid 65534 on a chmod-000 file."""
    base = nobody_folder()
    try:
        root = copy_sample(base / "repo")
        os.chmod(root, 0o777)
        (root / "geokit" / "secret.py").write_text("def hidden():\n    pass\n")
        os.chmod(root / "geokit" / "secret.py", 0o000)
        code, out, err = as_nobody(base, "build", str(root))
        assert code == 0, err
        assert "skipped (unreadable): geokit/secret.py" in out
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_all_bad_files_together_cli_text(tmp_path: Path) -> None:
    """Every bad file at once, through the real command line."""
    root = copy_sample(tmp_path / "repo")
    for name, case in CASES.items():
        if name not in ("long_line", "huge"):  # keep this one quick
            case.plant(root)
    build = cli("build", str(root))
    assert build.returncode == 0, build.stderr
    assert "Traceback" not in build.stderr
    stats = cli("stats", "-C", str(root))
    assert stats.returncode == 0, stats.stderr
    for reason in (
        "binary (NUL bytes)",
        "symlink outside the repository",
        "symlink loop",
        "symlink to nothing",
        "file name is not valid UTF-8",
    ):
        assert f"skipped ({reason})" in stats.stdout
    assert "    docs/bad\ufffdname.md" in stats.stdout
    assert "warning: geokit/bad_syntax.py: syntax errors near line(s) 5" in stats.stdout
    query = cli("query", "Ünïcode title", "-k", "1", "-C", str(root))
    assert query.returncode == 0 and "docs/notes été ü.md" in query.stdout


def test_a_hidden_folder_named_as_a_root_is_indexed_and_not_listed(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "repo")
    _write("geokit/.agents/skill.md", "# Skill\n\nUse the router.\n")(root)
    (root / "codecite.toml").write_text('roots = ["geokit", "docs", "geokit/.agents"]\n')
    report = codecite.build(root)
    assert "geokit/.agents/skill.md" in records_by_file(root)
    assert not any("geokit/.agents" in p for paths in report.skipped.values() for p in paths)


def test_a_docs_folder_named_like_vendored_code_is_indexed(tmp_path: Path) -> None:
    """astropy's `docs/changes/extern/` (changelog notes) was skipped as "vendored
    third-party code"; a docs folder vendors nothing."""
    root = copy_sample(tmp_path / "repo")
    _write("docs/changes/extern/1234.rst", "Fixes\n=====\n\nFixed the parser.\n")(root)
    report = codecite.build(root)
    assert "docs/changes/extern/1234.rst" in records_by_file(root)
    assert not any("extern" in p for paths in report.skipped.values() for p in paths)
