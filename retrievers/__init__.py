"""Ranking: identifier-aware tokenizer, expansion, boosted BM25, dense fusion.

Names load on first use (the tokenizer does not need LlamaIndex or bm25s).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "CodeciteRetriever",
    "HybridRetriever",
    "RetrievedContext",
    "ScoreBreakdown",
    "ScoringSettings",
    "reciprocal_rank_fusion",
    "tokenize",
]

_LAZY = {
    "CodeciteRetriever": "bm25",
    "HybridRetriever": "hybrid",
    "RetrievedContext": "results",
    "ScoreBreakdown": "results",
    "ScoringSettings": "settings",
    "reciprocal_rank_fusion": "fusion",
    "tokenize": "tokenizer",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
