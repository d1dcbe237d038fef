"""The messages a function raises or warns with, read from its body (nothing is run).

A user pastes what they saw: ``ValueError: MarkdownIt. Failed to enable unknown
rule(s): ['tables']``. The text is in no docstring; it is the literal of a
``raise`` in ``MarkdownIt.enable``. So for each function the parser keeps the
string literals of ``raise X("...")`` and ``warnings.warn("...")`` (also an
f-string, ``"..." % x`` and ``"...".format(x)``) as message templates: an
interpolated part becomes ``{}``. ``codecite.retrievers.messages`` matches a
pasted message against them.
"""

from __future__ import annotations

import re
from typing import Any

from .python_syntax import text

MAX_MESSAGES = 8  # per function
MAX_MESSAGE_CHARS = 300
PLACEHOLDER = "{}"
_PRINTF = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifrgeExXoc]")
_FORMAT = re.compile(r"\{[^{}]*\}")
_WARN_CALLS = ("warn", "warnings.warn", "warn_explicit")


def _template(node: Any) -> str | None:
    """The literal text of a message argument, ``{}`` for what is interpolated."""
    if node.type == "parenthesized_expression" and node.named_children:
        return _template(node.named_children[0])
    if node.type == "concatenated_string":
        parts = [_template(c) for c in node.named_children if c.type == "string"]
        return "".join(p for p in parts if p is not None) or None
    if node.type == "string":
        out = []
        for child in node.named_children:
            if child.type == "string_content":
                out.append(text(child))
            elif child.type == "interpolation":
                out.append(PLACEHOLDER)
            elif child.type == "escape_sequence":
                out.append(" ")
        return "".join(out) or None
    if node.type == "binary_operator" and text(node.child_by_field_name("operator")) == "%":
        left = _template(node.child_by_field_name("left"))
        return _PRINTF.sub(PLACEHOLDER, left) if left else None
    if node.type == "call":  # "...{}".format(x)
        func = node.child_by_field_name("function")
        if func is not None and func.type == "attribute":
            obj = func.child_by_field_name("object")
            if text(func.child_by_field_name("attribute")) == "format" and obj is not None:
                fmt = _template(obj)
                return _FORMAT.sub(PLACEHOLDER, fmt) if fmt else None
    return None


def _first_argument(call: Any) -> Any:
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
    return positional[0] if positional else None


def raised_messages(body: Any) -> list[str]:
    """Message templates of the ``raise`` and ``warn`` calls in a function ``body``."""
    found: list[str] = []
    stack = [body] if body is not None else []
    while stack and len(found) < MAX_MESSAGES:
        node = stack.pop()
        call = None
        if node.type == "raise_statement" and node.named_children:
            raised = node.named_children[0]
            call = raised if raised.type == "call" else None
        elif node.type == "call":
            func = node.child_by_field_name("function")
            name = text(func) if func is not None else ""
            if name in _WARN_CALLS or name.endswith(".warn"):
                call = node
        if call is not None:
            arg = _first_argument(call)
            message = _template(arg) if arg is not None else None
            if message and len(message.replace("{}", "").strip()) >= 8:
                found.append(" ".join(message.split())[:MAX_MESSAGE_CHARS])
        stack.extend(reversed(node.named_children))  # a nested def is no node of its own
    return list(dict.fromkeys(found))
