"""Generated-code validation against the ``valpkg`` fixture, statically.

The table is built from the fixture's files with the real Python parser, so
these tests also pin what the validator can and cannot prove from parsed
metadata alone.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import codecite
from codecite.node_parsers.python import module_name_for, parse_python_source
from codecite.store.symbols import SymbolTable
from codecite.validation.checker import validate_generated_code

FIXTURES = Path(__file__).parent / "fixtures"


def build_table(root: Path = FIXTURES, package: str = "valpkg") -> SymbolTable:
    namespaces, metadata = [], []
    for path in sorted([*(root / package).rglob("*.py"), *(root / package).rglob("*.pyi")]):
        rel = path.relative_to(root).as_posix()
        parsed = parse_python_source(path.read_text(encoding="utf-8"), rel, module_name_for(rel))
        namespaces.append(parsed.namespace.to_json())
        metadata.extend(n.metadata for n in parsed.nodes)
    return SymbolTable.from_parts(namespaces, metadata)


def package_table(root: Path, files: dict[str, str]) -> SymbolTable:
    """The table of a package written from ``files`` (path under ``root`` -> source)."""
    for rel, source in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(source)
    return build_table(root, next(iter(files)).split("/")[0])


@pytest.fixture(scope="module")
def table() -> SymbolTable:
    return build_table()


@pytest.fixture
def forget_valpkg():
    """Drop any ``valpkg`` modules a test imported, before and after it."""

    def purge() -> None:
        for name in [m for m in sys.modules if m == "valpkg" or m.startswith("valpkg.")]:
            del sys.modules[name]

    purge()
    yield
    purge()


# -- the two examples of docs/validation.md, on the fixture -----------------------
def test_doc_example_missing_top_level_name(table):
    result = validate_generated_code("from valpkg import static_shift\n", table)
    core = {k: result[k] for k in ("ok", "syntax_ok", "errors", "warnings", "checked")}
    assert core == {
        "ok": False,
        "syntax_ok": True,
        "errors": [
            "'valpkg' has no attribute or submodule 'static_shift' (did you mean "
            "`valpkg.agents.static_shift` or `valpkg.agents.static_shift.StaticShiftAgent`?)"
        ],
        "warnings": [],
        "checked": [],
    }
    assert result["findings"] == [
        {
            "line": 1,
            "level": "error",
            "symbol": "valpkg.static_shift",
            "message": "'valpkg' has no attribute or submodule 'static_shift' (did you mean "
            "`valpkg.agents.static_shift` or `valpkg.agents.static_shift.StaticShiftAgent`?)",
            "suggestions": [
                "valpkg.agents.static_shift",
                "valpkg.agents.static_shift.StaticShiftAgent",
            ],
        }
    ]


def test_doc_example_real_symbol(table):
    result = validate_generated_code("from valpkg.agents import StaticShiftAgent\n", table)
    assert result == {
        "ok": True,
        "syntax_ok": True,
        "errors": [],
        "warnings": [],
        "checked": ["valpkg.agents.StaticShiftAgent"],
        "findings": [],
        "import_checked": [],
    }


# -- table-driven cases -----------------------------------------------------------
AGENT = "from valpkg.agents import StaticShiftAgent\n"
UTIL = "from valpkg.util import smooth, plot, fetch, station_table, scale\n"

CASES = [
    # imports: absolute, aliases, re-exports, submodules
    ("absolute_submodule_import", "import valpkg.agents.static_shift\n", [], []),
    (
        "import_missing_module",
        "import valpkg.made_up\n",
        ["no module named 'valpkg.made_up'"],
        [],
    ),
    (
        "from_missing_module",
        "from valpkg.made_up import x\n",
        ["no module named 'valpkg.made_up'"],
        [],
    ),
    (
        "import_of_a_class_is_not_a_module",
        "import valpkg.Survey\n",
        ["'valpkg.Survey' is not a module"],
        [],
    ),
    (
        "typo_suggests_real_name",
        "from valpkg.agents import StaticShiftAgnt\n",
        [
            "'valpkg.agents' has no attribute or submodule 'StaticShiftAgnt' "
            "(did you mean `StaticShiftAgent`, `LegacyShiftAgent` or `static_shift`?)"
        ],
        [],
    ),
    ("alias_of_reexport", "from valpkg import Survey as S\nS(name='line3')\n", [], []),
    (
        "reexport_from_private_module",
        "from valpkg import load_survey\nload_survey('a.yaml', strict=True)\n",
        [],
        [],
    ),
    (
        "module_alias_then_attribute",
        "import valpkg.agents.static_shift as ss\nss.StaticShiftAgent(None)\nss.missing_fn()\n",
        ["'valpkg.agents.static_shift' has no attribute or submodule 'missing_fn'"],
        [],
    ),
    (
        "dotted_chain_typo",
        "import valpkg\nvalpkg.agnts.StaticShiftAgent\n",
        ["'valpkg' has no attribute or submodule 'agnts' (did you mean `agents`?)"],
        [],
    ),
    (
        "other_packages_left_alone",
        "import numpy as np\nfrom os import path\nnp.nothing()\n",
        [],
        [],
    ),
    # star imports and dynamic modules
    (
        "script_star_import_binds_names",
        "from valpkg.agents import *\nStaticShiftAgent(None, windw=2)\n",
        [
            "valpkg.agents.StaticShiftAgent() got an unexpected keyword argument 'windw' "
            "(did you mean `window`?)"
        ],
        [],
    ),
    ("package_star_import_followed", "from valpkg.compat import smooth\n", [], []),
    (
        "package_star_import_respects_all",
        "from valpkg.geo import Station, dataclass\n",
        ["'valpkg.geo' has no attribute or submodule 'dataclass'"],
        [],
    ),
    (
        "star_import_outside_package_is_warning",
        "from valpkg.compat import floor\n",
        [],
        [
            "'valpkg.compat.floor' cannot be verified statically: "
            "'valpkg.compat' star-imports 'math' (outside the index)"
        ],
    ),
    (
        "star_import_of_unindexed_module_is_warning",
        "from valpkg.shapes import area\n",
        [],
        [
            "'valpkg.shapes.area' cannot be verified statically: "
            "'valpkg.shapes' star-imports 'valpkg._speedups'"
        ],
    ),
    (
        "unindexed_module_is_warning",
        "import valpkg._speedups\n",
        [],
        [
            "'valpkg._speedups' cannot be verified statically: "
            "the package imports it but it is not indexed"
        ],
    ),
    (
        "module_getattr_is_warning",
        "from valpkg.lazy import fancy_filter, eager_filter\n",
        [],
        [
            "'valpkg.lazy.fancy_filter' cannot be verified statically: "
            "'valpkg.lazy' defines a module __getattr__ that answers it at run time"
        ],
    ),
    # conditional and type-checking imports
    (
        "guarded_import_is_warning",
        "try:\n    from valpkg.fast import smooth\nexcept ImportError:\n"
        "    from valpkg.util import smooth\n",
        [],
        ["no module named 'valpkg.fast' (guarded by try/except ImportError)"],
    ),
    (
        "type_checking_block_checked",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from valpkg.agents import StaticShiftAgent, Agent\n",
        ["'valpkg.agents' has no attribute or submodule 'Agent' (did you mean `BaseAgent`?)"],
        [],
    ),
    # call signatures
    (
        "unknown_keyword",
        AGENT + "StaticShiftAgent(None, windw=3)\n",
        [
            "valpkg.agents.StaticShiftAgent() got an unexpected keyword argument 'windw' "
            "(did you mean `window`?)"
        ],
        [],
    ),
    (
        "missing_required",
        UTIL + "smooth(width=2)\n",
        ["valpkg.util.smooth() missing required argument 'data'"],
        [],
    ),
    (
        "too_many_positional",
        UTIL + "smooth([1], 3, 'median')\n",
        ["valpkg.util.smooth() takes 2 positional arguments but 3 were given"],
        [],
    ),
    ("star_args_not_counted", UTIL + "args = [1, 2, 3]\nsmooth(*args)\nsmooth(**{})\n", [], []),
    (
        "kwargs_pass_through_is_warning",
        UTIL + "plot([1], title='t', color='r')\n",
        [],
        ["valpkg.util.plot() has no parameter 'color'; it goes to **style and cannot be verified"],
    ),
    (
        "unknown_decorator_is_warning",
        UTIL + "fetch('u', retries=3)\n",
        [],
        [
            "valpkg.util.fetch() got an unexpected keyword argument 'retries' "
            "(not certain: decorated with @retry(3))"
        ],
    ),
    (
        "signature_keeping_decorator_is_error",
        UTIL + "station_table('a', 'b')\n",
        ["valpkg.util.station_table() takes 1 positional argument but 2 were given"],
        [],
    ),
    (  # the typing stubs are no nodes: calls bind against the implementation
        "overload_checks_the_implementation",
        UTIL + "scale(1.0, 2.0)\nscale(1.0, 2.0, 3.0)\n",
        ["valpkg.util.scale() takes 2 positional arguments but 3 were given"],
        [],
    ),
    (
        "positional_only_as_keyword",
        AGENT + "a = StaticShiftAgent(None)\na.correct(data=[1])\n",
        [
            "valpkg.agents.StaticShiftAgent.correct() got positional-only argument 'data' "
            "passed as keyword"
        ],
        [],
    ),
    (
        "staticmethod_and_classmethod",
        AGENT + "StaticShiftAgent.available_methods()\nStaticShiftAgent.from_config('p', 2)\n",
        [
            "valpkg.agents.StaticShiftAgent.from_config() takes 1 positional argument "
            "but 2 were given"
        ],
        [],
    ),
    # constructors: __init__, inherited, dataclasses, attrs, class decorators
    (
        "inherited_constructor",
        "from valpkg.agents import LegacyShiftAgent\n"
        "LegacyShiftAgent(None, window=3, method='tma', verbose=True)\n",
        ["valpkg.agents.LegacyShiftAgent() got an unexpected keyword argument 'verbose'"],
        [],
    ),
    (
        "dataclass_fields",
        "from valpkg.geo import Station\nStation('s1', 1.0, tags=['a'])\nStation('s2', index=3)\n",
        [
            "valpkg.geo.Station() got an unexpected keyword argument 'index'",
            "valpkg.geo.Station() missing required argument 'x'",
        ],
        [],
    ),
    (
        "kw_only_dataclass",
        "from valpkg import Survey\nSurvey('line3')\n",
        [
            "valpkg.Survey() takes 0 positional arguments but 1 was given",
            "valpkg.Survey() missing required argument 'name'",
        ],
        [],
    ),
    (
        "attrs_private_field_name",
        "from valpkg.records import Reading\nReading('s1', value=2.0)\nReading('s1', _value=2.0)\n",
        [
            "valpkg.records.Reading() got an unexpected keyword argument '_value' "
            "(did you mean `value`?)"
        ],
        [],
    ),
    (
        "class_decorator_makes_warning",
        "from valpkg.records import Plugin\nPlugin()\n",
        [],
        [
            "valpkg.records.Plugin() missing required argument 'name' "
            "(not certain: decorated with @register)"
        ],
    ),
    # methods on instances
    (
        "instance_method_missing",
        AGENT + "a = StaticShiftAgent(None)\na.run('S01')\na.describe()\na.no_such_method()\n",
        [  # ``self.method`` is set in __init__: an attribute, the close name
            "'valpkg.agents.StaticShiftAgent' object has no attribute 'no_such_method' "
            "(did you mean `method`?)"
        ],
        [],
    ),
    (
        "instance_method_typo_and_args",
        AGENT + "a = StaticShiftAgent(None)\na.rn('S01')\na.run()\n",
        [
            "'valpkg.agents.StaticShiftAgent' object has no attribute 'rn' (did you mean `run`?)",
            "valpkg.agents.StaticShiftAgent.run() missing required argument 'station'",
        ],
        [],
    ),
    (
        "instance_attributes_not_provable",
        AGENT + "a = StaticShiftAgent(None)\nprint(a.window, a.label)\n",
        [],
        [],
    ),
    (
        "base_outside_package_not_provable",
        "from valpkg.agents import ShiftTable\nt = ShiftTable()\nt.best()\nt.keys()\n",
        [],
        [],
    ),
    (
        "rebinding_forgets_instance",
        AGENT + "a = StaticShiftAgent(None)\na = object()\na.anything()\n",
        [],
        [],
    ),
    (
        "function_parameter_shadows",
        AGENT + "a = StaticShiftAgent(None)\ndef f(a):\n    return a.anything()\n",
        [],
        [],
    ),
    (
        "chained_call_on_constructed_instance",
        "import valpkg.agents.base as base\n"
        "base.BaseAgent('n').describe()\nbase.BaseAgent('n').dscribe()\n",
        [
            "'valpkg.agents.base.BaseAgent' object has no attribute 'dscribe' "
            "(did you mean `describe`?)"
        ],
        [],
    ),
    # relative imports need the script's module
    (
        "relative_import_without_module",
        "from .agents import StaticShiftAgent\n",
        [],
        [
            "relative import '.agents' cannot be resolved: the script's module is unknown "
            "(pass module=...)"
        ],
    ),
]


@pytest.mark.parametrize(
    ("code", "errors", "warnings"), [pytest.param(c, e, w, id=i) for i, c, e, w in CASES]
)
def test_cases(table, code, errors, warnings):
    result = validate_generated_code(code, table)
    assert result["syntax_ok"] is True
    assert result["errors"] == errors
    assert result["warnings"] == warnings
    assert result["ok"] is (not errors)


@pytest.mark.parametrize(
    ("code", "module", "errors"),
    [
        ("from ..agents import StaticShiftAgent\n", "valpkg.scripts.run", []),
        (
            "from . import agents, nothing\n",
            "valpkg.run",
            ["'valpkg' has no attribute or submodule 'nothing'"],
        ),
        ("from .static_shift import ShiftResult\n", "valpkg.agents.gen", []),
    ],
)
def test_relative_imports_with_module(table, code, module, errors):
    assert validate_generated_code(code, table, module=module)["errors"] == errors


@pytest.mark.parametrize(
    ("code", "line", "detail"),
    [
        ("import valpkg\n\ndef f(:\n    pass\n", 3, "invalid syntax"),
        ("x = (1,\n", 1, "was never closed"),
    ],
)
def test_syntax_errors(table, code, line, detail):
    result = validate_generated_code(code, table)
    assert result["syntax_ok"] is False and result["ok"] is False
    assert len(result["errors"]) == 1
    assert result["errors"][0].startswith(f"syntax error at line {line}: ")
    assert detail in result["errors"][0]
    assert result["findings"][0]["line"] == line


def test_findings_carry_line_symbol_and_suggestions(table):
    code = "import valpkg\n\nx = 1\nvalpkg.agents.StaticShiftAgnt\n"
    [finding] = validate_generated_code(code, table)["findings"]
    assert finding == {
        "line": 4,
        "level": "error",
        "symbol": "valpkg.agents.StaticShiftAgnt",
        "message": "'valpkg.agents' has no attribute or submodule 'StaticShiftAgnt' "
        "(did you mean `StaticShiftAgent`, `LegacyShiftAgent` or `static_shift`?)",
        "suggestions": ["StaticShiftAgent", "LegacyShiftAgent", "static_shift"],
    }


def test_checked_lists_names_as_used(table):
    code = (
        "import valpkg.agents.static_shift as ss\n"
        "from valpkg import load_survey\n"
        "agent = ss.StaticShiftAgent(load_survey('p'))\nagent.run('S01')\n"
    )
    assert validate_generated_code(code, table)["checked"] == [
        "valpkg.agents.static_shift",
        "valpkg.load_survey",
        "valpkg.agents.static_shift.StaticShiftAgent",
        "valpkg.agents.static_shift.StaticShiftAgent.run",
    ]


def test_index_object_with_symbol_table_and_package_filter(table):
    @dataclass
    class Index:
        symbol_table: SymbolTable

    code = "from valpkg import static_shift\n"
    assert not validate_generated_code(code, Index(table))["ok"]
    assert validate_generated_code(code, Index(table), package="otherpkg")["ok"]
    other = validate_generated_code("import otherpkg.x\n", table, package=["valpkg", "otherpkg"])
    assert other["warnings"] == [
        "'otherpkg' cannot be verified statically: 'otherpkg' is not in the index"
    ]


def test_without_a_table_nothing_is_claimed():
    result = validate_generated_code("from valpkg import static_shift\n")
    assert result["ok"] is True and result["checked"] == []
    assert result["warnings"] == [
        "no symbol table given: nothing was checked against the package (pass index=)"
    ]


def test_static_mode_never_imports_the_project(table, tmp_path, monkeypatch, forget_valpkg):
    marker = tmp_path / "boom-marker"
    monkeypatch.setenv("VALPKG_BOOM_MARKER", str(marker))
    monkeypatch.syspath_prepend(str(FIXTURES))
    code = (
        "import valpkg.boom\nfrom valpkg.boom import detonate\n"
        "from valpkg.lazy import fancy_filter\ndetonate()\n"
    )
    result = validate_generated_code(code, table)
    assert result["ok"] is True
    assert result["checked"] == ["valpkg.boom", "valpkg.boom.detonate"]
    assert not marker.exists()
    assert "valpkg" not in sys.modules and "valpkg.boom" not in sys.modules


def test_import_check_settles_what_the_table_cannot(table, monkeypatch, forget_valpkg):
    monkeypatch.syspath_prepend(str(FIXTURES))
    code = "from valpkg.lazy import fancy_filter, eager_filter\nfrom valpkg.lazy import gone\n"
    static = validate_generated_code(code, table)
    # `gone` is provably absent without importing: valpkg.lazy's __getattr__ answers
    # only `fancy_filter` (then raises AttributeError); `fancy_filter` needs the import
    gone = "'valpkg.lazy' has no attribute or submodule 'gone'"
    assert len(static["warnings"]) == 1 and static["import_checked"] == []
    assert static["errors"] == [gone]
    checked = validate_generated_code(code, table, import_check=True)
    assert checked["import_checked"] == ["valpkg.lazy.fancy_filter"]
    assert checked["checked"] == ["valpkg.lazy.eager_filter", "valpkg.lazy.fancy_filter"]
    assert checked["warnings"] == []
    assert checked["errors"] == [gone]


def test_a_base_written_as_module_attribute_is_resolved_like_an_imported_one(tmp_path):
    """``class Node(abc.ABC)`` after ``import abc`` adds no members, as ``class Node(ABC)``
    after ``from abc import ABC`` does: a misspelt method of a subclass is an error."""
    table = package_table(
        tmp_path,
        {
            "abcpkg/__init__.py": "from .graph import Graph\n",
            "abcpkg/graph.py": (
                "import abc\nimport typing\n\nT = typing.TypeVar('T')\n\n\n"
                "class Node(abc.ABC):\n    def n3(self):\n        return ''\n\n\n"
                "class Graph(Node, typing.Generic[T]):\n"
                "    def serialize(self):\n        return ''\n"
            ),
        },
    )
    code = "import abcpkg\ng = abcpkg.Graph()\ng.n3()\ng.serialise()\nabcpkg.Graph.serialize()\n"
    result = validate_generated_code(code, table)
    [finding] = result["findings"]
    assert finding["line"] == 4 and finding["level"] == "error"
    assert finding["symbol"] == "abcpkg.Graph.serialise"
    assert finding["suggestions"][0] == "serialize"
    assert "abcpkg.Graph.n3" in result["checked"]
    # a base from any other library may add members: nothing is claimed about them
    (tmp_path / "abcpkg" / "graph.py").write_text(
        "import json\n\n\nclass Graph(json.JSONEncoder):\n    pass\n"
    )
    assert validate_generated_code(code, build_table(tmp_path, "abcpkg"))["errors"] == []


def test_a_module_level_instance_is_checked_as_its_class(tmp_path):
    """sunpy's ``Fido = UnifiedDownloaderFactory(...)``: ``Fido.fecth(...)`` passed unchecked
    while the same typo on the class was an error."""
    table = package_table(
        tmp_path,
        {
            "fidopkg/__init__.py": "from .factory import Fido\n",
            "fidopkg/factory.py": (
                "class Factory:\n    def fetch(self, *results, path=None):\n        return []\n\n\n"
                "Fido = Factory()\nlimit = int('3')\n"
            ),
        },
    )
    code = (
        "from fidopkg import Fido\nimport fidopkg.factory as f\n"
        "Fido.fetch(1, path='x')\nFido.fecth(1)\nFido.fetch(pth='x')\nf.limit.bit_length()\n"
    )
    result = validate_generated_code(code, table)
    assert [(x["line"], x["level"]) for x in result["findings"]] == [(4, "error"), (5, "error")]
    assert result["findings"][0]["suggestions"][0] == "fetch"
    assert "fidopkg.Fido.fetch" in result["checked"]  # `limit` holds no class: not checked


def test_an_instance_of_a_class_with_getattr_may_have_any_attribute(tmp_path):
    """A class defining ``__getattr__`` (or a subclass of one) answers any name: calling
    one is no error, on an instance made in the script or at module level."""
    table = package_table(
        tmp_path,
        {
            "dynpkg/__init__.py": "from .m import Proxy, Remote, Strict\n",
            "dynpkg/m.py": (
                "class Remote:\n    def __getattr__(self, name):\n        return name\n\n"
                "    def close(self):\n        return None\n\n\n"
                "class Child(Remote):\n    pass\n\n\n"
                "class Strict:\n    def close(self):\n        return None\n\n\n"
                "Proxy = Child()\n"
            ),
        },
    )
    code = (
        "from dynpkg import Proxy, Remote, Strict\n"
        "Remote().anything()\nProxy.other()\nStrict().closee()\n"
    )
    assert validate_generated_code(code, table)["errors"] == [
        "'dynpkg.Strict' object has no attribute 'closee' (did you mean `close`?)"
    ]


def test_class_keywords_and_an_indexed_metaclass_leave_instance_members_known(tmp_path):
    """textual: ``App().push_screan()`` passed as ok, because its ``MessagePump`` base names
    a metaclass of textual's own and widgets pass class keywords (``can_focus=True``);
    neither adds members to instances. What the class object gets from its metaclass
    (its ``__getattr__`` too) stays unchecked, and so does a metaclass outside the index."""
    table = package_table(
        tmp_path,
        {
            "tx/__init__.py": "from .m import App, Widget, Loose, Remote\n",
            "tx/m.py": (
                "import enum\n\n"
                "class _Meta(type):\n    pass\n\n\n"
                "class _Dyn(type):\n    def __getattr__(cls, name):\n        return name\n\n\n"
                "class Pump(metaclass=_Meta):\n    def post(self):\n        pass\n\n\n"
                "class Widget(Pump, can_focus=True):\n    def focus(self):\n        pass\n\n\n"
                "class App(Widget, inherit_bindings=False):\n"
                "    def push_screen(self):\n        pass\n\n\n"
                "class Loose(metaclass=enum.EnumMeta):\n    def close(self):\n        pass\n\n\n"
                "class Remote(metaclass=_Dyn):\n    def close(self):\n        pass\n"
            ),
        },
    )
    code = (
        "from tx import App, Widget, Loose, Remote\n"
        "app = App()\napp.push_screen()\napp.focus()\napp.post()\napp.push_screan()\n"
        "Widget().focuss()\nApp.create()\nLoose().closee()\nRemote.anything()\n"
        "Remote().closee()\n"
    )
    assert validate_generated_code(code, table)["errors"] == [
        "'tx.App' object has no attribute 'push_screan' (did you mean `push_screen`?)",
        "'tx.Widget' object has no attribute 'focuss' (did you mean `focus`?)",
        "'tx.Remote' object has no attribute 'closee' (did you mean `close`?)",
    ]


def test_a_class_decorator_may_add_members_so_none_is_claimed_missing(tmp_path):
    """astroquery's ``@async_to_sync`` makes ``query_region`` from ``query_region_async`` at
    run time: ``Vizier.query_region(...)``, the documented call, must not be an error."""
    table = package_table(
        tmp_path,
        {
            "aq/__init__.py": "from .core import Vizier, VizierClass\n",
            "aq/core.py": (
                "def async_to_sync(cls):\n    return cls\n\n\n"
                "class Base(metaclass=_Meta):\n    pass\n\n\n"
                "class _Meta(type):\n    pass\n\n\n"
                "@async_to_sync\nclass VizierClass(Base):\n"
                "    def query_region_async(self, coords):\n        pass\n\n\n"
                "@dataclass\nclass Plain(Base):\n    def run(self):\n        pass\n\n\n"
                "Vizier = VizierClass()\n"
            ),
        },
    )
    code = (
        "from aq import Vizier, VizierClass\nfrom aq.core import Plain\n"
        "Vizier.query_region('m31')\nVizierClass().query_object('m31')\nPlain().runn()\n"
    )
    assert validate_generated_code(code, table)["errors"] == [
        "'aq.core.Plain' object has no attribute 'runn' (did you mean `run`?)"
    ]


def test_a_star_import_of_a_module_that_makes_names_at_run_time_proves_nothing(tmp_path):
    """astropy.units does ``from .si import *``; si makes its units with ``def_unit(...,
    namespace=globals())``: ``u.deg`` was an error (exit 1) and ``u.m`` suggested a name from
    another module. Such a name is a warning, once per line however often it is used."""
    table = package_table(
        tmp_path,
        {
            "unitpkg/__init__.py": "from .si import *\nfrom .core import Unit\n",
            "unitpkg/core.py": (
                "class Unit:\n    pass\n\n\ndef def_unit(name, namespace):\n    pass\n"
            ),
            "unitpkg/si.py": (
                "from .core import def_unit\n\n__all__ = []\n_ns = globals()\n"
                "def_unit('m', namespace=_ns)\n__all__ += sorted(make_all(globals()))\n"
            ),
        },
    )
    result = validate_generated_code("import unitpkg as u\nx = (u.deg, u.deg)\nu.Unitt\n", table)
    assert result["errors"] == []
    assert [(f["line"], f["level"], f["symbol"]) for f in result["findings"]] == [
        (2, "warning", "unitpkg.deg"),  # used twice on the line: one finding
        (3, "warning", "unitpkg.Unitt"),  # si may make that one too
    ]
    why = "'unitpkg' star-imports 'unitpkg.si', which adds names at run time"
    assert why in result["findings"][0]["message"]


def test_example_scripts_are_no_package_to_verify(tmp_path):
    """scikit-learn's gallery: ``from examples.applications.plot_species... import
    create_species_bunch`` was "verified" (no `examples/__init__.py`: it is no package an
    installed scikit-learn has, and an answer's code must not import from it)."""
    (tmp_path / "skpkg").mkdir()
    (tmp_path / "skpkg" / "__init__.py").write_text('"""Kit."""\n\n\ndef fit():\n    pass\n')
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "plot_species.py").write_text("def create_bunch():\n    pass\n")
    codecite.build(tmp_path)
    table = codecite.load(tmp_path).symbol_table
    assert "examples" in table.top_packages
    code = "import examples\nfrom examples.plot_species import create_bunch\n"
    code += "import skpkg\nskpkg.fit()\n"
    result = validate_generated_code(code, table)
    assert result["checked"] == ["skpkg", "skpkg.fit"] and result["errors"] == []


