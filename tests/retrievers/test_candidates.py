"""A retrieval scores the query's candidates only, and ranks exactly as scoring every node.

``LexicalScorer.retrieve_context`` composes the factors at the nodes that can score
(``LexicalScorer.candidates``); ``score_all`` and the scorer with
``_candidates_only = False`` compose them at every node (as a retrieval does when
the candidates are most of the nodes: here they are compared at any share). For real queries on two
small real corpora (the fixture with priorities, workflows and votes, and this
repository's own ``retrievers/`` and ``docs/``), under filters, feedback, configured
expansions, page evidence, no doc propagation and the switches of
``retrievers/evidence.py``, both give the same hits, scores, breakdowns and top
score bit for bit, and every node outside the candidates scores 0.
``tests/benchmarks/check_sparse.py`` compares with the scorer before the change
on larger corpora.
"""

from __future__ import annotations

import copy
import dataclasses
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fixture_facts import FIXTURE_CONFIG, SAMPLE_QUERIES

import codecite
from codecite.retrievers.scorer import LexicalScorer

REPO = Path(__file__).resolve().parents[2]
FIXTURE_REPO = REPO / "tests" / "fixtures" / "sample_repo"
VOTES = {"geokit.agents.static_shift.StaticShiftAgent": 2.0, "geokit.io.load_survey": -6.0}
FIXTURE_QUERIES = [*SAMPLE_QUERIES, "geokit.io.load_survey", "nothing here matches zyzzyva"]
OWN_QUERIES = [
    "how are doc sections lending their score to the symbols they name",
    "LexicalScorer.retrieve_context",
    "`rank_order`",
    "name_lift",
    "what happens when a query names a symbol that is an alias",
    "page evidence for a whole file",
    "word forms of the query words",
    "why is the confidence proxy computed without variants",
    "codecite.retrievers.propagation.DocPropagation.apply",
    "reciprocal rank fusion of dense and lexical rankings",
    "configuration of the expansion of queries",
]
SWITCHES = (
    {},
    {"names": False, "pages": False, "lead": False},
    {"variants": False, "names": False, "pages": False, "lead": False},
)


@pytest.fixture(scope="module")
def fixture_index(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    root = tmp_path_factory.mktemp("candidates") / "sample_repo"
    shutil.copytree(FIXTURE_REPO, root, ignore=shutil.ignore_patterns(".codecite*"))
    (root / "codecite.toml").write_text(FIXTURE_CONFIG, encoding="utf-8")
    codecite.build(root)
    return codecite.load(root)


@pytest.fixture(scope="module")
def own_index(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    """This repository's ranking code and its docs: doc sections naming its symbols."""
    root = tmp_path_factory.mktemp("candidates") / "own"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "retrievers", root / "retrievers", ignore=ignore)
    shutil.copytree(REPO / "docs", root / "docs", ignore=ignore)
    (root / "codecite.toml").write_text(
        'packages = ["retrievers"]\nroots = ["retrievers", "docs"]\n', encoding="utf-8"
    )
    codecite.build(root)
    return codecite.load(root)


def _every_node(scorer: LexicalScorer) -> LexicalScorer:
    dense = copy.copy(scorer)
    dense._candidates_only = False
    return dense


def _exact(value: Any) -> Any:
    """``value`` compared bit for bit (floats by their repr, which keeps every bit)."""
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_exact(v) for v in value]
    return value


def _seen(ctx: Any) -> Any:
    return _exact(
        {
            "ids": [hit.node.node_id for hit in ctx.nodes],
            "scores": [hit.score for hit in ctx.nodes],
            "breakdown": [(k, dataclasses.asdict(ctx.breakdown[k])) for k in ctx.breakdown],
            "top": ctx.top_score,
            "lead": ctx.page_lead,
            "raisers": ctx.raisers,
            "variants": ctx.variants,
        }
    )


def _check(scorer: LexicalScorer, queries: list[str]) -> None:
    scorer._every_node_share = 1.0  # the candidates, however many
    dense = _every_node(scorer)
    for query in queries:
        for switches in SWITCHES:
            sparse = _seen(scorer.retrieve_context(query, **switches))
            assert sparse == _seen(dense.retrieve_context(query, **switches)), (query, switches)
        _check_vectors(scorer, query)


