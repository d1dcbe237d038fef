"""Files -> LlamaIndex nodes: Python (tree-sitter), doc sections, recipes.

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
    "DocSectionNodeParser": "docs",
    "parse_doc": "docs",
    "NodeKind": "schema",
    "make_node": "schema",
    "PythonNodeParser": "python",
    "parse_python_source": "python",
    "RecipeNodeParser": "recipes",
    "parse_recipe": "recipes",
}


__getattr__ = lazy_attributes(__name__, _LAZY)