def test_new_is_the_constructor_without_init_and_a_private_base_is_known(tmp_path):
    """sympy's ``Symbol`` takes its arguments in ``__new__``; peewee's ``SqliteDatabase``
    inherits from a private class: both are checked as Python would run them."""
    table = package_table(
        tmp_path,
        {
            "sympkg/__init__.py": "from .core import Basic, Symbol, Rational, Database\n",
            "sympkg/core.py": (
                "def cacheit(f):\n    return f\n\n\n"
                "class Basic:\n    def __new__(cls, *args):\n"
                "        return object.__new__(cls)\n\n\n"
                "class Symbol(Basic):\n    def __new__(cls, name, **assumptions):\n"
                "        return Basic.__new__(cls, name)\n\n    def subs(self, old, new):\n"
                "        return self\n\n\n"
                "class Rational(Basic):\n    @cacheit\n    def __new__(cls, p, q=None):\n"
                "        return Basic.__new__(cls, p, q)\n\n\n"
                "class _Base:\n    closed = True\n\n"
                "    def atomic(self):\n        return self\n\n\n"
                "class Database(_Base):\n    def connect(self, reuse_if_open=False):\n"
                "        return True\n"
            ),
        },
    )
    good = (
        "import sympkg\nx = sympkg.Symbol('x', real=True)\nx.subs(1, 2)\n"
        "r = sympkg.Rational(1, 2, 3, 4)\nb = sympkg.Basic(1, 2)\n"
        "db = sympkg.Database()\ndb.atomic()\ndb.connect(reuse_if_open=True)\n"
    )
    result = validate_generated_code(good, table)
    assert result["errors"] == []
    assert result["warnings"] == [
        "sympkg.Symbol() has no parameter 'real'; it goes to **assumptions and cannot be verified"
    ]
    assert {"sympkg.Database.atomic", "sympkg.Database.connect"} <= set(result["checked"])
    bad = "import sympkg\nsympkg.Symbol()\ndb = sympkg.Database()\ndb.atomc()\n"
    errors = validate_generated_code(bad, table)["errors"]
    assert errors == [
        "sympkg.Symbol() missing required argument 'name'",
        "'sympkg.Database' object has no attribute 'atomc' (did you mean `atomic`?)",
    ]


