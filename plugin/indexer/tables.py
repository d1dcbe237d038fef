"""Retrieval-side tables written at build time, from node keys and term rows only.

Every function here reads the slim per-node keys of ``codecite.store.reuse`` (kind,
symbol, module, refs, ...), never whole nodes, so an incremental build can
recompute the tables without decoding ``nodes.jsonl``:

- node annotations (``public``: a symbol users can import from a public module);
- the bm25s arrays;
- doc-to-symbol edges (``codecite.indexer.refs``);
- the corpus-mined expansion table;
- ``retriever.json``: the scoring settings the retriever is made with.
"""

from __future__ import annotations

import dataclasses
import json
from bisect import bisect_left
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from codecite.config.model import CodeciteConfig
from codecite.errors import CodeciteError
from codecite.retrievers.lexical import bm25_arrays, save_bm25_arrays
from codecite.retrievers.mined import Rows, mine_rows
from codecite.retrievers.pages import PAGES_DIR, page_arrays
from codecite.retrievers.persist import (
    DOCUMENTED_FILE,
    EDGES_FILE,
    MINED_FILE,
    NAMES_FILE,
    SETTINGS_FILE,
)
from codecite.retrievers.settings import RankingConstants, ScoringSettings
from codecite.store.files import SYMBOLS, read_manifest
from codecite.store.reuse import Keys, mined
from codecite.store.symbols import SymbolTable
from codecite.store.term_counts import NodeTerms
from codecite.vocabulary import CODE_KINDS

from .bindings import method_bindings
from .refs import REFS_FILE, doc_edges, ref_resolver


def scoring_settings(cfg: CodeciteConfig) -> ScoringSettings:
    """The scorer's settings: the configured ranking constants, expansions and workflows."""
    shared = {f.name: getattr(cfg.retrieval, f.name) for f in dataclasses.fields(RankingConstants)}
    return ScoringSettings(
        **shared,
        expansions=dict(cfg.expansions),
        workflows={w.name: w.keywords for w in cfg.workflows},
    )


def _private_module(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def annotate_public(keys: Keys, table: SymbolTable) -> None:
    """Mark code symbols importable from a public module (directly or re-exported)."""
    reexported: set[str] | None = None
    private: dict[str, bool] = {}
    for i, (kind, symbol, module) in enumerate(
        zip(keys.kind, keys.symbol, keys.module, strict=True)
    ):
        if kind not in CODE_KINDS:
            continue
        symbol = symbol or ""
        module = module or symbol.rsplit(".", 1)[0]
        if module not in private:
            private[module] = _private_module(module)
        if not private[module]:
            keys.public[i] = True
            continue
        if reexported is None:  # only symbols of private modules need the re-exports
            reexported = set(table.public_aliases().values())
        keys.public[i] = _top_symbol(symbol, table) in reexported


def _top_symbol(symbol: str, table: SymbolTable) -> str:
    """``pkg._impl.Class`` for ``pkg._impl.Class.method``: the module-level owner."""
    parts = symbol.split(".")
    for i in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:i]) in table.modules:
            return ".".join(parts[: i + 1])
    return symbol


def public_names(keys: Keys, table: SymbolTable) -> dict[str, str]:
    """Re-exported public names of indexed code symbols (``attrs.define`` ->
    ``attr._next_gen.define``): how a query's exact name finds its definition.

    A module-level binding of an instance's method (``decode = _obj.decode``,
    ``indexer.bindings``) maps to the method, and so does every re-export of it
    (``jwt.decode`` -> ``jwt.api_jws.PyJWS.decode``)."""
    indexed = {s for k, s in zip(keys.kind, keys.symbol, strict=True) if k in CODE_KINDS and s}
    bindings = method_bindings(keys, table)
    names = {
        alias: bindings.get(target, target)
        for alias, target in table.public_aliases().items()
        if target in indexed and "__main__" not in alias.split(".")  # a script imports, no API
    }
    names = {**bindings, **names}
    return {**module_alias_names(table, indexed, names), **names}


MAX_MODULE_ALIAS_NAMES = 50_000  # names made through module aliases (scanpy.pp.*), at most


def module_alias_names(
    table: SymbolTable, indexed: set[str], names: dict[str, str]
) -> dict[str, str]:
    """The names a public module alias gives: scanpy's ``from . import preprocessing as
    pp`` makes ``scanpy.pp.normalize_total`` the ``scanpy.preprocessing`` name it stands
    for (and so the function that one re-exports), as Python binds it."""
    out: dict[str, str] = {}
    known = sorted({*indexed, *names})
    for module, ns in sorted(table.modules.items()):
        if "_" in module and any(part.startswith("_") for part in module.split(".")):
            continue  # a private module's aliases are no public name
        for name, imported in sorted(ns.get("imports", {}).items()):
            if imported not in table.modules or name.startswith("_"):
                continue  # only a module's alias makes names (cheapest test first)
            alias = f"{module}.{name}"
            if alias in table.modules or alias in table.symbols or imported == alias:
                continue
            prefix = imported + "."
            for i in range(bisect_left(known, prefix), len(known)):
                if not known[i].startswith(prefix) or len(out) >= MAX_MODULE_ALIAS_NAMES:
                    break
                out.setdefault(alias + known[i][len(imported) :], names.get(known[i], known[i]))
    return out


