"""Validate generated Python against the indexed package, statically.

A generated script is parsed with ``ast`` and every name it takes from the
indexed package (imports, ``pkg.mod.attr`` chains, calls, methods of instances
built from known classes) is resolved against the index's symbol table (see
:mod:`codecite.validation.namespace`). Nothing of the project is imported or executed
unless ``import_check=True`` asks for it, and then only for names the table
could not prove.

It only errors on what the table proves absent or wrong; what it cannot verify
is a warning, so it never blocks a script on its own inability to verify. Names
from other packages (stdlib, numpy) are left alone. The result is a
:class:`~codecite.validation.findings.ValidationReport`: ``errors``/``warnings``
are plain messages; ``findings`` carries the same problems with line, level,
symbol and close real names (see docs/validation.md).

Example:
    >>> validate_generated_code("from pkg import static_shift\\n", table)  # doctest: +SKIP
    {'ok': False, 'syntax_ok': True,
     'errors': ["'pkg' has no attribute or submodule 'static_shift'"],
     'warnings': [], 'checked': [], 'findings': [...], 'import_checked': []}
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterable
from typing import Protocol

from codecite.config.model import DEFAULT_DOC_DIRS, DEFAULT_EXAMPLE_DIRS
from codecite.store.symbols import SymbolTable
from codecite.validation.calls import CallShape, bind_problems
from codecite.validation.findings import ERROR, WARNING, Finding, ValidationReport, build_report
from codecite.validation.import_check import run_import_checks
from codecite.validation.namespace import OPAQUE, Namespace, Ref, RefKind
from codecite.validation.suggestions import with_hint

logger = logging.getLogger(__name__)

IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
GUARD_NOTE = " (guarded by try/except ImportError)"


class HasSymbolTable(Protocol):
    """Anything with the package's symbol table (a loaded index)."""

    @property
    def symbol_table(self) -> SymbolTable: ...


