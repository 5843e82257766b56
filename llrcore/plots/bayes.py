"""Bayes-error figures: APE curves with Cllr bars, the normalised Bayes error plot, Bayes error vs its trapezium.

All three show, as a function of the prior log-odds ``plo = logit(P_target)``, the Bayes error rate of decisions
made by thresholding the scores (taken as LLRs) at ``-plo``:
``Pe(plo) = sigmoid(plo) Pmiss(-plo) + sigmoid(-plo) Pfa(-plo)``, against the minimum over all thresholds (the
PAV/ROCCH-optimal LLRs) and the default ``min(P, 1 - P)`` of deciding from the prior alone.

References
----------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (APE curves;
Cllr is ``1 / (2 ln 2)`` times the area under the actual APE curve).
N. Brümmer and E. de Villiers, "The BOSARIS toolkit", 2013 (the normalised Bayes error plot).
N. Brümmer, L. Ferrer and A. Swart, "Out of a hundred trials, how many errors does your speaker verifier make?",
Interspeech 2021 (the trapezium bound ``min(P, 1 - P, EER)`` and its logit/log figures).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..binary.curves import DEFAULT_PLO, CurveSet, bayes_error_curves
from ..prior import OperatingPoint, logit, sigmoid
from .._deprecation import old_spellings
from .._format import errors_phrase
from ._operating_point import OPERATING_POINT, operating_point_of
from ._style import LINE_WIDTH, REFERENCE_COLOUR, format_percent, legend_key, legend_label, operating_point_text
from ._style import point_marker, style_figure, system_colour, with_alpha, wrap_label

__all__ = ["ape_figure", "normalised_bayes_error_figure", "bayes_error_trapezium_figure", "DEFAULT_PLO",
           "APE_Y_AXES"]

_PLO_TITLE = "Prior log-odds logit(P<sub>target</sub>)"
_HOVER_X = "logit P = %{x:.2f} (P<sub>target</sub> = %{customdata[0]:.3g})<br>"
_HOVER_RATE = "error rate = %{y:.3~%} (%{customdata[1]:.3g} errors per 100 trials)"
_P_TICKS = np.array([1e-3, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999])


def _plo_customdata(plo, *columns):
    """Per point: P_target and the given columns (for hover text)."""
    return np.column_stack([sigmoid(plo), *columns])


def _bits(value: float) -> str:
    """Cllr for labels: three decimals, or ∞."""
    return f"{value:.3f}" if np.isfinite(value) else "∞"


def _system_curves(fig, name, colour, x, curves, label, hover_x, hover_y, *, drawn=None, columns=None, **rowcol):
    """The actual (solid, in the legend as `label`) and minimum (dashed) curves of one system.

    `curves` is ``[(kind, values), ...]``; only the first is shown in the legend, the shared line-style key
    explains the others. ``meta["label"]`` names each trace plainly (``"<system> <kind>"``) for data tables.
    `drawn` maps the values to what is plotted (e.g. zeros to gaps on a log axis); ``customdata`` keeps
    ``[P_target, 100 * value]`` of the true values, named by `columns` in ``meta`` for data tables.
    """
    styles = {"actual": ("solid", LINE_WIDTH), "minimum": ("dash", LINE_WIDTH - 0.5)}
    for i, (kind, values) in enumerate(curves):
        dash, width = styles[kind]
        fig.add_trace(
            go.Scatter(
                x=x, y=values if drawn is None else drawn(values), customdata=_plo_customdata(x, 100 * values),
                mode="lines",
                name=label if i == 0 else f"{name} {kind}", showlegend=i == 0, legendgroup=name,
                line=dict(color=colour, width=width, dash=dash),
                hovertemplate=f"<b>{name}</b> {kind}<br>{hover_x}{hover_y}<extra></extra>",
                meta=dict(system=name, kind=kind, label=f"{name} {kind}", **({"columns": columns} if columns else {})),
            ),
            **rowcol,
        )


def _line_key(fig, entries, **rowcol):
    """Legend entries (no data) explaining the line styles shared by all systems."""
    for text, dash, width in entries:
        fig.add_trace(legend_key(text, line=dict(color=REFERENCE_COLOUR, width=width, dash=dash)), **rowcol)


def _operating_point_line(fig, plo_eff, text, **rowcol):
    fig.add_vline(
        x=plo_eff, line=dict(color="#333333", width=1.6, dash="dashdot"), layer="below",
        annotation=dict(text=text, font=dict(size=15, color="#222222"), bgcolor="rgba(255,255,255,0.8)"),
        annotation_position="top right", **rowcol,
    )


# ----- APE -----------------------------------------------------------------------------------------------------


#: The choices of :func:`ape_figure`'s error-rate axis, the default first.
APE_Y_AXES = ("zoom", "full", "log")


def _positive_or_gap(values: np.ndarray) -> np.ndarray:
    """The values with zeros (and anything not positive) as gaps: a log axis has no place for them."""
    return np.where(values > 0, values, np.nan)


def _ape_error_axis(fig: go.Figure, y_axis: str, system_values: list[np.ndarray], default: np.ndarray) -> None:
    """The APE panel's error-rate axis: the full 0-50 %, zoomed on the systems' curves, or logarithmic."""
    values = np.concatenate(system_values) if system_values else np.zeros(1)
    values = values[np.isfinite(values)]
    peak = float(default.max())
    if y_axis == "log":
        positive = np.concatenate([values[values > 0], default[default > 0]])
        low = max(float(positive.min()) if positive.size else 1e-4, 1e-7)
        decades = 10.0 ** np.arange(np.floor(np.log10(low)), 1)
        fig.update_yaxes(type="log", range=[np.log10(low / 1.5), np.log10(max(0.6, 1.2 * peak))],
                         tickvals=decades, ticktext=[format_percent(v) for v in decades],
                         title_text="Bayes error rate (%, log scale)", row=1, col=1)
        if np.any(values <= 0):
            _panel_note(fig, "Gaps: a Bayes error of 0 has no place on a log axis")
        return
    top = 1.05 * peak
    if y_axis == "zoom":
        top = min(top, max(1.15 * float(values.max()) if values.size else 0.0, 0.005))
        if top < peak:
            _panel_note(fig, f"Zoomed on the systems: the no-system curve (dotted) peaks at {format_percent(peak)}, "
                             "above the axis")
    fig.update_yaxes(title_text="Bayes error rate (%)", tickformat=".3~%", range=[0, top], row=1, col=1)


def _panel_note(fig: go.Figure, text: str) -> None:
    """A note in the top left corner of the APE panel (where the curves, near 0 at low priors, leave room)."""
    fig.add_annotation(text=wrap_label(text, 34), xref="x domain", yref="y domain", x=0.01, y=0.99, xanchor="left",
                       yanchor="top", showarrow=False, align="left", font=dict(size=13, color=REFERENCE_COLOUR),
                       bgcolor="rgba(255,255,255,0.85)")


def ape_figure(systems, *, plo=None, y_axis: str = "zoom") -> go.Figure:
    """Applied-probability-of-error (APE) curves and Cllr bars (as in BOSARIS / FoCal).

    Left: Bayes error rate against the prior log-odds, per system the actual rate of the scores taken as LLRs
    (solid) and the minimum over monotone recalibrations (dashed, PAV), with the default ``min(P, 1-P)`` of
    deciding without the system (dotted). Right: one stacked bar per system, ``minCllr`` (what the scores can
    discriminate) plus the calibration loss ``Cllr - minCllr``, in bits; the bar's height is Cllr. The area under
    the actual curve over all priors is ``2 ln 2 Cllr``.

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials, or the CurveSet of :func:`llrcore.bayes_error_curves`
    plo : array_like, optional
        Prior log-odds grid; default :data:`DEFAULT_PLO`.
    y_axis : {"zoom", "full", "log"}
        The error-rate axis (:data:`APE_Y_AXES`). ``"zoom"`` (default) runs from 0 to a little above the highest
        system curve: a useful system errs a few percent at most, and on the full axis its curves lie flat in the
        bottom tenth; the axis stays linear, so areas still compare as Cllr does, and the no-system curve is drawn
        up to where it leaves the axis, with a note giving its peak. ``"full"`` runs to the no-system peak of
        50 % (for teaching: how far below "no system" the systems are). ``"log"`` shows both, but areas no
        longer read as Cllr; a Bayes error of 0 (separable scores at some priors) is left as a gap, with a note.
        The hover text and ``customdata`` keep the true rates in every case.
    """
    if y_axis not in APE_Y_AXES:
        raise ValueError(f"The APE error axis is one of {', '.join(map(repr, APE_Y_AXES))}, not {y_axis!r}.")
    curves = _curves(systems, plo)
    stacked = not _bars_fit_beside([c.name for c in curves.values()])
    # beside the curves, the bars' title has their panel's width: two lines
    titles = ("Bayes error rate", f"Cllr = minCllr{' ' if stacked else '<br>'}+ calibration loss")
    if stacked:
        fig = make_subplots(rows=2, cols=1, row_heights=[0.58, 0.42], vertical_spacing=0.2, subplot_titles=titles)
    else:
        fig = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.06,
                            subplot_titles=titles)
    grid = next(iter(curves.values())).rates.plo
    default = np.minimum(sigmoid(grid), sigmoid(-grid))
    fig.add_trace(_default_trace(grid, default, "dotted: no system, min(P, 1−P)"), row=1, col=1)
    drawn = _positive_or_gap if y_axis == "log" else None
    for position, curve in enumerate(curves.values()):
        _system_curves(fig, curve.name, system_colour(position), grid,
                       [("actual", curve.rates.actual), ("minimum", curve.rates.minimum)],
                       legend_label(curve.name, f"Cllr {_bits(curve.cllr)} bits"), _HOVER_X, _HOVER_RATE,
                       drawn=drawn, columns=["p_target", "errors_per_100"], row=1, col=1)
    _line_key(fig, [("solid: actual (scores as LLRs)", "solid", 2.5), ("dashed: minimum (PAV)", "dash", 2.5)],
              row=1, col=1)
    if stacked:
        top = _cllr_bars_across(fig, list(curves.values()))
    else:
        top = _cllr_bars(fig, list(curves.values()))
        # the Cllr axis on the right, in a margin grown to fit it: between the panels it overprinted the curves' frame
        fig.update_yaxes(title_text="Cllr (bits)", range=[0, top], side="right", automargin=True, row=1, col=2)
    style_figure(fig, "Applied probability of error (APE) and Cllr", height=560 + (60 + 34 * len(curves)) * stacked)
    if not stacked:  # room under the figure's title for the bars' two-line title
        fig.update_layout(margin_t=fig.layout.margin.t + TITLE_LINE)
    fig.update_layout(barmode="stack", bargap=0.35, hovermode="closest", legend_traceorder="grouped")
    fig.update_xaxes(title_text=_PLO_TITLE, row=1, col=1)
    _ape_error_axis(fig, y_axis, [v for c in curves.values() for v in (c.rates.actual, c.rates.minimum)], default)
    for subtitle in titles:
        fig.update_annotations(font_size=17, selector=dict(text=subtitle))
    return fig


#: Up to this many systems the Cllr bars may stand beside the APE curves; more lie across, under them, one a row,
#: where long names and their Cllr labels have the figure's width (six bars beside the curves overprinted both).
MAX_BARS_BESIDE = 4
#: About how many characters of the names (13 px) the bars beside the curves have room for, shared between them, in a
#: figure 600 px wide: the gallery's column (618 px in a 1280 px window) printed "raw scorescalibrated" at 30.
BESIDE_ROOM = 24
#: Pixels of a subplot title's line (17 px font).
TITLE_LINE = 22


def _bars_fit_beside(names: list[str]) -> bool:
    """Whether the Cllr bars of these systems fit beside the curves: at most :data:`MAX_BARS_BESIDE` of them, each
    name's words short enough for its share of :data:`BESIDE_ROOM` (names wrap at spaces only)."""
    room = BESIDE_ROOM // max(len(names), 1)
    return len(names) <= MAX_BARS_BESIDE and all(len(word) <= room for name in names for word in name.split())


