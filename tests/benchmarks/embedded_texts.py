"""The per-kind embedded texts measured against the node text (docs/dense.md, "What is
embedded"), for ``bench_hybrid.py --text kind-1 kind-2``: not shipped.

``kind-1``: a code node's name in words (``add column (table)``), its parameter
names and its docstring's summary and first paragraph (a class adds its public
method names); a doc section's heading path and body; a module's name in words and
its docstring's opening. ``kind-2``: the node text with a code node's dotted name in
words and a class's method listing as names in words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from codecite.dense import texts
from codecite.dense.texts import node_text
from codecite.retrievers.tokenizer import split_identifier
from codecite.vocabulary import CODE_KINDS, NodeKind

MAX_METHODS = 12
MAX_SIGNATURE_CHARS = 240
MAX_DOC_CHARS = 900  # about 200 word pieces of prose: the window keeps the name and signature

# a docstring's sections: where its opening ends
_SECTION = re.compile(
    r"^\s*(?:(?:Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|"
    r"Notes?|Attributes|Keyword Arguments|Other Parameters|See Also|References|Warns?|"
    r"Warnings?|Todo)\s*:?\s*$|[-=~^]{3,}\s*$|>>>|\.\. |:param\b|:returns?:|:raises\b|"
    r":type\b|:rtype:|@param\b)",
    re.IGNORECASE,
)


def name_words(dotted: str) -> str:
    """``rich.table.Table.add_column`` -> ``add column (table, rich table)``: the leaf in
    words, then its owner (a class) and its module, each split at dots, underscores and
    case changes, lower case (the model is uncased)."""
    parts = [p for p in dotted.split(".") if p]
    if not parts:
        return ""
    words = [" ".join(split_identifier(p)).lower() for p in parts]
    leaf, owner = words[-1], ", ".join(w for w in (" ".join(words[:-1]),) if w)
    return f"{leaf} ({owner})" if owner else leaf


def docstring_opening(doc: str | None, limit: int = MAX_DOC_CHARS) -> str:
    """The summary and first paragraph of a docstring, up to its first section heading,
    doctest or field list, at most ``limit`` characters."""
    kept: list[str] = []
    paragraphs = 0
    for line in (doc or "").strip().splitlines():
        if _SECTION.match(line):
            break
        if not line.strip():
            if kept and kept[-1]:
                paragraphs += 1
                if paragraphs >= 2:
                    break
                kept.append("")
            continue
        kept.append(line.strip())
    text = " ".join(w for w in kept if w)
    return text[:limit]


def _signature(meta: Mapping[str, Any]) -> str:
    """``add_column(header, footer, style, justify) -> None``: parameter names without
    ``self``, annotations or defaults (words the window needs more elsewhere); an
    assignment's ``x = value`` as written."""
    params = meta.get("params")
    sig = str(meta.get("signature") or "")
    if not params or "(" not in sig:
        return sig[:MAX_SIGNATURE_CHARS]
    names = [str(p.get("name")) for p in params if p.get("name") not in ("self", "cls")]
    returns = f" -> {meta['returns']}" if meta.get("returns") else ""
    return f"{sig.split('(', 1)[0]}({', '.join(names)}){returns}"[:MAX_SIGNATURE_CHARS]


def _methods(text: str) -> str:
    """``methods: add column, add row, grid`` from a class node's ``methods:`` listing."""
    names: list[str] = []
    listing = False
    for line in text.splitlines():
        if line.strip() == "methods:":
            listing = True
            continue
        if listing and line.startswith("  "):
            name = line.strip().split("(", 1)[0]
            if name and not name.startswith("_"):
                names.append(" ".join(split_identifier(name)).lower())
        elif listing:
            listing = False
    return "methods: " + ", ".join(names[:MAX_METHODS]) if names else ""


def code_text(record: Mapping[str, Any]) -> str:
    meta = record.get("metadata") or {}
    symbol = str(meta.get("symbol") or "")
    lines = [name_words(symbol), _signature(meta)]  # an assignment's signature: ``x = value``
    lines.append(docstring_opening(meta.get("docstring")))
    if meta.get("symbol_type") == "class":
        lines.append(_methods(str(record.get("text") or "")))
    return "\n".join(line for line in lines if line)


def doc_text(record: Mapping[str, Any]) -> str:
    """The heading path, then the body (a section's node text opens with its heading
    path already, or with its own heading, which the path then replaces)."""
    meta = record.get("metadata") or {}
    text = str(record.get("text") or "")
    path = " > ".join(str(h) for h in meta.get("heading_path") or [] if h)
    first, _, body = text.partition("\n")
    if not path or first.strip() == path:
        return text
    if first.strip() == str(meta.get("heading") or "").strip():
        return f"{path}\n{body}"
    return f"{path}\n{text}"


def module_text(record: Mapping[str, Any]) -> str:
    meta = record.get("metadata") or {}
    module = str(meta.get("module") or meta.get("symbol") or "")
    opening = docstring_opening(meta.get("docstring")) if meta.get("docstring") else ""
    if not opening:
        first, _, rest = str(record.get("text") or "").partition("\n")
        opening = docstring_opening(rest if module and first.strip() == module else first + rest)
    words = " ".join(" ".join(split_identifier(p)).lower() for p in module.split(".") if p)
    return f"{words} module\n{opening}" if words else opening


def embedded_text(record: Mapping[str, Any]) -> str:
    """The text a node's vector is made of (``TEXT_RULE``); never empty for a non-empty node."""
    kind = (record.get("metadata") or {}).get("kind")
    if kind in CODE_KINDS:
        out = code_text(record)
    elif kind == NodeKind.MODULE_DOC.value:
        out = module_text(record)
    elif kind == NodeKind.DOC_SECTION.value:
        out = doc_text(record)
    else:  # a recipe's text is its title, intents and steps, written to be read
        out = node_text(record)
    return out if out.strip() else str(record.get("text") or "")


def named_node_text(record: Mapping[str, Any]) -> str:
    """A code node's text with its dotted name in words and a class's method listing as
    names in words; other kinds as ``embedded_text``."""
    meta = record.get("metadata") or {}
    if meta.get("kind") not in CODE_KINDS:
        return embedded_text(record)
    text = node_text(record)
    first, _, rest = text.partition("\n")
    if first.strip() == str(meta.get("symbol") or ""):
        text = name_words(first.strip()) + "\n" + rest
    if meta.get("symbol_type") == "class" and "\nmethods:\n" in text:
        head = text.split("\nmethods:\n", 1)[0]
        text = head + "\n" + _methods(node_text(record))
    return text


texts.RULES.setdefault("kind-1", embedded_text)
texts.RULES.setdefault("kind-2", named_node_text)
