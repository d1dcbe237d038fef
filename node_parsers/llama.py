"""The parsers as LlamaIndex ``NodeParser``s: documents in, ``TextNode``s out.

The parse functions (``parse_python_source``, ``parse_doc``, ``parse_recipe``)
make plain ``NodeRecord``s, which is what a build needs; these classes are their
LlamaIndex face, for an ``IngestionPipeline`` or any node-parser slot, and make
the ``TextNode``s. Each is also importable from its parser's module
(``codecite.node_parsers.python.PythonNodeParser``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.schema import BaseNode

from .docs import parse_doc
from .python import DEFAULT_INCLUDE_PRIVATE, module_name_for, parse_python_source
from .recipes import parse_recipe
from .schema import text_node
from .sections import DEFAULT_MAX_SECTION_CHARS


class PythonNodeParser(NodeParser):
    """Split Python documents into symbol-level nodes with tree-sitter.

    Each input document needs ``source_path`` in its metadata (repository
    relative) and may carry ``module`` (the dotted module name; derived from the
    path when absent).

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
            path = str(
                doc.metadata.get("source_path")
                or doc.metadata.get("file_path")
                or f"{doc.node_id}.py"
            )
            module = doc.metadata.get("module") or module_name_for(path)
            result = parse_python_source(doc.get_content(), path, module, self.include_private)
            out.extend(text_node(n) for n in result.nodes)
        return out


def _source_path(doc: BaseNode, default_suffix: str) -> str:
    meta = doc.metadata
    return str(
        meta.get("source_path")
        or meta.get("file_path")
        or meta.get("file_name")
        or f"{doc.node_id}{default_suffix}"
    )


class DocSectionNodeParser(NodeParser):
    """Split Markdown and reStructuredText documents into section nodes.

    Each input document needs ``source_path`` (repository relative) in its
    metadata; the suffix picks the format.

    Example:
        >>> from llama_index.core import Document
        >>> doc = Document(text="Usage\\n=====\\n\\nCall :func:`pkg.run`.\\n",
        ...                metadata={"source_path": "docs/usage.rst"})
        >>> [n.metadata["heading"] for n in DocSectionNodeParser().get_nodes_from_documents([doc])]
        ['Usage']
    """

    max_chars: int = Field(
        default=DEFAULT_MAX_SECTION_CHARS,
        gt=0,
        description="Longest node text; longer sections are split on paragraph boundaries.",
    )

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteDocSectionNodeParser"

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for doc in nodes:
            path = _source_path(doc, ".md")
            out.extend(text_node(n) for n in parse_doc(doc.get_content(), path, self.max_chars))
        return out


class RecipeNodeParser(NodeParser):
    """Split recipe Markdown documents into ``recipe`` nodes tagged with their workflow.

    Each input document needs ``source_path`` in its metadata.

    Example:
        >>> from llama_index.core import Document
        >>> doc = Document(text="---\\nworkflow: ask\\n---\\n# Ask\\n\\nRun ask.\\n",
        ...                metadata={"source_path": "recipes/ask.md"})
        >>> [n.metadata["workflow"] for n in RecipeNodeParser().get_nodes_from_documents([doc])]
        ['ask']
    """

    max_chars: int = Field(
        default=DEFAULT_MAX_SECTION_CHARS,
        gt=0,
        description="Longest node text; longer sections are split on paragraph boundaries.",
    )

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteRecipeNodeParser"

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for doc in nodes:
            meta = doc.metadata
            path = str(
                meta.get("source_path")
                or meta.get("file_path")
                or meta.get("file_name")
                or f"{doc.node_id}.md"
            )
            nodes_, _info = parse_recipe(doc.get_content(), path, self.max_chars)
            out.extend(text_node(n) for n in nodes_)
        return out


__all__ = ["DocSectionNodeParser", "PythonNodeParser", "RecipeNodeParser"]
