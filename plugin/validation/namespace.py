"""What the indexed package provides, statically: names, members and signatures.

:class:`Namespace` answers "does ``pkg.mod.name`` exist?" over a
:class:`SymbolTable` (the package as parsed; nothing imported), following
re-exports, ``__all__`` and star imports, with three answers: found, provably
absent, or unknown (a module ``__getattr__``, a star import it cannot follow, a
module the package imports but the index lacks).

The call checks turn parsed metadata into the parameters a call binds to
(``__init__``, else dataclass / attrs fields, else an in-package base's) and
bind a call's shape against them the way ``inspect.Signature.bind`` would. A
decorator that may rewrite a signature, an ``@overload``, or a name swallowed by
``**kwargs`` makes a problem uncertain: the validator only errors on proof.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from difflib import get_close_matches
from enum import Enum
from functools import cached_property
from typing import Any

from codecite.store.symbols import SymbolTable

POSITIONAL_KINDS = ("positional_only", "positional_or_keyword")
# Decorators known to keep a function's signature as written.
SAFE_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "cached_property",
        "functools.cached_property",
        "abstractmethod",
        "abc.abstractmethod",
        "lru_cache",
        "functools.lru_cache",
        "cache",
        "functools.cache",
        "final",
        "typing.final",
        "override",
        "typing.override",
        "typing_extensions.override",
        "functools.wraps",
    }
)
OVERLOAD_DECORATORS = frozenset({"overload", "typing.overload", "typing_extensions.overload"})
DATACLASS_DECORATORS = frozenset(
    {
        "dataclass",
        "dataclasses.dataclass",
        "attr.s",
        "attr.attrs",
        "attr.define",
        "attr.frozen",
        "attr.mutable",
        "attrs.define",
        "attrs.frozen",
        "attrs.mutable",
        "define",
        "frozen",
        "mutable",
    }
)
SAFE_CLASS_DECORATORS = frozenset(
    {
        "final",
        "typing.final",
        "total_ordering",
        "functools.total_ordering",
        "runtime_checkable",
        "typing.runtime_checkable",
    }
)
_FIELD_CALL = re.compile(
    r"^\s*(dataclasses\.field|field|attr\.ib|attr\.attrib|attrs\.field|"
    r"attr\.field)\s*\("
)
_HAS_DEFAULT = re.compile(r"\b(default|default_factory|factory)\s*=")
_INIT_FALSE = re.compile(r"\binit\s*=\s*False\b")
_KW_ONLY_TRUE = re.compile(r"\bkw_only\s*=\s*True\b")


@dataclass(frozen=True)
class CallShape:
    """What a call passes: positional count, keyword names, and ``*``/``**`` unpacking."""

    n_positional: int
    keywords: tuple[str, ...]
    star_args: bool = False
    star_kwargs: bool = False


@dataclass(frozen=True)
class Signature:
    """Parameters a call binds to, and why a violation might not be certain."""

    params: tuple[dict[str, Any], ...]
    doubt: str | None = None


@dataclass(frozen=True)
class CallProblem:
    """One argument that does not bind; ``certain`` False means report it as a warning."""

    message: str
    certain: bool
    suggestions: tuple[str, ...] = ()
    doubt: str | None = None


def decorator_name(text: str) -> str:
    """``functools.lru_cache(maxsize=None)`` -> ``functools.lru_cache``."""
    return text.lstrip("@").split("(", 1)[0].strip()


def function_doubt(decorators: Sequence[str]) -> str | None:
    """Why a function's recorded signature may not be the one callers see."""
    for raw in decorators:
        name = decorator_name(raw)
        if name in OVERLOAD_DECORATORS:
            return "overloaded"
        if name not in SAFE_DECORATORS and not name.endswith((".setter", ".getter", ".deleter")):
            return f"decorated with @{raw}"
    return None


def callable_signature(entry: dict[str, Any], drop_first: bool) -> Signature:
    """A function's or method's signature; ``drop_first`` removes ``self``/``cls``."""
    params = list(entry.get("params") or [])
    if drop_first and params and params[0]["kind"] in POSITIONAL_KINDS:
        params = params[1:]
    return Signature(tuple(params), function_doubt(entry.get("decorators") or []))


def _is_dataclass_like(decorators: Sequence[str]) -> str | None:
    return next((d for d in decorators if decorator_name(d) in DATACLASS_DECORATORS), None)


def _class_doubt(decorators: Sequence[str]) -> str | None:
    for raw in decorators:
        name = decorator_name(raw)
        if name not in DATACLASS_DECORATORS and name not in SAFE_CLASS_DECORATORS:
            return f"decorated with @{raw}"
    return None


