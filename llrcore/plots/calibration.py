"""Calibration figures of Brümmer & Doddington (2013), "Likelihood-ratio calibration using prior-weighted proper
scoring rules" (Interspeech 2013):

- :func:`threshold_weighting_figure` — fig. 1: the weighting a proper scoring rule, prior-weighted at ``tau``, puts
  on LLR thresholds ``t``, ``w(t + tau) Omega_tau(t)`` normalised, with its mode and the user's Bayes threshold.
- :func:`rule_comparison_figure` — fig. 2: the evaluation cost (Cprimary) of affine calibrations against the prior
  weighting ``tau``, one curve per rule, the best (rule, tau) marked.
- :func:`calibration_transform_figure` — fig. 3: each system's LLRs against the PAV-optimal LLRs of the same trials;
  a perfectly calibrated system lies on the identity line.

Before/after APE, normalised Bayes error and Bayes-error-vs-trapezium figures need nothing new: pass the raw and the
calibrated system together to the figures of :mod:`llrcore.plots.bayes`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .._deprecation import old_spellings
from ..binary.curves import CurveSet, pav_transforms
from ..calibration.sweep import RuleSweep
from ..calibration.weighting import RuleWeighting, ThresholdWeightings, bayes_threshold, threshold_weightings
from ..prior import OperatingPoint, sigmoid
from ._operating_point import OPERATING_POINT, operating_point_of
from ._style import (
    LINE_WIDTH,
    REFERENCE_COLOUR,
    _visible_length,
    decimation_indices,
    point_marker,
    style_figure,
    system_colour,
)
from ._units import llr_number, llr_unit, rescale_llr_axes

__all__ = ["threshold_weighting_figure", "rule_comparison_figure", "calibration_transform_figure"]

_SYMBOLS = ("triangle-up", "circle", "square", "diamond", "x", "pentagon", "hexagon", "cross")
_P_TICKS = np.array([1e-4, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.99])
_THRESHOLD_LINE = dict(color="#333333", width=1.8, dash="dashdot")


def _signed(value: float) -> str:
    """A threshold for labels, with its sign and the minus sign typeset: ``+2.00``, ``−4.60``."""
    return llr_number(value, "ln")


def _threshold_text(threshold: float, op: OperatingPoint, note: str = "", units: str = "ln") -> str:
    """The label of the Bayes threshold (a natural-log LLR) of the operating point `op`, written in `units`."""
    costs = "" if (op.c_miss == 1 and op.c_fa == 1) else \
        f", C<sub>miss</sub> = {op.c_miss:g}, C<sub>fa</sub> = {op.c_fa:g}"
    return f"Bayes threshold {llr_number(threshold, units)}{note}<br>(P<sub>target</sub> = {op.p_target:g}{costs})"


def _threshold_line(fig: go.Figure, threshold: float, op: OperatingPoint, position: str = "top right",
                    units: str = "ln") -> None:
    fig.add_vline(
        x=threshold, line=_THRESHOLD_LINE, layer="below",
        annotation=dict(text=_threshold_text(threshold, op, units=units),
                        font=dict(size=14, color="#222222"), bgcolor="rgba(255,255,255,0.85)", align="left"),
        annotation_position=position,
    )


def _line_labels(fig: go.Figure, labels: list[tuple[float, str, str]], x_range) -> int:
    """Labels ``(x, text, colour)`` of vertical lines along the top of the plot, in rows so that none overlaps.

    A label goes right of its line, or left of it near the right end of the axis; its width is estimated from its
    longest line at about 7.5 px a character on a plot at least 800 px wide (the app's). Returns the number of rows.
    """
    plot_px = 800.0
    span = float(x_range[1] - x_range[0])
    ends: list[float] = []  # the right end (in x) of the last label of each row
    for x, text, colour in sorted(labels):
        longest = max(_visible_length(line) for line in text.split("<br>"))
        width = (longest * 7.5 + 12) / plot_px * span
        left, right = (x, x + width) if x + width <= x_range[1] else (x - width, x)
        row = next((i for i, end in enumerate(ends) if end < left), len(ends))
        ends[row:row + 1] = [right]
        fig.add_annotation(
            x=x, y=1, yref="paper", yanchor="top", yshift=-44 * row, text=text, showarrow=False, align="left",
            xanchor="left" if left == x else "right", xshift=4 if left == x else -4,
            font=dict(size=14, color=colour), bgcolor="rgba(255,255,255,0.85)",
        )
    return len(ends)


def _p_axis(fig: go.Figure, x_range) -> None:
    """A second x axis on top labelled with ``P = sigmoid(x)`` for an x axis in log-odds."""
    logit = np.log(_P_TICKS) - np.log1p(-_P_TICKS)
    inside = (logit >= x_range[0]) & (logit <= x_range[1])
    fig.update_layout(
        xaxis2=dict(overlaying="x", side="top", matches="x", range=list(x_range), showgrid=False, zeroline=False,
                    tickvals=logit[inside], ticktext=[f"{p:g}" for p in _P_TICKS[inside]],
                    title=dict(text="P", font=dict(size=16), standoff=4), tickfont=dict(size=14)),
    )
    fig.add_trace(go.Scatter(x=np.array(x_range, dtype=float), y=np.array([np.nan, np.nan]), xaxis="x2",
                             mode="lines", showlegend=False, hoverinfo="skip", meta=dict(system=None, kind="axis")))


# ----- fig. 1: threshold weighting ----------------------------------------------------------------------------------


@old_spellings(OPERATING_POINT)
def threshold_weighting_figure(
    rules,
    plo: float | None = None,
    *,
    p_target: OperatingPoint | float | Sequence[OperatingPoint | float] | None = None,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    t=None,
    highlight: str | None = None,
    units: str = "ln",
) -> go.Figure:
    """The effective weighting over LLR thresholds of prior-weighted proper scoring rules (fig. 1 of the paper).

    A rule (alpha, beta) trained with prior weighting ``tau = plo`` weights the Bayes decisions at LLR threshold
    ``t`` by ``w(t + tau) Omega_tau(t)`` with ``w(t) = sigmoid(t)^alpha sigmoid(-t)^beta / B(alpha, beta)`` and
    ``Omega_tau(t) = sigmoid(-tau) (1 + e^{t+tau}) / (1 + e^t)`` (eqs. 7, 10); each curve is normalised to unit area
    (:func:`~llrcore.calibration.rules.threshold_weighting`) and its mode (:func:`~llrcore.calibration.weighting.weighting_mode`)
    marked. The logarithmic rule's mode moves only to ``-tau/2``; Brier's most of the way to ``-tau``; boosting's
    does not move at all. The calibration is good where the weight is.

    Parameters
    ----------
    rules : BetaRule, sequence of BetaRule, mapping of label to BetaRule, or ThresholdWeightings
        The rules, or their weightings computed already by :func:`~llrcore.calibration.weighting.threshold_weightings` (then
        `plo`, the operating points and `t` are theirs).
    plo : float
        The prior weighting ``tau`` (log-odds); needed with rules.
    p_target, c_miss, c_fa : OperatingPoint, float, or a sequence of them, optional
        The user's operating point(s) (`p_target` may be OperatingPoints, with their costs): a vertical line at each
        Bayes threshold ``-plo_eff`` (several for a cost defined at several priors, such as Cprimary at 0.01 and
        0.001; they share their costs).
    t : array_like, optional
        LLR thresholds to draw; default 1201 points covering the modes, ``-tau`` and the Bayes thresholds +-10.
    highlight : str, optional
        Label of one rule to draw boldly, the others lighter (e.g. the chosen rule among the named ones).
    units : {"ln", "log10"}
        The threshold axis, the modes and the thresholds' labels in natural-log LLRs or in ``log10 LR`` (the
        weights are then per log10 unit, still of unit area); the prior weighting ``tau`` stays a natural-log odds.
    """
    if isinstance(rules, ThresholdWeightings):
        weightings = rules
    elif plo is None:
        raise ValueError("Give the prior weighting tau (plo) of the rules.")
    else:
        p_targets, c_miss, c_fa = _shared_costs(operating_point_of(p_target, c_miss, c_fa))
        weightings = threshold_weightings(rules, plo, p_target=p_targets, c_miss=c_miss, c_fa=c_fa, t=t)
    fig = go.Figure()
    for position, weighting in enumerate(weightings.rules.values()):
        faint = highlight is not None and weighting.name != highlight
        _weighting_traces(fig, weighting, weightings.t, system_colour(position), faint, units)
    rows = _weighting_lines(fig, weightings, units)
    t, top = weightings.t, max(float(w.weight.max()) for w in weightings.rules.values())
    style_figure(fig, f"Weighting over LLR thresholds, prior weighting τ = {_signed(weightings.plo)}", height=520)
    fig.update_layout(hovermode="closest", margin=dict(t=110))
    fig.update_xaxes(title_text=f"LLR threshold t ({llr_unit(units)})", range=[float(t[0]), float(t[-1])])
    # room above the curves for the rows of labels
    fig.update_yaxes(title_text="Relative weight (unit area)", range=[0, (1.25 + 0.2 * (rows - 1)) * top],
                     rangemode="tozero")
    return rescale_llr_axes(fig, units, density_axis="y")


def _shared_costs(operating_point) -> tuple[list[float] | None, float, float]:
    """``(p_targets, c_miss, c_fa)`` of one operating point or of several with the same costs (None: no point)."""
    if operating_point is None:
        return None, 1.0, 1.0
    points = [operating_point] if isinstance(operating_point, OperatingPoint) else operating_point
    costs = {(p.c_miss, p.c_fa) for p in points}
    if len(costs) > 1:
        raise ValueError("The operating points of one threshold-weighting figure share their costs C_miss and C_fa.")
    c_miss, c_fa = costs.pop() if costs else (1.0, 1.0)
    return [p.p_target for p in points], c_miss, c_fa


def _weighting_traces(fig: go.Figure, weighting: RuleWeighting, t: np.ndarray, colour: str, faint: bool,
                      units: str = "ln") -> None:
    """One rule's weighting curve and its mode (a diamond)."""
    name, rule, mode = weighting.name, weighting.rule, weighting.mode
    fig.add_trace(go.Scatter(
        x=t, y=weighting.weight, mode="lines", legendgroup=name, opacity=0.6 if faint else 1.0,
        name=f"{name} (α = {rule.alpha:g}, β = {rule.beta:g}): mode {llr_number(mode, units)}",
        line=dict(color=colour, width=LINE_WIDTH - 1 if faint else LINE_WIDTH + 0.5),
        hovertemplate=f"<b>{name}</b><br>threshold t = %{{x:.2f}}<br>weight = %{{y:.4f}}<extra></extra>",
        meta=dict(system=name, kind="weighting", label=name, alpha=rule.alpha, beta=rule.beta),
    ))
    fig.add_trace(go.Scatter(
        x=np.array([mode]), y=np.array([weighting.peak]), mode="markers", showlegend=False, legendgroup=name,
        name=f"{name} mode", marker=point_marker(colour, 15, "diamond"),
        hovertemplate=f"<b>{name}</b> mode<br>t = %{{x:.3f}}<extra></extra>",
        meta=dict(system=name, kind="mode", label=f"{name} mode", mode=mode),
    ))


