"""The parsers as LlamaIndex ``NodeParser``s: documents in, ``TextNode``s out.

The parse functions (``parse_python_source``, ``parse_doc``, ``parse_recipe``)
make plain ``NodeRecord``s, which is what a build needs; these classes are their
LlamaIndex face, for an ``IngestionPipeline`` or any node-parser slot, and make
the ``TextNode``s. Each is also importable from its parser's module
(``codecite.node_parsers.python.PythonNodeParser``).

What they share (``CodeciteNodeParser``):

- each node knows its document (the ``SOURCE`` relationship; LlamaIndex then adds
  ``PREVIOUS``/``NEXT`` and the document's metadata), so a docstore's upserts and
  ``delete_ref_doc`` work; a method's ``PARENT`` is its class node;
- the path is ``metadata["source_path"]`` (repository relative) or
  ``metadata["file_path"]`` made relative to ``root`` (or, for Python, to the
  folder above the file's top package); a document with neither is refused with
  an error naming the key;
- a document of a type the parser does not read is skipped with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.schema import BaseNode, NodeRelationship, TextNode

from codecite.vocabulary import DOC_SUFFIXES, PYTHON_SUFFIXES
from codecite.vocabulary import MARKDOWN_SUFFIXES as RECIPE_SUFFIXES

from .docs import parse_doc
from .python import DEFAULT_INCLUDE_PRIVATE, module_name_for, parse_python_source
from .recipes import parse_recipe
from .schema import text_node
from .sections import DEFAULT_MAX_SECTION_CHARS

logger = logging.getLogger(__name__)


class CodeciteNodeParser(NodeParser):
    """What codecite's parsers share: paths, relationships, skipping other file types."""

    root: str | None = Field(
        default=None,
        description="Repository root: absolute file_path metadata is made relative to it.",
    )

    def _path(self, doc: BaseNode, python: bool = False) -> str:
        meta = doc.metadata
        if meta.get("source_path"):
            return str(meta["source_path"])
        given = meta.get("file_path")
        if not given:
            raise ValueError(
                f"document {doc.node_id!r} has no 'source_path' or 'file_path' metadata; "
                "set metadata['source_path'] to its repository-relative path (a "
                "SimpleDirectoryReader sets file_path)"
            )
        path = Path(str(given))
        if not path.is_absolute():
            return path.as_posix()
        if self.root is not None:
            try:
                return path.resolve().relative_to(Path(self.root).resolve()).as_posix()
            except ValueError:
                raise ValueError(f"file_path '{path}' is not under root '{self.root}'") from None
        return _from_top_package(path) if python else path.as_posix()

    def _reads(self, path: str, suffixes: tuple[str, ...]) -> bool:
        if PurePosixPath(path).suffix.lower() in suffixes:
            return True
        logger.warning(
            "%s skips '%s': it reads %s files", self.class_name(), path, ", ".join(suffixes)
        )
        return False

    @staticmethod
    def _related(doc: BaseNode, nodes: list[TextNode]) -> list[TextNode]:
        """``SOURCE`` on every node, ``PARENT``/``CHILD`` from a method to its class."""
        source = doc.as_related_node_info()
        by_symbol = {n.metadata.get("symbol"): n for n in nodes if n.metadata.get("symbol")}
        for node in nodes:
            node.relationships[NodeRelationship.SOURCE] = source
            if node.metadata.get("kind") == "python_method":
                owner = by_symbol.get(str(node.metadata["symbol"]).rsplit(".", 1)[0])
                if owner is not None:
                    node.relationships[NodeRelationship.PARENT] = owner.as_related_node_info()
                    children = owner.relationships.setdefault(NodeRelationship.CHILD, [])
                    children.append(node.as_related_node_info())  # type: ignore[union-attr]
        return nodes


