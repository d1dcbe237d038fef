"""The regexes and helpers codecite replaced with linear ones (CHANGELOG.md), as the reference.

tests/retrievers/test_linear_regex.py proves the new code finds what these found;
tests/benchmarks/bench_long_query.py times both on long inputs.
"""

from __future__ import annotations

import re

from codecite.retrievers import evidence as confidence
from codecite.retrievers import tokenizer
from codecite.retrievers.tokenizer import MAX_QUERY_CHARS, Mentions

OLD_CALL_OR_DOTTED = re.compile(r"\w+(?:\.\w+)+|\w+(?=\()")
OLD_CODE_SPAN = re.compile(r"`+([^`]+)`+")
OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
OLD_ATX_CLOSER = re.compile(r"(?:^|[ \t]+)#+$")
OLD_WORKFLOW_LINE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?workflow(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*"
    r"`?([\w.-]+)`?",
    re.IGNORECASE,
)
OLD_TRAILING_COMMENT = re.compile(r"[ \t]+#.*$")


def old_routing_pattern(phrase: str) -> str:
    return rf"(?<![\w.]){re.escape(phrase)}(?!\w|\.\w)"


def old_expansion_pattern(phrase: str) -> str:
    return rf"(?<!\w){re.escape(phrase)}(?!\w)"


def old_identifier_mentions(query: str) -> Mentions:
    text = query[:MAX_QUERY_CHARS]
    word = tokenizer._WORD
    words = {w.lower() for m in word.finditer(text) for w in m.group().split(".")}
    code: set[str] = set()
    for span in OLD_CODE_SPAN.findall(text):
        code.update(w.lower() for m in word.finditer(span) for w in m.group().split("."))
    for m in OLD_CALL_OR_DOTTED.finditer(text):
        code.update(w.lower() for w in m.group().split("."))
    return Mentions(frozenset(words), frozenset(code))


def old_named_unknowns(query: str, vocab: dict[str, int]) -> list[str]:
    out = []
    for m in confidence._NAMED.finditer(query):
        word = m.group(1)
        lowered = word.lower()
        if lowered in confidence.GENERIC_NAMES or lowered in confidence.BUILTIN_NAMES:
            continue
        inner_capital = any(c.isupper() for c in word[1:])
        is_tool = lowered in confidence.tool_names()  # a rule added later, in any case
        if not (is_tool or inner_capital or (word.isupper() and len(word) > 1)):
            if not word[0].isupper():
                continue
            before = query[: m.start()].rstrip()
            if not before or before[-1] in ".?!:;\"'`([":
                continue
        tokens = tokenizer.tokenize(word)
        if tokens and tokens[0] not in vocab:
            out.append(word)
    return out


def old_contains_phrase(text: str, phrase: str) -> bool:
    return re.search(old_expansion_pattern(phrase), text) is not None
