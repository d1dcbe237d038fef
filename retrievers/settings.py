"""The constants of the retrieval model, defined once: the scorer's settings and the
``[tool.codecite.retrieval]`` table are built from the same fields.

- ``RankingConstants``: the constants of the composed score (docs/retrieval.md);
- ``ScoringSettings``: what the scorer is made with, those constants plus the
  configured expansions and workflow keywords (persisted in ``retriever.json``);
- ``RetrievalSettings``: the ``[tool.codecite.retrieval]`` table, those constants plus
  the BM25 and fusion parameters (docs/configuration.md).

The constrained types (``Number``, ``Switch``, ``PositiveInt``, ``NonNegativeInt``)
carry their own explanation: a value they refuse becomes one error saying what is
wrong and how to fix it, which ``codecite.config`` turns into a ``ConfigError``
naming the key and the file. This module needs nothing from ``codecite.config``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError, ValidatorFunctionWrapHandler
from pydantic import WrapValidator as _WrapValidator
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from codecite.node_parsers.schema import NodeKind

from . import defaults  # the factors' defaults (boosts.py takes the same)
from .defaults import DEFAULT_COSINE_FLOOR, DEFAULT_FUSION, DEFAULT_RRF_K

SETTING_ERROR = "codecite_setting"  # the pydantic error type of an explained refusal

# a changelog-like page, or any page in a changelog-like folder (pandas' and seaborn's
# whatsnew/v0.11.1.rst, SQLAlchemy's changelog/migration_10.rst)
LOW_VALUE_DOC = re.compile(
    r"(^|/)((changelog|changes|history|release[-_]?notes|releases|news|whats[-_]?new|"
    r"prev[-_]whats[-_]new|contributing|authors|license|code[-_]of[-_]conduct)([^/]*$|/)"
    r"|release/)",  # numpy's doc/source/release/1.15.0-notes.rst; a release.rst is a process
    re.IGNORECASE,
)


def setting_error(problem: str, fix: str, at: tuple[str, ...] = ()) -> PydanticCustomError:
    """A refused setting: ``problem`` ("must be a number, got 'x'") and ``fix``.

    ``fix`` may name the setting as ``{key}`` (its dotted key, e.g. ``retrieval.k1``) or
    ``{name}`` (its last part), filled in where the error gets its file. ``at`` names the
    key below the place the error is raised at (a model checking one of its fields).
    """
    return PydanticCustomError(
        SETTING_ERROR, "{problem}; {fix}", {"problem": problem, "fix": fix, "at": at}
    )


def explained(problem: str, fix: str) -> _WrapValidator:
    """Turn any refusal of the wrapped type into one ``setting_error``.

    ``problem`` may show the given value as ``{value!r}``.

    Example:
        >>> Flag = Annotated[bool, Field(strict=True), explained("is {value!r}", "set {key}")]
    """

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise setting_error(problem.format(value=value), fix) from None

    return _WrapValidator(check)


Number = Annotated[
    float, Field(strict=True), explained("must be a number, got {value!r}", "set {key} = 25.0")
]
Switch = Annotated[
    bool, Field(strict=True), explained("must be true or false, got {value!r}", "set {key} = true")
]
PositiveInt = Annotated[
    int,
    Field(strict=True, gt=0),
    explained("must be a positive integer, got {value!r}", "set {key} = 1000"),
]
NonNegativeInt = Annotated[  # 0 means "no limit"
    int,
    Field(strict=True, ge=0),
    explained("must be 0 or a positive integer, got {value!r}", "set {key} = 0 for no limit"),
]

SETTINGS_CONFIG = ConfigDict(extra="forbid")


@dataclass(frozen=True, config=SETTINGS_CONFIG)
class RankingConstants:
    """The constants of the composed score; the formulas are in docs/retrieval.md and the
    measurements behind each default in docs/quality.md."""

    expansion_weight: Number = Field(default=0.35, description="w in L = BM25(q) + w * BM25(e(q))")
    priority_step: Number = Field(
        default=defaults.DEFAULT_PRIORITY_STEP, description="per priority step"
    )
    workflow_boost: Number = Field(default=defaults.DEFAULT_WORKFLOW_BOOST, description="b_wf")
    recipe_boost: Number = Field(default=defaults.DEFAULT_RECIPE_BOOST, description="b_recipe")
    symbol_boost: Number = Field(default=defaults.DEFAULT_SYMBOL_BOOST, description="b_sym")
    name_boost: Number = Field(default=defaults.DEFAULT_NAME_BOOST, description="b_name")
    feedback_floor: Number = Field(
        default=defaults.DEFAULT_FEEDBACK_FLOOR, description="floor of b_fb"
    )
    doc_propagation: Switch = Field(
        default=True, description="symbols take the doc sections' score"
    )
    propagation_share: Number = Field(default=1.0, description="the share they take")
    mined_expansion: Switch = Field(default=True, description="corpus-mined e(q)")
    query_variants: Switch = Field(default=True, description="other word forms, v(q)")
    variant_weight: Number = Field(default=0.8, description="wv in L = ... + wv * BM25(v(q))")
    public_api_factor: Number = Field(default=1.03, description="public API code")
    low_value_doc_factor: Number = Field(default=0.5, description="changelog-like doc pages")
    max_sections_per_file: NonNegativeInt = Field(
        default=2, description="per doc file, 0: no limit"
    )
    doc_factor: Number = Field(default=1.0, description="every doc section")
    page_weight: Number = Field(
        default=0.0, description="wp in L = ... + wp * P(f): the file's score, to its best node"
    )
    message_evidence: Switch = Field(
        default=True, description="a pasted error message names the code that raises it"
    )
    page_lead: Switch = Field(
        default=True, description="the best doc page with v(q) first, no code out of the top 5"
    )


@dataclass(frozen=True, config=SETTINGS_CONFIG)
class ScoringSettings(RankingConstants):
    """What the scorer is made with: the ranking constants, the configured expansions
    (trigger phrase -> terms) and workflows (name -> query keywords).

    Example:
        >>> ScoringSettings(workflow_boost=1.0).zero_config_factor({"kind": "doc_section"})
        1.0
    """

    expansions: Mapping[str, tuple[str, ...]] = Field(default_factory=dict)
    workflows: Mapping[str, tuple[str, ...]] = Field(default_factory=dict)

    def zero_config_factor(self, meta: Mapping[str, Any]) -> float:
        """Mild zero-config preferences: public API up, changelog-like pages down."""
        factor = 1.0
        if meta.get("public") and meta.get("kind") in (
            NodeKind.PYTHON_SYMBOL.value,
            NodeKind.PYTHON_METHOD.value,
        ):
            factor *= self.public_api_factor
        if meta.get("kind") == NodeKind.DOC_SECTION.value:
            factor *= self.doc_factor
            if LOW_VALUE_DOC.search(str(meta.get("source_path", ""))):
                factor *= self.low_value_doc_factor
        return factor

    def zero_config_factors(
        self, public: Sequence[Any], kinds: Sequence[Any], paths: Sequence[str]
    ) -> list[float]:
        """``zero_config_factor`` of many nodes, once per distinct input (the path counts
        for doc sections only)."""
        memo: dict[tuple[bool, Any, str], float] = {}
        out = []
        doc = NodeKind.DOC_SECTION.value
        for pub, kind, path in zip(public, kinds, paths, strict=True):
            key = (bool(pub), kind, path if kind == doc else "")
            factor = memo.get(key)
            if factor is None:
                meta = {"public": key[0], "kind": kind, "source_path": key[2]}
                factor = memo[key] = self.zero_config_factor(meta)
            out.append(factor)
        return out

    def to_json(self) -> dict[str, Any]:
        """The settings as ``retriever.json`` holds them, in that file's key order."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in _json_order(values)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScoringSettings:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in ("expansions", "workflows"):
            if key in known:
                known[key] = {k: tuple(v) for k, v in known[key].items()}
        return cls(**known)


