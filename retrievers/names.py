"""Exact-name resolution: the symbols a query names, and the one it means.

A query that names a symbol (``rich.console.Console``, ``httpx.Client.send``,
``attrs.define``, ``Table.add_column``, ``FileSystemLoader``, ```define```) asks
for that symbol's definition. ``NameTable.resolve`` finds it:

1. the names the query writes: dotted paths (a trailing ``()`` dropped; ``from
   a.b import c`` writes ``a.b.c``), and
   single identifiers that are names by their form: compound (``add_column``,
   ``MarkdownElement``), written as code (backticks, ``name(``), or a
   capitalised word spelled exactly as a class is (``Console``) that does not
   open a sentence of several words, or does and is a class inside a module
   path the query writes ("Catalog class in babel.messages");
2. each dotted path, in this order: a symbol of that full name; a public
   re-export (``attrs.define`` -> ``attr._next_gen.define``), also as the owner
   of the rest (``httpx.Client.send`` -> ``httpx._client.Client.send``); a
   symbol whose name, or public name, ends with the path (``Table.add_column``;
   ``fits.open``: astropy's ``fitsopen``, re-exported as ``astropy.io.fits.open``); a symbol of the
   package the path starts with that carries its leaf (``rich.Console``); the
   same in any case; on a variable (``stream.extra``), a symbol carrying the
   leaf; and last, what the path less its leaf names (an attribute that is no
   node, ``SocketAttribute.remote_address``, names its class); a member written
   on a variable (``ws.accept()``) is the member of a class the query names as a
   word (``WebSocket``), when it has one; a path no step of which resolves
   (``DataArray.pint.quantify``, ``DataArray`` not being in the index) names the
   symbols carrying its leaf whose path contains the written head
   (``PintDataArrayAccessor.quantify``);
3. when several symbols carry the name, the one meant: a definition (class,
   function, method) before an assignment, public before private, the
   shortest path or public re-export (``xarray.open_dataset`` before
   ``xarray.tutorial.open_dataset``; not a nested or re-bound one), then
   the one the docs refer to most (``structlog.processors.JSONRenderer``, not
   ``structlog.twisted.JSONRenderer``). Spelled with the query's own case
   before any other case.

A word that is a member of a class the query names means that member, and the
class, written only as its owner, is context rather than a name (docs/retrieval.md).
The rows of the chosen symbols take the name factor ``b_name`` of the
composed score (``boosts.name_factor``, docs/retrieval.md, 4).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .tokenizer import is_compound
from .written import CODE_SPAN, member_words, written_names

ASSIGNMENT = "assignment"
CLASS = "class"
MAX_NAME_PARTS = 12  # a dotted path of more parts is not resolved
MAX_BASE_DEPTH = 8  # how far up the bases a member is looked for


class NameTable:
    """The code symbols of an index by name, with its public re-exports.

    ``symbols``, ``symbol_types`` and ``public`` hold one value per node
    (``None`` symbol: not a code node); ``aliases`` maps re-exported public
    names to defining ones (``SymbolTable.public_aliases``); ``mentions``
    counts, per node, the doc sections and aliases pointing at it
    (``DocPropagation.mentions``); ``documented``: names only docs define -> their rows.

    Example:
        >>> t = NameTable(["pkg._impl.Tool", "pkg._impl.Tool.run"], ["class", "method"],
        ...               [True, True], {"pkg.Tool": "pkg._impl.Tool"})
        >>> t.resolve("what does pkg.Tool.run return")
        ['pkg._impl.Tool.run']
    """

    def __init__(
        self,
        symbols: Sequence[str | None],
        symbol_types: Sequence[str | None],
        public: Sequence[bool],
        aliases: Mapping[str, str] | None = None,
        mentions: Sequence[int] | np.ndarray | None = None,
        bases: Sequence[Sequence[str] | None] | None = None,
        documented: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        self.size = len(symbols)
        self.rows: dict[str, list[int]] = {}
        self.info: dict[str, tuple[bool, bool]] = {}  # symbol -> (definition, public)
        self.mentions: dict[str, int] = {}
        self.bases: dict[str, Sequence[str]] = {}  # class -> its bases, as written
        self.by_leaf: dict[str, list[str]] = {}
        self.by_lower_leaf: dict[str, list[str]] = {}
        self.classes: set[str] = set()  # capitalised class leaves (textual's `app` is a word)
        if not len(symbol_types) == len(public) == self.size:
            raise ValueError("symbols, symbol_types and public need one value per node")
        counts = mentions.tolist() if isinstance(mentions, np.ndarray) else mentions
        rows, by_leaf, by_lower = self.rows, self.by_leaf, self.by_lower_leaf
        for i, symbol in enumerate(symbols):
            if not symbol:
                continue
            found = rows.get(symbol)
            if found is None:
                found = rows[symbol] = []
                kind = symbol_types[i]
                self.info[symbol] = (kind != ASSIGNMENT, bool(public[i]))
                leaf = symbol.rpartition(".")[2]
                by_leaf.setdefault(leaf, []).append(symbol)
                by_lower.setdefault(leaf.lower(), []).append(symbol)
                if kind == CLASS and leaf[:1].isupper():
                    self.classes.add(leaf)
            found.append(i)
            written = bases[i] if bases is not None else None
            if written and symbol not in self.bases:
                self.bases[symbol] = written
            if counts is not None:
                self.mentions[symbol] = self.mentions.get(symbol, 0) + int(counts[i])
        self.aliases = {a: t for a, t in (aliases or {}).items() if t in self.rows}
        self.depth = {s: s.count(".") for s in self.rows}  # of its shortest public name
        self.aliases_by_leaf: dict[str, list[tuple[str, str]]] = {}
        for alias, target in self.aliases.items():
            self.depth[target] = min(self.depth[target], alias.count("."))
            self.aliases_by_leaf.setdefault(alias.rpartition(".")[2], []).append((alias, target))
        self.packages = {s.split(".", 1)[0] for s in self.rows}
        for name, pages in (documented or {}).items():  # a page defines what no code is
            code = self._path(p := name.split("."), False) or self._written_in(p)
            if name not in rows and not code:  # a name code resolves to is the code's
                rows[name], self.info[name] = list(pages), (True, True)  # by case only: no
                by_leaf.setdefault(name.rpartition(".")[2], []).append(name)  # symbol factor

    # -- resolution --------------------------------------------------------------
    def resolve(self, query: str) -> list[str]:
        """The symbols ``query`` names, one per name it writes, in query order.

        A word that is a member of another symbol the query names means that
        member, and a class named only as its owner is context, not a name:
        "`ArrowFactory` ... `get()`" is ``ArrowFactory.get``. So is a member written
        on a variable: "`ws.accept()` on the `WebSocket`" is ``WebSocket.accept``.
        """
        dotted, words, code = written_names(query)
        if words == [query.strip().strip("`").removesuffix("()")]:
            code = {*code, *words}  # the whole query is one name (``sel``): as if written as code
        found: list[str] = []
        stand_ins: set[str] = set()  # classes named only for an attribute that is no node
        on_variables: list[tuple[str, list[str]]] = []  # (member, guess) of ``ws.accept``
        for path in dotted:
            parts = path.replace("()", "").split(".")
            if len(parts) <= MAX_NAME_PARTS:  # longer is no name anyone writes
                guess = self._path(parts, stand_ins=stand_ins) or self._written_in(parts)
                if self._on_a_variable(parts):
                    on_variables.append((parts[-1], guess))
                found.extend(guess)
        # ``User.get(User.username == 'bob')``: the member written on the class
        # (``User.get``, inherited: ``Model.get``), not the class its attribute stood in for
        pairs = {tuple(p.replace("()", "").split(".")[-2:]) for p in dotted}
        found = [
            s
            for s in found
            if s not in stand_ins
            or not any(
                o != s
                and (s.rsplit(".", 1)[-1], o.rsplit(".", 1)[-1]) in pairs
                and self._member(s, o.rsplit(".", 1)[-1]) == o
                for o in found
            )
        ]
        sentence = len(words) > 2
        hits: list[tuple[str, list[str]]] = []
        for position, word in enumerate(words):
            if word in code or is_compound(word):
                hits.append((word, self._best(self.by_leaf.get(word) or self._lower(word))))
            elif word in self.classes and not (position == 0 and sentence):
                hits.append((word, self._best(self.by_leaf[word])))
            elif word in self.classes:  # "Catalog class in babel.messages": a class there
                inside = [s for s in self.by_leaf[word] if _under(s, dotted)]
                if inside:
                    hits.append((word, self._best(inside)))
        by_path = set(found)
        classes = [s for _, hit in hits for s in hit]
        context: set[str] = set()  # classes written only as the owner of a named member
        for word, hit in hits:
            member, owners = self._member_of([*found, *classes], word)
            found.extend([member] if member else hit)
            context.update(owners - by_path)
        for word in member_words(query):  # "the invoke method of CliRunner": its owner is context
            member, owners = self._member_of([*found, *classes], word)
            found.extend([member] if member else [])
            context.update(owners)
        for leaf, guess in on_variables:
            member, owners = self._member_of(classes, leaf)
            if member:
                found = [member if s in guess else s for s in found]
                context.update(owners)
        return list(dict.fromkeys(s for s in found if s not in context))

    def written_exactly(self, query: str) -> list[tuple[str, str]]:
        """The corpus's symbols ``query`` writes exactly, as (form, symbol), for the
        answer-or-ask decision (``retrievers.evidence``), stricter than ``resolve``:

        - ``"path"``: a dotted path naming a symbol, whose head is one of the
          corpus's packages (``sqlparse.format``), or that is the end of the
          symbol's own path or a public re-export (``Tag.select``, ``attrs.define``);
          a path into another package (``astropy.units``, ``Node.js``) is not;
        - ``"code"``: a name written as code (backticks, ``name(``) that is a
          public definition's name, spelled as it is;
        - ``"compound"``: a compound identifier (``add_column``, ``DataArray``) that
          is a public definition's name, spelled as it is;
        - ``"alone"``: the whole query is one capitalised or compound name
          (``Locale``), not one plain word ("broken").

        A capitalised word inside a sentence ("my Dataset") is not exact: it may be
        an ordinary word, or another library's class of the same name.
        """
        dotted, words, code = written_names(query)
        spans = " ".join(CODE_SPAN.findall(query))
        code = {w for w in code if f"{w}(" in query or w in spans}  # not "a call (in prose)"
        found: list[tuple[str, str]] = []
        for path in dotted:
            written = path.replace("()", "")
            parts = written.split(".")
            symbol = self.symbol(written)
            if symbol and (
                parts[0] in self.packages
                or symbol == written
                or symbol.endswith("." + written)
                or written in self.aliases
            ):
                found.append(("path", symbol))
        alone = query.strip().strip("`").removesuffix("()")
        for word in [*sorted(code), *words]:
            form = "code" if word in code else "compound" if is_compound(word) else None
            if word == alone and (word[0].isupper() or is_compound(word)):
                form = "alone"
            public = [s for s in self.by_leaf.get(word, []) if self.info[s] == (True, True)]
            if form and public:
                found.append((form, self._best(public)[0]))
        return list(dict.fromkeys(found))

    def _member_of(self, owners: list[str], name: str) -> tuple[str | None, set[str]]:
        """The first of ``owners``' members called ``name``, and every owner it is a member of."""
        members = {o: self._member(o, name) for o in dict.fromkeys(owners)}
        member = next(filter(None, members.values()), None)
        return member, {o for o, m in members.items() if member and m == member}

    def _written_in(self, parts: list[str]) -> list[str]:
        """``DataArray.pint.quantify`` where no step of the path resolves: the symbols
        carrying its leaf whose own path contains the written head (``PintDataArrayAccessor
        .quantify``), those containing most of the other written parts first. A head
        shorter than three letters (``DA.quantify``) names nothing."""
        head, leaf = parts[0].lower(), parts[-1]
        if len(parts) < 2 or len(head) < 3:
            return []
        others = [w.lower() for w in parts[:-1] if len(w) >= 3]
        scored = [
            (sum(w in s.lower() for w in others), s)
            for s in self.by_leaf.get(leaf, [])
            if head in s.lower().rsplit(".", 1)[0]
        ]
        if not scored:
            return []
        most = max(n for n, _ in scored)
        return self._best(s for n, s in scored if n == most)

    def _on_a_variable(self, parts: list[str]) -> bool:
        """``ws.accept``: a dotted path whose head is no package or symbol (a variable)."""
        head = parts[0]
        return (
            len(parts) > 1
            and head not in self.packages
            and head[:1].islower()
            and not self._path(parts, loose=False)
        )

    def symbol(self, name: str) -> str | None:
        """The symbol one written name means (a dotted path resolved as in a query)."""
        parts = name.strip().removesuffix("()").split(".")
        if not all(parts) or len(parts) > MAX_NAME_PARTS:
            return None
        stand_ins: set[str] = set()  # a class standing in for a member it lacks: no match
        if len(parts) == 1:
            found = self._best(self.by_leaf.get(parts[0]) or self._lower(parts[0]))
        else:
            found = self._path(parts, loose=False, stand_ins=stand_ins)
        return found[0] if found and found[0] not in stand_ins else None

    def mask(self, query: str) -> np.ndarray:
        """One bool per node: does ``query`` name this node's symbol (``resolve``)?"""
        out = np.zeros(self.size, dtype=bool)
        for symbol in self.resolve(query):
            out[self.rows[symbol]] = True
        return out

    def _lower(self, word: str) -> list[str]:
        return self.by_lower_leaf.get(word.lower(), [])

    def _path(
        self, parts: list[str], loose: bool = True, stand_ins: set[str] | None = None
    ) -> list[str]:
        """The symbol a dotted path means (module docstring, 2); ``loose=False`` for a
        name given as an argument: no guessing that the head is a variable. A class
        returned for want of its attribute is added to ``stand_ins``."""
        path = ".".join(parts)
        if path in self.rows and path not in self.aliases:  # (a method's binding is)
            return [path]
        for cut in range(len(parts), 0, -1):  # a public name, or the owner of the rest
            target = self.aliases.get(".".join(parts[:cut]))
            if target is not None:
                full = ".".join([target, *parts[cut:]])
                inherited = self._member(target, parts[-1]) if cut == len(parts) - 1 else None
                if full in self.rows or inherited:  # ``dask.array.Array.persist``: a base's
                    return [inherited or full]
        leaf = parts[-1]
        suffix = "." + path
        ends = [s for s in self.by_leaf.get(leaf, []) if s.endswith(suffix)]
        ends += [t for a, t in self.aliases_by_leaf.get(leaf, ()) if a.endswith(suffix)]
        if ends:
            return self._best(ends)
        if parts[0] in self.packages and len(parts) > 1:
            inside = [s for s in self.by_leaf.get(leaf, []) if _follows(s.split("."), parts)]
            if inside:
                return self._best(inside)
        lower = [s for s in self._lower(leaf) if s.lower().endswith(suffix.lower())]
        if lower:
            return self._best(lower)
        head = parts[0]
        if len(parts) == 1:
            return []
        if loose and head not in self.packages and head[:1].islower():  # a variable or an alias
            return self._path(parts[1:], stand_ins=stand_ins)  # ``stream.extra``
        owner = self._path(parts[:-1], loose)  # ``PoolManager.request``: inherited, or the class
        if not owner:
            return []
        member = self._member(owner[0], leaf)
        if member is None and stand_ins is not None:
            stand_ins.add(owner[0])
        return [member or owner[0]]

    def _member(
        self, owner: str, name: str, depth: int = 0, seen: dict[str, int] | None = None
    ) -> str | None:
        """``owner.name``, defined on ``owner`` or inherited from one of its indexed bases.

        Bases are found by leaf name, so one base may stand for many classes (a
        vendored copy, a common name): ``seen`` keeps the shallowest depth each class
        was searched from, and a class is not searched again from as deep or deeper,
        where it can only fail again (without it the search was exponential in depth).
        """
        if f"{owner}.{name}" in self.rows:
            return f"{owner}.{name}"
        if depth >= MAX_BASE_DEPTH:
            return None
        seen = {} if seen is None else seen
        seen[owner] = depth
        for base in self.bases.get(owner, ()):
            leaf = base.split("[", 1)[0].rsplit(".", 1)[-1]
            for cls in sorted(self.by_leaf.get(leaf, []), key=self._preference):
                if cls == owner or seen.get(cls, MAX_BASE_DEPTH + 1) <= depth + 1:
                    continue
                found = self._member(cls, name, depth + 1, seen)
                if found:
                    return found
        return None

    def _best(self, candidates: Iterable[str]) -> list[str]:
        """The symbol meant among those carrying the name (see the module docstring)."""
        candidates = list(candidates)
        return [min(candidates, key=self._preference)] if candidates else []

    def _preference(self, symbol: str) -> tuple[bool, bool, int, int, int]:
        definition, public = self.info[symbol]
        depth = self.depth.get(symbol, symbol.count("."))  # xarray.open_dataset (a re-export)
        return (not definition, not public, depth, -self.mentions.get(symbol, 0), len(symbol))


def _under(symbol: str, paths: Sequence[str]) -> bool:
    """Is ``symbol`` inside one of the dotted ``paths`` a query writes (a module or a class)?"""
    return any(symbol.startswith(path + ".") for path in paths)


def _follows(symbol_parts: list[str], written: list[str]) -> bool:
    """``rich.console.Console`` follows ``rich.Console``: the same package first, the
    same leaf last, and the written parts between in order among the symbol's."""
    if symbol_parts[0] != written[0] or symbol_parts[-1] != written[-1]:
        return False
    rest = iter(symbol_parts[1:-1])
    return all(part in rest for part in written[1:-1])