def class_signature(
    cls: str,
    entry_of: Callable[[str], dict[str, Any] | None],
    bases_of: Callable[[str], list[str] | None],
    _depth: int = 0,
) -> Signature | None:
    """The constructor signature of ``cls``, or None when it cannot be known.

    An explicit ``__init__`` wins; then a dataclass / attrs decorator's fields;
    then the first in-package base's constructor; a class with no bases takes
    no arguments. ``bases_of`` returns None when a base is outside the index.
    """
    entry = entry_of(cls)
    if entry is None or _depth > 12:
        return None
    decorators = list(entry.get("decorators") or [])
    doubt = _class_doubt(decorators)
    if entry.get("has_init"):
        return Signature(tuple(entry.get("params") or ()), doubt)
    if _is_dataclass_like(decorators):
        fields = dataclass_params(cls, entry_of, bases_of)
        return None if fields is None else Signature(fields.params, doubt or fields.doubt)
    bases = bases_of(cls)
    if bases is None:
        return None
    if not bases:
        return Signature((), doubt)
    inherited = class_signature(bases[0], entry_of, bases_of, _depth + 1)
    if inherited is None:
        return None
    return Signature(inherited.params, doubt or inherited.doubt)


def dataclass_params(
    cls: str,
    entry_of: Callable[[str], dict[str, Any] | None],
    bases_of: Callable[[str], list[str] | None],
) -> Signature | None:
    """``__init__`` params a dataclass / attrs class generates from its annotated fields.

    Base dataclasses' fields come first; ``ClassVar`` and ``init=False`` fields
    are left out; ``kw_only=True`` and ``KW_ONLY`` make fields keyword-only; attrs
    strips a leading underscore from the argument name.
    """
    entry = entry_of(cls) or {}
    deco = _is_dataclass_like(entry.get("decorators") or [])
    if deco is None or _INIT_FALSE.search(deco):
        return None
    params: dict[str, dict[str, Any]] = {}
    doubt = None
    bases = bases_of(cls)
    if bases is None:
        return None
    for base in reversed(bases):
        inherited = dataclass_params(base, entry_of, bases_of)
        if inherited is None and _is_dataclass_like((entry_of(base) or {}).get("decorators") or []):
            return None
        for p in inherited.params if inherited else ():
            params[p["name"]] = p
    is_attrs = decorator_name(deco).startswith("attr") or decorator_name(deco) in (
        "define",
        "frozen",
        "mutable",
    )
    if decorator_name(deco) in ("attr.s", "attr.attrs") and "auto_attribs=True" not in deco:
        doubt = "attrs fields declared with attr.ib() are not recorded"
    for p in _own_field_params(
        entry.get("fields") or [], bool(_KW_ONLY_TRUE.search(deco)), is_attrs
    ):
        params[p["name"]] = p
    return Signature(tuple(params.values()), doubt)


def _own_field_params(
    fields: Sequence[dict[str, Any]], kw_only: bool, is_attrs: bool
) -> list[dict[str, Any]]:
    out = []
    for f in fields:
        annotation = (f.get("annotation") or "").strip()
        if annotation.split("[", 1)[0] in ("ClassVar", "typing.ClassVar"):
            continue
        if annotation in ("KW_ONLY", "dataclasses.KW_ONLY"):
            kw_only = True
            continue
        default = f.get("default")
        is_call = default is not None and _FIELD_CALL.match(default)
        if is_call and _INIT_FALSE.search(str(default)):
            continue
        has_default = default is not None and (not is_call or _HAS_DEFAULT.search(default))
        name = f["name"].lstrip("_") if is_attrs else f["name"]
        out.append(
            {
                "name": name,
                "annotation": annotation or None,
                "default": default if has_default else None,
                "kind": "keyword_only" if kw_only else "positional_or_keyword",
            }
        )
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def bind_problems(sig: Signature, call: CallShape, name: str) -> list[CallProblem]:
    """Every way ``call`` fails to bind to ``sig``; messages start ``name()``."""
    params = sig.params
    certain, doubt = sig.doubt is None, sig.doubt
    positional = [p for p in params if p["kind"] in POSITIONAL_KINDS]
    var_kw = next((p["name"] for p in params if p["kind"] == "var_keyword"), None)
    has_var_pos = any(p["kind"] == "var_positional" for p in params)
    problems: list[CallProblem] = []
    if not call.star_args and not has_var_pos and call.n_positional > len(positional):
        was = "was" if call.n_positional == 1 else "were"
        problems.append(
            CallProblem(
                f"{name}() takes {_plural(len(positional), 'positional argument')} "
                f"but {call.n_positional} {was} given",
                certain,
                doubt=doubt,
            )
        )
    filled = {p["name"] for p in positional[: call.n_positional]}
    problems.extend(_keyword_problems(params, call, name, doubt, var_kw, filled))
    if not (call.star_args or call.star_kwargs):
        for p in params:
            if (
                p["kind"] in (*POSITIONAL_KINDS, "keyword_only")
                and p.get("default") is None
                and p["name"] not in filled
                and p["name"] not in call.keywords
            ):
                problems.append(
                    CallProblem(
                        f"{name}() missing required argument '{p['name']}'", certain, doubt=doubt
                    )
                )
    return problems