def _cllr_bars(fig: go.Figure, curves: list) -> float:
    """The APE figure's right panel: per system a bar of minCllr topped by the calibration loss (its height is
    Cllr), the 1-bit line of no information; returns the top of its axis."""
    names, top = _add_cllr_bars(fig, curves, "v", row=1, col=2)
    fig.add_hline(y=1.0, line=dict(color=REFERENCE_COLOUR, width=1.5, dash="dot"), row=1, col=2,
                  annotation=dict(text="1 bit: no information", font=dict(size=13, color=REFERENCE_COLOUR)),
                  annotation_position="top left")
    # names on several lines, never turned on their side, each in its bar's share of the panel
    labels = [wrap_label(n, BESIDE_ROOM // len(names)) for n in names]
    fig.update_xaxes(tickvals=names, ticktext=labels, tickangle=0, tickfont=dict(size=13), row=1, col=2)
    return top


def _cllr_bars_across(fig: go.Figure, curves: list) -> float:
    """The Cllr bars of more than :data:`MAX_BARS_BESIDE` systems, under the curves: one a row from the top, the
    name on its left, its Cllr at its end, the 1-bit line of no information named above the panel."""
    names, top = _add_cllr_bars(fig, curves, "h", row=2, col=1)
    fig.add_vline(x=1.0, line=dict(color=REFERENCE_COLOUR, width=1.5, dash="dot"), row=2, col=1,
                  annotation=dict(text="1 bit: no information", font=dict(size=13, color=REFERENCE_COLOUR)),
                  annotation_position="top")
    fig.update_yaxes(tickvals=names, ticktext=[wrap_label(n, 40) for n in names], autorange="reversed",
                     tickfont=dict(size=13), row=2, col=1)
    fig.update_xaxes(title_text="Cllr (bits)", range=[0, top], row=2, col=1)
    return top


def _add_cllr_bars(fig: go.Figure, curves: list, orientation: str, *, row: int, col: int):
    """Per system a bar of minCllr topped by the calibration loss (its length is Cllr, written at its end), along
    `orientation` ("v" or "h"); returns the names and the end of the Cllr axis."""
    names = np.array([c.name for c in curves], dtype=object)
    cllr, minimum = np.array([c.cllr for c in curves]), np.array([c.min_cllr for c in curves])
    finite = cllr[np.isfinite(cllr)]
    top = max(1.1, 1.18 * float(finite.max()) if finite.size else 1.1)
    with np.errstate(invalid="ignore"):
        loss = cllr - minimum
        loss_percent = np.where(cllr > 0, 100 * loss / cllr, 0.0)
    # an infinite Cllr (an LLR of -inf for a target or +inf for a non-target) is drawn up to the top, marked ∞
    loss_drawn = np.where(np.isfinite(loss), loss, np.maximum(0.9 * top - minimum, 0.0))
    colours = [system_colour(i) for i in range(len(curves))]
    data = np.column_stack([cllr, minimum, loss, loss_percent])
    name_axis = "x" if orientation == "v" else "y"
    hover = (f"<b>%{{{name_axis}}}</b><br>Cllr = %{{customdata[0]:.3f}} bits<br>minCllr = %{{customdata[1]:.3f}} "
             "bits<br>calibration loss = %{customdata[2]:.3f} bits (%{customdata[3]:.0f} %)<extra></extra>")

    def along(values) -> dict:
        return dict(x=names, y=values) if orientation == "v" else dict(x=values, y=names)

    fig.add_trace(go.Bar(**along(minimum), orientation=orientation, name="minCllr (discrimination)",
                         marker=dict(color=colours, line=dict(width=0)), customdata=data, hovertemplate=hover,
                         legendgroup="bars", meta=dict(system=None, kind="min_cllr")), row=row, col=col)
    fig.add_trace(go.Bar(
        **along(loss_drawn), orientation=orientation, name="calibration loss",
        marker=dict(color=[with_alpha(c, 0.35) for c in colours], line=dict(color=colours, width=2),
                    # an explicit background: by default the pattern takes the per-bar colours, which plotly.js
                    # cannot use there ("Invalid color specifier" in the browser console)
                    pattern=dict(shape="/", fgcolor=colours, bgcolor="rgba(0,0,0,0)", size=10, solidity=0.25)),
        customdata=data, hovertemplate=hover, legendgroup="bars", text=[_bits(c) for c in cllr],
        textposition="outside", textfont=dict(size=15), textangle=0, cliponaxis=False,
        meta=dict(system=None, kind="calibration_loss"),
    ), row=row, col=col)
    return names, top


# ----- normalised Bayes error ----------------------------------------------------------------------------------


@old_spellings(OPERATING_POINT)
def normalised_bayes_error_figure(
    systems,
    *,
    plo=None,
    p_target: OperatingPoint | float | None = None,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
) -> go.Figure:
    """BOSARIS normalised Bayes error plot: actual and minimum Bayes error divided by the default.

    ``NBE(plo) = Pe(plo) / min(P, 1 - P)`` against the effective prior log-odds; at ``plo_eff`` this is the
    normalised DCF, so the curves read off actDCF (solid) and minDCF (dashed) at every operating point. Above the
    line at 1 the system does worse than deciding from the prior alone ("no system").

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials, or the CurveSet of :func:`llrcore.bayes_error_curves`
        (computed at the operating point; then the operating point is that of the curves)
    plo : array_like, optional
        Grid of effective prior log-odds; default :data:`DEFAULT_PLO`.
    p_target, c_miss, c_fa : OperatingPoint or float, optional
        The user's operating point (`p_target` may be an OperatingPoint, with its costs): a vertical line at its
        ``plo_eff = logit(P_target) + log(C_miss / C_fa)`` with each system's actDCF and minDCF marked (the costs
        only move this point: the curves are the same for every cost).
    """
    curves = _curves(systems, plo, operating_point_of(p_target, c_miss, c_fa))
    grid = next(iter(curves.values())).rates.plo
    op = next(iter(curves.values())).operating_point
    x_lo, x_hi = float(grid[0]), float(grid[-1])
    if op is not None and np.isfinite(op.plo_eff):
        x_lo, x_hi = min(x_lo, op.plo_eff - 0.5), max(x_hi, op.plo_eff + 0.5)
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=np.array([x_lo, x_hi]), y=np.array([1.0, 1.0]), mode="lines", name="dotted: no system (= 1)",
        line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dot"), hoverinfo="skip",
        meta=dict(system=None, kind="default", label="no system (default)"),
    ))
    hover_x = "logit P<sub>eff</sub> = %{x:.2f} (P<sub>eff</sub> = %{customdata[0]:.3g})<br>"
    for position, curve in enumerate(curves.values()):
        colour = system_colour(position)
        label = curve.name if op is None else legend_label(
            curve.name, f"actDCF {curve.act_dcf:.3f}, minDCF {curve.min_dcf:.3f}")
        _system_curves(fig, curve.name, colour, grid,
                       [("actual", curve.rates.normalised_actual), ("minimum", curve.rates.normalised_minimum)],
                       label, hover_x, "normalised error = %{y:.3f}")
        if op is not None:
            fig.add_trace(_dcf_markers(curve, colour))
    _line_key(fig, [("solid: actual (actDCF)", "solid", 2.5), ("dashed: minimum (minDCF)", "dash", 2.5)])
    if op is not None:
        _operating_point_line(fig, op.plo_eff, f"P<sub>target</sub> = {op.p_target:g}")
    style_figure(fig, "Normalised Bayes error (actual and minimum DCF at every prior)", height=560)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title_text="Effective prior log-odds logit(P<sub>eff</sub>)", range=[x_lo, x_hi])
    fig.update_yaxes(title_text="Normalised Bayes error (÷ default)", range=[0, 1.2], dtick=0.2)
    return fig


