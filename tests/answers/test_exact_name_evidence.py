"""Exact names in answer-or-ask: a question that writes one of the corpus's symbols
exactly, or pastes a message its code raises, is about this corpus
(``retrievers/evidence.py``, ``NameTable.written_exactly``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import codecite
from codecite.answers.confidence import assess
from codecite.retrievers.names import NameTable

SQL = '''
"""Format and split SQL statements."""


class Statement:
    """One parsed statement: its tokens, its type and where it ends."""

    def get_type(self):
        """The statement's type, such as SELECT or INSERT."""


class TokenList:
    """A group of tokens that can be searched and walked."""


def format_sql(sql, reindent=False, keyword_case=None):
    """Reformat a statement, reindenting clauses and changing the case of keywords."""
    if keyword_case not in (None, "upper", "lower"):
        raise ValueError(f"Invalid value for keyword_case: {keyword_case!r}")
    return sql


def split(sql):
    """Split a string holding several statements into one string per statement."""
    return [sql]


def parse(sql):
    """Parse the text into statements made of grouped tokens."""


def parsestream(stream):
    """Parse statements read lazily from an open file, one at a time."""


def strip_comments(sql):
    """Remove line comments and block comments from the text of a query."""


def quote_identifier(name):
    """Wrap a table or column name in double quotes when it needs them."""


def keyword_names():
    """List every reserved word the lexer knows, in upper case."""


def count_placeholders(sql):
    """Count the parameter markers a prepared query expects to be bound."""


def compact_whitespace(sql):
    """Collapse runs of spaces and newlines between tokens into single spaces."""


def guess_dialect(sql):
    """Guess which database vendor's syntax a query was written for."""
