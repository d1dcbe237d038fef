"""codecite's own recipes (recipes/*.md) pass `codecite check-recipes`.

The repository's own index is built into a temporary ``--index-dir`` (the
checkout is never written to), then every recipe is checked against it: every
`codecite.x.y` name must exist, every Python block must validate, every
`codecite <command>` must be a subcommand.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from docs_support import REPO

from codecite.cli.app import main
from codecite.node_parsers.recipes import recipe_info

RECIPES = sorted((REPO / "recipes").glob("*.md"))


@pytest.fixture(scope="module")
def own_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index_dir = tmp_path_factory.mktemp("selfidx") / "index"
    assert main(["build", "-C", str(REPO), "--index-dir", str(index_dir)]) == 0
    return index_dir


def test_check_recipes_passes(own_index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["check-recipes", "-C", str(REPO), "--index-dir", str(own_index), str(REPO / "recipes")]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"{len(RECIPES)} recipe(s), 0 with problems" in out
    assert "\n  warning:" not in out, out


def test_each_recipe_names_real_codecite_symbols(own_index: Path) -> None:
    from codecite.index import load
    from codecite.validation.recipes import check_recipes

    table = load(REPO, index_dir=str(own_index), check_stale=False).symbol_table
    for report in check_recipes(RECIPES, table):
        assert report.ok, report.problems
        assert sum(name.startswith("codecite.") for name in report.checked) >= 3, report.path


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.name)
def test_recipe_front_matter(path: Path) -> None:
    info = recipe_info(path.read_text(encoding="utf-8"), f"recipes/{path.name}")
    assert info.workflow and info.workflow != path.stem.replace("-", "_"), (
        "name the workflow in the front matter"
    )
    assert len(info.intents) >= 3 and info.title
