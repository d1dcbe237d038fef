"""The settings model: the ``[tool.codecite]`` table, its defaults and its records.

One field per key, with its constrained type and default (docs/configuration.md lists
them, and ``tests/test_configuration_doc.py`` keeps that page and this model in step).
``CodeciteSettings`` is the table as read; ``CodeciteConfig`` is the same settings
completed for one repository (its root, the file they came from, what zero
configuration found). The retrieval constants are ``RetrievalSettings`` of
``codecite.retrievers.settings``, the scorer's own definition.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationInfo,
    model_validator,
)

from codecite.retrievers.settings import (
    NonNegativeInt,
    PositiveInt,
    RetrievalSettings,
    Switch,
    setting_error,
)

from .fields import (
    TABLE,
    InsidePath,
    Keywords,
    LowerStr,
    OptionalNumber,
    OptionalRepoPath,
    OptionalText,
    PackageDir,
    Priority,
    RepoPath,
    RepoPaths,
    StrList,
    Suffixes,
    is_loading,
    refuse_unknown,
)

DEFAULT_SUFFIXES = (".py", ".rst", ".md", ".qmd", ".ipynb")
DEFAULT_INDEX_DIR = ".codecite"
DEFAULT_CONFIDENCE_FLOOR: float | None = None  # None: calibrated per index
DEFAULT_MAX_FILE_BYTES = 1024 * 1024
DEFAULT_MAX_SECTION_CHARS = 4000
DEFAULT_DOC_DIRS = ("docs", "doc", "documentation")
DEFAULT_EXAMPLE_DIRS = ("examples", "example", "gallery", "galleries", "tutorials", "docs_src")
DEFAULT_RECIPE_DIRS = ("recipes",)
DEFAULT_ROOT_DOCS = ("README.md", "README.rst", "README.txt", "README", "AGENTS.md")
EMBEDDING_BACKENDS = ("openai", "local", "none")

_TABLE_CONFIG = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class WorkflowRule:
    """A workflow tag: keywords (substring of lowered path+symbol+text), path fragments."""

    name: str
    keywords: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()


class _FixedTable(BaseModel):
    """A small table of fixed keys; an unknown key is refused before any value."""

    model_config = _TABLE_CONFIG
    unknown_fix: ClassVar[str]

    @model_validator(mode="before")
    @classmethod
    def _known_keys_only(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise setting_error(
                f"must be a table, got {value!r}", "write it as [tool.codecite.{key}]"
            )
        refuse_unknown(value, tuple(cls.model_fields), cls.unknown_fix)
        return value


class WorkflowTable(_FixedTable):
    """``[tool.codecite.workflows.NAME]``; keywords are lower-cased."""

    unknown_fix: ClassVar[str] = "a workflow takes 'keywords' and 'paths'"
    keywords: Keywords = ()
    paths: StrList = ()


class RegistryEntry(_FixedTable):
    """``[tool.codecite.registry.NAME]``: a project registry entry (docs/answers.md)."""

    unknown_fix: ClassVar[str] = "an entry takes 'aliases', 'path', 'defaults', 'description'"
    aliases: StrList = ()
    path: Any = None
    defaults: Annotated[dict[str, Any], TABLE] = Field(default_factory=dict)
    description: Any = None


_WORKFLOW_TABLES = TypeAdapter(dict[str, WorkflowTable])


def _workflow_rules(value: Any, info: ValidationInfo) -> Any:
    """``{name: {keywords, paths}}`` as read become rules, in file order."""
    if isinstance(value, dict):
        tables = _WORKFLOW_TABLES.validate_python(value, context=info.context)
        return tuple(WorkflowRule(name, t.keywords, t.paths) for name, t in tables.items())
    if is_loading(info):
        raise setting_error(f"must be a table, got {value!r}", "write it as [tool.codecite.{key}]")
    return value


def _registry_entry(value: Any, info: ValidationInfo) -> Any:
    """An entry stays the table it was written as, with its aliases as a list."""
    entry = RegistryEntry.model_validate(value, context=info.context)
    return {**value, "aliases": list(entry.aliases)}


class EmbeddingSettings(BaseModel):
    """``[tool.codecite.embedding]``: which backend makes dense vectors (docs/dense.md).

    Example:
        >>> EmbeddingSettings(backend="local").batch_size
        64
    """

    model_config = _TABLE_CONFIG

    backend: OptionalText = None  # "openai", "local", "none", or None (lexical only)
    model: OptionalText = None
    api_base: OptionalText = None
    batch_size: PositiveInt = 64

    @model_validator(mode="after")
    def _known_backend(self) -> EmbeddingSettings:
        if self.backend not in (None, *EMBEDDING_BACKENDS):
            raise setting_error(
                f"is {self.backend!r}", f"use one of {', '.join(EMBEDDING_BACKENDS)}", ("backend",)
            )
        return self


class CodeciteSettings(BaseModel):
    """The ``[tool.codecite]`` table (or ``codecite.toml``), every key of docs/configuration.md.

    Validate with the repository root as context, so that paths are checked:

    Example:
        >>> CodeciteSettings.model_validate({"roots": "docs"}, context={"root": Path.cwd()}).roots
        ('docs',)
    """

    model_config = _TABLE_CONFIG

    packages: StrList = ()
    package_dirs: Annotated[dict[str, PackageDir], TABLE] = Field(default_factory=dict)
    roots: RepoPaths = ()
    root_docs: RepoPaths = ()
    suffixes: Suffixes = DEFAULT_SUFFIXES
    exclude: StrList = ()
    recipes: RepoPaths = ()
    include_private: Switch = False
    redact_secrets: Switch = True  # credential values become placeholders (redaction.py)
    index_dir: RepoPath = DEFAULT_INDEX_DIR
    trust_index_from_elsewhere: Switch = False  # query time: serve an index sealed elsewhere
    confidence_floor: OptionalNumber = DEFAULT_CONFIDENCE_FLOOR
    max_file_bytes: PositiveInt = DEFAULT_MAX_FILE_BYTES
    max_section_chars: PositiveInt = DEFAULT_MAX_SECTION_CHARS
    build_workers: NonNegativeInt = 0  # processes that parse; 0: one per core (indexer/parallel)
    priorities: Annotated[dict[InsidePath, Priority], TABLE] = Field(default_factory=dict)
    workflows: Annotated[tuple[WorkflowRule, ...], BeforeValidator(_workflow_rules)] = ()
    expansions: Annotated[dict[LowerStr, StrList], TABLE] = Field(default_factory=dict)
    intents: Annotated[dict[LowerStr, StrList], TABLE] = Field(default_factory=dict)
    registry: Annotated[
        dict[str, Annotated[dict[str, Any], BeforeValidator(_registry_entry)]], TABLE
    ] = Field(default_factory=dict)
    registry_file: OptionalRepoPath = None
    embedding: Annotated[EmbeddingSettings, TABLE] = Field(default_factory=EmbeddingSettings)
    retrieval: Annotated[RetrievalSettings, TABLE] = Field(default_factory=RetrievalSettings)


class CodeciteConfig(CodeciteSettings):
    """Everything that decides what is indexed and how it is ranked: the settings of the
    repository at ``root``, completed by zero configuration (``load_config`` makes one).

    Example:
        >>> cfg = CodeciteConfig(root=Path("."), packages=("pkg",), roots=("pkg", "docs"))
        >>> cfg.priority_for("pkg/core.py")
        1
    """

    root: Path
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
        # whom to trust, how many processes parse and where the index is kept (`.codecite`
        # or the same folder written as an absolute --index-dir) are not what is indexed
        data = self.model_dump(
            exclude={"root", "source", "trust_index_from_elsewhere", "build_workers", "index_dir"}
        )
        blob = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
