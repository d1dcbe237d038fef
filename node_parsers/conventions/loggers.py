"""``logger = logging.getLogger(__name__)``: a module-level assignment that is no API.

Nearly every module of a library binds a logger at top level. As an
``assignment`` node it would document nothing and match every query about
logging, so an assignment whose value calls ``getLogger(`` (``logging.getLogger``,
``getLogger`` imported, ``structlog.getLogger``) gets no node; the name stays in
the module's namespace.
"""

from __future__ import annotations

from typing import Any

from ..python_syntax import text

LOGGER_CALL = "getLogger("


def creates_logger(value: Any) -> bool:
    """True when an assignment's value (a tree-sitter node, or None) makes a logger.

    Example:
        >>> from codecite.node_parsers._ts import parse_python
        >>> tree = parse_python(b"log = logging.getLogger(__name__)\\n")
        >>> assign = tree.root_node.named_children[0].named_children[0]
        >>> creates_logger(assign.child_by_field_name("right"))
        True
    """
    return value is not None and LOGGER_CALL in text(value)
