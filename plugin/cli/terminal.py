"""Result tables for a terminal: sized to its width, coloured, plain when piped.

On a terminal (``sys.stdout.isatty()``) the table is drawn by ``rich`` at the
terminal's width, labels folded to fit, with colour unless ``NO_COLOR`` is set
(rich reads it); piped or redirected, it is the plain fixed-width table of
``codecite.retrievers.render.text_table`` that scripts can cut. Either way a
column no result fills (a workflow column of dashes) is left out.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from codecite.retrievers.render import node_row, text_table

KIND_STYLES = {
    "python_symbol": "bold cyan",
    "python_method": "cyan",
    "module_doc": "blue",
    "doc_section": "green",
    "recipe": "magenta",
}


def print_results(ctx: Any, stream: TextIO | None = None) -> None:
    """The ranked results of ``ctx`` on ``stream`` (default stdout)."""
    out = stream or sys.stdout
    if not out.isatty():
        print(text_table(ctx), file=out)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    rows = [node_row(i, hit) for i, hit in enumerate(ctx.nodes, 1)]
    flow = any(r["workflow"] for r in rows)
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("#", justify="right", style="dim", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    if flow:
        table.add_column("workflow", no_wrap=True)
    table.add_column("label", overflow="fold", ratio=3)
    table.add_column("where", overflow="fold", ratio=2, style="dim")
    for r in rows:
        kind = r["kind"] or ""
        cells = [
            Text(str(r["rank"])),
            Text(f"{r['score']:.3f}"),
            Text(kind, KIND_STYLES.get(kind, "")),
        ]
        if flow:
            cells.append(Text(r["workflow"] or "-"))
        cells += [Text(r["label"]), Text(r["citation"])]  # Text: a "[" in a label is no markup
        table.add_row(*cells)
    Console(file=out, highlight=False).print(table)
