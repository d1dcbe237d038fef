"""Answer-or-ask calibrated per index, at build time, from the corpus itself.

A fixed floor cannot fit every corpus: raw BM25 scores grow with the corpus's
vocabulary and its doc/code balance. So each build asks its own index two sets
of questions through the real retrieval path (docs/answers.md, "Calibration"):

- *in-scope probes*: up to ``PROBES`` questions generated from the index, "how
  do I" plus the first sentence of a public docstring, a doc section or a
  recipe, with its identifiers dropped (dotted, snake_case, CamelCase, code
  spans, numbers): the words a user could know without knowing the API;
- *off-topic probes*: every fifth question of the bundled
  ``data/offtopic_probes.txt`` (60 of 300 questions about other languages,
  other libraries, other domains, vague complaints).

The score floor is ``SCORE_FACTOR`` times the median best score of the in-scope
probes; the decision that uses it is ``codecite.retrievers.evidence.judge``. The
calibration records the probe counts and the rates the whole decision achieves
on both sets (in-scope probes refused, off-topic probes clarified). The probes
are chosen by a digest of their node ids, so the same corpus gives the same
calibration. An incremental build keeps the previous calibration unless the
node count moved by more than ``RECALIBRATE_DRIFT`` since it was made (a
one-file edit barely moves a median of a hundred scores); a full build always
recalibrates.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from statistics import median
from typing import Any

from codecite.retrievers.evidence import SCORE_FACTOR, judge
from codecite.vocabulary import CODE_KINDS, NodeKind

CALIBRATION_VERSION = 1
PROBES = 100
MIN_PROBES = 10  # fewer generated questions than this: no score floor (coverage alone)
MIN_WORDS = 4
MAX_WORDS = 14
RECALIBRATE_DRIFT = 0.05
OFFTOPIC_STRIDE = 5  # every fifth bundled question: 60 of 300, each section sampled
PROSE_KINDS = frozenset({NodeKind.DOC_SECTION.value, NodeKind.RECIPE.value})
_ROLE = re.compile(r":[\w:]+:`~?([^`]*)`")  # :class:`~pkg.Name` -> pkg.Name (then dropped)
_FIRST = re.compile(r"\n\s*\n|(?<=[.!?])\s")
_STRIP = ".,;:()[]{}'\"!?"


def probe_questions(records: Sequence[Any], limit: int = PROBES) -> list[str]:
    """The in-scope probes of a corpus: deterministic, at most ``limit``.

    Nodes are visited in the order of a digest of their ids, so which nodes ask
    does not depend on file order, and only until ``limit`` questions are found.
    """
    order = sorted(
        (hashlib.sha1(node.node_id.encode("utf-8")).hexdigest(), i)
        for i, node in enumerate(records)
        if node.metadata.get("kind") in CODE_KINDS | PROSE_KINDS
    )
    found = []
    for _, i in order:
        words = _probe_words(records[i])
        if len(words) >= MIN_WORDS:
            found.append("how do I " + " ".join(words[:MAX_WORDS]))
            if len(found) == limit:
                break
    return found


def _probe_words(node: Any) -> list[str]:
    meta = node.metadata
    kind = meta.get("kind")
    if kind in CODE_KINDS:
        if not meta.get("public", True) or not meta.get("docstring"):
            return []
        text = str(meta["docstring"])
    elif kind in PROSE_KINDS:
        text = node.text.split("\n\n", 1)[1] if "\n\n" in node.text else ""  # past the heading
    else:
        return []
    return plain_words(first_sentence(text))


def first_sentence(text: str) -> str:
    """The first sentence (or paragraph) of ``text``, reST roles reduced to their target."""
    return _FIRST.split(_ROLE.sub(r"\1", text.strip()), maxsplit=1)[0]


def plain_words(text: str) -> list[str]:
    """The lowercased words of ``text`` that are not identifiers, code or numbers."""
    out = []
    for raw in text.split():
        word = raw.strip(_STRIP)
        if (
            not word
            or not word.isascii()
            or any(c in raw for c in "`(")
            or any(c in word for c in "_.")
            or any(c.isdigit() for c in word)
            or any(c.isupper() for c in word[1:])
        ):
            continue
        out.append(word.lower())
    return out


@cache
def offtopic_questions() -> tuple[str, ...]:
    """The bundled off-topic probes (``data/offtopic_probes.txt``)."""
    text = files("codecite").joinpath("data/offtopic_probes.txt").read_text(encoding="utf-8")
    return tuple(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


def calibrate(scorer: Any, records: list[Any]) -> dict[str, Any]:
    """The calibration of the index ``scorer`` ranks over (its nodes: ``records``)."""
    probes = probe_questions(records)
    contexts = [scorer.retrieve_context(q) for q in probes]
    tops = [c.top_score for c in contexts if c.nodes]
    entry: dict[str, Any] = {
        "version": CALIBRATION_VERSION,
        "node_count": len(records),
        "probes": len(probes),
        "score_factor": SCORE_FACTOR,
        "median_probe_score": round(median(tops), 4) if tops else None,
        "score_floor": None,
    }
    if len(tops) >= MIN_PROBES:
        entry["score_floor"] = round(SCORE_FACTOR * median(tops), 4)
    refused = sum(not judge(scorer, c, entry).confident for c in contexts)
    off = offtopic_questions()[::OFFTOPIC_STRIDE]
    clarified = sum(not judge(scorer, scorer.retrieve_context(q), entry).confident for q in off)
    entry.update(
        offtopic_probes=len(off),
        probes_refused=round(refused / len(probes), 4) if probes else None,
        offtopic_clarified=round(clarified / len(off), 4) if off else None,
    )
    return entry


def keep_previous(previous: dict[str, Any] | None, node_count: int) -> bool:
    """Whether an incremental build may keep ``previous`` (the old manifest's entry)."""
    if not previous or previous.get("version") != CALIBRATION_VERSION:
        return False
    made_at = int(previous.get("node_count") or 0)
    return made_at > 0 and abs(node_count - made_at) <= RECALIBRATE_DRIFT * made_at
