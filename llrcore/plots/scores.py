"""Score histograms per class (target, non-target and, for ASVspoof files, spoof), one panel per system.

The histograms are results of the library (:func:`llrcore.binary.histograms.score_histograms`): a figure carries only the
bin counts (a few hundred numbers), never the scores themselves, so 10 million scores make the same small figure.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..binary.curves import CurveSet
from ..binary.histograms import histogram_range, score_histograms
from ._style import CLASS_COLOURS, style_figure, system_colour, with_alpha

__all__ = ["score_histogram_figure", "histogram_range"]


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
    systems : Mapping[str, Trials], Trials, or the CurveSet of :func:`llrcore.binary.histograms.score_histograms`
        (then `bins` and `include_spoof` are those it was computed with)
    bins : int
        Number of bins over the common range of the classes (outliers beyond the 0.05 % tails are left out of
        the range when they would squash the histograms).
    include_spoof : bool
        Also draw the spoof scores of systems that have them (``Trials.spoof``).
    """
    histograms = systems if isinstance(systems, CurveSet) else score_histograms(
        systems, bins=bins, include_spoof=include_spoof)
    n = len(histograms)
    fig = make_subplots(
        rows=n, cols=1, subplot_titles=[f"<b>{name}</b>" for name in histograms], vertical_spacing=min(0.12, 0.3 / n),
    )
    for row, histogram in enumerate(histograms.values(), start=1):
        edges = histogram.edges
        for label, counts in histogram.counts.items():
            x, y = _step_xy(edges, histogram.density(label))
            total, shown = histogram.n_trials[label], int(counts.sum())
            colour = CLASS_COLOURS[label]
            fig.add_trace(
                go.Scatter(
                    x=x, y=y, mode="lines", line=dict(color=colour, width=2.5, shape="hv"), fill="tozeroy",
                    fillcolor=with_alpha(colour, 0.22), name=label,
                    legendgroup=label, showlegend=row == 1,
                    customdata=np.column_stack([x, np.concatenate([edges[1:], edges[-1:]]),
                                                np.concatenate([counts, counts[-1:]])]),
                    hovertemplate=f"<b>{histogram.name}</b> {label}<br>scores %{{customdata[0]:.4g}} to "
                    "%{customdata[1]:.4g}<br>density = %{y:.4g}<br>%{customdata[2]:,} trials<extra>"
                    f"{total:,} {label} trials" + (f", {total - shown:,} outside" if shown < total else "")
                    + "</extra>",
                    meta=dict(system=histogram.name, kind=label.replace("-", "_"),
                              columns=["bin_start", "bin_end", "count"], n_trials=total),
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
