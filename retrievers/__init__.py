"""Ranking: identifier-aware tokenizer, expansion, boosted BM25, dense fusion.

Names load on first use (the tokenizer does not need LlamaIndex or bm25s).
"""

from __future__ import annotations

from codecite.lazy import lazy_attributes

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


__getattr__ = lazy_attributes(__name__, _LAZY)
