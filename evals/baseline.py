"""The plain LlamaIndex pipeline codecite is compared against.

Same files as the codecite index, each read whole as a ``Document``, split by
the default ``SentenceSplitter``, ranked by the default
``BM25Retriever.from_defaults``: what a user gets from the LlamaIndex
quick start. Its chunks carry no symbol, so a chunk hits an expected symbol
when it is in the symbol's file and its line span overlaps the symbol's
span (taken from the codecite index's node for that symbol). It has no
router, no workflow tags and no clarification path: it always answers.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .metrics import symbol_matches
from .runs import BASELINE, Decision, RankedItem, Run, item_of

logger = logging.getLogger(__name__)
Span = tuple[str, int, int]


def line_span(text: str, start_char: int, end_char: int) -> tuple[int, int]:
    """1-based first and last line of ``text[start_char:end_char]``."""
    first = text.count("\n", 0, start_char) + 1
    last = text.count("\n", 0, max(end_char - 1, start_char)) + 1
    return first, last


def overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    """Closed intervals ``[a_start, a_end]`` and ``[b_start, b_end]`` share a line."""
    return a_start <= b_end and b_start <= a_end


def symbol_spans(nodes: Sequence[Any]) -> dict[str, tuple[Span, ...]]:
    """Every symbol's (file, first line, last line) from the codecite index's nodes."""
    spans: dict[str, list[Span]] = {}
    for node in nodes:
        m = node.metadata
        if m.get("symbol") and m.get("start_line") is not None:
            spans.setdefault(str(m["symbol"]), []).append(
                (str(m["source_path"]), int(m["start_line"]), int(m["end_line"]))
            )
    return {s: tuple(v) for s, v in spans.items()}


def expected_spans(expected: str, spans: Mapping[str, tuple[Span, ...]]) -> tuple[Span, ...]:
    """The spans of the index symbols the expected name matches (same rule as codecite)."""
    known = frozenset(spans)
    if expected in spans:
        return spans[expected]
    return tuple(
        s for sym, group in spans.items() if symbol_matches(expected, sym, known) for s in group
    )


def read_documents(root: Any, paths: Sequence[str]) -> list[Any]:
    from llama_index.core import Document

    docs = []
    for path in paths:
        try:
            text = (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            logger.warning("baseline skips %s: %s", path, exc)
            continue
        docs.append(Document(text=text, metadata={"source_path": path}, id_=path))
    return docs


def chunk_documents(docs: Sequence[Any]) -> list[Any]:
    """``SentenceSplitter`` chunks with each chunk's line span in its metadata."""
    from llama_index.core.node_parser import SentenceSplitter

    nodes: list[Any] = SentenceSplitter().get_nodes_from_documents(docs)
    texts = {d.doc_id: d.text for d in docs}
    for node in nodes:
        text = texts[node.ref_doc_id]
        start = node.start_char_idx if node.start_char_idx is not None else 0
        end = node.end_char_idx if node.end_char_idx is not None else start + len(node.text)
        node.metadata["start_line"], node.metadata["end_line"] = line_span(text, start, end)
    return nodes


@dataclass
class BaselineSystem:
    """Plain ``SentenceSplitter`` + ``BM25Retriever`` over the indexed files."""

    retriever: Any
    spans: Mapping[str, tuple[Span, ...]]
    name: str = BASELINE
    has_tags: bool = False

    @classmethod
    def from_index(cls, index: Any, top: int) -> BaselineSystem:
        from llama_index.retrievers.bm25 import BM25Retriever

        from codecite.retrievers.lexical import quiet_bm25s

        quiet_bm25s()  # that import sets bm25s's logger back to DEBUG

        paths = sorted(
            {str(n.metadata["source_path"]) for n in index.nodes if n.metadata.get("source_path")}
        )
        nodes = chunk_documents(read_documents(index.config.root, paths))
        retriever = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=top)
        logger.info("baseline: %d chunks from %d files", len(nodes), len(paths))
        return cls(retriever=retriever, spans=symbol_spans(index.nodes))

    def run(self, query: str, top: int) -> Run:
        start = time.perf_counter()
        results = self.retriever.retrieve(query)
        latency = (time.perf_counter() - start) * 1000.0
        return Run(tuple(item_of(r) for r in results[:top]), Decision(routed=False), latency)

    def symbol_hits(self, expected: Sequence[str], item: RankedItem) -> frozenset[str]:
        if item.start_line is None or item.end_line is None:
            return frozenset()
        return frozenset(
            e
            for e in expected
            for path, first, last in expected_spans(e, self.spans)
            if path == item.source_path and overlaps(first, last, item.start_line, item.end_line)
        )
