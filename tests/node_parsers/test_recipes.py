"""Recipe parsing: front matter, workflow fallbacks, recipe nodes."""

from __future__ import annotations

import dataclasses

import pytest
from llama_index.core import Document
from llama_index.core.node_parser.interface import NodeParser

from codecite.node_parsers.docs import parse_markdown
from codecite.node_parsers.recipes import (
    RecipeInfo,
    RecipeNodeParser,
    parse_front_matter,
    parse_recipe,
)

INDEX_RECIPE = (
    "\n".join(
        [
            "---",  # 1
            "workflow: index_repo",  # 2
            'intents: ["index a new repository", "build the index"]',  # 3
            "inputs: ['a repository path']",  # 4
            "outputs:",  # 5
            "  - .codecite/ index",  # 6
            '  - "manifest.json"',  # 7
            "# a comment",  # 8
            "---",  # 9
            "# Index a new repository",  # 10
            "",  # 11
            "Run `codecite build` in the repository.",  # 12
            "",  # 13
            "## Steps",  # 14
            "",  # 15
            "1. Call :func:`codecite.load`.",  # 16
            "2. Check `Index.stats()`.",  # 17
        ]
    )
    + "\n"
)


def test_front_matter_recipe_info():
    _, info = parse_recipe(INDEX_RECIPE, "recipes/index.md")
    assert info == RecipeInfo(
        source_path="recipes/index.md",
        workflow="index_repo",
        title="Index a new repository",
        intents=("index a new repository", "build the index"),
        inputs=("a repository path",),
        outputs=(".codecite/ index", "manifest.json"),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.workflow = "other"  # type: ignore[misc]


def test_recipe_nodes_kind_workflow_real_lines_and_text():
    nodes, _ = parse_recipe(INDEX_RECIPE, "recipes/index.md")
    assert [
        (n.metadata["heading_path"], n.metadata["start_line"], n.metadata["end_line"])
        for n in nodes
    ] == [(["Index a new repository"], 10, 12), (["Index a new repository", "Steps"], 14, 17)]
    assert {n.metadata["kind"] for n in nodes} == {"recipe"}
    assert {n.metadata["workflow"] for n in nodes} == {"index_repo"}
    assert nodes[0].text == (
        "recipe Index a new repository (workflow index_repo)\n"
        "intents: index a new repository; build the index\n"
        "Index a new repository\n\nRun `codecite build` in the repository."
    )
    assert nodes[1].text.startswith(
        "recipe Index a new repository (workflow index_repo)\n"
        "Index a new repository > Steps\n\n1. Call"
    )
    assert "intents:" not in nodes[1].text
    assert nodes[1].metadata["refs"] == ["codecite.load", "Index.stats"]


def test_workflow_from_bold_line_without_front_matter():
    text = "# Ask a question\n\n**Workflow:** ask_question\n\nUse `codecite ask`.\n"
    nodes, info = parse_recipe(text, "recipes/ask.md")
    assert (info.workflow, info.title, info.intents) == ("ask_question", "Ask a question", ())
    assert nodes[0].metadata["workflow"] == "ask_question"
    assert nodes[0].text.startswith("recipe Ask a question (workflow ask_question)\nAsk a")


@pytest.mark.parametrize(
    "line",
    [
        "Workflow: validate",
        "workflow:validate",
        "WORKFLOW: `validate`",
        "- **Workflow**: validate",
        "__Workflow:__ validate",
    ],
)
def test_workflow_line_variants(line):
    text = f"Intro paragraph.\n\n{line}\n\n# Validate code\n\nsteps\n"
    assert parse_recipe(text, "recipes/x.md")[1].workflow == "validate"


def test_workflow_line_after_second_heading_is_ignored_and_stem_used():
    text = "# Validate generated code\n\nintro\n\n## Notes\n\nWorkflow: wrong\n"
    _, info = parse_recipe(text, "recipes/Validate-Code.md")
    assert (info.workflow, info.title) == ("validate_code", "Validate generated code")


def test_no_heading_title_and_section_from_stem():
    nodes, info = parse_recipe("Just run `codecite eval`.\n", "recipes/run_evals.md")
    assert (info.workflow, info.title) == ("run_evals", "run_evals")
    assert nodes[0].metadata["heading_path"] == ["run_evals"]
    assert (nodes[0].metadata["start_line"], nodes[0].metadata["end_line"]) == (1, 1)


def test_front_matter_title_and_workflow_line_fallback():
    text = (
        "---\ntitle: 'Answer with citations'  \nintents: cite an answer\n---\n"
        "# Ask\n\n- Workflow: ask\n\nSteps.\n"
    )
    nodes, info = parse_recipe(text, "recipes/a.md")
    assert (info.workflow, info.title, info.intents) == (
        "ask",
        "Answer with citations",
        ("cite an answer",),
    )
    assert nodes[0].text.startswith(
        "recipe Answer with citations (workflow ask)\nintents: cite an answer\nAsk\n\n"
    )
    assert nodes[0].metadata["start_line"] == 5


def test_parse_front_matter_values():
    lines = [
        "---",
        'workflow: "eval"  ',
        "title: Run evals # trailing comment",
        "intents: [run the evals, 'score retrieval', \"a, b\"]",
        "unknown: 3",
        "inputs:",
        "- suite.jsonl",
        "- 'other.jsonl'",
        "---",
        "# Body",
    ]
    fields, end = parse_front_matter(lines)
    assert end == 9
    assert fields == {
        "workflow": "eval",
        "title": "Run evals",
        "intents": ["run the evals", "score retrieval", "a, b"],
        "inputs": ["suite.jsonl", "other.jsonl"],
    }


def test_unclosed_front_matter_is_body():
    text = "---\nworkflow: nope\n\n# Title\n\nbody\n"
    assert parse_front_matter(text.splitlines()) == ({}, 0)
    nodes, info = parse_recipe(text, "recipes/open.md")
    assert info.workflow == "nope"  # read by the ``Workflow: name`` line convention
    assert nodes[0].metadata["heading_path"] == ["open"]


def test_recipe_nodes_respect_max_chars_with_header():
    body = "\n\n".join(f"Step {i}: " + "configure the index carefully " * 6 for i in range(40))
    text = (
        '---\nworkflow: tune\nintents: ["tune ranking", "change boosts"]\n---\n'
        "# Tune ranking\n\n" + body + "\n"
    )
    nodes, _ = parse_recipe(text, "recipes/tune.md", max_chars=800)
    assert len(nodes) > 5
    assert all(len(n.text) <= 800 for n in nodes)
    assert nodes[0].metadata["start_line"] == 5
    assert nodes[-1].metadata["end_line"] == len(text.splitlines())


def test_recipe_ids_stable_and_distinct_from_doc_sections():
    first, _ = parse_recipe(INDEX_RECIPE, "recipes/index.md")
    again, _ = parse_recipe(INDEX_RECIPE, "recipes/index.md")
    docs = parse_markdown(INDEX_RECIPE, "recipes/index.md")
    assert [n.node_id for n in first] == [n.node_id for n in again]
    assert not {n.node_id for n in first} & {n.node_id for n in docs}


def test_recipe_node_parser_in_llamaindex(tmp_path):
    path = tmp_path / "index.md"
    path.write_text(INDEX_RECIPE, encoding="utf-8")
    parser = RecipeNodeParser()
    assert isinstance(parser, NodeParser)
    assert RecipeNodeParser.class_name() == "CodeciteRecipeNodeParser"
    doc = Document(
        text=path.read_text(encoding="utf-8"), metadata={"source_path": "recipes/index.md"}
    )
    nodes = parser.get_nodes_from_documents([doc])
    assert [n.node_id for n in nodes] == [
        n.node_id for n in parse_recipe(INDEX_RECIPE, "recipes/index.md")[0]
    ]
    assert all(n.metadata["workflow"] == "index_repo" for n in nodes)
