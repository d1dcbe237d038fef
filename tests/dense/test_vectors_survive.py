"""Vectors survive later builds: never dropped silently, never replaced by a failed --embed.

The ``local`` backend is faked in process (``fake_local``: the bundled model's
``_encode`` replaced by a hashed bag of words that counts what it embeds), so
"backend available" and "backend unavailable" are one switch; the ``openai``
backend is the real client against the fake server on loopback (``fake_openai``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from dense_fakes import API_KEY, LOCAL_DIM, FakeLocal, FakeServer

import codecite
from codecite.cli.app import EXIT_FAIL, EXIT_OK, main
from codecite.dense.texts import active
from codecite.dense.vectors import VECTOR_IDS, VECTORS

DIM = LOCAL_DIM
EDIT = ("a measure of three-dimensionality", "a zanzibar measure of three-dimensionality")


def _manifest(repo: Path) -> dict:
    return json.loads((repo / ".codecite" / "manifest.json").read_text())


def _vectors(repo: Path) -> dict[str, bytes]:
    """node id -> the bytes of its stored row."""
    matrix = np.load(repo / ".codecite" / VECTORS, allow_pickle=False)
    ids = json.loads((repo / ".codecite" / VECTOR_IDS).read_text())
    return {node_id: matrix[row].tobytes() for row, node_id in enumerate(ids)}


def _texts(repo: Path) -> dict[str, str]:
    """node id -> the text its vector is made of."""
    lines = (repo / ".codecite" / "nodes.jsonl").read_text().splitlines()
    return {rec["id"]: active(rec) for rec in map(json.loads, lines)}


def _index_bytes(repo: Path) -> dict[str, bytes]:
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted((repo / ".codecite").rglob("*"))
        if p.is_file()
    }


def _edit(repo: Path) -> None:
    phase = repo / "geokit" / "phase.py"
    phase.write_text(phase.read_text().replace(*EDIT), encoding="utf-8")


def _build(*args: str) -> int:
    return main(["build", *args])


@pytest.fixture
def embedded(sample_repo: Path, fake_local: FakeLocal) -> Path:
    """The sample repository built with ``codecite build --embed --embed-backend local``."""
    assert _build(str(sample_repo), "--embed", "--embed-backend", "local") == EXIT_OK
    assert len(fake_local.embedded) == _manifest(sample_repo)["node_count"]
    fake_local.embedded.clear()
    return sample_repo


# -- a plain build keeps the vectors ------------------------------------------------------


def test_plain_build_with_nothing_changed_keeps_the_vectors(embedded: Path, fake_local: FakeLocal):
    before = _index_bytes(embedded)
    assert _build(str(embedded)) == EXIT_OK
    assert _index_bytes(embedded) == before
    assert fake_local.embedded == []


def test_plain_build_after_an_edit_embeds_only_the_changed_nodes(
    embedded: Path, fake_local: FakeLocal
):
    before, texts_before = _vectors(embedded), _texts(embedded)
    _edit(embedded)
    assert _build(str(embedded)) == EXIT_OK
    info = _manifest(embedded)["embedding"]
    assert info is not None and info["backend"] == "local"
    assert info["count"] == _manifest(embedded)["node_count"] and "stale" not in info
    assert fake_local.embedded and all("zanzibar" in t for t in fake_local.embedded)
    after, texts_after = _vectors(embedded), _texts(embedded)
    changed = {i for i, t in texts_after.items() if texts_before.get(i) != t}
    assert len(fake_local.embedded) == len(changed) >= 1
    for node_id in set(after) - changed:  # every other row bit-identical
        assert after[node_id] == before[node_id]
    assert all(after[i] != before.get(i) for i in changed)


def test_a_node_whose_id_is_stable_but_text_changed_is_re_embedded(
    embedded: Path, fake_local: FakeLocal
):
    texts_before = _texts(embedded)
    _edit(embedded)  # same lines: the skew node keeps its id
    assert _build(str(embedded)) == EXIT_OK
    texts_after = _texts(embedded)
    same_id = [i for i in texts_after if i in texts_before and texts_after[i] != texts_before[i]]
    assert same_id, "the edit should keep the node id and change the text"
    assert {texts_after[i] for i in same_id} <= set(fake_local.embedded)


def test_moved_but_unchanged_nodes_keep_their_vectors(embedded: Path, fake_local: FakeLocal):
    """Node ids hash the line span: a line inserted above moves ids, not texts."""
    before, texts_before = _vectors(embedded), _texts(embedded)
    by_text = {texts_before[i]: v for i, v in before.items()}
    phase = embedded / "geokit" / "phase.py"
    phase.write_text("\n\n" + phase.read_text(), encoding="utf-8")
    assert _build(str(embedded)) == EXIT_OK
    after, texts_after = _vectors(embedded), _texts(embedded)
    moved = [i for i in texts_after if i not in texts_before and texts_after[i] in by_text]
    assert moved, "inserting lines should move some node ids"
    assert all(after[i] == by_text[texts_after[i]] for i in moved)
    assert not set(fake_local.embedded) & {texts_after[i] for i in moved}


def test_full_rebuild_and_config_change_keep_the_vectors(embedded: Path, fake_local: FakeLocal):
    """Documented choice: ``--full`` re-parses every file but reuses the vector of every
    node whose text is unchanged; only new text is embedded (none here)."""
    before = _vectors(embedded)
    assert _build(str(embedded), "--full") == EXIT_OK
    assert _vectors(embedded) == before and fake_local.embedded == []
    (embedded / "codecite.toml").write_text("[retrieval]\nk1 = 1.3\n", encoding="utf-8")
    assert _build(str(embedded)) == EXIT_OK  # the config digest forces a full re-parse
    assert _vectors(embedded) == before and fake_local.embedded == []
    assert _manifest(embedded)["embedding"]["count"] == len(before)


# -- backend unavailable: kept, reported stale ----------------------------------------------


@pytest.fixture
def stale(
    embedded: Path, fake_local: FakeLocal, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    """The embedded repository, edited and rebuilt while the backend is unavailable."""
    before, texts_before = _vectors(embedded), _texts(embedded)
    fake_local.available = False
    _edit(embedded)
    capsys.readouterr()
    assert _build(str(embedded)) == EXIT_OK
    out = capsys.readouterr().out
    after, texts_after = _vectors(embedded), _texts(embedded)
    changed = {i for i, t in texts_after.items() if texts_before.get(i) != t}
    assert changed and not changed & set(after)  # changed nodes: no vector
    assert set(after) == set(texts_after) - changed  # the others: kept, unchanged
    assert all(after[i] == before[i] for i in after)
    assert fake_local.embedded == []
    return embedded, out


def test_unavailable_backend_keeps_vectors_and_reports_stale(stale: tuple[Path, str]):
    repo, out = stale
    manifest = _manifest(repo)
    info = manifest["embedding"]
    n, count = manifest["node_count"], info["count"]
    assert info["stale"] == n - count > 0 and info["backend"] == "local"
    assert "codecite[local]" in info["stale_reason"]
    assert f"embeddings: {n - count} of {n} nodes stale (backend local unavailable: " in out
    assert "run `codecite build --embed` when it is" in out


def test_stale_vectors_show_in_stats(stale: tuple[Path, str], capsys: pytest.CaptureFixture[str]):
    repo, _ = stale
    stale_count = _manifest(repo)["embedding"]["stale"]
    assert main(["stats", "-C", str(repo), "--json"]) == EXIT_OK
    info = json.loads(capsys.readouterr().out)["embedding"]
    assert info["stale"] == stale_count and info["stale_reason"]
    assert main(["stats", "-C", str(repo)]) == EXIT_OK
    assert (
        f"{stale_count} of {_manifest(repo)['node_count']} nodes stale" in capsys.readouterr().out
    )


def test_stale_vectors_show_in_ctx_degraded(stale: tuple[Path, str], fake_local: FakeLocal):
    repo, _ = stale
    fake_local.available = True  # queries can be embedded again; the index is stale
    ctx = codecite.load(repo).query("phase tensor skew", dense=True)
    assert ctx.mode == "hybrid" and ctx.nodes
    assert ctx.degraded and "stale" in ctx.degraded and "codecite build --embed" in ctx.degraded


def test_an_up_to_date_build_still_reports_stale(
    stale: tuple[Path, str], capsys: pytest.CaptureFixture[str]
):
    repo, _ = stale
    assert _build(str(repo)) == EXIT_OK
    out = capsys.readouterr().out
    assert "up to date" in out and "nodes stale" in out


def test_embed_fills_in_the_stale_nodes(stale: tuple[Path, str], fake_local: FakeLocal):
    repo, _ = stale
    stale_count = _manifest(repo)["embedding"]["stale"]
    fake_local.available = True
    assert _build(str(repo), "--embed") == EXIT_OK  # the recorded backend: local
    info = _manifest(repo)["embedding"]
    assert "stale" not in info and info["count"] == _manifest(repo)["node_count"]
    assert len(fake_local.embedded) == stale_count


def test_full_rebuild_while_unavailable_keeps_the_vectors(embedded: Path, fake_local: FakeLocal):
    before = _vectors(embedded)
    fake_local.available = False
    assert _build(str(embedded), "--full") == EXIT_OK
    assert _vectors(embedded) == before and "stale" not in _manifest(embedded)["embedding"]


# -- a failed --embed leaves the previous index as it was -------------------------------------


def test_embed_with_openai_and_no_key_fails_and_keeps_the_vectors(
    embedded: Path, capsys: pytest.CaptureFixture[str]
):
    before = _index_bytes(embedded)
    _edit(embedded)
    capsys.readouterr()
    code = _build(str(embedded), "--embed", "--embed-backend", "openai")
    err = capsys.readouterr().err.strip()
    assert code == EXIT_FAIL
    assert len(err.splitlines()) == 1 and "openai" in err and "OPENAI_API_KEY" in err
    assert _index_bytes(embedded) == before  # nothing swapped in


def test_embed_with_the_local_extra_missing_fails_on_a_fresh_repository(
    sample_repo: Path, fake_local: FakeLocal, capsys: pytest.CaptureFixture[str]
):
    fake_local.available = False
    assert _build(str(sample_repo), "--embed", "--embed-backend", "local") == EXIT_FAIL
    assert "codecite[local]" in capsys.readouterr().err
    assert not (sample_repo / ".codecite").exists()


def test_embed_with_a_failing_server_keeps_the_vectors(
    embedded: Path,
    fake_openai: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    (embedded / "codecite.toml").write_text(
        f'[embedding]\napi_base = "{fake_openai.url}"\n', encoding="utf-8"
    )
    before = _vectors(embedded)
    fake_openai.state.fail_next = [500] * 10
    code = _build(
        str(embedded), "--embed", "--embed-backend", "openai", "--embed-model", "fake-embed-a"
    )
    assert code == EXIT_FAIL and "reachable" in capsys.readouterr().err
    assert _vectors(embedded) == before and _manifest(embedded)["embedding"]["backend"] == "local"


# -- the openai backend through the fake server ---------------------------------------------


@pytest.fixture
def openai_embedded(
    sample_repo: Path, fake_openai: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Embedded with ``--embed --embed-backend openai --embed-model ...``; the
    configuration names only the server, so later plain builds must take backend
    and model from the manifest."""
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    (sample_repo / "codecite.toml").write_text(
        f'[embedding]\napi_base = "{fake_openai.url}"\n', encoding="utf-8"
    )
    assert (
        _build(
            str(sample_repo),
            "--embed",
            "--embed-backend",
            "openai",
            "--embed-model",
            "fake-embed-a",
        )
        == EXIT_OK
    )
    fake_openai.state.inputs = []
    return sample_repo


