"""Which parser reads a corpus file, and how: the per-file-type policy of a build.

The builder (``codecite.indexer.build``) walks the corpus, reuses what did not
change and writes the index; for each file to (re)parse it asks this module
for the text (``read_text``) and, after redaction, for the nodes
(``parse_text``):

- Python (``FileRole.PYTHON``) -> the Python parser; a file under an examples
  folder that is a script (``scripts.is_script``) is read as the gallery page it
  renders to: its docstring and variables give way to the page's sections;
- a ``.pyi`` stub beside its module (``FileRole.STUB``) -> the Python parser, for
  its namespace only (``lazy.attach_stub`` packages): no nodes;
- recipes (``FileRole.RECIPE``) -> the recipe parser;
- ``.ipynb`` -> the notebook parser (a file that is no notebook: a warning);
- ``.md``/``.markdown``/``.rst``/``.txt`` by suffix, and every other doc file
  (``README``, ``CHANGES``, ...) as Markdown.

``PARSER_VERSION`` is recorded in the manifest; a build reuses nodes and
tables only from an index of the same version (docs/architecture.md,
"Invariants").
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codecite.config.model import DEFAULT_DOC_DIRS, DEFAULT_EXAMPLE_DIRS, CodeciteConfig
from codecite.indexer.corpus import FileRole
from codecite.vocabulary import DOC_SUFFIXES, NOTEBOOK_SUFFIX  # others read as Markdown

if TYPE_CHECKING:
    from codecite.indexer.corpus import CorpusFile

    from .schema import NodeRecord

# Bumped whenever parsing, tagging or the derived tables change what a build yields, so
# that a build never reuses nodes or tables made by older rules (history in CHANGELOG.md).
PARSER_VERSION = 45
PACKAGE_INITS = ("__init__.py", "__init__.pyi")  # may be empty without a warning
_LONE_CR = re.compile(r"\r(?!\n)")
TUTORIAL_PROGRAMS = ("docs_src/",)


@dataclass
class ParsedFile:
    """A parser's output for one corpus path: nodes, namespace (Python), warnings.

    Warnings start with the path (``"pkg/a.py: ..."``); the manifest lists them.
    """

    nodes: list[NodeRecord] = field(default_factory=list)
    namespace: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)


def read_text(file: CorpusFile, warnings: list[str]) -> str:
    """The file's text; bytes that are not UTF-8 become replacement characters (a warning).

    A Python file is decoded as Python reads it: by its PEP 263 declaration
    (``# -*- coding: latin-1 -*-`` in its first two lines), UTF-8 otherwise.
    A lone ``\r`` (old Mac line ends) becomes ``\n``: Python ends a line there, tree-sitter
    does not, and every node of such a file was cited at line 1. Offsets do not move.
    """
    data = file.content()
    encoding = source_encoding(data, file.rel)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        name = "UTF-8" if encoding == "utf-8" else encoding
        warnings.append(f"{file.rel}: not valid {name}, decoded with replacement characters")
        text = data.decode(encoding, errors="replace")
    return _LONE_CR.sub("\n", text) if "\r" in text else text


_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def source_encoding(data: bytes, rel: str) -> str:
    """How the build decodes the file at ``rel``: a Python file by the encoding its PEP 263
    line declares (a known codec), everything else and an undeclared file as UTF-8."""
    if not rel.endswith((".py", ".pyi")):
        return "utf-8"
    for line in data.split(b"\n", 2)[:2]:
        if found := _CODING.match(line):
            try:
                return codecs.lookup(found.group(1).decode("ascii")).name
            except LookupError:
                return "utf-8"  # an unknown codec: Python refuses the file; read it as UTF-8
        if line.strip() and not line.lstrip().startswith(b"#"):
            break  # the declaration must come before any code
    return "utf-8"


def parse_text(text: str, file: CorpusFile, cfg: CodeciteConfig) -> ParsedFile:
    """Nodes of one corpus file's text, by the file's role and suffix.

    The parsers are imported here, not at module level: they make LlamaIndex
    nodes, and importing llama_index.core is most of the time of a build that
    finds nothing changed.
    """
    parsed = ParsedFile()
    if not text.strip() and not file.rel.endswith(PACKAGE_INITS):
        parsed.warnings.append(f"{file.rel}: empty file; nothing to index")
    if file.role is FileRole.PYTHON:
        _parse_python(text, file.rel, cfg, parsed)
    elif file.role is FileRole.STUB:  # the names it binds (validation), no nodes
        _parse_python(text, file.rel, cfg, parsed)
        parsed.nodes = []
    elif file.role is FileRole.RECIPE:
        from .recipes import parse_recipe

        parsed.nodes, _info = parse_recipe(text, file.rel, max_chars=cfg.max_section_chars)
    elif file.rel.lower().endswith(NOTEBOOK_SUFFIX):
        _parse_notebook(text, file.rel, cfg, parsed)
    else:
        from .docs import parse_doc, parse_markdown

        parse = parse_doc if file.rel.lower().endswith(DOC_SUFFIXES) else parse_markdown
        parsed.nodes = parse(text, file.rel, max_chars=cfg.max_section_chars)
    return parsed


def _parse_python(text: str, rel: str, cfg: CodeciteConfig, parsed: ParsedFile) -> None:
    from .python import module_name_for, parse_python_source

    module = module_name_for(rel, cfg.package_dirs)
    result = parse_python_source(text.encode("utf-8"), rel, module, cfg.include_private)
    parsed.nodes = result.nodes
    parsed.namespace = result.namespace.to_json()
    if result.partial:
        parsed.warnings.append(
            f"{rel}: syntax errors near line(s) "
            f"{', '.join(map(str, result.error_lines[:5]))}; "
            "partially parsed"
        )
    parsed.warnings += [f"{rel}: {w}" for w in result.warnings]
    if in_gallery(rel):
        parsed.nodes = _gallery_nodes(text, rel, cfg, parsed.nodes)


def in_gallery(rel: str) -> bool:
    """Is ``rel`` where example scripts live: a top-level examples folder, or the docs
    (scikit-image's ``doc/examples``, sphinx-gallery's ``docs/tutorials``, and the plot
    and helper scripts a docs folder runs: statsmodels' ``docs/source/plots``, nilearn's
    ``doc/make_atlas_table.py``, whose variables are no API)?"""
    parts = rel.split("/")
    return parts[0] in DEFAULT_EXAMPLE_DIRS or (parts[0] in DEFAULT_DOC_DIRS and len(parts) > 1)


def _gallery_nodes(
    text: str, rel: str, cfg: CodeciteConfig, nodes: list[NodeRecord]
) -> list[NodeRecord]:
    """An example that is a script is a gallery page: its docstring opens the page's
    first section, and its variables (``tips = load_dataset(...)``) are not API; the
    functions and classes it defines stay. An example application is left as code."""
    from .scripts import example_page

    # a tutorial program (FastAPI's, SQLModel's `docs_src/`) is the docs' code: always a page
    tutorial = rel.startswith(TUTORIAL_PROGRAMS)
    page = example_page(text, rel, max_chars=cfg.max_section_chars, always=tutorial)
    if page is None and rel.split("/", 1)[0] in DEFAULT_DOC_DIRS:  # a docs helper, no page
        return [n for n in nodes if n.metadata.get("symbol_type") != "assignment"]
    if page is None:
        return nodes
    return [
        n
        for n in nodes
        if n.metadata["kind"] != "module_doc"
        and n.metadata.get("symbol_type") != "assignment"
        and not tutorial  # its functions and classes are the page's, not the package's
    ] + page


def _parse_notebook(text: str, rel: str, cfg: CodeciteConfig, parsed: ParsedFile) -> None:
    from .notebooks import NotebookError, parse_notebook

    try:
        parsed.nodes = parse_notebook(text, rel, max_chars=cfg.max_section_chars)
    except NotebookError as exc:
        parsed.warnings.append(f"{rel}: {exc}; not indexed")
