"""Identifier-aware tokenization."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import codecite
from codecite.retrievers.tokenizer import (
    STOPWORDS,
    code_node_tokens,
    example_free,
    identifier_mentions,
    query_tokens,
    split_identifier,
    tokenize,
)


def test_camel_and_snake_case_keep_the_whole_identifier() -> None:
    assert tokenize("StaticShiftAgent") == ["staticshiftagent", "static", "shift", "agent"]
    assert tokenize("estimate_ss_ama") == ["estimate_ss_ama", "estimate", "ss", "ama"]


def test_dotted_names_acronyms_and_digits() -> None:
    assert tokenize("pkg.agents.StaticShiftAgent") == [
        "pkg",
        "agents",
        "staticshiftagent",
        "static",
        "shift",
        "agent",
    ]
    assert split_identifier("getHTTPResponse2") == ["get", "HTTP", "Response", "2"]
    assert tokenize("L22PLT") == ["l22plt", "22", "plt"]


def test_stopwords_only_for_prose_words() -> None:
    assert tokenize("how do I use the loader") == ["loader"]
    assert tokenize("get_the_value") == ["get_the_value", "value"]


def test_no_stemming_and_non_latin_scripts_survive() -> None:
    assert tokenize("corrections corrected") == ["corrections", "corrected"]
    assert tokenize("静的シフト補正 correction") == ["静的シフト補正", "correction"]


def test_query_tokens_are_deduplicated() -> None:
    assert query_tokens("shift shift Shift") == ["shift"]


def test_mentions_distinguish_code_from_prose() -> None:
    m = identifier_mentions("use `load` then pkg.run() and correction")
    assert {"load", "pkg", "run", "correction"} <= m.words
    assert m.code == {"load", "pkg", "run"}
    assert "correct" not in m.words


@given(st.text(max_size=200))
def test_tokenize_never_fails_and_is_lowercase(text: str) -> None:
    tokens = tokenize(text)
    assert all(t == t.lower() and t for t in tokens)
    assert tokenize(text) == tokens


@given(st.from_regex(r"[A-Z][a-z]{2,6}([A-Z][a-z]{2,6}){1,3}", fullmatch=True))
def test_camel_case_round_trip(name: str) -> None:
    assume(not any(p.lower() in STOPWORDS for p in split_identifier(name)))
    tokens = tokenize(name)
    assert tokens[0] == name.lower()
    assert "".join(tokens[1:]) == name.lower()


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ_9.é. \n-xYz("), max_size=60))
def test_the_cached_word_split_gives_the_tokens_of_a_split_per_occurrence(text: str) -> None:
    from codecite.retrievers import tokenizer as tk

    per_occurrence = [
        token
        for match in tk._WORD.finditer(text)
        for word in match.group().split(".")
        for token in tk._word_tokens(word, tk.DEFAULT_MIN_LENGTH)
    ]
    assert tk.tokenize(text) == per_occurrence


def test_doctest_examples_add_each_of_their_terms_once() -> None:
    text = (
        "Sum a series.\n\n    >>> nsum(term, [0, inf])\n    1.5\n"
        "    >>> nsum(term,\n    ...      method='levin')\n    1.5\n\nMore prose about levin."
    )
    prose, examples = example_free(text)
    assert prose == "Sum a series.\n\n\nMore prose about levin."
    assert examples.count(">>>") == 2 and "method='levin'" in examples and "1.5" in examples
    tokens = code_node_tokens(text)
    assert tokens[: len(tokenize(prose))] == tokenize(prose)  # the prose as it is
    assert tokens.count("nsum") == 1 and tokens.count("term") == 1  # examples: once each
    assert tokens.count("levin") == 1  # already in the prose: not again
    plain = "Sum a series; no example here."
    assert code_node_tokens(plain) == tokenize(plain) and example_free(plain) == (plain, "")


EXAMPLES = "\n        >>> nsum(lambda k: 1/k**2, [1, inf])\n        1.64493406684823\n" * 60
SERIES = f'''
def nsum(f, *intervals, **options):
    """Computes the sum of an infinite series, with convergence acceleration.
{EXAMPLES}
    """


def update_psum(partial, series):
    """Update a partial sum of the series during acceleration."""
'''


def test_a_function_long_with_examples_is_not_buried_by_a_short_helper(tmp_path: Path) -> None:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "__init__.py").write_text('"""Sums."""\n')
    (tmp_path / "calc" / "sums.py").write_text(SERIES)
    codecite.build(tmp_path)
    ranked = codecite.load(tmp_path).query("add up an infinite series with acceleration", k=2)
    assert [h.node.metadata["symbol"] for h in ranked.nodes] == [
        "calc.sums.nsum",
        "calc.sums.update_psum",
    ]
