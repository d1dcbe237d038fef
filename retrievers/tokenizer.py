"""Identifier-aware tokenization, the same for nodes and queries.

``StaticShiftAgent`` -> ``staticshiftagent static shift agent``;
``estimate_ss_ama`` -> ``estimate_ss_ama estimate ss ama``; dotted names are
split into their parts first. CamelCase is split before lowercasing (which is
why bm25s' own tokenizer cannot be used: it lowercases first). Stopwords are
removed from prose words only; an identifier is always kept whole. No stemming:
it mangles identifiers and measured no better.

The settings and ``TOKENIZER_VERSION`` are persisted with the index so a query
is always tokenized exactly as the index was.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

TOKENIZER_VERSION = 1
DEFAULT_MIN_LENGTH = 2
MAX_QUERY_CHARS = 20_000

STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing done down during each either
else few for from further get gets got had has have having he her here hers herself him
himself his how i if in into is it its itself just let like me might more most much must my
myself need no nor not now of off on once only or other ought our ours ourselves out over own
per please same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up upon us use using very via want was way
we were what when where whether which while who whom whose why will with within without
would you your yours yourself yourselves
""".split()
)

_WORD = re.compile(r"\w+(?:\.\w+)*")
_PLAIN_WORD = re.compile(r"\w+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")


@dataclass(frozen=True)
class TokenizerSettings:
    """What decides tokenization; persisted in the index and part of its digest."""

    version: int = TOKENIZER_VERSION
    min_length: int = DEFAULT_MIN_LENGTH
    stopwords_digest: str = hashlib.sha256(" ".join(sorted(STOPWORDS)).encode()).hexdigest()[:12]

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "min_length": self.min_length,
            "stopwords_digest": self.stopwords_digest,
        }


def split_identifier(word: str) -> list[str]:
    """Sub-words of one identifier, case preserved: ``getHTTPResponse2`` -> get HTTP Response 2."""
    parts: list[str] = []
    for chunk in word.split("_"):
        if chunk:
            parts.extend(_CAMEL.findall(chunk) or [chunk])
    return parts


def _word_tokens(word: str, min_length: int) -> list[str]:
    whole = word.strip("_").lower()
    if not whole:
        return []
    parts = [p.lower() for p in split_identifier(word)]
    if len(parts) <= 1:
        if whole in STOPWORDS or (len(whole) < min_length and not whole.isdigit()):
            return []
        return [whole]
    out = [whole]
    out.extend(p for p in parts if p not in STOPWORDS and (len(p) >= min_length or p.isdigit()))
    return out


def tokenize(text: str, min_length: int = DEFAULT_MIN_LENGTH) -> list[str]:
    """Tokens of a node text or a query, in order, duplicates kept.

    Example:
        >>> tokenize("StaticShiftAgent uses estimate_ss_ama")  # doctest: +NORMALIZE_WHITESPACE
        ['staticshiftagent', 'static', 'shift', 'agent', 'uses',
         'estimate_ss_ama', 'estimate', 'ss', 'ama']
    """
    out: list[str] = []
    cache = _split_cache(min_length)
    for word in _PLAIN_WORD.findall(text):  # the parts of a dotted name are its words
        tokens = cache.get(word)
        if tokens is None:
            tokens = cache[word] = tuple(_word_tokens(word, min_length))
        out += tokens
    return out


_PROMPT = re.compile(r"[ \t]*(?:>>>|\.\.\.)(?:[ \t]|$)")  # a doctest line: ``>>> f(x)``


def example_free(text: str) -> tuple[str, str]:
    """(the text without its doctest examples, the examples): an example is a ``>>>``
    or ``...`` line and the output lines after it, up to a blank line."""
    if ">>>" not in text:
        return text, ""
    kept: list[str] = []
    examples: list[str] = []
    inside = False
    for line in text.split("\n"):
        if _PROMPT.match(line):
            inside = True
        elif inside and not line.strip():
            inside = False
        (examples if inside else kept).append(line)
    return "\n".join(kept), "\n".join(examples)


