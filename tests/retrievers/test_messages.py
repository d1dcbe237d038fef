"""Message evidence: a pasted error or warning message ranks the code raising it first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import codecite
from codecite.node_parsers.python import parse_python_source
from codecite.retrievers.explain import explain_text
from codecite.retrievers.messages import MessageTable, pasted_message

SOURCE = '''
import warnings


class Registry:
    """Plugins by name."""

    def enable(self, names):
        """Enable the named rules."""
        missing = [n for n in names if n not in self.rules]
        if missing:
            raise ValueError(f"Registry. Failed to enable unknown rule(s): {missing}")

    def load(self, path):
        """Load rules from a file."""
        if not path:
            raise OSError("no path")  # too short to be evidence
        raise KeyError("cannot load %s: the file is not a rule set" % path)

    def old_name(self):
        """Deprecated."""

        def inner():
            warnings.warn("{} is deprecated, use {}".format("old_name", "new_name"), stacklevel=2)

        return inner


def linkify(text):
    """Turn plain-text links into anchors."""
    raise ModuleNotFoundError(
        "Linkify enabled "
        "but not installed."
    )
'''


def _messages(source: str) -> dict[str, list[str]]:
    parsed = parse_python_source(source.encode("utf-8"), "pkg/core.py", "pkg.core")
    return {n.metadata["symbol"]: n.metadata.get("messages") for n in parsed.nodes}


def test_the_parser_keeps_the_templates_a_function_raises_or_warns_with() -> None:
    found = _messages(SOURCE)
    assert found["pkg.core.Registry.enable"] == ["Registry. Failed to enable unknown rule(s): {}"]
    assert found["pkg.core.Registry.load"] == ["cannot load {}: the file is not a rule set"]
    assert found["pkg.core.Registry.old_name"] == ["{} is deprecated, use {}"]  # a nested def
    assert found["pkg.core.linkify"] == ["Linkify enabled but not installed."]
    assert found["pkg.core.Registry"] is None  # a class body raises nothing itself


def test_only_real_raise_statements_and_warn_calls_are_message_sites() -> None:
    source = """
def report(log, warn):
    \"\"\"Say raise ValueError("not a statement, a docstring") here.\"\"\"
    # raise KeyError("a comment is no statement either")
    text = 'warn("a string mentioning warn")'
    log.warn("the logger's own warning method, called")
    warn("a bare warn name, called as a function")
    mywarn("a different name that ends in warn")
    warnings.warn_explicit("an attribute named warn_explicit is not read")
    handler = log.warn  # named, not called
    raise RuntimeError("the one real raise statement of report")
"""
    assert _messages(source)["pkg.core.report"] == [
        "the logger's own warning method, called",
        "a bare warn name, called as a function",
        "the one real raise statement of report",
    ]


def test_a_function_keeps_its_first_sixteen_messages_in_source_order() -> None:
    """sqlmodel's ``FieldInfo.__init__`` raises 11; the last three were lost at eight."""
    lines = "".join(f"    raise ValueError('message number {i} of many')\n" for i in range(20))
    found = _messages(f"def f():\n{lines}")["pkg.core.f"]
    assert found == [f"message number {i} of many" for i in range(16)]


def test_a_message_passed_by_a_local_name_is_read_from_its_assignments() -> None:
    source = '''
def clean(text, strict):
    """Clean some text."""
    if not isinstance(text, str):
        message = (
            f"argument cannot be of {type(text).__name__!r} type, "
            + "must be of text type"
        )
        raise TypeError(message)
    if strict:
        msg = "strict mode refuses anything unbalanced"
    else:
        msg = "lenient mode refuses only the unreadable"
    raise ValueError(msg)


def unrelated(value):
    """A name that is no string: nothing is kept."""
    error = make_error(value)
    raise error


def outer():
    """The inner function's own name is read, not the outer one's."""
    note = "the outer assignment is in another scope"

    def inner():
        note = "the inner function raises with its own note"
        raise KeyError(note)

    return inner
'''
    found = _messages(source)
    assert found["pkg.core.clean"] == [
        "argument cannot be of {} type, must be of text type",
        "strict mode refuses anything unbalanced",
        "lenient mode refuses only the unreadable",
    ]
    assert found["pkg.core.unrelated"] is None
    assert found["pkg.core.outer"] == ["the inner function raises with its own note"]


