"""Routing: intents by readable default phrases, configured phrases, workflow inference."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecite.answers.routing import Route, classify_intent, content_query, route_query
from codecite.config.model import CodeciteConfig, WorkflowRule


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("write a script that loads a survey line", "code"),
        ("give me code to compute the strike angle", "code"),
        ("run the static shift correction on L22", "workflow"),
        ("apply static shift correction to line 22", "workflow"),
        ("please correct my data for static shift", "workflow"),
        ("how do I apply the static shift correction?", "question"),  # asks how, not to act
        ("what does StaticShiftAgent.run return?", "question"),  # a dotted name, not "run"
        ("what is indexed by codecite?", "meta"),
        ("what can you do?", "meta"),
        ("static shift correction", "question"),
        ("what workflows are supported?", "meta"),  # the assistant's catalogue
        ("list the recipes you know", "meta"),
        ("what does the static shift workflow do?", "question"),  # one named thing
        ("process line 22", "question"),  # no workflows configured: only a word
        ("run git log as a child program", "workflow"),  # opens the request
        ("I only want my handler to run when one object emits the event", "question"),
        ("if one plugin raises, do the others still run?", "question"),  # ends with "?"
    ],
)
def test_default_intents(query: str, intent: str) -> None:
    assert route_query(query).intent == intent


def test_configured_phrases_extend_and_win() -> None:
    cfg = CodeciteConfig(
        root=Path("."), intents={"workflow": ("reprocess",), "plot": ("draw", "plot")}
    )
    assert route_query("reprocess line 22", cfg).intent == "workflow"
    assert route_query("draw a rose diagram", cfg) == Route("plot", None, "draw")
    assert route_query("write a script", cfg).intent == "code"  # defaults still apply


def test_workflow_inference_uses_configured_rules() -> None:
    cfg = CodeciteConfig(
        root=Path("."),
        workflows=(
            WorkflowRule("static_shift", ("static shift", "galvanic")),
            WorkflowRule("phase", ("phase tensor", "strike")),
        ),
    )
    assert route_query("remove the galvanic static shift", cfg).workflow == "static_shift"
    assert route_query("strike from the phase tensor", cfg).workflow == "phase"
    assert route_query("how do I bake bread", cfg).workflow is None


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("denoise the survey data", "workflow"),  # a workflow's one-word keyword
        ("please process line L18PLT", "workflow"),
        ("correct galvanic static shift with the AMA method", "workflow"),
        ("how do I denoise the survey data?", "question"),
        ("the denoise step fails", "question"),  # the keyword is not the request
        ("estimate_ss_ama parameters", "question"),  # a symbol name, not a verb
    ],
)
def test_with_workflows_a_request_may_open_with_its_verb(query: str, intent: str) -> None:
    cfg = CodeciteConfig(
        root=Path("."),
        workflows=(
            WorkflowRule("denoise", ("denoise", "hampel", "estimate_ss_ama")),
            WorkflowRule("static_shift", ("static shift", "galvanic")),
        ),
    )
    assert route_query(query, cfg).intent == intent


def test_routing_is_deterministic() -> None:
    q = "write a script to run static shift"
    assert {classify_intent(q) for _ in range(5)} == {("code", "write a script")}


def test_content_query_drops_the_request_phrase() -> None:
    route = route_query("write a script that computes the strike angle")
    assert (
        content_query("write a script that computes the strike angle", route)
        == "computes the strike angle"
    )
    short = route_query("run it")
    assert content_query("run it", short) == "run it"  # too little would remain


@pytest.mark.parametrize(
    ("query", "content"),
    [
        ("give me code to compute the strike angle", "compute the strike angle"),
        # a workflow request keeps its verb: it may name the API (trio's run_process)
        ("run git log as a child program", "run git log as a child program"),
        ("write a script that computes the strike angle", "computes the strike angle"),
        # the phrase inside the query is its topic, not a request: kept
        (
            "I want my script to act as a websocket client",
            "I want my script to act as a websocket client",
        ),
    ],
)
def test_content_query_drops_only_the_phrase_the_request_opens_with(query, content) -> None:
    assert content_query(query, route_query(query)) == content