def _dcf_markers(curve, colour: str) -> go.Scatter:
    """A system's actDCF (star) and minDCF (diamond) at its operating point's effective prior log-odds."""
    op, values = curve.operating_point, np.array([curve.act_dcf, curve.min_dcf])
    return go.Scatter(
        x=np.array([op.plo_eff, op.plo_eff]), y=values, mode="markers", showlegend=False,
        name=f"{curve.name}: actDCF {values[0]:.3f}, minDCF {values[1]:.3f}", legendgroup=curve.name,
        customdata=np.array([["actDCF"], ["minDCF"]], dtype=object),
        marker=point_marker(colour, [17, 15], ["star", "diamond"]),
        hovertemplate=f"<b>{curve.name}</b><br>%{{customdata[0]}} = %{{y:.4f}}<br>{operating_point_text(op)}"
                      "<extra></extra>",
        meta=dict(system=curve.name, kind="operating_point"),
    )


# ----- Bayes error vs trapezium ----------------------------------------------------------------------------------


@old_spellings(OPERATING_POINT)
def bayes_error_trapezium_figure(
    systems, *, plo=None, p_target: OperatingPoint | float | None = None, log_scale: bool = True
) -> go.Figure:
    """The Bayes error rate against the prior with its trapezium bound ``min(P, 1 - P, EER)`` (Brümmer et al. 2021).

    As in the paper the prior is on a logit axis (``logit(P_target)`` below, ``P_target`` on top) and the error
    rate on a log axis ("out of a hundred trials, how many errors?"). Per system: the actual error rate of the
    scores taken as LLRs (solid), the minimum after optimal recalibration (dashed; it never exceeds the
    trapezium), and the trapezium itself (shaded, outlined); plus once the default ``min(P, 1 - P)``.

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials, or the CurveSet of :func:`llrcore.bayes_error_curves`
        (computed at the operating point; then the operating point is that of the curves)
    plo : array_like, optional
        Prior log-odds grid; default :data:`DEFAULT_PLO`.
    p_target : OperatingPoint or float, optional
        The user's prior: a vertical line at ``logit(P_target)`` with each
        system's actual and minimum error rate there marked (the figure counts errors, not costs: for the errors
        whose minimum are the decisions of unequal costs, pass ``op.p_eff``, the effective prior).
    log_scale : bool
        Logarithmic error-rate axis (the paper's choice; zeros are then not drawn).
    """
    curves = _curves(systems, plo, operating_point_of(p_target))
    grid = next(iter(curves.values())).rates.plo
    op = next(iter(curves.values())).operating_point
    default = np.minimum(sigmoid(grid), sigmoid(-grid))
    fig = go.Figure()
    fig.add_trace(_default_trace(grid, default, "dotted: prior alone, min(P, 1−P)"))
    for position, curve in enumerate(curves.values()):
        _trapezium_system(fig, curve, system_colour(position))
    fig.add_trace(legend_key("dash-dot, shaded: trapezium min(P, 1−P, EER)", mode="lines", fill="tozeroy",
                             fillcolor="rgba(85,85,85,0.15)", line=dict(color=REFERENCE_COLOUR, width=1.6,
                                                                        dash="dashdot")))
    _line_key(fig, [("solid: actual (scores as LLRs)", "solid", 2.5), ("dashed: minimum (PAV)", "dash", 2.5)])
    if op is not None and np.isfinite(op.plo):
        _operating_point_line(fig, op.plo, f"your prior P<sub>target</sub> = {op.p_target:g}")
    style_figure(fig, "Bayes error rate and its trapezium bound", height=640)
    _prior_axes(fig, grid)
    _trapezium_error_axis(fig, list(curves.values()), default, log_scale)
    return fig