def test_assert_messages_and_names_filled_in_later_are_messages() -> None:
    """fastapi's ``assert path.startswith("/"), "A path prefix must start with '/'"`` and
    scikit-learn's ``msg = ("This %(name)s instance is not fitted yet. ...")`` raised as
    ``NotFittedError(msg % {"name": ...})`` were no messages: pasting them found nothing."""
    source = '''
def include(prefix):
    """Include a router."""
    assert prefix.startswith("/"), "A path prefix must start with '/'"
    assert prefix, f"the prefix {prefix!r} cannot be empty"
    assert not prefix.endswith("/")  # no message: nothing kept
    assertion = "a name starting with assert is no statement"


def check_is_fitted(estimator, msg=None):
    """Check it is fitted."""
    if msg is None:
        msg = (
            "This %(name)s instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )
    raise NotFittedError(msg % {"name": type(estimator).__name__})


def formatted(value):
    """A message formatted later."""
    template = "value {} is out of range for this field"
    raise ValueError(template.format(value))
'''
    found = _messages(source)
    assert found["pkg.core.include"] == [
        "A path prefix must start with '/'",
        "the prefix {} cannot be empty",
    ]
    assert found["pkg.core.check_is_fitted"] == [
        "This {} instance is not fitted yet. Call 'fit' with appropriate arguments before "
        "using this estimator."
    ]
    assert found["pkg.core.formatted"] == ["value {} is out of range for this field"]


def test_a_closure_raises_the_message_its_enclosing_function_assigned() -> None:
    # networkx's not_implemented_for: the factory builds `errmsg`, the wrapper raises it
    source = '''
def not_implemented_for(*graph_types):
    """Mark a function as not implemented for these graph types."""
    errmsg = f"not implemented for {' '.join(graph_types)} type"

    def check(g):
        if g.kind in graph_types:
            raise NotImplementedError(errmsg)
        return g

    return check
'''
    assert _messages(source)["pkg.core.not_implemented_for"] == ["not implemented for {} type"]


def test_a_pasted_message_matches_the_template_sharing_most_of_its_text() -> None:
    table = MessageTable(
        [
            ["Registry. Failed to enable unknown rule(s): {}"],
            ["Failed to enable {}"],  # shares less of the text
            None,
            ["Linkify enabled but not installed."],
        ]
    )
    mask, rest = table.match("ValueError: Registry. Failed to enable unknown rule(s): ['tables']")
    assert mask.tolist() == [True, False, False, False]
    assert rest == ""  # what was pasted names no symbol of its own: the raiser is named
    _, rest = table.match(
        "`Loader.run` fails with ValueError: Registry. Failed to enable unknown rule(s): ['x']"
    )
    assert rest == "`Loader.run` fails with "  # the user's own words before the paste
    assert table.match("ModuleNotFoundError: Linkify enabled but not installed.")[0][3]
    assert table.match("how do I enable a rule?") is None  # no message quoted
    assert table.match("ValueError: something else entirely") is None
    assert pasted_message("I get `TqdmWarning: IProgress not found` in Jupyter") == (
        "IProgress not found` in Jupyter"
    )
    # an exception named in CamelCase without an Error suffix; not a single capitalised word
    assert pasted_message("pkg.errors.GraphUnfeasible: Graph contains a cycle") == (
        "Graph contains a cycle"
    )
    assert pasted_message("Console: how do I print a table") is None


