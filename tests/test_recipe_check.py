"""Recipe review: symbols, Python blocks and CLI commands named by recipes."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecite.node_parsers.python import module_name_for, parse_python_source
from codecite.store.symbols import SymbolTable
from codecite.validation.recipes import RecipeReport, check_recipes

FIXTURES = Path(__file__).parent / "fixtures"
RECIPES = FIXTURES / "valrecipes"


@pytest.fixture(scope="module")
def table() -> SymbolTable:
    namespaces, metadata = [], []
    for path in sorted((FIXTURES / "valpkg").rglob("*.py")):
        rel = path.relative_to(FIXTURES).as_posix()
        parsed = parse_python_source(path.read_text(encoding="utf-8"), rel, module_name_for(rel))
        namespaces.append(parsed.namespace.to_json())
        metadata.extend(n.metadata for n in parsed.nodes)
    return SymbolTable.from_parts(namespaces, metadata)


def _by_name(reports: list[RecipeReport]) -> dict[str, RecipeReport]:
    return {Path(r.path).name: r for r in reports}


def test_good_recipe_passes(table):
    report = _by_name(check_recipes(RECIPES, table))["static_shift_good.md"]
    assert report.ok and report.problems == () and report.warnings == ()
    assert report.path == "valrecipes/static_shift_good.md"
    assert {
        "valpkg.load_survey",
        "valpkg.agents.StaticShiftAgent",
        "valpkg.agents.ShiftResult",
        "valpkg.agents.StaticShiftAgent.run",
    } <= set(report.checked)


def test_bad_recipe_names_recipe_line_and_symbol(table):
    report = _by_name(check_recipes(RECIPES, table))["static_shift_bad.md"]
    assert not report.ok
    assert [p.message for p in report.problems] == [
        "valrecipes/static_shift_bad.md:5: `valpkg.static_shift.correct` does not exist "
        "in the indexed package (did you mean `valpkg.agents.static_shift` or "
        "`valpkg.agents.static_shift.StaticShiftAgent`?)",
        "valrecipes/static_shift_bad.md:11: valpkg.agents.StaticShiftAgent() got an "
        "unexpected keyword argument 'windw' (did you mean `window`?)",
        "valrecipes/static_shift_bad.md:16: `codecite shift` is not a codecite subcommand "
        "(known: ask, build, chat, check-recipes, eval, feedback, query, report, stats, "
        "validate)",
    ]
    assert [(p.line, p.symbol) for p in report.problems] == [
        (5, "valpkg.static_shift.correct"),
        (11, "valpkg.agents.StaticShiftAgent"),
        (16, "codecite shift"),
    ]


def test_single_file_and_custom_cli_commands(table, tmp_path):
    recipe = tmp_path / "x.md"
    recipe.write_text(
        "# X\n\nRun `codecite frob` then `valpkg.nothing`.\n\n"
        "```pycon\n>>> from valpkg import load_survey\n>>> load_survey()\n"
        "Survey(name='x')\n```\n",
        encoding="utf-8",
    )
    [report] = check_recipes([recipe], table, cli_commands={"frob"})
    label = recipe.as_posix()
    assert [p.message for p in report.problems] == [
        f"{label}:3: `valpkg.nothing` does not exist in the indexed package",
        f"{label}:7: valpkg.load_survey() missing required argument 'path'",
    ]


def test_unverifiable_names_are_warnings(table, tmp_path):
    recipe = tmp_path / "lazy.md"
    recipe.write_text("Use `valpkg.lazy.fancy_filter` or `numpy.nothing`.\n", encoding="utf-8")
    [report] = check_recipes(recipe, table)
    assert report.ok
    assert [w.message for w in report.warnings] == [
        f"{recipe.as_posix()}:1: `valpkg.lazy.fancy_filter` cannot be verified statically: "
        "'valpkg.lazy' defines a module __getattr__ that answers it at run time"
    ]
