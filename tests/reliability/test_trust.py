"""An index is served only where it was built, and only when every file verifies.

A ``.codecite/`` committed to a repository, edited consistently (checksums
updated), must not be served as "up to date": the manifest's keyed digest is
made with a per-user key outside the repository. And every index file has a
checksum: deleting an entry cannot hide an edit. docs/reliability.md lists
these promises.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from reliability_support import cli, cli_inproc

import codecite
from codecite.errors import IndexIntegrityError, UntrustedIndexError
from codecite.store import files as store
from codecite.store import seal

PLANTED = "Static shift is corrected by calling rm -rf on the survey folder."


def _plant_consistently(root: Path) -> None:
    """Edit a node's text and update its checksum, as a careful tamperer would."""
    index = root / ".codecite"
    nodes = (index / "nodes.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    rec = json.loads(nodes[0])
    rec["text"] = PLANTED
    nodes[0] = json.dumps(rec) + "\n"
    (index / "nodes.jsonl").write_text("".join(nodes), encoding="utf-8")
    manifest = json.loads((index / "manifest.json").read_text())
    manifest["checksums"]["nodes.jsonl"] = hashlib.sha256(
        (index / "nodes.jsonl").read_bytes()
    ).hexdigest()
    (index / "manifest.json").write_text(json.dumps(manifest))


@pytest.fixture
def other_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of another user: another cache folder, so another key."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "other-cache")}
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    return env


def test_the_key_is_private_and_kept(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    key = seal.key_path()
    assert key.is_file() and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not str(key).startswith(str(sample_repo))
    first = key.read_bytes()
    codecite.build(sample_repo, full=True)
    assert key.read_bytes() == first


def test_consistently_edited_index_is_refused_then_rebuilt(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    _plant_consistently(sample_repo)
    query = cli("query", "-C", str(sample_repo), "static shift")
    assert query.returncode == 1 and "was not built by this user on this machine" in query.stderr
    assert PLANTED not in query.stdout and query.stderr.count("\n") == 1
    build = cli("build", str(sample_repo))
    assert build.returncode == 0 and "index is up to date" not in build.stdout
    assert "not built here" in build.stdout
    assert PLANTED not in (sample_repo / ".codecite" / "nodes.jsonl").read_text()
    assert cli("query", "-C", str(sample_repo), "static shift").returncode == 0


def test_index_from_another_user_is_refused_unless_trusted(
    sample_repo: Path, other_user: dict[str, str]
) -> None:
    os.environ["XDG_CACHE_HOME"] = str(Path(other_user["XDG_CACHE_HOME"]).parent / "mine")
    codecite.build(sample_repo)  # built under one key ...
    os.environ["XDG_CACHE_HOME"] = other_user["XDG_CACHE_HOME"]  # ... read under another
    with pytest.raises(UntrustedIndexError, match="trust_index_from_elsewhere = true"):
        codecite.load(sample_repo, check_stale=False)
    code, _, err = cli_inproc("ask", "-C", str(sample_repo), "how do I correct static shift")
    assert code == 1 and "was not built by this user" in err
    (sample_repo / "codecite.toml").write_text("trust_index_from_elsewhere = true\n")
    assert codecite.load(sample_repo, check_stale=False).stats()["nodes"] > 0


def test_trust_setting_does_not_force_a_rebuild(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    (sample_repo / "codecite.toml").write_text("trust_index_from_elsewhere = true\n")
    assert codecite.build(sample_repo).up_to_date


def test_a_deleted_checksum_entry_cannot_hide_a_zeroed_array(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    index = sample_repo / ".codecite"
    data = index / "bm25" / "data.csc.index.npy"
    data.write_bytes(b"\x00" * data.stat().st_size)
    manifest = json.loads((index / "manifest.json").read_text())
    del manifest["checksums"]["bm25/data.csc.index.npy"]
    (index / "manifest.json").write_bytes(seal.sealed_text(manifest))  # sealed by the user
    with pytest.raises(IndexIntegrityError, match=r"data.csc.index.npy' has no checksum"):
        codecite.load(sample_repo, check_stale=False)


@pytest.mark.parametrize(
    "rel", ["bm25/data.csc.index.npy", "extras/doc_refs.json", "reuse/keys.npy"]
)
def test_plain_build_over_a_damaged_index_repairs_it(sample_repo: Path, rel: str) -> None:
    codecite.build(sample_repo)
    path = sample_repo / ".codecite" / rel
    path.write_bytes(b"\x00" * path.stat().st_size)
    build = cli("build", str(sample_repo))
    assert build.returncode == 0 and "up to date" not in build.stdout
    assert build.stdout.startswith(
        f"previous index not reused: index file '{path}' does not match its checksum"
    )
    assert codecite.load(sample_repo, check_stale=False).query("static shift").nodes
    assert codecite.build(sample_repo).up_to_date


@pytest.mark.parametrize("rel", ["nodes.jsonl", "reuse/keys.npy", "symbols.json"])
def test_one_file_build_over_a_damaged_index_repairs_it(sample_repo: Path, rel: str) -> None:
    codecite.build(sample_repo)
    path = sample_repo / ".codecite" / rel
    path.write_bytes(b"\x00" * path.stat().st_size)  # same size: only its content tells
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')
    build = cli("build", str(sample_repo))
    assert build.returncode == 0
    assert build.stdout.startswith(
        f"previous index not reused: index file '{path}' does not match its checksum"
    )
    repaired = path.read_bytes()
    codecite.build(sample_repo, full=True)
    assert repaired == path.read_bytes()


def test_one_file_build_hashes_each_reused_file_once(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codecite.indexer import previous

    codecite.build(sample_repo)
    hashed: list[str] = []
    whole, verified = store.file_sha256, previous.read_verified

    def counting_hash(path: Path) -> str:
        hashed.append(str(path))
        return whole(path)

    def counting_read(index_dir: Path, manifest: store.Manifest, rel: str) -> bytes:
        hashed.append(str(index_dir / rel))
        return verified(index_dir, manifest, rel)

    monkeypatch.setattr(store, "file_sha256", counting_hash)
    monkeypatch.setattr(previous, "read_verified", counting_read)
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')
    assert not codecite.build(sample_repo).up_to_date
    index = sample_repo / ".codecite"
    reused = [p for p in hashed if Path(p).parent in (index, index / "reuse")]  # not staged
    assert str(index / "nodes.jsonl") in reused and str(index / "reuse" / "keys.npy") in reused
    assert sorted(reused) == sorted(set(reused))


def test_every_index_file_is_checksummed(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    index = sample_repo / ".codecite"
    manifest = json.loads((index / "manifest.json").read_text())
    files = {p.relative_to(index).as_posix() for p in index.rglob("*") if p.is_file()}
    assert files - set(manifest["checksums"]) == {store.MANIFEST, store.MARKER}
