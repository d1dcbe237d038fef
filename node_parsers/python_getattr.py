"""What a module ``__getattr__`` (PEP 562) can return, read statically.

Packages that load lazily (pyCSAMT, and numpy-style packages using
``lazy_loader``) answer ``pkg.name`` from literal tables::

    _SUBPACKAGES = frozenset({"io", "site"})
    _LAZY_SYMBOLS = {"Sites": ".site"}

    def __getattr__(name):
        if name in _SUBPACKAGES:
            return importlib.import_module(f".{name}", __name__)
        if name in _LAZY_SYMBOLS:
            return getattr(importlib.import_module(_LAZY_SYMBOLS[name], __name__), name)
        raise AttributeError(name)

    __getattr__, __dir__, __all__ = lazy.attach(__name__, submodules=["io"],
                                                 submod_attrs={"site": ["Sites"]})

``read_getattr`` turns such a function (or ``lazy.attach`` call) into a
``GetattrModel``: the names it may return, where a lazily loaded name is
defined, and whether every other name provably raises ``AttributeError``
(``closed``). It is conservative: a body it cannot read in full gives None, and
the validator keeps such a name a warning (docs/validation.md).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_TABLE_SOURCE = 200_000  # characters: a literal table longer than this is not read


@dataclass
class GetattrModel:
    """The names a module ``__getattr__`` answers; see the module docstring."""

    names: set[str] = field(default_factory=set)  # may be returned (not lazy targets)
    lazy: dict[str, str] = field(default_factory=dict)  # name -> module defining it
    closed: bool = False  # every other name raises AttributeError
    stub: bool = False  # lazy.attach_stub: the names are the imports of the .pyi beside it

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "names": sorted(self.names),
            "lazy": dict(sorted(self.lazy.items())),
            "closed": self.closed,
        }
        if self.stub:
            data["stub"] = True
        return data


def literal_table(source: str) -> Any:
    """A module-level literal container (set, frozenset(...), tuple, list, dict), or None."""
    if len(source) > MAX_TABLE_SOURCE:
        return None
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if (
        isinstance(tree, ast.Call)
        and isinstance(tree.func, ast.Name)
        and tree.func.id in ("frozenset", "set", "tuple", "list", "dict")
        and len(tree.args) <= 1
        and not tree.keywords
    ):
        tree = tree.args[0] if tree.args else ast.Tuple(elts=[])
    try:
        value = ast.literal_eval(tree)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return value
    if isinstance(value, (set, frozenset, tuple, list)) and all(isinstance(v, str) for v in value):
        return frozenset(value)
    return None


def absolute(target: str, package: str) -> str | None:
    """``.site`` seen from package ``pkg`` -> ``pkg.site``; an absolute name as is."""
    if not target or not all(p.isidentifier() for p in target.lstrip(".").split(".") if p):
        return None
    dots = len(target) - len(target.lstrip("."))
    if dots == 0:
        return target
    base = package.split(".")
    base = base[: len(base) - (dots - 1)] if dots > 1 else base
    rest = target[dots:]
    return ".".join([*base, rest] if rest else base) or None


def read_getattr(source: str, tables: Mapping[str, str], package: str) -> GetattrModel | None:
    """The model of ``def __getattr__(name): ...`` (``source``), or None if unreadable.

    ``tables`` maps module-level names to the source text of their values;
    ``package`` is the package relative names are resolved from.
    """
    try:
        module = ast.parse(source.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], ast.FunctionDef):
        return None
    func = module.body[0]
    if len(func.args.args) != 1 or func.args.vararg or func.args.kwarg:
        return None
    arg = func.args.args[0].arg
    model = GetattrModel()
    body = list(func.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    for stmt in body:
        if _raises_attribute_error(stmt):
            model.closed = True
            return model
        if isinstance(stmt, ast.If):
            accepted = _guard_names(stmt.test, arg, tables, package)
            if accepted != "negated" and not _returns([*stmt.body, *stmt.orelse]):
                continue  # `if name in _REMOVED: raise AttributeError(...)` answers nothing
            if accepted is None:
                return None
            if accepted == "negated":  # `if name not in X: raise` guards the rest
                negated = _negated(stmt.test, arg, tables, package)
                if negated is None or not all(_raises_attribute_error(s) for s in stmt.body[-1:]):
                    return None
                if stmt.orelse and _returns(stmt.orelse):
                    return None
                names, lazy = negated
                model.names |= names
                model.lazy.update(lazy)
                model.closed = True
                return model
            if not isinstance(accepted, tuple):
                return None
            names, lazy = accepted
            model.names |= names
            model.lazy.update(lazy)
            if stmt.orelse and _returns(stmt.orelse):
                return None  # an else branch answers other names
            continue
        if _returns(stmt):
            return None  # a return outside a guard: any name may come back
    return model  # falls off the end: returns None for other names, no AttributeError


def read_lazy_attach(source: str, package: str) -> GetattrModel | None:
    """The model of ``lazy.attach(__name__, submodules=..., submod_attrs=...)``.

    ``lazy.attach_stub(__name__, __file__)`` reads the ``.pyi`` beside the module
    instead: its model says so (``stub``) and stays open until the symbol table
    reads that stub's imports (``codecite.store.symbols``).
    """
    try:
        call = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Attribute, ast.Name)):
        return None
    called = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id
    if called == "attach_stub":
        return GetattrModel(stub=True)
    if called != "attach":
        return None
    model = GetattrModel(closed=True)
    for kw in call.keywords:
        try:
            value = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return None
        if kw.arg == "submodules" and _strings(value):
            model.names |= set(value)
        elif kw.arg == "submod_attrs" and isinstance(value, dict):
            for sub, attrs in value.items():
                target = absolute(f".{sub}", package) if isinstance(sub, str) else None
                if target is None or not _strings(attrs):
                    return None
                model.lazy.update(dict.fromkeys(attrs, target))
        elif kw.arg is not None:
            return None
    return model


def _strings(value: Any) -> bool:
    return isinstance(value, (list, tuple, set, frozenset)) and all(
        isinstance(v, str) for v in value
    )


def _returns(stmt: ast.AST | list[ast.stmt]) -> bool:
    nodes = stmt if isinstance(stmt, list) else [stmt]
    return any(isinstance(n, (ast.Return, ast.Yield)) for s in nodes for n in ast.walk(s))


def _raises_attribute_error(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    return isinstance(exc, ast.Name) and exc.id == "AttributeError"


def _is_arg(node: ast.AST, arg: str) -> bool:
    return isinstance(node, ast.Name) and node.id == arg


def _table(
    node: ast.AST, tables: Mapping[str, str], package: str
) -> tuple[set[str], dict[str, str]] | None:
    """The names a container expression holds, and lazy targets for a dict of modules."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError):
            return None
        return (set(value), {}) if _strings(value) else None
    if not isinstance(node, ast.Name) or node.id not in tables:
        return None
    value = literal_table(tables[node.id])
    if isinstance(value, frozenset):
        return set(value), {}
    if isinstance(value, dict):
        lazy = {}
        for name, target in value.items():
            module = absolute(target, package) if isinstance(target, str) else None
            if module is not None:
                lazy[name] = module
        return set(value) - set(lazy), lazy
    return None


def _guard_names(
    test: ast.expr, arg: str, tables: Mapping[str, str], package: str
) -> tuple[set[str], dict[str, str]] | str | None:
    """The names an ``if`` test lets through: ``name in X``, ``name == "x"``, an
    ``or`` of those, or an ``and`` whose first part is one; "negated" for ``not in``."""
    if isinstance(test, ast.BoolOp):
        parts = [_guard_names(v, arg, tables, package) for v in test.values]
        if isinstance(test.op, ast.And):
            first = parts[0]
            return first if isinstance(first, tuple) else None
        if any(not isinstance(p, tuple) for p in parts):
            return None
        names: set[str] = set()
        lazy: dict[str, str] = {}
        for p in parts:
            assert isinstance(p, tuple)
            names |= p[0]
            lazy.update(p[1])
        return names, lazy
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not _is_arg(test.left, arg):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return {right.value}, {}
    if isinstance(op, ast.In):
        return _table(right, tables, package)
    if isinstance(op, ast.NotIn):
        return "negated"
    return None


def _negated(
    test: ast.expr, arg: str, tables: Mapping[str, str], package: str
) -> tuple[set[str], dict[str, str]] | None:
    if isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.NotIn):
        return _table(test.comparators[0], tables, package)
    return None
