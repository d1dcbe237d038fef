"""Reading tree-sitter Python nodes as text: names, string literals, docstrings.

Nothing is evaluated: a string's value is its literal with prefix and quotes
removed and its indentation cleaned as ``inspect.cleandoc`` does.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from .schema import ClassField

_STRING_PREFIX = re.compile(r"^[rRbBuUfF]*")


def text(node: Any) -> str:
    """The node's source text ('' for no node)."""
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def code_text(node: Any) -> str:
    """The node's source without its comments: a parameter list's ``# noqa: ARG003``
    is no part of the signature it is shown as."""
    if node is None:
        return ""
    data, start, cuts = node.text, node.start_byte, []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "comment":
            cuts.append((n.start_byte - start, n.end_byte - start))
        else:
            stack.extend(n.children)
    for a, b in sorted(cuts, reverse=True):
        data = data[:a] + data[b:]
    return data.decode("utf-8", errors="replace")


def is_private(name: str) -> bool:
    """``_name`` but not ``__dunder__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def literal(node: Any) -> str:
    """A string literal's content: prefix and quotes off, line continuations joined."""
    source = text(node)
    raw = _STRING_PREFIX.sub("", source, count=1)
    is_raw = "r" in source[: len(source) - len(raw)].lower()
    for quote in ('"""', "'''", '"', "'"):
        if raw.startswith(quote) and raw.endswith(quote) and len(raw) >= 2 * len(quote):
            raw = raw[len(quote) : -len(quote)]
            break
    return raw if is_raw else raw.replace("\\\n", "")  # a backslash at a line end joins


def string_value(node: Any) -> str:
    """The value of a string literal node, without evaluating anything."""
    return inspect.cleandoc(literal(node)).strip()


def first_string(node: Any) -> str | None:
    """The value of the first string literal (or implicitly concatenated strings) in
    ``node``'s subtree, in source order: in ``dedent(doc).format(x="y")``, ``doc``'s."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "string":
            return string_value(current)
        if current.type == "concatenated_string":
            return inspect.cleandoc(
                "".join(literal(c) for c in current.named_children if c.type == "string")
            ).strip()
        stack.extend(reversed(current.named_children))
    return None


def docstring_of(block: Any) -> str:
    """The docstring of a module or body block: its first statement, when a string."""
    if block is None:
        return ""
    for child in block.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1:
            expr = child.named_children[0]
            if expr.type == "string":
                return string_value(expr)
            if expr.type == "assignment" and text(expr.child_by_field_name("left")) == "__doc__":
                return _assigned_doc(expr.child_by_field_name("right"))
        return ""
    return ""


_PLACEHOLDER_LINE = re.compile(r"^[ \t]*\{[^{}\n]*\}[ \t]*\n?", re.MULTILINE)


def _assigned_doc(value: Any) -> str:
    """A body opening ``__doc__ = "..." .format(...)`` (a triple-quoted template) or an
    f-string (statsmodels' ``OLS``, ``Poisson``): the literal's text, placeholder-only lines out."""
    if value is None:
        return ""
    doc = first_string(value)
    if doc is None:
        return ""
    return re.sub(r"\n{3,}", "\n\n", inspect.cleandoc(_PLACEHOLDER_LINE.sub("", doc))).strip()


def squash(source: str) -> str:
    """Source text on one line: whitespace runs to one space, no space inside parens."""
    return re.sub(r"\s+", " ", source).replace("( ", "(").replace(" )", ")").replace(",)", ")")


def decorators(node: Any) -> list[str]:
    """Decorator expressions of a decorated definition, without the ``@``."""
    if node.type != "decorated_definition":
        return []
    return [  # a comment after a decorator (``@overload  # type: ignore``) is not part of it
        " ".join(text(e) for e in d.named_children if e.type != "comment")
        for d in node.named_children
        if d.type == "decorator"
    ]


def unwrap(node: Any) -> tuple[Any, Any]:
    """(definition, outer) for a possibly decorated definition."""
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return inner, node
    return node, node


def class_field(expr: Any) -> list[ClassField]:
    """``size: int = 3`` in a class body as a field (an annotation is required)."""
    if expr.type != "assignment":
        return []
    left = expr.child_by_field_name("left")
    ann = expr.child_by_field_name("type")
    if left is None or left.type != "identifier" or ann is None:
        return []
    right = expr.child_by_field_name("right")
    return [
        ClassField(
            name=text(left),
            annotation=text(ann),
            default=text(right) if right is not None else None,
        )
    ]
