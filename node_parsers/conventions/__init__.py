"""Library conventions the generic Python walker knows about, one module each.

The walker (``codecite.node_parsers.python_walker``) reads Python the way the
language defines it: definitions, docstrings, assignments, imports. Some
libraries document their API in ways the language does not define; each such
convention is a small module here, recognising the pattern on tree-sitter
nodes without evaluating anything:

- ``numpy_add_newdoc``: ``add_newdoc(module, name, doc)`` calls (numpy, scipy)
  document a symbol defined in C; each becomes that symbol's node.
- ``late_docstring``: ``f.__doc__ = dedent('''...''').format(...)`` (seaborn)
  assigns a function's docstring after its definition; it joins ``f``'s node.
- ``loggers``: ``logger = logging.getLogger(__name__)`` is a module-level
  assignment that documents nothing; it gets no node.

To add one: a module with a function that takes the statement (or its parts)
and returns what it found (or None), a call at the matching place in the
walker, and a test on a real snippet in ``tests/node_parsers/test_conventions.py``.
A convention changes what a build yields, so it comes with a ``PARSER_VERSION``
bump (``codecite.node_parsers.dispatch``).
"""

from __future__ import annotations

from .late_docstring import LateDocstring, attach_docstring, read_late_docstring
from .loggers import creates_logger
from .numpy_add_newdoc import NewDoc, read_add_newdoc

__all__ = [
    "LateDocstring",
    "NewDoc",
    "attach_docstring",
    "creates_logger",
    "read_add_newdoc",
    "read_late_docstring",
]
