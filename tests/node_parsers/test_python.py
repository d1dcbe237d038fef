"""The tree-sitter Python parser: symbols, signatures, spans, namespaces, errors."""

from __future__ import annotations

from codecite.node_parsers.python import module_name_for, parse_python_source

SOURCE = '''"""Tools for surveys."""
from .x import y as z, w
from . import sub
import os.path
__all__ = ["z", "Agent"]

LIMIT = 3
"""Largest window."""
_hidden = 1


@register("agent")
class Agent(Base):
    """Runs a step."""

    size: int = 3

    def __init__(self, line, /, window: int = 5, *args, method="ama", **kw) -> None:
        self.line = line

    @property
    def factor(self) -> float:
        """The factor."""
        return 1.0

    @factor.setter
    def factor(self, value):
        pass

    def _private(self):
        pass

    class Options:
        def check(self):
            """Check."""


async def fetch(url: str, *, timeout=3) -> bytes:
    """Fetch it."""


def _helper():
    pass
'''


def _by_symbol(result):
    out = {}
    for node in result.nodes:
        out.setdefault(node.metadata["symbol"], []).append(node)
    return out


def test_symbols_kinds_and_spans() -> None:
    result = parse_python_source(SOURCE, "src/pkg/mod.py", "pkg.mod")
    nodes = _by_symbol(result)
    assert set(nodes) == {
        "pkg.mod",
        "pkg.mod.LIMIT",
        "pkg.mod.Agent",
        "pkg.mod.Agent.__init__",
        "pkg.mod.Agent.factor",
        "pkg.mod.Agent.Options",
        "pkg.mod.Agent.Options.check",
        "pkg.mod.fetch",
    }
    agent = nodes["pkg.mod.Agent"][0].metadata
    assert (agent["kind"], agent["start_line"], agent["end_line"]) == ("python_symbol", 12, 35)
    assert agent["decorators"] == ['register("agent")']
    assert agent["signature"] == 'Agent(line, /, window: int = 5, *args, method="ama", **kw)'
    assert nodes["pkg.mod.Agent.Options.check"][0].metadata["kind"] == "python_method"
    assert nodes["pkg.mod.LIMIT"][0].metadata["docstring"] == "Largest window."


def test_parameters_carry_kinds_defaults_and_annotations() -> None:
    nodes = _by_symbol(parse_python_source(SOURCE, "pkg/mod.py", "pkg.mod"))
    params = {p["name"]: p for p in nodes["pkg.mod.Agent.__init__"][0].metadata["params"]}
    assert params["line"]["kind"] == "positional_only"
    assert params["window"] == {
        "name": "window",
        "annotation": "int",
        "default": "5",
        "kind": "positional_or_keyword",
    }
    assert params["args"]["kind"] == "var_positional"
    assert params["method"]["kind"] == "keyword_only" and params["method"]["default"] == '"ama"'
    assert params["kw"]["kind"] == "var_keyword"
    fetch = nodes["pkg.mod.fetch"][0].metadata
    assert fetch["signature"] == "async fetch(url: str, *, timeout=3) -> bytes"
    assert fetch["returns"] == "bytes"
    assert [p["kind"] for p in fetch["params"]] == ["positional_or_keyword", "keyword_only"]


def test_property_pair_shares_a_name_but_not_an_id() -> None:
    nodes = _by_symbol(parse_python_source(SOURCE, "pkg/mod.py", "pkg.mod"))
    getter, setter = nodes["pkg.mod.Agent.factor"]
    assert getter.node_id != setter.node_id
    assert getter.metadata["symbol_type"] == setter.metadata["symbol_type"] == "property"


def test_class_node_holds_header_doc_and_method_signatures_not_bodies() -> None:
    nodes = _by_symbol(parse_python_source(SOURCE, "pkg/mod.py", "pkg.mod"))
    text = nodes["pkg.mod.Agent"][0].get_content()
    assert "class Agent(Base)" in text and "Runs a step." in text
    assert "factor(self) -> float" in text
    assert "self.line = line" not in text and "return 1.0" not in text


def test_private_names_are_skipped_unless_asked() -> None:
    plain = _by_symbol(parse_python_source(SOURCE, "pkg/mod.py", "pkg.mod"))
    assert not any(
        s.rsplit(".", 1)[-1].startswith("_") and not s.endswith("__init__") for s in plain
    )
    private = _by_symbol(parse_python_source(SOURCE, "pkg/mod.py", "pkg.mod", include_private=True))
    assert {"pkg.mod._helper", "pkg.mod.Agent._private", "pkg.mod._hidden"} <= set(private)


