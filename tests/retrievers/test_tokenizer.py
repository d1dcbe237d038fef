"""Identifier-aware tokenization."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codecite.retrievers.tokenizer import (
    STOPWORDS,
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
