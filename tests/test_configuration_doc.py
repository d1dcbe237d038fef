"""docs/configuration.md documents exactly the keys of the settings model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codecite.config import CodeciteSettings, EmbeddingSettings, RetrievalSettings
from codecite.config.model import RegistryEntry, WorkflowTable

PAGE = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def _section(heading: str) -> str:
    """The text under ``heading`` up to the next heading."""
    text = PAGE.read_text(encoding="utf-8")
    rest = text[text.index(f"\n{heading}\n") + len(heading) + 2 :]
    end = re.search(r"^#+ ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def _table_keys(heading: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_0-9]+)` \|", _section(heading), re.MULTILINE))


def _fields(model: type) -> set[str]:
    return set(model.__pydantic_fields__)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("heading", "model"),
    [
        ("## Keys", CodeciteSettings),
        ("### `embedding`", EmbeddingSettings),
        ("### `retrieval`", RetrievalSettings),
    ],
)
def test_every_key_is_documented_and_every_documented_key_exists(heading: str, model: type) -> None:
    documented = _table_keys(heading)
    fields = _fields(model)
    assert fields - documented == set(), f"keys missing from {heading} of {PAGE.name}"
    assert documented - fields == set(), f"{heading} of {PAGE.name} documents unknown keys"


@pytest.mark.parametrize(
    ("heading", "model"),
    [
        ("### `workflows`", WorkflowTable),
        ("### `intents`, `registry`, `registry_file`", RegistryEntry),
    ],
)
def test_the_keys_of_a_nested_table_are_named(heading: str, model: type) -> None:
    named = set(re.findall(r"`([a-z_]+)`", _section(heading)))
    assert _fields(model) <= named, f"{heading} of {PAGE.name} misses a key"