def test_a_message_pasted_up_to_where_it_was_cut_off_still_matches() -> None:
    long = "no match among the installed backends {}. Pick one with the engine parameter, see: {}"
    table = MessageTable([[long], ["a short template here"]])
    cut = "ValueError: no match among the installed backends ['a']. Pick one with the engine"
    assert table.match(cut)[0].tolist() == [True, False]
    assert table.match("ValueError: no match among the installed")[0][0]  # 28 chars: enough
    # a cut-off first part must say more than a whole one; words after the paste end no cut
    assert table.match("ValueError: a short templ") is None
    assert (
        table.match("ValueError: no match among the installed backends [a]. Pick one now?") is None
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("messages") / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text('"""A rule registry."""\n')
    (root / "pkg" / "core.py").write_text(SOURCE)
    codecite.build(root)
    return root


def test_the_raiser_ranks_first_and_explain_says_why(repo: Path) -> None:
    index = codecite.load(repo)
    query = "ValueError: Registry. Failed to enable unknown rule(s): ['tables']"
    ctx = index.query(query, k=3)
    assert ctx.nodes[0].node.metadata["symbol"] == "pkg.core.Registry.enable"
    assert ctx.raisers == ["pkg.core.Registry.enable"]
    assert "message:         raised by pkg.core.Registry.enable (named: b_name)" in explain_text(
        ctx
    )
    # without message evidence the class the message mentions is the named one
    plain = index.with_settings(message_evidence=False).query(query, k=3)
    assert plain.raisers == []
    assert plain.nodes[0].node.metadata["symbol"] == "pkg.core.Registry"


def test_a_raiser_sharing_no_word_with_its_message_is_still_found(tmp_path: Path) -> None:
    """sqlmodel's ``FieldInfo.__init__`` is a bare signature: explain named it the raiser
    of "Passing index is not supported when also passing a sa_column", yet it was not in the
    top 50 (only a class or module holding a message had it as evidence)."""
    (tmp_path / "ormkit").mkdir()
    (tmp_path / "ormkit" / "__init__.py").write_text('"""Models."""\n')
    (tmp_path / "ormkit" / "main.py").write_text(
        "class FieldInfo:\n"
        "    def __init__(self, default=None, **kwargs):\n"
        "        if kwargs.get('index') and kwargs.get('sa_column'):\n"
        "            raise RuntimeError('Passing index is not supported when also passing a "
        "sa_column')\n\n\n"
        "def Field(default=None, index=None, sa_column=None):\n"
        '    """A field: pass index to index the column, or a sa_column of your own."""\n'
    )
    codecite.build(tmp_path)
    ctx = codecite.load(tmp_path).query(
        "RuntimeError: Passing index is not supported when also passing a sa_column", k=3
    )
    assert ctx.raisers == ["ormkit.main.FieldInfo.__init__"]
    assert ctx.nodes[0].node.metadata["symbol"] == "ormkit.main.FieldInfo.__init__"


def test_an_ordinary_question_is_ranked_as_before(repo: Path) -> None:
    index = codecite.load(repo)
    for query in ("how do I enable a rule", "Registry.load", "turn links into anchors"):
        a = index.query(query, k=5)
        b = index.with_settings(message_evidence=False).query(query, k=5)
        assert [h.node.node_id for h in a.nodes] == [h.node.node_id for h in b.nodes]
        assert np.allclose([h.score for h in a.nodes], [h.score for h in b.nodes])


ERRORS = '''
class OperationalError(Exception):
    """Raised when the database is used in the wrong state."""


class Database:
    """A connection to one database."""

    def connect(self):
        """Open the connection."""
        if self.is_open:
            raise OperationalError("Connection already opened.")

    def close(self):
        """Close the connection."""

    def send(self, event):
        """Send one event."""
        raise LocalProtocolError(f"Event {event} cannot be sent in state {self.state}.")


class LocalProtocolError(Exception):
    """The local side broke the protocol."""


class TextMessage:
    """A text message event."""


class Store:
    """A store of pages: open a transaction, write pages, compact the store when no
    transaction is open; how to use a store, a transaction and compaction together."""

    def compact(self):
        """Reclaim free pages."""
        if self.in_transaction:
            raise StateError("Store() cannot compact while a transaction is open")


class Pool:
    """Workers that run jobs."""

    def __init__(self, workers):
        if not workers:
            raise ValueError("Pool() requires at least one worker")
'''


def test_the_raiser_outranks_the_exception_named_before_the_colon(
    tmp_path: Path,
) -> None:
    """A pasted ``SomeError: message`` asks where it comes from: the exception's own name
    is part of what was pasted, not a name the user gave (it still ranks by its words)."""
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "__init__.py").write_text('"""Databases."""\n')
    (tmp_path / "db" / "core.py").write_text(ERRORS)
    codecite.build(tmp_path)
    index = codecite.load(tmp_path)
    for query in (
        "db.core.OperationalError: Connection already opened.",
        "my hook fails with `OperationalError: Connection already opened.` why?",
    ):
        ctx = index.query(query, k=5)
        ranked = [h.node.metadata.get("symbol") for h in ctx.nodes]
        assert ranked[0] == "db.core.Database.connect", ranked
        assert "db.core.OperationalError" in ranked[1:]
    # a value filled into the message names nothing; the class of a raising __init__ does
    ctx = index.query(
        "Getting `LocalProtocolError: Event TextMessage(...) cannot be sent in state CLOSED.`"
        " - what does it mean?",
        k=5,
    )
    assert ctx.nodes[0].node.metadata["symbol"] == "db.core.Database.send"
    top = {
        h.node.metadata["symbol"]
        for h in index.query("ValueError: Pool() requires at least one worker", k=2).nodes
    }
    assert top == {"db.core.Pool", "db.core.Pool.__init__"}
    # the class of a raising method, written in the paste, is not named: the method is meant
    ctx = index.query(
        "`db.core.StateError: Store() cannot compact while a transaction is open` - "
        "how am I supposed to use a Store?",
        k=3,
    )
    assert ctx.nodes[0].node.metadata["symbol"] == "db.core.Store.compact"
    # naming the exception with no message still names the class
    assert index.query("what is OperationalError", k=1).nodes[0].node.metadata["symbol"] == (
        "db.core.OperationalError"
    )


