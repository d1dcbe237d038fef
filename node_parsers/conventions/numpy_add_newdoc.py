"""``add_newdoc(module, name, doc)``: how numpy and scipy document what C defines.

numpy documents its C functions (``np.zeros``, ``np.add``) with
``add_newdoc("numpy._core.multiarray", "zeros", doc)``, and a method with
``add_newdoc(module, "ndarray", ("sort", doc))``; scipy.special's two-argument
``add_newdoc("gammainc", doc)`` names a function of the enclosing package.
Each such call with literal arguments becomes the documented symbol's node,
cited at the call: a ``python_symbol`` (``symbol_type`` ``documented``), or a
``python_method`` for a ``(member, doc)`` pair. Its signature is the doc's
first line when that line names the symbol (numpy writes ``zeros(shape,
dtype=float, ...)`` there), else ``name(...)``. Private names are skipped, as
are calls whose names are not literals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..python_syntax import first_string, is_private, string_value, text
from ..schema import NodeKind


@dataclass(frozen=True)
class NewDoc:
    """One ``add_newdoc`` call: where the documented symbol lives and its docstring."""

    module: str
    owner: str
    member: str | None
    doc: str

    @property
    def symbol(self) -> str:
        return f"{self.module}.{self.owner}" + (f".{self.member}" if self.member else "")

    @property
    def leaf(self) -> str:
        return self.member or self.owner

    @property
    def signature(self) -> str:
        first = self.doc.split("\n", 1)[0].strip()
        return first if first.split("(", 1)[0].split(".")[-1] == self.leaf else f"{self.leaf}(...)"

    @property
    def kind(self) -> NodeKind:
        return NodeKind.PYTHON_METHOD if self.member else NodeKind.PYTHON_SYMBOL

    @property
    def symbol_type(self) -> str:
        return "method" if self.member else "documented"

    @property
    def text(self) -> str:
        """The node's text: symbol, signature, docstring."""
        return f"{self.symbol}\n{self.signature}\n{self.doc}".rstrip()


def read_add_newdoc(stmt: Any, module: str, is_package: bool) -> NewDoc | None:
    """The ``add_newdoc`` call an expression statement of ``module`` makes, if any.

    Example:
        >>> from codecite.node_parsers._ts import parse_python
        >>> tree = parse_python(b'add_newdoc("numpy.core", "zeros", "Zeros.")\\n')
        >>> found = read_add_newdoc(tree.root_node.named_children[0], "numpy._docs", False)
        >>> found.symbol, found.signature, found.doc
        ('numpy.core.zeros', 'zeros(...)', 'Zeros.')
    """
    args = _add_newdoc_arguments(stmt)
    if args is None:
        return None
    if len(args) == 2:  # scipy.special's add_newdoc("gammainc", doc): the package's
        where = module if is_package else module.rsplit(".", 1)[0]
        owner_node, doc_node = args
    elif len(args) >= 3 and args[0].type == "string":
        where = string_value(args[0])
        owner_node, doc_node = args[1], args[2]
    else:
        return None
    if owner_node.type != "string":
        return None
    owner = string_value(owner_node)
    member = None
    if doc_node.type == "tuple":  # (member, doc); parentheses alone only group
        parts = [a for a in doc_node.named_children if a.type != "comment"]
        if len(parts) != 2 or parts[0].type != "string":
            return None
        member, doc_node = string_value(parts[0]), parts[1]
    # numpy writes `"""...""".replace("${LIKE}", like_doc)`: the template is the doc
    doc = first_string(doc_node)
    if doc is None or not _is_documented_name(where, owner, member):
        return None
    return NewDoc(where, owner, member, doc)


def _add_newdoc_arguments(stmt: Any) -> list[Any] | None:
    """The arguments (comments left out) of a statement that is one ``add_newdoc`` call
    (``add_newdoc(...)``, ``np.add_newdoc(...)``), else None."""
    call = stmt.named_children[0] if stmt.named_child_count == 1 else None
    if call is None or call.type != "call":
        return None
    func = call.child_by_field_name("function")
    name = text(func).rsplit(".", 1)[-1] if func is not None else ""
    args = call.child_by_field_name("arguments")
    if name != "add_newdoc" or args is None:
        return None
    return [a for a in args.named_children if a.type != "comment"]


def _is_documented_name(module: str, owner: str, member: str | None) -> bool:
    """A dotted module and identifiers, none of them private; a dunder only as a member."""
    if (
        not re.fullmatch(r"[\w.]+", module)
        or not owner.isidentifier()
        or (member is not None and not member.isidentifier())
    ):
        return False
    return not (
        is_private(owner)
        or (member is not None and is_private(member))
        or (member is None and owner.startswith("__"))
    )
