"""Fixtures for the answer tests: the built fixture repo and a configured copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import codecite

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"
FLOOR = 4.0
CONFIG = f"""
confidence_floor = {FLOOR}

[registry.L22]
aliases = ["line 22", "northern line"]
path = "data/L22"
defaults = {{ window = 7 }}
description = "northern survey line"

[registry.L3]
path = "data/L3"
"""


@pytest.fixture(scope="session")
def geokit_index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


@pytest.fixture(scope="session")
def floored_index(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    """A copy with an explicit ``confidence_floor`` and a project registry."""
    dest = tmp_path_factory.mktemp("floored") / "sample_repo"
    shutil.copytree(FIXTURE_REPO, dest, ignore=shutil.ignore_patterns(".codecite*"))
    (dest / "codecite.toml").write_text(CONFIG, encoding="utf-8")
    codecite.build(dest)
    return codecite.load(dest)
