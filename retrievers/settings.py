"""Scoring settings the retriever needs, independent of where they were configured."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import boosts

# a changelog-like page, or any page in a changelog-like folder (pandas' and seaborn's
# whatsnew/v0.11.1.rst, SQLAlchemy's changelog/migration_10.rst)
LOW_VALUE_DOC = re.compile(
    r"(^|/)((changelog|changes|history|release[-_]?notes|releases|news|whats[-_]?new|"
    r"prev[-_]whats[-_]new|contributing|authors|license|code[-_]of[-_]conduct)([^/]*$|/)"
    r"|release/)",  # numpy's doc/source/release/1.15.0-notes.rst; a release.rst is a process
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ScoringSettings:
    """The constants of the composed score; defaults are DESIGN.md's.

    ``workflows`` maps a workflow name to its query keywords; ``expansions``
    maps a trigger phrase to its terms.
    """

    expansion_weight: float = 0.35
    priority_step: float = boosts.DEFAULT_PRIORITY_STEP
    workflow_boost: float = boosts.DEFAULT_WORKFLOW_BOOST
    recipe_boost: float = boosts.DEFAULT_RECIPE_BOOST
    symbol_boost: float = boosts.DEFAULT_SYMBOL_BOOST
    feedback_floor: float = boosts.DEFAULT_FEEDBACK_FLOOR
    expansions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    workflows: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    doc_propagation: bool = True
    propagation_share: float = 1.0
    mined_expansion: bool = True
    query_variants: bool = True
    variant_weight: float = 0.8
    public_api_factor: float = 1.03
    low_value_doc_factor: float = 0.5
    max_sections_per_file: int = 2
    doc_factor: float = 1.0

    def zero_config_factor(self, meta: Mapping[str, Any]) -> float:
        """Mild zero-config preferences: public API up, changelog-like pages down."""
        factor = 1.0
        if meta.get("public") and meta.get("kind") in ("python_symbol", "python_method"):
            factor *= self.public_api_factor
        if meta.get("kind") == "doc_section":
            factor *= self.doc_factor
            if LOW_VALUE_DOC.search(str(meta.get("source_path", ""))):
                factor *= self.low_value_doc_factor
        return factor

    def to_json(self) -> dict[str, Any]:
        return {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in self.__dict__.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScoringSettings:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in ("expansions", "workflows"):
            if key in known:
                known[key] = {k: tuple(v) for k, v in known[key].items()}
        return cls(**known)
