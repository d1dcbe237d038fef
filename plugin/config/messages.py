"""How a refused setting becomes one ``ConfigError`` line: the file, the key, the fix.

``config_error`` is the one place a pydantic ``ValidationError`` of the settings model
becomes codecite's ``ConfigError``:

    codecite.toml: [tool.codecite] key 'roots' must be a list of strings, got 3; ...

Of several refused values the first in file order is reported, as a reader fixing the
file top to bottom meets them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from codecite.errors import ConfigError
from codecite.retrievers.settings import SETTING_ERROR

# an unknown key of a model, of a pydantic dataclass
_UNKNOWN_KEY = frozenset({"extra_forbidden", "unexpected_keyword_argument"})
_DICT_KEY = "[key]"  # pydantic's location of a refused table key (a priorities prefix)


def fail(key: str, source: str, problem: str, fix: str) -> ConfigError:
    """The error for ``key`` of the settings read from ``source``."""
    return ConfigError(f"{source}: [tool.codecite] key '{key}' {problem}; {fix}")


def config_error(
    exc: ValidationError, raw: dict[str, Any], source: str, model: type[BaseModel]
) -> ConfigError:
    """The ``ConfigError`` for the first value of ``raw`` that ``model`` refused."""
    error = min(exc.errors(), key=lambda e: _file_order(raw, e["loc"]))
    path = _key_path(error)
    key = ".".join(str(part) for part in path)
    if error["type"] == SETTING_ERROR:
        ctx = error.get("ctx", {})
        fix = str(ctx["fix"]).format(key=key, name=path[-1] if path else key)
        return fail(key, source, str(ctx["problem"]), fix)
    if error["type"] in _UNKNOWN_KEY:
        known = ", ".join(_known_keys(model, path[:-1]))
        return fail(key, source, "is not a known key", f"known keys: {known}")
    return fail(key, source, f"is refused ({error['msg']})", "see docs/configuration.md")


def _key_path(error: ErrorDetails) -> tuple[str | int, ...]:
    """The dotted key: a refused table key is reported as its table's, and a model
    refusing one of its fields names that field (``embedding.backend``)."""
    loc = tuple(error["loc"])
    if _DICT_KEY in loc:
        loc = loc[: loc.index(_DICT_KEY) - 1]
    at = error.get("ctx", {}).get("at", ()) if error["type"] == SETTING_ERROR else ()
    return (*loc, *at)


def _file_order(raw: Any, loc: Sequence[str | int]) -> tuple[int, ...]:
    """Where ``loc`` is in the table as read: its position at every level."""
    out = []
    node = raw
    for part in loc:
        if isinstance(node, dict) and part in node:
            out.append(list(node).index(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            out.append(part)
            node = node[part]
        else:  # a table key (after its value's errors), or a place not in the file
            out.append(len(node) if isinstance(node, (dict, list)) else 0)
            node = None
    return tuple(out)


def _known_keys(model: Any, path: Sequence[str | int]) -> list[str]:
    """The keys of the (nested) table at ``path`` of ``model``."""
    for name in path:
        model = model.__pydantic_fields__[name].annotation
    return sorted(model.__pydantic_fields__)
