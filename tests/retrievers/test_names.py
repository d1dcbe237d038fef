"""Exact names resolve: the symbol a query names ranks first (``retrievers/names.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import codecite
from codecite.retrievers import boosts
from codecite.retrievers.explain import explain_text
from codecite.retrievers.names import NameTable, written_names

# A package shaped like the ones that defeated leaf-name matching: a central class
# whose node is long, small nodes that share its leaf name, a re-export under a public
# module, an inherited method, typing overloads, a script block and fallbacks.
CONSOLE = '''
from typing import overload


class Console:
    """A high level console interface.

    Args:
        width (int): The width of the terminal; leave unset to detect it.
        height (int): The height of the terminal; leave unset to detect it.
        record (bool): Keep what is printed, to export it later as text or HTML.
        quiet (bool): Print nothing at all. Useful in tests and in batch jobs.
        soft_wrap (bool): Wrap long lines at the terminal edge, never mid-word.
    """

    def __init__(self, width=None, height=None, record=False, quiet=False, soft_wrap=False):
        self.width = width

    def print(self, *objects, sep=" ", end="\\n"):
        """Print objects to the console, with markup and highlighting."""

    def log(self, *objects):
        """Log objects to the console with the time and the caller's file and line."""

    def rule(self, title=""):
        """Draw a horizontal line across the console with an optional title."""

    def export_text(self):
        """Text of everything printed, when the console records."""


class Status:
    @property
    def console(self):
        """The console the status spinner draws on."""


class Base:
    def request(self, method, url):
        """Make a request with the given method; the console prints its progress."""


class PoolManager(Base):
    def urlopen(self, method, url):
        """The lower-level request: the console prints nothing here."""


@overload
def get(x: int) -> int: ...


@overload
def get(x: str) -> str: ...


def get(x):
    """Get a console value by key or position."""


if WINDOWS:
    fallback_console = None
else:
    fallback_console = Console()

if __name__ == "__main__":
    console = Console(record=True)

    def demo():
        """A console demo."""
