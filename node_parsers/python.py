"""Python source -> code-aware nodes, with tree-sitter (error tolerant).

Emits ``module_doc`` (module docstring), ``python_symbol`` (top-level function,
class, public assignment) and ``python_method`` (methods, properties, nested
classes' methods) nodes, plus the module's namespace (what it defines, imports
and lists in ``__all__``) for code validation and doc-to-symbol resolution.

This module is the public face; the work is done, by concern, in:

- ``python_walker``: which statements become which nodes;
- ``python_params``: signatures' parameters as ``Param`` records and back;
- ``python_namespace``: the names a module binds (``symbols.json``);
- ``python_syntax``: names, string literals and docstrings of tree-sitter nodes;
- ``conventions``: library-specific ways of documenting (``add_newdoc``, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from codecite.lazy import lazy_attributes

from ._ts import parse_python
from .python_namespace import ModuleNamespace
from .python_params import format_parameters, parse_parameters
from .python_walker import (
    DEFAULT_MAX_VALUE_CHARS,
    KEPT_DUNDER_METHODS,
    MAX_CLASS_DEPTH,
    ModuleWalker,
)
from .schema import NodeRecord

__all__ = [
    "DEFAULT_INCLUDE_PRIVATE",
    "DEFAULT_MAX_VALUE_CHARS",
    "KEPT_DUNDER_METHODS",
    "MAX_CLASS_DEPTH",
    "ModuleNamespace",
    "PythonParseResult",
    "format_parameters",
    "module_name_for",
    "parse_parameters",
    "parse_python_source",
]

DEFAULT_INCLUDE_PRIVATE = False


@dataclass
class PythonParseResult:
    nodes: list[NodeRecord]
    namespace: ModuleNamespace
    partial: bool = False
    error_lines: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


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


# A module that writes its own namespace at run time (nilearn.plotting.cm's
# ``globals().update(_cmap_d)``) has names no parse can list: validation says so.
_ADDS_NAMES = re.compile(
    rb"\b(?:globals|vars)\(\)\s*(?:\.update\b|\.setdefault\b|\[[^\]\n]*\]\s*=(?!=))"
    rb"|\bsetattr\(\s*sys\.modules\[\s*__name__\s*\]"
    rb"|[(,][ \t]*globals\(\)[ \t]*[,)]"  # handed to a function that fills it (alembic's op)
)


def _without_getattr(root: Any, data: bytes) -> bytes:
    """The source less a module ``__getattr__``, whose ``globals()[name] = value`` caches
    what it answers (modelled apart: ``python_getattr``), not new names."""
    for child in root.named_children:
        definition = child.child_by_field_name("definition") or child
        if definition.type == "function_definition" and (
            definition.child_by_field_name("name").text == b"__getattr__"
        ):
            return data[: child.start_byte] + data[child.end_byte :]
    return data


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
    walker = ModuleWalker(data, source_path, module, include_private, is_package)
    walker.walk(tree.root_node)
    adds = (  # every form the pattern knows holds one of these: most files skip its search
        _ADDS_NAMES.search(_without_getattr(tree.root_node, data))
        if b"globals()" in data or b"vars()" in data or b"setattr(" in data
        else None
    )
    if adds is not None:  # anywhere: a function writing globals() adds names too
        how = " ".join(adds.group().decode("utf-8", "replace").split())
        walker.namespace.adds_names = "globals() handed to a function" if how[:1] in "(," else how
    _note_instance_attributes(walker, data, module)
    errors = _error_lines(tree.root_node) if tree.root_node.has_error else []
    return PythonParseResult(
        walker.nodes,
        walker.namespace,
        partial=bool(errors),
        error_lines=errors,
        warnings=walker.warnings,
    )


# ``self.name = ...`` / ``self.name: T = ...`` / ``setattr(self, "name", ...)``
_SELF_ATTRIBUTE = re.compile(
    rb"\bself\.([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)|\bsetattr\(\s*self\s*,\s*['\"](\w+)['\"]"
)


_DYNAMIC = re.compile(rb"\bdef[ \t]+__getattr(?:ibute)?__[ \t]*\(")


def _note_instance_attributes(walker: ModuleWalker, data: bytes, module: str) -> None:
    """The attributes each class's methods set on ``self`` (lmfit's ``Model.func``): an
    instance has them, so calling one is no call of a missing method (validation); and
    the classes defining ``__getattr__`` or ``__getattribute__``, whose instances have any."""
    if b"self" not in data:
        return
    lines = data.split(b"\n")
    for node in walker.nodes:
        meta = node.metadata
        if meta.get("symbol_type") != "class" or not str(meta.get("symbol", "")).startswith(
            module + "."
        ):
            continue
        body = b"\n".join(lines[int(meta["start_line"]) - 1 : int(meta["end_line"])])
        names = {a or b for a, b in (m.groups() for m in _SELF_ATTRIBUTE.finditer(body))}
        key = str(meta["symbol"])[len(module) + 1 :]
        if names:
            walker.namespace.instance_attributes[key] = [n.decode() for n in sorted(names)]
        if _DYNAMIC.search(body):  # any attribute may exist: none is provably missing
            walker.namespace.dynamic_classes.append(key)


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


# ``PythonNodeParser``: this parser as a LlamaIndex ``NodeParser``, made in ``llama.py``
__getattr__ = lazy_attributes("codecite.node_parsers", {"PythonNodeParser": "llama"})
