"""Random input to every parser and loader raises nothing but documented errors.

Parsers (Python, Markdown, reST, recipes) and the tokenizer must accept any
text and return a result; the config loader, the suite loader and the code
validator may refuse input, but only with a ``CodeciteError`` subclass (or a
result that reports the problem). The budget follows the Hypothesis profile:
``ci`` by default (fast), ``slow`` on request::

    pytest tests/reliability --hypothesis-profile=slow
"""

from __future__ import annotations

import json
import string
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import codecite
from codecite.config import load_config
from codecite.errors import CodeciteError, ConfigError, SuiteError
from codecite.evals import load_suite
from codecite.node_parsers.docs import parse_doc, parse_markdown, parse_rst
from codecite.node_parsers.python import parse_python_source
from codecite.node_parsers.recipes import parse_recipe
from codecite.retrievers.tokenizer import tokenize
from codecite.store.symbols import SymbolTable
from codecite.validation.checker import validate_generated_code

FIXTURE_PY = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo" / "geokit"
MARKUP = [
    "#",
    "##",
    "=",
    "-",
    "~",
    "`",
    "```",
    "~~~",
    ":",
    "::",
    "..",
    "*",
    "\n",
    "\n\n",
    " ",
    "\t",
    "---",
    "===",
    "|",
    ">",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "\\",
    "\r",
    "\x00",
    ":func:`",
    "{py:class}`",
    ".. autofunction::",
    "workflow:",
    "intent:",
    "é",
    "静",
]
PYTHON_BITS = [
    "def ",
    "class ",
    "async def ",
    "(",
    ")",
    ":",
    "\n",
    "    ",
    "\t",
    "'''",
    '"""',
    "'",
    '"',
    "@",
    "=",
    ",",
    "*",
    "**",
    "->",
    "import ",
    "from ",
    " as ",
    "if TYPE_CHECKING:",
    "try:",
    "except ImportError:",
    "__all__",
    "[",
    "]",
    "lambda",
    "\\",
    "#",
    "\x00",
    "\r\n",
    "f(",
    "x",
    "_y",
    "Z9",
    "é",
    "\ufeff",
]


def _pieces(bits: list[str]) -> st.SearchStrategy[str]:
    """Text made of syntax fragments and random characters (reaches deeper than noise)."""
    return st.lists(st.one_of(st.sampled_from(bits), st.text(max_size=8)), max_size=60).map("".join)


ANY_TEXT = st.one_of(st.text(), _pieces(MARKUP))
PY_TEXT = st.one_of(st.binary(), st.text(), _pieces(PYTHON_BITS))


# -- parsers and tokenizer: no exception at all ------------------------------------------


@given(PY_TEXT)
@example(b"\xff\xfe" + "def f(): pass".encode("utf-16-le"))
@example("class A:\n" + "    " * 200 + "pass\n")
def test_python_parser_accepts_anything(source: bytes | str) -> None:
    result = parse_python_source(source, "pkg/fuzz.py", "pkg.fuzz")
    for node in result.nodes:
        meta = node.metadata
        assert 1 <= meta["start_line"] <= meta["end_line"]
        assert meta["symbol"].startswith("pkg.fuzz")
    json.dumps(result.namespace.to_json())


@given(
    ANY_TEXT,
    st.sampled_from(["docs/a.md", "docs/a.rst", "docs/a.txt", "README"]),
    st.integers(min_value=-2, max_value=400),
)
def test_doc_parsers_accept_anything(text: str, path: str, max_chars: int) -> None:
    """Any text parses; only bad arguments (suffix, max_chars) raise, as ``ConfigError``."""
    try:
        dispatched = parse_doc(text, path, max_chars=max_chars)
    except ConfigError as exc:
        assert path == "README" or max_chars < 1, exc
        return
    for nodes in (
        dispatched,
        parse_markdown(text, "docs/a.md", max_chars=max_chars),
        parse_rst(text, "docs/a.rst", max_chars=max_chars),
    ):
        ids = [n.node_id for n in nodes]
        assert len(ids) == len(set(ids))
        for node in nodes:
            assert 1 <= node.metadata["start_line"] <= node.metadata["end_line"]


