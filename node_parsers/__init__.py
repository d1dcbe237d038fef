"""Files -> LlamaIndex nodes: Python (tree-sitter), doc sections, recipes.

Names load on first use, so importing one parser does not import the others.
"""

from __future__ import annotations

import importlib
from typing import Any

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


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
