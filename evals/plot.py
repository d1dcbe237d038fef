"""Recall@k curves: symbol hit@k for k = 1..K, one line per system.

A curve reads better than a table when comparing systems across cut-offs
(where does the baseline catch up, how much does dense add at k=1).
matplotlib is an optional extra and is imported only here, lazily; the
figure is drawn on the Agg canvas without touching pyplot's global state.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

logger = logging.getLogger(__name__)
INSTALL_HINT = "plotting needs matplotlib: pip install 'codecite[plot]'"


def _matplotlib() -> tuple[type, type]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return Figure, FigureCanvasAgg


def plot_curves(
    curves: Mapping[str, Sequence[float]], path: str | Path, title: str = "symbol hit@k"
) -> dict[str, list[float]]:
    """Draw each system's hit@k curve into a PNG at ``path``; returns the plotted series."""
    figure_cls, canvas_cls = _matplotlib()
    fig = figure_cls(figsize=(6.0, 4.0), dpi=100)
    canvas_cls(fig)
    ax = fig.add_subplot(1, 1, 1)
    series = {name: [float(v) for v in values] for name, values in curves.items() if values}
    for name, values in series.items():
        ax.plot(range(1, len(values) + 1), values, marker="o", markersize=3, label=name)
    ax.set_xlabel("k (results read)")
    ax.set_ylabel("share of records with an expected symbol in the top k")
    ax.set_ylim(0.0, 1.02)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if series:
        ax.legend(loc="lower right")
    fig.savefig(str(path), format="png")
    logger.info("wrote %s", path)
    return series
