"""The default of every ranking factor and fusion setting, in one numpy-free module.

``retrievers/settings.py`` seeds its fields from these, ``boosts.py`` and
``fusion.py`` (the formula, docs/retrieval.md) take them as their parameters'
defaults; kept apart so that reading a configuration (a ``codecite build`` with
nothing to do) does not import numpy.
"""

from __future__ import annotations

from typing import Literal

DEFAULT_EXPANSION_WEIGHT = 0.35
DEFAULT_VARIANT_WEIGHT = 0.8
DEFAULT_PRIORITY_STEP = 0.12
DEFAULT_WORKFLOW_BOOST = 1.6
DEFAULT_RECIPE_BOOST = 1.25
DEFAULT_SYMBOL_BOOST = 1.5
DEFAULT_NAME_BOOST = 4.0
DEFAULT_FEEDBACK_FLOOR = 0.15
DEFAULT_PROPAGATION_SHARE = 1.0
DEFAULT_COSINE_FLOOR = 0.20
DEFAULT_RRF_K = 60
DEFAULT_FUSION: Literal["convex", "rrf"] = "convex"  # dense: convex_fusion, or RRF
DEFAULT_LEXICAL_TRUST = 0.5  # convex fusion: the lexical share for a question in words
DEFAULT_LEXICAL_TRUST_CODE = 0.75  # ... and for one that writes identifiers
DEFAULT_DENSE_MARGIN = 0.35  # convex fusion: a cosine this far below the best adds nothing