def documented_names(keys: Keys, resolver: Any) -> dict[str, list[int]]:
    """API the docs define that no code node is (``.. class:: Wavelet`` of pywt's compiled
    ``Wavelet``; a ufunc in an autosummary table): name -> the sections defining it, so
    that naming it finds its page (``retrievers.names``)."""
    out: dict[str, list[int]] = {}
    for i, names in enumerate(keys.documents):
        for name in names:
            if resolver.resolve_in(name, None) is None:
                out.setdefault(name, []).append(i)
    return out


def mined_table(keys: Keys, terms: NodeTerms) -> dict[str, list[str]]:
    """Prose word -> identifier tokens, mined from documented code nodes.

    A node's prose words and name parts (``codecite.store.reuse.mining_rows``) are
    stored as term rows, so nothing is re-tokenized here.
    """
    nodes = np.array(
        [
            i
            for i, (kind, doc) in enumerate(zip(keys.kind, keys.docstring, strict=True))
            if mined(kind, doc)
        ],
        dtype=np.int64,
    )
    words = Rows(terms.prose_ptr, terms.prose_ids).take(nodes)
    idents = Rows(terms.ident_ptr, terms.ident_ids).take(nodes)
    return mine_rows(words, idents, terms.vocab, vocab_sorted=True)


def write_derived(
    index_dir: Path,
    cfg: CodeciteConfig,
    keys: Keys,
    terms: NodeTerms,
    table: SymbolTable,
    records: Callable[[], list[dict[str, Any]]],
    embed: Any,
    progress: Callable[[str, int, int], None] | None,
    file_sizes: list[int],
    previous_refs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write every derived table into ``index_dir``; returns manifest entries.

    ``records`` gives the whole node records, only called when vectors are made;
    ``file_sizes`` the node count of each file with nodes, in node order (its page);
    ``previous_refs`` the previous index's ``REFS_FILE`` (``ref_resolver``).
    """
    settings = scoring_settings(cfg)
    counts = (terms.vocab, terms.doc_ptr, terms.doc_ids, terms.doc_tf)
    k1, b = cfg.retrieval.k1, cfg.retrieval.b
    save_bm25_arrays(bm25_arrays(*counts, k1=k1, b=b), index_dir)
    if settings.page_weight > 0:  # otherwise made from the term counts if ever asked for
        pages = np.repeat(np.arange(len(file_sizes)), file_sizes)  # nodes run file by file
        arrays = page_arrays(*counts, pages, len(file_sizes), k1=k1, b=b)
        save_bm25_arrays(arrays, index_dir, PAGES_DIR)
    resolver, digest = ref_resolver(keys, table, (index_dir / SYMBOLS).read_bytes(), previous_refs)
    sections, symbols = doc_edges(keys, table, resolver)
    (index_dir / REFS_FILE).write_text(
        json.dumps({"digest": digest, "resolved": resolver.used}, ensure_ascii=False),
        encoding="utf-8",
    )
    mined = mined_table(keys, terms) if cfg.retrieval.mined_expansion else {}
    (index_dir / "extras").mkdir(exist_ok=True)
    (index_dir / EDGES_FILE).write_text(
        json.dumps({"sections": sections, "symbols": symbols}), encoding="utf-8"
    )
    (index_dir / MINED_FILE).write_text(json.dumps(mined), encoding="utf-8")
    (index_dir / NAMES_FILE).write_text(
        json.dumps(public_names(keys, table), sort_keys=True), encoding="utf-8"
    )
    (index_dir / DOCUMENTED_FILE).write_text(
        json.dumps(documented_names(keys, resolver), sort_keys=True), encoding="utf-8"
    )
    (index_dir / SETTINGS_FILE).write_text(
        json.dumps({"settings": settings.to_json(), "similarity_top_k": 10}), encoding="utf-8"
    )
    embedding = None
    if _vectors_wanted(cfg, embed):
        from codecite.dense.build import write_vectors

        embedding = write_vectors(index_dir, cfg, records(), embed, progress)
    return {
        "lexical": {"backend": "bm25s", "k1": cfg.retrieval.k1, "b": cfg.retrieval.b},
        "doc_refs": {"edges": len(sections)},
        "mined_expansion": {"words": len(mined)},
        "embedding": embedding,
    }


def _vectors_wanted(cfg: CodeciteConfig, embed: Any) -> bool:
    """Embed when asked (``--embed``, a backend configured), and carry the vectors of the
    previous index over to every later build: they are never dropped silently."""
    if embed is not None or cfg.embedding.backend not in (None, "none"):
        return True
    try:
        return bool(read_manifest(cfg.index_path).get("embedding"))
    except (CodeciteError, OSError, ValueError):
        return False
