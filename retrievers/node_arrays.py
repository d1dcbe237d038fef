"""Per-node vectors the lexical scorer needs, computed once per index and settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from codecite.vocabulary import CODE_KINDS, PAGE_KINDS  # sections of one page: one cap

from . import boosts
from .columns import node_columns
from .messages import MessageTable
from .names import NameTable
from .propagation import DocPropagation
from .settings import ScoringSettings


class NodeArrays:
    """Per-node vectors the scoring needs, computed once when the retriever is made.

    Each factor vector is at its ``boosts.FACTOR_DTYPES`` precision.
    """

    def __init__(
        self,
        nodes: Sequence[Any],  # NodeRecord or TextNode, or a loaded index's nodes
        settings: ScoringSettings,
        feedback: Mapping[str, float],
        public_names: Mapping[str, str] | None = None,
        propagation: DocPropagation | None = None,
        documented: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        cols = node_columns(nodes)
        self.kinds = np.array([k or "" for k in cols.kind])
        self.workflows = np.array(cols.workflow, dtype=object)
        priorities = np.array(
            [int(p or boosts.NEUTRAL_PRIORITY) for p in cols.priority], dtype=np.int64
        )
        self.priority = typed(
            "priority", boosts.priority_factor(priorities, settings.priority_step)
        )
        self.recipe = typed("recipe", boosts.recipe_factor(self.kinds, settings.recipe_boost))
        self.code = np.isin(self.kinds, list(CODE_KINDS))
        self.module_doc = self.kinds == "module_doc"
        # nodes holding only messages raised in the private code inside them (classes,
        # modules: ``python_messages.adopt_orphans``); a pasted one is their evidence
        classes = np.array([t == "class" for t in cols.symbol_type], dtype=bool)
        self.holders = self.module_doc | classes if len(classes) else self.module_doc
        self.symbols = symbols = cols.symbol
        voted = np.array([sym in feedback for sym in symbols], dtype=bool)
        votes = np.array([float(feedback.get(sym or "", 0)) for sym in symbols], dtype=np.float64)
        self.feedback = typed(
            "feedback",
            np.where(voted, boosts.feedback_factor(votes, settings.feedback_floor), boosts.NEUTRAL),
        )
        zero_config = settings.zero_config_factors(cols.public, cols.kind, cols.source_path)
        self.zero_config = typed("zero_config", np.array(zero_config))
        code = self.code.tolist()
        self.neutral = typed("name", np.ones(len(symbols)))  # b_name where nothing is named
        # the factors before b_name when b_wf and b_sym are 1 everywhere (most queries)
        self.unboosted = boosts.factor_product(
            self.priority,
            typed("workflow", self.neutral),
            self.recipe,
            typed("symbol", self.neutral),
            self.feedback,
            self.zero_config,
        )
        self.messages = MessageTable(cols.messages)
        self.names = NameTable(
            [sym if is_code else None for sym, is_code in zip(symbols, code, strict=True)],
            cols.symbol_type,
            [bool(p) for p in cols.public],
            public_names,
            propagation.mentions() if propagation is not None else None,
            cols.bases,
            documented,
        )
        self.leaf_index = boosts.LeafIndex(len(symbols), self.names.by_lower_leaf, self.names.rows)
        self.paths = cols.source_path
        self._nodes = nodes
        self._positions: dict[str, int] | None = None
        self.doc_files = [
            p if k in PAGE_KINDS else None for p, k in zip(self.paths, self.kinds, strict=True)
        ]
        self.page = np.array([p is not None for p in self.doc_files], dtype=bool)
        self.pages = np.flatnonzero(self.page)  # their rows, for the page lead

    def positions(self) -> dict[str, int]:
        """Node id -> row, made on first use (the confidence rule reads it)."""
        if self._positions is None:
            ids = getattr(self._nodes, "ids", None)  # a loaded index reads them undecoded
            listed = ids() if callable(ids) else [n.node_id for n in self._nodes]
            self._positions = {node_id: i for i, node_id in enumerate(listed)}
        return self._positions


def typed(factor: str, values: np.ndarray) -> np.ndarray:
    """``values`` at the precision ``factor`` is multiplied at (``boosts.FACTOR_DTYPES``)."""
    return np.asarray(values).astype(boosts.FACTOR_DTYPES[factor])
