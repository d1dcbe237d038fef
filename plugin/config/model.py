"""Corpus and retrieval configuration: ``[tool.codecite]`` or ``codecite.toml``.

Read from the indexed repository, validated on load (errors name the key, the
file and the fix), overridable by keyword arguments and CLI flags. With no
configuration at all the defaults find the package (``./pkg``, ``src/pkg`` or
setuptools ``package-dir``), ``docs/``, ``examples/``, ``recipes/`` and the
README.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codecite.errors import ConfigError
from codecite.retrievers.fusion import DEFAULT_COSINE_FLOOR, DEFAULT_RRF_K
from codecite.retrievers.settings import ScoringSettings as _SCORING
from codecite.safe_io import MAX_METADATA_BYTES, UnsafeFileError, read_regular_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

logger = logging.getLogger(__name__)

DEFAULT_SUFFIXES = (".py", ".rst", ".md", ".ipynb")
DEFAULT_INDEX_DIR = ".codecite"
DEFAULT_CONFIDENCE_FLOOR: float | None = None  # None: calibrated per index
DEFAULT_MAX_FILE_BYTES = 1024 * 1024
DEFAULT_MAX_SECTION_CHARS = 4000
DEFAULT_DOC_DIRS = ("docs", "doc", "documentation")
DEFAULT_EXAMPLE_DIRS = ("examples", "example", "gallery", "galleries", "tutorials")
DEFAULT_RECIPE_DIRS = ("recipes",)
DEFAULT_ROOT_DOCS = ("README.md", "README.rst", "README.txt", "README", "AGENTS.md")
NOT_PACKAGES = frozenset(
    {
        "tests",
        "test",
        "testing",
        "docs",
        "doc",
        "examples",
        "example",
        "build",
        "dist",
        "benchmarks",
        "bench",
        "scripts",
        "tools",
        "ci",
        "site",
        "venv",
        "env",
        "node_modules",
        "typings",
        "stubs",
    }
)
# under src/ every package is the project's (pypa/build is src/build); only a test suite is not
NOT_SRC_PACKAGES = frozenset({"tests", "test", "testing"})


@dataclass(frozen=True)
class WorkflowRule:
    """A workflow tag: keywords (substring of lowered path+symbol+text), path fragments."""

    name: str
    keywords: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class RetrievalSettings:
    """``[tool.codecite.retrieval]``: the constants of the retrieval model.

    Defaults are the scorer's own (``ScoringSettings``), i.e. DESIGN.md's
    reference values plus the measured zero-config factors (docs/quality.md).
    """

    expansion_weight: float = _SCORING.expansion_weight
    priority_step: float = _SCORING.priority_step
    workflow_boost: float = _SCORING.workflow_boost
    recipe_boost: float = _SCORING.recipe_boost
    symbol_boost: float = _SCORING.symbol_boost
    feedback_floor: float = _SCORING.feedback_floor
    k1: float = 1.5
    b: float = 0.75
    doc_propagation: bool = _SCORING.doc_propagation
    propagation_share: float = _SCORING.propagation_share
    mined_expansion: bool = _SCORING.mined_expansion
    query_variants: bool = _SCORING.query_variants
    variant_weight: float = _SCORING.variant_weight
    public_api_factor: float = _SCORING.public_api_factor
    low_value_doc_factor: float = _SCORING.low_value_doc_factor
    max_sections_per_file: int = _SCORING.max_sections_per_file
    doc_factor: float = _SCORING.doc_factor
    cosine_floor: float = DEFAULT_COSINE_FLOOR
    rrf_k: int = DEFAULT_RRF_K


@dataclass(frozen=True)
class EmbeddingSettings:
    """``[tool.codecite.embedding]``: which backend makes dense vectors."""

    backend: str | None = None  # "openai", "local", or None (lexical only)
    model: str | None = None
    api_base: str | None = None
    batch_size: int = 64


@dataclass(frozen=True)
class CodeciteConfig:
    """Everything that decides what is indexed and how it is ranked.

    Example:
        >>> cfg = CodeciteConfig(root=Path("."), packages=("pkg",), roots=("pkg", "docs"))
        >>> cfg.priority_for("pkg/core.py")
        1
    """

    root: Path
    packages: tuple[str, ...] = ()
    package_dirs: dict[str, str] = field(default_factory=dict)
    roots: tuple[str, ...] = ()
    root_docs: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = DEFAULT_SUFFIXES
    exclude: tuple[str, ...] = ()
    recipes: tuple[str, ...] = ()
    include_private: bool = False
    redact_secrets: bool = True  # credential values become placeholders (redaction.py)
    index_dir: str = DEFAULT_INDEX_DIR
    trust_index_from_elsewhere: bool = False  # query time: serve an index sealed elsewhere
    confidence_floor: float | None = DEFAULT_CONFIDENCE_FLOOR
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_section_chars: int = DEFAULT_MAX_SECTION_CHARS
    priorities: dict[str, int] = field(default_factory=dict)
    workflows: tuple[WorkflowRule, ...] = ()
    expansions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    intents: dict[str, tuple[str, ...]] = field(default_factory=dict)
    registry: dict[str, dict[str, Any]] = field(default_factory=dict)
    registry_file: str | None = None
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    source: str | None = None  # the file the settings came from, if any

    @property
    def index_path(self) -> Path:
        path = Path(self.index_dir)
        return path if path.is_absolute() else self.root / path

    def priority_for(self, source_path: str) -> int:
        """Longest configured prefix at a path-segment boundary wins; default 1."""
        best, best_len = 1, -1
        for prefix, value in self.priorities.items():
            p = prefix.strip("/")
            if (source_path == p or source_path.startswith(p + "/")) and len(p) > best_len:
                best, best_len = value, len(p)
        return best

    def digest(self) -> str:
        """A digest of every setting that changes what the index holds."""
        data = dataclasses.asdict(self)
        data.pop("root")
        data.pop("source")
        data.pop("trust_index_from_elsewhere")  # whom to trust, not what is indexed
        blob = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


# -- reading ------------------------------------------------------------------------


def _read_metadata(path: Path, root: Path) -> bytes | None:
    """The bytes of a settings or metadata file of the repository at ``root``.

    None when it is absent, or refused by ``safe_io.read_regular_file``: not a
    regular file (a FIFO would block, a device never end), leading out of the
    repository, or larger than ``MAX_METADATA_BYTES``. A refused file is ignored
    like an absent one; the corpus walk lists it in ``codecite stats``.
    """
    try:
        return read_regular_file(path, root=root, limit=MAX_METADATA_BYTES)
    except UnsafeFileError as exc:
        logger.info("%s; ignored", exc)
        return None
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            return None
        raise


def _read_toml(path: Path, root: Path | None = None) -> dict[str, Any] | None:
    """The TOML in ``path``: a file of the repository at ``root`` (None when absent or
    refused, see ``_read_metadata``), or without ``root`` the file the user named,
    which must be a regular file of at most ``MAX_METADATA_BYTES``."""
    try:
        raw = (
            read_regular_file(path, root=None, limit=MAX_METADATA_BYTES)
            if root is None
            else _read_metadata(path, root)
        )
        if raw is None:
            return None
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        return tomllib.loads(text)
    except UnsafeFileError as exc:
        raise ConfigError(
            f"settings file '{path}' is {exc.reason}; pass a regular file "
            f"of at most {MAX_METADATA_BYTES >> 20} MiB such as codecite.toml "
            "or pyproject.toml"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read '{path}': {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"'{path}' is not valid TOML ({exc}); fix the syntax") from exc


def find_settings(root: Path, config_file: Path | None = None) -> tuple[dict[str, Any], str | None]:
    """The raw settings table and the file it came from (``{}``, None when absent)."""
    if config_file is not None:
        data = _read_toml(config_file) or {}
        if config_file.name == "pyproject.toml":
            return data.get("tool", {}).get("codecite", {}), str(config_file)
        return data.get("tool", {}).get("codecite", data), str(config_file)
    own = root / "codecite.toml"
    settings = _read_toml(own, root)
    if settings is not None:  # top-level keys, or the same [tool.codecite] table
        return settings.get("tool", {}).get("codecite", settings), str(own)
    pyproject = root / "pyproject.toml"
    table = (_read_toml(pyproject, root) or {}).get("tool", {}).get("codecite")
    if table is not None:
        return table, str(pyproject)
    return {}, None


def _pyproject(root: Path) -> dict[str, Any]:
    try:
        return _read_toml(root / "pyproject.toml", root) or {}
    except ConfigError:
        return {}


def setuptools_package_dirs(root: Path) -> dict[str, str]:
    """``[tool.setuptools] package-dir`` of the repository, if it declares one."""
    mapping = _pyproject(root).get("tool", {}).get("setuptools", {}).get("package-dir", {})
    return {str(k): str(v) for k, v in mapping.items()} if isinstance(mapping, dict) else {}


def project_name(root: Path) -> str | None:
    """The distribution name: ``[project] name``, else an sdist's ``PKG-INFO``."""
    name = _pyproject(root).get("project", {}).get("name")
    if isinstance(name, str) and name:
        return name
    try:
        raw = _read_metadata(root / "PKG-INFO", root)
    except OSError:
        return None
    if raw is None:
        return None
    head = raw[:4000].decode("utf-8", errors="replace")
    match = re.search(r"^Name:\s*(\S+)", head, re.MULTILINE)
    return match.group(1) if match else None