def _trapezium_system(fig: go.Figure, curve, colour: str) -> None:
    """One system: its trapezium (shaded), its actual and minimum curves, and its errors at the user's prior."""
    name, eer = curve.name, curve.eer
    t_grid, trapezium = curve.trapezium_curve()
    fig.add_trace(go.Scatter(
        x=t_grid, y=trapezium, customdata=_plo_customdata(t_grid), mode="lines",
        name=f"{name} trapezium: min(P, 1−P, EER = {format_percent(eer)})", legendgroup=name, showlegend=False,
        line=dict(color=colour, width=1.6, dash="dashdot"), fill="tozeroy", fillcolor=with_alpha(colour, 0.10),
        hovertemplate=f"<b>{name}</b> trapezium bound<br>{_HOVER_X}min(P, 1−P, EER) = %{{y:.3~%}}<extra></extra>",
        meta=dict(system=name, kind="trapezium", eer=eer, label=f"{name} trapezium"),
    ))
    details, at = f"EER {format_percent(eer)}", curve.at_prior
    if at is not None:
        details += f"; {errors_phrase(100 * at.actual[0])} per 100 trials at P = {curve.operating_point.p_target:g}"
    _system_curves(fig, name, colour, curve.rates.plo, [("actual", curve.rates.actual),
                                                        ("minimum", curve.rates.minimum)],
                   legend_label(name, details), _HOVER_X, _HOVER_RATE)
    if at is not None:
        p_target, values = curve.operating_point.p_target, np.array([at.actual[0], at.minimum[0]])
        fig.add_trace(go.Scatter(
            x=np.array([at.plo[0], at.plo[0]]), y=values, mode="markers", showlegend=False,
            name=f"{name} at P = {p_target:g}: {errors_phrase(100 * values[0])} per 100 trials", legendgroup=name,
            customdata=np.array([["actual", 100 * values[0]], ["minimum", 100 * values[1]]], dtype=object),
            marker=point_marker(colour, [17, 15], ["star", "diamond"]),
            hovertemplate=f"<b>{name}</b> %{{customdata[0]}} at P<sub>target</sub> = {p_target:g}<br>"
                          "error rate = %{y:.3~%} (%{customdata[1]:.3g} errors per 100 trials)<extra></extra>",
            meta=dict(system=name, kind="operating_point"),
        ))