def test_namespace_records_imports_all_and_definitions() -> None:
    ns = parse_python_source(SOURCE, "pkg/mod.py", "pkg.mod").namespace
    assert ns.imports == {"z": "pkg.x.y", "w": "pkg.x.w", "sub": "pkg.sub", "os": "os"}
    assert ns.all_names == ["z", "Agent"]
    assert ns.defines["Agent"] == "class" and ns.defines["_helper"] == "function"
    package = parse_python_source("from .a import b\n", "pkg/__init__.py", "pkg").namespace
    assert package.is_package and package.imports == {"b": "pkg.a.b"}


def test_a_private_module_does_not_rebind_a_name_a_public_one_bound() -> None:
    """dask.array binds ``from_array`` from ``core``, then again from ``_array_expr`` in a
    branch that is off by default: the public binding is the one kept; among private or
    among public bindings, the last one still wins, as Python runs them."""
    source = (
        "from pkg.core import from_array, Array\n"
        "from pkg._shim import helper\n"
        "if planning_enabled():\n"
        "    from pkg._array_expr import from_array, Array\n"
        "    from pkg._fast import helper\n"
        "from pkg.compat import Array\n"
    )
    ns = parse_python_source(source, "pkg/array/__init__.py", "pkg.array").namespace
    assert ns.imports == {
        "from_array": "pkg.core.from_array",
        "Array": "pkg.compat.Array",
        "helper": "pkg._fast.helper",
    }


def test_instance_attributes_are_what_methods_set_on_self() -> None:
    source = (
        "class Model:\n"
        "    def __init__(self, func):\n"
        "        self.func = func\n"
        "        self.opts: dict = {}\n"
        "        setattr(self, 'extra', 1)\n"
        "        self.count += 1\n"
        "    def same(self, other):\n"
        "        return self.func == other\n"
    )
    ns = parse_python_source(source, "pkg/model.py", "pkg.model").namespace
    assert ns.instance_attributes == {"Model": ["extra", "func", "opts"]}


def test_syntax_errors_keep_the_other_symbols() -> None:
    broken = (
        "def ok():\n    '''Fine.'''\n\ndef bad(:\n    pass\n\n"
        "class After:\n    def go(self):\n        pass\n"
    )
    result = parse_python_source(broken, "pkg/b.py", "pkg.b")
    assert result.partial and result.error_lines
    assert {"pkg.b.ok", "pkg.b.After", "pkg.b.After.go"} <= set(_by_symbol(result))


def test_module_names_follow_layout_and_package_dirs() -> None:
    assert module_name_for("src/pkg/a/b.py") == "pkg.a.b"
    assert module_name_for("pkg/__init__.py") == "pkg"
    assert module_name_for("plugin/config.py", {"codecite": "plugin"}) == "codecite.config"
    assert (
        module_name_for(
            "retrievers/bm25.py", {"codecite": "plugin", "codecite.retrievers": "retrievers"}
        )
        == "codecite.retrievers.bm25"
    )
    assert module_name_for("docs/examples/plot_x.py") == "docs.examples.plot_x"


def test_a_docstring_assigned_after_the_function_is_its_docstring() -> None:
    source = '''
from textwrap import dedent

def violinplot(data=None):
    return data

violinplot.__doc__ = dedent("""\\
    Draw a violin plot.

    {params}
    """).format(params="data: the table")

class Grid:
    """A grid."""

Grid.__doc__ += "Also a layout."
other.__doc__ = "Not ours."
violinplot.__doc__ = violinplot.__doc__
'''
    nodes = {
        n.metadata["symbol"]: n for n in parse_python_source(source, "pkg/cat.py", "pkg.cat").nodes
    }
    plot = nodes["pkg.cat.violinplot"]
    assert plot.metadata["docstring"] == "Draw a violin plot.\n\n{params}"
    assert plot.text.endswith("Draw a violin plot.\n\n{params}")
    assert nodes["pkg.cat.Grid"].metadata["docstring"] == "A grid."  # `+=` is left alone
    assert "Not ours." not in " ".join(n.text for n in nodes.values())


