"""Parameters of a Python signature: from the tree to ``Param`` records and back.

``parse_parameters`` reads a ``parameters`` node into ``Param`` dicts with
``inspect`` kinds; ``format_parameters`` writes them back in source form with
the ``/`` and ``*`` markers (a class node's signature is its ``__init__``'s).
"""

from __future__ import annotations

from typing import Any

from .dataclass_fields import INIT_FALSE, dataclass_decorator, own_field_params
from .python_syntax import squash, text
from .schema import ClassField, Param, ParamKind

_SPLATS: dict[str, ParamKind] = {
    "list_splat_pattern": "var_positional",
    "dictionary_splat_pattern": "var_keyword",
}


def _param_name(node: Any) -> str | None:
    name = node.child_by_field_name("name")
    if name is not None:
        return text(name)
    for child in node.named_children:
        if child.type == "identifier":
            return text(child)
    return None


def parse_parameters(params_node: Any) -> list[Param]:
    """Parameters as ``{name, annotation, default, kind}`` dicts (inspect kinds)."""
    if params_node is None:
        return []
    out: list[Param] = []
    kind: ParamKind = "positional_or_keyword"
    for child in params_node.named_children:
        if child.type == "positional_separator":
            for p in out:
                p["kind"] = "positional_only"
        elif child.type == "keyword_separator":
            kind = "keyword_only"
        elif child.type != "comment":
            param, kind = _read_param(child, kind)
            if param is not None:
                out.append(param)
    return out


def _read_param(node: Any, kind: ParamKind) -> tuple[Param | None, ParamKind]:
    """One parameter (None for a node that is none, or has no name) and the kind of
    the parameters after it: after ``*args`` they are keyword-only."""
    name: str | None
    own: ParamKind
    annotation = default = None
    if node.type == "identifier":
        name, own = text(node), kind
    elif node.type in _SPLATS:
        name, own = _param_name(node), _SPLATS[node.type]
    elif node.type in ("typed_parameter", "typed_default_parameter", "default_parameter"):
        inner = node.named_children[0] if node.named_children else None
        if inner is not None and inner.type in _SPLATS:
            name, own = _param_name(inner), _SPLATS[inner.type]
        else:
            name, own = _param_name(node), kind
        ann = node.child_by_field_name("type")
        val = node.child_by_field_name("value")
        annotation = text(ann) if ann is not None else None
        default = text(val) if val is not None else None
    else:
        return None, kind
    if own == "var_positional":
        kind = "keyword_only"
    if not name:
        return None, kind
    return Param(name=name, annotation=annotation, default=default, kind=own), kind


NO_FIELD_BASES = ("", "()", "(object)")  # a dataclass with these inherits no fields


def constructor(
    name: str,
    bases: str,
    init: list[Param],
    decorators: list[str],
    fields: list[ClassField],
) -> tuple[str, list[Param]]:
    """The signature and parameters a class's card shows: its ``__init__``'s less the
    instance; a dataclass's own fields, when it has no base to inherit fields from
    (textual's ``Notification`` showed no parameters); else its header, which reads as
    no call (``class Notify(Message, bubble=False)``, not ``Notify(Message, ...)``).

    Example:
        >>> field = ClassField(name="message", annotation="str", default=None)
        >>> constructor("Note", "", [], ["dataclass"], [field])[0]
        'Note(message: str)'
    """
    params = without_instance(init)
    deco = None if init or bases not in NO_FIELD_BASES else dataclass_decorator(decorators)
    if deco is not None and not INIT_FALSE.search(deco):
        made = own_field_params(deco, [dict(f) for f in fields])
        params = [
            Param(name=p["name"], annotation=p["annotation"], default=p["default"], kind=p["kind"])
            for p in made
        ]
    elif not init:
        return squash(f"class {name}{bases}"), []
    return squash(f"{name}({format_parameters(params)})"), params


def without_instance(params: list[Param]) -> list[Param]:
    """A constructor's parameters less the first, the instance (or the class of
    ``__new__``), whatever it is called: ``self``, pydantic's ``__pydantic_self__``, ``mcs``.

    Example:
        >>> def param(name, kind):
        ...     return Param(name=name, annotation=None, default=None, kind=kind)
        >>> ps = [param("__pydantic_self__", "positional_or_keyword"), param("data", "var_keyword")]
        >>> [p["name"] for p in without_instance(ps)]
        ['data']
    """
    first = params[0]["kind"] if params else None
    return params[1:] if first in ("positional_only", "positional_or_keyword") else params


def format_parameters(params: list[Param]) -> str:
    """Parameters back to source form, with the ``/`` and ``*`` markers."""
    parts: list[str] = []
    for i, p in enumerate(params):
        prev = params[i - 1]["kind"] if i else None
        if prev == "positional_only" and p["kind"] != "positional_only":
            parts.append("/")
        if p["kind"] == "keyword_only" and prev not in ("keyword_only", "var_positional"):
            parts.append("*")
        parts.append(_format_param(p))
    if params and params[-1]["kind"] == "positional_only":
        parts.append("/")
    return ", ".join(parts)


def _format_param(p: Param) -> str:
    prefix = {"var_positional": "*", "var_keyword": "**"}.get(p["kind"], "")
    source = prefix + p["name"]
    if p.get("annotation"):
        source += f": {p['annotation']}"
    if p.get("default") is not None:
        source += f" = {p['default']}" if p.get("annotation") else f"={p['default']}"
    return source
