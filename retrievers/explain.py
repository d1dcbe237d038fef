"""``--explain``: how the query was read and every factor of every hit's score.

The factors are named and ordered by ``boosts.FACTORS``, the order the scorer
multiplies them in, and their values are the scorer's own vectors
(``ScoreBreakdown``); docs/retrieval.md walks through an example.
"""

from __future__ import annotations

from codecite.node_parsers.schema import CODE_KINDS
from codecite.node_parsers.schema import node_label as label_of

from . import boosts
from .results import RetrievedContext, ScoreBreakdown


def explain_text(ctx: RetrievedContext) -> str:
    """A readable walk-through of a ``RetrievedContext``."""
    lines = [
        f"query tokens:    {' '.join(ctx.tokens) or '(none)'}",
        f"expansion e(q):  {' '.join(ctx.expansion) or '(none)'}"
        + (f"  [{ctx.expansion_source}]" if ctx.expansion_source else ""),
        f"variants v(q):   {' '.join(ctx.variants) or '(none)'}",
        f"workflow:        {ctx.workflow or '(none inferred)'}",
        *(
            [f"message:         raised by {', '.join(ctx.raisers[:5])} (named: b_name)"]
            if ctx.raisers
            else []
        ),
        *(
            [
                f"page lead:       {ctx.page_lead} first: with v(q) counted on pages it "
                "outscores every node (no code left the top 5)"
            ]
            if ctx.page_lead
            else []
        ),
        *([f"fusion:          {ctx.fusion}"] if ctx.fusion else []),
        *(
            [f"rewrites:        {' | '.join(ctx.rewrites)} (fused with the query, RRF)"]
            if ctx.rewrites
            else []
        ),
        f"top score:       {ctx.top_score:.3f}  (own words: no v(q), name 1; what answer-or-ask"
        " reads, so rows may score higher)"
        + (f"   top cosine: {ctx.top_cosine:.3f}" if ctx.top_cosine is not None else ""),
        "",
        f"s = (bm25_q + w*bm25_e + wv*bm25_v{' + wp*P' if ctx.page_weight else ''}) * "
        + " * ".join(boosts.FACTORS)
        + (
            f"   (wp = {ctx.page_weight:g}: P is the file's score, on its best node)"
            if ctx.page_weight
            else ""
        ),
    ]
    labels = {n.node.node_id: label_of(n.node.metadata) for n in ctx.nodes}
    kinds = {n.node.node_id: n.node.metadata.get("kind") for n in ctx.nodes}
    for i, nws in enumerate(ctx.nodes, 1):
        b = ctx.breakdown.get(nws.node.node_id)
        if b is None:
            continue
        lines.append(
            f"{i:>2}. {labels[nws.node.node_id]}\n"
            f"    L = {b.bm25_q:.3f} + w*{b.bm25_e:.3f} + wv*{b.bm25_v:.3f}"
            + (f" + wp*{b.bm25_page:.3f}" if ctx.page_weight else "")
            + f" = {b.lexical:.3f}; "
            f"{_factor_terms(b)} = {b.composed:.3f}"
        )
        if b.propagated_from:
            src = labels.get(b.propagated_from) or b.propagated_label or b.propagated_from
            lender_kind = kinds.get(b.propagated_from) or b.propagated_kind
            how = (
                "scored as its alias"
                if lender_kind in CODE_KINDS
                else "propagated from doc section"
            )
            lines.append(f"    {how} {src}: final {b.final:.3f}")
        if b.rerank_score is not None:
            lines.append(
                f"    reranked by {', '.join(ctx.reranked_by)}: {b.rerank_score:.4f} "
                f"(s(c) {b.final:.3f})"
            )
        if b.dense_cosine is not None or b.dense_rank is not None:
            lines.append(
                f"    dense cosine {b.dense_cosine}, lexical rank {b.lexical_rank}, "
                f"dense rank {b.dense_rank}, fused {b.final:.5f}"
            )
    return "\n".join(lines)


def _factor_terms(b: ScoreBreakdown) -> str:
    """``x priority 1.00 x workflow 1.60 x ...``: each factor of ``b`` in multiplication order."""
    return " ".join(
        f"x {name.replace('_', '-')} {value:.2f}"
        for name, value in zip(boosts.FACTORS, b.factors(), strict=True)
    )
