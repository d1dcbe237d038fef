"""Every package folder is listed for the wheel; the CLI entry points start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
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


def test_a_build_that_finds_nothing_changed_imports_neither_llamaindex_nor_numpy(
    tmp_path: Path,
) -> None:
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
        "print(r.reparsed, 'llama_index.core' in sys.modules, 'numpy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    # nor numpy (60 ms of a 0.3 s process): nothing is scored or saved
    assert out.stdout.split() == ["0", "False", "False"]


# each runs `codecite ARGS` in a fresh process and prints whether LlamaIndex was imported
NO_LLAMA_RUN = (
    "import runpy, sys\n"
    "sys.argv = ['codecite', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('codecite', run_name='__main__')\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "print('\\nLLAMA', sorted(m for m in sys.modules if m.startswith('llama_index')))\n"
)


@pytest.mark.parametrize(
    "args",
    [
        ["stats"],
        ["query", "how do I correct static shift", "--explain"],
        ["query", "geokit.io.load_survey", "--json"],
        ["ask", "how do I correct static shift"],
        ["ask", "what is the weather on mars"],
        ["validate", "{generated}"],
    ],
    ids=lambda a: "-".join(a[:2])[:40],
)
def test_offline_commands_never_import_llamaindex(
    built_sample: Path, tmp_path: Path, args: list[str]
) -> None:
    generated = tmp_path / "generated.py"  # code an assistant wrote, with a made-up name
    generated.write_text("from geokit.io import load_surveys\n", encoding="utf-8")
    args = [str(generated) if a == "{generated}" else a for a in args]
    out = subprocess.run(
        [sys.executable, "-c", NO_LLAMA_RUN, *args, "-C", str(built_sample)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = out.stdout.rsplit("\nLLAMA ", 1)[1].strip()
    assert report == "[]", f"codecite {' '.join(args)} imported {report}"
    assert out.stdout.rsplit("\nLLAMA ", 1)[0].strip(), "the command printed nothing"


def test_a_full_build_never_imports_llamaindex(sample_repo: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", NO_LLAMA_RUN, "build", "--full", "-C", str(sample_repo)],
        capture_output=True,
        text=True,
        check=True,
    )
    printed, report = out.stdout.rsplit("\nLLAMA ", 1)
    assert report.strip() == "[]", f"codecite build --full imported {report}"
    assert "nodes from 13 files" in printed, printed


SCAN_RUN = (
    "import importlib.metadata as md, runpy, sys\n"
    "scans = []\n"
    "real = md.entry_points\n"
    "md.entry_points = lambda **kw: scans.append(kw) or real(**kw)\n"
    "sys.argv = ['codecite', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('codecite', run_name='__main__')\n"
    "except SystemExit:\n"
    "    pass\n"
    "print('\\nSCANS', [s.get('group') for s in scans])\n"
)


@pytest.mark.parametrize("preset", [None, "other_plugin"])
def test_the_command_never_scans_for_pydantic_plugins(
    built_sample: Path, preset: str | None
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if preset:  # the user's own choice is kept: then pydantic scans, skipping that one
        env["PYDANTIC_DISABLE_PLUGINS"] = preset
    out = subprocess.run(
        [sys.executable, "-c", SCAN_RUN, "stats", "-C", str(built_sample)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    printed, scans = out.stdout.rsplit("\nSCANS ", 1)
    assert "nodes" in printed
    assert scans.strip() == ("['pydantic']" if preset else "[]")
