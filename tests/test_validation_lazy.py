"""Validation of packages whose ``__init__`` answers attributes through a module
``__getattr__`` (PEP 562): literal tables, ``lazy_loader.attach``, an unreadable one.

The fixtures are tests/fixtures/lazypkgs (its README says what each models).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_validation import build_table

from codecite.node_parsers.python_getattr import read_getattr, read_lazy_attach
from codecite.validation.checker import validate_generated_code

LAZY = Path(__file__).parent / "fixtures" / "lazypkgs"


@pytest.fixture(scope="module")
def table():
    return {name: build_table(LAZY, name) for name in ("lazypkg", "attachpkg", "opaquepkg")}


def check(table, package: str, code: str) -> dict:
    return validate_generated_code(code, table[package], package=package)


# -- the reference design's own example, on a package that loads lazily ------------
def test_a_made_up_top_level_name_is_an_error_with_real_names_to_try(table):
    result = check(table, "lazypkg", "from lazypkg import static_shift\n")
    assert result["errors"] == [
        "'lazypkg' has no attribute or submodule 'static_shift' (did you mean "
        "`lazypkg.agents.static_shift` or `lazypkg.agents.static_shift.StaticShiftAgent`?)"
    ]
    [finding] = result["findings"]
    assert finding["suggestions"] == [
        "lazypkg.agents.static_shift",
        "lazypkg.agents.static_shift.StaticShiftAgent",
    ]


@pytest.mark.parametrize(
    ("code", "error"),
    [
        (
            "from lazypkg.made_up_module import thing\n",
            "no module named 'lazypkg.made_up_module'",
        ),
        ("import lazypkg.made_up\n", "no module named 'lazypkg.made_up'"),
        ("import lazypkg.Sites\n", "'lazypkg.Sites' is not a module"),
    ],
)
def test_a_module_getattr_never_makes_a_submodule_importable(table, code, error):
    assert check(table, "lazypkg", code)["errors"] == [error]


def test_names_the_tables_list_resolve_to_their_definitions(table):
    code = (
        "import lazypkg\n"
        "from lazypkg import Sites, agents, site\n"
        "from lazypkg.agents.static_shift import StaticShiftAgent\n"
        "sites = Sites('line1.csv', strict=True)\n"
        "lazypkg.read_tf('a.edi', fmt='edi')\n"
        "StaticShiftAgent(sites, method='ama').run()\n"
    )
    result = check(table, "lazypkg", code)
    assert result["ok"] and result["warnings"] == [], result
    assert {"lazypkg.Sites", "lazypkg.read_tf"} <= set(result["checked"])  # names as used


def test_a_lazily_loaded_name_gets_its_signature_checked(table):
    result = check(table, "lazypkg", "from lazypkg import Sites\nSites('a', colour='red')\n")
    assert not result["ok"]
    assert any("colour" in e for e in result["errors"]), result["errors"]


def test_a_removed_name_that_raises_is_absent(table):
    result = check(table, "lazypkg", "from lazypkg import old_reader\n")
    assert result["errors"] == ["'lazypkg' has no attribute or submodule 'old_reader'"]


def test_lazy_loader_attach(table):
    ok = check(table, "attachpkg", "from attachpkg import Image, filters, load\nload(path='x')\n")
    assert ok["ok"] and ok["warnings"] == [], ok
    assert {"attachpkg.Image", "attachpkg.load"} <= set(ok["checked"])
    bad = check(
        table,
        "attachpkg",
        "from attachpkg import gaussian\nimport attachpkg\nattachpkg.load(pth='x')\n",
    )
    assert bad["errors"] == [
        "'attachpkg' has no attribute or submodule 'gaussian' "
        "(did you mean `attachpkg.filters.gaussian`?)",
        "attachpkg.load() got an unexpected keyword argument 'pth' (did you mean `path`?)",
        "attachpkg.load() missing required argument 'path'",
    ]


def test_a_getattr_no_reading_can_bound_stays_a_warning(table):
    result = check(table, "opaquepkg", "from opaquepkg import anything\n")
    assert result["ok"] and result["errors"] == []
    assert result["warnings"] == [
        "'opaquepkg.anything' cannot be verified statically: 'opaquepkg' defines a "
        "module __getattr__ that cannot be read statically"
    ]


# -- the static reading itself -------------------------------------------------------
TABLES = {"_NAMES": 'frozenset({"a", "b"})', "_LAZY": '{"X": ".x", "Y": "pkg.y"}'}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (  # guards, then an unconditional raise: closed
            "    if name in _NAMES:\n        return 1\n    raise AttributeError(name)\n",
            {"names": ["a", "b"], "lazy": {}, "closed": True},
        ),
        (  # a dict of module names gives lazy targets, relative or absolute
            "    if name in _LAZY:\n        return 1\n    raise AttributeError(name)\n",
            {"names": [], "lazy": {"X": "pkg.x", "Y": "pkg.y"}, "closed": True},
        ),
        (  # `not in` first, then anything
            "    if name not in _NAMES:\n        raise AttributeError(name)\n    return 2\n",
            {"names": ["a", "b"], "lazy": {}, "closed": True},
        ),
        (  # `==` literals and `or`
            "    if name == 'c' or name in ('d', 'e'):\n        return 1\n"
            "    raise AttributeError\n",
            {"names": ["c", "d", "e"], "lazy": {}, "closed": True},
        ),
        (  # falls off the end: other names give None, no AttributeError: not closed
            "    if name in _NAMES:\n        return 1\n",
            {"names": ["a", "b"], "lazy": {}, "closed": False},
        ),
    ],
)
def test_read_getattr(body, expected):
    model = read_getattr("def __getattr__(name):\n" + body, TABLES, "pkg")
    assert model is not None and model.to_json() == expected


@pytest.mark.parametrize(
    "body",
    [
        "    return _REGISTRY[name]\n",  # any name
        "    if name in _NAMES:\n        return 1\n    else:\n        return 2\n",
        "    if name in _UNKNOWN_TABLE:\n        return 1\n    raise AttributeError(name)\n",
        "    if name.startswith('x'):\n        return 1\n    raise AttributeError(name)\n",
        "    try:\n        return _LAZY[name]\n    except KeyError:\n        raise AttributeError\n",  # noqa: E501
    ],
)
def test_read_getattr_gives_up_on_what_it_cannot_bound(body):
    assert read_getattr("def __getattr__(name):\n" + body, TABLES, "pkg") is None


def test_read_lazy_attach_refuses_computed_arguments():
    assert read_lazy_attach("lazy.attach(__name__, submodules=SUBS)", "pkg") is None
    model = read_lazy_attach("lazy.attach(__name__, submod_attrs={'core': ['f']})", "pkg")
    assert model is not None and model.lazy == {"f": "pkg.core"} and model.closed


# -- end to end: `codecite validate` on an indexed repository ---------------------------
def test_codecite_validate_exits_1_on_both_made_up_imports(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(LAZY / "lazypkg", repo / "lazypkg")
    subprocess.run(
        [sys.executable, "-m", "codecite", "build", "-C", str(repo)],
        check=True,
        capture_output=True,
    )
    for code, made_up in (
        ("from lazypkg import static_shift\n", "'static_shift'"),
        ("from lazypkg.made_up_module import thing\n", "'lazypkg.made_up_module'"),
    ):
        bad = tmp_path / "bad.py"
        bad.write_text(code, encoding="utf-8")
        out = subprocess.run(
            [sys.executable, "-m", "codecite", "validate", str(bad), "-C", str(repo)],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 1, out.stdout + out.stderr
        assert f"{bad}:1: error:" in out.stdout and made_up in out.stdout, out.stdout


# -- lazy.attach_stub: the names are the imports of the .pyi beside the module ---------
@pytest.fixture
def stub_tree(tmp_path: Path) -> Path:
    """A built copy of the fixtures (the real walk: stubs are found beside their modules)."""
    import codecite

    dest = tmp_path / "lazypkgs"
    shutil.copytree(LAZY, dest, ignore=shutil.ignore_patterns(".codecite*"))
    codecite.build(dest)
    return dest


def _validate(tree: Path, code: str) -> dict:
    import codecite

    return validate_generated_code(code, index=codecite.load(tree), package="stubpkg")


def test_lazy_loader_attach_stub_reads_the_stub_beside_the_module(stub_tree):
    import codecite

    ok = _validate(stub_tree, "from stubpkg import Image, filters, load\nload(path='x')\n")
    assert ok["ok"] and ok["warnings"] == [], ok
    assert {"stubpkg.Image", "stubpkg.load"} <= set(ok["checked"])
    bad = _validate(
        stub_tree, "from stubpkg import gaussian\nimport stubpkg\nstubpkg.load(pth=1)\n"
    )
    assert bad["errors"][0].startswith(
        "'stubpkg' has no attribute or submodule 'gaussian' (did you mean "
        "`stubpkg.filters.gaussian`"
    )
    assert (
        "stubpkg.load() got an unexpected keyword argument 'pth' (did you mean `path`?)"
        in (bad["errors"])
    )
    # the stub is read for its names only: it adds no node to the index
    index = codecite.load(stub_tree)
    assert not [n for n in index.nodes if n.metadata["source_path"].endswith(".pyi")]


def test_an_edited_stub_is_read_again_by_the_next_build(stub_tree):
    import codecite

    stub = stub_tree / "stubpkg" / "__init__.pyi"
    stub.write_text(stub.read_text(encoding="utf-8") + "from .filters import gaussian\n")
    codecite.build(stub_tree)  # incremental: only the stub changed
    assert _validate(stub_tree, "from stubpkg import gaussian\n")["ok"]


def test_a_name_only_a_stub_beside_the_module_binds_is_a_warning(stub_tree):
    import codecite

    # the module is what runs, but a name its .pyi declares exists for type checkers
    # (loguru's Logger, imported under TYPE_CHECKING) or is filled in at run time
    # (alembic's op.add_column): not provably absent, so a warning; others stay errors
    (stub_tree / "lazypkg" / "io.pyi").write_text("def phantom() -> None: ...\n")
    codecite.build(stub_tree)
    result = validate_generated_code(
        "from lazypkg.io import phantom, ghost\n",
        index=codecite.load(stub_tree),
        package="lazypkg",
    )
    assert result["errors"] == ["'lazypkg.io' has no attribute or submodule 'ghost'"]
    [warning] = result["warnings"]
    assert "'lazypkg.io' has it only in its type stub" in warning


def test_an_unreadable_module_getattr_still_suggests_the_close_names_it_lists(tmp_path):
    """textual.widgets lists its widgets in ``__all__`` and loads them in a ``__getattr__``
    behind a cache ``try``: ``from textual.widgets import Footr`` was a warning with no
    suggestion, while MCP ``lookup_symbol`` suggested ``Footer``."""
    from test_validation import package_table

    table = package_table(
        tmp_path,
        {
            "txw/__init__.py": (
                '__all__ = ["Footer", "Button"]\n_CACHE = {}\n\n\n'
                "def __getattr__(name):\n    try:\n        return _CACHE[name]\n"
                "    except KeyError:\n        pass\n"
                "    if name not in __all__:\n        raise AttributeError(name)\n"
                "    return _load(name)\n"
            ),
        },
    )
    warnings = validate_generated_code("from txw import Footr, Zebra\n", table)["warnings"]
    unread = "'txw' defines a module __getattr__ that cannot be read statically"
    assert warnings == [
        f"'txw.Footr' cannot be verified statically: {unread} (did you mean `Footer`?)",
        f"'txw.Zebra' cannot be verified statically: {unread}",
    ]
