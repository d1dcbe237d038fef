"""Python source -> code-aware nodes, with tree-sitter (error tolerant).

Emits ``module_doc`` (module docstring), ``python_symbol`` (top-level function,
class, public assignment) and ``python_method`` (methods, properties, nested
classes' methods) nodes, plus the module's namespace (what it defines, imports
and lists in ``__all__``) for code validation and doc-to-symbol resolution.

A class node carries its header, docstring and its methods' signatures, not its
whole body: a class node holding its body would match every keyword query.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.schema import BaseNode, TextNode

from ._ts import parse_python
from .docs import extract_code_refs, extract_refs
from .schema import NodeKind, make_node

DEFAULT_INCLUDE_PRIVATE = False
DEFAULT_MAX_VALUE_CHARS = 160
KEPT_DUNDER_METHODS = frozenset({"__init__", "__call__"})
_DEF_TYPES = ("function_definition", "class_definition")
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
# Classes nested deeper than this are not walked (their nodes are dropped with a
# warning): the walk recurses once per level and must stay far from the
# interpreter's recursion limit whatever the input.
MAX_CLASS_DEPTH = 100
_STRING_PREFIX = re.compile(r"^[rRbBuUfF]*")


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
        }


@dataclass
class PythonParseResult:
    nodes: list[TextNode]
    namespace: ModuleNamespace
    partial: bool = False
    error_lines: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _literal(node: Any) -> str:
    """A string literal's content: prefix and quotes off, line continuations joined."""
    text = _text(node)
    raw = _STRING_PREFIX.sub("", text, count=1)
    is_raw = "r" in text[: len(text) - len(raw)].lower()
    for quote in ('"""', "'''", '"', "'"):
        if raw.startswith(quote) and raw.endswith(quote) and len(raw) >= 2 * len(quote):
            raw = raw[len(quote) : -len(quote)]
            break
    return raw if is_raw else raw.replace("\\\n", "")  # a backslash at a line end joins


def _string_value(node: Any) -> str:
    """The value of a string literal node, without evaluating anything."""
    return inspect.cleandoc(_literal(node)).strip()


