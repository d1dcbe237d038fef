"""Shared test fixtures and guards."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

import codecite

# Hypothesis budgets: "ci" (the default) keeps the suite fast; "slow" digs deeper:
#   HYPOTHESIS_PROFILE=slow pytest tests/reliability   (or --hypothesis-profile=slow)
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("slow", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]
FIXTURE_REPO = Path(__file__).parent / "fixtures" / "sample_repo"

# The per-user key that seals indexes (codecite.store.seal) lives in a folder of this run, never
# in the user's own cache; subprocesses inherit it, so what a test builds, it may load.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="codecite-test-cache-")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ["XDG_CACHE_HOME"], ignore_errors=True)


# `python -m pytest` puts the repository root on sys.path, which would import the
# top-level folders (node_parsers, ...) as a second copy beside `codecite`.
# CODECITE_TEST_WHEEL=1 runs them against an installed wheel instead (.ci/run does).
if Path(codecite.__file__).resolve().parent != REPO / "plugin" and not os.environ.get(
    "CODECITE_TEST_WHEEL"
):
    raise RuntimeError("tests must run against this checkout's codecite (pip install -e .)")


@pytest.fixture(autouse=True)
def _no_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may see a real key or reach a real service."""
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_API_BASE",
        "OPENAI_ORG_ID",
        "AZURE_OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "HF_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """A private copy of the fixture repository (tests may edit and build it)."""
    dest = tmp_path / "sample_repo"
    shutil.copytree(FIXTURE_REPO, dest, ignore=shutil.ignore_patterns(".codecite*"))
    return dest


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One built copy of the fixture repository shared by read-only tests."""
    dest = tmp_path_factory.mktemp("built") / "sample_repo"
    shutil.copytree(FIXTURE_REPO, dest, ignore=shutil.ignore_patterns(".codecite*"))
    codecite.build(dest)
    return dest
