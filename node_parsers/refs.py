"""API names a doc section cites (``refs``) and its examples use (``code_refs``).

``refs`` are the raw names of Sphinx roles, autodoc and ``py:`` directives,
MyST roles and links, and inline literals that look like dotted names;
``code_refs`` the names a section's code imports and calls. Resolving them to
symbols is the index's job, not the parser's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .doc_lines import FenceTracker

_API_ROLES = frozenset({"func", "class", "meth", "attr", "mod", "exc", "data", "obj", "const"})
_RST_ROLE = re.compile(r":(?:(\w+):)?([\w-]+):`([^`]+)`")
_MYST_ROLE = re.compile(r"\{(?:(\w+):)?([\w-]+)\}`([^`]+)`")
_DIRECTIVE_KINDS = "function|class|module|method|attribute|data|exception|decorator|property"
# ``.. function:: nsum(f, ...)`` is ``py:function`` in Sphinx (its default domain): a page
# written by hand (jinja2's, scrapy's, packaging's) documents its API with these
_RST_DIRECTIVE = re.compile(
    rf"^[ \t]*\.\.[ \t]+(?:auto|py:)?(?:{_DIRECTIVE_KINDS})::[ \t]*([^\n]*)$", re.M
)
_MYST_DIRECTIVE = re.compile(
    rf"^[ \t]*(?:`{{3,}}|:{{3,}})\{{(?:auto|py:)?(?:{_DIRECTIVE_KINDS})\}}[ \t]*([^\n]*)$", re.M
)
# ``.. currentmodule:: pywt``: the module the names after it are written in
_MODULE_DIRECTIVE = re.compile(
    r"^[ \t]*\.\.[ \t]+(?:py:|auto)?(?:current)?module::[ \t]*([A-Za-z_][\w.]*)[ \t]*$", re.M
)
_AUTOSUMMARY = re.compile(r"^([ \t]*)\.\.[ \t]+autosummary::[^\n]*$", re.M)
_MYST_AUTOSUMMARY = re.compile(r"^[ \t]*(`{3,}|:{3,})\{autosummary\}[^\n]*$", re.M)
_INLINE_LITERAL = re.compile(r"(?<!`)(`{1,2})([^`\n]+?)\1(?!`)")
_DOTTED_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def _clean_target(raw: str) -> str | None:
    """``Title <~pkg.f()>`` -> ``pkg.f``; None when it is not a dotted name."""
    m = re.search(r"<([^<>]+)>\s*$", raw)
    target = (m.group(1) if m else raw).strip().lstrip("~!").lstrip(".")
    target = target.removesuffix("()")
    return target if _DOTTED_NAME.match(target) else None


def _blank(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with the given spans replaced by spaces (positions are kept)."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _blank_fences(text: str) -> str:
    fences = FenceTracker()
    return "\n".join(" " * len(line) if fences.inside(line) else line for line in text.split("\n"))


def _role_hits(text: str) -> tuple[list[tuple[int, str]], str]:
    """API role targets with positions, and the text with every role blanked out."""
    hits: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    for pattern in (_RST_ROLE, _MYST_ROLE):
        for m in pattern.finditer(text):
            spans.append(m.span())
            target = _clean_target(m.group(3))
            if m.group(2) in _API_ROLES and m.group(1) in (None, "py") and target:
                hits.append((m.start(), target))
    return hits, _blank(text, spans)


_LINK_TARGET = re.compile(r"\]\(\s*<?(~?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:\(\))?)>?\s*\)")


def extract_refs(text: str) -> tuple[str, ...]:
    """Raw API names mentioned in ``text``, de-duplicated, in order of appearance.

    Example:
        >>> extract_refs("Use :func:`~pkg.load` or `Env.get()`; see :ref:`intro`.")
        ('pkg.load', 'Env.get')
    """
    outside_code = _blank_fences(text)
    hits = [
        (m.start(), m.group(1).split("(")[0].strip())
        for pattern, source in ((_RST_DIRECTIVE, outside_code), (_MYST_DIRECTIVE, text))
        for m in pattern.finditer(source)
    ]
    hits += _autosummary_hits(outside_code) + _autosummary_hits(text, myst=True)
    role_hits, rest = _role_hits(outside_code)
    hits += role_hits
    for m in _INLINE_LITERAL.finditer(rest):
        name = m.group(2).strip().removesuffix("()")
        hits.append((m.start(), name))
    for m in _LINK_TARGET.finditer(rest):  # MyST cross-references: [`x`](pkg.mod.x)
        hits.append((m.start(), m.group(1).strip().lstrip("~").removesuffix("()")))
    seen: dict[str, None] = {}
    for _, name in sorted(hits, key=lambda hit: hit[0]):
        if _DOTTED_NAME.match(name):
            seen.setdefault(name, None)
    return tuple(seen)


def defined_names(text: str) -> list[tuple[int, str]]:
    """(line, name) of each API object a reST page documents: an object directive
    (``.. class:: Wavelet``, ``.. autofunction::``) or an autosummary entry, with the
    module a ``currentmodule`` or ``module`` directive put in effect before it
    (``pywt.Wavelet``), and the class a member's directive is nested in. Some have no
    code node (a compiled class, a ufunc): the page is then where the name is defined
    (``indexer.tables.documented_names``)."""
    code_free = _blank_fences(text)
    modules = [(m.start(), m.group(1)) for m in _MODULE_DIRECTIVE.finditer(code_free)]
    hits = [
        (m.start(), m.group(1).split("(")[0].strip(), True)
        for m in _RST_DIRECTIVE.finditer(code_free)
    ]
    entries = [(pos, name, False) for pos, name in _autosummary_hits(code_free)]
    out: list[tuple[int, str]] = []
    owners: list[tuple[int, str]] = []  # (indent, name) of the directives a member sits in
    for pos, name, directive in sorted([*hits, *entries]):
        module = next((mod for at, mod in reversed(modules) if at < pos), None)
        if not _DOTTED_NAME.match(name) or any(at == pos for at, _ in modules):
            continue  # not a name, or the module directive itself
        end = code_free.find("\n", pos)
        line = code_free[pos : end if end >= 0 else len(code_free)]
        indent = len(line) - len(line.lstrip())
        while owners and (owners[-1][0] >= indent or not directive):
            owners.pop()  # an autosummary entry sits in no class
        if owners and "." not in name:  # ``.. attribute:: dec_lo`` inside ``.. class::``
            name = f"{owners[-1][1]}.{name}"
        elif module and name.split(".")[0] != module.split(".")[0]:
            name = f"{module}.{name}"
        if directive:
            owners.append((indent, name))
        out.append((text.count("\n", 0, pos) + 1, name))
    return out


def _autosummary_hits(text: str, myst: bool = False) -> list[tuple[int, str]]:
    """The names an ``autosummary`` table lists (an API reference page's whole content:
    nilearn's "Classes" sections, imbalanced-learn's "SMOTE algorithms"), one per line
    of its body after the ``:option:`` lines; ``~`` and a leading dot dropped."""
    hits: list[tuple[int, str]] = []
    for m in (_MYST_AUTOSUMMARY if myst else _AUTOSUMMARY).finditer(text):
        indent = 0 if myst else len(m.group(1).expandtabs())
        pos = m.end() + 1
        while pos < len(text):  # line by line from the directive, never copying the rest
            end = text.find("\n", pos)
            line = text[pos : end if end >= 0 else len(text)]
            stripped = line.strip()
            if myst and stripped.startswith(m.group(1)):
                break  # the closing fence
            if stripped and not myst and len(line) - len(line.lstrip()) <= indent:
                break  # the directive's body ended
            name = stripped.lstrip("~").lstrip(".").split()[0] if stripped else ""
            if name and not stripped.startswith(":") and _DOTTED_NAME.match(name):
                hits.append((pos, name))
            pos += len(line) + 1
    return hits


_CODE_LINE = re.compile(r"^(?:\s*(?:>>>|\.\.\.)\s|\s{3,}\S)")
_CODE_IMPORT = re.compile(r"\bfrom\s+([A-Za-z_][\w.]*)\s+import\s+\(?\s*([\w\s,]+)")
_CODE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(")


def extract_code_refs(text: str) -> tuple[str, ...]:
    """API names a section's code examples use: imported names and called names.

    Code is what is inside Markdown fences, doctest lines (``>>>``, ``...``) and
    indented lines (reST literal and code blocks). Names only; whether they are
    the section's topic is decided later, against the whole corpus (a name
    every example imports says nothing about one section).

    Example:
        >>> extract_code_refs("Use it:\n\n    >>> from pkg.box import Box\n    >>> Box(1)\n")
        ('pkg.box.Box', 'Box')
    """
    fences = FenceTracker()
    code = [line for line in text.split("\n") if fences.inside(line) or _CODE_LINE.match(line)]
    names: dict[str, None] = {}
    for line in code:
        for m in _CODE_IMPORT.finditer(line):
            for name in m.group(2).split(","):
                leaf = name.strip().split(" ")[0]
                if leaf.isidentifier():
                    names.setdefault(f"{m.group(1)}.{leaf}", None)
        for m in _CODE_CALL.finditer(line):
            if m.group(1) not in _NOT_API:
                names.setdefault(m.group(1), None)
    return tuple(names)


_NOT_API = frozenset(
    {
        "print",
        "len",
        "list",
        "dict",
        "set",
        "tuple",
        "str",
        "int",
        "float",
        "bool",
        "range",
        "isinstance",
        "type",
        "super",
        "repr",
        "open",
        "sorted",
        "getattr",
        "setattr",
        "hasattr",
        "lambda",
        "if",
        "for",
        "while",
        "return",
    }
)