def _weighting_lines(fig: go.Figure, weightings: ThresholdWeightings, units: str = "ln") -> int:
    """The line at ``-tau`` and the Bayes thresholds, labelled along the top; returns the rows of labels."""
    plo, bayes = weightings.plo, weightings.bayes
    # when a Bayes threshold is -tau (the weighting is at the operating point), one label says both
    same = [p for p, threshold in bayes.items() if abs(threshold + plo) < 5e-3]
    at = "−τ = " if units == "ln" else "−τ / ln 10 = "
    labels = [] if same else [(-plo, f"{at}{llr_number(-plo, units)}<br>(weighting P = {float(sigmoid(plo)):.3g})",
                               REFERENCE_COLOUR)]
    fig.add_vline(x=-plo, line=dict(color=REFERENCE_COLOUR, width=1.4, dash="dot"), layer="below")
    for p, threshold in bayes.items():
        fig.add_vline(x=threshold, line=_THRESHOLD_LINE, layer="below")
        op = OperatingPoint(p, weightings.c_miss, weightings.c_fa)
        labels.append((threshold, _threshold_text(threshold, op, " = −τ" if p in same else "", units), "#222222"))
    return _line_labels(fig, labels, (float(weightings.t[0]), float(weightings.t[-1])))


# ----- fig. 2: cost against prior weighting -------------------------------------------------------------------------


