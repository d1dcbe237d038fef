"""The boosted lexical retriever as a LlamaIndex retriever.

``CodeciteRetriever`` is ``scorer.LexicalScorer`` (BM25 over identifier-aware
tokens, composed boosts; docs/retrieval.md) as a subclass of LlamaIndex's
``BM25Retriever``, so it drops into any pipeline: built on an existing
``bm25s.BM25`` made from codecite's own token lists, it returns
``NodeWithScore`` whose score is ``s(c)``, made for the returned nodes only.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bm25s
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.retrievers.bm25 import BM25Retriever

from .lexical import load_bm25, quiet_bm25s, save_bm25
from .pages import PageEvidence
from .persist import load_retriever, persist_retriever
from .ranking import CANDIDATES_PER_RESULT, _capped, _sorted, rank_order
from .rerank import rerank_context
from .results import to_node_with_score
from .scorer import DEFAULT_TOP_K, MAX_TOP_K, LexicalScorer, variant_scores
from .settings import ScoringSettings

quiet_bm25s()  # importing llama_index.retrievers.bm25 set bm25s's logger back to DEBUG


class CodeciteRetriever(LexicalScorer, BM25Retriever):
    """Identifier-aware BM25 with expansion and the composed boosts (docs/retrieval.md).

    Example:
        >>> index = codecite.load("path/to/repo")                 # doctest: +SKIP
        >>> retriever = index.retriever(similarity_top_k=5)       # doctest: +SKIP
        >>> retriever.retrieve("how do I correct static shift")   # doctest: +SKIP
    """

    def __init__(
        self,
        nodes: Sequence[Any],
        bm25: bm25s.BM25,
        similarity_top_k: int = DEFAULT_TOP_K,
        callback_manager: Any = None,
        verbose: bool = False,
        **kwargs: Any,
    ) -> None:
        LexicalScorer.__init__(self, nodes, bm25, similarity_top_k=similarity_top_k, **kwargs)
        top_k = self.similarity_top_k
        BM25Retriever.__init__(
            self,
            existing_bm25=bm25,
            similarity_top_k=top_k,
            skip_stemming=True,
            callback_manager=callback_manager,
            verbose=verbose,
        )
        self.similarity_top_k = top_k  # the parent clamps it to the corpus size

    @classmethod
    def class_name(cls) -> str:
        return "CodeciteRetriever"

    @classmethod
    def from_nodes(cls, nodes: Sequence[TextNode], **kwargs: Any) -> CodeciteRetriever:
        """Tokenize ``nodes`` (e.g. an ``IngestionPipeline``'s output) and index them.

        Example:
            >>> r = CodeciteRetriever.from_nodes([TextNode(text="StaticShiftAgent")])
            >>> r.retrieve("shift")[0].node.text
            'StaticShiftAgent'
        """
        from .lexical import build_bm25
        from .tokenizer import tokenize

        settings = kwargs.get("settings") or ScoringSettings()
        tokens = [tokenize(n.get_content()) for n in nodes]
        bm25 = build_bm25(tokens or [[]])
        kwargs["settings"] = settings
        if tokens:
            paths = [str(n.metadata.get("source_path") or "") for n in nodes]
            kwargs.setdefault("pages", PageEvidence.from_tokens(paths, tokens))
        return cls(list(nodes), bm25, **kwargs)

    node_postprocessors: Sequence[Any] = ()  # LlamaIndex rerankers, after the ranking

    def retrieve_explained(self, query: str | QueryBundle) -> Any:
        """What ``retrieve`` returns, as a ``RetrievedContext``: the hits after the
        ``node_postprocessors``, each with every term of its composed score and the
        reranker's beside it (``breakdown[node_id].rerank_score``; ``explain_text``)."""
        text = query.query_str if isinstance(query, QueryBundle) else str(query)
        return rerank_context(self.retrieve_context(query), self.node_postprocessors, text)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [to_node_with_score(hit) for hit in self.retrieve_explained(query_bundle).nodes]

    # -- persistence ---------------------------------------------------------------------
    def persist(self, path: str, encoding: str = "utf-8", **kwargs: Any) -> None:
        """Write the nodes, the bm25s arrays and the settings to ``path`` (no pickle)."""
        persist_retriever(self, Path(path))

    @classmethod
    def from_persist_dir(
        cls, path: str, encoding: str = "utf-8", **kwargs: Any
    ) -> CodeciteRetriever:
        """Load a retriever from ``path`` (an index dir or a ``persist()`` output)."""
        return load_retriever(cls, Path(path), **kwargs)


# the keywords of ``CodeciteRetriever`` a caller of ``CodeciteIndex.retriever`` may give:
# the scorer's parts it may replace, and LlamaIndex's own (the index fills in the rest)
RETRIEVER_OPTIONS = frozenset(
    {*inspect.signature(LexicalScorer.__init__).parameters, "callback_manager", "verbose"}
    | {"node_postprocessors"}
) - {"self", "nodes", "bm25", "kinds", "path_prefix"}


__all__ = [
    "CANDIDATES_PER_RESULT",
    "MAX_TOP_K",
    "RETRIEVER_OPTIONS",
    "CodeciteRetriever",
    "_capped",
    "_sorted",
    "load_bm25",
    "rank_order",
    "save_bm25",
    "variant_scores",
]
