"""Build-time tables: doc references and aliases resolved to symbol nodes."""

from __future__ import annotations

from codecite.indexer.refs import RefResolver, alias_edges, doc_edges
from codecite.node_parsers.docs import extract_code_refs
from codecite.node_parsers.python import parse_python_source
from codecite.store.reuse import Keys, node_keys
from codecite.store.symbols import SymbolTable

IMPL = '''
def attrib(default=None):
    """Define an attribute."""

def define(cls=None, *, frozen=False):
    """Define a class."""
'''
INIT = """
from functools import partial
from ._make import attrib, define
ib = attr = attrib
frozen = partial(define, frozen=True)
VERSION = "1.0"
made = define(object)
"""


def _records_and_table():
    parts = [
        parse_python_source(IMPL, "pkg/_make.py", "pkg._make"),
        parse_python_source(INIT, "pkg/__init__.py", "pkg"),
    ]
    records = [
        {"id": n.node_id, "text": n.text, "metadata": n.metadata} for p in parts for n in p.nodes
    ]
    records.append(
        {
            "id": "doc",
            "text": "",
            "metadata": {
                "kind": "doc_section",
                "source_path": "docs/a.md",
                "refs": ["pkg.ib", "define", "nope"],
            },
        }
    )
    table = SymbolTable.from_parts(
        [p.namespace.to_json() for p in parts], [r["metadata"] for r in records]
    )
    return records, table


def _symbol(records, i):
    return records[i]["metadata"].get("symbol")


def _keys(records):
    return Keys.of(node_keys(r["metadata"]) for r in records)


def test_assignments_that_rename_a_symbol_point_at_it() -> None:
    records, table = _records_and_table()
    index_of = {
        r["metadata"]["symbol"]: i for i, r in enumerate(records) if r["metadata"].get("symbol")
    }
    pairs = {
        (_symbol(records, a), _symbol(records, t))
        for a, t in alias_edges(_keys(records), table, index_of)
    }
    assert pairs == {("pkg.ib", "pkg._make.attrib"), ("pkg.frozen", "pkg._make.define")}


def test_doc_references_resolve_through_reexports_and_leaf_names() -> None:
    records, table = _records_and_table()
    sections, symbols = doc_edges(_keys(records), table)
    from_doc = {
        _symbol(records, s)
        for sec, s in zip(sections, symbols, strict=True)
        if records[sec]["id"] == "doc"
    }
    assert from_doc == {"pkg.ib", "pkg._make.define"}


def test_a_lone_reference_or_a_package_path_is_matched_in_its_own_case() -> None:
    """astroquery's docs linked 69 times to its internal ``AstroQuery`` class: ``astroquery``
    (the package), ``astroquery.alma`` (a module) and the bare word ``astroquery`` matched
    the class's leaf in any case; ``and`` became ``utils.schema.And`` and ``name`` the one
    method called so."""
    source = (
        "class AstroQuery:\n    pass\nclass And:\n    pass\n"
        "class BaseDustNode:\n    def name(self):\n        pass\n\n"
        "    def bump_count(self):\n        pass\n"
        "def reproject_interp(x):\n    pass\nclass Table:\n    pass\n"
    )
    parsed = parse_python_source(source, "aq/core.py", "aq.core")
    metas = [n.metadata for n in parsed.nodes]
    table = SymbolTable.from_parts([parsed.namespace.to_json()], metas)
    names = [m["symbol"] for m in metas]
    resolver = RefResolver(table, {n: i for i, n in enumerate(names)})
    for ref in ("astroquery", "aq.astroquery", "astroquery.alma", "and", "name"):
        assert resolver.resolve(ref) is None, ref
    assert resolver.resolve("AstroQuery") == "aq.core.AstroQuery"
    assert resolver.resolve("aq.core.astroquery") == "aq.core.AstroQuery"  # a path: any case
    assert resolver.resolve("reproject_interp") == "aq.core.reproject_interp"
    assert resolver.resolve("Table.add_column") == "aq.core.Table"  # no node: its class
    assert resolver.resolve("BaseDustNode.name") == "aq.core.BaseDustNode.name"
    # a path from a variable, in any case (rq's docs: ``job.args``); a compound member alone
    assert resolver.resolve("basedustnode.name") == "aq.core.BaseDustNode.name"
    assert resolver.resolve("bump_count") == "aq.core.BaseDustNode.bump_count"