@given(ANY_TEXT)
def test_recipe_parser_accepts_anything(text: str) -> None:
    nodes, info = parse_recipe(text, "recipes/fuzz.md")
    assert all(n.metadata["kind"] == "recipe" for n in nodes)
    assert info.workflow is None or isinstance(info.workflow, str)


@given(st.text())
@example("StaticShiftAgent estimate_ss_ama pkg.mod.Class \u2028 \x85 \r x\u00a0y")
def test_any_text_stays_one_line_of_nodes_jsonl(text: str) -> None:
    tokens = tokenize(text)
    assert all(isinstance(t, str) and t for t in tokens)
    # incremental builds split nodes.jsonl on b"\n" without decoding it: a node's
    # line must never hold a raw newline byte, whatever its text
    line = json.dumps({"text": text, "metadata": {"tokens": tokens}}, ensure_ascii=False)
    data = line.encode("utf-8", "surrogatepass")
    assert b"\n" not in data and json.loads(data.decode("utf-8", "surrogatepass"))["text"] == text


# -- loaders: only documented errors -----------------------------------------------------


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="codecite-fuzz-") as folder:
        root = Path(folder)
        (root / "pkg").mkdir()
        (root / "pkg" / "__init__.py").write_text("")
        yield root


KEYS = [
    "roots",
    "root_docs",
    "suffixes",
    "exclude",
    "recipes",
    "include_private",
    "index_dir",
    "confidence_floor",
    "max_file_bytes",
    "max_section_chars",
    "priorities",
    "workflows",
    "expansions",
    "intents",
    "registry",
    "registry_file",
    "embedding",
    "retrieval",
    "packages",
    "package_dirs",
    "unknown_key",
]
TOML_STRING = st.text(max_size=12).map(json.dumps)  # JSON string syntax is TOML's basic string
TOML_VALUE = st.recursive(
    st.one_of(
        TOML_STRING,
        st.integers().map(str),
        st.sampled_from(
            [
                "true",
                "false",
                "1.5",
                "-0.0",
                "inf",
                "nan",
                '"../x"',
                '"/etc"',
                '"."',
                '""',
                '"\\u0000"',
                '"pkg"',
            ]
        ),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda v: f"[{', '.join(v)}]"),
        st.dictionaries(
            st.sampled_from(["a", "backend", "model", "k1", "keywords", "paths", "pkg"]),
            inner,
            max_size=3,
        ).map(lambda d: "{" + ", ".join(f"{k} = {v}" for k, v in d.items()) + "}"),
    ),
    max_leaves=6,
)
TOML_LINE = st.one_of(
    st.tuples(st.sampled_from(KEYS), TOML_VALUE).map(" = ".join),
    st.sampled_from(
        [
            "[embedding]",
            "[retrieval]",
            "[workflows.qc]",
            "[priorities]",
            "[registry.line1]",
            "[tool.codecite]",
        ]
    ),
    st.text(max_size=20),
)
TOML_TEXT = st.lists(TOML_LINE, max_size=6).map("\n".join)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(TOML_TEXT)
@example('roots = ["\\u0000"]')
@example('index_dir = "a\\u0000b"')
@example("registry_file = []\nindex_dir = []")
@example('[embedding]\nmodel = "sk-x"\nbatch_size = 0')
def test_config_loader_raises_only_config_error(scratch: Path, text: str) -> None:
    (scratch / "codecite.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        cfg = load_config(scratch)
    except ConfigError as exc:
        assert str(scratch / "codecite.toml") in str(exc) or "keyword arguments" in str(exc)
        return
    assert cfg.root == scratch.resolve() and cfg.index_path.resolve() != cfg.root


SUITE_FIELD_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=10),
    st.lists(st.text(max_size=5), max_size=3),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
SUITE_RECORD = st.dictionaries(
    st.sampled_from(
        [
            "query",
            "expected_symbols",
            "expected_sources",
            "expected_intent",
            "expected_workflow",
            "expected_line",
            "must_not_contain",
            "expect_clarification",
            "expected_retrieval_workflow",
            "kind",
            "other",
        ]
    ),
    SUITE_FIELD_VALUE,
    max_size=5,
).map(json.dumps)
SUITE_LINE = st.one_of(
    SUITE_RECORD,
    st.text(max_size=30),
    st.sampled_from(["", "# comment", "[]", "null", "1e999", '{"query": "q"}', "[" * 5000, '"x"']),
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SUITE_LINE, max_size=6))
@example(['{"query": "ok"}', "[" * 100_000])
def test_suite_loader_raises_only_suite_error(scratch: Path, lines: list[str]) -> None:
    path = scratch / "suite.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    try:
        suite = load_suite(path)
    except SuiteError as exc:
        assert str(path) in str(exc)
        return
    assert suite.records and all(r.query.strip() for r in suite.records)


