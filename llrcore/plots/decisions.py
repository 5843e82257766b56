"""Figures for teaching Bayes decisions: where the threshold falls, what it costs, and direct score thresholding.

- :func:`decision_figure` — the LLR distributions of both classes with the Bayes threshold, the accept/reject
  regions and the errors it makes shaded (misses: targets below the threshold; false alarms: non-targets above).
- :func:`errors_per_100_figure` — "out of 100 trials": actual vs perfectly calibrated vs the EER bound vs no system.
- :func:`fixed_threshold_figure` — a score threshold fixed for a false-alarm rate on development data, against
  Bayes decisions, on evaluation data at every prior (Brümmer, Ferrer & Swart 2021, section 5).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..prior import OperatingPoint, as_operating_point, sigmoid
from ..teaching.decisions import DecisionHistograms, DecisionSummary, decision_histograms, per_100, percent
from ..teaching.fixed_threshold import FixedThresholdAnalysis
from ._style import (
    CLASS_COLOURS,
    LINE_WIDTH,
    PALETTE,
    REFERENCE_COLOUR,
    legend_key,
    point_marker,
    style_figure,
    with_alpha,
)
from .._deprecation import old_spellings
from ._operating_point import OPERATING_POINT, operating_point_of
from ._units import llr_factor, llr_unit, rescale_llr_axes

__all__ = ["decision_figure", "errors_per_100_figure", "fixed_threshold_figure", "prior_axis"]

_THRESHOLD_COLOUR = "#222222"
_FIXED_COLOUR, _BAYES_COLOUR = PALETTE[1], PALETTE[0]
#: The labels at the top of a decision figure fill the plot above this height (a fraction of it): 22 px of text on
#: a plot of 300 px or more, and a gap.
_LABEL_BAND = 0.86
_P_TICKS = np.array([1e-4, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999])


def two_line_title(main: str, sub: str) -> str:
    """A title with a smaller second line, so long titles fit a narrow column."""
    return f"{main}<br><span style='font-size:15px'>{sub}</span>"


def _operating_point(summary: DecisionSummary) -> str:
    text = f"P(target) = {percent(summary.p_target)}"
    if not summary.unit_costs:
        text += f", C<sub>miss</sub> = {summary.c_miss:g}, C<sub>fa</sub> = {summary.c_fa:g}"
    return text


def _step(edges: np.ndarray, density: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of a histogram outline drawn with ``line_shape="hv"``."""
    return edges, np.concatenate([density, density[-1:]])


@old_spellings(OPERATING_POINT, positional=("p_target",))
def decision_figure(trials, *, p_target: OperatingPoint | float | None = None, c_miss: float = 1.0, c_fa: float = 1.0,
                    bins: int = 80, log_density: bool = False, name: str | None = None,
                    units: str = "ln") -> go.Figure:
    """The two classes' LLR histograms, the Bayes threshold ``-plo_eff`` and the decisions it makes.

    Left of the threshold every trial is rejected, right of it accepted; the part of the target histogram on the
    left (misses) and of the non-target histogram on the right (false alarms) is hatched, and the legend says what
    fraction of each class it is and how many errors per 100 trials it makes at this prior. A dashed line marks
    the best threshold in hindsight (the PAV-optimal decisions): the gap between the two lines is miscalibration.

    Parameters
    ----------
    trials : Trials or DecisionHistograms
        Scores taken as natural-log LLRs, or their histograms computed already by
        :func:`~llrcore.teaching.decisions.decision_histograms` (then the operating point, `bins` and `name` are theirs).
    p_target, c_miss, c_fa : OperatingPoint or float
        The operating point (`p_target` may be an OperatingPoint, with its costs; see
        :func:`~llrcore.teaching.decisions.bayes_decisions`); needed with Trials.
    bins : int
        About this many bins over the range of the scores.
    log_density : bool
        Logarithmic density axis: shows the thin tails where the errors of a good system are.
    units : {"ln", "log10"}
        The LLR axis and the thresholds' labels in natural-log LLRs or in ``log10 LR`` (densities then per log10
        unit, each class still of area 1).
    """
    histograms = _decision_histograms(trials, operating_point_of(p_target, c_miss, c_fa), bins, name)
    fig = go.Figure()
    for label in ("target", "non-target"):
        _class_traces(fig, histograms, label, units)
    _threshold_marks(fig, histograms, units)
    _decision_axes(fig, histograms, log_density, units)
    return rescale_llr_axes(fig, units, density_axis="y")


