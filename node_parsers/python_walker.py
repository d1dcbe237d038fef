"""The walk over one module's tree: which statements become which nodes.

Emits ``module_doc`` (module docstring), ``python_symbol`` (top-level function,
class, public assignment) and ``python_method`` (methods, properties, nested
classes' methods) nodes, and fills the module's namespace. Library-specific
ways of documenting (``add_newdoc``, late ``__doc__``, loggers) are in
``codecite.node_parsers.conventions``.

A class node carries its header, docstring and its methods' signatures, not its
whole body: a class node holding its body would match every keyword query.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .conventions import attach_docstring, creates_logger, read_add_newdoc, read_late_docstring
from .python_getattr import read_getattr, read_lazy_attach
from .python_messages import MessageSites, adopt_orphans
from .python_namespace import ModuleNamespace
from .python_params import constructor, parse_parameters
from .python_syntax import (
    class_field,
    code_text,
    decorators,
    docstring_of,
    is_private,
    squash,
    string_value,
    text,
    unwrap,
)
from .refs import extract_code_refs, extract_refs
from .schema import ClassField, NodeKind, Param, make_node

if TYPE_CHECKING:
    from .schema import NodeRecord

DEFAULT_MAX_VALUE_CHARS = 160
KEPT_DUNDER_METHODS = frozenset({"__init__", "__call__"})
_DEF_TYPES = ("function_definition", "class_definition")
_IMPORT_TYPES = ("import_statement", "import_from_statement")
_BLOCK_TYPES = frozenset(
    {
        "if_statement",
        "try_statement",
        "with_statement",
        "ERROR",
        "else_clause",
        "elif_clause",
        "except_clause",
        "finally_clause",
        "block",
    }
)
_MAIN_GUARD = re.compile(r"""__name__\s*==\s*['"]__main__['"]|['"]__main__['"]\s*==\s*__name__""")
_OVERLOAD_DECORATORS = ("overload", "typing.overload", "typing_extensions.overload")
_PROPERTY_DECORATORS = ("property", "cached_property", "functools.cached_property")
# Classes nested deeper are not walked (their nodes dropped with a warning): the walk
# recurses once per level and must stay far from the interpreter's recursion limit.
MAX_CLASS_DEPTH = 100


class ModuleWalker:
    """Walks one module's tree and collects nodes and namespace entries."""

    def __init__(
        self, source: bytes, source_path: str, module: str, include_private: bool, is_package: bool
    ) -> None:
        self.source = source
        self.source_path = source_path
        self.module = module
        self.include_private = include_private
        self.nodes: list[NodeRecord] = []
        self.warnings: list[str] = []
        self.namespace = ModuleNamespace(module, source_path, is_package=is_package)
        self._getattr: tuple[str, str] | None = None  # ("def" | "attach", source text)
        self._tables: dict[str, str] = {}  # module-level name -> its value's source text

    # -- helpers -----------------------------------------------------------
    def _keep(self, name: str) -> bool:
        return self.include_private or not is_private(name)

    def _meta(self, kind: NodeKind, outer: Any, **extra: Any) -> dict[str, Any]:
        meta = {
            "kind": kind.value,
            "source_path": self.source_path,
            "start_line": outer.start_point[0] + 1,
            "end_line": outer.end_point[0] + 1,
        }
        meta.update(extra)
        return meta

    # -- module level --------------------------------------------------------
    def walk(self, root: Any) -> None:
        self._messages = MessageSites(root, self.source)  # raise/warn sites (python_messages)
        doc = docstring_of(root)
        if doc:
            first = next(c for c in root.named_children if c.type != "comment")
            # a module docstring documents its module as a doc page does (refs lend relevance)
            meta = self._meta(
                NodeKind.MODULE_DOC,
                first,
                symbol=self.module,
                module=self.module,
                docstring=doc,
                refs=list(extract_refs(doc)),
                code_refs=list(extract_code_refs(doc)),
            )
            self.nodes.append(make_node(f"module {self.module}\n{doc}", meta))
        for child, conditional in self._top_level(root):
            self._top_statement(child, conditional)
        adopt_orphans(self._messages, self.nodes)  # raised in private code: to its owner
        self._read_getattr()

    def _read_getattr(self) -> None:
        """What the module ``__getattr__`` answers, when it can be read (python_getattr)."""
        if self._getattr is None:
            return
        form, source = self._getattr
        model = None
        if form == "def":
            model = read_getattr(source, self._tables, self.module)
        elif form == "attach":
            model = read_lazy_attach(source, self.module)
        self.namespace.getattr_model = model.to_json() if model is not None else None

    def _top_level(self, block: Any) -> Iterator[tuple[Any, bool]]:
        """Module statements, each with whether it sits inside a conditional block.

        Descends into if/try/with blocks and ERROR nodes. An explicit stack, not
        recursion: a file of 1,000 nested ``if`` blocks must not raise
        ``RecursionError``. Inside ``if TYPE_CHECKING:`` only imports are
        collected; an ``if __name__ == "__main__":`` block is a script, not the
        module's API, and is skipped whole.
        """
        stack = [(iter(block.named_children), False, False)]
        while stack:
            children, imports_only, conditional = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
            elif child.type in _BLOCK_TYPES:
                condition = text(child.child_by_field_name("condition"))
                if child.type == "if_statement" and _MAIN_GUARD.fullmatch(condition):
                    continue
                guarded = child.type == "if_statement" and "TYPE_CHECKING" in condition
                inside = conditional or child.type != "ERROR"
                stack.append((iter(child.named_children), imports_only or guarded, inside))
            elif not imports_only:
                yield child, conditional
            elif child.type in _IMPORT_TYPES:
                self.namespace.add_import(child)

    def _top_statement(self, child: Any, conditional: bool = False) -> None:
        t = child.type
        if t in ("decorated_definition", *_DEF_TYPES):
            self._top_definition(child, conditional)
        elif t == "expression_statement":
            self._assignment(child, node=not conditional)
            self._add_newdoc(child)
        elif t in (*_IMPORT_TYPES, "future_import_statement"):
            self.namespace.add_import(child)

    def _top_definition(self, child: Any, conditional: bool = False) -> None:
        definition, outer = unwrap(child)
        if definition is None:
            return
        name = text(definition.child_by_field_name("name"))
        kind = "class" if definition.type == "class_definition" else "function"
        self.namespace.defines.setdefault(name, kind)
        if name == "__getattr__":
            self.namespace.has_getattr = True
            # read only an unconditional, undecorated definition; a second one wins
            plain = outer is definition and not conditional
            self._getattr = ("def", text(definition)) if plain else ("unreadable", "")
        if kind == "class" and not self._keep(name) and not conditional:
            self.namespace.note_private_class(name, definition)
        if not self._keep(name) or (name.startswith("__") and kind == "function"):
            return
        if kind == "class":
            self._class(definition, outer, f"{self.module}.{name}", NodeKind.PYTHON_SYMBOL)
        else:
            self._function(definition, outer, f"{self.module}.{name}", NodeKind.PYTHON_SYMBOL)

    # -- assignments -----------------------------------------------------------
    def _assignment(self, stmt: Any, node: bool = True) -> None:
        """Record what a module-level assignment binds; ``node``: also index it.

        An assignment inside a conditional block (``if WINDOWS: ...``, ``except
        ImportError: ...``) binds a module name but is a fallback, not API: no node.
        """
        if stmt.named_child_count != 1 or stmt.named_children[0].type != "assignment":
            return
        assign = stmt.named_children[0]
        left = assign.child_by_field_name("left")
        right = assign.child_by_field_name("right")
        if left is None:
            return
        self.namespace.note_chained(right)
        if left.type == "attribute":
            late = read_late_docstring(left, right)
            if late is not None:
                attach_docstring(self.nodes, f"{self.module}.{late.target}", late.doc)
            return
        names = (
            [left]
            if left.type == "identifier"
            else [n for n in left.named_children if n.type == "identifier"]
        )
        for name_node in names:
            name = text(name_node)
            self.namespace.defines.setdefault(name, "assignment")
            if name == "__all__" and right is not None:
                self.namespace.all_names = re.findall(r"[\"']([\w.]+)[\"']", text(right))
                continue
            if name == "__getattr__":
                self.namespace.has_getattr = True
                attach = right is not None and node and left.type != "identifier"
                self._getattr = ("attach", text(right)) if attach else ("unreadable", "")
        if len(names) != 1 or left.type != "identifier":
            return
        name = text(left)
        if right is not None:
            self._tables[name] = text(right)
            self.namespace.note_instance(name, right)
        if not node or not self._keep(name) or name.startswith("__") or creates_logger(right):
            return
        self._assignment_node(stmt, assign, name, right)

    def _assignment_node(self, stmt: Any, assign: Any, name: str, right: Any) -> None:
        """A public module-level ``name = value``, documented by a string after it."""
        doc = ""
        nxt = stmt.next_named_sibling
        if (
            nxt is not None
            and nxt.type == "expression_statement"
            and nxt.named_child_count == 1
            and nxt.named_children[0].type == "string"
        ):
            doc = string_value(nxt.named_children[0])
        ann = assign.child_by_field_name("type")
        value = squash(text(right))[:DEFAULT_MAX_VALUE_CHARS] if right is not None else ""
        symbol = f"{self.module}.{name}"
        header = f"{name}{': ' + text(ann) if ann is not None else ''} = {value}"
        meta = self._meta(
            NodeKind.PYTHON_SYMBOL,
            stmt,
            symbol=symbol,
            module=self.module,
            symbol_type="assignment",
            signature=header,
            params=[],
            returns=text(ann) if ann is not None else None,
            docstring=doc,
            decorators=[],
        )
        self.nodes.append(make_node(f"{symbol}\n{header}\n{doc}".rstrip(), meta))

    def _add_newdoc(self, stmt: Any) -> None:
        found = read_add_newdoc(stmt, self.module, self.namespace.is_package)
        if found is None:
            return
        meta = self._meta(
            found.kind,
            stmt,
            symbol=found.symbol,
            module=found.module,
            symbol_type=found.symbol_type,
            signature=found.signature,
            params=[],
            returns=None,
            decorators=[],
            docstring=found.doc,
        )
        self.nodes.append(make_node(found.text, meta))

    # -- functions and classes ---------------------------------------------------
    def _function(
        self, definition: Any, outer: Any, symbol: str, kind: NodeKind, owner: str | None = None
    ) -> str:
        name = text(definition.child_by_field_name("name"))
        params_node = definition.child_by_field_name("parameters")
        ret = definition.child_by_field_name("return_type")
        is_async = text(definition).startswith("async")
        decos = decorators(outer)
        signature = squash(f"{name}{code_text(params_node)}") + (f" -> {text(ret)}" if ret else "")
        if is_async:
            signature = "async " + signature
        body = definition.child_by_field_name("body")
        doc = docstring_of(body)
        symbol_type = "method" if kind == NodeKind.PYTHON_METHOD else "function"
        for dec in decos:
            if dec in _PROPERTY_DECORATORS or dec.endswith((".setter", ".getter", ".deleter")):
                symbol_type = "property"
            elif dec in ("classmethod", "staticmethod"):
                symbol_type = dec
        meta = self._meta(
            kind,
            outer,
            symbol=symbol,
            module=self.module,
            symbol_type=symbol_type,
            signature=signature,
            params=parse_parameters(params_node),
            returns=text(ret) if ret is not None else None,
            decorators=decos,
            docstring=doc,
        )
        if messages := self._messages.raised_messages(body):  # for a pasted message
            meta["messages"] = messages
        if any(d in _OVERLOAD_DECORATORS for d in decos) and not doc:
            return signature  # a typing stub of the implementation that follows: not a node
        deco = "".join(f"@{d}\n" for d in decos)
        self.nodes.append(make_node(f"{symbol}\n{deco}def {signature}\n{doc}".rstrip(), meta))
        return signature

    def _class(
        self, definition: Any, outer: Any, symbol: str, kind: NodeKind, depth: int = 1
    ) -> None:
        if depth > MAX_CLASS_DEPTH:
            self.warnings.append(
                f"classes nested deeper than {MAX_CLASS_DEPTH} levels from "
                f"line {outer.start_point[0] + 1} were not indexed"
            )
            return
        name = text(definition.child_by_field_name("name"))
        bases = definition.child_by_field_name("superclasses")
        body = definition.child_by_field_name("body")
        doc = docstring_of(body)
        method_sigs, init_params, fields = self._class_body(body, symbol, depth)
        decos = decorators(outer)
        header = f"class {name}{text(bases) if bases is not None else ''}"
        signature, params = constructor(name, header[6 + len(name) :], init_params, decos, fields)
        meta = self._meta(
            kind,
            outer,
            symbol=symbol,
            module=self.module,
            symbol_type="class",
            signature=signature,
            params=params,
            returns=None,
            decorators=decos,
            docstring=doc,
            fields=fields,
            has_init=bool(init_params),
            bases=[text(b) for b in bases.named_children] if bases else [],
        )
        deco = "".join(f"@{d}\n" for d in decos)
        methods = "\n".join(f"  {s}" for s in method_sigs)
        body_text = f"{symbol}\n{deco}{header}\n{doc}" + (
            f"\nmethods:\n{methods}" if methods else ""
        )
        self.nodes.append(make_node(body_text.rstrip(), meta))

    def _class_body(
        self, body: Any, symbol: str, depth: int
    ) -> tuple[list[str], list[Param], list[ClassField]]:
        """Walk a class body: (kept methods' signatures, constructor params, fields);
        method and nested class nodes are emitted on the way."""
        method_sigs: list[str] = []
        init_params: list[Param] = []
        constructor: list[Param] = []  # __new__'s, used when there is no __init__
        fields: list[ClassField] = []
        for child in body.named_children if body is not None else []:
            inner, inner_outer = unwrap(child)
            if inner is None:
                continue
            if inner.type == "function_definition":
                mname = text(inner.child_by_field_name("name"))
                if mname == "__init__":
                    init_params = parse_parameters(inner.child_by_field_name("parameters"))
                elif mname == "__new__" and not constructor and inner_outer is inner:
                    # the constructor when no __init__ is defined (sympy's Symbol); a
                    # decorated one (@cacheit) may take anything: left to the bases
                    constructor = parse_parameters(inner.child_by_field_name("parameters"))
                if not self._keep(mname) or (
                    mname.startswith("__") and mname not in KEPT_DUNDER_METHODS
                ):
                    continue
                method_sigs.append(
                    self._function(inner, inner_outer, f"{symbol}.{mname}", NodeKind.PYTHON_METHOD)
                )
            elif inner.type == "class_definition":
                cname = text(inner.child_by_field_name("name"))
                if self._keep(cname):
                    self._class(
                        inner, inner_outer, f"{symbol}.{cname}", NodeKind.PYTHON_METHOD, depth + 1
                    )
            elif inner.type == "expression_statement" and inner.named_child_count == 1:
                fields.extend(class_field(inner.named_children[0]))
        return method_sigs, init_params or constructor, fields
