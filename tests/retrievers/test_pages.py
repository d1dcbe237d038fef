"""Page evidence (retrievers.pages): each file is a BM25 document too, and its score goes
to the file's best-matching node when ``page_weight`` is set."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import codecite
from codecite.answers.confidence import assess
from codecite.retrievers.bm25 import CodeciteRetriever
from codecite.retrievers.explain import explain_text
from codecite.retrievers.lexical import bm25_from_arrays, bm25_scores, build_bm25
from codecite.retrievers.pages import PageEvidence, page_arrays, page_of
from codecite.retrievers.settings import ScoringSettings

NODES = [  # (file, tokens)
    ("docs/hooks.md", ["hook", "call", "plugin"]),
    ("docs/hooks.md", ["plugin", "raises", "error"]),
    ("src/pkg/core.py", ["hook", "caller", "run"]),
    ("docs/hooks.md", ["others", "still", "run"]),
    ("src/pkg/util.py", ["error", "message"]),
]


def _counts(token_lists: list[list[str]]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Per-node term counts as a build keeps them (sorted vocabulary, CSR rows)."""
    vocab = sorted({t for toks in token_lists for t in toks})
    ids = {t: i for i, t in enumerate(vocab)}
    ptr, doc_ids, doc_tf = [0], [], []
    for toks in token_lists:
        counted = sorted(Counter(ids[t] for t in toks).items())
        doc_ids += [i for i, _ in counted]
        doc_tf += [n for _, n in counted]
        ptr.append(len(doc_ids))
    return vocab, np.array(ptr), np.array(doc_ids, np.int32), np.array(doc_tf, np.int32)


def test_page_matrix_from_counts_is_bm25s_over_the_whole_files() -> None:
    paths = [p for p, _ in NODES]
    pages, n_pages = page_of(paths)
    assert pages.tolist() == [0, 0, 1, 0, 2] and n_pages == 3
    made = bm25_from_arrays(page_arrays(*_counts([t for _, t in NODES]), pages, n_pages))
    whole = [[t for p, toks in NODES if p == path for t in toks] for path in dict.fromkeys(paths)]
    reference = build_bm25(whole)  # bm25s itself, over each file's tokens
    for query in (["plugin", "raises", "run"], ["error"], ["hook", "others"]):
        np.testing.assert_allclose(
            bm25_scores(made, query), bm25_scores(reference, query), rtol=1e-6
        )


def test_the_file_score_goes_to_its_best_node_only() -> None:
    pages = PageEvidence.from_tokens([p for p, _ in NODES], [t for _, t in NODES])
    lexical = np.array([0.5, 1.5, 0.7, 1.5, 0.0], dtype=np.float32)
    query = ["plugin", "raises", "run"]
    file_scores = bm25_scores(pages.bm25, query)
    bonus = pages.bonus(query, lexical)
    # hooks.md: nodes 0, 1 and 3; 1 and 3 tie, the first of them takes it
    assert bonus.tolist() == pytest.approx([0.0, file_scores[0], file_scores[1], 0.0, 0.0])
    assert pages.bonus(["absent"], lexical).tolist() == [0.0] * 5
    assert pages.bonus(query, np.zeros(5, dtype=np.float32)).tolist() == [0.0] * 5


@pytest.fixture(scope="module")
def index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


QUERIES = [
    "sort stations by latitude when a station file is missing",
    "phase tensor strike angle",
    "load a survey line",
]


def test_an_index_keeps_one_page_per_file_and_weight_zero_changes_nothing(index) -> None:
    scorer = index.scorer(10)
    paths = {n.metadata["source_path"] for n in index.nodes}
    assert scorer.pages is not None and int(scorer.pages.bm25.scores["num_docs"]) == len(paths)
    assert index.config.retrieval.page_weight == 0.0  # off unless configured
    for q in QUERIES:
        ctx = index.query(q)
        assert ctx.page_weight == 0.0
        assert all(b.bm25_page == 0.0 for b in ctx.breakdown.values())


def test_with_page_weight_each_file_lends_its_score_to_one_node(index) -> None:
    paged = index.with_settings(page_weight=0.5)
    s = paged.scorer(10).settings
    for q in QUERIES:
        ctx = paged.query(q, k=20)
        assert ctx.page_weight == 0.5
        lent = Counter()
        for hit in ctx.nodes:
            b = ctx.breakdown[hit.node.node_id]
            own = b.bm25_q + s.expansion_weight * b.bm25_e + s.variant_weight * b.bm25_v
            assert b.lexical == pytest.approx(own + 0.5 * b.bm25_page, rel=1e-5)
            lent[hit.node.metadata["source_path"]] += b.bm25_page > 0
        assert max(lent.values()) == 1
    text = explain_text(paged.query(QUERIES[0], k=3))
    assert "+ wp*P)" in text and "(wp = 0.5: P is the file's score, on its best node)" in text


def test_page_evidence_leaves_the_answer_or_ask_decision_alone(index) -> None:
    paged = index.with_settings(page_weight=0.5)
    # with their pages' scores, these rank nodes that together cover more of the query
    # than the plain ranking's top nodes do: without pages=False they would be answered
    for q in [*QUERIES, "strike static folder", "line phase notebook", "how to knit a scarf"]:
        plain, with_pages = index.scorer(10), paged.scorer(10)
        a = assess(plain, plain.retrieve_context(q))
        b = assess(with_pages, with_pages.retrieve_context(q))
        assert (a.confident, a.score) == (b.confident, b.score)


def test_a_persisted_retriever_keeps_its_pages(tmp_path: Path) -> None:
    from llama_index.core.schema import TextNode

    nodes = [
        TextNode(text=" ".join(toks), metadata={"source_path": path}, id_=f"n{i}")
        for i, (path, toks) in enumerate(NODES)
    ]
    settings = ScoringSettings(page_weight=0.5)
    made = CodeciteRetriever.from_nodes(nodes, settings=settings)
    made.persist(str(tmp_path / "r"))
    loaded = CodeciteRetriever.from_persist_dir(str(tmp_path / "r"))
    assert loaded.page_weight == 0.5
    query = "plugin raises run"
    assert [h.node.node_id for h in made.retrieve(query)] == [
        h.node.node_id for h in loaded.retrieve(query)
    ]
    assert made.retrieve_context(query).breakdown == loaded.retrieve_context(query).breakdown


def test_configured_pages_are_persisted_and_rank_as_computed_ones(index, tmp_path) -> None:
    # the default build stores no page index: it is made from the term counts if asked for
    assert not (index.config.index_path / "bm25_pages").exists()
    repo = tmp_path / "repo"
    shutil.copytree(index.config.root, repo, ignore=shutil.ignore_patterns(".codecite*"))
    (repo / "codecite.toml").write_text("[retrieval]\npage_weight = 0.5\n", encoding="utf-8")
    codecite.build(repo)
    assert (repo / ".codecite" / "bm25_pages" / "data.csc.index.npy").is_file()
    configured = codecite.load(repo)
    computed = index.with_settings(page_weight=0.5)
    for q in QUERIES:
        a, b = configured.query(q, k=10), computed.query(q, k=10)
        assert [h.node.node_id for h in a.nodes] == [h.node.node_id for h in b.nodes]
        assert [h.score for h in a.nodes] == pytest.approx([h.score for h in b.nodes])
