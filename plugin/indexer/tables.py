"""Retrieval-side tables written at build time, from node keys and term rows only.

Every function here reads the slim per-node keys of ``codecite.store.reuse`` (kind,
symbol, module, refs, ...), never whole nodes, so an incremental build can
recompute the tables without decoding ``nodes.jsonl``:

- node annotations (``public``: a symbol users can import from a public module);
- the bm25s arrays;
- doc-to-symbol edges (references in doc sections resolved to symbol nodes);
- the corpus-mined expansion table;
- ``retriever.json``: the scoring settings the retriever is made with.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from codecite.config.model import CodeciteConfig
from codecite.errors import CodeciteError
from codecite.retrievers.lexical import bm25_arrays, save_bm25_arrays
from codecite.retrievers.mined import Rows, mine_rows
from codecite.retrievers.pages import PAGES_DIR, page_arrays
from codecite.retrievers.persist import EDGES_FILE, MINED_FILE, NAMES_FILE, SETTINGS_FILE
from codecite.retrievers.settings import RankingConstants, ScoringSettings
from codecite.store.files import read_manifest
from codecite.store.reuse import Keys, mined
from codecite.store.symbols import SymbolTable
from codecite.store.term_counts import NodeTerms
from codecite.vocabulary import CODE_KINDS, DOC_KINDS

from .bindings import method_bindings


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


class RefResolver:
    """Resolve raw doc references to symbol names: exact, re-export, case, unique leaf."""

    def __init__(self, table: SymbolTable, symbol_names: Iterable[str]) -> None:
        self.table = table
        self.ordered = list(dict.fromkeys(symbol_names))  # node order: first one wins
        self.names = set(self.ordered)
        self.aliases = table.public_aliases()
        self._lower: dict[str, str] | None = None
        self._leaf: dict[str, list[str]] = {}

    def _fallback_maps(self) -> dict[str, str]:
        """Lowered name -> name, and lowered leaf -> names; made when first needed."""
        if self._lower is None:
            self._lower = {}
            for name in self.ordered:
                self._lower.setdefault(name.lower(), name)
                self._leaf.setdefault(name.rsplit(".", 1)[-1].lower(), []).append(name)
        return self._lower

    @staticmethod
    def _clean(ref: str) -> str:
        return ref.strip().lstrip("~.").removesuffix("()")

    def resolve(self, ref: str) -> str | None:
        ref = self._clean(ref)
        if not ref:
            return None
        for candidate in (ref, self.aliases.get(ref), self.table.resolve(ref)):
            if candidate and candidate in self.names:
                return candidate
        lower = self._fallback_maps()
        if ref.lower() in lower:
            return lower[ref.lower()]
        return self._by_suffix(ref)

    def _by_suffix(self, ref: str) -> str | None:
        parts = ref.split(".")
        leaf_hits = self._leaf.get(parts[-1].lower(), [])
        suffix = "." + ref.lower()
        narrowed = [n for n in leaf_hits if n.lower().endswith(suffix) or n.lower() == ref.lower()]
        if len(narrowed) == 1:
            return narrowed[0]
        if len(leaf_hits) == 1 and len(parts) == 1:
            return leaf_hits[0]
        if len(parts) >= 2:  # Class.attr where attr is not indexed: map to the class
            return self._by_suffix(".".join(parts[:-1]))
        return None

    def resolve_in(self, ref: str, module: str | None) -> str | None:
        """``resolve``, but a module docstring's ``Dispatcher`` is first its module's own."""
        if module:
            local = f"{module}.{self._clean(ref)}"
            if local in self.names:
                return local
        return self.resolve(ref)


def doc_edges(keys: Keys, table: SymbolTable) -> tuple[list[int], list[int]]:
    """(section index, symbol index) pairs from resolved doc-section references."""
    index_of: dict[str, int] = {}
    for i, (kind, symbol) in enumerate(zip(keys.kind, keys.symbol, strict=True)):
        if kind in CODE_KINDS and symbol:
            index_of.setdefault(symbol, i)
    resolver = RefResolver(table, index_of)
    sections: list[int] = []
    symbols: list[int] = []
    for i, (kind, refs) in enumerate(zip(keys.kind, keys.refs, strict=True)):
        if kind not in DOC_KINDS or not refs:
            continue
        seen = set()
        module = _own_module(keys, i)
        for ref in refs:
            target = resolver.resolve_in(ref, module)
            if target is not None and target not in seen:
                seen.add(target)
                sections.append(i)
                symbols.append(index_of[target])
    known = set(zip(sections, symbols, strict=True))
    for code_section, code_symbol in code_edges(keys, resolver, index_of, known):
        sections.append(code_section)
        symbols.append(code_symbol)
    for alias_node, target_node in alias_edges(keys, table, index_of):
        sections.append(alias_node)
        symbols.append(target_node)
    return sections, symbols


MAX_CODE_REF_SECTIONS = 2


def _own_module(keys: Keys, i: int) -> str | None:
    """The module a module docstring documents (None for doc pages)."""
    return keys.module[i] if keys.kind[i] == "module_doc" else None


def code_edges(
    keys: Keys, resolver: RefResolver, index_of: dict[str, int], known: set[tuple[int, int]]
) -> list[tuple[int, int]]:
    """(section, symbol) for symbols a section's code examples use, when specific.

    A symbol that the examples of many sections import (``define``, ``field``)
    says nothing about any one of them; one used by the examples of at most
    ``MAX_CODE_REF_SECTIONS`` sections (``SandboxedEnvironment`` on the sandbox
    page) is what those sections are about.
    """
    users: dict[int, list[int]] = {}
    for i, (kind, refs) in enumerate(zip(keys.kind, keys.code_refs, strict=True)):
        if kind not in DOC_KINDS or not refs:
            continue
        module = _own_module(keys, i)
        targets = {resolver.resolve_in(ref, module) for ref in refs} - {None}
        for target in targets:
            users.setdefault(index_of[str(target)], []).append(i)
    return sorted(
        (section, symbol)
        for symbol, sections in users.items()
        if len(sections) <= MAX_CODE_REF_SECTIONS
        for section in sections
        if (section, symbol) not in known
    )


_ALIAS_VALUE = re.compile(
    r"^(?:(?:functools\.)?partial\(\s*([A-Za-z_][\w.]*)\s*[,)]|([A-Za-z_][\w.]*)\s*$)"
)


def alias_edges(keys: Keys, table: SymbolTable, index_of: dict[str, int]) -> list[tuple[int, int]]:
    """(alias node, target node) for assignments that rename a symbol.

    ``ib = attr = attrib`` or ``frozen = partial(define, ...)`` make a public
    name for a symbol defined elsewhere; a query that finds the alias should
    find what it names. A call (``DEFAULT = Policy()``) makes a new object, not
    another name, and is no alias.
    """
    edges = []
    for i, (symbol_type, signature) in enumerate(
        zip(keys.symbol_type, keys.signature, strict=True)
    ):
        if symbol_type != "assignment" or not signature:
            continue
        value = str(signature).rsplit(" = ", 1)[-1]
        match = _ALIAS_VALUE.match(value)
        if match is None:
            continue
        name = match.group(1) or match.group(2)
        module = str(keys.module[i] or str(keys.symbol[i]).rsplit(".", 1)[0])
        for candidate in (f"{module}.{name}", name):
            target = table.resolve(candidate)
            if target in index_of and index_of[target] != i:
                edges.append((i, index_of[target]))
                break
    return edges


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
    return {**bindings, **names}


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
) -> dict[str, Any]:
    """Write every derived table into ``index_dir``; returns manifest entries.

    ``records`` gives the whole node records, only called when vectors are made;
    ``file_sizes`` the node count of each file with nodes, in node order (its page).
    """
    settings = scoring_settings(cfg)
    counts = (terms.vocab, terms.doc_ptr, terms.doc_ids, terms.doc_tf)
    k1, b = cfg.retrieval.k1, cfg.retrieval.b
    save_bm25_arrays(bm25_arrays(*counts, k1=k1, b=b), index_dir)
    if settings.page_weight > 0:  # otherwise made from the term counts if ever asked for
        pages = np.repeat(np.arange(len(file_sizes)), file_sizes)  # nodes run file by file
        arrays = page_arrays(*counts, pages, len(file_sizes), k1=k1, b=b)
        save_bm25_arrays(arrays, index_dir, PAGES_DIR)
    sections, symbols = doc_edges(keys, table)
    mined = mined_table(keys, terms) if cfg.retrieval.mined_expansion else {}
    (index_dir / "extras").mkdir(exist_ok=True)
    (index_dir / EDGES_FILE).write_text(
        json.dumps({"sections": sections, "symbols": symbols}), encoding="utf-8"
    )
    (index_dir / MINED_FILE).write_text(json.dumps(mined), encoding="utf-8")
    (index_dir / NAMES_FILE).write_text(
        json.dumps(public_names(keys, table), sort_keys=True), encoding="utf-8"
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
