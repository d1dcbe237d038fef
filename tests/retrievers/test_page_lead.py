"""The page lead: a docs question's page first, with no code node leaving the top five."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import codecite
from codecite.retrievers.evidence import judge
from codecite.retrievers.explain import explain_text
from codecite.retrievers.page_lead import TOP, led

CORE = '''"""The command runner."""


def process_commands(commands, output=None):
    """Process commands in order and collect their output."""
    for command in commands:
        output = run_command(command, output)
    return output


def run_command(command, output=None):
    """Run one command on the output of another."""
    return command(output)


def format_output(output):
    """Format the output of commands for the terminal."""
    return str(output)
'''
PIPELINES = """# Pipelines

## Chaining commands like a Unix pipe

Chained commands form a pipeline: each one is processing the stream its
predecessor yielded, the way shell pipes connect programs. Return a generator
from every chained step and pass the pipeline to the runner.
"""
QUESTION = "how do I chain commands so each processes the output of another, like pipes"


@pytest.fixture(scope="module")
def chainkit(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    root = tmp_path_factory.mktemp("lead") / "chainkit"
    (root / "src" / "chainkit").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "chainkit" / "__init__.py").write_text('"""Chain small commands."""\n')
    (root / "src" / "chainkit" / "core.py").write_text(CORE)
    (root / "docs" / "pipelines.md").write_text(PIPELINES)
    (root / "docs" / "install.md").write_text("# Installing\n\nInstall chainkit with pip.\n")
    codecite.build(root)
    return codecite.load(root)


def _labels(ctx: codecite.RetrievedContext) -> list[str]:
    return [n.node.metadata.get("symbol") or n.node.metadata["heading"] for n in ctx.nodes]


def _code_in_top(ctx: codecite.RetrievedContext) -> list[str]:
    return [n.node.node_id for n in ctx.nodes[:TOP] if n.node.metadata["kind"].startswith("py")]


def test_a_docs_question_finds_its_page_first_through_the_pages_word_forms(
    chainkit: codecite.CodeciteIndex,
) -> None:
    ctx = chainkit.query(QUESTION, k=6)
    without = chainkit.with_settings(page_lead=False).query(QUESTION, k=6)
    page = "Chaining commands like a Unix pipe"
    assert _labels(ctx)[0] == page and ctx.page_lead == f"Pipelines > {page}"
    assert without.nodes[0].node.metadata["kind"] == "python_symbol" and without.page_lead is None
    assert page in _labels(without)[1:]  # ranked on its own words alone, it came lower
    assert _code_in_top(ctx) == _code_in_top(without)  # the code of the top five stays
    led_row = ctx.breakdown[ctx.nodes[0].node.node_id]
    assert led_row.bm25_v > 0 and led_row.recompose() == pytest.approx(ctx.nodes[0].score)
    assert ctx.nodes[0].score > ctx.nodes[1].score
    assert "page lead:       Pipelines > Chaining commands like a Unix pipe first" in explain_text(
        ctx
    )
    assert ctx.to_json()["page_lead"] == ctx.page_lead


def test_a_query_that_names_a_symbol_is_not_led(chainkit: codecite.CodeciteIndex) -> None:
    ctx = chainkit.query("process_commands: chain them like pipes", k=6)
    assert ctx.page_lead is None
    assert _labels(ctx)[0] == "chainkit.core.process_commands"


def test_the_answer_or_ask_decision_reads_the_ranking_without_the_lead(
    chainkit: codecite.CodeciteIndex,
) -> None:
    on, off = chainkit.scorer(10), chainkit.with_settings(page_lead=False).scorer(10)
    shown, plain = on.retrieve_context(QUESTION), off.retrieve_context(QUESTION)
    assert shown.page_lead is not None and plain.page_lead is None
    assert judge(on, shown).features == judge(off, plain).features
    assert _labels(on.retrieve_context(QUESTION, lead=False)) == _labels(plain)


def test_no_code_node_leaves_the_top_five_on_the_sample_repository(built_sample: Path) -> None:
    index = codecite.load(built_sample)
    on, off = index.scorer(10), index.with_settings(page_lead=False).scorer(10)
    questions = {
        " ".join(words)
        for node in index.nodes
        for sentence in re.split(r"[.\n]", node.get_content())
        if 4 <= len(words := sentence.split()) <= 14
    }
    led_any = 0
    for q in sorted(questions):
        shown, plain = on.retrieve_context(q), off.retrieve_context(q)
        led_any += shown.page_lead is not None
        assert _code_in_top(shown) == _code_in_top(plain), q
        assert judge(on, shown).features == judge(off, plain).features, q
    assert led_any >= 1  # the rule does act on this corpus


PAGE = np.array([False, False, True, False, False, True, True, False])  # rows 2, 5, 6 pages


def test_a_lead_from_below_the_top_five_sends_a_page_there_to_sixth() -> None:
    assert led([0, 1, 2, 3, 4, 7, 6], 6, PAGE) == [6, 0, 1, 3, 4, 2, 7]


def test_a_lead_in_the_top_five_moves_up_and_nothing_else_moves() -> None:
    assert led([0, 1, 3, 5, 4, 7], 5, PAGE) == [5, 0, 1, 3, 4, 7]


def test_no_lead_when_it_would_push_code_out_of_the_top_five() -> None:
    assert led([0, 1, 3, 4, 7, 2], 6, PAGE) is None  # the top five is all code


def test_no_lead_when_a_page_is_first_already() -> None:
    assert led([2, 0, 1, 3, 4], 6, PAGE) is None
    assert led([], 6, PAGE) is None
