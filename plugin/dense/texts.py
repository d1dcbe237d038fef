"""What a node's vector is made of: the rule that turns a node into the text embedded.

The shipped rule is the node text itself (``node-text``): a code node's qualified
name, signature and docstring, a doc section's heading path and body. A text chosen
per kind (the name in words, the parameter names and the docstring's opening; see
``tests/benchmarks/embedded_texts.py``) was measured against it on 34 suites and
ranked no better, though it embeds 1.7x faster (docs/dense.md, "What is embedded").

Vectors are keyed by a digest of the embedded text (``codecite.dense.vectors``), and
the manifest's ``embedding`` entry records the rule that made them (``"text"``): a
vector is reused only for the same text under the same model, whatever rule the
build that made it followed, and an unknown rule makes nothing reusable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

NODE_TEXT_RULE = "node-text"
TEXT_RULE = NODE_TEXT_RULE  # the shipped rule, recorded in the manifest


def node_text(record: Mapping[str, Any]) -> str:
    """The node text (what lexical retrieval reads too)."""
    return str(record.get("text") or "")


RULES: dict[str, Callable[[Mapping[str, Any]], str]] = {NODE_TEXT_RULE: node_text}
ACTIVE_RULE = TEXT_RULE  # what this process embeds (a benchmark may compare others)


def active(record: Mapping[str, Any]) -> str:
    """The text this build embeds for ``record`` (``ACTIVE_RULE``)."""
    return RULES[ACTIVE_RULE](record)


def rule_of(info: Mapping[str, Any] | None) -> Callable[[Mapping[str, Any]], str] | None:
    """The text rule that made an index's vectors (its manifest ``embedding`` entry); an
    entry without one predates the record (the node text); ``None`` for an unknown rule."""
    name = (info or {}).get("text") or NODE_TEXT_RULE
    return RULES.get(str(name))


__all__ = ["NODE_TEXT_RULE", "RULES", "TEXT_RULE", "active", "node_text", "rule_of"]