def _prior_axes(fig: go.Figure, grid: np.ndarray) -> None:
    """``logit(P_target)`` below and ``P_target`` on top of the trapezium figure, as in the paper."""
    x_range = [float(grid[0]), float(grid[-1])]
    ticks = _P_TICKS[(logit(_P_TICKS) >= x_range[0] - 1e-9) & (logit(_P_TICKS) <= x_range[1] + 1e-9)]
    fig.update_xaxes(title_text=_PLO_TITLE, range=x_range)
    fig.update_layout(
        hovermode="closest", margin=dict(t=115), title=dict(y=0.98, yanchor="top"),
        xaxis2=dict(overlaying="x", side="top", matches="x", range=x_range, showgrid=False, zeroline=False,
                    tickvals=logit(ticks), ticktext=[f"{p:g}" for p in ticks],
                    title=dict(text="P<sub>target</sub>", font=dict(size=16), standoff=4), tickfont=dict(size=14)),
    )
    # an invisible trace on the top axis so plotly draws it
    fig.add_trace(go.Scatter(x=np.array(x_range), y=np.array([np.nan, np.nan]), xaxis="x2", mode="lines",
                             showlegend=False, hoverinfo="skip", meta=dict(system=None, kind="axis")))


def _trapezium_error_axis(fig: go.Figure, curves: list, default: np.ndarray, log_scale: bool) -> None:
    """A log axis over every positive rate drawn (the paper's), or a linear one zoomed on the trapezia."""
    rates = [values for c in curves for values in (c.rates.actual, c.rates.minimum)]
    if log_scale:
        values = np.concatenate([default[default > 0]] + [v[v > 0] for v in rates])
        low = max(float(values.min()) / 2 if values.size else 1e-5, 1e-7)
        exponent_lo = int(np.floor(np.log10(low)))
        top = np.log10(min(max((float(values.max()) if values.size else 0.5) * 1.6, 0.6), 1.15))
        tick_values = 10.0 ** np.arange(exponent_lo, 1)
        fig.update_yaxes(type="log", range=[exponent_lo, top], title_text="Bayes error rate (%, log scale)",
                         tickvals=tick_values, ticktext=[format_percent(v) for v in tick_values])
        return
    # zoom on the trapezium: the default min(P, 1-P) rises to 50 % and would flatten everything else
    system_max = max(float(np.max(v)) for v in rates)
    top = min(0.55, max(2.5 * max(c.eer for c in curves), 1.15 * system_max, 0.01))
    fig.update_yaxes(title_text="Bayes error rate (%)", tickformat=".3~%", range=[0, top])


def _curves(systems, plo=None, op: OperatingPoint | float | None = None) -> CurveSet:
    """The Bayes error curves a figure draws: given, or computed from the systems at the operating point `op`."""
    if isinstance(systems, CurveSet):
        return systems
    return bayes_error_curves(systems, plo=plo, p_target=op)



def _default_trace(grid: np.ndarray, default: np.ndarray, name: str) -> go.Scatter:
    """The error rate of deciding from the prior alone, ``min(P, 1 - P)``, dotted."""
    return go.Scatter(
        x=grid, y=default, customdata=_plo_customdata(grid), mode="lines", name=name,
        line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dot"),
        hovertemplate=f"no system<br>{_HOVER_X}error rate = %{{y:.3~%}}<extra></extra>",
        meta=dict(system=None, kind="default", label="no system (default)"),
    )
