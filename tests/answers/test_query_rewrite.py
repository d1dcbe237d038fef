"""LLM query rewriting (opt-in): rewrites fused with the question, the user's own hit kept."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from answers_support import ScriptedLLM

import codecite
from codecite.answers.query_rewrite import ask_rewrites
from codecite.retrievers.explain import explain_text


def rewrites(*queries: str, answer: str = "") -> str:
    return "Sure:\n" + json.dumps({"rewrites": list(queries), "answer": answer})


@pytest.fixture(scope="module")
def index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


def _symbols(prep: Any) -> list[str]:
    return [e.node.metadata.get("symbol") for e in prep.context.evidence]


def test_rewrites_in_the_projects_words_bring_the_api_the_question_does_not_name(index):
    question = "open one site by its label"
    plain = index.as_query_engine().prepare(question)
    assert "geokit.io.SurveyReader.read_station" not in _symbols(plain)
    llm = ScriptedLLM(script=[rewrites("SurveyReader.read_station", "read a station")])
    engine = index.as_query_engine(llm=llm, rewrite_queries=True)
    prep = engine.prepare(question)
    assert "geokit.io.SurveyReader.read_station" in _symbols(prep)
    assert "Rewrite the question below" in llm.prompts[0] and question in llm.prompts[0]
    assert prep.context.confidence == plain.context.confidence  # decided on the user's words
    engine.prepare(question)
    assert len(llm.prompts) == 1  # one model call per question, cached


def test_a_rewrite_naming_a_made_up_symbol_cannot_outrank_the_named_one(index):
    llm = ScriptedLLM(script=[rewrites("geokit.phase.skew_v2", "phase tensor skew angle")])
    engine = index.as_query_engine(llm=llm, rewrite_queries=True)
    prep = engine.prepare("geokit.phase.skew")
    assert _symbols(prep)[0] == "geokit.phase.skew"


def test_the_rewrites_are_in_the_metadata_and_explain(index):
    llm = ScriptedLLM(script=[rewrites("load_survey", answer="Call geokit.io.load_survey."), "x"])
    engine = index.as_query_engine(llm=llm, rewrite_queries=True)
    response = engine.query("how do I read a survey folder?")
    meta = response.metadata["query_rewrite"]
    assert meta == {
        "rewrites": ["load_survey"],
        "hypothetical": "Call geokit.io.load_survey.",
        "note": None,
    }
    from codecite.answers.query_rewrite import QueryRewrite, fused_context

    scorer = index.scorer(5)
    ctx = fused_context(scorer, scorer.retrieve_context("read a survey"), QueryRewrite(["x"]), 5)
    assert "rewrites:        x (fused with the query, RRF)" in explain_text(ctx)


class Failing(ScriptedLLM):
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise ConnectionError("server down")


def test_a_failing_model_leaves_the_original_ranking_with_a_note(index):
    question = "how do I correct static shift?"
    plain = index.as_query_engine().prepare(question)
    engine = index.as_query_engine(llm=Failing(script=["unused"]), rewrite_queries=True)
    answerer = engine.answerer()
    prep = answerer.prepare(question)
    assert _symbols(prep) == _symbols(plain)
    assert answerer._rewrite.note == "query rewriting failed (ConnectionError): original query"


class Blocked(ScriptedLLM):
    """Answers only once the test lets it: a model that is too slow."""

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        RELEASE.wait(30)
        return super().complete(prompt, formatted, **kwargs)


RELEASE = threading.Event()


def test_a_slow_model_times_out_to_the_original_query():
    try:
        rewrite = ask_rewrites(Blocked(script=[rewrites("x")]), "q", "geokit", timeout=0.01)
    finally:
        RELEASE.set()
    assert rewrite.rewrites == [] and rewrite.note is not None
    assert rewrite.note.startswith("query rewriting timed out after 0.01 s")


def test_without_rewriting_an_llm_is_asked_only_for_the_answer(index):
    llm = ScriptedLLM(script=["an answer"])
    index.as_query_engine(llm=llm).prepare("how do I correct static shift?")
    assert llm.prompts == []  # off unless rewrite_queries=True: the offline path is unchanged