def test_code_examples_name_the_api_they_use() -> None:
    text = (
        "Render safely.\n\n.. code-block:: pycon\n\n"
        "    >>> from pkg.sandbox import Box, Jail as J\n    >>> env = Box()\n"
        "    >>> print(len(env))\n\nProse that says Tool() is not code.\n\n"
        "```python\nfrom pkg import define\nvalidators.in_([1, 2])\n```\n"
    )
    assert extract_code_refs(text) == (
        "pkg.sandbox.Box",
        "pkg.sandbox.Jail",
        "Box",
        "pkg.define",
        "validators.in_",
    )


def test_code_refs_give_edges_only_for_names_few_sections_use() -> None:
    parts = [
        parse_python_source(IMPL, "pkg/_make.py", "pkg._make"),
        parse_python_source(INIT, "pkg/__init__.py", "pkg"),
    ]
    records = [{"metadata": n.metadata} for p in parts for n in p.nodes]
    for i, code in enumerate([["pkg.define", "attrib"], ["pkg.define"], ["pkg.define"]]):
        records.append(
            {
                "metadata": {
                    "kind": "doc_section",
                    "source_path": f"docs/{i}.md",
                    "refs": [],
                    "code_refs": code,
                }
            }
        )
    table = SymbolTable.from_parts(
        [p.namespace.to_json() for p in parts], [r["metadata"] for r in records]
    )
    sections, symbols = doc_edges(_keys(records), table)
    edges = {
        (records[s]["metadata"]["source_path"], _symbol(records, t))
        for s, t in zip(sections, symbols, strict=True)
        if records[s]["metadata"]["kind"] == "doc_section"
    }
    # `define` is in every example (says nothing of any one page); `attrib` in one
    assert edges == {("docs/0.md", "pkg._make.attrib")}


DISPATCH = '''"""Dispatch to several apps.

Mount them by path::

    app = Dispatcher(frontend, {"/api": api})

.. autoclass:: Dispatcher
"""


class Dispatcher:
    """Route requests by path prefix."""


class Other:
    """Not named by the module docstring."""
'''
ELSEWHERE = '''
class Dispatcher:
    """A second class of the same name, in another module."""
'''


def test_a_module_docstring_lends_to_the_symbols_it_names_its_own_first() -> None:
    parts = [
        parse_python_source(DISPATCH, "pkg/dispatch.py", "pkg.dispatch"),
        parse_python_source(ELSEWHERE, "pkg/other.py", "pkg.other"),
    ]
    records = [{"metadata": n.metadata} for p in parts for n in p.nodes]
    module_doc = next(r["metadata"] for r in records if r["metadata"]["kind"] == "module_doc")
    assert module_doc["refs"] == ["Dispatcher"]
    assert module_doc["code_refs"] == ["Dispatcher"]
    table = SymbolTable.from_parts(
        [p.namespace.to_json() for p in parts], [r["metadata"] for r in records]
    )
    sections, symbols = doc_edges(_keys(records), table)
    edges = {
        (records[s]["metadata"]["symbol"], _symbol(records, t))
        for s, t in zip(sections, symbols, strict=True)
    }
    # "Dispatcher" alone is ambiguous between two modules: the docstring means its own
    assert edges == {("pkg.dispatch", "pkg.dispatch.Dispatcher")}


def test_reference_lists_stay_out_of_the_text_that_embeddings_and_prompts_see() -> None:
    from llama_index.core.schema import MetadataMode

    node = next(
        n
        for n in parse_python_source(DISPATCH, "pkg/dispatch.py", "pkg.dispatch").nodes
        if n.metadata["kind"] == "module_doc"
    )
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        content = node.get_content(mode)
        assert "code_refs" not in content and "refs:" not in content
        assert "Route requests" not in content and "Dispatch to several apps" in content
