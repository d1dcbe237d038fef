"""Query and build regexes are linear, and their output did not change.

Each rewritten regex is compared with the one it replaced (copied below as the
reference) on short random strings, where the old one is fast, and on every line
of the fixture repository. Linearity is shown without a clock: the new code runs
on 100,000-character inputs that the old code took minutes on (a quadratic
regex would hang the suite visibly), and each fixed pattern keeps the leading
assertion that stops it from being retried inside a run. The timings, old
against new, are in ``tests/benchmarks/bench_long_query.py``.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from regex_reference import (
    OLD_ATX,
    OLD_ATX_CLOSER,
    OLD_CALL_OR_DOTTED,
    OLD_CODE_SPAN,
    OLD_TRAILING_COMMENT,
    OLD_WORKFLOW_LINE,
    old_expansion_pattern,
    old_identifier_mentions,
    old_named_unknowns,
    old_routing_pattern,
)

import codecite
from codecite.answers import routing
from codecite.node_parsers import docs, recipes
from codecite.retrievers import evidence as confidence
from codecite.retrievers import expansion, tokenizer
from codecite.retrievers.results import RetrievedContext
from codecite.retrievers.tokenizer import MAX_QUERY_CHARS, Mentions, identifier_mentions

FIXTURE_REPO = Path(__file__).parents[1] / "fixtures" / "sample_repo"
BIG = 100_000


def matches(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


def texts(*pieces: str, max_size: int = 40) -> st.SearchStrategy[str]:
    """Short strings made of the pieces a pattern cares about (the old regex is fast)."""
    return st.lists(st.sampled_from(pieces), max_size=max_size).map("".join)


IDENTIFIERISH = texts(
    "a",
    "b",
    "Z",
    "_",
    "1",
    "é",
    "静",
    ".",
    "..",
    "(",
    ")",
    "`",
    "``",
    " ",
    "\t",
    "\n",
    "-",
    ",",
    "ab",
    "a.b",
    "f(",
    "x.y(",
    "`a`",
)
HEADINGISH = texts("#", "##", "###", " ", "  ", "\t", "a", "b c", "\n", "\r", "\\#", "`")
RECIPEISH = texts(
    "workflow",
    "Workflow",
    "WORKFLOW",
    ":",
    " ",
    "\t",
    "**",
    "__",
    "*",
    "-",
    "+",
    "`",
    "a",
    "a.b",
    "x-y",
    "#",
    "\n",
    "_",
)
PHRASEISH = texts(
    "run",
    "RUN",
    "do the same",
    "do",
    "the",
    "same",
    " ",
    ".",
    "a",
    "_",
    "1",
    "\n",
    "é",
    "(",
    "that",
    "to",
)
NAMEISH = texts(
    "Celery",
    "redis",
    "PyPI",
    "phase",
    "Phase",
    "TypeError",
    "ok",
    "HTTP",
    "x",
    "A",
    " ",
    "  ",
    "\n",
    "\t",
    ".",
    "?",
    ":",
    "(",
    "'",
    "a.B",
    "_",
    "1",
    "é",
)


# -- equivalence: the new patterns give the old results ---------------------------------


@given(IDENTIFIERISH)
def test_call_or_dotted_matches_the_old_regex(text: str) -> None:
    assert matches(tokenizer._CALL_OR_DOTTED, text) == matches(OLD_CALL_OR_DOTTED, text)


@given(IDENTIFIERISH)
def test_code_span_matches_the_old_regex(text: str) -> None:
    assert matches(tokenizer._CODE_SPAN, text) == matches(OLD_CODE_SPAN, text)


@given(IDENTIFIERISH)
def test_identifier_mentions_are_unchanged(text: str) -> None:
    assert identifier_mentions(text) == old_identifier_mentions(text)


@given(HEADINGISH)
def test_atx_heading_matches_the_old_regex(line: str) -> None:
    old, new = OLD_ATX.match(line), docs._ATX.match(line)
    assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups()))
    assert docs._ATX_CLOSER.sub("", line) == OLD_ATX_CLOSER.sub("", line)
    assert matches(docs._ATX_CLOSER, line) == matches(OLD_ATX_CLOSER, line)


@given(RECIPEISH)
def test_recipe_regexes_match_the_old_ones(line: str) -> None:
    old, new = OLD_WORKFLOW_LINE.match(line), recipes._WORKFLOW_LINE.match(line)
    assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups()))
    assert recipes._TRAILING_COMMENT.sub("", line) == OLD_TRAILING_COMMENT.sub("", line)


@given(PHRASEISH, st.sampled_from(["run", "do the same", "a", "do", "the same", "1"]))
def test_phrase_patterns_match_the_old_ones(text: str, phrase: str) -> None:
    new, old = routing._phrase_pattern(phrase), old_routing_pattern(phrase)
    assert matches(re.compile(new), text) == matches(re.compile(old), text)
    assert matches(re.compile(new, re.I), text) == matches(re.compile(old, re.I), text)
    assert expansion._contains_phrase(text, phrase) == (
        re.search(old_expansion_pattern(phrase), text) is not None
    )


@given(NAMEISH)
def test_named_unknowns_are_unchanged(query: str) -> None:
    vocab = {"phase": 0, "pypi": 1, "x": 2}
    assert confidence.named_unknowns(query, vocab) == old_named_unknowns(query, vocab)


def grammar(*slots: tuple[str, ...]) -> list[str]:
    """Every string in the shape a parser regex is about, one choice per slot (random
    strings alone rarely reach such shapes)."""
    return ["".join(parts) for parts in itertools.product(*slots)]


def test_parser_regexes_match_the_old_ones_on_every_line_shape() -> None:
    headings = grammar(
        ("", " ", "    "),
        ("", "#", "###", "#######"),
        ("", " ", "\t "),
        ("", "a", "b c", "#", "\\#", "\r"),
        ("", " ", "\t"),
        ("", "#", "##", "a#"),
        ("", " "),
        ("", "\n", "\nx"),
    )
    for line in headings:
        old, new = OLD_ATX.match(line), docs._ATX.match(line)
        assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups()))
        assert docs._ATX_CLOSER.sub("", line) == OLD_ATX_CLOSER.sub("", line), repr(line)
    workflow_lines = grammar(
        ("", " ", "- ", "*\t"),
        ("", "**", "__", "*"),
        ("workflow", "WorkFlow", "work"),
        ("", "**", "_"),
        ("", " \t"),
        ("", ":"),
        ("", " ", "  "),
        ("", "**", "__", "*"),
        ("", " "),
        ("", "`", "``"),
        ("", "a", "a.b-c", " "),
        ("", "`", "*", " # x", "\n"),
    )
    for line in workflow_lines:
        old, new = OLD_WORKFLOW_LINE.match(line), recipes._WORKFLOW_LINE.match(line)
        assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups()))
    for line in grammar(
        ("", "v", "'v"),
        ("", " ", " \t", "\t\t"),
        ("", "#", "##"),
        ("", " c", "\n", " # d", "\nx"),
        ("", " ", "\n"),
    ):
        assert recipes._TRAILING_COMMENT.sub("", line) == OLD_TRAILING_COMMENT.sub("", line)


def test_tokenizer_regexes_match_the_old_ones_on_every_short_string() -> None:
    for n in range(7):
        for chars in itertools.product("a.(` é", repeat=n):
            text = "".join(chars)
            assert matches(tokenizer._CALL_OR_DOTTED, text) == matches(OLD_CALL_OR_DOTTED, text), (
                repr(text)
            )
            assert matches(tokenizer._CODE_SPAN, text) == matches(OLD_CODE_SPAN, text)


def _fixture_lines() -> list[str]:
    return [
        line
        for path in sorted(FIXTURE_REPO.rglob("*"))
        if path.is_file()
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
    ]


def test_fixture_corpus_gives_the_old_results() -> None:
    lines = _fixture_lines()
    assert len(lines) > 200
    whole = "\n".join(lines)
    assert identifier_mentions(whole) == old_identifier_mentions(whole)
    for line in lines:
        assert identifier_mentions(line) == old_identifier_mentions(line), line
        assert matches(tokenizer._CALL_OR_DOTTED, line) == matches(OLD_CALL_OR_DOTTED, line)
        for new, old in ((docs._ATX, OLD_ATX), (recipes._WORKFLOW_LINE, OLD_WORKFLOW_LINE)):
            n, o = new.match(line), old.match(line)
            assert (n and (n.span(), n.groups())) == (o and (o.span(), o.groups())), line
        assert recipes._TRAILING_COMMENT.sub("", line) == OLD_TRAILING_COMMENT.sub("", line)
        assert docs._ATX_CLOSER.sub("", line) == OLD_ATX_CLOSER.sub("", line)
        vocab = {"geokit": 0}
        assert confidence.named_unknowns(line, vocab) == old_named_unknowns(line, vocab)


# -- linearity, without a clock ----------------------------------------------------------


def test_fixed_patterns_start_only_where_a_run_starts() -> None:
    """The leading assertion is what keeps each from being retried inside a long run."""
    assert tokenizer._CALL_OR_DOTTED.pattern.startswith(r"(?<!\w)")
    assert tokenizer._CODE_SPAN.pattern.startswith(r"(?<!`)")
    assert r"(?:^|(?<![ \t])[ \t]+)" in docs._ATX_CLOSER.pattern
    assert recipes._TRAILING_COMMENT.pattern.startswith(r"(?<![ \t])")
    assert ".*?" not in docs._ATX.pattern  # a lazy title re-scanned the trailing blanks
    assert routing._phrase_pattern("run").startswith("run")  # the literal first: fast scan


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("a" * BIG, []),
        ("é" * BIG, []),
        ("A" * BIG + ".", []),
        ("a" * BIG + ".b", ["a" * BIG + ".b"]),
        ("a" * BIG + "(", ["a" * BIG]),
        ("a." * (BIG // 2), ["a." * (BIG // 2 - 1) + "a"]),
        ("a(" * (BIG // 2), ["a"] * (BIG // 2)),
    ],
)
def test_call_or_dotted_on_100k_characters(text: str, found: list[str]) -> None:
    assert tokenizer._CALL_OR_DOTTED.findall(text) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("`" * BIG, []),
        ("`" * BIG + "a", []),
        ("`" * BIG + "a`", ["a"]),
        ("`a" * (BIG // 2), ["a"] * (BIG // 4)),
    ],
)
def test_code_span_on_100k_characters(text: str, found: list[str]) -> None:
    assert tokenizer._CODE_SPAN.findall(text) == found


def test_parser_regexes_on_100k_character_lines() -> None:
    blanks = " \t" * (BIG // 2)
    assert docs._ATX.match("# a" + blanks + "x").group(2) == "a" + blanks + "x"
    assert docs._ATX.match("# a" + blanks).group(2) == "a"
    assert docs._ATX_CLOSER.sub("", "title" + blanks + "x") == "title" + blanks + "x"
    assert docs._ATX_CLOSER.sub("", "title" + blanks + "##") == "title"
    assert recipes._WORKFLOW_LINE.match("**workflow**: " + blanks + "`") is None
    assert recipes._WORKFLOW_LINE.match("workflow:" + blanks + "**`x`").group(1) == "x"
    assert recipes._TRAILING_COMMENT.sub("", "v" + blanks + "x") == "v" + blanks + "x"
    assert recipes._TRAILING_COMMENT.sub("", "v" + blanks + "# note") == "v"
    assert recipes._unquote("value" + " " * BIG + "# comment") == "value"


def test_identifier_mentions_read_the_first_20000_characters() -> None:
    mentions = identifier_mentions("a" * BIG)
    assert mentions == Mentions(frozenset({"a" * MAX_QUERY_CHARS}), frozenset())
    assert identifier_mentions("x" * BIG + "(").code == frozenset()  # "(" is past the limit
    assert identifier_mentions("f(" * (BIG // 2)).code == {"f"}


def test_named_unknowns_on_a_query_of_many_names() -> None:
    query = "Load " * (BIG // 5)
    assert confidence.named_unknowns(query, {"load": 0}) == []
    assert confidence.named_unknowns(query, {}) == ["Load"] * (BIG // 5 - 1)  # not the first
    assert confidence.named_unknowns("x" + " " * BIG + "Celery", {}) == ["Celery"]


# -- end to end: 100,000-character queries give sane results ---------------------------------

LONG_QUERIES = {
    "word": "a" * BIG,
    "camel": "Ab" * (BIG // 2),
    "dotted": "a." * (BIG // 2),
    "calls": "a(" * (BIG // 2),
    "backticks": "`" * BIG,
    "code spans": "`a" * (BIG // 2),
    "blanks": "x" + " " * (BIG - 2) + "y",
    "dots": "." * BIG,
    "names": "Load " * (BIG // 5),
    "prose": "phase tensor " * (BIG // 13),
}
FINDS_SOMETHING = {"names", "prose"}  # "load", "phase" and "tensor" are in the fixture


@pytest.fixture(scope="module")
def index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


@pytest.mark.parametrize("shape", sorted(LONG_QUERIES))
def test_100k_query_through_query_ask_and_tools(index: codecite.CodeciteIndex, shape: str) -> None:
    query = LONG_QUERIES[shape]
    assert len(query) >= BIG - 13
    ctx = index.query(query, k=5)
    assert isinstance(ctx, RetrievedContext)
    assert ctx.tokens == tokenizer.query_tokens(query)
    assert bool(ctx.nodes) is (shape in FINDS_SOMETHING)
    response = index.ask(query)
    assert response.metadata["path"] in ("offline_answer", "clarification")
    ask, search, _ = codecite.as_tools(index)
    rows = json.loads(search.call(query=query, k=3).content)["results"]
    assert len(rows) == (min(3, len(ctx.nodes)) if shape in FINDS_SOMETHING else 0)
    assert ask.call(input=query).content


@pytest.mark.parametrize(
    "text", ["a" * BIG, "aB" * (BIG // 2), "a." * (BIG // 2), "a(" * (BIG // 2), "from " * BIG]
)
def test_name_resolution_reads_100k_characters_in_one_pass(text: str) -> None:
    from codecite.retrievers import names, written

    patterns = (written._CALLED, written._DOTTED, written._WORD, written._KEYWORD_ARGUMENT)
    for pattern in (*patterns, written._MEMBER_WORD):
        assert pattern.pattern.startswith(("(?<!", "\\b")), pattern.pattern  # no retry mid-run
        assert isinstance(pattern.findall(text), list)  # all 100k: quadratic would take minutes
    dotted, words, code = names.written_names(text)  # a quadratic scan would hang here
    assert isinstance(written.member_words(text + " method"), list)
    table = names.NameTable(["pkg.a", "pkg.a.b"], ["class", "method"], [True, True])
    assert isinstance(table.resolve(text), list) and len(dotted) + len(words) + len(code) >= 0