def detect_packages(root: Path) -> dict[str, str]:
    """Import name -> folder for packages in ``src/``, else ``./``, else ``lib/``
    (matplotlib's and SQLAlchemy's layout), with zero configuration."""
    mapping = setuptools_package_dirs(root)
    if mapping:
        if "" in mapping:  # {"" = "src"}: every package under that folder
            base = mapping.pop("")
            mapping.update(_packages_in(root / base, f"{base.strip('/')}/", source=True))
        return mapping
    found = _packages_in(root / "src", "src/", source=True)
    if not found:
        # beside other folders, a folder without __init__.py is a namespace package only
        # when the distribution says so (jaraco.functools -> jaraco/functools/)
        name = (project_name(root) or "").lower()
        namespace = re.split(r"[.\-_]", name, maxsplit=1)[0] if re.search(r"[.\-_]", name) else None
        found = _packages_in(root, "", namespace=namespace)
    return found or _packages_in(root / "lib", "lib/", source=True)


def _packages_in(
    folder: Path, prefix: str, source: bool = False, namespace: str | None = None
) -> dict[str, str]:
    """Packages directly in ``folder``. In a source folder (``src/``, ``lib/``) every
    package is the project's, namespace packages included; elsewhere only folders with
    an ``__init__.py`` and not named like tests, docs or build output, plus the
    ``namespace`` folder the distribution name gives."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for child in sorted(folder.iterdir()):
        if child.name.startswith((".", "_")) or child.name.lower() in (
            NOT_SRC_PACKAGES if source else NOT_PACKAGES
        ):
            continue
        if child.is_dir() and (
            _is_package(child)
            or ((source or child.name.lower() == namespace) and _is_namespace(child))
        ):
            out[child.name] = f"{prefix}{child.name}"
        elif child.is_file() and child.suffix == ".py" and source:
            out[child.stem] = f"{prefix}{child.name}"
    return out


def _is_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file() or (folder / "__init__.pyi").is_file()


def _is_namespace(folder: Path) -> bool:
    """A PEP 420 namespace package: no ``__init__.py`` of its own, but a package inside
    (``jaraco/functools/__init__.py`` makes ``jaraco`` the top-level import name)."""
    try:
        return any(
            child.is_dir() and not child.name.startswith((".", "_")) and _is_package(child)
            for child in folder.iterdir()
        )
    except OSError:
        return False


def _default_roots(root: Path, package_dirs: dict[str, str]) -> tuple[str, ...]:
    roots = list(dict.fromkeys(package_dirs.values()))
    for group in (DEFAULT_DOC_DIRS, DEFAULT_EXAMPLE_DIRS, DEFAULT_RECIPE_DIRS):
        roots += [d for d in group if (root / d).is_dir()]
    return tuple(roots)


def _default_root_docs(root: Path) -> tuple[str, ...]:
    # a FIFO README too: the walk skips it with its reason instead of ignoring it unseen
    return tuple(
        name for name in DEFAULT_ROOT_DOCS if (root / name).exists() and not (root / name).is_dir()
    )


def load_config(
    root: str | Path = ".", config_file: str | Path | None = None, **overrides: Any
) -> CodeciteConfig:
    """Read, validate and complete the configuration of the repository at ``root``.

    Keyword arguments override file settings (same names as the TOML keys).
    """
    root_path = Path(root).resolve()
    if not root_path.is_dir():
        raise ConfigError(f"repository root '{root}' is not a folder; pass an existing path")
    raw, source = find_settings(root_path, Path(config_file) if config_file else None)
    raw = dict(raw)
    index_dir = overrides.pop("index_dir", None)  # explicit: may lie outside the repository
    raw.update({k: v for k, v in overrides.items() if v is not None})
    from codecite.config.schema import (  # local: keeps this module short
        check_index_dir,
        explicit_index_dir,
        validate_settings,
    )

    values = validate_settings(raw, source or "keyword arguments", root_path)
    if index_dir is not None:
        values["index_dir"] = explicit_index_dir(index_dir)
    if "package_dirs" not in values:
        detected = detect_packages(root_path)
        if "packages" in values:
            detected = _select_packages(root_path, detected, values["packages"])
        values["package_dirs"] = detected
    values.setdefault("packages", tuple(values["package_dirs"]))
    values.setdefault("roots", _default_roots(root_path, values["package_dirs"]))
    values.setdefault("root_docs", _default_root_docs(root_path))
    values.setdefault(
        "recipes",
        tuple(d for d in DEFAULT_RECIPE_DIRS if d in values["roots"] and (root_path / d).is_dir()),
    )
    cfg = CodeciteConfig(root=root_path, source=source, **values)
    check_index_dir(cfg)
    return cfg


def _select_packages(
    root: Path, detected: dict[str, str], names: tuple[str, ...]
) -> dict[str, str]:
    """The detected folders of the named packages and of their mapped subpackages."""
    out: dict[str, str] = {}
    for name in names:
        out[name] = detected.get(name, _guess_dir(root, name))
        out.update({k: v for k, v in detected.items() if k.startswith(name + ".")})
    return out


def _guess_dir(root: Path, name: str) -> str:
    base = name.replace(".", "/")
    return f"src/{base}" if (root / "src" / base).is_dir() else base
