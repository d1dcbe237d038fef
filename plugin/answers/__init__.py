"""Answers: a cited answer to a question about the code, or an honest clarification.

One module per step of an answer (see docs/answers.md):

- ``routing``: intent and workflow of a query, before retrieval;
- ``registry``, ``session``, ``followups``: the project's named things, the
  conversation so far, and follow-ups made standalone;
- ``confidence``: answer or ask (the clarification decision);
- ``context``: ranked evidence, API cards and related symbols within a token budget;
- ``citations``: ``[id] path:start-end`` sources and the check of an answer's ids;
- ``texts``: the offline answer, clarification and workflow notice;
- ``answerer``: :class:`Answerer`, the answer pass over all of it (plain Python);
- ``engine``: :class:`CodeciteQueryEngine`, the same pass as a LlamaIndex query engine;
- ``tools``: ask, search and validate as LlamaIndex agent tools;
- ``protocols``: :class:`IndexLike`, what these modules need of an index.

Names load on first use, so importing one module does not import the engine.

Example:
    >>> from codecite.answers import CodeciteQueryEngine              # doctest: +SKIP
    >>> engine = CodeciteQueryEngine(index=codecite.load("."))        # doctest: +SKIP
    >>> engine.query("how do I load a survey?").metadata["path"]      # doctest: +SKIP
    'offline_answer'
"""

from __future__ import annotations

from codecite.lazy import lazy_attributes

__all__ = [
    "Answer",
    "Answerer",
    "AssembledContext",
    "Citation",
    "CitationCheck",
    "CodeciteQueryEngine",
    "Confidence",
    "IndexLike",
    "Intent",
    "ProjectRegistry",
    "RegistryEntry",
    "Rewrite",
    "Route",
    "Session",
    "Turn",
    "as_tools",
    "assemble",
    "assess",
    "check_citations",
    "filter_stream",
    "load_registry_file",
    "rewrite_followup",
    "route_query",
]

_LAZY = {
    "Answer": "answerer",
    "Answerer": "answerer",
    "AssembledContext": "context",
    "assemble": "context",
    "Citation": "citations",
    "CitationCheck": "citations",
    "check_citations": "citations",
    "filter_stream": "citations",
    "CodeciteQueryEngine": "engine",
    "Confidence": "confidence",
    "assess": "confidence",
    "IndexLike": "protocols",
    "Intent": "routing",
    "Route": "routing",
    "route_query": "routing",
    "ProjectRegistry": "registry",
    "RegistryEntry": "registry",
    "load_registry_file": "registry",
    "Rewrite": "followups",
    "rewrite_followup": "followups",
    "Session": "session",
    "Turn": "session",
    "as_tools": "tools",
}


__getattr__ = lazy_attributes(__name__, _LAZY)
