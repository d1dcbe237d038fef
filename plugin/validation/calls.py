"""Call checks: the parameters a call binds to, and every way a call fails to bind.

Parsed metadata becomes the parameters a call binds to (``__init__``, else
dataclass / attrs fields, else an in-package base's), and a call's shape is
bound against them the way ``inspect.Signature.bind`` would. A decorator that
may rewrite a signature, an ``@overload``, or a name swallowed by ``**kwargs``
makes a problem uncertain: the validator only errors on proof (see
docs/validation.md).

Example:
    >>> sig = Signature(({"name": "x", "kind": "positional_or_keyword", "default": None},))
    >>> [p.message for p in bind_problems(sig, CallShape(0, ("y",)), "f")]
    ["f() got an unexpected keyword argument 'y'", "f() missing required argument 'x'"]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any

from codecite.node_parsers.dataclass_fields import (
    DATACLASS_DECORATORS,
    INIT_FALSE,
    dataclass_decorator,
    decorator_name,
    own_field_params,
)

MAX_BASE_DEPTH = 12  # base classes climbed for inherited members or a constructor
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
# Decorators that only fill in a docstring and return the function itself: nilearn's
# @fill_doc, scanpy's @_doc_params(...), sklearn-style @Substitution(...), pandas' @doc(...)
# and @Appender(...). By name: they are the package's own, so no list can hold them all.
_DOCSTRING_DECORATOR = re.compile(
    r"_?(?:fill_?doc|doc_?params|doc|docstring|substitution|appender|append_?doc"
    r"|(?:copy|inherit|add|format|update)_?doc(?:string)?s?)",
    re.IGNORECASE,
)
OVERLOAD_DECORATORS = frozenset({"overload", "typing.overload", "typing_extensions.overload"})
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


def function_doubt(decorators: Sequence[str]) -> str | None:
    """Why a function's recorded signature may not be the one callers see."""
    for raw in decorators:
        name = decorator_name(raw)
        if name in OVERLOAD_DECORATORS:
            return "overloaded"
        keeps = name in SAFE_DECORATORS or name.endswith((".setter", ".getter", ".deleter"))
        if not keeps and not _fills_docstring(name):
            return f"decorated with @{_short_decorator(raw)}"
    return None


def callable_signature(entry: dict[str, Any], drop_first: bool) -> Signature:
    """A function's or method's signature; ``drop_first`` removes ``self``/``cls``."""
    params = list(entry.get("params") or [])
    if drop_first and params and params[0]["kind"] in POSITIONAL_KINDS:
        params = params[1:]
    return Signature(tuple(params), function_doubt(entry.get("decorators") or []))


def class_doubt(decorators: Sequence[str]) -> str | None:
    for raw in decorators:
        name = decorator_name(raw)
        keeps = name in DATACLASS_DECORATORS or name in SAFE_CLASS_DECORATORS
        if not keeps and not _fills_docstring(name):
            return f"decorated with @{_short_decorator(raw)}"
    return None


def _fills_docstring(name: str) -> bool:
    return _DOCSTRING_DECORATOR.fullmatch(name.rsplit(".", 1)[-1]) is not None


def _short_decorator(raw: str) -> str:
    """A decorator as one short line: ``docval(...)`` for a call spread over many lines."""
    text = " ".join(raw.lstrip("@").split())
    return text if len(text) <= 60 else f"{decorator_name(text)}(...)"


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
    if entry is None or _depth > MAX_BASE_DEPTH:
        return None
    decorators = list(entry.get("decorators") or [])
    doubt = class_doubt(decorators)
    if entry.get("has_init"):  # an __init__ decorated like pynwb's @docval may take anything
        init = function_doubt((entry_of(f"{cls}.__init__") or {}).get("decorators") or [])
        return Signature(tuple(entry.get("params") or ()), doubt or init)
    if dataclass_decorator(decorators):
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
    deco = dataclass_decorator(entry.get("decorators") or [])
    if deco is None or INIT_FALSE.search(deco):
        return None
    params: dict[str, dict[str, Any]] = {}
    doubt = None
    bases = bases_of(cls)
    if bases is None:
        return None
    for base in reversed(bases):
        inherited = dataclass_params(base, entry_of, bases_of)
        if inherited is None and dataclass_decorator(
            (entry_of(base) or {}).get("decorators") or []
        ):
            return None
        for p in inherited.params if inherited else ():
            params[p["name"]] = p
    if decorator_name(deco) in ("attr.s", "attr.attrs") and "auto_attribs=True" not in deco:
        doubt = "attrs fields declared with attr.ib() are not recorded"
    for p in own_field_params(deco, entry.get("fields") or []):
        params[p["name"]] = p
    return Signature(tuple(params.values()), doubt)


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
