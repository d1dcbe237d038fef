"""The messages a function raises or warns with, read from its body (nothing is run).

A user pastes what they saw: ``ValueError: MarkdownIt. Failed to enable unknown
rule(s): ['tables']``. The text is in no docstring; it is the literal of a
``raise`` in ``MarkdownIt.enable``. So for each function the parser keeps the
string literals of ``raise X("...")``, ``warnings.warn("...")`` and ``assert
cond, "..."`` (also an f-string, ``"..." % x``, ``"...".format(x)`` and ``"..."
+ x``) as message templates: an interpolated part becomes ``{}``. A message first
assigned to a local name (``msg = "..."; raise ValueError(msg)``, also filled in
later: ``msg % {"name": ...}``) is read from the function's assignments to that
name, each one a template; a nested function raising a name its
enclosing function assigned (a decorator factory's ``errmsg``) reads the enclosing
one's. A message a private function or method raises (no node) goes to the innermost
class node around it, else to its public module's node (``adopt_orphans``).
``codecite.retrievers.messages`` matches a pasted message against them.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from .python_syntax import text

MAX_MESSAGES = 16  # per function (sqlmodel's `FieldInfo.__init__` raises 11)
MAX_ADOPTED = 64  # messages a class or module node takes from the private code inside it
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
    if node.type == "binary_operator" and text(node.child_by_field_name("operator")) == "+":
        sides = [_template(node.child_by_field_name(f)) for f in ("left", "right")]
        if not any(sides):
            return None
        return "".join(PLACEHOLDER if side is None else side for side in sides)
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


# where a message can start: the ``raise`` keyword, a ``warn``/``warn_explicit`` name. No
# leading ``\b``: it would stop the engine's scan for the first letters (half the cost);
# the start's boundary is checked on the byte before it.
_SITE_WORDS = re.compile(rb"(?:raise|assert|warn(?:_explicit)?)\b")


class MessageSites:
    """The ``raise`` statements and ``warn`` calls of one module, found in one pass.

    The source is scanned for the words that start one and each hit is checked
    on the tree (a word in a string or a comment is no statement), so the cost
    follows the number of such words, not the size of the tree.
    ``raised_messages(body)`` then reads the sites inside a function's byte range.
    """

    def __init__(self, root: Any, source: bytes) -> None:
        sites = {}
        for hit in _SITE_WORDS.finditer(source):
            before = source[hit.start() - 1 : hit.start()] if hit.start() else b""
            if before.isalnum() or before == b"_":
                continue  # inside a longer word (``reraise``, ``_warn``)
            node = _site(root.descendant_for_byte_range(hit.start(), hit.end()), hit.group())
            if node is not None:
                sites[node.id] = node
        self._nodes = sorted(sites.values(), key=lambda n: (n.start_byte, -n.end_byte))
        self._starts = [n.start_byte for n in self._nodes]

    def raised_messages(self, body: Any) -> list[str]:
        """Message templates of the ``raise`` and ``warn`` calls in a function ``body``.

        In source order, nested functions included (a nested def is no node of its own).
        """
        if body is None:
            return []
        lo = bisect.bisect_left(self._starts, body.start_byte)
        hi = bisect.bisect_left(self._starts, body.end_byte, lo)
        found: list[str] = []
        for node in self._nodes[lo:hi]:
            if len(found) >= MAX_MESSAGES:
                break
            found.extend(_messages(node, body))
        return list(dict.fromkeys(found))[:MAX_MESSAGES]


def _site(node: Any, word: bytes) -> Any:
    """The ``raise_statement`` or ``warn`` call whose first word is at ``node``, or None."""
    parent = node.parent if node is not None else None
    if parent is None:
        return None
    if word in (b"raise", b"assert"):  # the keyword's own node, in its statement
        keyword = word.decode()
        return parent if node.type == keyword and parent.type == f"{keyword}_statement" else None
    if node.type != "identifier" or node.text != word:
        return None
    if parent.type == "call" and parent.child_by_field_name("function") == node:
        return parent  # ``warn(...)``
    call = parent.parent  # ``x.warn(...)``: the name is an attribute's, called
    if (
        word == b"warn"
        and parent.type == "attribute"
        and parent.child_by_field_name("attribute") == node
        and call is not None
        and call.type == "call"
        and call.child_by_field_name("function") == parent
    ):
        return call
    return None


def _messages(node: Any, body: Any) -> list[str]:
    """The message templates of one ``raise`` statement or ``warn`` call in ``body``:
    its literal, or what the function assigns to the name it passes."""
    arg = _message_argument(node)
    if arg is None:
        return []
    named, fill = _named_message(arg)
    if named is None:
        return _usable([_template(arg)])
    name, scope = text(named), _scope(node, body)
    values = _assigned(scope, name, node.start_byte)
    while not values and scope.id != body.id:  # a closure's message: the enclosing function's
        scope = _scope(scope, body)
        values = _assigned(scope, name, node.start_byte)
    return _usable([fill(t) if (t := _template(value)) else None for value in values])


def _named_message(arg: Any) -> tuple[Any, Any]:
    """(the local name a message argument reads, how it is filled in), or (None, None):
    ``msg``, ``msg % {...}`` (scikit-learn's ``check_is_fitted``) or ``msg.format(...)``."""
    if arg.type == "identifier":
        return arg, lambda template: template
    if arg.type == "binary_operator" and text(arg.child_by_field_name("operator")) == "%":
        left = arg.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            return left, lambda template: _PRINTF.sub(PLACEHOLDER, template)
    func = arg.child_by_field_name("function") if arg.type == "call" else None
    if func is not None and func.type == "attribute":
        obj = func.child_by_field_name("object")
        if obj is not None and obj.type == "identifier" and text(func).endswith(".format"):
            return obj, lambda template: _FORMAT.sub(PLACEHOLDER, template)
    return None, None


def _scope(node: Any, body: Any) -> Any:
    """The function (or ``body``) that encloses ``node``, ``node`` excluded."""
    scope = node.parent
    while scope is not None and scope.type != "function_definition" and scope.id != body.id:
        scope = scope.parent
    return body if scope is None else scope


def _usable(templates: list[str | None]) -> list[str]:
    out = []
    for message in templates:
        if message and len(message.replace(PLACEHOLDER, "").strip()) >= 8:
            out.append(" ".join(message.split())[:MAX_MESSAGE_CHARS])
    return out


def _assigned(body: Any, name: str, before: int) -> list[Any]:
    """The values assigned to ``name`` in ``body`` before byte ``before`` (``=`` only)."""
    values = []
    stack = list(reversed(body.named_children))
    while stack:
        node = stack.pop()
        if node.start_byte >= before:
            continue
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if right is not None and left is not None and left.type == "identifier":
                values.extend([right] if text(left) == name else [])
            continue
        if node.type not in _SCOPES:
            stack.extend(reversed(node.named_children))
    return sorted(values, key=lambda n: n.start_byte)


_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


def _message_argument(node: Any) -> Any:
    """The first argument of one ``raise X(...)`` or ``warn(...)``, or None."""
    call = None
    if node.type == "assert_statement":  # ``assert path.startswith("/"), "A path ..."``
        return node.named_children[1] if len(node.named_children) > 1 else None
    if node.type == "raise_statement":
        raised = node.named_children[0] if node.named_children else None
        call = raised if raised is not None and raised.type == "call" else None
    else:  # ``warn(...)``, ``warn_explicit(...)`` or ``x.warn(...)``
        name = text(node.child_by_field_name("function"))
        call = node if name in _WARN_CALLS or name.endswith(".warn") else None
    return _first_argument(call) if call is not None else None


def adopt_orphans(sites: MessageSites, nodes: list[Any]) -> None:
    """Give each message a private function or method raises (no node; a dunder's and a
    public function's own are left out) to the innermost class node around it, else to
    the module's node when the module is public, so that pasting it still finds its code:
    SQLAlchemy raises ``DetachedInstanceError`` in ``_LazyLoader._load_for_state``,
    statsmodels its "indices for endog and exog are not aligned" in
    ``PandasData._check_integrity``."""
    claimed = {m for n in nodes for m in n.metadata.get("messages", ())}
    module = next((n for n in nodes if n.metadata["kind"] == "module_doc"), None)
    if module is not None and any(p.startswith("_") for p in module.metadata["symbol"].split(".")):
        module = None  # a private module is no raiser to show a user
    classes = [n for n in nodes if n.metadata.get("symbol_type") == "class"]
    for site in sites._nodes:
        scope = site.parent
        while scope is not None and scope.type != "function_definition":
            scope = scope.parent
        body = scope.child_by_field_name("body") if scope is not None else None
        name = text(scope.child_by_field_name("name")) if scope is not None else ""
        if not name.startswith("_") or name.endswith("__"):
            continue  # a public function is a node, its own messages capped; a dunder's
            # (``__getitem__``, ``__new__``) are best named by the exception
        line = site.start_point[0] + 1
        around = [c for c in classes if c.metadata["start_line"] <= line <= c.metadata["end_line"]]
        owner = min(
            around, key=lambda c: c.metadata["end_line"] - c.metadata["start_line"], default=module
        )
        if owner is None or body is None:
            continue  # no node to hold it, or raised at module level (an import guard)
        for message in _messages(site, body):
            if message not in claimed and len(owner.metadata.get("messages", ())) < MAX_ADOPTED:
                claimed.add(message)
                owner.metadata.setdefault("messages", []).append(message)
