"""Real names to offer for a made-up one, so that a model can retry with a real import.

Close names where the lookup failed come first (``difflib``), then the
package's modules and symbols with that leaf, then those whose name holds all
its words (``static_shift`` -> ``pkg.agents.static_shift``,
``StaticShiftAgent``); at most ``MAX_SUGGESTIONS``, all shown in the message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from difflib import get_close_matches

from codecite.retrievers.tokenizer import split_identifier

MAX_SUGGESTIONS = 3  # real names offered for a made-up one


def did_you_mean(name: str, candidates: Iterable[str]) -> tuple[str, ...]:
    """Close real names (private ones only when ``name`` itself is private)."""
    pool = sorted(
        {c for c in candidates if c != name and (name.startswith("_") or not c.startswith("_"))}
    )
    return tuple(get_close_matches(name, pool, n=3, cutoff=0.6))


def split_words(name: str) -> list[str]:
    """The lower-cased words of an identifier (``StaticShiftAgent`` -> static shift agent)."""
    return [w.lower() for w in split_identifier(name) if w]


def with_hint(message: str, suggestions: tuple[str, ...]) -> str:
    """``message (did you mean `a`, `b` or `c`?)``: every suggestion, for a model to retry."""
    if not suggestions:
        return message
    names = [f"`{s}`" for s in suggestions]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return f"{message} (did you mean {listed}?)"


def suggest(name: str, local: Iterable[str], every_name: Sequence[str]) -> tuple[str, ...]:
    """Close names among ``local``, then names of ``every_name`` (modules and symbols,
    shortest first) whose leaf is ``name`` or holds all of its words."""
    near = list(did_you_mean(name, local))
    words = set(split_words(name))
    exact, containing = [], []
    for full in every_name:
        leaf = full.rsplit(".", 1)[-1]
        if leaf.startswith("_") and not name.startswith("_"):
            continue
        if leaf == name:
            exact.append(full)
        elif len(words) > 1 and words <= set(split_words(leaf)):
            containing.append(full)
    for candidate in [*exact, *containing]:
        if len(near) >= MAX_SUGGESTIONS:
            break
        if candidate not in near:
            near.append(candidate)
    return tuple(near)