def _first_string(node: Any) -> str | None:
    """The value of the first string literal (or implicitly concatenated strings) in
    ``node``'s subtree, in source order: in ``dedent(doc).format(x="y")``, ``doc``'s."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "string":
            return _string_value(current)
        if current.type == "concatenated_string":
            return inspect.cleandoc(
                "".join(_literal(c) for c in current.named_children if c.type == "string")
            ).strip()
        stack.extend(reversed(current.named_children))
    return None


def _docstring_of(block: Any) -> str:
    if block is None:
        return ""
    for child in block.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1:
            expr = child.named_children[0]
            if expr.type == "string":
                return _string_value(expr)
        return ""
    return ""


def _param_kind_name(node: Any) -> str | None:
    name = node.child_by_field_name("name")
    if name is not None:
        return _text(name)
    for child in node.named_children:
        if child.type == "identifier":
            return _text(child)
    return None


def parse_parameters(params_node: Any) -> list[dict[str, Any]]:
    """Parameters as ``{name, annotation, default, kind}`` dicts (inspect kinds)."""
    if params_node is None:
        return []
    out: list[dict[str, Any]] = []
    kind = "positional_or_keyword"
    for child in params_node.named_children:
        t = child.type
        if t == "positional_separator":
            for p in out:
                p["kind"] = "positional_only"
            continue
        if t == "keyword_separator":
            kind = "keyword_only"
            continue
        if t == "comment":
            continue
        entry: dict[str, Any] = {"name": None, "annotation": None, "default": None, "kind": kind}
        if t == "identifier":
            entry["name"] = _text(child)
        elif t == "list_splat_pattern":
            entry.update(name=_param_kind_name(child), kind="var_positional")
            kind = "keyword_only"
        elif t == "dictionary_splat_pattern":
            entry.update(name=_param_kind_name(child), kind="var_keyword")
        elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            inner = child.named_children[0] if child.named_children else None
            if inner is not None and inner.type == "list_splat_pattern":
                entry.update(name=_param_kind_name(inner), kind="var_positional")
                kind = "keyword_only"
            elif inner is not None and inner.type == "dictionary_splat_pattern":
                entry.update(name=_param_kind_name(inner), kind="var_keyword")
            else:
                entry["name"] = _param_kind_name(child)
            ann = child.child_by_field_name("type")
            val = child.child_by_field_name("value")
            entry["annotation"] = _text(ann) if ann is not None else None
            entry["default"] = _text(val) if val is not None else None
        else:
            continue
        if entry["name"]:
            out.append(entry)
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).replace("( ", "(").replace(" )", ")").replace(",)", ")")


def _decorators(node: Any) -> list[str]:
    if node.type != "decorated_definition":
        return []
    return [_text(d).lstrip("@").strip() for d in node.named_children if d.type == "decorator"]


def _unwrap(node: Any) -> tuple[Any, Any]:
    """(definition, outer) for a possibly decorated definition."""
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return inner, node
    return node, node


class _ModuleWalker:
    """Walks one module's tree and collects nodes and namespace entries."""

    def __init__(
        self, source: bytes, source_path: str, module: str, include_private: bool, is_package: bool
    ) -> None:
        self.source = source
        self.source_path = source_path
        self.module = module
        self.include_private = include_private
        self.nodes: list[TextNode] = []
        self.warnings: list[str] = []
        self.namespace = ModuleNamespace(module, source_path, is_package=is_package)

    # -- helpers -----------------------------------------------------------
    def _keep(self, name: str) -> bool:
        return self.include_private or not _is_private(name)

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
        doc = _docstring_of(root)
        if doc:
            first = next(c for c in root.named_children if c.type != "comment")
            # a module docstring documents its module as a doc page does: the API it
            # names (``.. autoclass:: Dispatcher``, roles, examples) lends it relevance
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
        for child in self._top_level(root):
            self._top_statement(child)

    def _top_level(self, block: Any) -> Iterator[Any]:
        """Module statements, descending into if/try/with blocks and ERROR nodes.

        An explicit stack, not recursion: a file of 1,000 nested ``if`` blocks
        must not raise ``RecursionError``. Inside ``if TYPE_CHECKING:`` only
        imports are collected.
        """
        stack = [(iter(block.named_children), False)]
        while stack:
            children, imports_only = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
            elif child.type in _BLOCK_TYPES:
                guarded = child.type == "if_statement" and "TYPE_CHECKING" in _text(
                    child.child_by_field_name("condition")
                )
                stack.append((iter(child.named_children), imports_only or guarded))
            elif not imports_only:
                yield child
            elif child.type in ("import_statement", "import_from_statement"):
                self._import(child)

    def _top_statement(self, child: Any) -> None:
        t = child.type
        if t in ("decorated_definition", *_DEF_TYPES):
            definition, outer = _unwrap(child)
            if definition is None:
                return
            name = _text(definition.child_by_field_name("name"))
            kind = "class" if definition.type == "class_definition" else "function"
            self.namespace.defines.setdefault(name, kind)
            if name == "__getattr__":
                self.namespace.has_getattr = True
            if not self._keep(name) or (name.startswith("__") and kind == "function"):
                return
            if kind == "class":
                self._class(definition, outer, f"{self.module}.{name}", NodeKind.PYTHON_SYMBOL)
            else:
                self._function(definition, outer, f"{self.module}.{name}", NodeKind.PYTHON_SYMBOL)
        elif t == "expression_statement":
            self._assignment(child)
            self._add_newdoc(child)
        elif t in ("import_statement", "import_from_statement", "future_import_statement"):
            self._import(child)

    # -- imports -------------------------------------------------------------
    def _resolve_relative(self, module_name: str) -> str:
        dots = len(module_name) - len(module_name.lstrip("."))
        rest = module_name[dots:]
        if dots == 0:
            return module_name
        base = self.module.split(".")
        if not self.namespace.is_package:
            base = base[:-1]
        if dots > 1:
            base = base[: len(base) - (dots - 1)]
        return ".".join([*base, rest] if rest else base)

    def _import(self, node: Any) -> None:
        if node.type == "import_statement":
            for name in node.named_children:
                if name.type == "aliased_import":
                    target = _text(name.child_by_field_name("name"))
                    alias = _text(name.child_by_field_name("alias"))
                    self.namespace.imports[alias] = target
                elif name.type == "dotted_name":
                    target = _text(name)
                    self.namespace.imports.setdefault(target.split(".")[0], target.split(".")[0])
            return
        if node.type != "import_from_statement":
            return
        mod_node = node.child_by_field_name("module_name")
        module = self._resolve_relative(_text(mod_node).replace(" ", ""))
        for child in node.named_children:
            if child == mod_node:
                continue
            if child.type == "wildcard_import":
                self.namespace.star_imports.append(module)
            elif child.type == "aliased_import":
                target = _text(child.child_by_field_name("name"))
                alias = _text(child.child_by_field_name("alias"))
                self.namespace.imports[alias] = f"{module}.{target}"
            elif child.type == "dotted_name":
                target = _text(child)
                self.namespace.imports[target] = f"{module}.{target}"

    # -- assignments -----------------------------------------------------------
    def _assignment(self, stmt: Any) -> None:
        if stmt.named_child_count != 1 or stmt.named_children[0].type != "assignment":
            return
        assign = stmt.named_children[0]
        left = assign.child_by_field_name("left")
        if left is None:
            return
        if left.type == "attribute":
            self._late_docstring(left, assign.child_by_field_name("right"))
            return
        names = (
            [left]
            if left.type == "identifier"
            else [n for n in left.named_children if n.type == "identifier"]
        )
        right = assign.child_by_field_name("right")
        for name_node in names:
            name = _text(name_node)
            self.namespace.defines.setdefault(name, "assignment")
            if name == "__all__" and right is not None:
                self.namespace.all_names = re.findall(r"[\"']([\w.]+)[\"']", _text(right))
                continue
            if name == "__getattr__":
                self.namespace.has_getattr = True
        if len(names) != 1 or left.type != "identifier":
            return
        name = _text(left)
        if not self._keep(name) or name.startswith("__"):
            return
        if right is not None and "getLogger(" in _text(right):
            return  # `logger = logging.getLogger(__name__)` documents nothing
        doc = ""
        nxt = stmt.next_named_sibling
        if (
            nxt is not None
            and nxt.type == "expression_statement"
            and nxt.named_child_count == 1
            and nxt.named_children[0].type == "string"
        ):
            doc = _string_value(nxt.named_children[0])
        ann = assign.child_by_field_name("type")
        value = _squash(_text(right))[:DEFAULT_MAX_VALUE_CHARS] if right is not None else ""
        symbol = f"{self.module}.{name}"
        header = f"{name}{': ' + _text(ann) if ann is not None else ''} = {value}"
        meta = self._meta(
            NodeKind.PYTHON_SYMBOL,
            stmt,
            symbol=symbol,
            module=self.module,
            symbol_type="assignment",
            signature=header,
            params=[],
            returns=_text(ann) if ann is not None else None,
            docstring=doc,
            decorators=[],
        )
        self.nodes.append(make_node(f"{symbol}\n{header}\n{doc}".rstrip(), meta))

    def _late_docstring(self, left: Any, right: Any) -> None:
        """``violinplot.__doc__ = dedent('''...''').format(...)``: seaborn and others
        write a function's docstring after it. Its string literals become the docstring
        of that module-level symbol (nothing is evaluated; placeholders stay as written)."""
        target = left.child_by_field_name("object")
        if (
            right is None
            or target is None
            or target.type != "identifier"
            or _text(left.child_by_field_name("attribute")) != "__doc__"
        ):
            return
        doc = _first_string(right) or ""  # the template, not its arguments
        symbol = f"{self.module}.{_text(target)}"
        node = next(
            (
                n
                for n in reversed(self.nodes)
                if n.metadata.get("symbol") == symbol
                and n.metadata["kind"] == NodeKind.PYTHON_SYMBOL.value
            ),
            None,
        )
        if node is None or not doc:
            return
        old = node.metadata.get("docstring") or ""
        node.metadata["docstring"] = f"{old}\n\n{doc}" if old else doc
        node.text = f"{node.text}\n{doc}"

    def _add_newdoc(self, stmt: Any) -> None:
        """``add_newdoc("numpy._core.multiarray", "zeros", doc)``: numpy and scipy document
        their C functions (``np.zeros``, ``np.add``) this way, and a method with
        ``add_newdoc(module, "ndarray", ("sort", doc))``; scipy.special's two-argument
        ``add_newdoc("gammainc", doc)`` names a function of the enclosing package. Each
        such call with literal arguments becomes the documented symbol's node, cited at
        the call."""
        call = stmt.named_children[0] if stmt.named_child_count == 1 else None
        if call is None or call.type != "call":
            return
        func = call.child_by_field_name("function")
        name = _text(func).rsplit(".", 1)[-1] if func is not None else ""
        args = call.child_by_field_name("arguments")
        if name != "add_newdoc" or args is None:
            return
        values = [a for a in args.named_children if a.type != "comment"]
        if len(values) == 2:  # scipy.special's add_newdoc("gammainc", doc): the package's
            module = self.module if self.namespace.is_package else self.module.rsplit(".", 1)[0]
            owner_node, doc_node = values
        elif len(values) >= 3 and values[0].type == "string":
            module = _string_value(values[0])
            owner_node, doc_node = values[1], values[2]
        else:
            return
        if owner_node.type != "string":
            return
        owner = _string_value(owner_node)
        member = None
        if doc_node.type == "tuple":  # (member, doc); parentheses alone only group
            parts = [a for a in doc_node.named_children if a.type != "comment"]
            if len(parts) != 2 or parts[0].type != "string":
                return
            member, doc_node = _string_value(parts[0]), parts[1]
        # numpy writes `"""...""".replace("${LIKE}", like_doc)`: the template is the doc
        doc = _first_string(doc_node)
        if (
            doc is None
            or not re.fullmatch(r"[\w.]+", module)
            or not owner.isidentifier()
            or (member is not None and not member.isidentifier())
        ):
            return
        leaf = member or owner
        if (
            _is_private(owner)
            or (member is not None and _is_private(member))
            or (member is None and leaf.startswith("__"))
        ):
            return
        symbol = f"{module}.{owner}" + (f".{member}" if member else "")
        first = doc.split("\n", 1)[0].strip()
        signature = first if first.split("(", 1)[0].split(".")[-1] == leaf else f"{leaf}(...)"
        kind = NodeKind.PYTHON_METHOD if member else NodeKind.PYTHON_SYMBOL
        meta = self._meta(
            kind,
            stmt,
            symbol=symbol,
            module=module,
            symbol_type="method" if member else "documented",
            signature=signature,
            params=[],
            returns=None,
            decorators=[],
            docstring=doc,
        )
        self.nodes.append(make_node(f"{symbol}\n{signature}\n{doc}".rstrip(), meta))

    # -- functions and classes ---------------------------------------------------
    def _function(
        self, definition: Any, outer: Any, symbol: str, kind: NodeKind, owner: str | None = None
    ) -> str:
        name = _text(definition.child_by_field_name("name"))
        params_node = definition.child_by_field_name("parameters")
        ret = definition.child_by_field_name("return_type")
        is_async = _text(definition).startswith("async")
        decorators = _decorators(outer)
        signature = _squash(f"{name}{_text(params_node)}") + (f" -> {_text(ret)}" if ret else "")
        if is_async:
            signature = "async " + signature
        doc = _docstring_of(definition.child_by_field_name("body"))
        symbol_type = "method" if kind == NodeKind.PYTHON_METHOD else "function"
        for dec in decorators:
            if dec in ("property", "cached_property", "functools.cached_property") or dec.endswith(
                (".setter", ".getter", ".deleter")
            ):
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
            returns=_text(ret) if ret is not None else None,
            decorators=decorators,
            docstring=doc,
        )
        deco = "".join(f"@{d}\n" for d in decorators)
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
        name = _text(definition.child_by_field_name("name"))
        bases = definition.child_by_field_name("superclasses")
        body = definition.child_by_field_name("body")
        doc = _docstring_of(body)
        method_sigs: list[str] = []
        init_params: list[dict[str, Any]] = []
        fields: list[dict[str, Any]] = []
        for child in body.named_children if body is not None else []:
            inner, inner_outer = _unwrap(child)
            if inner is None:
                continue
            if inner.type == "function_definition":
                mname = _text(inner.child_by_field_name("name"))
                if mname == "__init__":
                    init_params = parse_parameters(inner.child_by_field_name("parameters"))
                if not self._keep(mname) or (
                    mname.startswith("__") and mname not in KEPT_DUNDER_METHODS
                ):
                    continue
                method_sigs.append(
                    self._function(inner, inner_outer, f"{symbol}.{mname}", NodeKind.PYTHON_METHOD)
                )
            elif inner.type == "class_definition":
                cname = _text(inner.child_by_field_name("name"))
                if self._keep(cname):
                    self._class(
                        inner, inner_outer, f"{symbol}.{cname}", NodeKind.PYTHON_METHOD, depth + 1
                    )
            elif inner.type == "expression_statement" and inner.named_child_count == 1:
                fields.extend(self._class_field(inner.named_children[0]))
        decorators = _decorators(outer)
        params = [p for p in init_params if p["name"] not in ("self", "cls")] if init_params else []
        header = f"class {name}{_text(bases) if bases is not None else ''}"
        signature = (
            _squash(f"{name}({format_parameters(params)})")
            if init_params
            else _squash(header[len("class ") :])
        )
        meta = self._meta(
            kind,
            outer,
            symbol=symbol,
            module=self.module,
            symbol_type="class",
            signature=signature,
            params=params,
            returns=None,
            decorators=decorators,
            docstring=doc,
            fields=fields,
            has_init=bool(init_params),
            bases=[_text(b) for b in bases.named_children] if bases else [],
        )
        deco = "".join(f"@{d}\n" for d in decorators)
        methods = "\n".join(f"  {s}" for s in method_sigs)
        text = f"{symbol}\n{deco}{header}\n{doc}" + (f"\nmethods:\n{methods}" if methods else "")
        self.nodes.append(make_node(text.rstrip(), meta))

    @staticmethod
    def _class_field(expr: Any) -> list[dict[str, Any]]:
        if expr.type != "assignment":
            return []
        left = expr.child_by_field_name("left")
        ann = expr.child_by_field_name("type")
        if left is None or left.type != "identifier" or ann is None:
            return []
        right = expr.child_by_field_name("right")
        return [
            {
                "name": _text(left),
                "annotation": _text(ann),
                "default": _text(right) if right is not None else None,
            }
        ]


