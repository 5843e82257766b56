"""Figures of how sure the numbers are: a metric per condition with its bootstrap interval, and DET bands.

Both draw library results: :class:`~llrcore.ConditionMetrics` (:func:`~llrcore.evaluate_by_condition`), the
:class:`~llrcore.BootstrapResult` of each condition, and :class:`~llrcore.DETBand`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ..binary.tables import METRIC_COLUMNS
from ..uncertainty.conditions import ConditionMetrics
from ..uncertainty.intervals import interval_words
from ..uncertainty.resampling import BootstrapResult, DETBand
from ._style import point_marker, style_figure, system_colour, with_alpha
from .det import probit

__all__ = ["CONDITION_METRICS", "condition_figure", "with_det_bands"]

#: Metrics a condition figure can show: attribute -> (axis title, scale to the unit shown).
CONDITION_METRICS = {
    "eer": ("EER (%)", 100.0),
    "min_dcf": ("minDCF (normalised)", 1.0),
    "act_dcf": ("actDCF (normalised)", 1.0),
    "cllr": ("Cllr (bits)", 1.0),
    "min_cllr": ("minCllr (bits)", 1.0),
    "cprimary": ("Cprimary (normalised)", 1.0),
}


def condition_figure(results: Mapping[str, ConditionMetrics], metric: str = "eer", *,
                     intervals: Mapping[str, Mapping[str, BootstrapResult]] | None = None,
                     order: Sequence[str] | None = None) -> go.Figure:
    """One metric per condition (and pooled), a marker per system, with its bootstrap interval as an error bar.

    Parameters
    ----------
    results : mapping of system name to ConditionMetrics
        The breakdown of each system (the same column(s) for all).
    metric : str
        One of :data:`CONDITION_METRICS`.
    intervals : mapping, optional
        System name -> :meth:`ConditionMetrics.bootstrap` result; a system without one is drawn without bars.
    order : sequence of str, optional
        All the systems of the page or report in order (a system keeps the colour of its position there, also when
        systems before it are not broken down); default the order of `results`.
    """
    if metric not in CONDITION_METRICS:
        raise ValueError(f"No condition figure for {metric!r}; choose one of {', '.join(CONDITION_METRICS)}.")
    axis_title, scale = CONDITION_METRICS[metric]
    fig = go.Figure()
    order = list(results) if order is None else list(order)
    for name, result in results.items():
        fig.add_trace(_condition_trace(name, order.index(name), result, metric, scale, (intervals or {}).get(name)))
    by = " × ".join(next(iter(results.values())).by) if results else ""
    style_figure(fig, f"{METRIC_COLUMNS[metric]} per {by}" if by else METRIC_COLUMNS[metric], height=520)
    fig.update_layout(scattermode="group", scattergap=0.5)
    fig.update_xaxes(title_text=by or "condition", type="category", categoryorder="array",
                     categoryarray=_categories(results.values()))
    fig.update_yaxes(title_text=axis_title, rangemode="tozero")
    return fig


def _categories(results) -> list[str]:
    """Every system's conditions in their sorted order, merged, and "pooled" last."""
    labels = dict.fromkeys(_label(row) for result in results for row in result.conditions)
    return [*labels, "pooled"]


def _label(row) -> str:
    return "<br>".join(map(str, row.values.values())) or "pooled"


def _condition_trace(name: str, position: int, result: ConditionMetrics, metric: str, scale: float,
                     intervals: Mapping[str, BootstrapResult] | None) -> go.Scatter:
    rows = result.rows
    labels = [_label(row) for row in rows]
    values = np.array([getattr(row.metrics, metric) if row.metrics else np.nan for row in rows]) * scale
    error = None
    if intervals:
        bounds = np.array([intervals[row.label].interval(metric) if row.label in intervals else (np.nan, np.nan)
                           for row in rows]) * scale
        error = dict(type="data", symmetric=False, array=bounds[:, 1] - values, arrayminus=values - bounds[:, 0],
                     thickness=2, width=6, color=system_colour(position))
    level = f" ({_method_words(next(iter(intervals.values())), metric)}s)" if intervals else ""
    colour = system_colour(position)
    symbols = ["diamond" if row is result.pooled else "circle" for row in rows]
    return go.Scatter(x=labels, y=values, mode="markers", name=f"{name}{level}", error_y=error,
                      marker={**point_marker(colour, 12), "symbol": symbols},
                      hovertemplate=f"{name}<br>%{{x}}: %{{y:.4g}}<extra></extra>")


def _method_words(interval: BootstrapResult, metric: str) -> str:
    """``"95 % BCa bootstrap interval"``: how `interval` makes the interval of `metric` (the out-of-bag bracket for
    a minDCF on few errors)."""
    return interval_words(interval.level, interval.metric_method(metric))


def with_det_bands(fig: go.Figure, bands: Mapping[str, DETBand], order: Sequence[str]) -> go.Figure:
    """Draw each system's DET confidence band (shaded, in its colour) under the curves of a
    :func:`~llrcore.plots.det_figure`.

    Parameters
    ----------
    fig : Figure
        A DET figure (probit axes).
    bands : mapping of system name to DETBand
    order : sequence of str
        The systems of the figure in the order they were drawn (a system keeps its colour by position).
    """
    clip = (1e-7, 1 - 1e-7)  # probit of 0 or 1 is infinite; beyond the axes anyway
    for name, band in bands.items():
        colour = system_colour(list(order).index(name))
        x = probit(band.pfa)
        lower, upper = probit(np.clip(band.lower, *clip)), probit(np.clip(band.upper, *clip))
        legend = f"{name}: {100 * band.level:.0f} % band"
        fig.add_trace(go.Scatter(x=x, y=lower, mode="lines", line=dict(width=0), hoverinfo="skip",
                                 showlegend=False, legendgroup=legend))
        fig.add_trace(go.Scatter(x=x, y=upper, mode="lines", line=dict(width=0, color=colour), fill="tonexty",
                                 fillcolor=with_alpha(colour, 0.2), name=legend, legendgroup=legend,
                                 hoverinfo="skip"))
    # Bands go underneath: move the traces just added to the front of the list.
    added = 2 * len(bands)
    fig.data = fig.data[-added:] + fig.data[:-added] if added else fig.data
    return fig
