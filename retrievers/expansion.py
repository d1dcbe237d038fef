"""Deterministic query expansion e(q) and workflow inference from the query.

Conservative by design: a configured trigger phrase fires only as whole words
of the lowered query, and an expansion term already in the query adds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .tokenizer import tokenize


def _contains_phrase(text: str, phrase: str) -> bool:
    if phrase not in text:  # most phrases of a configuration are absent: no regex for them
        return False
    # ``x(?<!\wx)`` tests the character before ``x`` like ``(?<!\w)x`` does, but opens
    # with the literal, which the regex engine scans for fast (docs/reliability.md)
    literal = re.escape(phrase)
    return re.search(rf"{literal}(?<!\w{literal})(?!\w)", text) is not None


def configured_expansion(
    query: str, expansions: Mapping[str, Iterable[str]], query_tokens: Iterable[str]
) -> list[str]:
    """Tokens added by configured trigger phrases, minus those already in the query."""
    lowered = query.lower()
    seen = set(query_tokens)
    out: list[str] = []
    for phrase, terms in expansions.items():
        if not _contains_phrase(lowered, phrase.lower()):
            continue
        for term in terms:
            for tok in tokenize(term):
                if tok not in seen:
                    seen.add(tok)
                    out.append(tok)
    return out


def infer_workflow(query: str, workflows: Mapping[str, Iterable[str]]) -> str | None:
    """The workflow whose keywords the query mentions most (file order breaks ties)."""
    lowered = query.lower()
    best, best_hits = None, 0
    for name, keywords in workflows.items():
        hits = sum(1 for k in keywords if k and _contains_phrase(lowered, k.lower()))
        if hits > best_hits:
            best, best_hits = name, hits
    return best
