"""Dataclass and attrs fields as the constructor parameters they generate.

Read from a class's decorators and annotated body assignments (``metadata["fields"]``):
the API card of a dataclass shows them (``node_parsers.python_params``) and
``codecite validate`` binds calls to them (``codecite.validation.calls``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

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
FIELD_CALL = re.compile(
    r"^\s*(dataclasses\.field|field|attr\.ib|attr\.attrib|attrs\.field|"
    r"attr\.field)\s*\("
)
HAS_DEFAULT = re.compile(r"\b(default|default_factory|factory)\s*=")
INIT_FALSE = re.compile(r"\binit\s*=\s*False\b")
KW_ONLY_TRUE = re.compile(r"\bkw_only\s*=\s*True\b")


def decorator_name(text: str) -> str:
    """``functools.lru_cache(maxsize=None)`` -> ``functools.lru_cache``."""
    return text.lstrip("@").split("(", 1)[0].strip()


def dataclass_decorator(decorators: Sequence[str]) -> str | None:
    """The decorator that makes a class a dataclass or an attrs class, if one does."""
    return next((d for d in decorators if decorator_name(d) in DATACLASS_DECORATORS), None)


def own_field_params(deco: str, fields: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parameters a class's own ``fields`` make under ``deco`` (its dataclass or attrs
    decorator, as written): ``ClassVar`` and ``init=False`` fields left out, ``kw_only=True``
    and ``KW_ONLY`` keyword-only; attrs strips a leading underscore from the name.

    Example:
        >>> field = {"name": "_size", "annotation": "int", "default": "3"}
        >>> [(p["name"], p["kind"]) for p in own_field_params("@attrs.define", [field])]
        [('size', 'positional_or_keyword')]
    """
    made_by = decorator_name(deco)
    is_attrs = made_by.startswith("attr") or made_by in ("define", "frozen", "mutable")
    kw_only = bool(KW_ONLY_TRUE.search(deco))
    out = []
    for f in fields:
        annotation = (f.get("annotation") or "").strip()
        if annotation.split("[", 1)[0] in ("ClassVar", "typing.ClassVar"):
            continue
        if annotation in ("KW_ONLY", "dataclasses.KW_ONLY"):
            kw_only = True
            continue
        default = f.get("default")
        is_call = default is not None and FIELD_CALL.match(default)
        if is_call and INIT_FALSE.search(str(default)):
            continue
        has_default = default is not None and (not is_call or HAS_DEFAULT.search(default))
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
