"""The names a query writes: dotted paths, identifiers, code spans, members in words.

What :class:`codecite.retrievers.names.NameTable` resolves, read in one linear pass
each (tests/retrievers/test_linear_regex.py).
"""

from __future__ import annotations

import re

from .tokenizer import MAX_QUERY_CHARS

_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:(?:\(\))?\.[A-Za-z_]\w*)+")  # x.y, X().y
_WORD = re.compile(r"(?<!\w)(?<!\w\.)[A-Za-z_]\w*(?!\w)(?!\.\w)")
CODE_SPAN = re.compile(r"(?<!`)`+([^`]+)`+")
_FROM_IMPORT = re.compile(r"\bfrom\s+([A-Za-z_][\w.]*)\s+import\s+([A-Za-z_]\w*)")
_KEYWORD_ARGUMENT = re.compile(r"\b\w+\s*=(?!=)")
_CALLED = re.compile(r"(?<!\w)([A-Za-z_]\w*)\s*\(")  # starts where a word starts: linear
# "the invoke method of CliRunner", "CliRunner's invoke": a member named in words
_MEMBER_WORD = re.compile(
    r"(?<![\w.])([A-Za-z_]\w*)\s+(?:method|attribute|property|classmethod|staticmethod)s?\b"
    r"|(?<=\w)'s\s+([A-Za-z_]\w*)",
    re.I,
)


def written_names(query: str) -> tuple[list[str], list[str], set[str]]:
    """(dotted paths, single words, words written as code) of a query, in query order."""
    text = query[:MAX_QUERY_CHARS]
    imported = [f"{m.group(1)}.{m.group(2)}" for m in _FROM_IMPORT.finditer(text)]
    text = _FROM_IMPORT.sub(" ", text)  # ``from tqdm.auto import tqdm`` names tqdm.auto.tqdm
    dotted = list(dict.fromkeys([*imported, *(m.group() for m in _DOTTED.finditer(text))]))
    words = list(dict.fromkeys(m.group() for m in _WORD.finditer(_DOTTED.sub(" ", text))))
    code = {m.group(1) for m in _CALLED.finditer(text)}
    for span in CODE_SPAN.findall(text):  # ``prereleases=True``: a keyword argument, no name
        code.update(m.group() for m in _WORD.finditer(_KEYWORD_ARGUMENT.sub(" ", span)))
    return dotted, words, code


def member_words(query: str) -> list[str]:
    """Words a query says are members: "the invoke method of CliRunner", "CliRunner's
    invoke" (``NameTable.resolve`` takes them when a class the query names has one)."""
    return [m.group(1) or m.group(2) for m in _MEMBER_WORD.finditer(query[:MAX_QUERY_CHARS])]
