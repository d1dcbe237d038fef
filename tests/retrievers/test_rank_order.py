"""``rank_order`` sorts only the best candidates, and returns what a full sort would."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from codecite.retrievers.bm25 import _capped, _sorted, rank_order


def _full(scores, k, cap, files, tiebreak, last):  # the reference: sort every positive score
    return _capped(_sorted(np.flatnonzero(scores > 0), scores, tiebreak, last), k, cap, files)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.5]), min_size=1, max_size=80),
    st.integers(1, 12),
    st.integers(0, 2),
    st.integers(0, 2**32 - 1),
)
def test_the_shortcut_gives_the_full_sort(values, k, cap, seed) -> None:
    rng = np.random.default_rng(seed)
    scores = np.array(values, dtype=np.float32)
    files = [rng.choice([None, None, "a.md", "b.md"]) for _ in values]  # doc pages get capped
    tiebreak = rng.integers(0, 3, len(values)).astype(np.float32)
    last = rng.random(len(values)) < 0.2
    assert rank_order(scores, k, cap, files, tiebreak, last) == _full(
        scores, k, cap, files, tiebreak, last
    )


def test_caps_that_skip_the_candidates_fall_back_to_every_score() -> None:
    scores = np.array([9.0] * 40 + [1.0, 0.5], dtype=np.float32)
    files = ["page.md"] * 40 + [None, None]  # one page fills every candidate slot
    assert rank_order(scores, 3, 1, files) == [0, 40, 41]