def format_parameters(params: list[dict[str, Any]]) -> str:
    """Parameters back to source form, with the ``/`` and ``*`` markers."""
    parts: list[str] = []
    for i, p in enumerate(params):
        prev = params[i - 1]["kind"] if i else None
        if prev == "positional_only" and p["kind"] != "positional_only":
            parts.append("/")
        if p["kind"] == "keyword_only" and prev not in ("keyword_only", "var_positional"):
            parts.append("*")
        parts.append(_format_param(p))
    if params and params[-1]["kind"] == "positional_only":
        parts.append("/")
    return ", ".join(parts)


def _format_param(p: dict[str, Any]) -> str:
    prefix = {"var_positional": "*", "var_keyword": "**"}.get(p["kind"], "")
    text = prefix + p["name"]
    if p.get("annotation"):
        text += f": {p['annotation']}"
    if p.get("default") is not None:
        text += f" = {p['default']}" if p.get("annotation") else f"={p['default']}"
    return text


def _error_lines(root: Any) -> list[int]:
    lines: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            lines.append(node.start_point[0] + 1)
            continue
        if node.has_error:
            stack.extend(node.children)
    return sorted(set(lines))


def parse_python_source(
    source: bytes | str,
    source_path: str,
    module: str,
    include_private: bool = DEFAULT_INCLUDE_PRIVATE,
) -> PythonParseResult:
    """Parse one Python file into nodes and its namespace.

    Example:
        >>> r = parse_python_source("def f(x=1):\\n    'Add.'\\n", "pkg/m.py", "pkg.m")
        >>> r.nodes[0].metadata["symbol"], r.nodes[0].metadata["signature"]
        ('pkg.m.f', 'f(x=1)')
    """
    data = source.encode("utf-8") if isinstance(source, str) else source
    tree = parse_python(data)
    is_package = source_path.endswith(("__init__.py", "__init__.pyi"))
    walker = _ModuleWalker(data, source_path, module, include_private, is_package)
    walker.walk(tree.root_node)
    errors = _error_lines(tree.root_node) if tree.root_node.has_error else []
    return PythonParseResult(
        walker.nodes,
        walker.namespace,
        partial=bool(errors),
        error_lines=errors,
        warnings=walker.warnings,
    )


