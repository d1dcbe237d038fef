"""Library conventions (codecite.node_parsers.conventions), each on a real source snippet.

Each snippet is cut from the library named in the test (shortened docstrings);
the convention functions are tried on the parsed statement, and the Python
parser on the whole snippet.
"""

from __future__ import annotations

from typing import Any

from codecite.node_parsers._ts import parse_python
from codecite.node_parsers.conventions import (
    LateDocstring,
    creates_logger,
    read_add_newdoc,
    read_late_docstring,
)
from codecite.node_parsers.python import parse_python_source

# numpy/_core/_add_newdocs.py (numpy 2.x)
NUMPY_ADD_NEWDOCS = '''\
from numpy._core.function_base import add_newdoc

add_newdoc('numpy._core', 'flatiter', ('base',
    """
    A reference to the array that is iterated over.

    Examples
    --------
    >>> x = np.arange(5)
    >>> fl = x.flat
    >>> fl.base is x
    True

    """))

add_newdoc('numpy._core.multiarray', 'zeros',
    """
    zeros(shape, dtype=None, order='C', *, device=None, like=None)

    Return a new array of given shape and type, filled with zeros.
    """)
'''

# scipy/special/_add_newdocs.py
SCIPY_ADD_NEWDOCS = '''\
add_newdoc("gammainc",
    r"""
    gammainc(a, x, out=None)

    Regularized lower incomplete gamma function.
    """)
'''

# seaborn/categorical.py
SEABORN_LATE_DOC = '''\
def violinplot(data=None, *, x=None, y=None, hue=None):
    p = _CategoricalPlotter(data=data, variables=dict(x=x, y=y, hue=hue))
    return p.ax


violinplot.__doc__ = dedent("""\\
    Draw a patch representing a KDE and add observations or box plot statistics.

    {categorical_data}
    """).format(**_categorical_docs)
'''

# llama_index/retrievers/bm25/base.py
LLAMA_INDEX_LOGGER = """\
import logging

logger = logging.getLogger(__name__)

DEFAULT_PERSIST_FILENAME = "retriever.json"
"""


def _statements(source: str) -> list[Any]:
    return list(parse_python(source.encode("utf-8")).root_node.named_children)


def _assignment_sides(stmt: Any) -> tuple[Any, Any]:
    assign = stmt.named_children[0]
    return assign.child_by_field_name("left"), assign.child_by_field_name("right")


def test_numpy_add_newdoc_names_a_method_and_a_c_function() -> None:
    calls = _statements(NUMPY_ADD_NEWDOCS)[1:]
    base, zeros = (read_add_newdoc(c, "numpy._core._add_newdocs", False) for c in calls)
    assert base is not None and zeros is not None
    assert (base.symbol, base.member, base.symbol_type) == (
        "numpy._core.flatiter.base",
        "base",
        "method",
    )
    assert base.signature == "base(...)"  # the doc's first line does not name it
    assert base.doc.startswith("A reference to the array")
    assert (zeros.symbol, zeros.symbol_type) == ("numpy._core.multiarray.zeros", "documented")
    assert zeros.signature == "zeros(shape, dtype=None, order='C', *, device=None, like=None)"
    nodes = parse_python_source(
        NUMPY_ADD_NEWDOCS, "numpy/_core/_add_newdocs.py", "numpy._core._add_newdocs"
    ).nodes
    assert [
        (n.metadata["symbol"], n.metadata["kind"], n.metadata["start_line"]) for n in nodes
    ] == [
        ("numpy._core.flatiter.base", "python_method", 3),
        ("numpy._core.multiarray.zeros", "python_symbol", 16),
    ]


def test_scipy_two_argument_add_newdoc_names_a_function_of_the_package() -> None:
    (call,) = _statements(SCIPY_ADD_NEWDOCS)
    found = read_add_newdoc(call, "scipy.special._add_newdocs", is_package=False)
    assert found is not None
    assert (found.symbol, found.signature) == ("scipy.special.gammainc", "gammainc(a, x, out=None)")
    assert found.text.endswith("Regularized lower incomplete gamma function.")


def test_add_newdoc_with_names_that_are_not_literals_documents_nothing() -> None:
    (call,) = _statements("add_newdoc(place, name, doc)\n")
    assert read_add_newdoc(call, "numpy._core._add_newdocs", False) is None


def test_seaborn_late_docstring_joins_the_function_node() -> None:
    left, right = _assignment_sides(_statements(SEABORN_LATE_DOC)[1])
    assert read_late_docstring(left, right) == LateDocstring(
        "violinplot",
        "Draw a patch representing a KDE and add observations or box plot statistics.\n\n"
        "{categorical_data}",
    )
    (node,) = parse_python_source(
        SEABORN_LATE_DOC, "seaborn/categorical.py", "seaborn.categorical"
    ).nodes
    assert node.metadata["symbol"] == "seaborn.categorical.violinplot"
    assert node.metadata["docstring"].startswith("Draw a patch representing a KDE")
    assert node.text.endswith("{categorical_data}")  # placeholders stay as written


def test_an_augmented_or_foreign_docstring_is_no_late_docstring() -> None:
    plain = _statements('Grid.__doc__ = "A grid."\n')[0]
    assert read_late_docstring(*_assignment_sides(plain)) == LateDocstring("Grid", "A grid.")
    dotted = _statements('a.b.__doc__ = "Not ours."\n')[0]
    assert read_late_docstring(*_assignment_sides(dotted)) is None
    copied = _statements("f.__doc__ = g.__doc__\n")[0]
    assert read_late_docstring(*_assignment_sides(copied)) is None


def test_a_module_logger_gets_no_node_but_stays_in_the_namespace() -> None:
    _, right = _assignment_sides(_statements(LLAMA_INDEX_LOGGER)[1])
    assert creates_logger(right)
    _, constant = _assignment_sides(_statements(LLAMA_INDEX_LOGGER)[2])
    assert not creates_logger(constant) and not creates_logger(None)
    result = parse_python_source(
        LLAMA_INDEX_LOGGER, "llama_index/retrievers/bm25/base.py", "llama_index.retrievers.bm25"
    )
    assert [n.metadata["symbol"] for n in result.nodes] == [
        "llama_index.retrievers.bm25.DEFAULT_PERSIST_FILENAME"
    ]
    assert result.namespace.defines["logger"] == "assignment"
