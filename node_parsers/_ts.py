"""The one place that knows the tree-sitter API version.

tree-sitter 0.22+ builds a ``Language`` from the grammar capsule and a
``Parser`` from the language; older releases used ``set_language``. Everything
else in codecite asks this module for a parser.
"""

from __future__ import annotations

import functools
from typing import Any

import tree_sitter
import tree_sitter_python


@functools.lru_cache(maxsize=1)
def python_language() -> Any:
    """The tree-sitter Python grammar, shipped inside the tree-sitter-python wheel."""
    return tree_sitter.Language(tree_sitter_python.language())


def python_parser() -> Any:
    """A fresh tree-sitter ``Parser`` for Python."""
    language = python_language()
    try:
        return tree_sitter.Parser(language)
    except TypeError:  # pragma: no cover - tree-sitter < 0.22
        parser = tree_sitter.Parser()
        parser.set_language(language)  # type: ignore[attr-defined]
        return parser


def parse_python(source: bytes) -> Any:
    """Parse Python bytes; tree-sitter recovers from syntax errors with ERROR nodes."""
    return python_parser().parse(source)