'''

GUIDE = """# Formatting

Reformat statements with the formatter: reindent clauses, change the case of
keywords, strip comments and wrap long lines.

# Splitting

Split a script into its statements before running them one at a time.
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> codecite.CodeciteIndex:
    root = tmp_path_factory.mktemp("exact") / "repo"
    (root / "src" / "sqltool").mkdir(parents=True)
    (root / "src" / "sqltool" / "__init__.py").write_text(
        "from .engine import Statement, TokenList, format_sql, split\n", encoding="utf-8"
    )
    (root / "src" / "sqltool" / "engine.py").write_text(SQL, encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(GUIDE, encoding="utf-8")
    codecite.build(root)
    return codecite.load(root)


def _decide(index: codecite.CodeciteIndex, question: str):  # type: ignore[no-untyped-def]
    scorer = index.scorer(10)
    calibration = index.manifest.get("calibration")
    return assess(scorer, scorer.retrieve_context(question), calibration=calibration)


@pytest.mark.parametrize(
    ("question", "named"),
    [
        # each was refused before exact names: vague, under the score floor, an
        # unknown name (the user's own setting), too little of it covered
        ("Statement", "sqltool.engine.Statement"),
        ("sqltool.split", "sqltool.engine.split"),
        ("On Debian `format_sql()` returns the text unchanged", "sqltool.engine.format_sql"),
        (
            "does sqltool.split keep the trailing semicolons our nightly deploy pipeline feeds it",
            "sqltool.engine.split",
        ),
        (
            "why is Statement.get_type empty for the migration our nightly pipeline feeds it",
            "sqltool.engine.Statement.get_type",
        ),
    ],
)
def test_a_question_writing_a_symbol_exactly_is_answered(
    index: codecite.CodeciteIndex, question: str, named: str
) -> None:
    assert index.manifest["calibration"]["score_floor"] is not None  # the calibrated rule
    conf = _decide(index, question)
    assert conf.confident, conf.reason
    assert named in conf.features["exact_names"]
    assert named in conf.reason


def test_a_public_name_written_as_a_plain_word_is_a_feature_named(
    index: codecite.CodeciteIndex,
) -> None:
    # one specific word: vague, and under the score floor, before
    conf = _decide(index, "what does parsestream do")
    assert conf.confident, conf.reason
    assert conf.features["named_words"] == ["sqltool.engine.parsestream"]
    assert conf.features["exact_names"] == []  # not exact: an unknown name still wins
    assert not _decide(index, "what does parsestream do with Django").confident


def test_a_pasted_message_is_answered_with_its_raiser(index: codecite.CodeciteIndex) -> None:
    question = (  # too little of it covered, without the message
        "I upgraded the nightly export job and it dies with "
        "ValueError: Invalid value for keyword_case: 'Capitalize'"
    )
    conf = _decide(index, question)
    assert conf.confident, conf.reason
    assert conf.features["pasted_message_of"] == ["sqltool.engine.format_sql"]
    assert "pastes a message raised by sqltool.engine.format_sql" in conf.reason


@pytest.mark.parametrize(
    ("question", "why"),
    [
        # another package's path, with another tool's name: not this corpus's symbol
        ("How do I format a query with sqlalchemy.sql.text in Django?", "unknown_name"),
        # a capitalised word in a sentence may be anyone's class
        ("How do I store each Statement in PostgreSQL?", "unknown_name"),
        # a plain word alone is a complaint, not a name
        ("split", "vague"),
        # a word of prose that is also a public name ("split", "parse") names nothing
        ("what does parse do", "vague"),
        # another tool's class after a dot is still another tool's class
        ("How do I keep each split statement in a models.CharField column?", "unknown_name"),
    ],
)
def test_words_that_only_look_like_its_names_decide_nothing(
    index: codecite.CodeciteIndex, question: str, why: str
) -> None:
    conf = _decide(index, question)
    assert not conf.confident
    assert conf.features["fell_short"] == why
    assert conf.features["exact_names"] == []


def test_written_exactly_reads_paths_code_compounds_and_a_lone_name() -> None:
    table = NameTable(
        ["pkg.core.Tool", "pkg.core.Tool.run_all", "pkg.core.helper", "pkg.core._hidden", None],
        ["class", "method", "function", "function", None],
        [True, True, True, False, False],
        {"pkg.Tool": "pkg.core.Tool"},
    )
    assert table.written_exactly("pkg.Tool") == [("path", "pkg.core.Tool")]  # a re-export
    assert table.written_exactly("what does Tool.run_all return") == [
        ("path", "pkg.core.Tool.run_all")
    ]
    assert table.written_exactly("use other.Tool here") == []  # another package's Tool
    assert table.written_exactly("call `helper()` twice") == [("code", "pkg.core.helper")]
    assert table.written_exactly("call helper() twice") == [("code", "pkg.core.helper")]
    assert table.written_exactly("a helper (in prose) here") == []  # not a call
    assert table.written_exactly("then run_all finishes") == [("compound", "pkg.core.Tool.run_all")]
    assert table.written_exactly("Tool") == [("alone", "pkg.core.Tool")]
    assert table.written_exactly("helper") == []  # one plain word
    assert table.written_exactly("my Tool object") == []  # a capitalised word in a sentence
    assert table.written_exactly("`_hidden()`") == []  # private


def test_an_answer_says_first_that_a_written_member_does_not_exist(
    index: codecite.CodeciteIndex,
) -> None:
    """pydantic's ``BaseModel.model_dumps`` was answered with the class's card and no word
    that the member does not exist (the class stands in for it in the ranking)."""
    answer = index.ask("what does sqltool.Statement.get_typ return")
    assert answer.metadata["absent_names"] == [
        "the index has no method `get_typ` on `sqltool.Statement` (did you mean `get_type`?)"
    ]
    assert "Note: the index has no method `get_typ` on `sqltool.Statement`" in str(answer)
    module = index.ask("how do I use sqltool.format_sq").metadata["absent_names"]
    assert module[0].startswith("`sqltool.format_sq` is not in the indexed package")
    assert index.ask("what does sqltool.Statement.get_type return").metadata["absent_names"] == []
    # a class written by its own name (typer's `CliRunner.invok`): the same note
    assert index.ask("what does Statement.get_typ return").metadata["absent_names"] == [
        "the index has no method `get_typ` on `Statement` (did you mean `get_type`?)"
    ]
    assert index.ask("what does Statement.get_type return").metadata["absent_names"] == []
    assert index.ask("how do I use numpy.get_typ").metadata["absent_names"] == []  # not ours


def test_a_typo_in_a_module_with_getattr_is_noted_though_not_provably_absent(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """pydantic's ``__init__`` answers names through ``__getattr__``, so ``pydantic.Feild``
    cannot be proved absent; a name that close to a real one is still worth a note."""
    root = tmp_path_factory.mktemp("lazy") / "repo"
    (root / "fieldkit").mkdir(parents=True)
    (root / "fieldkit" / "core.py").write_text('def Field(default=None):\n    """A field."""\n')
    (root / "fieldkit" / "__init__.py").write_text(
        "import importlib\nfrom .core import Field\n\n\ndef __getattr__(name):\n"
        "    return getattr(importlib.import_module(LAZY[name], __name__), name)\n"
    )
    codecite.build(root)
    index = codecite.load(root)
    notes = index.ask("how do I use fieldkit.Feild").metadata["absent_names"]
    assert notes == ["the index has no name `Feild` in `fieldkit` (did you mean `Field`?)"]
    assert index.ask("how do I use fieldkit.Zzzzz").metadata["absent_names"] == []


def test_a_name_from_a_package_outside_the_index_is_said_so(tmp_path: Path) -> None:
    """``ask "sqlmodel.create_engine"`` answered with the ``SQLModel`` card: the name is
    SQLAlchemy's, re-exported; the answer says so first (as MCP ``lookup_symbol`` does)."""
    (tmp_path / "ormkit").mkdir()
    (tmp_path / "ormkit" / "__init__.py").write_text(
        '"""Models over SQL."""\n\nfrom sqlalchemy import create_engine\n\n\n'
        'class Model:\n    """A table model; make an engine with create_engine."""\n'
    )
    codecite.build(tmp_path)
    answer = codecite.load(tmp_path).ask("how do I call ormkit.create_engine")
    assert answer.metadata["absent_names"] == [
        "`ormkit.create_engine` is `sqlalchemy.create_engine`, from a package outside the index"
    ]
    assert "\n\nNote: `ormkit.create_engine` is `sqlalchemy.create_engine`" in str(answer)
