"""Absent query words: a word common in Python prose weighs half, a foreign one in full."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
from llama_index.core.schema import TextNode

from codecite.answers.confidence import DEFAULT_COVERAGE_FLOOR, assess
from codecite.retrievers.bm25 import CodeciteRetriever
from codecite.retrievers.evidence import (
    COMMON_ABSENT_SHARE,
    common_words,
    coverage,
    token_weights,
)

REPO = Path(__file__).resolve().parents[2]
TEXTS = [
    "Cache entries expire after a time to live.",
    "A least recently used cache.",
    "Entries expire when the clock passes their deadline.",
    "Sizes of entries.",
    "Random replacement.",
]


def _retriever() -> CodeciteRetriever:
    nodes = [
        TextNode(id_=f"n{i}", text=t, metadata={"kind": "python_symbol"})
        for i, t in enumerate(TEXTS)
    ]
    return CodeciteRetriever.from_nodes(nodes, similarity_top_k=5)


def test_the_shipped_list_holds_plain_common_words_and_no_tool_names() -> None:
    words = common_words()
    assert len(words) > 3000
    assert {"month", "another", "working", "value", "return"} <= words
    assert not {"celery", "flexbox", "pydantic", "kubernetes", "joinedload"} & words
    assert all(w.isalpha() and w == w.lower() for w in words)


def test_absent_words_weigh_by_how_common_they_are_in_python_prose() -> None:
    retriever = _retriever()
    n = len(TEXTS)
    rarest = math.log(1 + (n - 0.5) / 1.5)
    weights = token_weights(retriever.bm25, ["cache", "month", "flexbox"])
    assert weights["cache"] == pytest.approx(math.log(1 + (n - 2 + 0.5) / 2.5), rel=1e-6)
    assert weights["month"] == pytest.approx(COMMON_ABSENT_SHARE * rarest)
    assert weights["flexbox"] == pytest.approx(rarest)


def test_a_missing_common_word_does_not_turn_an_answerable_question_into_a_clarification() -> None:
    retriever = _retriever()
    common = retriever.retrieve_context("cache expire every month")
    foreign = retriever.retrieve_context("cache expire celery flexbox")
    assert coverage(retriever, common) > coverage(retriever, foreign)
    assert assess(retriever, common).confident
    verdict = assess(retriever, foreign)
    assert not verdict.confident and verdict.floor == DEFAULT_COVERAGE_FLOOR


def _script():
    spec = importlib.util.spec_from_file_location(
        "common_words_script", REPO / "scripts" / "common_words.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_list_maker_reads_comments_and_strings_only_and_skips_tests(tmp_path: Path) -> None:
    script = _script()
    assert script.prose_words(
        'def frobnicate(x):\n    """Return the month."""\n    return x  # somebody asked\n'
    ) == {"return", "month", "somebody", "asked"}
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(f'"""Working with the month."""\nx{i} = {i}\n')
    (tmp_path / "test").mkdir()
    for i in range(3):
        (tmp_path / "test" / f"t{i}.py").write_text('"""fixture teardown"""\n')
    (tmp_path / "broken.py").write_text('"""unterminated\n')
    files, df = script.count_files(tmp_path)
    assert files == 3 and df["month"] == 3 and df["working"] == 3 and "fixture" not in df
    out = tmp_path / "words.txt"
    assert script.main([str(tmp_path), "--min-files", "3", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert [w for w in lines if not w.startswith("#")] == ["month", "working"]


def test_python_builtin_names_are_not_unknown_tools_but_other_names_are() -> None:
    from codecite.retrievers.evidence import named_unknowns

    vocab = _retriever().bm25.vocab_dict
    query = "Calling expire raises a TypeError and a DeprecationWarning, unlike in Celery or PyPI"
    assert named_unknowns(query, vocab) == ["Celery", "PyPI"]
    verdict = assess(
        _retriever(),
        _retriever().retrieve_context("Why does cache expire raise a TypeError for entries?"),
    )
    assert verdict.confident, verdict.reason


def test_a_tool_name_is_a_name_in_any_case() -> None:
    """A tester's fastapi questions: "how do I connect to a Redis cache" asked back,
    "... a redis cache" was answered from unrelated code; so were "a django view" and
    "read a CSV file with pandas" on scikit-learn's own corpus words."""
    from codecite.retrievers.evidence import named_unknowns, tool_names

    assert {"redis", "pandas", "django", "nginx"} <= tool_names()
    assert not {"arrow", "click", "beam", "rich", "requests"} & tool_names()  # plain words
    vocab = {"connect": 0, "cache": 1, "pandas": 2}
    assert named_unknowns("how do I connect to a redis cache", vocab) == ["redis"]
    assert named_unknowns("Redis: how do I connect", vocab) == ["Redis"]  # opening a sentence
    assert named_unknowns("read it with pandas", vocab) == []  # the corpus speaks of it
    assert named_unknowns("connect a photon cache", vocab) == []  # a plain word, not a tool
    retriever = _retriever()
    verdict = assess(retriever, retriever.retrieve_context("how do I expire entries in redis"))
    assert not verdict.confident and "redis" in verdict.reason


@pytest.mark.parametrize(
    ("complaints", "question"),
    [
        (
            ("it keeps crashing again, can you just fix it?", "the cache broke, fix it"),
            "how do I fix cache entries that expire too early",
        ),
        (
            (
                "nothing works since I updated, can you take a look??",
                "nothing I try works since the upgrade, any ideas?",
                "something is wrong but i dont know what",
                "it hangs again, fix it",
            ),
            "how do I look up cache entries that expire since the upgrade",
        ),
    ],
    ids=["bug-report words", "complaint framing"],
)
def test_complaint_words_alone_are_vague_but_beside_a_feature_they_are_not(
    complaints: tuple[str, ...], question: str
) -> None:
    retriever = _retriever()
    for complaint in complaints:
        verdict = assess(retriever, retriever.retrieve_context(complaint))
        assert not verdict.confident and "vague" in verdict.reason, (complaint, verdict.reason)
    # the same words beside what the question is about leave it answerable
    verdict = assess(retriever, retriever.retrieve_context(question))
    assert verdict.confident, verdict.reason