def rule_comparison_figure(sweep: RuleSweep | pd.DataFrame, *, cost_name: str | None = None) -> go.Figure:
    """Evaluation cost of affine calibration against the prior weighting, one curve per rule (fig. 2 of the paper).

    Parameters
    ----------
    sweep : RuleSweep or DataFrame
        From :func:`~llrcore.calibration.sweep.sweep_prior_weighting`; a DataFrame needs columns ``rule``,
        ``plo`` and ``cost`` (``cllr`` is shown on hover when present). A :class:`RuleSweep` also draws the cost of
        the uncalibrated scores and the minimum (PAV on the evaluation labels) as reference lines.
    cost_name : str, optional
        Axis label of the cost; default the sweep's (``"Cprimary"``) or ``"cost"``.
    """
    frame = _sweep_frame(sweep)
    cost_name = cost_name or (sweep.cost_name if isinstance(sweep, RuleSweep) else "cost")
    fig = go.Figure()
    for position, rule in enumerate(dict.fromkeys(frame["rule"])):
        fig.add_trace(_rule_cost_trace(frame[frame["rule"] == rule].sort_values("plo"), rule, position, cost_name))
    best = frame.loc[frame["cost"].idxmin()]  # type: ignore[call-overload]  # a label of frame; the stubs: Hashable
    fig.add_trace(go.Scatter(
        x=np.array([best["plo"]]), y=np.array([best["cost"]]), mode="markers",
        name=f"best: {best['rule']} at P = {float(sigmoid(best['plo'])):.3g} ({cost_name} {best['cost']:.3f})",
        marker=dict(symbol="star", size=24, color="#F0C419", line=dict(color="#222222", width=1.5)),
        hovertemplate=f"<b>best</b>: {best['rule']}<br>τ = %{{x:.2f}}<br>{cost_name} = %{{y:.4f}}<extra></extra>",
        meta=dict(system=str(best["rule"]), kind="best", label="best"),
    ))
    y_range = _cost_range(fig, frame, sweep if isinstance(sweep, RuleSweep) else None)
    plo_all = frame["plo"].to_numpy(dtype=np.float64)
    pad = 0.03 * max(float(np.ptp(plo_all)), 1.0)
    x_range = [float(plo_all.min()) - pad, float(plo_all.max()) + pad]
    style_figure(fig, f"{cost_name} of the calibrated evaluation scores against the prior weighting", height=560)
    fig.update_layout(hovermode="closest", margin=dict(t=115), title=dict(y=0.98, yanchor="top"))
    fig.update_xaxes(title_text="Prior weighting τ = logit(P)", range=x_range)
    fig.update_yaxes(title_text=cost_name, range=y_range)
    _p_axis(fig, x_range)
    return fig


