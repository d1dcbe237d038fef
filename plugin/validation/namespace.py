"""What the indexed package provides, statically: modules, names and members.

:class:`Namespace` answers "does ``pkg.mod.name`` exist?" over a
:class:`SymbolTable` (the package as parsed; nothing imported), following
re-exports, ``__all__`` and star imports, with three answers: found, provably
absent, or unknown (a module ``__getattr__``, a star import it cannot follow, a
module the package imports but the index lacks). The parameters a found
callable binds to come from :mod:`codecite.validation.calls`; see
docs/validation.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cached_property
from typing import Any

from codecite.store.symbols import SymbolTable
from codecite.validation.calls import (
    MAX_BASE_DEPTH,
    Signature,
    callable_signature,
    class_doubt,
    class_signature,
)
from codecite.validation.refs import OPAQUE, Ref, RefKind
from codecite.validation.suggestions import did_you_mean, suggest

MAX_REEXPORT_DEPTH = 30  # re-exports followed before a chain is called a cycle
NAMESPACE_CACHE_SIZE = 8  # namespaces kept, one per symbol table and package set
# bases that add no public attributes a script could call
EMPTY_BASES = frozenset({"object", "abc.ABC", "typing.Generic", "typing.Protocol"})
EMPTY_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta", "type"})


_REF_KINDS = {"class": RefKind.CLASS, "function": RefKind.CALLABLE, "method": RefKind.CALLABLE}
_REF_KINDS |= {"staticmethod": RefKind.CALLABLE, "classmethod": RefKind.CALLABLE}
_NAMESPACES: dict[tuple[int, frozenset[str]], Namespace] = {}  # the last few tables


class Namespace:
    """Member lookups over a :class:`SymbolTable`, following re-exports and star imports."""

    def __init__(self, table: SymbolTable, packages: Iterable[str]) -> None:
        self.table = table
        self.packages = set(packages)
        self.indexed = table.top_packages
        parts = [m.split(".") for m in table.modules]
        self.module_names = {".".join(p[:i]) for p in parts for i in range(1, len(p) + 1)}

    @classmethod
    def of(cls, table: SymbolTable, packages: Iterable[str]) -> Namespace:
        """A cached namespace for ``table`` (tables are built once and not mutated)."""
        key = (id(table), frozenset(packages))
        cached = _NAMESPACES.get(key)
        if cached is not None and cached.table is table:  # it holds the table: id not reused
            return cached
        if len(_NAMESPACES) >= NAMESPACE_CACHE_SIZE:
            _NAMESPACES.pop(next(iter(_NAMESPACES)))
        _NAMESPACES[key] = cls(table, key[1])
        return _NAMESPACES[key]

    @cached_property
    def unindexed(self) -> set[str]:
        """Modules the package imports that the index lacks (compiled, excluded)."""
        out: set[str] = set()
        for ns in self.table.modules.values():
            for target in [*ns.get("imports", {}).values(), *ns.get("star_imports", [])]:
                parent, _, name = target.rpartition(".")
                while parent and not self.is_module(parent):
                    parent, _, name = parent.rpartition(".")
                parent_ns = self.table.modules.get(parent, {"is_package": True})
                bound = {*parent_ns.get("defines", {}), *parent_ns.get("imports", {})}
                if (
                    parent
                    and parent_ns.get("is_package")
                    and name not in bound
                    and parent.split(".")[0] in self.indexed
                ):
                    out.add(f"{parent}.{name}")
        return out

    @cached_property
    def _every_name(self) -> list[str]:
        """Every module and symbol name, shortest first (where suggestions come from)."""
        return sorted({*self.module_names, *self.table.symbols}, key=lambda q: (len(q), q))

    def provably_no_module(self, package: str, name: str) -> bool:
        """No module ``package.name``: a parsed package, no such file, none the index lacks."""
        ns = self.table.modules.get(package)
        full = f"{package}.{name}"
        skipped = self.table.skipped_as(full)
        return bool(ns) and not self.is_module(full) and full not in self.unindexed and not skipped

    def _submodules(self, package: str) -> set[str]:
        prefix = f"{package}."
        return {m[len(prefix) :].split(".")[0] for m in self.module_names if m.startswith(prefix)}

    def is_module(self, name: str) -> bool:
        """A parsed module, or a namespace package (a prefix of parsed modules)."""
        return name in self.module_names

    def checks(self, dotted: str) -> bool:
        return dotted.split(".", 1)[0] in self.packages

    def top(self, name: str) -> Ref:
        if name not in self.packages:
            return OPAQUE
        if name not in self.indexed:
            return Ref(RefKind.UNKNOWN, name, reason=f"'{name}' is not in the index")
        return Ref(RefKind.MODULE, name, name)

    def symbol_ref(self, display: str, canonical: str, via: str = "") -> Ref:
        if self.is_module(canonical):
            return Ref(RefKind.MODULE, display, canonical)
        entry = self.table.symbols.get(canonical)
        kind = (entry or {}).get("symbol_type") or self._defined_kind(canonical)
        if kind == "assignment" and (cls := self.table.instance_class(canonical)):
            return Ref(RefKind.INSTANCE, display, cls, via=via)  # sunpy's `Fido = Factory()`
        return Ref(_REF_KINDS.get(kind, RefKind.VALUE), display, canonical, via=via)

    def _defined_kind(self, canonical: str) -> str:
        module, _, name = canonical.rpartition(".")
        return self.table.modules.get(module, {}).get("defines", {}).get(name, "")

    # -- chains --------------------------------------------------------------
    def chain(self, dotted: str, called: bool = False, depth: int = 0) -> Ref:
        """Resolve ``a.b.c`` from its top package, stopping at the first non-found part."""
        parts = dotted.split(".")
        ref = self.top(parts[0])
        for i, part in enumerate(parts[1:], start=2):
            if not ref.found:
                break
            ref = self.member(ref, part, called and i == len(parts), depth)
        return ref

    def module_path(self, dotted: str) -> Ref:
        """``import a.b.c``: every part must be a module."""
        parts = dotted.split(".")
        ref = self.top(parts[0])
        for part in parts[1:]:
            if ref.kind is not RefKind.MODULE:
                break
            name = f"{ref.canonical}.{part}"
            if self.is_module(name):
                ref = Ref(RefKind.MODULE, f"{ref.display}.{part}", name)
                continue
            found = self.member(ref, part)
            if found.found:
                return Ref(
                    RefKind.ABSENT, found.display, reason=f"'{found.display}' is not a module"
                )
            if not found.found and self.provably_no_module(ref.canonical or "", part):
                # a module __getattr__ never makes a submodule importable
                return Ref(
                    RefKind.ABSENT,
                    found.display,
                    reason=f"no module named '{found.display}'",
                    suggestions=suggest(
                        part, self._submodules(ref.canonical or ""), self._every_name
                    ),
                )
            return found
        return ref

    def member(self, owner: Ref, name: str, called: bool = False, depth: int = 0) -> Ref:
        if depth > MAX_REEXPORT_DEPTH:
            return Ref(RefKind.UNKNOWN, f"{owner.display}.{name}", reason="re-export cycle")
        if owner.kind is RefKind.MODULE:
            return self._module_member(owner, name, depth)
        if owner.kind in (RefKind.CLASS, RefKind.INSTANCE) and owner.canonical:
            return self._class_member(owner, name, called)
        return OPAQUE

    def _module_member(self, owner: Ref, name: str, depth: int) -> Ref:
        module, display = owner.canonical or "", f"{owner.display}.{name}"
        ns = self.table.modules.get(module, {})
        target = ns.get("imports", {}).get(name)
        if target is not None:
            return self._target_ref(display, target, depth)
        if name in ns.get("defines", {}) or self.is_module(f"{module}.{name}"):
            return self.symbol_ref(display, f"{module}.{name}")
        starred = self._star_member(module, ns, name, display, depth)
        if starred is not None:
            return starred
        probe = (module, name)
        lazily = ns.get("getattr") or {}  # what the module __getattr__ answers, if readable
        if name in lazily.get("lazy", {}):
            return self._target_ref(display, f"{lazily['lazy'][name]}.{name}", depth)
        if ns.get("has_getattr") and (name in lazily.get("names", ()) or not lazily.get("closed")):
            why = "answers it at run time" if lazily else "cannot be read statically"
            reason = f"'{owner.display}' defines a module __getattr__ that {why}"
            known = self.table.names_in(module) | {*(ns.get("all") or ()), *lazily.get("names", ())}
            near = () if name in known else did_you_mean(name, known)  # `Footr`: `Footer`
            return Ref(RefKind.UNKNOWN, display, probe=probe, reason=reason, suggestions=near)
        how = ns.get("adds_names")  # `globals().update(...)`: nilearn.plotting.cm's colormaps
        if how or name in ns.get("stub_names", ()):  # loguru's Logger: in __init__.pyi only
            reason = f"adds names at run time ({how})" if how else "has it only in its type stub"
            return Ref(RefKind.UNKNOWN, display, probe=probe, reason=f"'{owner.display}' {reason}")
        unindexed = "the package imports it but it is not indexed"
        if f"{module}.{name}" in self.unindexed:
            return Ref(RefKind.UNKNOWN, display, probe=probe, reason=unindexed)
        if skipped := self.table.skipped_as(f"{module}.{name}"):
            return Ref(
                RefKind.UNKNOWN, display, probe=probe, reason=f"the build skipped it: {skipped}"
            )
        if not ns:
            why = "is a namespace package; other distributions may add to it"
            return Ref(RefKind.UNKNOWN, display, probe=probe, reason=f"'{owner.display}' {why}")
        local = self.table.names_in(module) | self.star_names(ns)
        local |= {*lazily.get("names", ()), *lazily.get("lazy", {})}
        near = suggest(name, local, self._every_name)
        message = f"'{owner.display}' has no attribute or submodule '{name}'"
        return Ref(RefKind.ABSENT, display, reason=message, suggestions=near)

    def _target_ref(self, display: str, target: str, depth: int) -> Ref:
        if target.split(".", 1)[0] not in self.indexed:
            return Ref(RefKind.OPAQUE, display, target)
        parent, _, leaf = target.rpartition(".")
        ns = self.table.modules.get(parent, {})
        if self.is_module(target) and (
            ns.get("imports", {}).get(leaf, target) != target or leaf in ns.get("defines", {})
        ):  # `from .simplify import simplify`: the package's binding, not its submodule
            ref = self._module_member(Ref(RefKind.MODULE, parent, parent), leaf, depth + 1)
            return replace(ref, display=display)
        if self.is_module(target) or target in self.table.symbols:
            return self.symbol_ref(display, target)
        ref = self.chain(target, depth=depth + 1)
        if ref.kind is RefKind.ABSENT:
            module, _, attr = target.rpartition(".")
            return Ref(
                RefKind.UNKNOWN,
                display,
                probe=(module, attr),
                reason=f"it is re-exported from '{target}', which the index lacks",
            )
        return replace(ref, display=display)

    def _star_member(
        self, module: str, ns: dict[str, Any], name: str, display: str, depth: int
    ) -> Ref | None:
        unknown = None
        for star in ns.get("star_imports", []):
            # astropy.units' `from .si import *`: si makes its units at run time (def_unit)
            adds = self.table.modules.get(star, {}).get("adds_names")
            if not self.table.is_module(star) or adds:
                why = "" if star.split(".")[0] in self.indexed else " (outside the index)"
                why = f", which adds names at run time ({adds})" if adds else why
                reason = f"'{module}' star-imports '{star}'{why}"
                unknown = unknown or Ref(
                    RefKind.UNKNOWN, display, probe=(module, name), reason=reason
                )
                if not adds:
                    continue
            exported = self.table.modules[star].get("all")
            if (name in exported) if exported is not None else not name.startswith("_"):
                ref = self._module_member(Ref(RefKind.MODULE, star, star), name, depth + 1)
                if ref.found or ref.kind is RefKind.UNKNOWN:
                    return replace(ref, display=display)
        return unknown

    def star_names(self, ns: dict[str, Any]) -> set[str]:
        names: set[str] = set()
        for star in ns.get("star_imports", []):
            exported = self.table.modules.get(star, {}).get("all")
            names |= (
                set(exported)
                if exported is not None
                else {n for n in self.table.names_in(star) if not n.startswith("_")}
            )
        return names

    # -- classes ---------------------------------------------------------------
    def _class_member(self, owner: Ref, name: str, called: bool) -> Ref:
        members, complete = self.class_members(owner.canonical or "")
        display = f"{owner.display}.{name}"
        if name in members:
            symbol = members[name]
            if symbol is None:  # set on ``self`` by a method: it may hold anything
                return OPAQUE
            via = "instance" if owner.kind is RefKind.INSTANCE else "class"
            return self.symbol_ref(display, symbol, via)
        # Plain class attributes are not recorded (``self.x`` set in a method is), so
        # only a *called* public name on a fully known class is provably absent.
        if name.startswith("_") or not complete or not called:
            return OPAQUE
        if owner.kind is not RefKind.INSTANCE and self._metaclass(owner.canonical or ""):
            return OPAQUE  # the class object also has what its metaclass defines
        what = (
            f"'{owner.display}' object" if owner.kind is RefKind.INSTANCE else f"'{owner.display}'"
        )
        return Ref(
            RefKind.ABSENT,
            display,
            reason=f"{what} has no attribute '{name}'",
            suggestions=did_you_mean(name, members),
        )

    def class_members(self, cls: str, depth: int = 0) -> tuple[dict[str, str | None], bool]:
        """Members of ``cls`` and its in-package bases; False if it may have others too."""
        entry = self.table.symbols.get(cls) or {}
        own: dict[str, str | None] = dict.fromkeys(self.table.instance_attributes(cls))
        own.update({n: f"{cls}.{n}" for n in self.table.children.get(cls, ())})
        own.update(
            {n: f"{cls}.{n}" for n in (self.table.private_class(cls) or {}).get("members", ())}
        )
        own.update({f["name"]: f"{cls}.{f['name']}" for f in entry.get("fields") or []})
        bases = self.bases_of(cls)  # a class decorator (astroquery's @async_to_sync) may add any
        made = class_doubt(entry.get("decorators") or [])
        if bases is None or depth > MAX_BASE_DEPTH or self.table.is_dynamic(cls) or made:
            return own, False
        members: dict[str, str | None] = {}
        complete = True
        for base in reversed(bases):
            inherited, ok = self.class_members(base, depth + 1)
            members.update(inherited)
            complete = complete and ok
        members.update(own)
        return members, complete

    def bases_of(self, cls: str) -> list[str] | None:
        """In-package base classes of ``cls``, or None if one cannot be resolved."""
        entry = self.table.symbols.get(cls) or self.table.private_class(cls)
        if entry is None:
            return None
        module = self.module_of(cls)
        out = []
        for text in entry.get("bases") or []:
            base = self._base(module, text)
            if base is None:
                return None
            if base:
                out.append(base)
        return out

    def _metaclass(self, cls: str, depth: int = 0) -> bool:
        """Does ``cls``, or an in-package base, name a metaclass other than ``type``?"""
        entry = self.table.symbols.get(cls) or self.table.private_class(cls) or {}
        if any(_metaclass_of(b) not in ("", *EMPTY_METACLASSES) for b in entry.get("bases") or []):
            return True
        bases = self.bases_of(cls) or [] if depth <= MAX_BASE_DEPTH else []
        return any(self._metaclass(b, depth + 1) for b in bases)

    def _base(self, module: str, text: str) -> str | None:
        """A base's canonical class, ``""`` for one adding nothing, None if unknown.

        A class keyword (textual's ``can_focus=True``) goes to ``__init_subclass__``
        and adds nothing; a metaclass adds nothing to instances when it is ``type``,
        ``ABCMeta`` or an indexed class (static checkers read it so too); what it adds to
        the class object, its ``__getattr__`` included, is left unchecked (``_metaclass``).
        """
        if "=" in text:
            meta = _metaclass_of(text)
            if not meta or meta in EMPTY_METACLASSES:
                return ""
            found = self.member(Ref(RefKind.MODULE, module, module), meta.split(".")[0])
            for part in meta.split(".")[1:]:
                found = self.member(found, part)
            cls = found.canonical or ""
            known = cls in self.table.symbols or self.table.private_class(cls)
            return "" if found.kind is RefKind.CLASS and known else None
        text = text.split("[", 1)[0].strip()
        if text == "object":
            return ""
        first, *rest = text.split(".")
        ref = self.member(Ref(RefKind.MODULE, module, module), first)
        for part in rest:  # past a module outside the index (``abc`` of ``abc.ABC``): as read
            read = Ref(RefKind.OPAQUE, part, f"{ref.canonical}.{part}")
            ref = read if ref.kind is RefKind.OPAQUE and ref.canonical else self.member(ref, part)
        known = ref.canonical in self.table.symbols or self.table.private_class(ref.canonical)
        if ref.kind is RefKind.CLASS and known:
            return ref.canonical
        return "" if ref.kind is RefKind.OPAQUE and ref.canonical in EMPTY_BASES else None

    def module_of(self, qualified: str) -> str:
        parts = qualified.split(".")
        for i in range(len(parts) - 1, 0, -1):
            if self.table.is_module(".".join(parts[:i])):
                return ".".join(parts[:i])
        return parts[0]

    # -- signatures ------------------------------------------------------------
    def signature(self, ref: Ref) -> Signature | None:
        """The parameters a call on ``ref`` binds to, or None when not checkable."""
        if ref.kind is RefKind.CLASS and ref.canonical:
            return class_signature(ref.canonical, self.table.symbols.get, self.bases_of)
        entry = self.table.symbols.get(ref.canonical or "")
        if ref.kind is not RefKind.CALLABLE or entry is None:
            return None
        kind = entry.get("symbol_type")
        if kind == "method" and ref.via == "class":
            return None
        return callable_signature(entry, drop_first=kind in ("method", "classmethod"))


def _metaclass_of(base: str) -> str:
    """The metaclass a written base names (``metaclass=Meta``), ``""`` for none."""
    key, eq, value = base.partition("=")
    return value.strip() if eq and key.strip() == "metaclass" else ""