def _keyword_problems(
    params: Sequence[dict[str, Any]],
    call: CallShape,
    name: str,
    doubt: str | None,
    var_kw: str | None,
    filled: set[str],
) -> list[CallProblem]:
    certain = doubt is None
    by_name = {p["name"]: p for p in params if p["kind"] not in ("var_positional", "var_keyword")}
    out: list[CallProblem] = []
    for kw in call.keywords:
        param = by_name.get(kw)
        if param is None or (param["kind"] == "positional_only" and var_kw):
            keywordable = [n for n, p in by_name.items() if p["kind"] != "positional_only"]
            near = tuple(get_close_matches(kw, keywordable, n=3, cutoff=0.6))
            if var_kw:
                out.append(
                    CallProblem(
                        f"{name}() has no parameter '{kw}'; it goes to "
                        f"**{var_kw} and cannot be verified",
                        False,
                        near,
                    )
                )
            else:
                out.append(
                    CallProblem(
                        f"{name}() got an unexpected keyword argument '{kw}'", certain, near, doubt
                    )
                )
        elif param["kind"] == "positional_only":
            out.append(
                CallProblem(
                    f"{name}() got positional-only argument '{kw}' passed as keyword",
                    certain,
                    doubt=doubt,
                )
            )
        elif kw in filled:
            out.append(
                CallProblem(
                    f"{name}() got multiple values for argument '{kw}'", certain, doubt=doubt
                )
            )
    return out


# Bases that add no public attributes a script could call.
EMPTY_BASES = frozenset({"object", "abc.ABC", "typing.Generic", "typing.Protocol"})
EMPTY_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta", "type"})


class RefKind(str, Enum):
    """What a name in the script refers to, as far as the table can tell."""

    MODULE = "module"
    CLASS = "class"
    CALLABLE = "callable"
    VALUE = "value"
    INSTANCE = "instance"
    OPAQUE = "opaque"  # outside the checked packages, or not worth checking
    UNKNOWN = "unknown"  # in the package, but not provable either way: a warning
    ABSENT = "absent"  # provably missing: an error


@dataclass(frozen=True)
class Ref:
    """A resolved name: ``display`` as the script uses it, ``canonical`` where it is defined."""

    kind: RefKind
    display: str
    canonical: str | None = None
    reason: str = ""  # UNKNOWN: why; ABSENT: the message
    suggestions: tuple[str, ...] = ()
    via: str = ""  # CALLABLE members: "instance" or "class"
    probe: tuple[str, str] | None = None  # (module, name) an import check can try

    @property
    def found(self) -> bool:
        return self.kind not in (RefKind.OPAQUE, RefKind.UNKNOWN, RefKind.ABSENT)


OPAQUE = Ref(RefKind.OPAQUE, "")
_NAMESPACES: dict[tuple[int, frozenset[str]], Namespace] = {}  # the last few tables


def did_you_mean(name: str, candidates: Iterable[str]) -> tuple[str, ...]:
    """Close real names (private ones only when ``name`` itself is private)."""
    pool = sorted(
        {c for c in candidates if c != name and (name.startswith("_") or not c.startswith("_"))}
    )
    return tuple(get_close_matches(name, pool, n=3, cutoff=0.6))


