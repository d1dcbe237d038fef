"""Answer or ask in hybrid mode: dense evidence that agrees overrules a soft shortfall."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

import codecite
from codecite.answers.confidence import (
    DENSE_SUPPORT_AGREEMENT,
    DENSE_SUPPORT_COSINE,
    assess,
    dense_agreement,
)

TOPICS = ("plot", "data", "survey", "station", "shift", "noise")


class TopicEmbedding(BaseEmbedding):
    """One dimension per topic word present, plus a constant one: texts about the same
    topics point the same way (a stand-in for a model that knows what a text is about)."""

    def _vector(self, text: str) -> list[float]:
        words = set(re.findall(r"[a-z]+", text.lower()))
        vec = np.array([1.0 if any(w.startswith(t) for w in words) else 0.0 for t in TOPICS])
        return [*vec.tolist(), 0.25]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)


def _decisions(index: codecite.CodeciteIndex, query: str):
    calibration = index.manifest.get("calibration")
    hybrid = index.retriever(10, dense=True, embed_model=TopicEmbedding(model_name="topics"))
    ctx = hybrid.retrieve_context(query)
    lexical = assess(
        hybrid.lexical, index.scorer(10).retrieve_context(query), calibration=calibration
    )
    return lexical, assess(hybrid.lexical, ctx, calibration=calibration), ctx


def test_agreeing_dense_evidence_overrules_a_score_shortfall(sample_repo: Path) -> None:
    codecite.build(sample_repo, embed=TopicEmbedding(model_name="topics"))
    index = codecite.load(sample_repo)
    lexical, hybrid, ctx = _decisions(index, "how do I plot the data")
    assert not lexical.confident and lexical.features["fell_short"] == "score"
    assert ctx.top_cosine >= DENSE_SUPPORT_COSINE
    assert dense_agreement(ctx) >= DENSE_SUPPORT_AGREEMENT
    assert hybrid.confident and hybrid.rule == "dense_support"
    assert "dense evidence agrees" in hybrid.reason
    assert hybrid.features["fell_short"] == "score"  # what the lexical signals said, kept
    # an unknown name is never overruled: the dense side cannot know the name is absent
    lexical, hybrid, _ = _decisions(index, "how do I plot the data from PostgreSQL")
    assert lexical.features["fell_short"] == hybrid.features["fell_short"] == "unknown_name"
    assert not hybrid.confident
    # nor does a lexical-only pass carry dense features
    assert "top_cosine" not in lexical.features