class PythonNodeParser(NodeParser):
    """Split Python documents into symbol-level nodes with tree-sitter.

    Each input document needs ``source_path`` in its metadata (repository
    relative) and may carry ``module`` (the dotted module name; derived from the
    path when absent).

    Example:
        >>> from llama_index.core import Document
        >>> doc = Document(text="class A:\\n    def run(self): ...\\n",
        ...                metadata={"source_path": "pkg/a.py"})
        >>> [n.metadata["symbol"] for n in PythonNodeParser().get_nodes_from_documents([doc])]
        ['pkg.a.A.run', 'pkg.a.A']
    """

    include_private: bool = Field(
        default=DEFAULT_INCLUDE_PRIVATE,
        description="Index names starting with a single underscore.",
    )

    @classmethod
    def class_name(cls) -> str:
        return "CodecitePythonNodeParser"

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for doc in nodes:
            path = str(
                doc.metadata.get("source_path")
                or doc.metadata.get("file_path")
                or f"{doc.node_id}.py"
            )
            module = doc.metadata.get("module") or module_name_for(path)
            result = parse_python_source(doc.get_content(), path, module, self.include_private)
            out.extend(result.nodes)
        return out


def module_name_for(source_path: str, package_dirs: dict[str, str] | None = None) -> str:
    """Dotted module name of a repository-relative path.

    ``package_dirs`` maps import names to folders (setuptools ``package-dir``);
    otherwise a leading ``src/`` is dropped: ``src/pkg/a/b.py`` -> ``pkg.a.b``.
    """
    path = source_path
    for suffix in (".pyi", ".py"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    parts = path.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    best: tuple[int, str] | None = None
    for name, folder in (package_dirs or {}).items():
        folder = folder.strip("/").removesuffix(".pyi").removesuffix(".py")  # a lone module
        fparts = [p for p in folder.split("/") if p and p != "."]
        if parts[: len(fparts)] == fparts and (best is None or len(fparts) > best[0]):
            best = (len(fparts), name)
    if best is not None:
        rest = parts[best[0] :]
        return ".".join([best[1], *rest] if best[1] else rest)
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts)
