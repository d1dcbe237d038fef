"""Finding, reading and completing the settings of the indexed repository.

``load_config`` reads ``--config FILE``, else ``codecite.toml``, else
``[tool.codecite]`` of ``pyproject.toml`` (docs/configuration.md), lets keyword
arguments override them, validates them with the settings model and fills in what
zero configuration finds. No index folder may be the repository root or hold what is
indexed (a build replaces that folder); only one passed explicitly (``--index-dir``,
``index_dir=``) may lie outside the repository.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from codecite.errors import ConfigError

from .files import read_toml
from .messages import config_error, fail
from .model import CodeciteConfig, CodeciteSettings
from .packages import (
    default_recipes,
    default_root_docs,
    default_roots,
    detect_packages,
    select_packages,
)


def find_settings(root: Path, config_file: Path | None = None) -> tuple[dict[str, Any], str | None]:
    """The raw settings table and the file it came from (``{}``, None when absent): the
    file named, else ``codecite.toml``, else ``[tool.codecite]`` of the project's
    ``pyproject.toml``."""
    if config_file is not None:
        data = read_toml(config_file) or {}
        if config_file.name == "pyproject.toml":
            return data.get("tool", {}).get("codecite", {}), str(config_file)
        return data.get("tool", {}).get("codecite", data), str(config_file)
    own = root / "codecite.toml"
    settings = read_toml(own, root)
    if settings is not None:  # top-level keys, or the same [tool.codecite] table
        return settings.get("tool", {}).get("codecite", settings), str(own)
    pyproject = root / "pyproject.toml"
    table = (read_toml(pyproject, root) or {}).get("tool", {}).get("codecite")
    if table is not None:
        return table, str(pyproject)
    return {}, None


def validate_settings(raw: dict[str, Any], source: str, root: Path) -> CodeciteSettings:
    """Check every key of a raw settings table read from ``source``; paths must stay
    inside the repository at ``root``."""
    try:
        return CodeciteSettings.model_validate(raw, context={"root": root})
    except ValidationError as exc:
        raise config_error(exc, raw, source, CodeciteSettings) from None


def explicit_index_dir(value: Any) -> str:
    """An index folder given as an argument or CLI flag: may be absolute, must be a name."""
    if not isinstance(value, (str, Path)) or not str(value).strip() or "\x00" in str(value):
        raise ConfigError(
            f"index_dir argument must be a folder name, got {value!r}; pass --index-dir .codecite"
        )
    return str(value)


def check_index_dir(cfg: CodeciteConfig, explicit: bool = False) -> None:
    """The index folder is replaced by every build: never the root or what is indexed.
    ``explicit``: it was given as ``--index-dir`` / ``index_dir=``, not by a settings file."""
    index = cfg.index_path.resolve()
    problem = None
    if index == cfg.root or index in cfg.root.parents:
        problem = f"names '{cfg.index_dir}', which is the repository root or a folder above it"
    for name in (*cfg.roots, *cfg.root_docs, *cfg.package_dirs.values()):
        target = (cfg.root / name).resolve()
        if problem is None and (target == index or index in target.parents):
            problem = f"names '{cfg.index_dir}', which holds the indexed '{name}'"
    if problem is None:
        return
    if explicit:  # the user's flag, not a key of their settings file
        raise ConfigError(
            f"--index-dir {problem}; an index needs a folder of its own (a build replaces "
            "it), e.g. .codecite"
        )
    raise fail(
        "index_dir",
        cfg.source or "keyword arguments",
        problem,
        'use a folder of its own, e.g. ".codecite"',
    )


def load_config(
    root: str | Path = ".", config_file: str | Path | None = None, **overrides: Any
) -> CodeciteConfig:
    """Read, validate and complete the configuration of the repository at ``root``.

    Keyword arguments override file settings (same names as the TOML keys).

    Example:
        >>> load_config(".", max_section_chars=2000).max_section_chars  # doctest: +SKIP
        2000
    """
    root_path = Path(root).resolve()
    if not root_path.is_dir():
        raise ConfigError(f"repository root '{root}' is not a folder; pass an existing path")
    raw, source = find_settings(root_path, Path(config_file) if config_file else None)
    raw = dict(raw)
    index_dir = overrides.pop("index_dir", None)  # explicit: may lie outside the repository
    raw.update({k: v for k, v in overrides.items() if v is not None})
    settings = validate_settings(raw, source or "keyword arguments", root_path)
    values = {name: getattr(settings, name) for name in settings.model_fields_set}
    if index_dir is not None:
        values["index_dir"] = explicit_index_dir(index_dir)
    if "package_dirs" not in values:
        detected = detect_packages(root_path)
        if "packages" in values:
            detected = select_packages(root_path, detected, values["packages"])
        values["package_dirs"] = detected
    values.setdefault("packages", tuple(values["package_dirs"]))
    values.setdefault("roots", default_roots(root_path, values["package_dirs"]))
    values.setdefault("root_docs", default_root_docs(root_path))
    values.setdefault("recipes", default_recipes(root_path, values["roots"]))
    cfg = CodeciteConfig(root=root_path, source=source, **values)
    check_index_dir(cfg, explicit=index_dir is not None)
    return cfg
