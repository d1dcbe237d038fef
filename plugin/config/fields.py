"""The constrained types of the ``[tool.codecite]`` table: string lists, paths, tables.

Each type explains what it refuses (``codecite.retrievers.settings.explained``); the
scalar types (``Number``, ``Switch``, ``PositiveInt``) are the retrieval model's own.
Paths must stay inside the repository whose root the validation context holds
(``{"root": Path}``): a cloned repository's settings can never make codecite read or
write elsewhere. Without that context (a configuration made in code) paths are taken
as given. See docs/configuration.md for every key.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, StrictStr, ValidationInfo

from codecite.retrievers.settings import explained, setting_error


def _root(info: ValidationInfo) -> Path | None:
    context = info.context
    return context.get("root") if isinstance(context, dict) else None


def is_loading(info: ValidationInfo) -> bool:
    """True while a settings table is read (the context names the repository root)."""
    return _root(info) is not None


def _must_be_table(value: Any, info: ValidationInfo) -> Any:
    """A table as read must be a TOML table; in code it may also be the model made."""
    if not isinstance(value, dict) and is_loading(info):
        raise setting_error(f"must be a table, got {value!r}", "write it as [tool.codecite.{key}]")
    return value


TABLE = BeforeValidator(_must_be_table)


def _listed(value: Any) -> Any:
    """One string is a list of one; a tuple is taken as the list it holds."""
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, tuple) else value


def _only_lists(value: Any) -> Any:
    if not isinstance(value, list):
        raise ValueError("not a list")
    return value


StrList = Annotated[
    tuple[StrictStr, ...],
    BeforeValidator(_only_lists),
    explained("must be a list of strings, got {value!r}", 'write it as {key} = ["..."]'),
    BeforeValidator(_listed),
]
Keywords = Annotated[StrList, AfterValidator(lambda words: tuple(w.lower() for w in words))]
Suffixes = Annotated[  # a missing leading dot is added
    StrList, AfterValidator(lambda found: tuple(s if s.startswith(".") else "." + s for s in found))
]
LowerStr = Annotated[str, AfterValidator(str.lower)]


def inside(path: str, info: ValidationInfo) -> str:
    """``path`` relative to the repository root, refused when it leads out of it."""
    root = _root(info)
    if root is None:
        return path
    norm = PurePosixPath(path.replace("\\", "/"))
    try:
        resolved = (root / norm).resolve()
    except (OSError, ValueError, RuntimeError) as exc:  # NUL byte, symlink loop
        raise setting_error(
            f"names {path!r}, which is not a usable path ({exc})", "use a plain relative path"
        ) from None
    if norm.is_absolute() or (resolved != root and root not in resolved.parents):
        raise setting_error(
            f"names '{path}', which is outside the repository root",
            "use paths relative to the repository root, without '..'",
        )
    return str(norm).strip("/") if str(norm) != "." else "."


def _all_inside(paths: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
    return tuple(inside(p, info) for p in paths)


def _not_blank(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise ValueError("blank")
    return value


def _inside_or_none(value: str | None, info: ValidationInfo) -> str | None:
    return None if value is None else inside(value, info)


RepoPaths = Annotated[StrList, AfterValidator(_all_inside)]
InsidePath = Annotated[str, AfterValidator(inside)]  # a table key or value, unchecked type
PackageDir = Annotated[str, BeforeValidator(str), AfterValidator(inside)]
OptionalRepoPath = Annotated[  # one non-empty path inside the repository, or None
    StrictStr | None,
    Field(strict=True),
    AfterValidator(_not_blank),
    explained("must be one path, got {value!r}", 'set {key} = "..."'),
    AfterValidator(_inside_or_none),
]
RepoPath = Annotated[
    StrictStr,
    AfterValidator(_not_blank),
    explained("must be one path, got {value!r}", 'set {key} = "..."'),
    AfterValidator(inside),
]
OptionalNumber = Annotated[
    float | None,
    Field(strict=True),
    explained("must be a number, got {value!r}", "set {key} = 25.0"),
]
Priority = Annotated[
    int,
    Field(strict=True, ge=0),
    explained("must be a non-negative integer, got {value!r}", 'write "{name}" = 2'),
]
OptionalText = Annotated[
    str | None,
    Field(strict=True),
    explained("must be a string, got {value!r}", 'set {name} = "..."'),
]


def refuse_unknown(value: dict[str, Any], known: tuple[str, ...], fix: str) -> None:
    """The first unknown key (in sorted order) of a small fixed table is refused."""
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise setting_error("is not a known key", fix, at=(unknown[0],))