def test_plain_build_uses_the_recorded_backend_and_model(
    openai_embedded: Path, fake_openai: FakeServer
):
    _edit(openai_embedded)
    assert _build(str(openai_embedded)) == EXIT_OK
    info = _manifest(openai_embedded)["embedding"]
    assert (info["backend"], info["model"]) == ("openai", "fake-embed-a") and "stale" not in info
    assert fake_openai.state.inputs and all("zanzibar" in t for t in fake_openai.state.inputs)


def test_no_key_on_a_plain_build_marks_stale(
    openai_embedded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.delenv("OPENAI_API_KEY")
    _edit(openai_embedded)
    capsys.readouterr()
    assert _build(str(openai_embedded)) == EXIT_OK
    out = capsys.readouterr().out
    info = _manifest(openai_embedded)["embedding"]
    assert info["stale"] >= 1
    assert (
        f"embeddings: {info['stale']} of {_manifest(openai_embedded)['node_count']} "
        "nodes stale (backend openai unavailable: OPENAI_API_KEY not set); run "
        "`codecite build --embed` when it is"
    ) in out


def test_server_down_on_a_plain_build_marks_stale(
    openai_embedded: Path, fake_openai: FakeServer, capsys: pytest.CaptureFixture[str]
):
    fake_openai.stop()
    _edit(openai_embedded)
    assert _build(str(openai_embedded)) == EXIT_OK
    info = _manifest(openai_embedded)["embedding"]
    assert info["stale"] >= 1 and "openai" in info["stale_reason"]
    assert "nodes stale (backend openai unavailable" in capsys.readouterr().out


# -- the previous vectors are read verified -------------------------------------------------


def test_altered_previous_vectors_are_not_reused(embedded: Path, fake_local: FakeLocal):
    path = embedded / ".codecite" / VECTORS
    matrix = np.load(path, allow_pickle=False)
    matrix[0] = -matrix[0]  # same shape, other numbers
    with path.open("wb") as fh:
        np.save(fh, matrix, allow_pickle=False)
    assert _build(str(embedded), "--embed") == EXIT_OK
    assert len(fake_local.embedded) == _manifest(embedded)["node_count"]


def test_vectors_of_an_index_not_built_here_are_not_carried_over(
    embedded: Path,
    fake_local: FakeLocal,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
):
    """Another user's key (codecite.store.seal): the index is rebuilt, its vectors not reused."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-cache"))
    with caplog.at_level("WARNING", logger="codecite.dense"):
        assert _build(str(embedded), "--embed") == EXIT_OK
    assert "not built here" in caplog.text
    assert len(fake_local.embedded) == _manifest(embedded)["node_count"]
