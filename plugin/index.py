"""A loaded index: nodes, the lexical retriever, the symbol table, stale checks.

``codecite.load(path)`` is the entry point of notebooks and every CLI command. Loading
trusts nothing on disk: every file is size-checked and matched with its checksum, a
record is type-checked when first decoded (``codecite.store.stored``), and the manifest
file is checked to be the same one at the end, so a load that raced a swap is retried.
"""

from __future__ import annotations

import copy
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codecite.config import CodeciteConfig, load_config
from codecite.errors import IndexIntegrityError, IndexNotFoundError, QueryError, StaleIndexError
from codecite.indexer.walk import walk_corpus
from codecite.node_parsers.schema import NodeRecord, text_node
from codecite.retrievers.columns import check_filters, node_columns
from codecite.retrievers.lexical import BM25_DIR, load_bm25
from codecite.retrievers.persist import load_parts
from codecite.retrievers.results import RetrievedContext
from codecite.retrievers.scorer import LexicalScorer
from codecite.store.files import (
    FEEDBACK,
    NODES,
    SYMBOLS,
    Manifest,
    read_json,
    read_manifest_text,
    verify_files,
)
from codecite.store.lock import build_running
from codecite.store.opening import (
    check_feedback,
    check_tokenizer,
    check_trusted,
    decoded,
    manifest_stamp,
    manifest_summary,
    put_back,
    record_vote,
    recorded_root,
    stale_fix,
)
from codecite.store.records import collector_paused
from codecite.store.reuse import TERM_FILES
from codecite.store.stored import READ_AT_LOAD, StoredNodes, StoredSymbols, stored_nodes
from codecite.store.symbols import SymbolTable, module_namespaces
from codecite.store.term_counts import counted_pages
from codecite.vocabulary import KINDS, REBUILD_FIX

if TYPE_CHECKING:
    from llama_index.core.vector_stores.types import MetadataFilters

logger = logging.getLogger(__name__)

LOAD_ATTEMPTS = 3  # a load that meets a build's swap reads the index again, this often
SWAP_RETRY_SECONDS = 0.2  # a swap is two renames: it is over well within this
# Files a load does not read: checked by size then, by their readers when read (nodes.jsonl
# a record at a time), and all at once by ``verify``.
READ_ON_DEMAND = frozenset((NODES, SYMBOLS, *TERM_FILES))
DENSE_OPTIONS = ("embed_model", "vector_store", "symbol_gate")  # hybrid_retriever's
QUERY_OPTIONS = frozenset({"kind", "workflow", "path", "filters", "dense", *DENSE_OPTIONS})


