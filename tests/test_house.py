"""The layout holds: rooms import only downwards, no cycles, small modules, one vocabulary.

The rules are drawn in docs/architecture.md. Every import counts, also one inside a
function (a cycle hidden behind a lazy import is still a cycle); only imports under
``if TYPE_CHECKING:`` are left out, because they never run.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FOLDERS = {
    "plugin": "codecite",
    "node_parsers": "codecite.node_parsers",
    "retrievers": "codecite.retrievers",
    "evals": "codecite.evals",
}
MAX_LINES = 400

# Rooms from the bottom up: a module may import its own rank or below, never above.
RANKS = {
    "codecite.errors": 0,
    "codecite.vocabulary": 0,
    "codecite.safe_io": 0,
    "codecite.lazy": 0,
    "codecite.node_parsers": 0,
    "codecite.retrievers": 0,
    "codecite.config": 1,
    "codecite.store": 2,
    "codecite.node_parsers.dispatch": 3,  # chooses a parser for a corpus file
    "codecite.indexer": 3,
    "codecite.dense": 3,
    "codecite.index": 4,
    "codecite.answers": 5,
    "codecite.validation": 5,
    "codecite.server": 6,  # the MCP server: the index resident, answers and validation
    "codecite.cli": 7,
    "codecite.evals": 6,
    "codecite.__main__": 7,
}
# The one upward edge: the LlamaIndex facade convention, ``index.as_query_engine()``,
# imported when called and typed through a Protocol on the answers side.
UPWARD_ALLOWED = {
    ("codecite.index", "codecite.answers.engine"),
    ("codecite.index", "codecite.answers.chat"),  # index.as_chat_engine(), the same convention
}
# ``codecite/__init__.py`` exposes the public API lazily (PEP 562), from the top.
TOP = "codecite"


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def _imports(module: str, path: Path) -> Iterator[str]:
    """Every codecite module ``module`` imports, at any depth of its code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_lines(tree)
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if getattr(node, "lineno", 0) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name.startswith("codecite") and name != module:
                yield name


GRAPH = {m: sorted(set(_imports(m, p))) for m, p in MODULES.items()}


def _rank(module: str) -> int | None:
    best = None
    for prefix, rank in RANKS.items():
        covers = module == prefix or module.startswith(prefix + ".")
        if covers and (best is None or len(prefix) > len(best[0])):
            best = (prefix, rank)
    return None if best is None else best[1]


def test_every_module_has_a_room() -> None:
    homeless = [m for m in MODULES if m != TOP and _rank(m) is None]
    assert not homeless, f"modules outside every room of RANKS: {homeless}"


def test_imports_only_point_down() -> None:
    upward = [
        f"{m} -> {dep}"
        for m, deps in GRAPH.items()
        if m != TOP
        for dep in deps
        if dep != TOP and (m, dep) not in UPWARD_ALLOWED and _rank(dep) > _rank(m)  # type: ignore[operator]
    ]
    assert not upward, "imports pointing up the layers:\n" + "\n".join(upward)


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    # A package's __init__ importing its own modules is how packages export names;
    # an edge from a module to its parent package would form the only benign loop.
    graph = {
        m: [d for d in deps if not m.startswith(d + ".") and d != TOP] for m, deps in GRAPH.items()
    }
    assert not _cycles(graph), f"import cycles: {_cycles(graph)}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_stay_small(module: str) -> None:
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{MODULES[module].relative_to(REPO)} has {lines} lines"


def test_the_store_never_imports_llama_index() -> None:
    store = [m for m in MODULES if m.startswith("codecite.store.")]
    code = "import sys\n" + "".join(f"import {m}\n" for m in store)
    code += "print(sorted({n.split('.')[0] for n in sys.modules} & {'llama_index', 'bm25s'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


# -- one vocabulary --------------------------------------------------------------------------

VOCABULARY = MODULES["codecite.vocabulary"]


def _vocabulary() -> tuple[set[str], set[str]]:
    tree = ast.parse(VOCABULARY.read_text(encoding="utf-8"))
    names = {
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    } | {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    import codecite.vocabulary as v

    return names, set(v.KINDS)


def _violations(text: str, where: object, names: set[str], kinds: set[str]) -> Iterator[str]:
    import codecite.vocabulary as v

    tree = ast.parse(text)
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        for t in targets:
            if isinstance(t, ast.Name) and t.id in names:
                yield f"{where}:{node.lineno} defines {t.id} again"
        if isinstance(node, ast.ClassDef) and node.name in names:
            yield f"{where}:{node.lineno} defines class {node.name} again"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if len(values & kinds) >= 2:
                yield f"{where}:{node.lineno} spells out node kinds {sorted(values & kinds)}"
            for family in (v.MARKDOWN_SUFFIXES, v.RST_SUFFIXES):
                if set(family) <= values:
                    yield f"{where}:{node.lineno} spells out the suffixes {family}"
            if {"okay", "then", "but"} <= values:
                yield f"{where}:{node.lineno} spells out the lead-in words"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if v.REBUILD_FIX in node.value:
                yield f"{where}:{node.lineno} spells out the rebuild fix"
            if "okay|now|then" in node.value:
                yield f"{where}:{node.lineno} spells out the lead-in words in a pattern"


def test_closed_vocabularies_are_declared_once() -> None:
    names, kinds = _vocabulary()
    found = [
        violation
        for module, path in MODULES.items()
        if path != VOCABULARY
        for violation in _violations(
            path.read_text(encoding="utf-8"), path.relative_to(REPO), names, kinds
        )
    ]
    assert not found, "\n".join(found)


def test_the_vocabulary_check_sees_a_copy() -> None:
    names, kinds = _vocabulary()
    probe = (
        'CODE_KINDS = ("python_symbol", "python_method")\n'
        'FIX = "index damaged; run `codecite build --full`"\n'
        'LEADING = r"^(?:and|so|ok|okay|now|then|but)"\n'
    )
    found = list(_violations(probe, "probe.py", names, kinds))
    assert len(found) == 4, found


# -- typed records and the public API --------------------------------------------------------


def test_the_manifest_record_names_every_field_a_build_writes(built_sample: Path) -> None:
    import json

    from codecite.store.files import MANIFEST, Manifest

    written = json.loads((built_sample / ".codecite" / MANIFEST).read_text(encoding="utf-8"))
    assert set(written) == set(Manifest.__annotations__)


def test_dir_lists_the_public_api() -> None:
    import codecite

    assert set(codecite.__all__) <= set(dir(codecite))
    for name in codecite.__all__:
        assert getattr(codecite, name) is not None, name


def test_the_package_ships_its_type_marker() -> None:
    assert (REPO / "plugin" / "py.typed").is_file()
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in data["tool"]["setuptools"]["package-data"]["codecite"]
