"""Coverage counts distinct evidence: symbols lent relevance by one section are that section."""

from __future__ import annotations

from llama_index.core.schema import NodeWithScore, TextNode

from codecite.confidence import _row_indexes
from codecite.retrievers.results import RetrievedContext, ScoreBreakdown


def _breakdown(lent_by: str | None = None) -> ScoreBreakdown:
    return ScoreBreakdown(1, 0, 1, 1, 1, 1, 1, 1, 1, 1, propagated_from=lent_by)


class _Retriever:
    def __init__(self, ids: list[str]) -> None:
        self.nodes = [TextNode(id_=i, text=i) for i in ids]


def test_symbols_lent_by_one_section_count_once_and_deeper_evidence_is_read() -> None:
    retriever = _Retriever(["section", "f", "g", "h", "other"])
    ranked = ["section", "f", "g", "h", "other"]
    ctx = RetrievedContext("q", ["q"], [], None, None,
                           nodes=[NodeWithScore(node=retriever.nodes[i], score=5 - i)
                                  for i in range(5)],
                           breakdown={"section": _breakdown(), "f": _breakdown("section"),
                                      "g": _breakdown("section"), "h": _breakdown(),
                                      "other": _breakdown()})
    assert ranked == [n.node.node_id for n in ctx.nodes]
    # f and g are the section's evidence again: the top 3 pieces are section, h, other
    assert _row_indexes(retriever, ctx, 3).tolist() == [0, 3, 4]
    assert _row_indexes(retriever, ctx, 1).tolist() == [0]
