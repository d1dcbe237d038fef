"""Names a question writes that the indexed package provably lacks.

"what does pydantic.BaseModel.model_dumps return" was answered with ``BaseModel``'s card
and no word that ``model_dumps`` does not exist: ranking lets the class stand in for the
member it lacks. The offline answer now says so first, with the close real names, from
what ``codecite validate`` knows statically (``codecite.validation.namespace``): a name
is reported when it is provably absent, or when a real name is that close (a typo),
though a module ``__getattr__`` or a metaclass might add it; a plain class attribute,
which the index does not record, is never claimed absent. See docs/answers.md.
"""

from __future__ import annotations

from typing import Any

from codecite.retrievers.names import written_names

MAX_CHECKED = 5  # dotted names of one question checked at most


def absent_names(index: Any, query: str) -> list[str]:
    """One note per dotted name in ``query`` that starts at an indexed package and that the
    package provably lacks: a module's missing name ("`pkg.Feild` is not in the indexed
    package: 'pkg' has no attribute or submodule 'Feild' (did you mean `Field`?)"), a
    class's missing method ("the index has no method `model_dumps` on
    `pydantic.BaseModel` (did you mean `model_dump`?)"), said when the class's members are
    all known or a member's name is that close (a plain attribute, which the index does
    not record, or one a metaclass adds, is not ruled out: the note is about methods)."""
    dotted = [p.replace("()", "") for p in written_names(query)[0]][:MAX_CHECKED]
    table = getattr(index, "symbol_table", None) if dotted else None
    if table is None:
        return []
    from codecite.validation.namespace import Namespace, RefKind  # only for such a question
    from codecite.validation.suggestions import did_you_mean, with_hint

    namespace = Namespace.of(table, table.top_packages)
    resolve = getattr(index, "resolve_symbol", lambda name: None)
    notes = []
    for path in dotted:
        owner_path, _, leaf = path.rpartition(".")
        if not owner_path or leaf.startswith("_"):
            continue
        # `CliRunner.invok`: a class written by its own name, not from its package
        checked = owner_path if namespace.checks(path) else resolve(owner_path)
        if checked is None:
            continue
        kind, names, complete = owner_names(namespace, checked)
        if checked != owner_path and kind is not RefKind.CLASS:
            continue
        near = did_you_mean(leaf, names) if leaf not in names else ()
        if kind is RefKind.CLASS and leaf not in names and (complete or near):
            notes.append(with_hint(f"the index has no method `{leaf}` on `{owner_path}`", near))
        elif kind is RefKind.MODULE:
            ref = namespace.chain(path)
            if ref.kind is RefKind.UNKNOWN and near:  # a module ``__getattr__``: a typo still
                notes.append(with_hint(f"the index has no name `{leaf}` in `{owner_path}`", near))
            elif ref.kind is RefKind.ABSENT:
                notes.append(
                    with_hint(
                        f"`{path}` is not in the indexed package: {ref.reason}", ref.suggestions
                    )
                )
            elif ref.kind is RefKind.OPAQUE and ref.canonical and ref.canonical != path:
                # sqlmodel's `create_engine` is SQLAlchemy's: the answer is about something else
                notes.append(f"`{path}` is `{ref.canonical}`, from a package outside the index")
    return notes


def owner_names(namespace: Any, owner_path: str) -> tuple[Any, set[str], bool]:
    """(what ``owner_path`` is, the names it has, whether they are all known): a class's
    members with its in-package bases', or a module's names with those its ``__getattr__``
    answers; MCP ``lookup_symbol`` suggests from them too."""
    from codecite.validation.namespace import RefKind

    owner = namespace.chain(owner_path)
    if owner.kind is RefKind.CLASS and owner.canonical:
        members, complete = namespace.class_members(owner.canonical)
        return owner.kind, set(members), complete
    if owner.kind is RefKind.MODULE and owner.canonical:
        table = namespace.table
        ns = table.modules.get(owner.canonical, {})
        lazily = ns.get("getattr") or {}
        names = table.names_in(owner.canonical) | namespace.star_names(ns)  # and `import *`
        return owner.kind, names | {*lazily.get("names", ()), *lazily.get("lazy", {})}, False
    return owner.kind, set(), False