def with_hint(message: str, suggestions: tuple[str, ...]) -> str:
    return f"{message} (did you mean `{suggestions[0]}`?)" if suggestions else message


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
        if len(_NAMESPACES) >= 8:
            _NAMESPACES.pop(next(iter(_NAMESPACES)))
        _NAMESPACES[key] = cls(table, key[1])
        return _NAMESPACES[key]

    @cached_property
    def children(self) -> dict[str, set[str]]:
        """Qualified name -> names of its direct member symbols."""
        out: dict[str, set[str]] = {}
        for name in self.table.symbols:
            parent, _, child = name.rpartition(".")
            out.setdefault(parent, set()).add(child)
        return out

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
        ref_kind = {
            "class": RefKind.CLASS,
            "function": RefKind.CALLABLE,
            "method": RefKind.CALLABLE,
            "staticmethod": RefKind.CALLABLE,
            "classmethod": RefKind.CALLABLE,
        }.get(kind, RefKind.VALUE)
        return Ref(ref_kind, display, canonical, via=via)

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
            return found
        return ref

    def member(self, owner: Ref, name: str, called: bool = False, depth: int = 0) -> Ref:
        if depth > 30:
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
        if ns.get("has_getattr"):
            return Ref(
                RefKind.UNKNOWN,
                display,
                probe=probe,
                reason=f"'{owner.display}' defines a module __getattr__",
            )
        if f"{module}.{name}" in self.unindexed:
            return Ref(
                RefKind.UNKNOWN,
                display,
                probe=probe,
                reason="the package imports it but it is not indexed",
            )
        if not ns:
            return Ref(
                RefKind.UNKNOWN,
                display,
                probe=probe,
                reason=f"'{owner.display}' is "
                "a namespace package; other distributions may add to it",
            )
        near = did_you_mean(name, self.table.names_in(module) | self._star_names(ns))
        message = f"'{owner.display}' has no attribute or submodule '{name}'"
        return Ref(RefKind.ABSENT, display, reason=message, suggestions=near)

    def _target_ref(self, display: str, target: str, depth: int) -> Ref:
        if target.split(".", 1)[0] not in self.indexed:
            return Ref(RefKind.OPAQUE, display, target)
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
            if not self.table.is_module(star):
                why = "" if star.split(".")[0] in self.indexed else " (outside the index)"
                unknown = unknown or Ref(
                    RefKind.UNKNOWN,
                    display,
                    probe=(module, name),
                    reason=f"'{module}' star-imports '{star}'{why}",
                )
                continue
            exported = self.table.modules[star].get("all")
            if (name in exported) if exported is not None else not name.startswith("_"):
                ref = self._module_member(Ref(RefKind.MODULE, star, star), name, depth + 1)
                if ref.found or ref.kind is RefKind.UNKNOWN:
                    return replace(ref, display=display)
        return unknown

    def _star_names(self, ns: dict[str, Any]) -> set[str]:
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
            via = "instance" if owner.kind is RefKind.INSTANCE else "class"
            return self.symbol_ref(display, members[name], via)
        # Plain class attributes and self.x set in __init__ are not recorded, so
        # only a *called* public name on a fully known class is provably absent.
        if name.startswith("_") or not complete or not called:
            return OPAQUE
        what = (
            f"'{owner.display}' object" if owner.kind is RefKind.INSTANCE else f"'{owner.display}'"
        )
        return Ref(
            RefKind.ABSENT,
            display,
            reason=f"{what} has no attribute '{name}'",
            suggestions=did_you_mean(name, members),
        )

    def class_members(self, cls: str, depth: int = 0) -> tuple[dict[str, str], bool]:
        """Members of ``cls`` and its in-package bases; False when a base is unknown."""
        entry = self.table.symbols.get(cls) or {}
        own = {n: f"{cls}.{n}" for n in self.children.get(cls, ())}
        own.update({f["name"]: f"{cls}.{f['name']}" for f in entry.get("fields") or []})
        bases = self.bases_of(cls)
        if bases is None or depth > 12:
            return own, False
        members: dict[str, str] = {}
        complete = True
        for base in reversed(bases):
            inherited, ok = self.class_members(base, depth + 1)
            members.update(inherited)
            complete = complete and ok
        members.update(own)
        return members, complete

    def bases_of(self, cls: str) -> list[str] | None:
        """In-package base classes of ``cls``, or None if one cannot be resolved."""
        entry = self.table.symbols.get(cls)
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

    def _base(self, module: str, text: str) -> str | None:
        """A base's canonical class, ``""`` for one adding nothing, None if unknown."""
        if "=" in text:
            key, _, value = text.partition("=")
            return "" if key.strip() == "metaclass" and value.strip() in EMPTY_METACLASSES else None
        text = text.split("[", 1)[0].strip()
        if text == "object":
            return ""
        first, *rest = text.split(".")
        ref = self.member(Ref(RefKind.MODULE, module, module), first)
        for part in rest:
            ref = self.member(ref, part)
        if ref.kind is RefKind.CLASS and ref.canonical in self.table.symbols:
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
