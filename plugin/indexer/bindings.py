"""Module-level bindings of an instance's methods: ``decode = _jws_global_obj.decode``.

Many packages expose functions as methods of one module-level instance:
``_jws_global_obj = PyJWS()`` then ``decode = _jws_global_obj.decode`` (PyJWT),
``mp = MPContext()`` then ``quad = mp.quad`` (mpmath). The name users type,
``jwt.decode`` or ``mpmath.quad``, is then an assignment whose text is one line;
what it means is the method, ``PyJWS.decode`` or ``QuadratureMethods.quad``.
``method_bindings`` finds them from the module namespaces' instances (``x =
Cls(...)``, recorded by the parser) and the signatures of assignment nodes
(nothing is run); exact-name resolution then reads the binding as it reads a
re-export.
"""

from __future__ import annotations

import re

from codecite.store.reuse import Keys
from codecite.store.symbols import SymbolTable

_BOUND = re.compile(r"^\s*[A-Za-z_]\w*\s*=\s*([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s*$")  # y = x.attr
MAX_BASE_DEPTH = 8


def method_bindings(keys: Keys, table: SymbolTable) -> dict[str, str]:
    """Assignment symbol -> the method it binds (``jwt.api_jws.decode`` ->
    ``jwt.api_jws.PyJWS.decode``), for ``y = x.attr`` where the same module made
    ``x = Cls(...)`` of an indexed class that has (or inherits) ``attr``."""
    kinds = {s: t for s, t in zip(keys.symbol, keys.symbol_type, strict=True) if s}
    bases = {s: b for s, b in zip(keys.symbol, keys.bases, strict=True) if s and b}
    modules = {s: m for s, m in zip(keys.symbol, keys.module, strict=True) if s}
    assignments = [
        (symbol, signature or "")
        for symbol, kind, signature in zip(
            keys.symbol, keys.symbol_type, keys.signature, strict=True
        )
        if symbol and kind == "assignment"
    ]
    instances: dict[str, str] = {}  # module.x -> the class x is an instance of
    for module, ns in table.modules.items():  # ``x = Cls(...)``, private ``x`` included
        for name, made_by in (ns.get("instances") or {}).items():
            cls = table.resolve(f"{module}.{made_by}")
            if cls is not None and kinds.get(cls) == "class":
                instances[f"{module}.{name}"] = cls
    out: dict[str, str] = {}
    for symbol, signature in assignments:
        bound = _BOUND.match(signature)
        if not bound:
            continue
        owner = instances.get(f"{symbol.rsplit('.', 1)[0]}.{bound.group(1)}")
        member = _member(owner, bound.group(2), kinds, bases, modules, table) if owner else None
        if member is not None:
            out[symbol] = member
    return out


def _member(
    cls: str,
    name: str,
    kinds: dict[str, str | None],
    bases: dict[str, list[str]],
    modules: dict[str, str | None],
    table: SymbolTable,
    depth: int = 0,
) -> str | None:
    """``cls.name``, defined on ``cls`` or on an indexed base (bases resolved where
    ``cls`` is defined), or None."""
    if f"{cls}.{name}" in kinds:
        return f"{cls}.{name}"
    if depth >= MAX_BASE_DEPTH:
        return None
    module = modules.get(cls) or cls.rsplit(".", 1)[0]
    for base in bases.get(cls, ()):
        found = table.resolve(f"{module}.{base.split('[', 1)[0]}")
        if found is not None and found != cls and kinds.get(found) == "class":
            member = _member(found, name, kinds, bases, modules, table, depth + 1)
            if member is not None:
                return member
    return None