# -- the code validator ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def table(built_sample: Path) -> SymbolTable:
    return codecite.load(built_sample, check_stale=False).symbol_table


REAL_NAMES = [
    "geokit",
    "geokit.io",
    "geokit.phase",
    "geokit.agents",
    "geokit.agents.static_shift",
    "load_survey",
    "skew",
    "StaticShiftAgent",
    "correct",
    "run",
    "nonexistent_thing",
    "os",
    "np",
    "self",
]
NAME = st.one_of(
    st.sampled_from(REAL_NAMES), st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
)
ARGS = st.lists(
    st.one_of(
        NAME,
        st.integers().map(str),
        st.tuples(NAME, NAME).map(lambda kv: f"{kv[0].split('.')[-1]}={kv[1]}"),
    ),
    max_size=3,
).map(", ".join)
STATEMENT = st.one_of(
    NAME.map(lambda n: f"import {n}"),
    st.tuples(NAME, NAME).map(lambda t: f"from {t[0]} import {t[1].split('.')[-1]}"),
    st.tuples(NAME, NAME).map(
        lambda t: (
            f"from {t[0]} import *"
            if t[1] == "os"
            else f"from .{t[0].split('.')[-1]} import {t[1].split('.')[-1]}"
        )
    ),
    st.tuples(NAME, NAME, ARGS).map(lambda t: f"x = {t[0]}.{t[1].split('.')[-1]}({t[2]})"),
    st.tuples(NAME, ARGS).map(lambda t: f"{t[0]}({t[1]})"),
    st.tuples(NAME, NAME).map(
        lambda t: f"class C({t[0]}):\n    def m(self):\n        return self.{t[1].split('.')[-1]}()"
    ),
    st.tuples(NAME, NAME).map(
        lambda t: f"try:\n    import {t[0]}\nexcept ImportError:\n    {t[1].split('.')[-1]} = None"
    ),
    st.tuples(NAME, ARGS).map(lambda t: f"obj = {t[0]}({t[1]})\nobj.run(k=1)"),
    st.tuples(NAME, NAME).map(lambda t: f"y = [{t[0]} for {t[1].split('.')[-1]} in z]"),
    st.tuples(NAME, NAME).map(lambda t: f"def f(a={t[0]}, *b, **c):\n    return {t[1]}"),
)
PROGRAM = st.lists(STATEMENT, max_size=8).map("\n".join)


@given(st.one_of(st.text(), _pieces(PYTHON_BITS)))
@example("x = " + "-" * 100_000 + "1")
@example("1" + "+1" * 100_000)
@example("a" + ".b" * 100_000)
@example("f" + "()" * 100_000)
@example("x = " + "(" * 300 + ")" * 300)
@example("\x00import geokit")
def test_validator_accepts_any_text(table: SymbolTable, code: str) -> None:
    result = validate_generated_code(code, table)
    assert set(result) >= {"ok", "syntax_ok", "errors", "warnings", "checked"}
    assert result["ok"] is (result["syntax_ok"] and not result["errors"])
    json.dumps(result)


@given(PROGRAM)
def test_validator_on_generated_programs(table: SymbolTable, code: str) -> None:
    try:
        compile(code, "<fuzz>", "exec")
    except SyntaxError:
        assume(False)
    result = validate_generated_code(code, table, module="geokit.fuzz")
    assert result["syntax_ok"] is True
    assert all(isinstance(m, str) and m for m in result["errors"] + result["warnings"])
    if "geokit" not in code and "from ." not in code:
        assert result["errors"] == []  # only the indexed package is ever judged


def test_documented_errors_are_codecite_errors() -> None:
    assert issubclass(ConfigError, CodeciteError) and issubclass(SuiteError, CodeciteError)
    assert set(string.whitespace) >= {" ", "\t", "\n", "\r"}
