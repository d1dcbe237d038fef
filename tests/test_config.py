"""Configuration: defaults with zero config, TOML sources, validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecite.config import load_config
from codecite.errors import ConfigError


def _write(root: Path, rel: str, text: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_zero_config_flat_layout(tmp_path: Path) -> None:
    for rel in (
        "mypkg/__init__.py",
        "tests/__init__.py",
        "docs/index.rst",
        "examples/a.py",
        "README.md",
    ):
        _write(tmp_path, rel)
    cfg = load_config(tmp_path)
    assert cfg.packages == ("mypkg",)
    assert cfg.roots == ("mypkg", "docs", "examples")
    assert cfg.root_docs == ("README.md",)
    assert cfg.source is None


def test_zero_config_src_layout_and_recipes(tmp_path: Path) -> None:
    for rel in ("src/lib/__init__.py", "docs/index.md", "recipes/x.md"):
        _write(tmp_path, rel)
    cfg = load_config(tmp_path)
    assert cfg.package_dirs == {"lib": "src/lib"}
    assert cfg.roots == ("src/lib", "docs", "recipes") and cfg.recipes == ("recipes",)


def test_setuptools_package_dir_is_used(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        '[tool.setuptools]\npackage-dir = {"mypkg" = "code", "mypkg.sub" = "other"}\n',
    )
    cfg = load_config(tmp_path)
    assert cfg.package_dirs == {"mypkg": "code", "mypkg.sub": "other"}
    assert cfg.roots == ("code", "other")


def test_a_package_dir_at_the_root_finds_the_packages_there(tmp_path: Path) -> None:
    """``{"" = "."}`` (dogpile.cache's pyproject) means the packages sit at the root: their
    module names are ``dogpile.cache``, not ``..dogpile.cache``, and setup.py is no package."""
    for rel in ("dogpile/__init__.py", "dogpile/cache/__init__.py", "setup.py", "docs/index.rst"):
        _write(tmp_path, rel)
    _write(tmp_path, "pyproject.toml", '[tool.setuptools]\npackage-dir = {"" = "."}\n')
    cfg = load_config(tmp_path)
    assert cfg.package_dirs == {"dogpile": "dogpile"}
    assert cfg.roots == ("dogpile", "docs")
    _write(tmp_path, "pyproject.toml", '[tool.setuptools]\npackage-dir = {"" = "./lib/"}\n')
    _write(tmp_path, "lib/other/__init__.py")
    assert load_config(tmp_path).package_dirs == {"other": "lib/other"}


def test_private_packages_in_src_and_a_root_module_named_like_the_distribution(
    tmp_path: Path,
) -> None:
    """pytest keeps its code in ``src/_pytest`` (``pytest`` re-exports it); six and appdirs
    are one module at the root. Test modules in ``src/`` and setup.py are no packages."""
    src = tmp_path / "pytestlike"
    for rel in ("src/_pytest/__init__.py", "src/pytest/__init__.py", "src/py.py"):
        _write(src, rel)
    for rel in ("src/test_things.py", "src/conftest.py", "src/__pycache__/x.py"):
        _write(src, rel)
    assert load_config(src).package_dirs == {
        "_pytest": "src/_pytest",
        "py": "src/py.py",
        "pytest": "src/pytest",
    }
    flat = tmp_path / "sixlike"
    for rel in ("six.py", "setup.py", "test_six.py", "documentation/index.rst"):
        _write(flat, rel)
    _write(flat, "PKG-INFO", "Metadata-Version: 2.1\nName: six\nVersion: 1.16.0\n")
    cfg = load_config(flat)
    assert cfg.package_dirs == {"six": "six.py"} and cfg.roots[0] == "six.py"


def test_pyproject_table_and_codecite_toml(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pyproject.toml",
        """
[tool.codecite]
packages = ["pkg"]
roots = ["pkg", "docs/source"]
exclude = ["pkg/app/"]
confidence_floor = 25.0
[tool.codecite.priorities]
"pkg/agents" = 3
"docs/source" = 2
[tool.codecite.workflows.static_shift]
keywords = ["Static Shift", "galvanic"]
paths = ["pkg/ss"]
[tool.codecite.expansions]
"vertical offset" = ["static", "shift"]
""",
    )
    cfg = load_config(tmp_path)
    assert cfg.roots == ("pkg", "docs/source") and cfg.confidence_floor == 25.0
    assert cfg.priority_for("pkg/agents/x.py") == 3
    assert cfg.priority_for("pkg/agentsx/y.py") == 1  # segment boundary
    assert cfg.priority_for("docs/source/a.rst") == 2
    assert cfg.workflows[0].keywords == ("static shift", "galvanic")
    assert cfg.expansions == {"vertical offset": ("static", "shift")}
    assert cfg.source == str(tmp_path / "pyproject.toml")
    _write(tmp_path, "codecite.toml", 'roots = ["pkg"]\n')
    assert load_config(tmp_path).roots == ("pkg",)  # codecite.toml wins


def test_keyword_overrides_win(tmp_path: Path) -> None:
    _write(tmp_path, "codecite.toml", 'roots = ["a"]\n')
    assert load_config(tmp_path, roots=["b"]).roots == ("b",)


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('rootz = ["x"]', "rootz"),
        ('roots = "docs"\ninclude_private = "yes"', "include_private"),
        ('confidence_floor = "high"', "confidence_floor"),
        ('roots = ["../../etc"]', "roots"),
        ('[priorities]\n"pkg" = "high"', "priorities.pkg"),
        ('[workflows.qc]\nkeyword = ["x"]', "workflows.qc.keyword"),
        ('[embedding]\nbackend = "magic"', "embedding.backend"),
        ('[retrieval]\nsymbol_boost = "big"', "retrieval.symbol_boost"),
        ("max_file_bytes = -3", "max_file_bytes"),
    ],
)
def test_config_errors_name_key_and_file(tmp_path: Path, toml: str, key: str) -> None:
    _write(tmp_path, "codecite.toml", toml)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    message = str(err.value)
    assert f"'{key}'" in message and str(tmp_path / "codecite.toml") in message
    assert ";" in message  # a fix follows


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    _write(tmp_path, "codecite.toml", "roots = [")
    with pytest.raises(ConfigError, match=r"codecite\.toml' is not valid TOML"):
        load_config(tmp_path)


def test_missing_root_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a folder"):
        load_config(tmp_path / "nope")


def test_a_src_package_may_be_named_build_but_a_test_suite_is_not_a_package(tmp_path: Path) -> None:
    for rel in ("src/build/__init__.py", "src/build/env.py", "src/tests/__init__.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert load_config(tmp_path).package_dirs == {"build": "src/build"}
    flat = tmp_path / "flat"
    for rel in ("build/__init__.py", "tool/__init__.py"):
        (flat / rel).parent.mkdir(parents=True, exist_ok=True)
        (flat / rel).write_text("")
    # beside the sources (no src/ folder), a build/ folder is taken for build output
    assert load_config(flat).package_dirs == {"tool": "tool"}


def test_a_namespace_package_is_found_by_the_package_inside_it(tmp_path: Path) -> None:
    # jaraco.functools: jaraco/ has no __init__.py (PEP 420), jaraco/functools/ does; at
    # the root only the folder the distribution is named after is taken for one
    for rel in (
        "jaraco/functools/__init__.py",
        "vendor/six/__init__.py",
        "typings/other/__init__.pyi",
        "docs/index.md",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert load_config(tmp_path).package_dirs == {}
    (tmp_path / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: jaraco.functools\n")
    cfg = load_config(tmp_path)
    assert cfg.package_dirs == {"jaraco": "jaraco"} and cfg.roots == ("jaraco", "docs")
    # under src/ every namespace package is the project's
    src = tmp_path / "layout"
    (src / "src" / "zope" / "interface").mkdir(parents=True)
    (src / "src" / "zope" / "interface" / "__init__.py").write_text("")
    assert load_config(src).package_dirs == {"zope": "src/zope"}


def test_lib_is_a_source_folder_when_nothing_else_holds_packages(tmp_path: Path) -> None:
    # matplotlib: lib/matplotlib, lib/mpl_toolkits (namespace), lib/pylab.py; src/ is C++
    for rel in (
        "lib/matplotlib/__init__.py",
        "lib/mpl_toolkits/mplot3d/__init__.py",
        "lib/pylab.py",
        "src/ft2font.cpp",
        "tools/run.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "galleries" / "examples").mkdir(parents=True)  # matplotlib's gallery folder
    (tmp_path / "doc").mkdir()
    cfg = load_config(tmp_path)
    assert cfg.package_dirs == {
        "matplotlib": "lib/matplotlib",
        "mpl_toolkits": "lib/mpl_toolkits",
        "pylab": "lib/pylab.py",
    }
    assert cfg.roots == ("lib/matplotlib", "lib/mpl_toolkits", "lib/pylab.py", "doc", "galleries")
    (tmp_path / "flat" / "__init__.py").parent.mkdir()
    (tmp_path / "flat" / "__init__.py").write_text("")
    assert load_config(tmp_path).package_dirs == {"flat": "flat"}  # the root comes first
