"""Doc propagation and aliases: a renamed symbol scores what its alias scores."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import codecite
from codecite.retrievers.bm25 import rank_order
from codecite.retrievers.explain import explain_text
from codecite.retrievers.propagation import DocPropagation


def test_alias_target_takes_the_alias_final_score_after_section_edges() -> None:
    # node 0: doc section, 1: alias ``ib = attrib``, 2: attrib, 3: another symbol
    code = np.array([False, True, True, True])
    prop = DocPropagation([0, 0, 1], [1, 3, 2], 4, code=code)
    scores = np.array([10.0, 1.0, 0.5, 0.0], dtype=np.float32)
    final, sources = prop.apply(scores, 0.5)
    assert final.tolist() == [10.0, 5.0, 5.0, 5.0]
    assert sources.tolist() == [-1, 0, 1, 0]  # attrib took its score from the alias
    assert prop.is_alias.tolist() == [False, True, False, False]


def test_alias_edges_obey_the_filter_mask_and_feedback() -> None:
    prop = DocPropagation([0], [1], 2, code=np.array([True, True]))
    scores = np.array([4.0, 1.0], dtype=np.float32)
    masked, _ = prop.apply(scores, 0.5, mask=np.array([True, False]))
    assert masked.tolist() == [4.0, 1.0]
    demoted, _ = prop.apply(scores, 0.5, factor=np.array([1.0, 0.5], dtype=np.float32))
    assert demoted.tolist() == [4.0, 2.0]


def test_without_a_code_mask_every_edge_is_a_section_edge() -> None:
    prop = DocPropagation([0], [1], 2)
    final, _ = prop.apply(np.array([4.0, 0.0], dtype=np.float32), 0.5)
    assert final.tolist() == [4.0, 2.0] and not prop.is_alias.any()


def test_at_an_equal_score_the_definition_ranks_before_its_alias() -> None:
    scores = np.array([3.0, 5.0, 5.0, 5.0])
    composed = np.array([3.0, 4.0, 1.0, 2.0])
    last = np.array([False, True, False, False])
    assert rank_order(scores, 4, 0, [None] * 4, tiebreak=composed) == [1, 3, 2, 0]
    assert rank_order(scores, 4, 0, [None] * 4, tiebreak=composed, last=last) == [3, 2, 1, 0]


IMPL = '''
def attrib(default=None, validator=None):
    """Define an attribute with a default and a validator."""
'''
INIT = """
from ._make import attrib
ib = attr = attrib
"""
DOCS = """# Attributes

Declare each attribute of a record with `pkg.ib` and give it a default.
"""


def test_a_query_that_finds_an_alias_finds_what_it_renames(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "pkg" / "_make.py").write_text(IMPL)
    (root / "pkg" / "__init__.py").write_text(INIT)
    (root / "docs" / "attributes.md").write_text(DOCS)
    codecite.build(root)
    ctx = codecite.load(root).query("declare each attribute of a record", k=10)
    ranked = [n.node.metadata.get("symbol") for n in ctx.nodes]
    assert "pkg._make.attrib" in ranked and "pkg.ib" in ranked
    assert ranked.index("pkg._make.attrib") < ranked.index("pkg.ib")
    by_symbol = {n.node.metadata.get("symbol"): n for n in ctx.nodes}
    target, alias = by_symbol["pkg._make.attrib"], by_symbol["pkg.ib"]
    assert target.score == alias.score  # the doc section named pkg.ib, so it named attrib
    assert ctx.breakdown[target.node.node_id].propagated_from == alias.node.node_id
    explained = explain_text(ctx)
    assert "scored as its alias pkg.ib" in explained
    assert "propagated from doc section Attributes" in explained
    # a lender ranked below the rows shown is still named, by its label and kind
    rows = [n.node.node_id for n in ctx.nodes]
    for k in range(1, len(rows) + 1):
        top = codecite.load(root).query("declare each attribute of a record", k=k)
        shown = {n.node.node_id for n in top.nodes}
        lenders = {b.propagated_from for b in top.breakdown.values()} - {None} - shown
        if lenders:
            break
    assert lenders, "no row shown without its lender"
    text = explain_text(top)
    assert not any(lender in text for lender in lenders)  # labels, never node ids


AGENT = '''"""Phase tensor and dimensionality analysis of a survey, run by `PhaseAgent`."""


class PhaseAgent:
    def run(self, survey):
        return survey
'''
GUIDE = """# Surveys

A phase tensor and dimensionality analysis of a survey is run by `pkg.agent.PhaseAgent`.
"""


def test_on_a_tie_a_module_docstring_ranks_after_the_symbol_it_lent_to(tmp_path: Path) -> None:
    """The module docstring names its class and lends it its whole score: the class (the
    code that does it) ranks first; a doc page keeps its place before what it names."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "agent.py").write_text(AGENT)
    codecite.build(root)
    ctx = codecite.load(root).query("phase tensor dimensionality analysis", k=3)
    top = [(n.node.metadata.get("kind"), n.node.metadata.get("symbol")) for n in ctx.nodes[:2]]
    assert top == [("python_symbol", "pkg.agent.PhaseAgent"), ("module_doc", "pkg.agent")]
    assert ctx.nodes[0].score == ctx.nodes[1].score  # a tie, which the class wins
    lent = ctx.breakdown[ctx.nodes[0].node.node_id].propagated_from
    assert lent == ctx.nodes[1].node.node_id

    (root / "pkg" / "agent.py").write_text(AGENT.split('"""', 2)[2])  # no module docstring
    (root / "docs").mkdir()
    (root / "docs" / "surveys.md").write_text(GUIDE)
    codecite.build(root)
    ctx = codecite.load(root).query("phase tensor dimensionality analysis survey", k=3)
    kinds = [n.node.metadata.get("kind") for n in ctx.nodes[:2]]
    assert kinds == ["doc_section", "python_symbol"] and ctx.nodes[0].score == ctx.nodes[1].score
