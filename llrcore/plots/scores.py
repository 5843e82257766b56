"""Score histograms per class (target, non-target and, for ASVspoof files, spoof), one panel per system.

Histograms are computed here with :func:`numpy.histogram` on the sorted scores, so a figure carries only the bin
counts (a few hundred numbers), never the scores themselves: 10 million scores make the same small figure.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..data.trials import as_systems
from ._style import CLASS_COLOURS, style_figure, system_colour, with_alpha

__all__ = ["score_histogram_figure", "histogram_range"]


def _quantile_sorted(values: np.ndarray, q: float) -> float:
    """Quantile of an already sorted array (nearest rank, no copy)."""
    return float(values[min(int(q * (values.size - 1) + 0.5), values.size - 1)])


def histogram_range(classes: list[np.ndarray], tail: float = 5e-4) -> tuple[float, float]:
    """Common bin range of several sorted score arrays: their finite extremes, unless far-out outliers would
    squash the histograms, in which case the ``tail``/``1 - tail`` quantiles of each class (with a margin)."""
    finite = [c[np.isfinite(c)] for c in classes]
    finite = [c for c in finite if c.size]
    if not finite:
        return -1.0, 1.0
    lo = min(float(c[0]) for c in finite)
    hi = max(float(c[-1]) for c in finite)
    q_lo = min(_quantile_sorted(c, tail) for c in finite)
    q_hi = max(_quantile_sorted(c, 1 - tail) for c in finite)
    core = q_hi - q_lo
    if core > 0 and hi - lo > 3 * core:
        lo, hi = q_lo - 0.05 * core, q_hi + 0.05 * core
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _step_xy(edges: np.ndarray, density: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the histogram's outline drawn with ``line_shape="hv"``: left edges, then the last right edge."""
    return edges, np.concatenate([density, density[-1:]])


def score_histogram_figure(systems, *, bins: int = 80, include_spoof: bool = True) -> go.Figure:
    """Normalised histograms (densities) of the target and non-target scores, and the spoof scores if any.

    Each class is normalised by its own number of trials (so the areas inside the common bin range are at most
    1 and the classes compare whatever their sizes). Several systems get one panel each, stacked, titled in the
    system's colour; the class colours are the same in every panel.

    Parameters
    ----------
    systems : Mapping[str, Trials] or Trials
    bins : int
        Number of bins over the common range of the classes (outliers beyond the 0.05 % tails are left out of
        the range when they would squash the histograms).
    include_spoof : bool
        Also draw the spoof scores of systems that have them (``Trials.spoof``).
    """
    systems = as_systems(systems)
    bins = max(int(bins), 1)
    n = len(systems)
    fig = make_subplots(
        rows=n, cols=1, subplot_titles=[f"<b>{name}</b>" for name in systems], vertical_spacing=min(0.12, 0.3 / n),
    )
    for row, (name, trials) in enumerate(systems.items(), start=1):
        table = trials.sorted
        classes = {"target": table.tar, "non-target": table.non}
        if include_spoof and trials.spoof.size:
            classes["spoof"] = np.sort(trials.spoof)
        lo, hi = histogram_range(list(classes.values()))
        edges = np.linspace(lo, hi, bins + 1)
        width = edges[1] - edges[0]
        for label, scores in classes.items():
            counts, _ = np.histogram(scores, bins=edges)
            density = counts / (scores.size * width)
            x, y = _step_xy(edges, density)
            shown = int(counts.sum())
            colour = CLASS_COLOURS[label]
            fig.add_trace(
                go.Scatter(
                    x=x, y=y, mode="lines", line=dict(color=colour, width=2.5, shape="hv"), fill="tozeroy",
                    fillcolor=with_alpha(colour, 0.22), name=label,
                    legendgroup=label, showlegend=row == 1,
                    customdata=np.column_stack([x, np.concatenate([edges[1:], edges[-1:]]),
                                                np.concatenate([counts, counts[-1:]])]),
                    hovertemplate=f"<b>{name}</b> {label}<br>scores %{{customdata[0]:.4g}} to %{{customdata[1]:.4g}}"
                    "<br>density = %{y:.4g}<br>%{customdata[2]:,} trials<extra>"
                    f"{scores.size:,} {label} trials" + (f", {scores.size - shown:,} outside" if shown < scores.size
                                                          else "") + "</extra>",
                    meta=dict(system=name, kind=label.replace("-", "_"), columns=["bin_start", "bin_end", "count"],
                              n_trials=int(scores.size)),
                ),
                row=row, col=1,
            )
        fig.update_yaxes(title_text="density (per score unit)", row=row, col=1, rangemode="tozero")
    fig.update_xaxes(title_text="score (natural-log LLR when calibrated)", row=n, col=1)
    # colour each panel's title like its system everywhere else
    for position, annotation in enumerate(fig.layout.annotations[:n]):
        annotation.font = dict(size=18, color=system_colour(position))
    title = "Score distributions per class" if n == 1 else "Score distributions per class and system"
    style_figure(fig, title, height=max(460, 140 + 330 * n))
    fig.update_layout(hovermode="closest")
    return fig
