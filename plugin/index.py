"""A loaded index: nodes, the lexical retriever, the symbol table, stale checks.

``codecite.load(path)`` is the notebook entry point; every CLI command is a
call on this object too.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import MetadataFilters

from codecite.config import CodeciteConfig, load_config
from codecite.corpus import walk_corpus
from codecite.errors import IndexIntegrityError, IndexNotFoundError, QueryError, StaleIndexError
from codecite.retrievers.bm25 import CodeciteRetriever
from codecite.retrievers.lexical import BM25_DIR, load_bm25
from codecite.retrievers.persist import load_parts, node_from_record
from codecite.retrievers.results import RetrievedContext
from codecite.store import (
    FEEDBACK,
    NODES,
    SYMBOLS,
    read_json,
    read_jsonl,
    read_manifest,
    verify_files,
)
from codecite.symbols import SymbolTable

logger = logging.getLogger(__name__)
KINDS = ("python_symbol", "python_method", "module_doc", "doc_section", "recipe")


class CodeciteIndex:
    """A built codecite index, loaded from ``.codecite/``.

    Example:
        >>> index = codecite.load("path/to/repo")             # doctest: +SKIP
        >>> index.query("static shift correction", k=5)       # doctest: +SKIP
    """

    def __init__(self, config: CodeciteConfig, manifest: dict[str, Any], nodes: list[TextNode],
                 bm25: Any, symbol_table: SymbolTable | None, parts: dict[str, Any]) -> None:
        self.config = config
        self.manifest = manifest
        self.nodes = nodes
        self.bm25 = bm25
        self._symbol_table = symbol_table
        self._parts = parts
        self._by_id = {n.node_id: n for n in nodes}
        self._arrays: Any = None

    # -- loading --------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path = ".", *, index_dir: str | None = None,
             config_file: str | Path | None = None, strict: bool = False,
             check_stale: bool = True) -> CodeciteIndex:
        cfg = load_config(path, config_file, index_dir=index_dir)
        for attempt in range(3):
            try:
                index = cls._read(cfg)
                break
            except IndexIntegrityError:
                if attempt == 2:
                    raise
                time.sleep(0.2)  # a build may be swapping the index in right now
        if check_stale:
            index._warn_if_stale(strict)
        return index

    @classmethod
    def _read(cls, cfg: CodeciteConfig) -> CodeciteIndex:
        index_dir = cfg.index_path
        if not index_dir.exists():
            raise IndexNotFoundError(f"no index at '{index_dir}'; run `codecite build` in "
                                     f"'{cfg.root}' first")
        manifest = read_manifest(index_dir)
        verify_files(index_dir, manifest)
        records = read_jsonl(index_dir / NODES)
        if len(records) != manifest.get("node_count"):
            raise IndexIntegrityError(f"index file '{index_dir / NODES}' has {len(records)} "
                                      f"nodes, the manifest says {manifest.get('node_count')}; "
                                      "run `codecite build --full`")
        nodes = [node_from_record(r) for r in records]
        bm25 = load_bm25(index_dir)
        if int(bm25.scores["num_docs"]) != len(nodes):
            raise IndexIntegrityError(f"lexical index '{index_dir / BM25_DIR}' does not match "
                                      "nodes.jsonl; run `codecite build --full`")
        return cls(cfg, manifest, nodes, bm25, None, load_parts(index_dir, nodes))

    @property
    def symbol_table(self) -> SymbolTable:
        """The package namespace as parsed (loaded on first use: queries do not need it)."""
        if self._symbol_table is None:
            modules = read_json(self.config.index_path / SYMBOLS).get("modules", {})
            self._symbol_table = SymbolTable.from_parts(modules.values(),
                                                        (n.metadata for n in self.nodes))
        return self._symbol_table

    # -- freshness --------------------------------------------------------------------
    def current_fingerprint(self) -> str:
        return walk_corpus(self.config).fingerprint

    def is_stale(self) -> bool:
        """True when the indexed files changed since the build (content, not mtime)."""
        return self.current_fingerprint() != self.manifest.get("fingerprint")

    def _warn_if_stale(self, strict: bool) -> None:
        fresh = self.current_fingerprint()
        built = str(self.manifest.get("fingerprint"))
        if fresh == built:
            return
        message = (f"index at '{self.config.index_path}' was built from other sources "
                   f"(fingerprint {built[:8]}... != {fresh[:8]}...); run `codecite build`")
        if strict:
            raise StaleIndexError(message)
        logger.warning(message)

    # -- retrieval ----------------------------------------------------------------------
    def retriever(self, similarity_top_k: int = 10, *, kind: str | list[str] | None = None,
                  workflow: str | None = None, path: str | None = None,
                  filters: MetadataFilters | None = None, dense: bool = False,
                  **kwargs: Any) -> Any:
        """A LlamaIndex retriever over this index (lexical, or hybrid with ``dense``)."""
        kinds = [kind] if isinstance(kind, str) else list(kind or [])
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise QueryError(f"unknown kind {unknown[0]!r}; use one of {', '.join(KINDS)}")
        if isinstance(similarity_top_k, bool) or not isinstance(similarity_top_k, int) \
                or similarity_top_k <= 0:
            raise QueryError(f"k must be a positive integer, got {similarity_top_k!r}")
        parts = {k: v for k, v in self._parts.items() if k != "similarity_top_k"}
        dense_options = {k: kwargs.pop(k) for k in ("embed_model", "vector_store", "symbol_gate")
                         if k in kwargs}  # codecite.dense.hybrid_retriever options
        parts.update(kwargs)
        lexical = CodeciteRetriever(self.nodes, self.bm25, similarity_top_k=similarity_top_k,
                                    kinds=kinds or None, workflow=workflow, path_prefix=path,
                                    filters=filters, **parts)
        if not dense:
            return lexical
        from codecite.dense import hybrid_retriever

        return hybrid_retriever(self, lexical, similarity_top_k, **dense_options)

    def _node_arrays(self) -> Any:
        """Per-node scoring vectors, computed once per settings and feedback state."""
        if self._arrays is None:
            from codecite.retrievers.bm25 import _NodeArrays

            self._arrays = _NodeArrays(self.nodes, self._parts["settings"],
                                       self._parts.get("feedback", {}))
        return self._arrays

    def query(self, query: str, k: int = 10, **filters: Any) -> RetrievedContext:
        """Ranked, explained evidence for ``query`` (retrieval only, no answer)."""
        if not isinstance(query, str) or not query.strip():
            raise QueryError("the query is empty; ask a question or name a symbol")
        dense = bool(filters.pop("dense", False))
        retriever = self.retriever(k, dense=dense, **filters)
        return retriever.retrieve_context(query)

    search = query

    def with_settings(self, **overrides: Any) -> CodeciteIndex:
        """This index ranked with other scoring settings, e.g. to compare configurations.

        Example:
            >>> plain = index.with_settings(doc_propagation=False)   # doctest: +SKIP
        """
        settings = dataclasses.replace(self._parts["settings"], **overrides)
        return CodeciteIndex(self.config, self.manifest, self.nodes, self.bm25,
                             self._symbol_table, {**self._parts, "settings": settings})

    def node(self, node_id: str) -> TextNode | None:
        return self._by_id.get(node_id)

    # -- feedback ------------------------------------------------------------------------
    def feedback(self, symbol: str, up: bool, query: str | None = None) -> float:
        """Record a vote for ``symbol``; returns its new feedback factor."""
        from codecite.retrievers.boosts import feedback_factor

        path = self.config.index_path / FEEDBACK
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        entry = data.setdefault(symbol, {"votes": 0, "up": 0, "down": 0, "queries": []})
        entry["votes"] += 1 if up else -1
        entry["up" if up else "down"] += 1
        if query:
            entry["queries"] = [*entry["queries"][-19:], query]
        tmp = path.with_suffix(f".tmp-{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
        self._parts["feedback"] = {s: float(v["votes"]) for s, v in data.items()}
        self._arrays = None
        return feedback_factor(entry["votes"], self.config.retrieval.feedback_floor)

    # -- summary ---------------------------------------------------------------------------
    def stats(self, check_stale: bool = True) -> dict[str, Any]:
        m = self.manifest
        skipped: dict[str, list[str]] = {}
        for s in m.get("skipped", []):
            skipped.setdefault(s["reason"], []).append(s["path"])
        out = {
            "index_dir": str(self.config.index_path), "format_version": m["format_version"],
            "codecite_version": m.get("codecite_version"), "created": m.get("created"),
            "nodes": m.get("node_count"), "files": len(m.get("files", {})),
            "by_kind": m.get("counts", {}).get("by_kind", {}),
            "by_workflow": m.get("counts", {}).get("by_workflow", {}),
            "fingerprint": m.get("fingerprint"), "config_digest": m.get("config_digest"),
            "embedding": m.get("embedding"), "doc_refs": m.get("doc_refs"),
            "mined_expansion": m.get("mined_expansion"), "skipped": skipped,
            "warnings": m.get("warnings", []),
        }
        if check_stale:
            out["stale"] = self.is_stale()
        return out

    def _repr_html_(self) -> str:
        s = self.stats(check_stale=False)
        rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in s["by_kind"].items())
        return (f"<b>codecite index</b> {s['index_dir']}: {s['nodes']} nodes from "
                f"{s['files']} files<table>{rows}</table>")

    # -- answers (codecite.engine) -------------------------------------------------------------
    def as_query_engine(self, **kwargs: Any) -> Any:
        """A ``CodeciteQueryEngine`` over this index (cited answer or clarification)."""
        from codecite.engine import CodeciteQueryEngine

        return CodeciteQueryEngine(index=self, **kwargs)

    def ask(self, query: str, llm: Any = None, session: Any = None, **kwargs: Any) -> Any:
        """Answer ``query`` with citations, or ask for clarification (a LlamaIndex Response)."""
        return self.as_query_engine(llm=llm, session=session, **kwargs).query(query)


def load(path: str | Path = ".", **kwargs: Any) -> CodeciteIndex:
    """Load the index of the repository at ``path`` (see ``CodeciteIndex.load``)."""
    return CodeciteIndex.load(path, **kwargs)