def test_a_name_bound_in_a_package_shadows_its_submodule(tmp_path):
    """sympy's layout: ``sympy/simplify/__init__.py`` binds ``simplify`` (the function of
    ``sympy/simplify/simplify.py``), so ``sympy.simplify`` imported by the top package is
    the function, as Python binds it, not the module; its call is checked."""
    table = package_table(
        tmp_path,
        {
            "calc/__init__.py": "from .solve import solve\nfrom . import util\n",
            "calc/solve/__init__.py": "from .solve import solve\n",
            "calc/solve/solve.py": "def solve(expr, tol=1e-9, **hints):\n    return expr\n",
            "calc/util.py": "def helper():\n    return 1\n",
        },
    )
    code = "import calc\ncalc.solve(1, tol=2)\ncalc.solve(1, 2, 3)\ncalc.util.helper()\n"
    result = validate_generated_code(code, table)
    assert result["errors"] == ["calc.solve() takes 2 positional arguments but 3 were given"]
    assert "calc.util.helper" in result["checked"]


def test_a_decorated_init_makes_a_constructor_call_uncertain(tmp_path):
    """pynwb's ``@docval`` on ``__init__`` rewrites what the constructor takes: a call
    that does not bind to the written signature is a warning, never an error."""
    table = package_table(
        tmp_path,
        {
            "nwbpkg/__init__.py": "from .io import HDF5IO, Plain\n",
            "nwbpkg/io.py": (
                "def docval(*specs):\n    return lambda f: f\n\n\n"
                "class HDF5IO:\n    @docval({'name': 'path', 'type': str, 'doc': 'the file'},\n"
                "            {'name': 'mode', 'type': str, 'doc': 'r, w or a'})\n"
                "    def __init__(self, **kwargs):\n        self.kwargs = kwargs\n\n\n"
                "class Plain:\n    def __init__(self, **kwargs):\n        self.kwargs = kwargs\n"
            ),
        },
    )
    result = validate_generated_code(
        "import nwbpkg\nnwbpkg.HDF5IO('out.nwb', 'w')\nnwbpkg.Plain('out.nwb')\n", table
    )
    assert result["errors"] == ["nwbpkg.Plain() takes 0 positional arguments but 1 was given"]
    [warning] = result["warnings"]
    assert warning == (
        "nwbpkg.HDF5IO() takes 0 positional arguments but 2 were given "
        "(not certain: decorated with @docval(...))"
    )


