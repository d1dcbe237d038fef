"""Rerankers the LlamaIndex way: ``node_postprocessors`` after the ranking (and fusion).

Any ``BaseNodePostprocessor`` (``SentenceTransformerRerank``, ``LLMRerank``, a
``SimilarityPostprocessor`` or one of your own) takes the ranked hits as
``NodeWithScore`` and returns them reordered, rescored or filtered. The
retrievers apply them in ``_retrieve``; the answer pass applies them before the
context is assembled, after the answer-or-ask decision has read the ranking
(a reranker's score says which evidence to read first, not whether there is
any). Each hit keeps its composed score in its breakdown, beside the
reranker's (``ScoreBreakdown.rerank_score``, shown by ``--explain``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .results import Hit, RetrievedContext


def rerank_context(
    ctx: RetrievedContext, postprocessors: Sequence[Any], query: str | None = None
) -> RetrievedContext:
    """``ctx`` with its hits run through ``postprocessors`` in order (``ctx`` if none)."""
    if not postprocessors or not ctx.nodes:
        return ctx
    from llama_index.core.schema import QueryBundle

    bundle = QueryBundle(query if query is not None else ctx.query)
    nodes = ctx.node_with_scores()
    for postprocessor in postprocessors:
        nodes = postprocessor.postprocess_nodes(nodes, query_bundle=bundle)
    ours = {hit.node.node_id: hit.node for hit in ctx.nodes}
    out = dataclasses.replace(ctx, nodes=[], breakdown=dict(ctx.breakdown))
    for nws in nodes:
        node_id = nws.node.node_id
        out.nodes.append(Hit(ours.get(node_id, nws.node), nws.score))
        if node_id in out.breakdown:
            out.breakdown[node_id] = dataclasses.replace(
                out.breakdown[node_id], rerank_score=nws.score
            )
    out.reranked_by = [type(p).__name__ for p in postprocessors]
    return out
