"""Coverage counts distinct evidence: symbols lent relevance by one section are that section
(their own text joins its evidence without taking a slot)."""

from __future__ import annotations

from llama_index.core.schema import NodeWithScore, TextNode

from codecite.retrievers.evidence import _row_indexes
from codecite.retrievers.results import RetrievedContext, ScoreBreakdown


def _breakdown(lent_by: str | None = None) -> ScoreBreakdown:
    return ScoreBreakdown(1, 0, 1, 1, 1, 1, 1, 1, 1, 1, propagated_from=lent_by)


class _Retriever:
    def __init__(self, ids: list[str]) -> None:
        self.nodes = [TextNode(id_=i, text=i) for i in ids]


def test_symbols_lent_by_one_section_count_once_and_deeper_evidence_is_read() -> None:
    retriever = _Retriever(["section", "f", "g", "h", "other"])
    ranked = ["section", "f", "g", "h", "other"]
    ctx = RetrievedContext(
        "q",
        ["q"],
        [],
        None,
        None,
        nodes=[NodeWithScore(node=retriever.nodes[i], score=5 - i) for i in range(5)],
        breakdown={
            "section": _breakdown(),
            "f": _breakdown("section"),
            "g": _breakdown("section"),
            "h": _breakdown(),
            "other": _breakdown(),
        },
    )
    assert ranked == [n.node.node_id for n in ctx.nodes]
    # f and g are the section's evidence again: the top 3 pieces are section (with the
    # texts of f and g it lent to), h and other
    assert _row_indexes(retriever, ctx, 3).tolist() == [0, 1, 2, 3, 4]
    assert _row_indexes(retriever, ctx, 1).tolist() == [0, 1, 2]
    assert _row_indexes(retriever, ctx, 2).tolist() == [0, 1, 2, 3]


def test_a_symbol_lent_by_a_section_below_the_cut_adds_nothing() -> None:
    retriever = _Retriever(["a", "b", "f", "section"])
    ctx = RetrievedContext(
        "q",
        ["q"],
        [],
        None,
        None,
        nodes=[NodeWithScore(node=retriever.nodes[i], score=5 - i) for i in range(4)],
        breakdown={
            "a": _breakdown(),
            "b": _breakdown(),
            "f": _breakdown("section"),
            "section": _breakdown(),
        },
    )
    assert _row_indexes(retriever, ctx, 2).tolist() == [0, 1]
    assert _row_indexes(retriever, ctx, 3).tolist() == [0, 1, 2, 3]


def test_coverage_takes_the_better_evidence_of_the_shown_and_the_own_word_ranking() -> None:
    import dataclasses

    from codecite.retrievers.bm25 import CodeciteRetriever
    from codecite.retrievers.evidence import coverage

    texts = [
        "cache cache cache pages expire",
        "cached",
        "pages alpha",
        "expire beta",
        "cache epsilon",
    ]
    retriever = CodeciteRetriever.from_nodes(
        [
            TextNode(id_=f"n{i}", text=t, metadata={"kind": "python_symbol"})
            for i, t in enumerate(texts)
        ],
        similarity_top_k=5,
    )
    shown = retriever.retrieve_context("cached pages expire")
    own = retriever.retrieve_context("cached pages expire", variants=False)
    assert shown.variants == ["cache"]
    assert shown.nodes[0].node.node_id == "n0" and own.nodes[0].node.node_id == "n1"
    # own words only, whichever ranking supplies the top node
    by_shown = coverage(retriever, dataclasses.replace(shown, variants=[]), depth=1)
    by_own = coverage(retriever, own, depth=1)
    assert by_shown > by_own  # the shown top node holds more of the user's own words
    assert coverage(retriever, shown, depth=1) == max(by_shown, by_own)
    assert coverage(retriever, shown, depth=2) == 1.0