def _sweep_frame(sweep) -> pd.DataFrame:
    """The sweep's table, refused in a sentence when a column is missing or it is empty."""
    frame = sweep.frame if isinstance(sweep, RuleSweep) else sweep
    missing = {"rule", "plo", "cost"} - set(frame.columns)
    if missing:
        raise ValueError(f"The sweep table has no column {sorted(missing)[0]!r}.")
    if frame.empty:
        raise ValueError("The sweep table is empty.")
    return frame


def _rule_cost_trace(part: pd.DataFrame, rule: str, position: int, cost_name: str) -> go.Scatter:
    """One rule's cost against the prior weighting, its lowest cost in the legend."""
    plo = part["plo"].to_numpy(dtype=np.float64)
    cost = part["cost"].to_numpy(dtype=np.float64)
    cllr = part["cllr"].to_numpy(dtype=np.float64) if "cllr" in part else np.full(plo.size, np.nan)
    lowest = int(np.argmin(cost))
    return go.Scatter(
        x=plo, y=cost, mode="lines+markers",
        name=f"{rule} (lowest {cost[lowest]:.3f} at τ = {_signed(plo[lowest])})", legendgroup=rule,
        line=dict(color=system_colour(position), width=LINE_WIDTH - 0.5),
        marker=dict(symbol=_SYMBOLS[position % len(_SYMBOLS)], size=10, color=system_colour(position)),
        customdata=np.column_stack([sigmoid(plo), cllr]),
        hovertemplate=f"<b>{rule}</b><br>τ = %{{x:.2f}} (P = %{{customdata[0]:.3g}})<br>"
        f"{cost_name} = %{{y:.4f}}<br>Cllr = %{{customdata[1]:.3f}} bits<extra></extra>",
        meta=dict(system=rule, kind="cost", label=rule),
    )


def _cost_range(fig: go.Figure, frame: pd.DataFrame, sweep: RuleSweep | None) -> list[float]:
    """The cost axis around the curves, with a sweep's minimum (dashed) and uncalibrated cost (dotted, or a note
    when it is far above the curves); returns the range."""
    costs = frame["cost"].to_numpy(dtype=np.float64)
    low, high = float(costs.min()), float(costs.max())
    if sweep is not None:
        low = min(low, sweep.min_cost)
        fig.add_hline(y=sweep.min_cost, line=dict(color=REFERENCE_COLOUR, width=1.8, dash="dash"),
                      annotation=dict(text=f"minimum with the evaluation labels (PAV): {sweep.min_cost:.3f}",
                                      font=dict(size=14, color=REFERENCE_COLOUR)),
                      annotation_position="bottom right")
    span = max(high - low, 0.05 * max(high, 1e-3))
    y_range = [max(0.0, low - 0.15 * span), high + 0.25 * span]
    if sweep is None:
        return y_range
    raw_text = f"scores as they are (no calibration): {sweep.raw_cost:.3f}"
    if sweep.raw_cost <= y_range[1] + 0.5 * span:
        y_range[1] = max(y_range[1], sweep.raw_cost + 0.1 * span)
        fig.add_hline(y=sweep.raw_cost, line=dict(color=REFERENCE_COLOUR, width=1.8, dash="dot"),
                      annotation=dict(text=raw_text, font=dict(size=14, color=REFERENCE_COLOUR)),
                      annotation_position="top right")
    else:  # far above the curves: say so rather than squash them
        fig.add_annotation(text=f"↑ {raw_text}", xref="paper", yref="paper", x=1, y=1, xanchor="right",
                           yanchor="top", showarrow=False, font=dict(size=14, color=REFERENCE_COLOUR),
                           bgcolor="rgba(255,255,255,0.85)")
    return y_range