def test_a_module_that_adds_names_at_run_time_has_no_provably_absent_name(tmp_path):
    """nilearn's ``plotting/cm.py`` ends with ``globals().update(_cmap_d)``: a name the
    parse cannot list may exist, so using one is a warning, not an error."""
    table = package_table(
        tmp_path,
        {
            "plotpkg/__init__.py": "",
            "plotpkg/cm.py": (
                "_cmap_d = {'black_blue': 1}\n\n\ndef cold_hot():\n    return 2\n\n\n"
                "globals().update(_cmap_d)\n"
            ),
            "plotpkg/fixed.py": "def cold_hot():\n    return 2\n",
        },
    )
    code = "from plotpkg import cm, fixed\ncm.black_blue\ncm.cold_hot()\nfixed.black_blue\n"
    result = validate_generated_code(code, table)
    assert result["errors"] == ["'plotpkg.fixed' has no attribute or submodule 'black_blue'"]
    [warning] = result["warnings"]
    assert "'plotpkg.cm' adds names at run time (globals().update)" in warning


def test_a_decorator_that_only_fills_a_docstring_keeps_the_signature(tmp_path):
    """nilearn's @fill_doc and scanpy's @_doc_params(...) return the function itself with
    its docstring filled in: a wrong keyword is an error, as without them; a decorator
    of any other name still makes it a warning."""
    table = package_table(
        tmp_path,
        {
            "docpkg/__init__.py": "from .api import clean, smooth, Masker, retried\n",
            "docpkg/api.py": (
                "def fill_doc(f):\n    return f\n\n\n"
                "def _doc_params(**kw):\n    return lambda f: f\n\n\n"
                "def retry(f):\n    return f\n\n\n"
                "@fill_doc\ndef clean(signals, detrend=True):\n    return signals\n\n\n"
                "@_doc_params(x='the data')\ndef smooth(img, fwhm=None):\n    return img\n\n\n"
                "@fill_doc\nclass Masker:\n    def __init__(self, mask_img=None):\n"
                "        self.m = mask_img\n\n\n"
                "@retry\ndef retried(n=1):\n    return n\n"
            ),
        },
    )
    code = (
        "import docpkg\ndocpkg.clean([1], detrnd=False)\ndocpkg.smooth(1, fwm=6)\n"
        "docpkg.Masker(mask_im=None)\ndocpkg.retried(m=2)\n"
    )
    result = validate_generated_code(code, table)
    assert [e.split(" got")[0] for e in result["errors"]] == [
        "docpkg.clean()",
        "docpkg.smooth()",
        "docpkg.Masker()",
    ]
    [warning] = result["warnings"]
    assert warning.startswith("docpkg.retried() got an unexpected keyword argument 'm'")


