"""Validation of the raw ``[tool.codecite]`` table: types, paths, nested tables.

Every error names the key, the file and the fix. Paths from a settings file
(roots, docs, recipes, registry file, index folder) must stay inside the
repository: a cloned repository's settings can never make codecite read or
write elsewhere. Only an index folder passed explicitly (``--index-dir``, the
``index_dir=`` argument) may lie outside, and no index folder may be the
repository root or hold what is indexed (a build replaces that folder).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from codecite.config.model import EmbeddingSettings, RetrievalSettings, WorkflowRule
from codecite.errors import ConfigError

if TYPE_CHECKING:
    from codecite.config.model import CodeciteConfig

EMBEDDING_BACKENDS = ("openai", "local", "none")


def _fail(key: str, source: str, problem: str, fix: str) -> ConfigError:
    return ConfigError(f"{source}: [tool.codecite] key '{key}' {problem}; {fix}")


def _str_list(key: str, value: Any, source: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(
            key, source, f"must be a list of strings, got {value!r}", f'write it as {key} = ["..."]'
        )
    return tuple(value)


def _inside(key: str, paths: tuple[str, ...], source: str, root: Path) -> tuple[str, ...]:
    out = []
    for p in paths:
        norm = PurePosixPath(p.replace("\\", "/"))
        try:
            resolved = (root / norm).resolve()
        except (OSError, ValueError, RuntimeError) as exc:  # NUL byte, symlink loop
            raise _fail(
                key,
                source,
                f"names {p!r}, which is not a usable path ({exc})",
                "use a plain relative path",
            ) from None
        if norm.is_absolute() or (resolved != root and root not in resolved.parents):
            raise _fail(
                key,
                source,
                f"names '{p}', which is outside the repository root",
                "use paths relative to the repository root, without '..'",
            )
        out.append(str(norm).strip("/") if str(norm) != "." else ".")
    return tuple(out)


def _one_path(key: str, value: Any, source: str, root: Path) -> str:
    """A single non-empty path inside the repository (``index_dir``, ``registry_file``)."""
    if not isinstance(value, str) or not value.strip():
        raise _fail(key, source, f"must be one path, got {value!r}", f'set {key} = "..."')
    return _inside(key, (value,), source, root)[0]


def explicit_index_dir(value: Any) -> str:
    """An index folder given as an argument or CLI flag: may be absolute, must be a name."""
    if not isinstance(value, (str, Path)) or not str(value).strip() or "\x00" in str(value):
        raise ConfigError(
            f"index_dir argument must be a folder name, got {value!r}; pass --index-dir .codecite"
        )
    return str(value)


def check_index_dir(cfg: CodeciteConfig) -> None:
    """The index folder is replaced by every build: never the root or what is indexed."""
    index = cfg.index_path.resolve()
    source = cfg.source or "keyword arguments"
    if index == cfg.root or index in cfg.root.parents:
        raise _fail(
            "index_dir",
            source,
            f"names '{cfg.index_dir}', which is the repository root or a folder above it",
            'use a folder of its own, e.g. ".codecite"',
        )
    for name in (*cfg.roots, *cfg.root_docs, *cfg.package_dirs.values()):
        target = (cfg.root / name).resolve()
        if target == index or index in target.parents:
            raise _fail(
                "index_dir",
                source,
                f"names '{cfg.index_dir}', which holds the indexed '{name}'",
                'use a folder of its own, e.g. ".codecite"',
            )


def _bool(key: str, value: Any, source: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(key, source, f"must be true or false, got {value!r}", f"set {key} = true")
    return value


def _number(key: str, value: Any, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(key, source, f"must be a number, got {value!r}", f"set {key} = 25.0")
    return float(value)


def _positive_int(key: str, value: Any, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _fail(key, source, f"must be a positive integer, got {value!r}", f"set {key} = 1000")
    return value


ZERO_ALLOWED = frozenset({"max_sections_per_file"})  # 0 means "no limit"


def _non_negative_int(key: str, value: Any, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(
            key,
            source,
            f"must be 0 or a positive integer, got {value!r}",
            f"set {key} = 0 for no limit",
        )
    return value


def _table(key: str, value: Any, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(
            key, source, f"must be a table, got {value!r}", f"write it as [tool.codecite.{key}]"
        )
    return value


def _priorities(value: Any, source: str, root: Path) -> dict[str, int]:
    out = {}
    for prefix, prio in _table("priorities", value, source).items():
        if isinstance(prio, bool) or not isinstance(prio, int) or prio < 0:
            raise _fail(
                f"priorities.{prefix}",
                source,
                f"must be a non-negative integer, got {prio!r}",
                f'write "{prefix}" = 2',
            )
        out[_inside("priorities", (prefix,), source, root)[0]] = prio
    return out


def _workflows(value: Any, source: str) -> tuple[WorkflowRule, ...]:
    rules = []
    for name, spec in _table("workflows", value, source).items():
        spec = _table(f"workflows.{name}", spec, source)
        unknown = set(spec) - {"keywords", "paths"}
        if unknown:
            raise _fail(
                f"workflows.{name}.{sorted(unknown)[0]}",
                source,
                "is not a known key",
                "a workflow takes 'keywords' and 'paths'",
            )
        rules.append(
            WorkflowRule(
                name,
                tuple(
                    k.lower()
                    for k in _str_list(
                        f"workflows.{name}.keywords", spec.get("keywords", []), source
                    )
                ),
                _str_list(f"workflows.{name}.paths", spec.get("paths", []), source),
            )
        )
    return tuple(rules)


def _phrase_map(key: str, value: Any, source: str) -> dict[str, tuple[str, ...]]:
    return {
        phrase.lower(): _str_list(f"{key}.{phrase}", terms, source)
        for phrase, terms in _table(key, value, source).items()
    }


def _registry(value: Any, source: str) -> dict[str, dict[str, Any]]:
    out = {}
    for name, entry in _table("registry", value, source).items():
        entry = dict(_table(f"registry.{name}", entry, source))
        unknown = set(entry) - {"aliases", "path", "defaults", "description"}
        if unknown:
            raise _fail(
                f"registry.{name}.{sorted(unknown)[0]}",
                source,
                "is not a known key",
                "an entry takes 'aliases', 'path', 'defaults', 'description'",
            )
        entry["aliases"] = list(
            _str_list(f"registry.{name}.aliases", entry.get("aliases", []), source)
        )
        if "defaults" in entry:
            _table(f"registry.{name}.defaults", entry["defaults"], source)
        out[name] = entry
    return out


def _dataclass_table(key: str, cls: type, value: Any, source: str) -> Any:
    table = _table(key, value, source)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for name, item in table.items():
        if name not in fields:
            raise _fail(
                f"{key}.{name}",
                source,
                "is not a known key",
                f"known keys: {', '.join(sorted(fields))}",
            )
        default = fields[name].default
        if isinstance(default, bool):
            item = _bool(f"{key}.{name}", item, source)
        elif isinstance(default, int) and name in ZERO_ALLOWED:
            item = _non_negative_int(f"{key}.{name}", item, source)
        elif isinstance(default, int):
            item = _positive_int(f"{key}.{name}", item, source)
        elif isinstance(default, float):
            item = _number(f"{key}.{name}", item, source)
        elif item is not None and not isinstance(item, str):
            raise _fail(
                f"{key}.{name}", source, f"must be a string, got {item!r}", f'set {name} = "..."'
            )
        kwargs[name] = item
    result = cls(**kwargs)
    if cls is EmbeddingSettings and result.backend not in (None, *EMBEDDING_BACKENDS):
        raise _fail(
            "embedding.backend",
            source,
            f"is {result.backend!r}",
            f"use one of {', '.join(EMBEDDING_BACKENDS)}",
        )
    return result


def _package_dirs(value: Any, source: str, root: Path) -> dict[str, str]:
    table = _table("package_dirs", value, source)
    return {
        name: _inside(f"package_dirs.{name}", (str(folder),), source, root)[0]
        for name, folder in table.items()
    }


def _validators(root: Path) -> dict[str, Callable[[Any, str], Any]]:
    def paths(key: str) -> Callable[[Any, str], Any]:
        return lambda v, s: _inside(key, _str_list(key, v, s), s, root)

    return {
        "packages": lambda v, s: _str_list("packages", v, s),
        "package_dirs": lambda v, s: _package_dirs(v, s, root),
        "roots": paths("roots"),
        "root_docs": paths("root_docs"),
        "suffixes": lambda v, s: tuple(
            x if x.startswith(".") else "." + x for x in _str_list("suffixes", v, s)
        ),
        "exclude": lambda v, s: _str_list("exclude", v, s),
        "recipes": paths("recipes"),
        "include_private": lambda v, s: _bool("include_private", v, s),
        "redact_secrets": lambda v, s: _bool("redact_secrets", v, s),
        "trust_index_from_elsewhere": lambda v, s: _bool("trust_index_from_elsewhere", v, s),
        "index_dir": lambda v, s: _one_path("index_dir", v, s, root),
        "confidence_floor": lambda v, s: _number("confidence_floor", v, s),
        "max_file_bytes": lambda v, s: _positive_int("max_file_bytes", v, s),
        "max_section_chars": lambda v, s: _positive_int("max_section_chars", v, s),
        "priorities": lambda v, s: _priorities(v, s, root),
        "workflows": _workflows,
        "expansions": lambda v, s: _phrase_map("expansions", v, s),
        "intents": lambda v, s: _phrase_map("intents", v, s),
        "registry": _registry,
        "registry_file": lambda v, s: _one_path("registry_file", v, s, root),
        "embedding": lambda v, s: _dataclass_table("embedding", EmbeddingSettings, v, s),
        "retrieval": lambda v, s: _dataclass_table("retrieval", RetrievalSettings, v, s),
    }


def validate_settings(raw: dict[str, Any], source: str, root: Path) -> dict[str, Any]:
    """Check every key of a raw settings table; returns ``CodeciteConfig`` kwargs."""
    validators = _validators(root)
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in validators:
            raise _fail(
                key, source, "is not a known key", f"known keys: {', '.join(sorted(validators))}"
            )
        values[key] = validators[key](value, source)
    return values
