"""The real ``OpenAIEmbedding`` client against a fake OpenAI-compatible server on loopback.

Covers: build with embeddings from configuration and from the CLI, incremental
re-embedding of changed nodes only (counted server-side), retry on 429/5xx,
"not configured" versus "configured but broken", the key never written
anywhere, degradation when the server is down at query time, and refusal of
another model or dimension.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pytest
from dense_fakes import API_KEY, FakeServer
from llama_index.embeddings.openai import OpenAIEmbedding

import codecite
from codecite.cli.app import main
from codecite.dense.vectors import VECTOR_IDS, VECTORS
from codecite.errors import EmbeddingError, EmbeddingModelMismatchError

BATCH = 8


def _configure(repo: Path, url: str, model: str = "fake-embed-a", backend: str = "openai") -> None:
    (repo / "codecite.toml").write_text(
        f'[embedding]\nbackend = "{backend}"\nmodel = "{model}"\napi_base = "{url}"\n'
        f"batch_size = {BATCH}\n",
        encoding="utf-8",
    )


def _manifest(repo: Path) -> dict:
    return json.loads((repo / ".codecite" / "manifest.json").read_text())


def _all_index_bytes(repo: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((repo / ".codecite").rglob("*")) if p.is_file())


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


@pytest.fixture
def embedded(sample_repo: Path, fake_openai: FakeServer, keyed: None) -> Path:
    _configure(sample_repo, fake_openai.url)
    codecite.build(sample_repo)
    return sample_repo


def test_build_embeds_every_node_in_batches(embedded: Path, fake_openai: FakeServer):
    manifest = _manifest(embedded)
    n = manifest["node_count"]
    assert manifest["embedding"] == {
        "backend": "openai",
        "model": "fake-embed-a",
        "dimension": 64,
        "count": n,
        "api_base": fake_openai.url,
        "text": "node-text",
    }
    assert fake_openai.state.requests == math.ceil(n / BATCH)
    assert len(fake_openai.state.inputs) == n
    assert set(fake_openai.state.auth_headers) == {f"Bearer {API_KEY}"}
    matrix = np.load(embedded / ".codecite" / VECTORS, allow_pickle=False)
    assert matrix.shape == (n, 64) and matrix.dtype == np.float32
    ids = json.loads((embedded / ".codecite" / VECTOR_IDS).read_text())
    assert len(ids) == n == len(set(ids))


def test_the_key_is_never_written(embedded: Path, caplog: pytest.LogCaptureFixture):
    assert API_KEY.encode() not in _all_index_bytes(embedded)
    with caplog.at_level(logging.DEBUG):
        codecite.load(embedded).query("phase tensor", dense=True)
    assert API_KEY not in caplog.text


def test_incremental_build_embeds_only_changed_nodes(embedded: Path, fake_openai: FakeServer):
    state = fake_openai.state
    state.requests, state.inputs = 0, []
    codecite.build(embedded, embed={"backend": None, "model": None})  # same sources, forced
    assert state.inputs == []
    phase = embedded / "geokit" / "phase.py"
    phase.write_text(
        phase.read_text().replace(
            "a measure of three-dimensionality", "a zanzibar measure of three-dimensionality"
        )
    )
    codecite.build(embedded)
    assert state.inputs and all("zanzibar" in text for text in state.inputs)
    manifest = _manifest(embedded)
    assert manifest["embedding"]["count"] == manifest["node_count"]
    index = codecite.load(embedded)
    hits = index.query("zanzibar", k=3, dense=True)
    assert (
        hits.degraded is None
        and "skew" in hits.nodes[0].node.node_id.lower() + hits.nodes[0].node.text.lower()
    )


def test_other_model_re_embeds_everything(embedded: Path, fake_openai: FakeServer):
    fake_openai.state.inputs = []
    codecite.build(embedded, embed={"backend": "openai", "model": "fake-embed-b"})
    manifest = _manifest(embedded)
    assert len(fake_openai.state.inputs) == manifest["node_count"]
    assert manifest["embedding"]["model"] == "fake-embed-b"
    assert manifest["embedding"]["dimension"] == 48


def test_rate_limit_and_5xx_are_retried(
    sample_repo: Path, fake_openai: FakeServer, keyed: None, _fast_retries: list[float]
):
    _configure(sample_repo, fake_openai.url)
    fake_openai.state.fail_next = [429, 503]
    codecite.build(sample_repo)
    n = _manifest(sample_repo)["node_count"]
    assert _manifest(sample_repo)["embedding"]["count"] == n
    assert fake_openai.state.requests == math.ceil(n / BATCH) + 2
    assert len(_fast_retries) == 2


def test_persistent_server_errors_fail_the_build_clearly(
    embedded: Path, fake_openai: FakeServer, _fast_retries: list[float]
):
    before = _manifest(embedded)["created"], _all_index_bytes(embedded)
    fake_openai.state.fail_next = [500] * 10
    with pytest.raises(EmbeddingError) as err:
        codecite.build(embedded, full=True, embed={"backend": "openai", "model": "fake-embed-b"})
    message = str(err.value)
    assert "openai" in message and "fake-embed-b" in message and fake_openai.url in message
    assert "reachable" in message
    assert len(_fast_retries) == 3  # 4 tries in all
    assert (_manifest(embedded)["created"], _all_index_bytes(embedded)) == before


def test_bad_key_is_a_clear_error_without_the_key(
    sample_repo: Path, fake_openai: FakeServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-key-0123456789")
    _configure(sample_repo, fake_openai.url)
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY") as err:
        codecite.build(sample_repo)
    assert "0123456789" not in str(err.value)
    assert fake_openai.state.requests == 1  # a 401 is not retried


def test_unknown_model_is_a_clear_error(sample_repo: Path, fake_openai: FakeServer, keyed: None):
    _configure(sample_repo, fake_openai.url, model="no-such-model")
    with pytest.raises(EmbeddingError, match=r"no-such-model.*model name"):
        codecite.build(sample_repo)


def test_unreachable_server_at_build_is_a_clear_error(
    sample_repo: Path, fake_openai: FakeServer, keyed: None
):
    _configure(sample_repo, fake_openai.url)
    fake_openai.stop()
    with pytest.raises(EmbeddingError, match="reachable"):
        codecite.build(sample_repo)


def test_no_key_means_lexical_only_with_one_warning(
    sample_repo: Path, fake_openai: FakeServer, caplog: pytest.LogCaptureFixture
):
    _configure(sample_repo, fake_openai.url)
    with caplog.at_level(logging.WARNING, logger="codecite"):
        report = codecite.build(sample_repo)
    assert report.nodes > 0 and _manifest(sample_repo)["embedding"] is None
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("codecite.dense")]
    assert len(warnings) == 1 and "OPENAI_API_KEY" in warnings[0]
    assert fake_openai.state.requests == 0
    assert not (sample_repo / ".codecite" / VECTORS).exists()


def test_local_extra_missing_means_lexical_only(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    from codecite.dense import embeddings

    monkeypatch.setattr(embeddings, "local_available", lambda: False)
    with caplog.at_level(logging.WARNING, logger="codecite"):
        codecite.build(sample_repo, embed={"backend": "local", "model": None})
    assert _manifest(sample_repo)["embedding"] is None
    assert "codecite[local]" in caplog.text


def test_server_down_at_query_time_degrades(
    embedded: Path, fake_openai: FakeServer, caplog: pytest.LogCaptureFixture
):
    index = codecite.load(embedded)
    lexical = index.query("static shift correction", k=5)
    fake_openai.stop()
    with caplog.at_level(logging.WARNING, logger="codecite"):
        ctx = index.query("static shift correction", k=5, dense=True)
    assert ctx.degraded and ctx.degraded.startswith("query embedding failed")
    assert ctx.mode == "lexical"
    assert [n.node.node_id for n in ctx.nodes] == [n.node.node_id for n in lexical.nodes]
    assert sum(r.levelno == logging.WARNING for r in caplog.records) == 1


def test_no_key_at_query_time_degrades(embedded: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    ctx = codecite.load(embedded).query("static shift", dense=True)
    assert ctx.degraded and "OPENAI_API_KEY" in ctx.degraded and ctx.nodes


def test_query_works_through_the_fake_server(embedded: Path, fake_openai: FakeServer):
    fake_openai.state.requests = 0
    ctx = codecite.load(embedded).query("station reader survey folder", k=5, dense=True)
    assert ctx.mode == "hybrid" and ctx.degraded is None and ctx.top_cosine > 0.2
    assert fake_openai.state.requests == 1
    assert any(b.dense_rank is not None for b in ctx.breakdown.values())


def test_other_model_in_config_is_refused(embedded: Path, fake_openai: FakeServer):
    _configure(embedded, fake_openai.url, model="fake-embed-b")
    index = codecite.load(embedded)
    with pytest.raises(EmbeddingModelMismatchError, match=r"fake-embed-b.*fake-embed-a"):
        index.query("static shift", dense=True)


def test_other_dimension_is_refused(embedded: Path, fake_openai: FakeServer):
    narrow = OpenAIEmbedding(
        model_name="fake-embed-a",
        dimensions=32,
        api_key=API_KEY,
        api_base=fake_openai.url,
        max_retries=0,
    )
    retriever = codecite.load(embedded).retriever(dense=True, embed_model=narrow)
    with pytest.raises(EmbeddingModelMismatchError, match="dimension 32"):
        retriever.retrieve("static shift")


def test_an_openai_embedding_instance_can_be_passed(
    sample_repo: Path, fake_openai: FakeServer, monkeypatch: pytest.MonkeyPatch
):
    model = OpenAIEmbedding(
        model_name="fake-embed-b", api_key=API_KEY, api_base=fake_openai.url, max_retries=0
    )
    codecite.build(sample_repo, embed=model)
    info = _manifest(sample_repo)["embedding"]
    assert (info["backend"], info["model"], info["dimension"]) == ("openai", "fake-embed-b", 48)
    assert API_KEY.encode() not in _all_index_bytes(sample_repo)
    ctx = codecite.load(sample_repo).query("phase tensor skew", dense=True, embed_model=model)
    assert ctx.mode == "hybrid"


def test_cli_build_embed_and_query_dense(
    sample_repo: Path, fake_openai: FakeServer, keyed: None, capsys: pytest.CaptureFixture[str]
):
    _configure(sample_repo, fake_openai.url, model="fake-embed-b")
    assert main(["build", str(sample_repo), "--embed", "--embed-model", "fake-embed-a"]) == 0
    assert _manifest(sample_repo)["embedding"]["model"] == "fake-embed-a"
    capsys.readouterr()
    # the configured model (b) is not the one the vectors were made with (a):
    assert main(["query", "phase tensor", "-C", str(sample_repo), "--dense"]) != 0
    err = capsys.readouterr().err
    assert "'fake-embed-b'" in err and "'fake-embed-a'" in err
    _configure(sample_repo, fake_openai.url, model="fake-embed-a")
    main(["build", str(sample_repo)])
    capsys.readouterr()
    assert main(["query", "phase tensor", "-C", str(sample_repo), "--dense", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "hybrid" and out["top_cosine"] is not None
    assert out["results"][0]["breakdown"]["lexical_rank"] is not None