class CodeciteIndex:
    """A built codecite index, loaded from ``.codecite/``.

    Example:
        >>> index = codecite.load("path/to/repo")             # doctest: +SKIP
        >>> index.query("static shift correction", k=5)       # doctest: +SKIP
    """

    def __init__(
        self,
        config: CodeciteConfig,
        manifest: Manifest,
        nodes: Sequence[NodeRecord],
        bm25: Any,
        symbol_table: SymbolTable | None,
        parts: dict[str, Any],
    ) -> None:
        self.config = config
        self.manifest = manifest
        self.nodes = nodes
        self.bm25 = bm25
        self._symbol_table = symbol_table
        self._parts = parts
        self._arrays: Any = None

    # -- loading --------------------------------------------------------------------
    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        *,
        index_dir: str | None = None,
        config_file: str | Path | None = None,
        strict: bool = False,
        check_stale: bool = True,
    ) -> CodeciteIndex:
        if path is None:  # an index_dir index's own repository, as the CLI takes; else here
            index_dir = os.path.abspath(index_dir) if index_dir else None
            path = (recorded_root(index_dir) if index_dir else None) or "."
        cfg = load_config(path, config_file, index_dir=index_dir)
        for attempt in range(LOAD_ATTEMPTS):
            before = manifest_stamp(cfg.index_path)
            try:
                with collector_paused():  # a load makes many objects, none of them garbage
                    index = cls._read(cfg)
                break
            except (IndexIntegrityError, IndexNotFoundError):
                # a build swapping the index in leaves it absent or half-read for a moment
                racing = build_running(cfg.index_path) or manifest_stamp(cfg.index_path) != before
                if attempt == LOAD_ATTEMPTS - 1 or not racing:  # damage, not a swap
                    raise
                time.sleep(SWAP_RETRY_SECONDS)
        if check_stale:
            index.warn_if_stale(strict)
        return index

    @classmethod
    def _read(cls, cfg: CodeciteConfig) -> CodeciteIndex:
        index_dir = cfg.index_path
        if not index_dir.exists() and not put_back(index_dir):
            raise IndexNotFoundError(
                f"no index at '{index_dir}'; run `codecite build` in '{cfg.root}' first"
            )
        stamp = manifest_stamp(index_dir)  # taken first: a swap after it changes it
        manifest, text = read_manifest_text(index_dir)
        check_trusted(cfg, manifest, text)
        check_tokenizer(index_dir, manifest)
        verify_files(index_dir, manifest, read_later={*READ_ON_DEMAND, *READ_AT_LOAD})
        # decoded as asked for: a query reads its hits' records, scoring reads columns
        nodes = decoded(index_dir / NODES, lambda: stored_nodes(index_dir, manifest))
        if len(nodes) != manifest["node_count"]:
            raise IndexIntegrityError(
                f"index file '{index_dir / NODES}' has {len(nodes)} "
                f"nodes, the manifest says {manifest['node_count']}; {REBUILD_FIX}"
            )
        bm25 = decoded(index_dir / BM25_DIR, lambda: load_bm25(index_dir))
        if decoded(index_dir / BM25_DIR, lambda: int(bm25.scores["num_docs"])) != len(nodes):
            raise IndexIntegrityError(
                f"lexical index '{index_dir / BM25_DIR}' does not match nodes.jsonl; {REBUILD_FIX}"
            )
        check_feedback(index_dir / FEEDBACK)
        parts = decoded(index_dir, lambda: load_parts(index_dir, nodes))
        if parts["pages"] is None:  # page evidence from the term counts, if ever asked for
            parts["pages"] = counted_pages(
                index_dir, manifest, nodes, cfg.retrieval.k1, cfg.retrieval.b
            )
        if manifest_stamp(index_dir) != stamp:  # another manifest file: a build swapped
            message = "was replaced while it was being read (a build finished); load it again"
            raise IndexIntegrityError(f"index at '{index_dir}' {message}")
        return cls(cfg, manifest, nodes, bm25, None, parts)

    @property
    def symbol_table(self) -> SymbolTable:
        """The package namespace as parsed (loaded on first use: queries do not need it)."""
        if self._symbol_table is None:
            path = self.config.index_path / SYMBOLS
            verify_files(self.config.index_path, self.manifest, only=(SYMBOLS,))
            modules = decoded(path, lambda: dict(read_json(path)["modules"]))
            self._symbol_table = decoded(path, lambda: self._symbols_of(modules))
        return self._symbol_table

    def _symbols_of(self, modules: dict[str, Any]) -> SymbolTable:
        table = (  # a stored index's details are read per symbol, when asked for
            SymbolTable(module_namespaces(modules.values()), StoredSymbols(self.nodes))
            if isinstance(self.nodes, StoredNodes)
            else SymbolTable.from_parts(modules.values(), (n.metadata for n in self.nodes))
        )
        return table.with_skipped(self.manifest.get("skipped", []))  # validation: unknown

    # -- freshness --------------------------------------------------------------------
    def current_fingerprint(self) -> str:
        return walk_corpus(self.config, known=self.manifest.get("files")).fingerprint

    def is_stale(self) -> bool:
        """True when the indexed files changed since the build (content, not mtime)."""
        return self.current_fingerprint() != self.manifest.get("fingerprint")

    def warn_if_stale(self, strict: bool = False) -> None:
        """Warn (``strict``: raise ``StaleIndexError``) when the sources changed since the build."""
        fresh = self.current_fingerprint()
        built = str(self.manifest.get("fingerprint"))
        if fresh != built:
            message = (
                f"index at '{self.config.index_path}' was built from other sources "
                f"(fingerprint {built[:8]}... != {fresh[:8]}...); "
                + stale_fix(self.manifest.get("root"), self.config.root)
            )
        elif self.manifest.get("config_digest") != self.config.digest():
            message = (
                f"index at '{self.config.index_path}' was built with other settings "
                f"than {self.config.source or 'the defaults'} now gives; "
                "run `codecite build`"
            )
        else:
            return
        if strict:
            raise StaleIndexError(message)
        logger.warning(message)

    # -- retrieval ----------------------------------------------------------------------
    def retriever(
        self,
        similarity_top_k: int = 10,
        *,
        kind: str | list[str] | None = None,
        workflow: str | None = None,
        path: str | None = None,
        filters: MetadataFilters | None = None,
        dense: bool = False,
        **kwargs: Any,
    ) -> Any:
        """A LlamaIndex retriever (lexical, or hybrid with ``dense``); ``node_postprocessors``."""
        from codecite.answers.engine import engine_options  # a misspelt keyword: an error
        from codecite.retrievers.bm25 import RETRIEVER_OPTIONS, CodeciteRetriever

        kwargs = engine_options("as_retriever", kwargs, RETRIEVER_OPTIONS | QUERY_OPTIONS)
        similarity_top_k = kwargs.pop("similarity_top_k", similarity_top_k)  # given as ``k``
        dense_options = {k: kwargs.pop(k) for k in DENSE_OPTIONS if k in kwargs}
        postprocessors = list(kwargs.pop("node_postprocessors", None) or ())
        retriever = self._lexical(
            CodeciteRetriever, similarity_top_k, kind, workflow, path, filters=filters, **kwargs
        )
        if dense:  # the hybrid retriever fuses the lexical one with the vectors
            from codecite.dense.retrieval import hybrid_retriever as hybrid

            retriever = hybrid(self, retriever, similarity_top_k, **dense_options)
        retriever.node_postprocessors = postprocessors
        return retriever

    def scorer(self, similarity_top_k: int = 10, **options: Any) -> LexicalScorer:
        """``retriever``'s lexical ranking without LlamaIndex (plain hits): what ``query`` uses."""
        return self._lexical(LexicalScorer, similarity_top_k, **options)  # type: ignore[no-any-return]

    def _lexical(
        self,
        cls: Any,
        similarity_top_k: int,
        kind: str | list[str] | None = None,
        workflow: str | None = None,
        path: str | None = None,
        **kwargs: Any,
    ) -> Any:
        kinds = [kind] if isinstance(kind, str) else list(kind or [])
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise QueryError(f"unknown kind {unknown[0]!r}; use one of {', '.join(KINDS)}")
        if type(similarity_top_k) is not int or similarity_top_k <= 0:  # not a bool either
            raise QueryError(f"k must be a positive integer, got {similarity_top_k!r}")
        check_filters(node_columns(self.nodes), workflow, path)  # a typo is no empty answer
        parts = {k: v for k, v in self._parts.items() if k != "similarity_top_k"}
        if "settings" not in kwargs and "feedback" not in kwargs:
            parts["node_arrays"] = self._node_arrays()  # made once, not on every query
        parts.update(kwargs)
        return cls(
            self.nodes,
            self.bm25,
            similarity_top_k=similarity_top_k,
            kinds=kinds or None,
            workflow=workflow,
            path_prefix=path,
            **parts,
        )

    def _node_arrays(self) -> Any:
        """Per-node scoring vectors, computed once per settings and feedback state."""
        if self._arrays is None:
            from codecite.retrievers.node_arrays import NodeArrays

            p = self._parts
            names = (p.get("public_names"), p.get("propagation"), p.get("documented"))
            with collector_paused():  # tables of every symbol: many objects, none garbage
                self._arrays = NodeArrays(self.nodes, p["settings"], p.get("feedback", {}), *names)
        return self._arrays

    def query(self, query: str, k: int = 10, **filters: Any) -> RetrievedContext:
        """Ranked, explained evidence for ``query`` (retrieval only, no answer)."""
        if not isinstance(query, str) or not query.strip():
            raise QueryError("the query is empty; ask a question or name a symbol")
        unknown = sorted(set(filters) - QUERY_OPTIONS - set(self._parts))
        if unknown:
            raise QueryError(
                f"query() got an unknown argument {unknown[0]!r}; it takes k (the "
                "number of results), kind, workflow, path, filters and dense"
            )
        if filters.pop("dense", False):
            return self.retriever(k, dense=True, **filters).retrieve_context(query)
        for option in DENSE_OPTIONS:  # they choose how dense ranks: nothing to do here
            filters.pop(option, None)
        return self.scorer(k, **filters).retrieve_context(query)

    search = query

    def with_settings(self, **overrides: Any) -> CodeciteIndex:
        """This index ranked with other scoring settings, e.g. to compare configurations.

        Example:
            >>> plain = index.with_settings(doc_propagation=False)   # doctest: +SKIP
        """
        other = copy.copy(self)  # the same nodes and tables; its own parts and vectors
        other._parts = {**self._parts, "settings": replace(self._parts["settings"], **overrides)}
        other._arrays = None
        return other

    def node(self, node_id: str) -> NodeRecord | None:
        row = self._node_arrays().positions().get(node_id)
        return None if row is None else self.nodes[row]

    def verify(self) -> int:
        """Check every file's checksum, then every record against the columns; the count."""
        verify_files(self.config.index_path, self.manifest)
        return self.nodes.verify() if hasattr(self.nodes, "verify") else len(self.nodes)

    def text_nodes(self) -> list[Any]:
        """Every node as a LlamaIndex ``TextNode``, for a pipeline of your own."""
        return [text_node(n) for n in self.nodes]

    # -- feedback ------------------------------------------------------------------------
    def resolve_symbol(self, name: str) -> str | None:
        """The indexed symbol ``name`` means (``attrs.define``: ``attr._next_gen.define``)."""
        return self._node_arrays().names.symbol(name)

    def symbol_nodes(self, symbol: str) -> list[NodeRecord]:
        """The code nodes of ``symbol`` (a property's getter and setter are two)."""
        return [self.nodes[i] for i in self._node_arrays().names.rows.get(symbol, ())]

    def feedback(self, symbol: str, up: bool, query: str | None = None) -> float:
        """Record a vote for ``symbol`` (or what its public name names); its new factor."""
        from codecite.retrievers.boosts import feedback_factor

        symbol = self.resolve_symbol(symbol) or symbol

        data, votes = record_vote(self.config.index_path, symbol, up, query)
        self._parts["feedback"] = {s: float(v["votes"]) for s, v in data.items()}
        self._arrays = None
        return feedback_factor(votes, self.config.retrieval.feedback_floor)

    # -- summary ---------------------------------------------------------------------------
    def stats(self, check_stale: bool = True) -> dict[str, Any]:
        out = manifest_summary(self.config.index_path, self.manifest)
        if check_stale:
            out["stale"] = self.is_stale()
        return out

    def _repr_html_(self) -> str:
        s = self.stats(check_stale=False)
        rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in s["by_kind"].items())
        return (
            f"<b>codecite index</b> {s['index_dir']}: {s['nodes']} nodes from "
            f"{s['files']} files<table>{rows}</table>"
        )

    as_retriever = retriever  # LlamaIndex's name for it

    # -- answers (codecite.answers.engine) ---------------------------------------------------
    def as_query_engine(self, **kwargs: Any) -> Any:
        """A ``CodeciteQueryEngine`` over this index (cited answer or clarification)."""
        from codecite.answers.engine import CodeciteQueryEngine, engine_options

        return CodeciteQueryEngine(index=self, **engine_options("as_query_engine", kwargs))

    def as_chat_engine(self, **kwargs: Any) -> Any:
        """A LlamaIndex chat engine over this index: cited answers, follow-ups kept."""
        from codecite.answers.chat import CodeciteChatEngine

        return CodeciteChatEngine(self, **kwargs)

    def ask(
        self, query: str, llm: Any = None, session: Any = None, k: int | None = None, **kwargs: Any
    ) -> Any:
        """Answer ``query`` with citations, or ask for clarification (a LlamaIndex Response);
        ``k`` evidence nodes are retrieved (the engine's ``similarity_top_k``)."""
        from codecite.answers.engine import CodeciteQueryEngine

        if not isinstance(query, str) or not query.strip():
            raise QueryError("the question is empty; ask a question or name a symbol")
        if k is not None:
            self.retriever(k)  # raises QueryError for a bad k
            kwargs["similarity_top_k"] = k
        if unknown := sorted(set(kwargs) - set(CodeciteQueryEngine.model_fields)):
            raise QueryError(
                f"ask() takes no argument {unknown[0]!r}; filters (kind, workflow, "
                "path) belong to index.query()"
            )
        return self.as_query_engine(llm=llm, session=session, **kwargs).query(query)


def load(path: str | Path | None = None, **kwargs: Any) -> CodeciteIndex:
    """Load the index of the repository at ``path`` (see ``CodeciteIndex.load``)."""
    return CodeciteIndex.load(path, **kwargs)