PRIVATE = '''"""Loading strategies of related objects."""


class Loader:
    """Load what a relationship refers to."""

    def load(self, state):
        """Load the related rows."""
        return self._load_for_state(state)

    def _load_for_state(self, state):
        raise DetachedError("Parent instance %s is not bound to a Session" % state)


class _LazyLoader:
    def _emit(self, key):
        raise DetachedError(f"lazy load operation of attribute '{key}' cannot proceed")


def _check(parent):
    if parent is None:
        raise ValueError("the indices for endog and exog are not aligned")
'''


def test_a_message_raised_in_private_code_goes_to_the_node_around_it(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """SQLAlchemy raises ``DetachedInstanceError`` in ``_LazyLoader._load_for_state`` and
    statsmodels its alignment error in ``PandasData._check_integrity``: no nodes, so a
    pasted message found nothing. The class around it holds it, else the module's node;
    and the raiser has evidence though the paste shares no other word with its text."""
    found = _messages(PRIVATE)
    assert found["pkg.core.Loader"] == ["Parent instance {} is not bound to a Session"]
    assert found["pkg.core"] == [
        "lazy load operation of attribute '{}' cannot proceed",
        "the indices for endog and exog are not aligned",
    ]
    # a private module is no raiser to show; a public function's messages are its own
    hidden = parse_python_source(PRIVATE.encode("utf-8"), "pkg/_impl.py", "pkg._impl").nodes
    assert not [
        n for n in hidden if n.metadata["kind"] == "module_doc" and "messages" in n.metadata
    ]
    many = "".join(
        f'        if x == {i}:\n            raise ValueError("failure number {i} of many")\n'
        for i in range(20)
    )
    capped = _messages(f"class Box:\n    def check(self, x):\n{many}")
    assert len(capped["pkg.core.Box.check"]) == 16 and capped["pkg.core.Box"] is None
    root = tmp_path_factory.mktemp("private") / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text(PRIVATE)
    codecite.build(root)
    index = codecite.load(root)
    ctx = index.query("ValueError: The indices for endog and exog are not aligned", k=3)
    assert ctx.raisers == ["pkg.core"] and ctx.nodes[0].node.metadata["symbol"] == "pkg.core"
    pasted = "DetachedError: Parent instance <User at 0x7f> is not bound to a Session"
    assert index.query(pasted, k=3).nodes[0].node.metadata["symbol"] == "pkg.core.Loader"