def test_add_newdoc_calls_document_the_symbols_they_name() -> None:
    source = '''
from numpy._core.function_base import add_newdoc

add_newdoc('numpy._core.multiarray', 'zeros',
    """
    zeros(shape, dtype=float)

    Return a new array of given shape and type, filled with zeros.
    ${LIKE}
    """.replace("${LIKE}", like_doc))

add_newdoc('numpy._core.multiarray', 'ndarray', ('sort',
    """
    a.sort(axis=-1)

    Sort an array in-place.
    """))

add_newdoc('numpy._core.multiarray', '_private', """Hidden.""")
add_newdoc(place, name, doc)
'''
    nodes = {
        n.metadata["symbol"]: n
        for n in parse_python_source(
            source, "numpy/_core/_add_newdocs.py", "numpy._core._add_newdocs"
        ).nodes
    }
    zeros = nodes["numpy._core.multiarray.zeros"]
    assert zeros.metadata["kind"] == "python_symbol"
    assert zeros.metadata["signature"] == "zeros(shape, dtype=float)"
    assert "filled with zeros" in zeros.metadata["docstring"] and "filled with zeros" in zeros.text
    assert (zeros.metadata["start_line"], zeros.metadata["end_line"]) == (4, 10)
    sort = nodes["numpy._core.multiarray.ndarray.sort"]
    assert sort.metadata["kind"] == "python_method" and "in-place" in sort.text
    assert not any("_private" in s for s in nodes)
    assert set(nodes) == {"numpy._core.multiarray.zeros", "numpy._core.multiarray.ndarray.sort"}


def test_a_two_argument_add_newdoc_names_a_function_of_the_enclosing_package() -> None:
    source = (
        'add_newdoc("gammainc",\n    """\n    gammainc(a, x, out=None)\n\n'
        '    Regularized lower incomplete gamma function.\n    """)\n'
        'add_newdoc("_private", "x")\n'
    )
    nodes = parse_python_source(
        source, "scipy/special/_add_newdocs.py", "scipy.special._add_newdocs"
    ).nodes
    assert [(n.metadata["symbol"], n.metadata["signature"]) for n in nodes] == [
        ("scipy.special.gammainc", "gammainc(a, x, out=None)")
    ]
    assert "incomplete gamma" in nodes[0].text and nodes[0].metadata["start_line"] == 1


def test_add_newdoc_reads_implicitly_concatenated_strings_as_one_docstring() -> None:
    source = (
        "add_newdoc('pkg.core', 'fill', ('Fill an array. '\n    'Every element gets one value.'))\n"
    )
    (node,) = parse_python_source(source, "pkg/_docs.py", "pkg._docs").nodes
    assert node.metadata["symbol"] == "pkg.core.fill"  # parentheses only group the strings
    assert node.metadata["docstring"] == "Fill an array. Every element gets one value."


API_AND_NOT = '''
from typing import overload

try:
    import fcntl
except ImportError:
    fcntl = None

if WINDOWS:
    SEP = "\\\\"
else:
    SEP = "/"

DEFAULT = 3


@overload
def get(x: int) -> int: ...
@overload  # type: ignore[misc]  (a comment after it: pydantic's ``Field`` stubs)
def get(x: str) -> str: ...
def get(x):
    """Get by key or by position."""


class Box:
    @overload
    def pick(self, i: int) -> int: ...
    @overload
    def pick(self, i: str) -> str:
        """A documented overload stays."""
    def pick(self, i):
        return i


if sys.platform == "win32":
    def console_width():
        """Width of the Windows console."""


if __name__ == "__main__":
    console = Box()

    def demo():
        """Show it."""
'''


def test_scripts_fallbacks_and_overload_stubs_are_not_api_nodes() -> None:
    result = parse_python_source(API_AND_NOT, "pkg/mod.py", "pkg.mod")
    symbols = [n.metadata["symbol"] for n in result.nodes]
    assert "pkg.mod.DEFAULT" in symbols and "pkg.mod.console_width" in symbols
    for gone in ("pkg.mod.fcntl", "pkg.mod.SEP", "pkg.mod.console", "pkg.mod.demo"):
        assert gone not in symbols, gone
    assert symbols.count("pkg.mod.get") == 1  # the implementation, not the stubs
    assert symbols.count("pkg.mod.Box.pick") == 2  # the documented overload and the body
    defines = result.namespace.defines
    assert {"fcntl", "SEP", "DEFAULT", "get", "Box"} <= set(defines)  # still module names
    assert "console" not in defines and "demo" not in defines  # only when run as a script


def test_a_byte_order_mark_changes_nothing() -> None:
    """Some packages save modules with a UTF-8 byte-order mark (xmlschema 4.3.2 has six):
    the docstring, symbols, lines and texts are those of the file without it."""
    plain = parse_python_source(SOURCE, "src/pkg/mod.py", "pkg.mod")
    marked = parse_python_source("\ufeff" + SOURCE, "src/pkg/mod.py", "pkg.mod")
    as_bytes = parse_python_source(b"\xef\xbb\xbf" + SOURCE.encode(), "src/pkg/mod.py", "pkg.mod")
    for result in (marked, as_bytes):
        assert [(n.text, n.metadata) for n in result.nodes] == [
            (n.text, n.metadata) for n in plain.nodes
        ]
        assert not any("\ufeff" in n.text for n in result.nodes)