def _decision_histograms(trials, op: OperatingPoint | None, bins, name) -> DecisionHistograms:
    """The histograms a decision figure draws: given, or computed from the trials at the operating point `op`."""
    if isinstance(trials, DecisionHistograms):
        return trials
    if op is None:
        raise ValueError("Give P(target), the prior of the decisions to draw.")
    return decision_histograms(trials, p_target=op, bins=bins, name=name)


def _class_traces(fig: go.Figure, histograms: DecisionHistograms, label: str, units: str = "ln") -> None:
    """One class's histogram, and its errors hatched over it, with what they are in the legend."""
    summary, edges = histograms.summary, histograms.edges
    name, colour = summary.name or "system", CLASS_COLOURS[label]
    density = histograms.density(label)
    x, y = _step(edges, density)
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="lines", line=dict(color=colour, width=2.5, shape="hv"), fill="tozeroy",
        fillcolor=with_alpha(colour, 0.15), name=f"{label}s ({histograms.n_trials[label]:,} trials)",
        hovertemplate=f"{label} LLRs from %{{x:.3g}} ({llr_unit(units)})<br>density %{{y:.3g}}<extra></extra>",
        meta=dict(system=name, kind=label.replace("-", "_")),
    ))
    errors = histograms.errors(label)
    if not density[errors].size:
        return
    x, y = _step(edges[errors.start: (errors.stop + 1) if errors.stop is not None else None], density[errors])
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="lines", line=dict(color=colour, width=0, shape="hv"), fill="tozeroy",
        fillcolor=with_alpha(colour, 0.55), fillpattern=dict(shape="/", fgcolor="white", solidity=0.3),
        name=_error_legend(summary, label), hoverinfo="skip",
        meta=dict(system=name, kind="misses" if label == "target" else "false_alarms"),
    ))


def _error_legend(summary: DecisionSummary, label: str) -> str:
    """``"misses: 3.1 % of targets, 0.031 per 100 trials"`` (or the false alarms of the non-targets)."""
    n = summary.per_100()
    if label == "target":
        return f"misses: {percent(summary.miss_rate)} of targets, {per_100(n['misses'])} per 100 trials"
    return (f"false alarms: {percent(summary.false_alarm_rate)} of non-targets, {per_100(n['false alarms'])} per 100 "
            "trials")


