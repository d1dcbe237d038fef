"""The query engine's three paths, the citation check, streaming, and no-run workflows."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from answers_support import ScriptedLLM, assert_citations_real
from conftest import FLOOR
from fixture_facts import SAMPLE_NODES
from llama_index.core import Settings
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import Response, StreamingResponse

from codecite.answers.answerer import CITE_AGAIN, UNCITED_NOTE
from codecite.answers.citations import check_citations, filter_stream
from codecite.answers.engine import WORKFLOW_RULE, CodeciteQueryEngine
from codecite.answers.texts import NO_RUN_NOTICE

PARAMS_Q = "what parameters does load_survey take?"
CITED = (
    'Call `load_survey(path, sort_by="lat")` to sort by latitude [1]. '
    "The usage guide shows a full example [2][9]."
)


def test_engine_is_a_llamaindex_query_engine(geokit_index) -> None:
    engine = geokit_index.as_query_engine()
    assert isinstance(engine, CodeciteQueryEngine) and isinstance(engine, BaseQueryEngine)
    response = engine.query(PARAMS_Q)
    assert isinstance(response, Response)
    keys = {
        "path",
        "confidence",
        "top_score",
        "intent",
        "workflow",
        "line",
        "citations",
        "degraded",
    }
    assert keys <= set(response.metadata)


# -- offline ------------------------------------------------------------------------------------


def test_offline_answer_composition(geokit_index) -> None:
    r = geokit_index.ask(PARAMS_Q)
    text = str(r)
    assert r.metadata["path"] == "offline_answer"
    assert text.startswith("Answer from the indexed sources (offline, no language model)")
    assert (
        '`geokit.io.load_survey` — `load_survey(path, *, sort_by="lon", strict=False)` [1]' in text
    )
    assert "Load every EDI file of a survey line folder." in text
    assert "From Usage guide > Loading a survey line [2]:" in text
    assert "[1] geokit/io.py:9-14 geokit.io.load_survey (python_symbol)" in text
    assert_citations_real(geokit_index.config.root, r)


def test_offline_answer_is_byte_identical_across_runs_and_processes(built_sample) -> None:
    import codecite

    questions = [
        PARAMS_Q,
        "how do I correct static shift on a survey line?",
        "write a script that computes the strike angle",
    ]
    first = [str(codecite.load(built_sample).ask(q)) for q in questions]
    second = [str(codecite.load(built_sample).ask(q)) for q in questions]
    assert first == second
    for seed in ("1", "987"):
        out = subprocess.run(
            [sys.executable, "-m", "codecite", "ask", questions[0], "-C", str(built_sample)],
            capture_output=True,
            text=True,
            check=True,
            env={
                "PYTHONHASHSEED": seed,
                "PATH": "",
                "HF_HUB_OFFLINE": "1",
                "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"],
            },
        )  # the key it was sealed with
        assert out.stdout == first[0].rstrip() + "\n"


def test_code_intent_gives_an_import_and_call_from_the_card(geokit_index) -> None:
    r = geokit_index.ask("write a script that computes the strike angle")
    assert r.metadata["intent"] == "code"
    assert "from geokit.phase import strike_angle\n\nresult = strike_angle(z)" in str(r)


def test_meta_question_describes_the_index(geokit_index) -> None:
    r = geokit_index.ask("what is codecite?")
    assert r.metadata["intent"] == "meta" and r.metadata["path"] == "offline_answer"
    assert f"About this index: codecite indexed {SAMPLE_NODES} nodes" in str(r)


def test_what_can_you_do_cites_the_readme_and_the_recipes(geokit_index) -> None:
    # no word of the question is in the corpus: the overview answers it, cited
    assert geokit_index.query("what can you do?").nodes == []
    r = geokit_index.ask("what can you do?")
    assert r.metadata["intent"] == "meta" and r.metadata["path"] == "offline_answer"
    cited = [(n.metadata["source_path"], n.metadata["kind"]) for n in r.source_nodes]
    assert cited[0] == ("README.md", "doc_section")
    assert ("recipes/static_shift.md", "recipe") in cited
    assert "A small toolkit for magnetotelluric survey processing" in str(r)


# -- the confidence decision with an explicit floor ----------------------------------------------


def test_clarification_below_the_floor_answer_above(floored_index) -> None:
    below = floored_index.ask("how do I correct static shift")
    above = floored_index.ask("what file format is assumed when a path has no suffix?")
    for r in (below, above):
        assert r.metadata["confidence"]["rule"] == "configured_floor"
        assert r.metadata["confidence"]["floor"] == FLOOR
    assert below.metadata["top_score"] == pytest.approx(3.15, abs=0.01)
    assert below.metadata["top_score"] < FLOOR
    assert below.metadata["path"] == "clarification" and below.source_nodes == []
    assert above.metadata["top_score"] == pytest.approx(7.94, abs=0.01)
    assert above.metadata["top_score"] >= FLOOR
    assert above.metadata["path"] == "offline_answer"
    assert above.metadata["citations"][0]["ref"] == "geokit/io.py:5-5"


def test_clarification_text_and_options(floored_index) -> None:
    r = floored_index.ask("how do I correct static shift")
    text = str(r)
    assert "What I understood: intent question." in text
    assert "(top score 3.15 < floor 4.00)." in text and "; score" not in text
    assert [o["option"] for o in r.metadata["options"]] == [1, 2, 3]
    assert r.metadata["options"][0] == {
        "option": 1,
        "kind": "recipe",
        "label": "Correct static shift on a survey line",
        "ref": "recipes/static_shift.md:7-10",
    }
    assert "Answer" not in text


def test_registry_mention_makes_a_weak_query_confident(floored_index) -> None:
    named = floored_index.ask("static shift for line 22")
    vague = floored_index.ask("static shift for the line")
    assert named.metadata["top_score"] < FLOOR and vague.metadata["top_score"] < FLOOR
    assert vague.metadata["path"] == "clarification"
    assert named.metadata["path"] == "offline_answer"
    assert named.metadata["confidence"]["rule"] == "project_context"
    assert named.metadata["line"] == {
        "name": "L22",
        "aliases": ["line 22", "northern line"],
        "path": "data/L22",
        "defaults": {"window": 7},
        "description": "northern survey line",
    }
    assert "Project context: L22; path data/L22; defaults window=7" in str(named)


# -- workflows are reported, never run ------------------------------------------------------


def test_workflow_request_is_reported_not_run(floored_index) -> None:
    before = set(sys.modules)
    r = floored_index.ask("run the static shift correction on line 22")
    assert r.metadata["intent"] == "workflow" and r.metadata["runs_anything"] is False
    text = str(r)
    assert NO_RUN_NOTICE in text
    assert "Running it needs your explicit confirmation of:" in text
    assert "the data it acts on: L22; path data/L22" in text
    assert 'calling `StaticShiftAgent(line, window: int = 5, method: str = "ama")`' in text
    assert not {m for m in set(sys.modules) - before if m.startswith("geokit")}


def test_workflow_with_llm_keeps_the_notice(floored_index) -> None:
    llm = ScriptedLLM(script=["Run StaticShiftAgent.run on the line data [1]."])
    r = floored_index.ask("run the static shift correction on line 22", llm=llm)
    assert r.metadata["path"] == "answer"
    assert WORKFLOW_RULE in llm.prompts[0]
    assert NO_RUN_NOTICE in str(r)


# -- the LLM path and the citation check ----------------------------------------------------


def test_llm_prompt_tags_sources_and_cited_answer_passes(geokit_index) -> None:
    llm = ScriptedLLM(script=["Call `load_survey(path)` [1]; see the usage guide [2]."])
    r = geokit_index.ask(PARAMS_Q, llm=llm)
    prompt = llm.prompts[0]
    assert "ONLY the numbered sources" in prompt and "Question: " + PARAMS_Q in prompt
    assert "[1] geokit/io.py:9-14 geokit.io.load_survey (python_symbol)" in prompt
    assert 'signature: load_survey(path, *, sort_by="lon", strict=False)' in prompt
    assert r.metadata["path"] == "answer"
    assert r.metadata["invalid_citations"] == [] and r.metadata["uncited"] is False
    assert [c["id"] for c in r.metadata["citations"]] == [1, 2]
    assert [n.node.metadata["source_path"] for n in r.source_nodes] == [
        "geokit/io.py",
        "docs/usage.md",
    ]


def test_invented_citation_is_removed_and_reported(geokit_index) -> None:
    r = geokit_index.ask(PARAMS_Q, llm=ScriptedLLM(script=[CITED]))
    assert r.metadata["invalid_citations"] == [9]
    assert "[9]" not in str(r) and str(r).endswith("full example [2].")
    assert r.metadata["cited_ids"] == [1, 2]


def test_an_uncited_answer_is_asked_again_then_replaced_by_the_cited_one(geokit_index) -> None:
    llm = ScriptedLLM(script=["It loads files [7]."])  # uncited, twice
    r = geokit_index.ask(PARAMS_Q, llm=llm)
    assert len(llm.prompts) == 2 and llm.prompts[1].startswith(CITE_AGAIN)
    assert r.metadata["uncited"] is True and r.metadata["invalid_citations"] == [7]
    assert r.metadata["llm_attempts"] == 2 and r.metadata["fallback"] == "uncited_llm_answer"
    assert r.metadata["path"] == "offline_answer"
    offline = geokit_index.ask(PARAMS_Q)
    assert str(r) == f"{UNCITED_NOTE}\n\n{offline}"
    assert [n.node.node_id for n in r.source_nodes] == [
        n.node.node_id for n in offline.source_nodes
    ]
    assert r.metadata["citations"] == offline.metadata["citations"]


def test_a_second_attempt_that_cites_is_the_answer(geokit_index) -> None:
    llm = ScriptedLLM(script=["It loads files.", "It loads files [1]."])
    r = geokit_index.ask(PARAMS_Q, llm=llm)
    assert r.metadata["path"] == "answer" and r.metadata["llm_attempts"] == 2
    assert str(r) == "It loads files [1]." and r.metadata["uncited"] is False
    assert "fallback" not in r.metadata


def test_a_streamed_uncited_answer_is_followed_by_the_cited_one(geokit_index) -> None:
    engine = geokit_index.as_query_engine(llm=ScriptedLLM(script=["No source."]), streaming=True)
    r = engine.query(PARAMS_Q)
    text = "".join(r.response_gen)
    assert text.startswith("No source.\n\n" + UNCITED_NOTE)
    assert r.metadata["fallback"] == "uncited_llm_answer" and r.source_nodes


def test_not_confident_never_calls_the_llm(geokit_index) -> None:
    llm = ScriptedLLM(script=["Bread needs flour [1]."])
    r = geokit_index.ask("how do I bake bread", llm=llm)
    assert r.metadata["path"] == "clarification" and llm.prompts == []


def test_settings_llm_is_used_only_when_set(geokit_index, monkeypatch) -> None:
    monkeypatch.setattr(Settings, "_llm", None)
    assert geokit_index.ask(PARAMS_Q).metadata["path"] == "offline_answer"
    assert Settings._llm is None  # no default (OpenAI) LLM was created
    monkeypatch.setattr(Settings, "_llm", ScriptedLLM(script=["From [1]."]))
    assert geokit_index.ask(PARAMS_Q).metadata["path"] == "answer"


def test_streaming_filters_invalid_ids_across_chunks(geokit_index) -> None:
    engine = geokit_index.as_query_engine(llm=ScriptedLLM(script=[CITED], chunk=2), streaming=True)
    r = engine.query(PARAMS_Q)
    assert isinstance(r, StreamingResponse)
    text = "".join(r.response_gen)
    assert "[9]" not in text and "[1]" in text and "[2]" in text
    assert r.metadata["invalid_citations"] == [9] and r.metadata["uncited"] is False
    assert len(r.source_nodes) == 2


@pytest.mark.parametrize(
    ("text", "valid", "clean", "invalid"),
    [
        ("a [1] b [2, 5] c [5].", {1, 2}, "a [1] b [2] c.", (5,)),
        ("x [1][3]", {1, 3}, "x [1][3]", ()),
        ("see [12; 1]", {1}, "see [1]", (12,)),
        ("no ids at all", {1}, "no ids at all", ()),
        ("list [a] and [ 2 ]", {2}, "list [a] and [2]", ()),
    ],
)
def test_check_citations(text: str, valid: set[int], clean: str, invalid: tuple) -> None:
    check = check_citations(text, valid)
    assert (check.text, check.invalid) == (clean, invalid)


def test_filter_stream_equals_the_batch_check() -> None:
    text = "A [1] then [2][9] and [10, 1] end [3"
    done = []
    for size in (1, 2, 3, 7):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        out = "".join(filter_stream(chunks, {1, 2}, done.append))
        assert out == check_citations(text, {1, 2}).text
    assert all(d.invalid == (9, 10) for d in done)


def test_dense_fallback_is_visible_in_the_answer(geokit_index) -> None:
    r = geokit_index.ask(PARAMS_Q, dense=True)  # the fixture index has no vectors
    assert r.metadata["path"] == "offline_answer"
    assert "no vectors" in r.metadata["degraded"]


def test_a_vague_or_foreign_question_shows_no_score_it_was_not_judged_by(geokit_index) -> None:
    vague = str(geokit_index.ask("nothing works since I updated, can you take a look?"))
    assert "too vague" in vague and "say which function, option, message or task" in vague
    assert "score " not in vague and "floor " not in vague
    foreign = str(geokit_index.ask("how do I plot the survey line with Plotly?"))
    assert "Plotly does not occur in the indexed corpus" in foreign
    assert "score " not in foreign
    # a decision a number made still shows the number (test_clarification_text_and_options)
