"""The indexed package's namespace as parsed: modules, symbols, re-exports.

Built at index time from the Python parser's output and persisted as
``symbols.json``; used by code validation and by doc-to-symbol resolution.
Nothing here imports the indexed project.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from codecite.node_parsers.schema import CODE_KINDS

SYMBOL_KEYS = (
    "kind",
    "symbol_type",
    "signature",
    "params",
    "returns",
    "decorators",
    "fields",
    "has_init",
    "bases",
    "source_path",
    "start_line",
    "end_line",
)


def module_namespaces(namespaces: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Namespaces by module; a ``.pyi`` stub beside a module counts only for
    ``lazy.attach_stub``: its package-relative imports are what the module answers.

    Without ``attach_stub`` the module itself is what runs, so its namespace wins
    over the stub's, and the names only the stub binds are kept apart (``stub_names``:
    validation cannot call them absent); a stub with no module beside it stands for it.
    """
    modules: dict[str, dict[str, Any]] = {}
    stubs: dict[str, dict[str, Any]] = {}
    for ns in namespaces:
        is_stub = str(ns.get("source_path", "")).endswith(".pyi")
        (stubs if is_stub else modules)[ns["module"]] = ns
    for module, stub in stubs.items():
        found = modules.get(module)
        if found is None:
            modules[module] = stub
        elif (found.get("getattr") or {}).get("stub"):
            modules[module] = _attached(found, stub)
        else:  # names for type checkers only (loguru's Logger, alembic's op.add_column)
            bound = {*found.get("defines", {}), *found.get("imports", {})}
            typed = {*stub.get("defines", {}), *stub.get("imports", {})} - bound
            modules[module] = {**found, "stub_names": sorted(typed)}
    return modules


def _attached(ns: dict[str, Any], stub: dict[str, Any]) -> dict[str, Any]:
    """``ns`` (a module calling ``lazy.attach_stub``) answering what ``stub`` imports."""
    package = ns["module"] + "."
    lazily = {k: v for k, v in stub.get("imports", {}).items() if v.startswith(package)}
    getattr_model = {"names": [], "lazy": {}, "closed": True, "stub": stub["source_path"]}
    return {**ns, "imports": {**ns.get("imports", {}), **lazily}, "getattr": getattr_model}