def test_names_a_package_binds_by_chaining_stubbing_or_filling_globals(tmp_path):
    """Three ways correct code was an error: sqlalchemy's dialects bind ``dialect`` in a
    chained assignment; loguru's ``Logger`` exists only in ``__init__.pyi`` (for type
    checkers); alembic's ``op`` hands ``globals()`` to a function that fills it."""
    table = package_table(
        tmp_path,
        {
            "kit/__init__.py": "from . import base, impl\nbase.dialect = dialect = impl.dialect\n",
            "kit/base.py": "dialect = None\n",
            "kit/impl.py": "class dialect:\n    pass\n",
            "kit/logs.py": "class _Logger:\n    def add(self, sink):\n        return 1\n",
            "kit/logs.pyi": "class Logger:\n    def add(self, sink) -> int: ...\n",
            "kit/op.py": "from .proxy import fill\n\nfill(globals(), locals())\n",
            "kit/proxy.py": "def fill(g, l):\n    g['add_column'] = print\n",
        },
    )
    code = (
        "import kit\nfrom kit import logs, op\nkit.dialect()\nlogs.Logger\n"
        "op.add_column('t', 'c')\nkit.dialekt\nlogs.Loggr\n"
    )
    result = validate_generated_code(code, table)
    assert result["errors"] == [
        "'kit' has no attribute or submodule 'dialekt' (did you mean `dialect`?)",
        "'kit.logs' has no attribute or submodule 'Loggr'",
    ]
    warned = "\n".join(result["warnings"])
    assert "'kit.logs' has it only in its type stub" in warned
    assert "'kit.op' adds names at run time (globals() handed to a function)" in warned


