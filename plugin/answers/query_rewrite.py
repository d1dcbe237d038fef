"""LLM query rewriting (opt-in): the project's own words for a question, fused with it.

A paraphrase ("a fresh empty list for each instance") shares no word with the
code it is about (``Factory``); a model that reads the question can name the
likely API. With ``rewrite_queries=True`` and an LLM, the answer pass asks the
model once for up to three rewrites in the package's vocabulary and a short
hypothetical answer (HyDE), retrieves for the original and each of them, and
fuses the rankings by weighted Reciprocal Rank Fusion with the original weighted
first. What the user typed is never lost: when the original ranking's first hit
is a symbol the query names (``b_name > 1``), it stays first. A call that fails,
times out or answers with no JSON leaves the original ranking, with a note.
The answer-or-ask decision reads the original ranking. docs/answers.md.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import MutableMapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from codecite.retrievers.fusion import DEFAULT_RRF_K
from codecite.retrievers.results import Hit, RetrievedContext

MAX_REWRITES = 3
REWRITE_TIMEOUT_S = 20.0
ORIGINAL_WEIGHT, REWRITE_WEIGHT = 1.0, 0.5
REWRITE_PROMPT = (
    "You help search the code and documentation of the Python project {project}.\n"
    "Rewrite the question below as up to three short search queries in the project's "
    "own vocabulary (the API names and terms it likely uses), and write a two-sentence "
    "hypothetical answer.\n"
    'Reply with JSON only: {{"rewrites": ["...", "..."], "answer": "..."}}\n'
    "Question: {query}\n"
)
_EXECUTOR = ThreadPoolExecutor(max_workers=2, thread_name_prefix="codecite-rewrite")


@dataclass
class QueryRewrite:
    """What the model proposed for one question (empty with a ``note`` when it failed)."""

    rewrites: list[str] = field(default_factory=list)
    hypothetical: str | None = None
    note: str | None = None

    def queries(self) -> list[str]:
        return [*self.rewrites, *([self.hypothetical] if self.hypothetical else [])]

    def to_json(self) -> dict[str, Any]:
        return {"rewrites": self.rewrites, "hypothetical": self.hypothetical, "note": self.note}


def _parse(text: str) -> QueryRewrite | None:
    found = re.search(r"\{.*\}", text, re.DOTALL)
    if found is None:
        return None
    try:
        data = json.loads(found.group(0))
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    rewrites = [str(r).strip() for r in data.get("rewrites") or () if str(r).strip()]
    answer = str(data.get("answer") or "").strip() or None
    return QueryRewrite(rewrites[:MAX_REWRITES], answer)


def ask_rewrites(
    llm: Any,
    query: str,
    project: str,
    cache: MutableMapping[str, QueryRewrite] | None = None,
    timeout: float = REWRITE_TIMEOUT_S,
) -> QueryRewrite:
    """One model call for ``query`` (the cached answer when ``cache`` has it)."""
    if cache is not None and query in cache:
        return cache[query]
    prompt = REWRITE_PROMPT.format(project=project, query=query)
    try:
        text = _EXECUTOR.submit(lambda: llm.complete(prompt).text).result(timeout=timeout)
    except FutureTimeout:
        return QueryRewrite(note=f"query rewriting timed out after {timeout:g} s: original query")
    except Exception as exc:  # the model or its server failed: answer without rewrites
        return QueryRewrite(note=f"query rewriting failed ({type(exc).__name__}): original query")
    rewrite = _parse(str(text)) or QueryRewrite(note="the model gave no rewrites: original query")
    if cache is not None and rewrite.note is None:
        cache[query] = rewrite
    return rewrite


def fused_context(
    retriever: Any, original: RetrievedContext, rewrite: QueryRewrite, k: int
) -> RetrievedContext:
    """``original`` re-ranked with the rewrites' rankings (weighted RRF, original first)."""
    queries = rewrite.queries()
    if not queries or not original.nodes:
        return dataclasses.replace(original, rewrites=list(queries))
    rankings = [(original, ORIGINAL_WEIGHT)]
    rankings += [(retriever.retrieve_context(q, k), REWRITE_WEIGHT) for q in queries]
    fused: dict[str, float] = {}
    hits: dict[str, Hit] = {}
    breakdown = dict(original.breakdown)
    for ctx, weight in rankings:
        for rank, hit in enumerate(ctx.nodes, 1):
            node_id = hit.node.node_id
            fused[node_id] = fused.get(node_id, 0.0) + weight / (DEFAULT_RRF_K + rank)
            hits.setdefault(node_id, hit)
            if node_id not in breakdown and node_id in ctx.breakdown:
                breakdown[node_id] = ctx.breakdown[node_id]
    order = sorted(fused, key=lambda i: -fused[i])
    first = original.nodes[0].node.node_id
    named = breakdown.get(first)
    if named is not None and named.name > 1.0:  # the symbol the user named stays first
        order = [first, *(i for i in order if i != first)]
    nodes = [Hit(hits[i].node, fused[i]) for i in order[:k]]
    return dataclasses.replace(original, nodes=nodes, breakdown=breakdown, rewrites=queries)