'''
INIT = """
from ._console import Console, get
from .algorithms import *
from . import algorithms as graphs

__all__ = ["Console", "get"]
"""


DEFAULTS = """
from ._console import Console

console = Console()
\"\"\"The shared Console every helper prints to.\"\"\"
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    root = tmp_path_factory.mktemp("names") / "repo"
    (root / "tool").mkdir(parents=True)
    (root / "tool" / "_console.py").write_text(CONSOLE)
    (root / "tool" / "__init__.py").write_text(INIT)
    (root / "tool" / "defaults.py").write_text(DEFAULTS)
    (root / "tool" / "__main__.py").write_text("from ._console import Console\nConsole().log(1)\n")
    # ``tool.shortest_path`` is bound by a chain of star imports; a shorter path is a decoy
    (root / "tool" / "algorithms").mkdir()
    (root / "tool" / "algorithms" / "__init__.py").write_text("from .paths import *\n")
    path_def = 'def shortest_path(graph, a, b):\n    """The {} shortest path from a to b."""\n'
    (root / "tool" / "algorithms" / "paths.py").write_text(path_def.format("general"))
    (root / "tool" / "threshold.py").write_text(path_def.format("threshold graph's"))
    codecite.build(root)
    return codecite.load(root)


def _ranked(index: codecite.CodeciteIndex, query: str) -> list[str | None]:
    return [n.node.metadata.get("symbol") for n in index.query(query, k=5).nodes]


@pytest.mark.parametrize(
    ("query", "meant"),
    [
        ("tool._console.Console", "tool._console.Console"),  # the full dotted path
        ("tool.Console", "tool._console.Console"),  # the public re-export
        ("Console", "tool._console.Console"),  # a class name as a word
        ("how do I use Console with a pager", "tool._console.Console"),
        ("what does `Console.print` do", "tool._console.Console.print"),
        ("console.print(x) in a loop", "tool._console.Console.print"),  # on a variable
        ("PoolManager.request", "tool._console.Base.request"),  # inherited
        ("what does tool.get accept", "tool._console.get"),
        ("tool.shortest_path", "tool.algorithms.paths.shortest_path"),  # via star imports
        ("tool.graphs.shortest_path", "tool.algorithms.paths.shortest_path"),  # module alias
        ("get", "tool._console.get"),  # a stopword: no searchable word, still a name
        ("get()", "tool._console.get"),
        ("`get`", "tool._console.get"),
    ],
)
def test_the_named_symbol_ranks_first(
    index: codecite.CodeciteIndex, query: str, meant: str
) -> None:
    assert _ranked(index, query)[0] == meant


def test_a_wordless_query_scores_only_the_symbols_it_names(
    index: codecite.CodeciteIndex,
) -> None:
    ctx = index.query("get()", k=5)
    assert ctx.tokens == [] and [n.node.metadata["symbol"] for n in ctx.nodes] == [
        "tool._console.get"
    ]
    assert index.query("what is it", k=5).nodes == []  # no word and no name: no evidence
    unnamed = index.with_settings(name_boost=1.0).query("get()", k=5)
    assert unnamed.nodes == []  # resolution off: nothing is named


def test_a_word_that_is_a_member_of_a_named_class_means_that_member(
    index: codecite.CodeciteIndex,
) -> None:
    top = _ranked(index, "`PoolManager` and its `urlopen()`")[:2]
    assert sorted(top) == ["tool._console.PoolManager", "tool._console.PoolManager.urlopen"]


def test_an_instance_ranks_below_the_class_it_instantiates(
    index: codecite.CodeciteIndex,
) -> None:
    ranked = _ranked(index, "the shared Console every helper prints to")
    assert ranked[0] == "tool._console.Console" and "tool.defaults.console" in ranked


def test_scripts_stubs_and_fallbacks_are_not_api(index: codecite.CodeciteIndex) -> None:
    symbols = [n.metadata.get("symbol") for n in index.nodes]
    assert "tool._console.console" not in symbols  # under ``if __name__ == "__main__":``
    assert "tool._console.demo" not in symbols
    assert "tool._console.fallback_console" not in symbols  # a conditional assignment
    assert symbols.count("tool._console.get") == 1  # the overloads are stubs of this one
    defines = index.symbol_table.modules["tool._console"]["defines"]
    assert "fallback_console" in defines and "console" not in defines


def test_explain_shows_the_name_factor(index: codecite.CodeciteIndex) -> None:
    ctx = index.query("tool.Console", k=3)
    top = ctx.breakdown[ctx.nodes[0].node.node_id]
    assert top.name >= boosts.DEFAULT_NAME_BOOST and top.recompose() == top.composed
    assert f"x name {top.name:.2f}" in explain_text(ctx)
    others = [ctx.breakdown[n.node.node_id].name for n in ctx.nodes[1:]]
    assert others and all(value == 1.0 for value in others)


def test_public_names_are_the_re_exports_of_importable_modules(
    index: codecite.CodeciteIndex,
) -> None:
    names = json.loads((index.config.index_path / "extras" / "public_names.json").read_text())
    assert names["tool.Console"] == "tool._console.Console"
    assert names["tool.shortest_path"] == "tool.algorithms.paths.shortest_path"
    # ``from . import algorithms as graphs``: scanpy's ``pp``, a module under another name
    assert names["tool.graphs.shortest_path"] == "tool.algorithms.paths.shortest_path"
    assert index.resolve_symbol("tool.graphs.shortest_path") == names["tool.graphs.shortest_path"]
    assert not [alias for alias in names if "__main__" in alias]  # a script's imports


def test_a_name_boost_of_one_turns_resolution_off(index: codecite.CodeciteIndex) -> None:
    plain = index.with_settings(name_boost=1.0).query("tool._console.Console", k=5)
    assert all(b.name == 1.0 for b in plain.breakdown.values())


def test_naming_a_symbol_does_not_raise_confidence(index: codecite.CodeciteIndex) -> None:
    named = index.query("Console.print", k=3).top_score
    plain = index.with_settings(name_boost=1.0).query("Console.print", k=3).top_score
    assert named == plain  # which node is meant, not whether the question is in scope


def test_a_name_given_as_an_argument_resolves_strictly(index: codecite.CodeciteIndex) -> None:
    assert index.resolve_symbol("tool.Console") == "tool._console.Console"
    assert index.resolve_symbol("tool.Console.print") == "tool._console.Console.print"
    assert index.resolve_symbol("PoolManager.request") == "tool._console.Base.request"
    assert index.resolve_symbol("tool._console.get") == "tool._console.get"
    assert index.resolve_symbol("typo.print") is None  # no guessing that ``typo`` is a variable
    assert index.resolve_symbol("tool.nothing") is None and index.resolve_symbol("") is None


def _table() -> NameTable:
    symbols = [
        "pkg._impl.Tool",
        "pkg._impl.Tool.run",
        "pkg.cli.run",
        "pkg.twisted.Renderer",
        "pkg.processors.Renderer",
        "pkg.settings.tool",
        None,
    ]
    symbols += ["pkg.config.limit", "pkg.limits.limit"]
    kinds = ["class", "method", "function", "class", "class", "assignment", None]
    kinds += ["assignment", "function"]
    mentions = [0, 0, 0, 1, 4, 0, 0, 0, 0]
    return NameTable(symbols, kinds, [True] * 9, {"pkg.Tool": "pkg._impl.Tool"}, mentions)


def test_ties_go_to_the_definition_the_docs_refer_to_most() -> None:
    assert _table().resolve("`Renderer`") == ["pkg.processors.Renderer"]


def test_a_definition_before_an_assignment_and_the_shortest_path() -> None:
    table = _table()
    assert table.resolve("run()") == ["pkg.cli.run"]
    assert table.resolve("`limit`") == ["pkg.limits.limit"]  # not ``limit = 10``
    assert table.resolve("`tool`") == ["pkg.settings.tool"]  # the query's own case first
    assert table.resolve("`TOOL`") == ["pkg._impl.Tool"]  # then a definition, any case
    assert table.resolve("pkg.Tool.run and its options") == ["pkg._impl.Tool.run"]


def test_plain_words_name_nothing() -> None:
    table = _table()
    assert table.resolve("run the tool and render it") == []
    assert table.resolve("Tool output in a file") == []  # a capital opening a sentence
    # ... unless the sentence places it inside a module it writes
    assert table.resolve("Renderer class in pkg.twisted") == ["pkg.twisted.Renderer"]
    assert table.resolve("Renderer class in pkg.cli") == []  # no Renderer there
    assert not table.mask("unrelated words").any()
    assert table.mask("pkg.Tool").tolist() == [True] + [False] * 8


def test_written_names_reads_paths_calls_and_code_spans() -> None:
    dotted, words, code = written_names("so.Continuous().label(like=1) and `f(x=2)` then g()")
    assert dotted == ["so.Continuous().label"]
    dotted, words, _ = written_names("is `from tqdm.auto import tqdm` slower than tqdm.std")
    assert dotted == ["tqdm.auto.tqdm", "tqdm.std"] and "tqdm" not in words
    assert "Continuous" not in words and {"f", "g"} <= code and "x" not in code


def test_the_lift_puts_named_nodes_above_the_rest_and_creates_no_relevance() -> None:
    final = np.array([5.0, 0.1, 0.0, 2.0], dtype=np.float32)
    named = np.array([False, True, True, False])
    lift = boosts.name_lift(final, final, named)
    assert lift == pytest.approx(5.0 * boosts.NAME_MARGIN / 0.1)
    factor = boosts.name_factor(named, 4.0, lift)
    composed = boosts.compose(final, factor)
    assert composed[1] > composed[0] and composed[2] == 0.0
    assert boosts.name_lift(final, final, np.zeros(4, dtype=bool)) == 1.0
    assert boosts.name_factor(named, 1.0, lift).tolist() == [1.0] * 4


def test_answers_and_follow_ups_are_about_the_named_symbol(
    index: codecite.CodeciteIndex,
) -> None:
    from codecite.answers.session import Session

    engine = index.as_query_engine(session=Session())
    first = engine.query("what arguments does tool.Console.print take")
    assert first.metadata["path"] == "offline_answer"
    assert "`tool._console.Console.print`" in str(first).split("\n\n")[1]  # the lead card
    second = engine.query("what about its parameters?")
    assert second.metadata["standalone_query"] == (
        "what are the parameters of tool._console.Console.print?"
    )


def test_an_inherited_member_search_visits_each_class_once_however_many_copies() -> None:
    """Ten vendored copies of a nine-class chain: each base name stands for ten classes,
    and the search for an inherited member must not branch tenfold at every level."""
    symbols, types, bases = [], [], []
    for copy in range(10):
        for level in range(9):
            symbols.append(f"copy{copy}.mod.Level{level}")
            types.append("class")
            bases.append([f"Level{level + 1}"] if level < 8 else [])
        symbols.append(f"copy{copy}.mod.Level8.ping")
        types.append("method")
        bases.append([])
    table = NameTable(symbols, types, [True] * len(symbols), bases=bases)
    calls = 0
    member = table._member

    def counted(*args: object, **kwargs: object) -> str | None:
        nonlocal calls
        calls += 1
        return member(*args, **kwargs)  # type: ignore[arg-type]

    table._member = counted  # type: ignore[method-assign]
    assert table._member("copy3.mod.Level0", "ping") == "copy0.mod.Level8.ping"
    assert table._member("copy3.mod.Level0", "pong") is None  # the full search, failing
    assert calls <= 2 * 10 * 9  # each class searched at most once per lookup


def test_a_class_named_for_its_attribute_yields_to_the_member_the_query_names() -> None:
    """``User.get(User.username == 'bob')``: ``User.username`` is no node, so it stands
    for the class ``User``; the query's other name is a member ``User`` inherits."""
    from codecite.retrievers.names import NameTable

    table = NameTable(
        ["orm.Model", "orm.Model.get", "app.User"],
        ["class", "method", "class"],
        [True, True, True],
        bases=[None, None, ["Model"]],
    )
    assert table.resolve("`User.get(User.username == 'bob')` raises") == ["orm.Model.get"]
    assert table.resolve("what is User.username") == ["app.User"]  # alone, it still names User
    assert table.resolve("User.username and Model.get") == ["app.User", "orm.Model.get"]


def _sockets() -> NameTable:
    """Two classes with an ``accept`` method, one inherited ``inc``, and a helper."""
    return NameTable(
        [
            "web.http.Request",
            "web.http.Request.accept",
            "web.ws.WebSocket",
            "web.ws.WebSocket.accept",
            "store.base.BaseCache",
            "store.base.BaseCache.inc",
            "store.redis.RedisCache",
            "store.redis.bump",
        ],
        ["class", "method", "class", "method", "class", "method", "class", "function"],
        [True] * 8,
        bases=[None, None, None, None, None, None, ["BaseCache"], None],
    )


def test_a_class_written_only_as_the_owner_of_a_named_member_is_context() -> None:
    """ "How does `RedisCache` keep `inc` atomic": the member is meant (inherited here),
    not the class written to say whose member it is; alone, the class is still named."""
    table = _sockets()
    assert table.resolve("How does `RedisCache` keep `inc` atomic?") == ["store.base.BaseCache.inc"]
    assert table.resolve("How does `RedisCache` keep `bump` atomic?") == [
        "store.redis.RedisCache",
        "store.redis.bump",
    ]  # bump is no member of RedisCache: both are names
    assert table.resolve("what does `RedisCache` do") == ["store.redis.RedisCache"]
    # a class written as a dotted path is a name of its own, not context
    assert table.resolve("`store.redis.RedisCache` and its `inc`") == [
        "store.redis.RedisCache",
        "store.base.BaseCache.inc",
    ]


def test_a_member_written_on_a_variable_is_the_member_of_the_class_the_query_names() -> None:
    """``ws.accept()`` on the ``WebSocket``: the variable holds that class, so the call is
    its method, not the first ``accept`` found by leaf name."""
    table = _sockets()
    assert table.resolve("when I call `await ws.accept()` on the `WebSocket`") == [
        "web.ws.WebSocket.accept"
    ]
    assert table.resolve("when I call `ws.accept()`") == ["web.http.Request.accept"]  # a guess
    assert table.resolve("`Request.accept()` on a `WebSocket`") == [
        "web.http.Request.accept",
        "web.ws.WebSocket",
    ]  # written on the class: that class's member; the other class is a name


def test_a_path_nothing_resolves_names_the_leaf_whose_path_holds_the_written_head() -> None:
    """``DataArray.pint.quantify`` with xarray's ``DataArray`` outside the index: the
    accessor method whose own path says ``DataArray``; a short head names nothing
    (a lowercase head is a variable, as before: ``np.array`` is any ``array``)."""
    table = NameTable(
        [
            "px.accessors.PintDatasetAccessor",
            "px.accessors.PintDatasetAccessor.quantify",
            "px.accessors.PintDataArrayAccessor",
            "px.accessors.PintDataArrayAccessor.quantify",
            "px.util.array",
        ],
        ["class", "method", "class", "method", "function"],
        [True] * 5,
    )
    meant = "px.accessors.PintDataArrayAccessor.quantify"
    assert table.resolve("what does `DataArray.pint.quantify` do") == [meant]
    assert table.resolve("what does `Dataset.pint.quantify` do") == [
        "px.accessors.PintDatasetAccessor.quantify"
    ]
    assert table.resolve("what does `DA.quantify` do") == []  # no head of three letters
    assert table.resolve("what does `Frame.pint.quantify` do") == []  # the head is nowhere


ENGINE = '''
class Base:
    def stop(self):
        """Stop the engine and release its workers."""


