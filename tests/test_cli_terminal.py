"""Result tables: rich on a terminal (its width, colour unless NO_COLOR), plain when piped,
no empty workflow column."""

from __future__ import annotations

import io
import re

import pytest

from codecite.cli.terminal import print_results
from codecite.retrievers.render import text_table


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def ctx(built_sample):
    import codecite

    found = codecite.load(built_sample).query("phase tensor skew", k=5)
    assert found.nodes and not any(h.node.metadata.get("workflow") for h in found.nodes)
    return found


def test_piped_output_is_the_plain_table_without_an_empty_workflow_column(ctx) -> None:
    out = io.StringIO()
    print_results(ctx, out)
    assert out.getvalue() == text_table(ctx) + "\n"
    header = out.getvalue().splitlines()[0]
    assert header.split() == ["#", "score", "kind", "label", "where"]
    assert "\x1b[" not in out.getvalue()


def test_a_workflow_column_appears_when_a_result_has_one(built_sample) -> None:
    import codecite

    tagged = codecite.load(built_sample).query("correct static shift", k=3)
    assert any(h.node.metadata.get("workflow") for h in tagged.nodes)
    assert "workflow" in text_table(tagged).splitlines()[0]


@pytest.mark.parametrize("columns", [60, 100, 160])
def test_a_terminal_table_fits_the_width_and_keeps_every_label(ctx, monkeypatch, columns) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setenv("NO_COLOR", "1")
    out = Terminal()
    print_results(ctx, out)
    assert "\x1b[3" not in out.getvalue()  # no colour with NO_COLOR (emphasis only)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert max(len(line) for line in text.splitlines()) <= columns
    flat = "".join(text.split())
    for hit in ctx.nodes:
        assert hit.node.metadata["source_path"] in flat.replace("│", "")


def test_a_terminal_table_has_colour_without_no_color(ctx, monkeypatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    out = Terminal()
    print_results(ctx, out)
    assert "\x1b[" in out.getvalue()
