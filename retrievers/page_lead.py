"""The page lead: a question's best doc page first, without moving code out of the top five.

Word-form variants ``v(q)`` reach code nodes only (``variants``): letting doc
pages take them everywhere crowded symbols out of the top five. But a question
about a topic the docs explain ("how can each step process what the previous
one produced" against the "Multi Command Pipelines" section that says
"processing", "chain", "pipe") then finds its page below code that shares the
question's exact forms. So, zero config (``page_lead = true``), when the query
names no symbol (``b_name`` is 1 everywhere):

1. every doc page (a doc section or a recipe) is scored with its variant term
   counted, ``s_lead(p) = (L(p) + wv * BM25(p, v(q))) * factors(p)``;
2. the best page ``p*`` leads if ``s_lead(p*)`` is above every node's final score
   and the first node is code (a page that is first already stays first);
3. it is put first only if no code node leaves the top five: ``p*`` is there
   already, or another page there moves to sixth. Otherwise nothing moves.

The answer-or-ask decision reads the ranking without the lead
(``retrieve_context(..., lead=False)``): a page put first says where to read,
not how much of the question the corpus covers. docs/retrieval.md, section 4.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import boosts

TOP = 5  # the code nodes in these first places stay where they are


def lead_candidate(
    lexical: np.ndarray,
    variants: np.ndarray,
    pages: np.ndarray,
    mask: np.ndarray | None,
    variant_weight: float,
    factors: np.ndarray,
    final: np.ndarray,
) -> tuple[int, float, float, float] | None:
    """``(p*, s_lead(p*), BM25(p*, v(q)), L(p*) with it)`` when the best page with its
    variants outscores every node.

    ``variants`` is ``BM25(c, v(q))`` of every node, ``pages`` the rows of the doc
    pages, ``mask`` the rows a filter lets rank (None: all), ``factors`` the
    composed factors of every node. Every vector may hold the scorer's candidate
    nodes only, all other nodes scoring 0: ``p*`` is then an index into them.
    """
    rows = pages[variants[pages] > 0]
    if mask is not None:
        rows = rows[mask[rows]]
    if not rows.size:
        return None  # no page takes a variant: every page scores as it does already
    led_lexical = (lexical[rows] + variant_weight * variants[rows]).astype(boosts.SCORE_DTYPE)
    scores = boosts.compose(led_lexical, np.broadcast_to(factors, lexical.shape)[rows])
    best = int(np.argmax(scores))
    score = float(scores[best])
    if score <= 0 or score <= float(final.max(initial=0.0)):
        return None
    return int(rows[best]), score, float(variants[rows[best]]), float(led_lexical[best])


def with_lead(final: np.ndarray, parts: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    """``final`` and the score parts with the lead page's own row as it was scored to lead,
    so that its explained terms compose to its score (copies: the inputs are kept).
    ``parts["rows"]``: the node of each score, ascending (None: every node)."""
    lead, score, variants, lexical = parts["lead"]
    rows = parts.get("rows")
    row = lead if rows is None else int(np.searchsorted(rows, lead))
    parts = {**parts, **{key: parts[key].copy() for key in ("v", "lexical", "composed")}}
    parts["v"][row], parts["lexical"][row], parts["composed"][row] = variants, lexical, score
    final = final.copy()
    final[row] = score
    return final, parts


def led(order: list[int], lead: int, is_page: Any) -> list[int] | None:
    """``order`` with ``lead`` first; None when a page is first already or when that
    would move code out of the top five.

    ``is_page[i]`` says whether node ``i`` is a doc page. ``order`` is the ranking
    before the lead, at least ``TOP + 1`` long when that many nodes score.
    """
    if not order or is_page[order[0]]:
        return None  # a page is first already (or nothing scores)
    rest = [i for i in order if i != lead]
    if lead not in order[:TOP]:
        pages = [j for j, i in enumerate(rest[:TOP]) if is_page[i]]
        if not pages:
            return None  # the lead would push the fifth code node out
        rest.insert(TOP - 1, rest.pop(pages[-1]))  # that page goes to sixth, after the lead
    return [lead, *rest]


__all__ = ["TOP", "lead_candidate", "led", "with_lead"]
