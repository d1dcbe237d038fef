"""Signatures as shown to a reader: documentation written into type hints taken out.

Some libraries document each parameter inside its annotation (FastAPI, Typer:
``alias: Annotated[str | None, Doc("An alternative name ...")] = None``); a
signature of thirty such parameters is 18,000 characters, which buried the
answer and the API card of ``fastapi.Query``. The index keeps the source text
(its words are searchable); what is *shown* drops each ``Doc(...)`` item from an
``Annotated[...]`` (``Annotated[T, Doc(...)]`` is shown as ``T``) and gives the
documentation to the parameter instead (``annotation_doc``). ``readable`` also
caps the length of what an answer prints.

Scanning is bracket- and string-aware, so a bracket or comma inside a docstring
never splits an item; nothing is evaluated.
"""

from __future__ import annotations

import re
from typing import Any

MAX_SHOWN_CHARS = 400  # a signature printed in an answer or card, at most
_ANNOTATED = re.compile(r"\b(?:typing(?:_extensions)?\.)?Annotated\[")
_DOC_ITEM = re.compile(r"(?:typing(?:_extensions)?\.|annotated_doc\.)?Doc\(")
_CLOSING = {"[": "]", "(": ")", "{": "}"}


def _string_end(text: str, i: int) -> int:
    """Index just past the string literal that opens at ``text[i]`` (a quote)."""
    quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
    j = i + len(quote)
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text.startswith(quote, j):
            return j + len(quote)
        j += 1
    return len(text)


def _items(text: str, start: int) -> tuple[list[str], int]:
    """The top-level comma-separated items of the bracket opened just before ``start``,
    and the index just past its closing bracket."""
    items, depth, i, begin = [], 0, start, start
    while i < len(text):
        c = text[i]
        if c in "'\"":
            i = _string_end(text, i)
            continue
        if c in _CLOSING:
            depth += 1
        elif c in ")]}":
            if depth == 0:
                items.append(text[begin:i])
                return items, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[begin:i])
            begin = i + 1
        i += 1
    items.append(text[begin:])
    return items, len(text)


def without_doc(text: str) -> str:
    """``text`` with every ``Doc(...)`` item of an ``Annotated[...]`` removed.

    Example:
        >>> without_doc('q: Annotated[str | None, Doc("A name, [or] none.")] = None')
        'q: str | None = None'
        >>> without_doc("n: Annotated[int, Field(gt=0), Doc('Count.')]")
        'n: Annotated[int, Field(gt=0)]'
    """
    if "Doc(" not in text:
        return text
    out, pos = [], 0
    for m in _ANNOTATED.finditer(text):
        if m.start() < pos:
            continue  # inside an Annotated already rewritten
        items, end = _items(text, m.end())
        kept = [without_doc(item.strip()) for item in items if item.strip()]
        kept = [kept[0], *(k for k in kept[1:] if not _DOC_ITEM.match(k))] if kept else kept
        inner = kept[0] if len(kept) == 1 else f"{m.group()}{', '.join(kept)}]"
        out.append(text[pos : m.start()] + inner)
        pos = end
    return "".join(out) + text[pos:]


def annotation_doc(annotation: str | None) -> str | None:
    """The text of the ``Doc("...")`` item in an annotation, whitespace squashed.

    Example:
        >>> annotation_doc('Annotated[int, Doc(\\'\\'\\'How many\\n  items.\\'\\'\\')]')
        'How many items.'
    """
    if not annotation or "Doc(" not in annotation:
        return None
    for m in _ANNOTATED.finditer(annotation):
        for item in _items(annotation, m.end())[0][1:]:
            item = item.strip()
            doc = _DOC_ITEM.match(item)
            if doc is None:
                continue
            literal = item[doc.end() :].strip()
            if not literal or literal[0] not in "'\"":
                return None
            end = _string_end(literal, 0)
            quote = 3 if literal.startswith(literal[0] * 3) else 1
            return " ".join(literal[quote : end - quote].split()) or None
    return None


def readable(signature: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """A signature to print: ``without_doc``, then cut to ``limit`` characters.

    Example:
        >>> readable("f(a: Annotated[int, Doc('x')], b=2)")
        'f(a: int, b=2)'
        >>> readable("f(" + ", ".join(f"p{i}" for i in range(40)) + ")", limit=20)
        'f(p0, p1, p2, p3, …)'
    """
    shown = without_doc(signature)
    if len(shown) <= limit:
        return shown
    cut = shown[:limit]
    comma = cut.rfind(", ")
    return (cut[: comma + 2] if comma > limit // 2 else cut) + "…)"


def shown_param(param: Any) -> Any:
    """A parameter record (``schema.Param``) as shown to an agent: its annotation
    ``without_doc``, and the documentation it held as ``doc`` (only when it held some).

    Example:
        >>> shown_param({"name": "q", "annotation": "Annotated[str, Doc('Text.')]"})
        {'name': 'q', 'annotation': 'str', 'doc': 'Text.'}
    """
    annotation = param.get("annotation")
    doc = annotation_doc(annotation)
    if doc is None:
        return param
    return {**param, "annotation": without_doc(annotation), "doc": doc}


_RETURNS = re.compile(r"^([ \t]*)(?:Returns|Yields)[ \t]*\n[ \t]*-{3,}[ \t]*\n", re.MULTILINE)
_GOOGLE_RETURNS = re.compile(r"^([ \t]*)(?:Returns|Yields):[ \t]*\n", re.MULTILINE)
MAX_RETURNS_CHARS = 200


def documented_returns(docstring: str | None) -> str | None:
    """What a docstring's numpydoc ``Returns`` section (or Google-style ``Returns:``)
    says is returned: its first entry and the first sentence of that entry's text.

    Example:
        >>> doc = "Find them.\\n\\nReturns\\n-------\\nsegm : `Image`\\n    The map. Or None."
        >>> documented_returns(doc)
        'segm : `Image` — The map.'
    """
    if not docstring or ("Return" not in docstring and "Yield" not in docstring):
        return None
    lines: list[str] = []
    found = _RETURNS.search(docstring) or _GOOGLE_RETURNS.search(docstring)
    if found is None:
        return None
    for line in docstring[found.end() :].split("\n"):
        if not line.strip():
            if lines:
                break
            continue
        if lines and not line.startswith((found.group(1) + " ", found.group(1) + "\t")):
            break  # the next entry or section
        lines.append(line.strip())
    if not lines:
        return None
    head, text = lines[0], " ".join(lines[1:])
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0] if text else ""
    shown = f"{head} — {sentence}" if sentence else head
    return shown if len(shown) <= MAX_RETURNS_CHARS else shown[: MAX_RETURNS_CHARS - 1] + "…"