def _threshold_marks(fig: go.Figure, histograms: DecisionHistograms, units: str = "ln") -> None:
    """The Bayes threshold with the reject/accept regions (or a note when it is off the chart), and the best
    threshold in hindsight, dashed."""
    lo, hi = histograms.x_range
    threshold = histograms.summary.threshold
    if histograms.threshold_in_view:
        fig.add_vrect(x0=lo, x1=threshold, fillcolor="rgba(120,120,120,0.08)", line_width=0, layer="below")
        fig.add_vline(x=threshold, line=dict(color=_THRESHOLD_COLOUR, width=3))
        for text, anchor in (("◀ reject", "right"), ("accept ▶", "left")):
            fig.add_annotation(
                x=threshold, y=1.0, yref="paper", text=f"<b>{text}</b>", showarrow=False, xanchor=anchor,
                yanchor="top", xshift=-8 if anchor == "right" else 8, font=dict(size=17, color=_THRESHOLD_COLOUR),
            )
    else:
        side = "right" if threshold > hi else "left"
        fig.add_annotation(
            x=hi if side == "right" else lo, y=1.0, yref="paper", yanchor="top", showarrow=False, xanchor=side,
            text=f"Bayes threshold {threshold * llr_factor(units):+.3g} is off the chart: every trial in view is "
                 f"{'rejected' if side == 'right' else 'accepted'}",
            font=dict(size=15, color=_THRESHOLD_COLOUR), bgcolor="rgba(255,255,255,0.85)",
        )
    word = "LLR" if units == "ln" else llr_unit(units)
    fig.add_trace(legend_key(f"Bayes threshold: {word} = {threshold * llr_factor(units):+.2f}",
                             line=dict(color=_THRESHOLD_COLOUR, width=3)))
    best = histograms.summary.min_threshold
    if np.isfinite(best) and lo <= best <= hi:
        # it stops below the band of labels at the top ("accept", "reject", the note), so it crosses none of them
        fig.add_vline(x=best, y0=0, y1=_LABEL_BAND, line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dash"))
        fig.add_trace(legend_key(f"best threshold in hindsight (PAV): {best * llr_factor(units):+.2f}",
                                 line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dash")))


def _decision_axes(fig: go.Figure, histograms: DecisionHistograms, log_density: bool, units: str = "ln") -> None:
    summary = histograms.summary
    style_figure(fig, two_line_title(f"Where the Bayes threshold falls: {summary.name or 'system'}",
                                     f"at {_operating_point(summary)}"), height=580)
    taken = "a natural-log likelihood ratio" if units == "ln" else "a natural-log LLR, shown as log10 LR"
    fig.update_xaxes(title_text=f"{llr_unit(units)} (the score taken as {taken})",
                     range=list(histograms.x_range))
    if log_density:
        fig.update_yaxes(type="log", title_text="density (log scale)", exponentformat="power")
    else:
        peak = max(float(histograms.density(label).max()) for label in histograms.counts)
        fig.update_yaxes(title_text="density (each class sums to 1)", range=[0, 1.12 * peak])
    fig.update_layout(hovermode="closest", legend=dict(traceorder="normal"))


def errors_per_100_figure(summary: DecisionSummary) -> go.Figure:
    """Out of 100 trials: the errors (or cost) of the system, perfectly calibrated, the EER bound and no system.

    The actual and the perfectly calibrated (PAV) bars are split into misses and false alarms; every bar carries
    its total in large type. With unit costs the values are errors per 100 trials, else the cost per 100 trials.
    Every colour drawn has a legend entry (and only those: a part of zero height is left out of the legend).
    """
    n = summary.per_100()
    unit = summary.unit_costs
    what = "errors" if unit else "cost"
    categories = np.array(["this<br>system", "perfectly<br>calibrated", "bound from<br>the EER",
                           "without<br>the system"], dtype=object)
    totals = np.array([n["actual"], n["minimum"], n["trapezium"], n["default"]])
    stacks = (
        ("misses" if unit else "cost of misses", CLASS_COLOURS["target"],
         summary.c_miss * np.array([n["misses"], n["min misses"], 0.0, 0.0])),
        ("false alarms" if unit else "cost of false alarms", CLASS_COLOURS["non-target"],
         summary.c_fa * np.array([n["false alarms"], n["min false alarms"], 0.0, 0.0])),
        ("bound from the EER", PALETTE[0], np.array([0.0, 0.0, n["trapezium"], 0.0])),
        ("without the system", REFERENCE_COLOUR, np.array([0.0, 0.0, 0.0, n["default"]])),
    )
    fig = go.Figure()
    for label, colour, values in stacks:
        fig.add_trace(go.Bar(
            x=categories, y=values, name=label, marker=dict(color=with_alpha(colour, 0.8), line=dict(width=0)),
            showlegend=bool(np.any(values > 0)),  # every colour drawn is named, none that is not
            hovertemplate=f"%{{x}}<br>{label}: %{{y:.3g}} per 100 trials<extra></extra>",
            meta=dict(system=summary.name, kind=label.replace(" ", "_"), label=label),
        ))
    for category, total in zip(categories, totals):
        fig.add_annotation(x=category, y=total, text=f"<b>{per_100(total)}</b>", showarrow=False, yanchor="bottom",
                           font=dict(size=26, color="#111111"))
    style_figure(fig, two_line_title("Out of 100 trials", f"at {_operating_point(summary)}"), height=490)
    top = float(np.max(totals)) if np.max(totals) > 0 else 1.0
    fig.update_yaxes(title_text=f"{what} per 100 trials", range=[0, 1.25 * top])
    fig.update_xaxes(tickfont=dict(size=15), tickangle=0)
    fig.update_layout(barmode="stack", bargap=0.35, hovermode="closest", legend_traceorder="normal")
    return fig


def prior_axis(fig: go.Figure, x_range) -> None:
    """Label a prior log-odds x axis in P(target) with the log-odds beneath, for readers who think in
    probabilities (ticks at 0.0001 ... 0.9999 inside `x_range`)."""
    ticks = np.log(_P_TICKS) - np.log1p(-_P_TICKS)
    inside = (ticks >= x_range[0] - 1e-9) & (ticks <= x_range[1] + 1e-9)
    fig.update_xaxes(
        range=list(x_range), tickvals=ticks[inside],
        ticktext=[f"{p:g}<br><span style='font-size:12px'>({t:+.1f})</span>"
                  for p, t in zip(_P_TICKS[inside], ticks[inside])],
        title_text="P(target) (prior log-odds below)",
    )


@old_spellings(OPERATING_POINT)
def fixed_threshold_figure(analysis: FixedThresholdAnalysis, *, p_target: OperatingPoint | float | None = None,
                           log_scale: bool = True) -> go.Figure:
    """What a score threshold fixed for a false-alarm rate on development data costs on evaluation data.

    Against the prior (x, in P(target) on a logit scale), the expected errors (or cost) per 100 evaluation
    trials of: the fixed threshold (solid; thin dotted: what it costs on the development data), Bayes decisions
    with the scores calibrated on the development data (blue), the best threshold in hindsight at every prior
    (dashed, PAV on the evaluation data) and no system (dotted). The fixed threshold touches the Bayes curve only
    near the prior it implicitly assumes, marked with a diamond. The table of the curves is
    :meth:`FixedThresholdAnalysis.to_frame <llrcore.teaching.decisions.FixedThresholdAnalysis.to_frame>`.

    `p_target` (optional) marks the user's prior with stars on the fixed-threshold and Bayes curves: an
    OperatingPoint with the analysis' costs, or a bare P_target (the analysis' costs then stand).

    Raises
    ------
    ValueError
        When the operating point's costs are not those the analysis was computed with.
    """
    what = _cost_word(analysis)
    fig = go.Figure()
    for kind, label, line in _fixed_threshold_curves(analysis):
        fig.add_trace(go.Scatter(
            x=analysis.plo, y=100 * getattr(analysis, kind), customdata=sigmoid(analysis.plo), mode="lines",
            name=label, line=line,
            hovertemplate=f"{label}<br>P(target) = %{{customdata:.3g}}<br>{what} = %{{y:.3g}} per 100 trials"
                          "<extra></extra>",
            meta=dict(system=None, kind=kind, label=label),
        ))
    _implied_prior_mark(fig, analysis, log_scale)
    if p_target is not None:
        _your_prior_marks(fig, analysis, _analysis_point(analysis, p_target))
    style_figure(fig, two_line_title("Fixed false-alarm threshold vs Bayes decisions",
                                     "expected on the evaluation data at every prior"), height=620)
    prior_axis(fig, (float(analysis.plo[0]), float(analysis.plo[-1])))
    _cost_axis(fig, analysis, log_scale)
    fig.update_layout(hovermode="closest", margin=dict(t=120, b=90))
    return fig


def _cost_word(analysis: FixedThresholdAnalysis) -> str:
    return "errors" if analysis.c_miss == 1 and analysis.c_fa == 1 else "cost"


def _fixed_threshold_curves(analysis: FixedThresholdAnalysis) -> tuple:
    """``(kind, legend, line)`` of each curve, in drawing order (:attr:`FixedThresholdAnalysis.CURVES`)."""
    return (
        ("fixed", f"fixed threshold (false alarms {percent(analysis.target_pfa)} on development)",
         dict(color=_FIXED_COLOUR, width=LINE_WIDTH + 0.5)),
        ("fixed_dev", "fixed threshold, as measured on development", dict(color=_FIXED_COLOUR, width=1.8, dash="dot")),
        ("bayes", "Bayes threshold, scores calibrated on development", dict(color=_BAYES_COLOUR, width=LINE_WIDTH)),
        ("minimum", "best threshold in hindsight (PAV on evaluation)",
         dict(color=_BAYES_COLOUR, width=LINE_WIDTH - 0.8, dash="dash")),
        ("default", "without the system", dict(color=REFERENCE_COLOUR, width=2.2, dash="dot")),
    )


def _implied_prior_mark(fig: go.Figure, analysis: FixedThresholdAnalysis, log_scale: bool) -> None:
    """A diamond where the fixed threshold is the Bayes decision, with a note (when that prior is on the axis)."""
    implied, plo = analysis.implied_prior_log_odds, analysis.plo
    if not (np.isfinite(implied) and plo[0] <= implied <= plo[-1]):
        return
    value = 100 * np.interp(implied, plo, analysis.fixed)
    fig.add_trace(go.Scatter(
        x=np.array([implied]), y=np.array([value]), mode="markers", showlegend=False,
        name="where the fixed threshold is the Bayes decision", marker=point_marker(_FIXED_COLOUR, 16, "diamond"),
        hovertemplate="the fixed threshold is the Bayes decision near here<extra></extra>",
        meta=dict(system=None, kind="implied_prior"),
    ))
    fig.add_annotation(
        x=implied, y=np.log10(value) if log_scale else value, text=f"Bayes only at P(target) ≈ "
        f"{analysis.implied_p_target:.2g}", showarrow=True, arrowhead=0, arrowcolor=_FIXED_COLOUR, ax=70, ay=45,
        font=dict(size=15, color=_FIXED_COLOUR), bgcolor="rgba(255,255,255,0.9)", bordercolor=_FIXED_COLOUR,
    )


def _analysis_point(analysis: FixedThresholdAnalysis, operating_point) -> OperatingPoint:
    """`operating_point` at the costs of the analysis (a bare P_target takes them), refused if its own differ."""
    if not isinstance(operating_point, OperatingPoint):
        return as_operating_point(operating_point, analysis.c_miss, analysis.c_fa)
    if (operating_point.c_miss, operating_point.c_fa) != (analysis.c_miss, analysis.c_fa):
        raise ValueError(f"The operating point's costs ({operating_point.describe()}) are not those of the analysis "
                         f"(C_miss = {analysis.c_miss:g}, C_fa = {analysis.c_fa:g}).")
    return operating_point


def _your_prior_marks(fig: go.Figure, analysis: FixedThresholdAnalysis, op: OperatingPoint) -> None:
    """The user's prior: a vertical line and stars on the fixed-threshold and Bayes curves."""
    p_target = op.p_target
    at = analysis.at(p_target)
    x = float(np.log(p_target) - np.log1p(-p_target))
    fig.add_vline(x=x, line=dict(color="#333333", width=1.6, dash="dashdot"))
    fig.add_trace(go.Scatter(
        x=np.array([x, x]), y=100 * np.array([at["fixed"], at["bayes"]]), mode="markers", showlegend=False,
        marker=point_marker([_FIXED_COLOUR, _BAYES_COLOUR], 17, "star"),
        customdata=np.array(["fixed threshold", "Bayes threshold"], dtype=object),
        hovertemplate=f"%{{customdata}} at P(target) = {p_target:g}<br>{_cost_word(analysis)} = %{{y:.3g}} per 100 "
                      "trials<extra></extra>",
        meta=dict(system=None, kind="operating_point"),
    ))
    fig.add_annotation(
        x=x, y=1.0, yref="paper", yanchor="bottom", showarrow=False, text=f"your prior {percent(p_target)}",
        font=dict(size=15), bgcolor="rgba(255,255,255,0.85)",
    )


def _cost_axis(fig: go.Figure, analysis: FixedThresholdAnalysis, log_scale: bool) -> None:
    """Errors (or cost) per 100 trials: on a log axis over every positive value drawn, else linear from 0."""
    what = _cost_word(analysis)
    positive = np.concatenate([100 * v[v > 0] for v in (getattr(analysis, kind) for kind in analysis.CURVES)])
    if log_scale and positive.size:
        low = int(np.floor(np.log10(max(float(positive.min()), 1e-4))))
        high = np.log10(float(positive.max()) * 1.6)
        ticks = 10.0 ** np.arange(low, int(np.ceil(high)) + 1)
        fig.update_yaxes(type="log", range=[low, high], tickvals=ticks, ticktext=[f"{t:g}" for t in ticks],
                         title_text=f"{what} per 100 trials (log scale)")
    else:
        fig.update_yaxes(title_text=f"{what} per 100 trials", rangemode="tozero")