# ----- fig. 3: LLRs against the PAV reference -----------------------------------------------------------------------


@old_spellings(OPERATING_POINT)
def calibration_transform_figure(
    systems,
    *,
    p_target: OperatingPoint | float | None = None,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    max_points: int = 2000,
    units: str = "ln",
) -> go.Figure:
    """Each system's LLRs against the PAV-optimal LLRs of the same trials (fig. 3 of the paper).

    PAV finds, with the trials' labels, the best monotone recalibration of the LLRs: the ideal reference. A system
    whose curve follows the identity line is calibrated; an affine calibration can only shift and scale its curve
    along the horizontal axis, so it is good where its rule put the weight (fig. 1) and worse elsewhere. Blocks of
    trials where PAV says +-infinity (only one class) are not drawn. Plotting raw and calibrated LLRs of the same
    trials together shows what calibration did.

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials, or the CurveSet of :func:`llrcore.binary.curves.pav_transforms`
        LLRs (e.g. the raw scores and one or more calibrations of them).
    p_target, c_miss, c_fa : OperatingPoint or float, optional
        The user's operating point (`p_target` may be an OperatingPoint, with its costs): its Bayes threshold
        ``-plo_eff`` as a vertical and a horizontal line. Decisions are right there when the curve passes through
        their crossing.
    max_points : int
        Vertices per curve after decimation in plot space.
    units : {"ln", "log10"}
        Both axes (and the threshold's label) in natural-log LLRs or in ``log10 LR``.
    """
    unit = llr_unit(units)
    transforms = systems if isinstance(systems, CurveSet) else pav_transforms(systems)
    op = operating_point_of(p_target, c_miss, c_fa)
    bayes = None if op is None else bayes_threshold(op)
    fig = go.Figure()
    y_values = []
    for position, (name, transform) in enumerate(transforms.items()):
        keep = decimation_indices(transform.llr, transform.pav_llr, max_points, keep=transform.corners)
        x, y = transform.llr[keep], transform.pav_llr[keep]
        y_values.append(y)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", name=name, legendgroup=name,
            line=dict(color=system_colour(position), width=LINE_WIDTH),
            hovertemplate=f"<b>{name}</b><br>{unit} = %{{x:.3f}}<br>PAV-optimal {unit} = %{{y:.3f}}<extra></extra>",
            meta=dict(system=name, kind="pav", label=name),
        ))
    finite = np.concatenate(y_values)
    if finite.size:
        low, high = float(finite.min()), float(finite.max())
    else:  # PAV separates the classes completely: nothing finite to draw
        low, high = -5.0, 5.0
    if bayes is not None:
        low, high = min(low, bayes), max(high, bayes)
    pad = 0.08 * max(high - low, 1.0)
    axis = [low - pad, high + pad]
    fig.add_trace(go.Scatter(
        x=np.array(axis), y=np.array(axis), mode="lines", name="identity: perfectly calibrated",
        line=dict(color="#000000", width=1.6, dash="dash"), hoverinfo="skip",
        meta=dict(system=None, kind="identity", label="identity"),
    ))
    if bayes is not None:
        _threshold_line(fig, bayes, op, position="bottom right", units=units)
        fig.add_hline(y=bayes, line=_THRESHOLD_LINE, layer="below")
    style_figure(fig, "LLRs against the PAV-optimal LLRs of the same trials", height=640)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title_text=f"LLR of the system ({unit})", range=axis)
    fig.update_yaxes(title_text=f"PAV-optimal LLR ({unit})", range=axis, scaleanchor="x", constrain="domain")
    return rescale_llr_axes(fig, units, llr_axes="xy")