@dataclass
class SymbolTable:
    """Modules (with their top-level bindings) and code symbols by qualified name.

    Example:
        >>> t = SymbolTable(modules={"pkg": {"defines": {"f": "function"}, "imports": {}}})
        >>> t.resolve("pkg.f")
        'pkg.f'
    """

    modules: dict[str, dict[str, Any]] = field(default_factory=dict)
    symbols: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    # what the build skipped (the manifest's ``skipped``: tests, too large, NUL bytes):
    # each path's dotted tails -> the reason (``skipped_as``)
    skipped: dict[str, str] = field(default_factory=dict)

    def with_skipped(self, entries: Iterable[Mapping[str, str]]) -> SymbolTable:
        """This table, knowing the files a build skipped (``{"path", "reason"}`` each)."""
        for entry in entries:
            path = re.sub(r"(/__init__)?\.pyi?$", "", str(entry["path"]).rstrip("/"))
            parts = path.split("/")
            for i in range(len(parts)):  # ``src/pkg/tests`` may be ``pkg.tests``
                self.skipped.setdefault(".".join(parts[i:]), str(entry["reason"]))
        return self

    def skipped_as(self, module: str) -> str | None:
        """Why the build skipped module ``module`` (or a package holding it), if it did."""
        parts = module.split(".")
        for i in range(len(parts), 0, -1):
            reason = self.skipped.get(".".join(parts[:i]))
            if reason is not None:
                return reason
        return None

    @classmethod
    def from_parts(
        cls, namespaces: Iterable[dict[str, Any]], nodes_metadata: Iterable[dict[str, Any]]
    ) -> SymbolTable:
        modules = module_namespaces(namespaces)
        symbols: dict[str, dict[str, Any]] = {}
        for meta in nodes_metadata:
            if meta.get("kind") in CODE_KINDS and meta.get("symbol"):
                # the first definition wins (a property getter before its setter)
                symbols.setdefault(meta["symbol"], {k: meta.get(k) for k in SYMBOL_KEYS})
        return cls(modules, symbols)

    @classmethod
    def of_names(cls, namespaces: Iterable[dict[str, Any]], names: Iterable[str]) -> SymbolTable:
        """A table that knows which symbols exist but not their details (a build needs no more)."""
        return cls(module_namespaces(namespaces), {name: {} for name in names})

    # -- persistence -------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"modules": self.modules, "symbols": self.symbols}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SymbolTable:
        return cls(dict(data.get("modules", {})), dict(data.get("symbols", {})))

    @classmethod
    def load(cls, path: Path) -> SymbolTable:
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))

    # -- queries -------------------------------------------------------------------
    @property
    def top_packages(self) -> set[str]:
        return {m.split(".")[0] for m in self.modules}

    def is_module(self, name: str) -> bool:
        return name in self.modules

    def submodules(self, name: str) -> list[str]:
        prefix = name + "."
        return sorted(
            m for m in self.modules if m.startswith(prefix) and "." not in m[len(prefix) :]
        )

    @cached_property
    def children(self) -> dict[str, set[str]]:
        """Qualified name -> names of its direct member symbols (built once: not mutated)."""
        out: dict[str, set[str]] = {}
        for name in self.symbols:
            parent, _, child = name.rpartition(".")
            out.setdefault(parent, set()).add(child)
        return out

    def private_class(self, cls: str | None) -> dict[str, Any] | None:
        """A private class's bases and member names: it has no node, but a public class
        may inherit from it (``ModuleNamespace.note_private_class``)."""
        module, _, name = (cls or "").rpartition(".")
        return (self.modules.get(module) or {}).get("private_classes", {}).get(name)

    def instance_attributes(self, cls: str) -> list[str]:
        """What ``cls``'s methods set on ``self`` (``ModuleNamespace.instance_attributes``)."""
        module, _, name = cls.rpartition(".")
        return list((self.modules.get(module) or {}).get("instance_attributes", {}).get(name, ()))

    def is_dynamic(self, cls: str) -> bool:
        """Does ``cls`` define ``__getattr__`` or ``__getattribute__`` (any attribute)?"""
        module, _, name = cls.rpartition(".")
        return name in (self.modules.get(module) or {}).get("dynamic_classes", ())

    def names_in(self, module: str) -> set[str]:
        """Every name a module binds at top level, plus its direct submodules."""
        ns = self.modules.get(module, {})
        names = set(ns.get("defines", {})) | set(ns.get("imports", {}))
        names |= {m.rsplit(".", 1)[1] for m in self.submodules(module)}
        return names

    def resolve(
        self, dotted: str, _depth: int = 0, _memo: dict[str, str] | None = None
    ) -> str | None:
        """Follow re-exports to the defining qualified name, or None if not provable.

        ``pkg.f`` where ``pkg/__init__.py`` does ``from ._impl import f`` resolves
        to ``pkg._impl.f``; a module resolves to itself. ``_memo`` keeps names
        already resolved across calls (re-export chains share their tails).
        """
        if _depth > 20:
            return None
        if dotted in self.symbols or dotted in self.modules:
            return dotted
        if _memo is not None and dotted in _memo:
            return _memo[dotted]
        found = self._resolve(dotted, _depth, _memo)
        if _memo is not None and found is not None:
            _memo[dotted] = found
        return found

    def _resolve(self, dotted: str, _depth: int, _memo: dict[str, str] | None) -> str | None:
        parts = dotted.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module not in self.modules:
                continue
            ns = self.modules[module]
            head, rest = parts[i], parts[i + 1 :]
            target = ns.get("imports", {}).get(head)
            if target is not None:
                full = ".".join([target, *rest])
                return self.resolve(full, _depth + 1, _memo) if full != dotted else None
            if head in ns.get("defines", {}):
                base = f"{module}.{head}"
                if not rest:
                    return base
                candidate = ".".join([base, *rest])
                return candidate if candidate in self.symbols else None
            return self._via_star_imports(ns, [head, *rest], _depth, _memo)
        return None

    def _via_star_imports(
        self, ns: dict[str, Any], parts: list[str], depth: int, memo: dict[str, str] | None = None
    ) -> str | None:
        """A name bound by ``from x import *``, when x is indexed and provides it."""
        for star in ns.get("star_imports", []):
            star_ns = self.modules.get(star)
            if star_ns is None:
                continue
            exported = star_ns.get("all")
            if exported is not None and parts[0] not in exported:
                continue
            found = self.resolve(".".join([star, *parts]), depth + 1, memo)
            if found is not None:
                return found
        return None

    def related_maps(
        self,
    ) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
        """(owner -> member symbols, source path -> its top-level ``python_symbol``
        names, leaf name -> symbols), each list in table order.

        Computed once per table (a table is not changed after it is built), so
        looking up a symbol's neighbours does not scan every symbol.
        """
        cached = self.__dict__.get("_related")
        if cached is None:
            members: dict[str, list[str]] = {}
            in_file: dict[str, list[str]] = {}
            by_leaf: dict[str, list[str]] = {}
            # a loaded index's table tells kind and path without reading each record
            brief = getattr(self.symbols, "brief", None)
            for name in self.symbols:
                owner, _, leaf = name.rpartition(".")
                if owner:
                    members.setdefault(owner, []).append(name)
                by_leaf.setdefault(leaf, []).append(name)
                info = {} if brief is not None else self.symbols[name]
                kind, path = brief(name) if brief else (info.get("kind"), info.get("source_path"))
                if kind == "python_symbol":
                    in_file.setdefault(str(path), []).append(name)
            cached = self.__dict__["_related"] = (members, in_file, by_leaf)
        return cached

    def instance_class(self, name: str) -> str | None:
        """The indexed class a module-level ``name`` holds an instance of, as its module made
        it (sunpy's ``Fido = UnifiedDownloaderFactory(...)``, ``Map = MapFactory()``)."""
        module, _, leaf = name.rpartition(".")
        made_by = self.modules.get(module, {}).get("instances", {}).get(leaf)
        cls = made_by and (self.resolve(f"{module}.{made_by}") or self.resolve(made_by))
        kind = (self.symbols.get(cls) or {}).get("symbol_type") if cls else None
        return cls if kind == "class" else None

    def public_aliases(self) -> dict[str, str]:
        """Re-exported public names -> defining names (``pkg.f`` -> ``pkg._impl.f``).

        Computed once per table (a table is not changed after it is built).
        """
        cached = self.__dict__.get("_aliases")
        if cached is not None:
            return dict(cached)
        out: dict[str, str] = {}
        memo: dict[str, str] = {}
        by_target: dict[str, str | None] = {}  # many modules import the same names
        for module, ns in self.modules.items():
            for name, imported in ns.get("imports", {}).items():
                alias = f"{module}.{name}"
                if alias in self.symbols or alias in self.modules or imported == alias:
                    continue  # resolves to itself: not an alias
                # resolve(alias) is resolve(imported) one level down; shared by importers
                if imported not in by_target:
                    by_target[imported] = self.resolve(imported, 1, memo)
                target = by_target[imported]
                if target and target != alias and target in self.symbols:
                    out[alias] = target
        exports: dict[str, set[str]] = {}
        for module, ns in self.modules.items():  # ``from ._impl import *`` re-exports too
            bound = {*ns.get("defines", {}), *ns.get("imports", {})}
            for star in ns.get("star_imports", []):
                for name in sorted(self._star_exports(star, exports)):
                    alias = f"{module}.{name}"
                    if name in bound or alias in out or alias in self.symbols:
                        continue
                    target = self.resolve(alias, 1, memo)
                    if target and target != alias and target in self.symbols:
                        out[alias] = target
        self.__dict__["_aliases"] = out
        return dict(out)

    def _star_exports(self, module: str, cache: dict[str, set[str]]) -> set[str]:
        """The names ``from module import *`` binds: its ``__all__``, or else its public
        top-level names and what its own star imports bind."""
        if module in cache:
            return cache[module]
        cache[module] = set()  # a cycle of star imports binds nothing more
        ns = self.modules.get(module)
        if ns is None:
            return cache[module]
        if ns.get("all") is not None:
            names = set(ns["all"])
        else:
            names = {n for n in (*ns.get("defines", {}), *ns.get("imports", {})) if n[:1] != "_"}
            for star in ns.get("star_imports", []):
                names |= self._star_exports(star, cache)
        cache[module] = names
        return names