def _from_top_package(path: Path) -> str:
    """``/x/rich-13.9.4/rich/console.py`` -> ``rich/console.py``: relative to the folder
    above the file's top package (the first parent without an ``__init__.py``)."""
    top = path.parent
    while (top / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    return path.relative_to(top).as_posix()


class PythonNodeParser(CodeciteNodeParser):
    """Split Python documents into symbol-level nodes with tree-sitter.

    Each input document needs ``source_path`` (repository relative) or
    ``file_path`` in its metadata and may carry ``module`` (the dotted module
    name; derived from the path when absent).

    Example:
        >>> from llama_index.core import Document
        >>> doc = Document(text="class A:\\n    def run(self): ...\\n",
        ...                metadata={"source_path": "pkg/a.py"})
        >>> [n.metadata["symbol"] for n in PythonNodeParser().get_nodes_from_documents([doc])]
        ['pkg.a.A.run', 'pkg.a.A']
    """

    include_private: bool = Field(
        default=DEFAULT_INCLUDE_PRIVATE,
        description="Index names starting with a single underscore.",
    )

    @classmethod
    def class_name(cls) -> str:
        return "CodecitePythonNodeParser"

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for doc in nodes:
            path = self._path(doc, python=True)
            if not self._reads(path, PYTHON_SUFFIXES):
                continue
            module = doc.metadata.get("module") or module_name_for(path)
            result = parse_python_source(doc.get_content(), path, module, self.include_private)
            out.extend(self._related(doc, [text_node(n) for n in result.nodes]))
        return out


class _SectionParser(CodeciteNodeParser):
    """A parser of text pages into sections of at most ``max_chars``."""

    max_chars: int = Field(
        default=DEFAULT_MAX_SECTION_CHARS,
        gt=0,
        description="Longest node text; longer sections are split on paragraph boundaries.",
    )

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for doc in nodes:
            path = self._path(doc)
            if self._reads(path, self._suffixes()):
                parsed = self._sections(doc.get_content(), path)
                out.extend(self._related(doc, [text_node(n) for n in parsed]))
        return out

    def _suffixes(self) -> tuple[str, ...]:
        raise NotImplementedError

    def _sections(self, text: str, path: str) -> list[Any]:
        raise NotImplementedError


class DocSectionNodeParser(_SectionParser):
    """Split Markdown and reStructuredText documents into section nodes.

    Each input document needs ``source_path`` (repository relative) or
    ``file_path`` in its metadata; the suffix picks the format.

    Example:
        >>> from llama_index.core import Document
        >>> doc = Document(text="Usage\\n=====\\n\\nCall :func:`pkg.run`.\\n",
        ...                metadata={"source_path": "docs/usage.rst"})
        >>> [n.metadata["heading"] for n in DocSectionNodeParser().get_nodes_from_documents([doc])]
        ['Usage']
    """

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteDocSectionNodeParser"

    def _suffixes(self) -> tuple[str, ...]:
        return DOC_SUFFIXES

    def _sections(self, text: str, path: str) -> list[Any]:
        return list(parse_doc(text, path, self.max_chars))


class RecipeNodeParser(_SectionParser):
    """Split recipe Markdown documents into ``recipe`` nodes tagged with their workflow.

    Each input document needs ``source_path`` or ``file_path`` in its metadata.

    Example:
        >>> from llama_index.core import Document
        >>> doc = Document(text="---\\nworkflow: ask\\n---\\n# Ask\\n\\nRun ask.\\n",
        ...                metadata={"source_path": "recipes/ask.md"})
        >>> [n.metadata["workflow"] for n in RecipeNodeParser().get_nodes_from_documents([doc])]
        ['ask']
    """

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteRecipeNodeParser"

    def _suffixes(self) -> tuple[str, ...]:
        return RECIPE_SUFFIXES

    def _sections(self, text: str, path: str) -> list[Any]:
        return list(parse_recipe(text, path, self.max_chars)[0])


__all__ = ["CodeciteNodeParser", "DocSectionNodeParser", "PythonNodeParser", "RecipeNodeParser"]
