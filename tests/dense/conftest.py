"""Fixtures of the dense tests: the fake embeddings server and instant retries."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dense_fakes import LOCAL_DIM, FakeLocal, FakeServer, hashed_bow, start_fake_server

from codecite.dense import backends, embeddings


@pytest.fixture
def fake_openai() -> Iterator[FakeServer]:
    fake, thread = start_fake_server()
    yield fake
    if thread.is_alive():
        fake.stop()


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Retries sleep into a list instead of the clock."""
    slept: list[float] = []
    monkeypatch.setattr(embeddings, "DEFAULT_RETRY", embeddings.RetryPolicy(sleep=slept.append))
    monkeypatch.setattr(
        embeddings, "QUERY_RETRY", embeddings.RetryPolicy(tries=2, sleep=slept.append)
    )
    return slept


@pytest.fixture
def fake_local(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLocal]:
    """The local backend faked in process: the bundled model's ``_encode`` replaced by a
    hashed bag of words that records what it embeds."""
    fake = FakeLocal()

    def encode(self: embeddings.LocalMiniLMEmbedding, texts: list[str]) -> list[list[float]]:
        fake.embedded.extend(texts)
        return [hashed_bow(t, LOCAL_DIM) for t in texts]

    monkeypatch.setattr(embeddings, "local_available", lambda: fake.available)
    monkeypatch.setattr(embeddings.LocalMiniLMEmbedding, "_encode", encode)
    monkeypatch.setattr(backends, "_local_models", {})  # no fake model cached for other tests
    yield fake
