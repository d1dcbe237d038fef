"""Corpus-mined expansion: PMI over node co-occurrence, conservative by construction."""

from __future__ import annotations

import math

from codecite.retrievers.mined import mine_expansion, mined_terms


def test_pmi_pairs_words_with_the_identifiers_they_describe() -> None:
    prose = [
        ["raise", "missing", "variable"],
        ["raise", "missing", "error"],
        ["missing", "variable", "raise"],
        ["render", "template"],
        ["render", "string"],
        ["render", "template", "string"],
    ]
    idents = [
        ["strict", "undefined"],
        ["strict", "undefined"],
        ["strict"],
        ["template"],
        ["template"],
        ["environment"],
    ]
    table = mine_expansion(prose, idents, min_word_docs=3, min_pair_docs=2, min_pmi=0.5)
    # P(raise, strict) = 3/6, P(raise) = 3/6, P(strict) = 3/6 -> PMI = log 2
    assert math.log(3 * 6 / (3 * 3)) > 0.5
    assert table["raise"][:2] == ["strict", "undefined"]
    assert table["missing"][:2] == ["strict", "undefined"]
    assert "render" not in table or "strict" not in table["render"]


def test_rare_words_and_single_pairs_are_ignored() -> None:
    table = mine_expansion(
        [["once"], ["twice"], ["twice"]],
        [["a"], ["b"], ["c"]],
        min_word_docs=3,
        min_pair_docs=2,
        min_pmi=0.0,
    )
    assert table == {}
    assert mine_expansion([], []) == {}


def test_mined_terms_skip_the_query_tokens_and_cap_the_count() -> None:
    table = {"raise": ["strict", "undefined"], "missing": ["undefined", "raise"]}
    assert mined_terms(["raise", "missing"], table) == ["strict", "undefined"]
    assert mined_terms(["unknown"], table) == []
    many = {"w": [f"t{i}" for i in range(40)]}
    assert len(mined_terms(["w"], many)) == 12
