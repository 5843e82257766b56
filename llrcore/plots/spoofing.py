"""Figures of a countermeasure (CM) in tandem with a speaker verifier (ASV): the t-DCF curve and the per-attack bars.

Both draw :class:`~llrcore.TandemEvaluation` results (:func:`~llrcore.evaluate_tandem`), one per CM system, computed
with the same ASV; they compute nothing.

- :func:`tdcf_figure` — the normalised t-DCF against the CM threshold, as the ASVspoof organisers draw it (their
  ``evaluate_tDCF_asvspoof19.py``, Kinnunen et al. TASLP 2020), or against the CM's miss rate so that systems
  with different score scales share one axis; each system's minimum marked; the floor (a perfect CM) and 1 (the
  better CM that decides without looking) as reference lines.
- :func:`attack_bars_figure` — per attack and pooled: each CM's EER, the ASV's spoof false-alarm rate (one bar: it
  does not depend on the CM), each CM's min t-DCF, in three panels over one attack axis; with
  :class:`~llrcore.TandemIntervals` (:func:`~llrcore.bootstrap_tandem`), their bootstrap intervals as error bars.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..spoofing.tandem import TandemEvaluation, TandemIntervals
from ._style import LINE_WIDTH, REFERENCE_COLOUR, decimation_indices, legend_key, legend_label, point_marker
from ._style import style_figure, system_colour

__all__ = ["TDCF_X_AXES", "attack_bars_figure", "tdcf_figure"]

#: The x axes of :func:`tdcf_figure`: key -> axis title.
TDCF_X_AXES = {"threshold": "CM threshold (CM score; accept as bona fide at or above)",
               "miss": "CM miss rate: bona fide trials rejected (%, logarithmic)"}
_MAX_POINTS = 2000
_FORMULATIONS = {"revised": "revised (ASVspoof 2021)", "legacy": "legacy (ASVspoof 2019)"}


def _checked(results: Mapping[str, TandemEvaluation]) -> dict[str, TandemEvaluation]:
    results = dict(results)
    if not results:
        raise ValueError("There is no countermeasure to draw: give at least one evaluate_tandem result.")
    formulations = {result.formulation for result in results.values()}
    if len(formulations) > 1:
        raise ValueError("The results mix the revised and the legacy t-DCF, which are not on one scale: draw them "
                         "apart.")
    return results


def _x_range(results, x_axis: str) -> list[float]:
    """The thresholds where the curves change: from the 1 % to the 99 % point of every CM's scores (beyond them the
    curves run on to their ends, accept all and reject all); for the miss rate, 0.01 % to 100 % (logarithmic)."""
    if x_axis == "miss":
        return [-2.0, 2.0]
    ends = np.array([np.quantile(r.tdcf.thresholds[:-1], [0.01, 0.99]) for r in results.values()])
    low, high = float(ends[:, 0].min()), float(ends[:, 1].max())
    pad = 0.03 * (high - low or 1.0)
    return [low - pad, high + pad]


def tdcf_figure(results: Mapping[str, TandemEvaluation], *, x_axis: str = "threshold") -> go.Figure:
    """The normalised t-DCF of each CM over its thresholds, the minimum marked and named in the legend.

    Parameters
    ----------
    results : mapping of CM system name to TandemEvaluation
        One formulation for all (they are not on one scale otherwise), the same ASV.
    x_axis : {"threshold", "miss"}
        The CM threshold (the organisers' plot; the curve's last point, "reject all", is left out) or the CM's
        miss rate in %, on a logarithmic axis (a common axis for CMs with different score scales; the "accept all"
        point, a miss rate of 0, is left out).
    """
    if x_axis not in TDCF_X_AXES:
        raise ValueError(f"No t-DCF axis {x_axis!r}; choose one of {', '.join(TDCF_X_AXES)}.")
    results = _checked(results)
    fig = go.Figure()
    x_range = _x_range(results, x_axis)
    top = 0.0
    for position, (name, result) in enumerate(results.items()):
        curve, colour = result.tdcf, system_colour(position)
        frame = curve.to_frame()
        frame = frame.iloc[:-1] if x_axis == "threshold" else frame[frame["pmiss_cm"] > 0]
        x = frame["threshold"].to_numpy() if x_axis == "threshold" else 100 * frame["pmiss_cm"].to_numpy()
        plot_x = x if x_axis == "threshold" else np.log10(x)  # where the points fall on the axis
        y = frame["tdcf"].to_numpy()
        shown = (plot_x >= x_range[0]) & (plot_x <= x_range[1])
        top = max(top, float(y[shown].max()))
        keep = decimation_indices(plot_x, y, _MAX_POINTS, keep=[int(np.argmin(y))],
                                  x_span=x_range[1] - x_range[0])
        label = legend_label(name, f"min t-DCF {curve.minimum:.4f}")
        fig.add_trace(go.Scatter(
            x=x[keep], y=y[keep], mode="lines", name=label, legendgroup=name, line=dict(color=colour, width=LINE_WIDTH),
            customdata=np.column_stack([frame["threshold"].to_numpy()[keep], frame["pmiss_cm"].to_numpy()[keep],
                                        frame["pfa_cm"].to_numpy()[keep]]),
            meta=dict(system=name, label=f"{name} t-DCF", columns=["threshold", "pmiss_cm", "pfa_cm"]),
            hovertemplate=(f"{name}<br>CM threshold %{{customdata[0]:.4g}}<br>bona fide rejected "
                           "%{customdata[1]:.2~%}<br>spoofs accepted %{customdata[2]:.2~%}<br>"
                           "t-DCF %{y:.4f}<extra></extra>"),
        ))
        at_miss = 100 * curve.pmiss_cm[int(np.argmin(curve.curve))]  # 0 % sits on the axis's left end
        best = curve.threshold if x_axis == "threshold" else max(at_miss, 10 ** x_range[0])
        fig.add_trace(go.Scatter(
            x=[best], y=[curve.minimum], mode="markers", legendgroup=name, showlegend=False,
            marker=point_marker(colour, 14, "diamond"), meta=dict(system=name, label=f"{name} minimum"),
            hovertemplate=f"{name}: minimum t-DCF %{{y:.4f}} at CM threshold {curve.threshold:.4g}<extra></extra>",
        ))
    first = next(iter(results.values())).tdcf
    floors = sorted({round(r.tdcf.floor, 12) for r in results.values()} - {0.0})  # legacy: 0, the axis itself
    line = dict(color=REFERENCE_COLOUR, width=2)
    fig.add_hline(y=1.0, line=dict(**line, dash="dash"))
    for floor in floors:
        fig.add_hline(y=floor, line=dict(**line, dash="dot"))
    fig.add_trace(legend_key("1: a CM that decides without looking", line=dict(**line, dash="dash")))
    if floors:
        fig.add_trace(legend_key(f"floor {', '.join(f'{f:.4f}' for f in floors)}: a perfect CM (ASV errors only)",
                                 line=dict(**line, dash="dot")))
    fig.add_trace(legend_key("minimum", marker=point_marker(REFERENCE_COLOUR, 14, "diamond")))
    style_figure(fig, f"Tandem detection cost, {_FORMULATIONS[first.formulation]} t-DCF", height=600)
    fig.update_xaxes(title_text=TDCF_X_AXES[x_axis], range=x_range, type="log" if x_axis == "miss" else "linear")
    fig.update_yaxes(title_text="normalised t-DCF (1 = no better than no CM)",
                     range=[0, min(max(1.1, top), 2.0) * 1.05])
    return fig


#: The panels of :func:`attack_bars_figure`: (column of TandemEvaluation.to_frame(), axis title).
ATTACK_PANELS = (("CM EER %", "CM EER (%)"), ("ASV spoof FA %", "ASV accepts<br>spoofs (%)"),
                 ("min t-DCF", "min t-DCF<br>(normalised)"))


def attack_bars_figure(results: Mapping[str, TandemEvaluation], *, log_eer: bool = False,
                       intervals: Mapping[str, TandemIntervals] | None = None) -> go.Figure:
    """Per attack and pooled, grouped bars: each CM's EER, the ASV's spoof false-alarm rate, each CM's min t-DCF.

    Parameters
    ----------
    results : mapping of CM system name to TandemEvaluation
        Broken down by attack (``by=``), the same ASV and formulation for all.
    log_eer : bool
        A logarithmic CM EER axis (per-attack EERs span three decades on ASVspoof 2019 LA), its ticks at 1, 2 and 5
        times the powers of 10 from below the lowest EER to above the highest, so that every axis has labels. By
        default a linear axis from 0: bar lengths proportional to the EERs (on a log axis they are not).
    intervals : mapping of CM system name to TandemIntervals, optional
        Bootstrap intervals (:meth:`TandemEvaluation.bootstrap`), drawn as error bars on the bars they have limits
        for (the min t-DCF; the CM EER when it was bootstrapped); a system without one is drawn without.
    """
    results, intervals = _checked(results), dict(intervals or {})
    frames = {name: (intervals[name] if name in intervals else result).to_frame() for name, result in results.items()}
    if all(len(frame) == 1 for frame in frames.values()):
        raise ValueError("The results are not broken down by attack (evaluate_tandem with by=None): nothing per "
                         "attack to draw.")
    attacks = list(dict.fromkeys(a for frame in frames.values() for a in frame["attack"] if a != "pooled"))
    order = [*attacks, "pooled"]
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.05)
    for position, (name, frame) in enumerate(frames.items()):
        frame = frame.set_index("attack").reindex(order)
        for row, column in ((1, "CM EER %"), (3, "min t-DCF")):
            fig.add_trace(_bars(frame, column, name, system_colour(position), showlegend=row == 1), row=row, col=1)
    asv = next(iter(frames.values())).set_index("attack").reindex(order)
    fig.add_trace(_bars(asv, "ASV spoof FA %", "ASV (the same for every CM)", REFERENCE_COLOUR, showlegend=True)
                  .update(width=0.35), row=2, col=1)
    first = next(iter(results.values()))
    methods = sorted({ci.interval_words for ci in intervals.values()})
    bars = f" (error bars: {', '.join(methods)}s)" if methods else ""
    style_figure(fig, f"Per attack: countermeasure EER, ASV spoof acceptance, {first.formulation} min t-DCF{bars}",
                 height=880)
    fig.update_layout(barmode="group", bargap=0.2, bargroupgap=0.05)
    for row, (_, title) in enumerate(ATTACK_PANELS, start=1):
        fig.update_yaxes(title_text=title, row=row, col=1)
    if log_eer:
        eers = [frame.filter(like="CM EER %").to_numpy(dtype=float) for frame in frames.values()]
        fig.update_yaxes(type="log", **_log_ticks(np.concatenate([e.ravel() for e in eers])), row=1, col=1)
    else:
        fig.update_yaxes(type="linear", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(range=[0, 100], row=2, col=1)
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=order)
    fig.update_xaxes(title_text="attack (pooled: all attacks; every row keeps all bona fide trials)", row=3, col=1)
    return fig


def _log_ticks(values: np.ndarray) -> dict:
    """A log axis over the positive `values` with labelled ticks at 1, 2, 5 x 10^k (powers of 10 only over more than
    two decades), from the tick at or below the lowest to the first tick above the highest: at least two labels
    however narrow the values' span (plotly's own log ticks label only powers of 10, none between 5.9 and 8.8)."""
    positive = values[np.isfinite(values) & (values > 0)]
    low, high = (positive.min(), positive.max()) if positive.size else (1.0, 100.0)
    decades = np.arange(np.floor(np.log10(low)) - 1, np.ceil(np.log10(high)) + 2)
    ticks = np.array([m * 10.0 ** d for d in decades for m in ((1,) if high > 100 * low else (1, 2, 5))])
    ticks = ticks[(ticks >= ticks[ticks <= low].max()) & (ticks <= ticks[ticks > high].min())]
    return dict(tickvals=ticks, ticktext=[f"{t:g}" for t in ticks],
                range=[np.log10(ticks[0]) - 0.02, np.log10(ticks[-1]) + 0.02])


def _bars(frame: pd.DataFrame, column: str, name: str, colour: str, *, showlegend: bool) -> go.Bar:
    """One system's bars of `column`, with error bars when `frame` has its ``lower`` and ``upper`` limits."""
    y = frame[column].to_numpy(dtype=float)
    error, limits, bounds = None, "", None
    if f"{column} lower" in frame.columns:
        bounds = frame[[f"{column} lower", f"{column} upper"]].to_numpy(dtype=float)
        error = dict(type="data", symmetric=False, array=bounds[:, 1] - y, arrayminus=y - bounds[:, 0],
                     thickness=1.5, width=4, color="#333333")
        limits = " [%{customdata[0]:.4g}, %{customdata[1]:.4g}]"
    return go.Bar(x=frame.index.to_numpy(), y=y, name=name, legendgroup=name, showlegend=showlegend,
                  marker=dict(color=colour), error_y=error, customdata=bounds,
                  meta=dict(system=name, label=f"{name} {column}"),
                  hovertemplate=f"{name}<br>%{{x}}: {column} %{{y:.4g}}{limits}<extra></extra>")
