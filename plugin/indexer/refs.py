"""Doc-to-symbol edges: references in doc sections resolved to symbol nodes.

A section's references (``:class:`Table```, backticked names, its code examples'
imports) are resolved against the symbol table: exact, re-export, case, unique
leaf. Each distinct reference is resolved once per build, and an incremental
build whose symbol table is unchanged reuses the previous build's resolutions
(``REFS_FILE``), so only references no earlier build saw (a changed file's) are
resolved again.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from codecite.store.reuse import REUSE_DIR, Keys
from codecite.store.symbols import SymbolTable
from codecite.vocabulary import CODE_KINDS, DOC_KINDS

RefMemo = dict[str, dict[str, str | None]]  # module ("" for none) -> ref -> symbol or None
REFS_FILE = f"{REUSE_DIR}/refs.json"  # {"digest": resolver_digest, "resolved": RefMemo}


class RefResolver:
    """Resolve raw doc references to symbol names: exact, re-export, case, unique leaf."""

    def __init__(
        self, table: SymbolTable, index_of: Mapping[str, int], known: RefMemo | None = None
    ) -> None:
        """``index_of``: code symbol -> its first node, in node order (``code_symbol_index``)."""
        self.table = table
        self.index_of = index_of
        self.ordered = list(index_of)  # node order: first one wins
        self.names = set(self.ordered)
        self._aliases: dict[str, str] | None = None
        self._lower: dict[str, str] | None = None
        self._leaf: dict[str, list[str]] = {}
        self._packages: set[str] = set()
        self.known = known or {}  # resolutions of a previous build with the same table
        self.used: RefMemo = {}  # this build's, in lookup order: what the next one may reuse

    @property
    def aliases(self) -> dict[str, str]:
        if self._aliases is None:
            self._aliases = self.table.public_aliases()
        return self._aliases

    def _fallback_maps(self) -> dict[str, str]:
        """Lowered name -> name, and lowered leaf -> names; made when first needed."""
        if self._lower is None:
            self._lower = {}
            self._packages = self.table.top_packages
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
        """The one symbol ending with ``ref``. A lone name, or a path from an indexed
        package, is matched in its own case (astroquery's docs write ``astroquery``, the
        package, ``astroquery.alma``, a module, and ``and``: not its ``AstroQuery`` and
        ``And``); a path from a variable in any case (``job.args`` is ``Job.args``). A
        lone plain word is no member (``name``, not the one method called so)."""
        parts = ref.split(".")
        exact = len(parts) == 1 or parts[0] in self._packages
        leaf_hits = self._leaf.get(parts[-1].lower(), [])
        if exact:
            leaf_hits = [n for n in leaf_hits if n.rsplit(".", 1)[-1] == parts[-1]]
        suffix = "." + ref.lower()
        narrowed = [n for n in leaf_hits if n.lower().endswith(suffix) or n.lower() == ref.lower()]
        one = narrowed[0] if len(narrowed) == 1 else None
        if one is None and len(leaf_hits) == 1 and len(parts) == 1:
            one = leaf_hits[0]
        if one is not None:
            plain_member = len(parts) == 1 and "_" not in ref and self._is_member(one)
            return None if plain_member and ref.islower() else one
        if len(parts) >= 2:  # Class.attr where attr is not indexed: map to the class
            return self._by_suffix(".".join(parts[:-1]))
        return None

    def _is_member(self, name: str) -> bool:
        owner = name.rpartition(".")[0]
        return (self.table.symbols.get(owner) or {}).get("symbol_type") == "class"

    def resolve_in(self, ref: str, module: str | None) -> str | None:
        """``resolve``, but a module docstring's ``Dispatcher`` is first its module's own.

        Each (module, ref) is resolved once per build; one found in ``known`` not at all.
        """
        used = self.used.setdefault(module or "", {})
        if ref not in used:
            known = self.known.get(module or "", {})
            used[ref] = known[ref] if ref in known else self._resolve_in(ref, module)
        return used[ref]

    def _resolve_in(self, ref: str, module: str | None) -> str | None:
        if module:
            local = f"{module}.{self._clean(ref)}"
            if local in self.names:
                return local
        return self.resolve(ref)


def doc_edges(
    keys: Keys, table: SymbolTable, resolver: RefResolver | None = None
) -> tuple[list[int], list[int]]:
    """(section index, symbol index) pairs from resolved doc-section references.

    ``resolver`` (``ref_resolver``) may carry a previous build's resolutions."""
    resolver = resolver or RefResolver(table, code_symbol_index(keys))
    index_of = resolver.index_of
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


def code_symbol_index(keys: Keys) -> dict[str, int]:
    """Code symbol -> its first node, in node order."""
    index_of: dict[str, int] = {}
    for i, (kind, symbol) in enumerate(zip(keys.kind, keys.symbol, strict=True)):
        if kind in CODE_KINDS and symbol:
            index_of.setdefault(symbol, i)
    return index_of


def resolver_digest(symbols_bytes: bytes, names: Iterable[str]) -> str:
    """What every resolution depends on: the symbol table and the code symbols in order."""
    h = hashlib.sha256(symbols_bytes)
    for name in names:
        h.update(b"\n" + name.encode("utf-8"))
    return h.hexdigest()


def ref_resolver(
    keys: Keys, table: SymbolTable, symbols_bytes: bytes, previous: Mapping[str, Any] | None
) -> tuple[RefResolver, str]:
    """A resolver that reuses ``previous`` (a ``REFS_FILE``'s content) when the table is
    the same: then only references no earlier build saw (a changed file's) are resolved.
    """
    names = code_symbol_index(keys)
    digest = resolver_digest(symbols_bytes, names)
    known = previous["resolved"] if previous and previous.get("digest") == digest else None
    return RefResolver(table, names, known), digest


MAX_CODE_REF_SECTIONS = 2


def _own_module(keys: Keys, i: int) -> str | None:
    """The module a module docstring documents (None for doc pages)."""
    return keys.module[i] if keys.kind[i] == "module_doc" else None


def code_edges(
    keys: Keys, resolver: RefResolver, index_of: Mapping[str, int], known: set[tuple[int, int]]
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


def alias_edges(
    keys: Keys, table: SymbolTable, index_of: Mapping[str, int]
) -> list[tuple[int, int]]:
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
            if target is not None and target in index_of and index_of[target] != i:
                edges.append((i, index_of[target]))
                break
    return edges