class Engine(Base):
    """Runs jobs."""

    def run(self, job):
        """Run one job now and return its result."""


_engine = Engine()
run = _engine.run
stop = _engine.stop
limit = _engine.limit  # no such member: stays the assignment
'''


def test_a_binding_of_an_instance_method_names_the_method(tmp_path: Path) -> None:
    """``run = _engine.run`` with ``_engine = Engine()``: ``jobs.run`` means ``Engine.run``
    (an inherited member too), as ``jwt.decode`` means ``PyJWS.decode``."""
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "__init__.py").write_text("from ._impl import run, stop, limit\n")
    (tmp_path / "jobs" / "_impl.py").write_text(ENGINE)
    codecite.build(tmp_path)
    index = codecite.load(tmp_path)
    assert _ranked(index, "jobs.run")[0] == "jobs._impl.Engine.run"
    assert _ranked(index, "what does jobs.stop do")[0] == "jobs._impl.Base.stop"
    assert _ranked(index, "jobs.limit")[0] == "jobs._impl.limit"
    names = json.loads((index.config.index_path / "extras" / "public_names.json").read_text())
    assert names["jobs._impl.run"] == names["jobs.run"] == "jobs._impl.Engine.run"
    assert "jobs.limit" not in names or names["jobs.limit"] == "jobs._impl.limit"


def test_a_public_re_export_is_the_shortest_name_and_one_word_alone_is_a_name() -> None:
    """xarray: ``open_dataset`` is ``xarray.open_dataset`` (defined in backends.api), not
    ``xarray.tutorial.open_dataset``, the shorter defining path; ``sel`` alone is a name."""
    symbols = [
        "xr.tutorial.open_dataset",
        "xr.backends.api.open_dataset",
        "xr.core.dataset.Dataset",
        "xr.core.dataset.Dataset.sel",
    ]
    kinds = ["function", "function", "class", "method"]
    aliases = {"xr.open_dataset": "xr.backends.api.open_dataset", "xr.Dataset": symbols[2]}
    table = NameTable(symbols, kinds, [True] * 4, aliases)
    assert table.resolve("open_dataset") == ["xr.backends.api.open_dataset"]
    assert table.symbol("open_dataset") == "xr.backends.api.open_dataset"
    assert table.resolve("sel") == ["xr.core.dataset.Dataset.sel"]  # the whole query
    assert table.resolve("`sel`") == ["xr.core.dataset.Dataset.sel"]
    assert table.resolve("how do I sel by label") == []  # a plain word in a sentence


def test_a_public_name_finds_the_member_a_base_defines() -> None:
    """``dask.array.Array.persist``: ``Array`` (a re-export) inherits ``persist``; not the
    experimental copy of ``Array`` elsewhere that defines its own."""
    symbols = [
        "da.core.Array",
        "da.base.Mixin",
        "da.base.Mixin.persist",
        "da._expr.Array",
        "da._expr.Array.persist",
    ]
    kinds = ["class", "class", "method", "class", "method"]
    bases: list[list[str] | None] = [["Mixin"], None, None, None, None]
    table = NameTable(symbols, kinds, [True] * 5, {"da.Array": "da.core.Array"}, bases=bases)
    assert table.resolve("da.Array.persist") == ["da.base.Mixin.persist"]
    assert table.symbol("da.Array.persist") == "da.base.Mixin.persist"


def test_a_name_only_the_docs_define_finds_its_page(tmp_path: Path) -> None:
    """pywt's ``Wavelet`` is compiled (Cython): no code node, only ``.. class:: Wavelet``
    under ``.. currentmodule:: pywt``. "pywt.Wavelet" found no page in the top 200."""
    (tmp_path / "wavekit").mkdir()
    (tmp_path / "wavekit" / "__init__.py").write_text(
        "from ._core import Wavelet\nfrom .helpers import mean\n"
    )
    (tmp_path / "wavekit" / "helpers.py").write_text(
        'def mean(values):\n    """The mean of wavelet coefficients."""\n'
        'def wavelet_names():\n    """Names of the built-in wavelet families."""\n'
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ref.rst").write_text(
        "Reference\n=========\n\n.. currentmodule:: wavekit\n\n"
        "Wavelet object\n--------------\n\n.. class:: Wavelet(name)\n\n"
        "   Describes a discrete wavelet's filters.\n\n   .. attribute:: dec_lo\n\n"
        "Helpers\n-------\n\n.. autofunction:: mean\n\n"
        "Families\n--------\n\nEvery wavelet family, wavelet by wavelet, wavelet names.\n"
    )
    codecite.build(tmp_path)
    index = codecite.load(tmp_path)
    documented = json.loads((index.config.index_path / "extras" / "documented.json").read_text())
    assert set(documented) == {"wavekit.Wavelet", "wavekit.Wavelet.dec_lo"}  # not ``mean``
    for query in ("wavekit.Wavelet", "`Wavelet`", "Wavelet.dec_lo"):
        top = index.query(query, k=1).nodes[0].node.metadata
        assert top["heading"] == "Wavelet object", (query, top.get("heading"))
    assert index.query("wavekit.mean", k=1).nodes[0].node.metadata["symbol"] == (
        "wavekit.helpers.mean"
    )


def test_a_path_ending_a_public_name_means_what_that_name_re_exports() -> None:
    """astropy's docs write ``fits.open`` (after ``from astropy.io import fits``), a
    re-export of ``fitsopen``: ``IERS_Auto.open`` ranked first, the name factor on any
    ``open``; scipy users write ``optimize.minimize`` the same way."""
    table = NameTable(
        ["pkg.io.fits.hdulist.fitsopen", "pkg.utils.iers.IERS.open", "pkg.optimize._min.minimize"],
        ["function", "method", "function"],
        [True, True, True],
        {
            "pkg.io.fits.open": "pkg.io.fits.hdulist.fitsopen",
            "pkg.optimize.minimize": "pkg.optimize._min.minimize",
        },
    )
    assert table.resolve("how do I use fits.open on a file") == ["pkg.io.fits.hdulist.fitsopen"]
    assert table.symbol("fits.open") == "pkg.io.fits.hdulist.fitsopen"
    assert table.resolve("optimize.minimize with bounds") == ["pkg.optimize._min.minimize"]
    assert table.resolve("IERS.open") == ["pkg.utils.iers.IERS.open"]  # the path it ends


def test_a_member_named_in_words_is_that_member_and_its_class_is_context() -> None:
    """typer: "what is the invoke method of CliRunner?" led with the class; the method
    was third. A word said to be a member ("the X method of Y", "Y's X") of a class the
    query names is that member, inherited too; a word no class has names nothing."""
    table = _sockets()
    for query in (
        "what is the accept method of WebSocket?",
        "WebSocket accept method",
        "WebSocket's accept",
        "the accept method of web.ws.WebSocket",  # dotted, the class is context too
    ):
        assert table.resolve(query) == ["web.ws.WebSocket.accept"], query
    assert table.resolve("the inc method of RedisCache") == ["store.base.BaseCache.inc"]
    assert table.resolve("the close method of WebSocket") == ["web.ws.WebSocket"]
    assert table.resolve("which method accepts a socket") == []  # no class named


def test_a_lowercase_class_name_written_as_a_plain_word_names_nothing() -> None:
    """textual defines ``class app`` (getters.py): "how do I quit the app" gave its
    ``Logger.app`` a name factor of 12.7 on a lexical score of 1.2. A capitalised word
    spelled as a class is a name; a lowercase one is English unless written as code."""
    table = NameTable(
        ["tx.getters.app", "tx.app.App", "tx.app.App.exit"],
        ["class", "class", "method"],
        [True, True, True],
    )
    assert table.resolve("how do I quit the app") == []
    assert table.resolve("how do I quit the `app`") == ["tx.getters.app"]
    assert table.resolve("how do I exit an App") == ["tx.app.App"]
