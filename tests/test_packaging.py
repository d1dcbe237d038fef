"""Every package folder is listed for the wheel; the CLI entry points start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed() -> None:
    setup = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping, listed = setup["package-dir"], set(setup["packages"])
    found = set()
    for name, folder in mapping.items():
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            found.add(".".join([name, *rel.parts]))
    assert found <= listed, f"missing from [tool.setuptools] packages: {sorted(found - listed)}"


def test_python_dash_m_and_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "codecite", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("codecite ")


def test_import_is_light() -> None:
    code = "import sys, codecite; print('llama_index.core' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_build_that_finds_nothing_changed_never_imports_llamaindex(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text('def f():\n    """Do it."""\n')
    subprocess.run(
        [sys.executable, "-m", "codecite", "build", "-C", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    code = (
        "import sys, codecite; r = codecite.build(sys.argv[1]); "
        "print(r.reparsed, 'llama_index.core' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["0", "False"]
