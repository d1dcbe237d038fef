"""``violinplot.__doc__ = dedent('''...''').format(...)``: a docstring written after the def.

seaborn (and others) build a function's docstring from shared templates and
assign it to ``__doc__`` after the definition, so the definition itself has
no docstring. The first string literal of the assigned expression (the
template, not the ``format`` arguments; nothing is evaluated, placeholders
stay as written) becomes the docstring of that module-level symbol: it is
appended to the docstring the node already has, and to its text. Only
``name.__doc__ = ...`` with ``name`` defined earlier in the module counts;
``+=``, attributes of other objects and non-literal values are left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..python_syntax import first_string, text
from ..schema import NodeKind

if TYPE_CHECKING:
    from codecite.node_parsers.schema import NodeRecord


@dataclass(frozen=True)
class LateDocstring:
    """``target.__doc__ = <doc>``: the assigned name and the docstring found."""

    target: str
    doc: str


def read_late_docstring(left: Any, right: Any) -> LateDocstring | None:
    """The late docstring an assignment ``left = right`` makes, if it is one.

    Example:
        >>> from codecite.node_parsers._ts import parse_python
        >>> tree = parse_python(b"f.__doc__ = dedent('Draw it.').format(x=1)\\n")
        >>> assign = tree.root_node.named_children[0].named_children[0]
        >>> read_late_docstring(assign.child_by_field_name("left"),
        ...                     assign.child_by_field_name("right"))
        LateDocstring(target='f', doc='Draw it.')
    """
    target = left.child_by_field_name("object") if left.type == "attribute" else None
    if (
        right is None
        or target is None
        or target.type != "identifier"
        or text(left.child_by_field_name("attribute")) != "__doc__"
    ):
        return None
    doc = first_string(right) or ""  # the template, not its arguments
    return LateDocstring(text(target), doc) if doc else None


def attach_docstring(nodes: Sequence[NodeRecord], symbol: str, doc: str) -> bool:
    """Append ``doc`` to the docstring and text of the latest module-level node of
    ``symbol`` (a ``python_symbol``); False when the module has none."""
    node = next(
        (
            n
            for n in reversed(nodes)
            if n.metadata.get("symbol") == symbol
            and n.metadata["kind"] == NodeKind.PYTHON_SYMBOL.value
        ),
        None,
    )
    if node is None:
        return False
    old = node.metadata.get("docstring") or ""
    node.metadata["docstring"] = f"{old}\n\n{doc}" if old else doc
    node.text = f"{node.text}\n{doc}"
    return True