def _check_vectors(scorer: LexicalScorer, query: str) -> None:
    """The candidates' vectors are ``score_all``'s at those rows; every other node scores 0."""
    final, parts = scorer.score_all(query)
    at_rows, sparse = scorer._score(query, True, True, True, every_node=False)
    rows = sparse["rows"]
    assert np.all(rows[1:] > rows[:-1])
    off = np.ones(final.size, dtype=bool)
    off[rows] = False
    for key in ("q", "e", "v", "page", "lexical", "composed"):
        assert not parts[key][off].any(), (query, key)
    assert not final[off].any(), query
    for key in ("q", "e", "v", "page", "lexical", "wf", "sym", "name", "composed"):
        assert parts[key][rows].tobytes() == sparse[key].tobytes(), (query, key)
        assert parts[key].dtype == sparse[key].dtype, (query, key)
    assert final[rows].tobytes() == at_rows.tobytes(), query
    assert repr(parts["top"]) == repr(sparse["top"]) and parts["lead"] == sparse["lead"]
    if parts["sources"] is not None:
        lent = sparse["sources"]
        assert np.array_equal(parts["sources"][rows], np.where(lent >= 0, rows[lent], -1))
        assert not (parts["sources"][off] >= 0).any()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"kind": "python_symbol"},
        {"kind": ["doc_section", "recipe"]},
        {"path": "geokit"},
        {"workflow": "static_shift"},
        {"feedback": VOTES},
    ],
    ids=["default", "kind", "kinds", "path", "workflow", "feedback"],
)
def test_fixture_ranks_alike_with_filters(
    fixture_index: codecite.CodeciteIndex, options: dict[str, Any]
) -> None:
    _check(fixture_index.scorer(10, **options), FIXTURE_QUERIES)


@pytest.mark.parametrize(
    "settings",
    [
        {"page_weight": 0.5},
        {"doc_propagation": False},
        {"expansions": {"static shift": ("galvanic", "distortion")}},
        {"name_boost": 1.0, "query_variants": False},
    ],
    ids=["pages", "no-propagation", "expansions", "no-names-no-variants"],
)
def test_fixture_ranks_alike_with_settings(
    fixture_index: codecite.CodeciteIndex, settings: dict[str, Any]
) -> None:
    _check(fixture_index.with_settings(**settings).scorer(10), FIXTURE_QUERIES)


@pytest.mark.parametrize(
    "settings", [{}, {"page_weight": 0.3}, {"doc_propagation": False}], ids=str
)
def test_own_code_and_docs_rank_alike(
    own_index: codecite.CodeciteIndex, settings: dict[str, Any]
) -> None:
    scorer = own_index.with_settings(**settings).scorer(10)
    _check(scorer, OWN_QUERIES)
    _check(own_index.with_settings(**settings).scorer(10, path="docs"), OWN_QUERIES[:4])


def test_candidates_are_the_matching_nodes_and_what_they_lend_to(
    own_index: codecite.CodeciteIndex,
) -> None:
    scorer = own_index.scorer(10)
    query = "lending a score along doc references"
    tokens, expansion, _, _ = scorer.read_query(query)
    rows = scorer.candidates(tokens, expansion, scorer.query_variants(tokens, expansion)).rows
    final, parts = scorer.score_all(query)
    assert set(np.flatnonzero(parts["lexical"] > 0)) <= set(rows.tolist())
    assert set(np.flatnonzero(final > 0)) <= set(rows.tolist())
    assert rows.size < final.size  # not every node


@pytest.mark.parametrize("settings", [{}, {"page_weight": 0.5}], ids=str)
def test_a_retriever_made_from_nodes_ranks_alike(
    own_index: codecite.CodeciteIndex, settings: dict[str, Any]
) -> None:
    """bm25s' own index (``CodeciteRetriever.from_nodes``), not one loaded from arrays."""
    from codecite.retrievers.bm25 import CodeciteRetriever
    from codecite.retrievers.settings import ScoringSettings

    made = CodeciteRetriever.from_nodes(
        own_index.text_nodes(), settings=ScoringSettings(**settings), similarity_top_k=10
    )
    _check(made, OWN_QUERIES)
