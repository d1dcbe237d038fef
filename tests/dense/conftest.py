"""Fixtures of the dense tests: the fake embeddings server and instant retries."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dense_fakes import FakeServer, start_fake_server

from codecite.dense import embeddings


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