def test_a_signature_leaves_out_the_comments_of_its_parameter_list() -> None:
    """nilearn's ``find_cut_coords(cls, img=None,  # noqa: ARG003`` read as if the next
    parameters were commented out."""
    source = (
        "def find_cut_coords(\n    img=None,  # noqa: ARG003\n    threshold=None,  # keep '#'\n"
        "    label='#1',\n) -> list:\n    '''Find.'''\n"
    )
    [node] = parse_python_source(source, "pkg/m.py", "pkg.m").nodes
    signature = "find_cut_coords(img=None, threshold=None, label='#1') -> list"
    assert node.metadata["signature"] == signature
    assert "noqa" not in node.get_content() and "label='#1'" in node.get_content()


def test_a_class_docstring_assigned_as_a_template_is_its_docstring() -> None:
    """statsmodels assigns ``__doc__`` a template with ``.format(...)``, or an f-string, in
    62 classes (``OLS``, ``Poisson``): their nodes had no docstring."""
    source = (
        "class Poisson:\n"
        '    __doc__ = """\n    Poisson Model\n\n    {params}\n\n    Attributes\n    ---\n'
        '    endog : ndarray\n    """.format(params=DOC)\n\n'
        "class OLS:\n"
        '    __doc__ = f"""\n    Ordinary Least Squares\n\n    {base.params_doc}\n    """\n\n'
        "class Plain:\n    __doc__ = TEMPLATE\n"
    )
    docs = {
        n.metadata["symbol"]: n.metadata["docstring"]
        for n in parse_python_source(source, "pkg/m.py", "pkg.m").nodes
    }
    assert docs["pkg.m.Poisson"] == "Poisson Model\n\nAttributes\n---\nendog : ndarray"
    assert docs["pkg.m.OLS"] == "Ordinary Least Squares"
    assert docs["pkg.m.Plain"] == ""  # a name, not a literal: nothing to read


def test_a_class_signature_leaves_out_the_instance_whatever_it_is_called() -> None:
    """sqlmodel's card read ``SQLModel(__pydantic_self__, **data: Any)``: the first
    parameter of ``__init__`` is the instance, by any name; ``*args`` is no instance."""
    source = (
        "class SQLModel:\n    def __init__(__pydantic_self__, **data: Any) -> None:\n        pass\n"
        "class Meta(type):\n    def __new__(mcs, name, bases):\n        pass\n"
        "class Loose:\n    def __init__(*args, **kw):\n        pass\n"
    )
    nodes = parse_python_source(source, "pkg/m.py", "pkg.m").nodes
    signatures = {n.metadata["symbol"]: n.metadata.get("signature") for n in nodes}
    assert signatures["pkg.m.SQLModel"] == "SQLModel(**data: Any)"
    assert signatures["pkg.m.Meta"] == "Meta(name, bases)"
    assert signatures["pkg.m.Loose"] == "Loose(*args, **kw)"


def test_a_dataclass_card_shows_its_fields_and_a_class_without_init_its_header() -> None:
    """textual's ``Notification`` dataclass showed no parameters, and its ``Notify`` message
    (no ``__init__``) showed ``Notify(Message, bubble=False)``, its bases written as a call."""
    source = (
        "@dataclass\nclass Notification:\n    message: str\n    title: str = ''\n"
        "    timeout: float | None = None\n    raised_at: float = field(default_factory=time)\n"
        "    _token: ClassVar[int] = 0\n\n"
        "@dataclass\nclass Loud(Notification):\n    volume: int = 3\n\n"
        "class Notify(Message, bubble=False):\n    pass\n"
    )
    nodes = parse_python_source(source, "pkg/m.py", "pkg.m").nodes
    meta = {n.metadata["symbol"]: n.metadata for n in nodes}
    assert meta["pkg.m.Notification"]["signature"] == (
        "Notification(message: str, title: str = '', timeout: float | None = None, "
        "raised_at: float = field(default_factory=time))"
    )
    assert [p["name"] for p in meta["pkg.m.Notification"]["params"]] == [
        "message",
        "title",
        "timeout",
        "raised_at",
    ]
    # fields it inherits are not in this file's reading: its header, honestly
    assert meta["pkg.m.Loud"]["signature"] == "class Loud(Notification)"
    assert meta["pkg.m.Notify"]["signature"] == "class Notify(Message, bubble=False)"