def _catches_import_error(node: ast.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(ast.unparse(t).rsplit(".", 1)[-1] in IMPORT_ERRORS for t in types):
            return True
    return False


class _Checker(ast.NodeVisitor):
    """Walks a script in source order, binding names to refs and recording findings."""

    def __init__(self, ns: Namespace, module: str | None) -> None:
        self.ns = ns
        self.module = module
        self.scopes: list[dict[str, Ref]] = [{}]
        self.findings: list[Finding] = []
        self.checked: list[str] = []
        self.guarded = 0

    # -- bookkeeping -------------------------------------------------------------
    def bind(self, name: str, ref: Ref) -> None:
        self.scopes[-1][name] = ref if ref.found else OPAQUE

    def lookup(self, name: str) -> Ref | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def add(
        self,
        line: int,
        level: str,
        symbol: str,
        message: str,
        suggestions: tuple[str, ...] = (),
        probe: tuple[str, str] | None = None,
    ) -> None:
        self.findings.append(Finding(line, level, symbol, message, suggestions, probe))

    def report(self, ref: Ref, node: ast.AST, is_import: bool = False) -> None:
        """Record a ref's outcome: ABSENT is an error, UNKNOWN a warning, found is checked."""
        line = getattr(node, "lineno", 0)
        if ref.kind is RefKind.ABSENT:
            guarded = is_import and self.guarded > 0
            message = with_hint(ref.reason, ref.suggestions) + (GUARD_NOTE if guarded else "")
            self.add(line, WARNING if guarded else ERROR, ref.display, message, ref.suggestions)
        elif ref.kind is RefKind.UNKNOWN:  # with the close names it could mean (`Footr`)
            why = f"'{ref.display}' cannot be verified statically: {ref.reason}"
            hint = with_hint(why, ref.suggestions)
            self.add(line, WARNING, ref.display, hint, ref.suggestions, ref.probe)
        elif ref.found and ref.display not in self.checked:
            self.checked.append(ref.display)

    # -- imports -------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".", 1)[0]
            if not self.ns.checks(alias.name):
                self.bind(alias.asname or top, OPAQUE)
                continue
            ref = self.ns.module_path(alias.name)
            self.report(ref, node, is_import=True)
            if alias.asname:
                self.bind(alias.asname, ref)
            else:
                self.bind(top, self.ns.top(top))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = self._absolute(node)
        if module is None:
            for alias in node.names:
                self.bind(alias.asname or alias.name, OPAQUE)
            return
        owner = self.ns.module_path(module) if self.ns.checks(module) else OPAQUE
        if owner.kind is not RefKind.MODULE:
            self.report(owner, node, is_import=True)
        for alias in node.names:
            if alias.name == "*":
                self._star(owner, node)
                continue
            ref = self.ns.member(owner, alias.name) if owner.kind is RefKind.MODULE else OPAQUE
            self.report(ref, node, is_import=True)
            self.bind(alias.asname or alias.name, ref)

    def _absolute(self, node: ast.ImportFrom) -> str | None:
        if not node.level:
            return node.module or ""
        dots = "." * node.level + (node.module or "")
        if self.module is None:
            self.add(
                node.lineno,
                WARNING,
                dots,
                f"relative import '{dots}' cannot be "
                "resolved: the script's module is unknown (pass module=...)",
            )
            return None
        parts = self.module.split(".")
        is_package = self.ns.table.modules.get(self.module, {}).get("is_package", False)
        base = parts[: len(parts) - node.level + is_package]
        return ".".join([*base, node.module] if node.module else base)

    def _star(self, owner: Ref, node: ast.ImportFrom) -> None:
        if owner.kind is not RefKind.MODULE:
            return
        self.report(owner, node)
        ns = self.ns.table.modules.get(owner.canonical or "", {})
        exported = ns.get("all")
        names = (
            exported
            if exported is not None
            else [n for n in self.ns.table.names_in(owner.canonical or "") if not n.startswith("_")]
        )
        for name in names:
            self.bind(name, self.ns.member(owner, name))

    # -- scopes --------------------------------------------------------------------
    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        for child in (*getattr(node, "decorator_list", []), node.args):
            self.visit(child)
        if getattr(node, "returns", None) is not None:
            self.visit(node.returns)  # type: ignore[union-attr, arg-type]
        if not isinstance(node, ast.Lambda):
            self.bind(node.name, OPAQUE)
        args = node.args
        names = [
            a.arg
            for a in (
                *args.posonlyargs,
                *args.args,
                *args.kwonlyargs,
                *(x for x in (args.vararg, args.kwarg) if x),
            )
        ]
        self.scopes.append(dict.fromkeys(names, OPAQUE))
        for stmt in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(stmt)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for child in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(child)
        self.bind(node.name, OPAQUE)
        self.scopes.append({})
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> None:
        self.scopes.append({})
        for gen in node.generators:
            self.visit(gen.iter)
            self.visit(gen.target)
            for cond in gen.ifs:
                self.visit(cond)
        for part in ("elt", "key", "value"):
            if hasattr(node, part):
                self.visit(getattr(node, part))
        self.scopes.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Try(self, node: ast.Try) -> None:
        guard = _catches_import_error(node)
        self.guarded += guard
        for stmt in node.body:
            self.visit(stmt)
        self.guarded -= guard
        for handler in node.handlers:
            if handler.name:
                self.bind(handler.name, OPAQUE)
            for stmt in handler.body:
                self.visit(stmt)
        for stmt in (*node.orelse, *node.finalbody):
            self.visit(stmt)

    visit_TryStar = visit_Try  # type: ignore[assignment]  # same fields as Try

    # -- assignments -----------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.visit(node.value)
        for target in node.targets:
            self.visit(target)
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(value, Ref)
        ):
            self.bind(node.targets[0].id, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        value = self.visit(node.value) if node.value is not None else None
        self.visit(node.annotation)
        self.visit(node.target)
        if isinstance(node.target, ast.Name) and isinstance(value, Ref):
            self.bind(node.target.id, value)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> Ref | None:
        value = self.visit(node.value)
        self.bind(node.target.id, value if isinstance(value, Ref) else OPAQUE)
        return value if isinstance(value, Ref) else None

    # -- expressions -------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> Ref | None:
        if not isinstance(node.ctx, ast.Load):
            self.bind(node.id, OPAQUE)
            return None
        return self.lookup(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> Ref | None:
        return self._attribute(node, called=False, record=True)

    def _attribute(self, node: ast.Attribute, called: bool, record: bool) -> Ref | None:
        if not isinstance(node.ctx, ast.Load):
            self.visit(node.value)
            return None
        if isinstance(node.value, ast.Attribute):
            owner = self._attribute(node.value, called=False, record=False)
        else:
            owner = self.visit(node.value)
        if not isinstance(owner, Ref) or not owner.found:
            return None
        ref = self.ns.member(owner, node.attr, called)
        if ref.kind is RefKind.OPAQUE or (not record and ref.found):
            return ref if ref.found else None
        self.report(ref, node)
        return ref if ref.found else None

    def visit_Call(self, node: ast.Call) -> Ref | None:
        if isinstance(node.func, ast.Attribute):
            func = self._attribute(node.func, called=True, record=True)
        else:
            func = self.visit(node.func)
        for arg in (*node.args, *node.keywords):
            self.visit(arg)
        if not isinstance(func, Ref) or func.kind not in (RefKind.CLASS, RefKind.CALLABLE):
            return None
        self._check_call(func, node)
        return (
            Ref(RefKind.INSTANCE, func.display, func.canonical)
            if func.kind is RefKind.CLASS
            else None
        )

    def _check_call(self, func: Ref, node: ast.Call) -> None:
        sig = self.ns.signature(func)
        if sig is None:
            return
        shape = CallShape(
            n_positional=sum(not isinstance(a, ast.Starred) for a in node.args),
            keywords=tuple(k.arg for k in node.keywords if k.arg is not None),
            star_args=any(isinstance(a, ast.Starred) for a in node.args),
            star_kwargs=any(k.arg is None for k in node.keywords),
        )
        for problem in bind_problems(sig, shape, func.display):
            message = with_hint(problem.message, problem.suggestions)
            if problem.doubt:
                message += f" (not certain: {problem.doubt})"
            self.add(
                node.lineno,
                ERROR if problem.certain else WARNING,
                func.display,
                message,
                problem.suggestions,
            )


def _table_of(index: SymbolTable | HasSymbolTable | None) -> SymbolTable | None:
    if index is None or isinstance(index, SymbolTable):
        return index
    return getattr(index, "symbol_table", None)


def _packages(package: str | Iterable[str] | None, table: SymbolTable | None) -> set[str]:
    if package is None:  # an `examples/` or `docs/` folder holds scripts, no package to import
        scripts = {*DEFAULT_DOC_DIRS, *DEFAULT_EXAMPLE_DIRS}
        return {p for p in table.top_packages if p not in scripts} if table else set()
    names = [package] if isinstance(package, str) else list(package)
    return {n.split(".", 1)[0] for n in names}


def validate_generated_code(
    code: str,
    index: SymbolTable | HasSymbolTable | None = None,
    package: str | Iterable[str] | None = None,
    import_check: bool = False,
    *,
    module: str | None = None,
) -> ValidationReport:
    """Check a generated script's use of the indexed package without importing it.

    Args:
        code: the Python source to check.
        index: a :class:`SymbolTable` or an object with a ``symbol_table``.
        package: top-level package name(s) to check (default: all indexed ones).
        import_check: import the installed package to settle names the table
            cannot prove; settled names are listed in ``import_checked``.
        module: the dotted module the script would live at, for relative imports.

    Returns:
        a :class:`~codecite.validation.findings.ValidationReport`:
        ``{ok, syntax_ok, errors, warnings, checked, findings, import_checked}``.

    Example:
        >>> validate_generated_code("import os\\n", SymbolTable())["errors"]
        []
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None) or 0
        msg = getattr(exc, "msg", None) or str(exc) or "nested too deeply to parse"
        finding = Finding(line, ERROR, "", f"syntax error at line {line}: {msg}")
        return build_report([finding], syntax_ok=False, checked=[], import_checked=[])
    table = _table_of(index)
    checker = _Checker(Namespace.of(table or SymbolTable(), _packages(package, table)), module)
    if table is None:
        checker.add(
            0,
            WARNING,
            "",
            "no symbol table given: nothing was checked against the package (pass index=)",
        )
    try:
        checker.visit(tree)
    except RecursionError:  # an expression nested deeper than the walk can follow
        checker.add(
            0,
            WARNING,
            "",
            "code nested too deeply to check completely; "
            "only the part before the deep nesting was checked",
        )
    import_checked: list[str] = []
    findings, checked = checker.findings, list(checker.checked)
    if import_check:
        findings = run_import_checks(findings, checked, import_checked)
    return build_report(findings, syntax_ok=True, checked=checked, import_checked=import_checked)