def test_calling_an_attribute_a_method_sets_on_self_is_no_missing_method(tmp_path):
    """lmfit's ``Model.__init__`` sets ``self.func = func``; its own examples call
    ``model.func(x)``, which was an error. A misspelt method is still one."""
    table = package_table(
        tmp_path,
        {
            "fitkit/__init__.py": "from .model import Model, Composite\n",
            "fitkit/model.py": (
                "class Model:\n    def __init__(self, func):\n        self.func = func\n\n"
                "    def fit(self, data):\n        return data\n\n\n"
                "class Composite(Model):\n    def eval(self):\n        return 1\n"
            ),
        },
    )
    code = (
        "import fitkit\nm = fitkit.Model(len)\nm.func(1)\nfitkit.Composite(len).func(2)\n"
        "m.fitt(3)\n"
    )
    result = validate_generated_code(code, table)
    assert result["errors"] == [
        "'fitkit.Model' object has no attribute 'fitt' (did you mean `fit`?)"
    ]


def test_a_module_the_build_skipped_is_unverified_not_missing(tmp_path):
    """statsmodels' ``from statsmodels.regression.tests.results import ...`` was an error
    ("no module named"), though the module exists: the build skipped it as a test (a
    file too large or holding NUL bytes too). Only proof is an error."""
    (tmp_path / "calc" / "tests").mkdir(parents=True)
    (tmp_path / "calc" / "__init__.py").write_text("def solve(x):\n    return x\n")
    (tmp_path / "calc" / "tests" / "__init__.py").write_text("")
    (tmp_path / "calc" / "tests" / "results.py").write_text("EXPECTED = 1\n")
    codecite.build(tmp_path)
    index = codecite.load(tmp_path)
    code = "from calc.tests.results import EXPECTED\nfrom calc.nothing import x\n"
    result = validate_generated_code(code, index)
    assert result["errors"] == ["no module named 'calc.nothing'"]
    assert any("calc.tests" in w and "skipped it: tests" in w for w in result["warnings"])
