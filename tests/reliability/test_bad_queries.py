"""Bad queries and arguments give a clear result or a clear error.

A clear result is a ``RetrievedContext`` (possibly empty, with the tokens it
searched for) or a ``Response``; a clear error is ``QueryError`` from the API
and exit code 2 with one line on stderr from the CLI. Never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reliability_support import cli, cli_inproc

import codecite
from codecite.errors import QueryError
from codecite.retrievers.results import RetrievedContext

HUGE = "phase tensor " * 8_000  # ~104 KB, under the per-argument limit of execve
CONTROL = "phase\x01\x02\x1b[31m tensor\x7f\u200b"


@pytest.fixture(scope="module")
def index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


# -- clear results ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "tokens", "found"),
    [
        (HUGE, ["phase", "tensor"], True),
        ("phase\x00 tensor", ["phase", "tensor"], True),
        (CONTROL, ["phase", "tensor"], True),
        (".*+?[](){}^$|\\ (a|b) \\d+ (?P<x>)", [], False),
        ("the of and is to a", [], False),
        ("静态偏移 校正", ["静态偏移", "校正"], False),
        ("фаза тензор", ["фаза", "тензор"], False),
        ("\udcff phase", ["phase"], True),
    ],
)
def test_odd_queries_give_a_plain_result(
    index: codecite.CodeciteIndex, query: str, tokens: list[str], found: bool
) -> None:
    ctx = index.query(query, k=5)
    assert isinstance(ctx, RetrievedContext)
    assert [t for t in ctx.tokens if not t.isdigit() and t != "31m"] == tokens
    assert bool(ctx.nodes) is found
    response = index.ask(query)
    assert response.metadata["path"] in ("offline_answer", "clarification")


def test_non_latin_text_is_found(sample_repo: Path) -> None:
    (sample_repo / "docs" / "русский.md").write_text("# Фазовый тензор\n\nфаза тензор поворот\n")  # noqa: RUF001 (Cyrillic on purpose)
    (sample_repo / "docs" / "中文.md").write_text("# 静态偏移\n\n静态偏移 校正 方法\n")
    codecite.build(sample_repo)
    index = codecite.load(sample_repo)
    assert index.query("фаза", k=1).nodes[0].node.metadata["source_path"] == "docs/русский.md"
    assert index.query("静态偏移", k=1).nodes[0].node.metadata["source_path"] == "docs/中文.md"


def test_huge_k_returns_every_match(index: codecite.CodeciteIndex) -> None:
    everything = index.query("phase", k=10**9)
    assert 0 < len(everything.nodes) <= len(index.nodes)
    assert [n.node.node_id for n in index.query("phase", k=3).nodes] == [
        n.node.node_id for n in everything.nodes[:3]
    ]


# -- clear errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": ""}, "the query is empty"),
        ({"query": " \t\n "}, "the query is empty"),
        ({"query": None}, "the query is empty"),
        ({"query": b"phase"}, "the query is empty"),
        ({"query": "phase", "k": 0}, "k must be a positive integer, got 0"),
        ({"query": "phase", "k": -3}, "k must be a positive integer, got -3"),
        ({"query": "phase", "k": 2.5}, "k must be a positive integer, got 2.5"),
        ({"query": "phase", "k": "3"}, "k must be a positive integer, got '3'"),
        ({"query": "phase", "k": True}, "k must be a positive integer, got True"),
        ({"query": "phase", "kind": "nope"}, "unknown kind 'nope'; use one of python_symbol"),
        ({"query": "phase", "kind": ["recipe", 7]}, "unknown kind 7"),
        (
            {"query": "phase", "workflow": "nonexistent"},
            "no indexed node has workflow 'nonexistent'; workflows in this index: static_shift",
        ),
        ({"query": "phase", "path": "nowhere/"}, "no indexed file is under path 'nowhere/'"),
        ({"query": "phase", "path": "/"}, "no indexed file is under path '/'"),
        ({"query": "phase", "path": "geo"}, "no indexed file is under path 'geo'"),
        ({"query": "phase", "top_k": 40}, "unknown argument 'top_k'; it takes k (the number"),
    ],
)
def test_bad_query_arguments_raise_query_error(
    index: codecite.CodeciteIndex, kwargs: dict, message: str
) -> None:
    with pytest.raises(QueryError) as err:
        index.query(**kwargs)
    assert message in str(err.value)


def test_filters_that_match_still_work(index: codecite.CodeciteIndex) -> None:
    ctx = index.query("static shift", k=50, workflow="static_shift", path="/recipes/")
    assert ctx.nodes
    assert {n.node.metadata["workflow"] for n in ctx.nodes} == {"static_shift"}
    assert all(n.node.metadata["source_path"].startswith("recipes/") for n in ctx.nodes)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("",), {}, "the question is empty"),
        ((" \n\t",), {}, "the question is empty"),
        ((None,), {}, "the question is empty"),
        (("phase",), {"k": 0}, "k must be a positive integer, got 0"),
        (("phase",), {"k": -1}, "k must be a positive integer, got -1"),
        (("phase",), {"kind": "recipe"}, "ask() takes no argument 'kind'"),
        (("phase",), {"workflow": "static_shift"}, "ask() takes no argument 'workflow'"),
    ],
)
def test_bad_ask_arguments_raise_query_error(
    index: codecite.CodeciteIndex, args: tuple, kwargs: dict, message: str
) -> None:
    with pytest.raises(QueryError) as err:
        index.ask(*args, **kwargs)
    assert message in str(err.value)


def test_ask_k_is_the_evidence_size(index: codecite.CodeciteIndex) -> None:
    response = index.ask("how do I correct static shift?", k=2)
    assert len(response.source_nodes) <= 2


# -- the command line ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["query", ""], "the query is empty"),
        (["query", "   "], "the query is empty"),
        (["query", "phase", "-k", "0"], "k must be a positive integer, got 0"),
        (["query", "phase", "-k", "-5"], "k must be a positive integer, got -5"),
        (["query", "phase", "--kind", "nope"], "unknown kind 'nope'"),
        (["query", "phase", "--workflow", "nonexistent"], "no indexed node has workflow"),
        (["query", "phase", "--path", "nowhere"], "no indexed file is under path 'nowhere'"),
        (["ask", ""], "the question is empty"),
        (["ask", "  "], "the question is empty"),
        (["ask", "phase", "-k", "0"], "k must be a positive integer, got 0"),
    ],
)
def test_cli_bad_arguments_exit_2_with_one_line(
    built_sample: Path, argv: list[str], message: str
) -> None:
    code, out, err = cli_inproc(*argv, "-C", str(built_sample))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert err.startswith(f"codecite {argv[0]}: ")


@pytest.mark.parametrize(
    "text", [HUGE, CONTROL, ".*+?[](){}^$|\\", "the of and", "静态偏移", "фаза"]
)
def test_cli_odd_queries_exit_0(built_sample: Path, text: str) -> None:
    for command in ("query", "ask"):
        code, out, err = cli_inproc(command, text, "-C", str(built_sample), "-k", "1000000")
        assert code == 0 and "Traceback" not in err and out


def test_cli_real_process_never_tracebacks(built_sample: Path) -> None:
    """The same through real processes (argv encoding, exit codes, stderr)."""
    empty = cli("query", "", "-C", str(built_sample))
    assert empty.returncode == 2 and empty.stderr.count("\n") == 1
    huge = cli("query", HUGE, "-C", str(built_sample), "-k", "3")
    assert huge.returncode == 0 and "geokit" in huge.stdout
    odd = cli("ask", CONTROL, "-C", str(built_sample), "-k", "999999999")
    assert odd.returncode == 0 and "Traceback" not in odd.stderr
    not_int = cli("query", "phase", "-k", "many", "-C", str(built_sample))
    assert not_int.returncode == 2 and "invalid int value: 'many'" in not_int.stderr
    assert "Traceback" not in not_int.stderr
