"""Validation: generated code and recipes checked against the indexed package, statically.

- ``namespace``: which modules, names and members the package provides
  (re-exports, ``__all__``, star imports), with found / absent / unknown answers;
- ``calls``: the parameters a call binds to, and how a call fails to bind;
- ``checker``: :func:`validate_generated_code`, the walk over a generated script;
- ``findings``: :class:`Finding` and the :class:`ValidationReport` it returns;
- ``import_check``: the opt-in import of the installed package for unprovable names;
- ``recipes``: :func:`check_recipes`, the review of workflow recipes.

Nothing of the project is imported unless ``import_check=True`` asks for it.
Names load on first use. See docs/validation.md.

Example:
    >>> from codecite.validation import validate_generated_code        # doctest: +SKIP
    >>> validate_generated_code("import os\\n", index=codecite.load("."))["ok"]  # doctest: +SKIP
    True
"""

from __future__ import annotations

from codecite.lazy import lazy_attributes

__all__ = [
    "CallShape",
    "Finding",
    "Namespace",
    "RecipeReport",
    "Ref",
    "RefKind",
    "Signature",
    "ValidationReport",
    "check_recipes",
    "did_you_mean",
    "validate_generated_code",
]

_LAZY = {
    "CallShape": "calls",
    "Signature": "calls",
    "Finding": "findings",
    "ValidationReport": "findings",
    "Namespace": "namespace",
    "Ref": "namespace",
    "RefKind": "namespace",
    "did_you_mean": "namespace",
    "RecipeReport": "recipes",
    "check_recipes": "recipes",
    "validate_generated_code": "checker",
}


__getattr__ = lazy_attributes(__name__, _LAZY)
