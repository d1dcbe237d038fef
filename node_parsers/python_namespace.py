"""What a module binds at top level: definitions, imports, ``__all__``.

Code validation and doc-to-symbol resolution read these namespaces
(``symbols.json``); nothing is imported to find them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .python_syntax import text


@dataclass
class ModuleNamespace:
    """The names a module binds at top level, as parsed (nothing imported)."""

    module: str
    source_path: str
    is_package: bool = False
    defines: dict[str, str] = field(default_factory=dict)  # name -> kind
    imports: dict[str, str] = field(default_factory=dict)  # bound name -> absolute target
    all_names: list[str] | None = None
    star_imports: list[str] = field(default_factory=list)
    has_getattr: bool = False
    getattr_model: dict[str, Any] | None = None  # python_getattr.GetattrModel, if readable
    instances: dict[str, str] = field(default_factory=dict)  # x = Cls(...): x -> "Cls"
    adds_names: str | None = None  # how the module adds names at run time (globals().update)
    # a private class has no node, but a public class may inherit from it: its bases and
    # member names, so that validation knows what the public class inherits
    private_classes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # ``self.func = func`` in a method: an attribute each instance has (no node of its own)
    instance_attributes: dict[str, list[str]] = field(default_factory=dict)
    dynamic_classes: list[str] = field(default_factory=list)  # with __getattr__: any name

    def note_private_class(self, name: str, definition: Any) -> None:
        """``class _Mixin(Base): ...`` at top level: its bases' source and member names."""
        bases = definition.child_by_field_name("superclasses")
        body = definition.child_by_field_name("body")
        members: set[str] = set()
        for child in body.named_children if body is not None else []:
            inner = (
                child.child_by_field_name("definition")
                if child.type == "decorated_definition"
                else child
            )
            if inner is not None and inner.type in ("function_definition", "class_definition"):
                members.add(text(inner.child_by_field_name("name")))
            elif inner is not None and inner.type == "expression_statement":
                assign = inner.named_children[0] if inner.named_child_count == 1 else None
                left = None
                if assign is not None and assign.type == "assignment":
                    left = assign.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    members.add(text(left))
        self.private_classes[name] = {
            "bases": [text(b) for b in bases.named_children] if bases is not None else [],
            "members": sorted(members),
        }

    def note_chained(self, value: Any) -> None:
        """``base.dialect = dialect = psycopg.dialect``: the names inside a chained
        assignment are bound too (sqlalchemy's dialects list ``dialect`` in ``__all__``)."""
        while value is not None and value.type == "assignment":
            target = value.child_by_field_name("left")
            if target is not None and target.type == "identifier":
                self.defines.setdefault(text(target), "assignment")
            value = value.child_by_field_name("right")

    def note_instance(self, name: str, value: Any) -> None:
        """``name = Cls(...)`` at module level: remember what made it (indexer.bindings)."""
        made_by = value.child_by_field_name("function") if value.type == "call" else None
        if made_by is not None and made_by.type in ("identifier", "attribute"):
            self.instances[name] = made_by.text.decode("utf-8", "replace")

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "source_path": self.source_path,
            "is_package": self.is_package,
            "defines": self.defines,
            "imports": self.imports,
            "all": self.all_names,
            "star_imports": self.star_imports,
            "has_getattr": self.has_getattr,
            "getattr": self.getattr_model,
            "instances": self.instances,
            "private_classes": self.private_classes,
            "instance_attributes": self.instance_attributes,
            "dynamic_classes": self.dynamic_classes,
            "adds_names": self.adds_names,
        }

    def resolve_relative(self, module_name: str) -> str:
        """``..util`` seen from this module -> the absolute module name."""
        dots = len(module_name) - len(module_name.lstrip("."))
        rest = module_name[dots:]
        if dots == 0:
            return module_name
        base = self.module.split(".")
        if not self.is_package:
            base = base[:-1]
        if dots > 1:
            base = base[: len(base) - (dots - 1)]
        return ".".join([*base, rest] if rest else base)

    def _bind(self, name: str, target: str) -> None:
        """``name`` bound to ``target`` by an import. A later binding from a private module
        does not replace one from a public module: dask.array rebinds ``from_array`` from
        ``_array_expr`` in a branch that is off by default; ``core``'s is what runs."""
        old = self.imports.get(name)
        if old is None or not _private_path(target) or _private_path(old):
            self.imports[name] = target

    def add_import(self, node: Any) -> None:
        """Record the names an ``import`` or ``from ... import`` statement binds."""
        if node.type == "import_statement":
            for name in node.named_children:
                if name.type == "aliased_import":
                    target = text(name.child_by_field_name("name"))
                    alias = text(name.child_by_field_name("alias"))
                    self._bind(alias, target)
                elif name.type == "dotted_name":
                    target = text(name)
                    self.imports.setdefault(target.split(".")[0], target.split(".")[0])
            return
        if node.type != "import_from_statement":
            return
        mod_node = node.child_by_field_name("module_name")
        module = self.resolve_relative(text(mod_node).replace(" ", ""))
        for child in node.named_children:
            if child == mod_node:
                continue
            if child.type == "wildcard_import":
                self.star_imports.append(module)
            elif child.type == "aliased_import":
                target = text(child.child_by_field_name("name"))
                alias = text(child.child_by_field_name("alias"))
                self._bind(alias, f"{module}.{target}")
            elif child.type == "dotted_name":
                target = text(child)
                self._bind(target, f"{module}.{target}")


def _private_path(dotted: str) -> bool:
    """Does the dotted path pass through a private name (``dask.array._array_expr.x``)?"""
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))