def _json_order(values: dict[str, Any]) -> list[tuple[str, Any]]:
    """The expansions and workflows after ``feedback_floor``, where ``retriever.json`` has
    always had them: an index rebuilt from unchanged sources gets the same bytes."""
    items = [(k, v) for k, v in values.items() if k not in ("expansions", "workflows")]
    at = [k for k, _ in items].index("feedback_floor") + 1
    return [*items[:at], *((k, values[k]) for k in ("expansions", "workflows")), *items[at:]]


@dataclass(frozen=True, config=SETTINGS_CONFIG)
class RetrievalSettings(RankingConstants):
    """``[tool.codecite.retrieval]``: the settings that change how search results are
    scored, the ranking constants plus BM25's and the dense fusion's parameters
    (docs/configuration.md, *retrieval*).

    Example:
        >>> RetrievalSettings(k1=1.2).b
        0.75
    """

    k1: Number = Field(default=1.5, description="BM25 term saturation")
    b: Number = Field(default=0.75, description="BM25 length normalisation")
    cosine_floor: Number = Field(default=DEFAULT_COSINE_FLOOR, description="dense: lowest cosine")
    rrf_k: PositiveInt = Field(default=DEFAULT_RRF_K, description="dense: k of 1/(k + rank)")
    fusion: Literal["convex", "rrf"] = Field(
        default=DEFAULT_FUSION, description="dense: score fusion (convex) or rank fusion (rrf)"
    )
