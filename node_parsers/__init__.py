"""Files -> nodes: Python (tree-sitter), doc sections, recipes; ``llama`` is their
LlamaIndex face (``NodeParser``s that make ``TextNode``s).

Names load on first use, so importing one parser does not import the others.
"""

from __future__ import annotations

from codecite.lazy import lazy_attributes

__all__ = [
    "DocSectionNodeParser",
    "NodeKind",
    "PythonNodeParser",
    "RecipeNodeParser",
    "make_node",
    "parse_doc",
    "parse_python_source",
    "parse_recipe",
]

_LAZY = {
    "DocSectionNodeParser": "llama",
    "parse_doc": "docs",
    "NodeKind": "schema",
    "make_node": "schema",
    "PythonNodeParser": "llama",
    "parse_python_source": "python",
    "RecipeNodeParser": "llama",
    "parse_recipe": "recipes",
}


__getattr__ = lazy_attributes(__name__, _LAZY)