def code_node_tokens(text: str, min_length: int = DEFAULT_MIN_LENGTH) -> list[str]:
    """Tokens of a code node: its name, signature and prose as ``tokenize`` gives them,
    then each term of its doctest examples not already among them, once.

    An example makes a term findable without making the node long or repeating it:
    mpmath's ``nsum`` is 15,000 characters, mostly ``>>>`` lines, and BM25's length
    normalisation buried it under short helpers (docs/retrieval.md, "Tokens").

    Example:
        >>> code_node_tokens("Sum a series.\n\n>>> nsum(term, inf)\nseries sum\n>>> nsum(term)")
        ['sum', 'series', 'nsum', 'term', 'inf']
    """
    prose, examples = example_free(text)
    tokens = tokenize(prose, min_length)
    if examples:
        seen = set(tokens)
        tokens.extend(t for t in dict.fromkeys(tokenize(examples, min_length)) if t not in seen)
    return tokens


# Each distinct word is split once: a corpus repeats its words, and splitting them one
# occurrence at a time was half of a full build (docs/architecture.md, "Build").
# A plain dict, read inline, costs a third less than an ``lru_cache`` call per word; it is
# emptied when it outgrows ``WORD_CACHE_SIZE`` words, so memory stays bounded.
WORD_CACHE_SIZE = 1 << 17
_CACHES: dict[int, dict[str, tuple[str, ...]]] = {}


def _split_cache(min_length: int) -> dict[str, tuple[str, ...]]:
    cache = _CACHES.setdefault(min_length, {})
    if len(cache) > WORD_CACHE_SIZE:
        cache.clear()
    return cache


def clear_word_cache() -> None:
    """Forget every word's split (benchmarks time the tokenizer from a cold cache)."""
    _CACHES.clear()


def query_tokens(query: str, min_length: int = DEFAULT_MIN_LENGTH) -> list[str]:
    """Tokens of a query, de-duplicated in order (a repeated word does not count twice)."""
    return list(dict.fromkeys(tokenize(query[:MAX_QUERY_CHARS], min_length)))


# Both start only where a run starts (a word, a run of backticks): a start inside the run
# would fail exactly as the run's own start did, and retrying it at every position made a
# long word cost quadratic time (docs/reliability.md, "Long queries").
_CODE_SPAN = re.compile(r"(?<!`)`+([^`]+)`+")
_CALL_OR_DOTTED = re.compile(r"(?<!\w)(?:\w+(?:\.\w+)+|\w+(?=\())")


@dataclass(frozen=True)
class Mentions:
    """Words of a query that may name a symbol.

    ``words``: every lowered whole word (dotted names split). ``code``: the
    words the query writes as code: inside backticks, in a dotted name, or
    followed by ``(``.
    """

    words: frozenset[str]
    code: frozenset[str]


def identifier_mentions(query: str) -> Mentions:
    """Lowered whole words of a query, and those written as code.

    A word counts only as a whole identifier: ``correct`` is not mentioned by
    "correction", while ``StaticShiftAgent`` and ``staticshiftagent`` both are.
    """
    text = query[:MAX_QUERY_CHARS]
    words = {w.lower() for m in _WORD.finditer(text) for w in m.group().split(".")}
    code: set[str] = set()
    for span in _CODE_SPAN.findall(text):
        code.update(w.lower() for m in _WORD.finditer(span) for w in m.group().split("."))
    for m in _CALL_OR_DOTTED.finditer(text):
        code.update(w.lower() for w in m.group().split("."))
    return Mentions(frozenset(words), frozenset(code))


def writes_identifiers(query: str) -> bool:
    """Does the query write code: a word in backticks, a dotted name or a call, or a
    compound identifier (``add_column``, ``StaticShiftAgent``)?"""
    text = query[:MAX_QUERY_CHARS]
    if _CODE_SPAN.search(text) or _CALL_OR_DOTTED.search(text):
        return True
    return any(is_compound(w) for m in _WORD.finditer(text) for w in m.group().split("."))


def is_compound(name: str) -> bool:
    """True for names made of several words (``estimate_ss_ama``, ``StaticShiftAgent``)."""
    return len(split_identifier(name)) > 1
