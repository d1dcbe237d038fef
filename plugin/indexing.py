"""Retrieval-side tables written at build time, computed from nodes and tokens only.

- node annotations (``public``: a symbol users can import from a public module);
- the bm25s arrays;
- doc-to-symbol edges (references in doc sections resolved to symbol nodes);
- the corpus-mined expansion table;
- ``retriever.json``: the scoring settings the retriever is made with.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from codecite.config import CodeciteConfig
from codecite.retrievers.lexical import build_bm25, save_bm25
from codecite.retrievers.mined import mine_expansion
from codecite.retrievers.persist import EDGES_FILE, MINED_FILE, SETTINGS_FILE
from codecite.retrievers.settings import ScoringSettings
from codecite.retrievers.tokenizer import split_identifier
from codecite.symbols import SymbolTable

CODE_KINDS = ("python_symbol", "python_method")
MAX_PROSE_WORDS = 80


def scoring_settings(cfg: CodeciteConfig) -> ScoringSettings:
    r = cfg.retrieval
    return ScoringSettings(
        expansion_weight=r.expansion_weight, priority_step=r.priority_step,
        workflow_boost=r.workflow_boost, recipe_boost=r.recipe_boost,
        symbol_boost=r.symbol_boost, feedback_floor=r.feedback_floor,
        expansions=dict(cfg.expansions),
        workflows={w.name: w.keywords for w in cfg.workflows},
        doc_propagation=r.doc_propagation, propagation_share=r.propagation_share,
        mined_expansion=r.mined_expansion, public_api_factor=r.public_api_factor,
        query_variants=r.query_variants, variant_weight=r.variant_weight,
        low_value_doc_factor=r.low_value_doc_factor,
        max_sections_per_file=r.max_sections_per_file, doc_factor=r.doc_factor)


def _private_module(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


def annotate_public(records: list[dict[str, Any]], table: SymbolTable) -> None:
    """Mark code symbols importable from a public module (directly or re-exported)."""
    reexported = set(table.public_aliases().values())
    for rec in records:
        meta = rec["metadata"]
        if meta.get("kind") not in CODE_KINDS:
            continue
        symbol = meta.get("symbol") or ""
        top = _top_symbol(symbol, table)
        module = meta.get("module") or symbol.rsplit(".", 1)[0]
        meta["public"] = (not _private_module(module)) or top in reexported


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
        self.names = set(symbol_names)
        self.lower: dict[str, str] = {}
        self.leaf: dict[str, list[str]] = {}
        for name in sorted(self.names):
            self.lower.setdefault(name.lower(), name)
            self.leaf.setdefault(name.rsplit(".", 1)[-1].lower(), []).append(name)
        self.aliases = table.public_aliases()

    def resolve(self, ref: str) -> str | None:
        ref = ref.strip().lstrip("~.").removesuffix("()")
        if not ref:
            return None
        for candidate in (ref, self.aliases.get(ref), self.table.resolve(ref)):
            if candidate and candidate in self.names:
                return candidate
        if ref.lower() in self.lower:
            return self.lower[ref.lower()]
        return self._by_suffix(ref)

    def _by_suffix(self, ref: str) -> str | None:
        parts = ref.split(".")
        leaf_hits = self.leaf.get(parts[-1].lower(), [])
        suffix = "." + ref.lower()
        narrowed = [n for n in leaf_hits if n.lower().endswith(suffix) or n.lower() == ref.lower()]
        if len(narrowed) == 1:
            return narrowed[0]
        if len(leaf_hits) == 1 and len(parts) == 1:
            return leaf_hits[0]
        if len(parts) >= 2:  # Class.attr where attr is not indexed: map to the class
            return self._by_suffix(".".join(parts[:-1]))
        return None


def doc_edges(records: list[dict[str, Any]], table: SymbolTable) -> tuple[list[int], list[int]]:
    """(section index, symbol index) pairs from resolved doc-section references."""
    index_of: dict[str, int] = {}
    for i, rec in enumerate(records):
        meta = rec["metadata"]
        if meta.get("kind") in CODE_KINDS and meta.get("symbol"):
            index_of.setdefault(meta["symbol"], i)
    resolver = RefResolver(table, index_of)
    sections: list[int] = []
    symbols: list[int] = []
    for i, rec in enumerate(records):
        meta = rec["metadata"]
        if meta.get("kind") not in ("doc_section", "recipe", "module_doc"):
            continue
        seen = set()
        for ref in meta.get("refs") or []:
            target = resolver.resolve(ref)
            if target is not None and target not in seen:
                seen.add(target)
                sections.append(i)
                symbols.append(index_of[target])
    for alias_node, target_node in alias_edges(records, table, index_of):
        sections.append(alias_node)
        symbols.append(target_node)
    return sections, symbols


_ALIAS_VALUE = re.compile(r"^(?:(?:functools\.)?partial\(\s*)?([A-Za-z_][\w.]*)\s*[,)]?")


def alias_edges(records: list[dict[str, Any]], table: SymbolTable,
                index_of: dict[str, int]) -> list[tuple[int, int]]:
    """(alias node, target node) for assignments that rename a symbol.

    ``ib = attr = attrib`` or ``frozen = partial(define, ...)`` make a public
    name for a symbol defined elsewhere; a query that finds the alias should
    find what it names.
    """
    edges = []
    for i, rec in enumerate(records):
        meta = rec["metadata"]
        if meta.get("symbol_type") != "assignment" or not meta.get("signature"):
            continue
        value = str(meta["signature"]).rsplit(" = ", 1)[-1]
        match = _ALIAS_VALUE.match(value)
        if match is None:
            continue
        module = str(meta.get("module") or meta["symbol"].rsplit(".", 1)[0])
        for candidate in (f"{module}.{match.group(1)}", match.group(1)):
            target = table.resolve(candidate)
            if target in index_of and index_of[target] != i:
                edges.append((i, index_of[target]))
                break
    return edges


def mined_table(records: list[dict[str, Any]], tokens: list[list[str]]) -> dict[str, list[str]]:
    """Prose word -> identifier tokens, mined from documented code nodes.

    A node's prose words are its tokens that are plain words (no ``_``) and not
    parts of its own name; its identifier tokens are its leaf name and parts.
    """
    prose, idents = [], []
    for rec, toks in zip(records, tokens, strict=True):
        meta = rec["metadata"]
        if meta.get("kind") not in CODE_KINDS or not meta.get("docstring"):
            continue
        leaf = (meta.get("symbol") or "").rsplit(".", 1)[-1]
        parts = {p.lower() for p in split_identifier(leaf) if len(p) > 1}
        parts.add(leaf.lower())
        words = [t for t in dict.fromkeys(toks) if "_" not in t and t not in parts]
        prose.append(words[:MAX_PROSE_WORDS])  # the first words: name, signature, summary
        idents.append(sorted(parts))
    return mine_expansion(prose, idents)


def write_derived(index_dir: Path, cfg: CodeciteConfig, records: list[dict[str, Any]],
                  tokens: list[list[str]], table: SymbolTable, embed: Any,
                  progress: Callable[[str, int, int], None] | None) -> dict[str, Any]:
    """Write every derived table into ``index_dir``; returns manifest entries."""
    settings = scoring_settings(cfg)
    bm25 = build_bm25(tokens or [[]], k1=cfg.retrieval.k1, b=cfg.retrieval.b)
    save_bm25(bm25, index_dir)
    sections, symbols = doc_edges(records, table)
    mined = mined_table(records, tokens) if cfg.retrieval.mined_expansion else {}
    (index_dir / "extras").mkdir(exist_ok=True)
    (index_dir / EDGES_FILE).write_text(json.dumps({"sections": sections, "symbols": symbols}),
                                        encoding="utf-8")
    (index_dir / MINED_FILE).write_text(json.dumps(mined), encoding="utf-8")
    (index_dir / SETTINGS_FILE).write_text(json.dumps(
        {"settings": settings.to_json(), "similarity_top_k": 10}), encoding="utf-8")
    embedding = None
    if embed is not None or cfg.embedding.backend not in (None, "none"):
        from codecite.dense import write_vectors

        embedding = write_vectors(index_dir, cfg, records, embed, progress)
    return {"lexical": {"backend": "bm25s", "k1": cfg.retrieval.k1, "b": cfg.retrieval.b},
            "doc_refs": {"edges": len(sections)},
            "mined_expansion": {"words": len(mined)},
            "embedding": embedding}
