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

from ..metrics import act_dcf, bayes_error_rates, effective_plo, min_dcf
from ..rates import sigmoid
from ..data.trials import as_systems
from ._style import (
    LINE_WIDTH,
    REFERENCE_COLOUR,
    format_percent,
    legend_key,
    legend_label,
    style_figure,
    system_colour,
    with_alpha,
    wrap_label,
)

__all__ = ["ape_figure", "normalised_bayes_error_figure", "bayes_error_trapezium_figure", "DEFAULT_PLO",
           "APE_Y_AXES"]

#: The default grid of prior log-odds (P_target from 4.5e-5 to 1 - 4.5e-5).
DEFAULT_PLO = np.linspace(-10.0, 10.0, 201)
_PLO_TITLE = "Prior log-odds logit(P<sub>target</sub>)"
_HOVER_X = "logit P = %{x:.2f} (P<sub>target</sub> = %{customdata[0]:.3g})<br>"
_HOVER_RATE = "error rate = %{y:.3~%} (%{customdata[1]:.3g} errors per 100 trials)"
_P_TICKS = np.array([1e-3, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999])


def _grid(plo) -> np.ndarray:
    grid = DEFAULT_PLO if plo is None else np.atleast_1d(np.asarray(plo, dtype=np.float64))
    if grid.ndim != 1 or grid.size < 2 or not np.all(np.isfinite(grid)):
        raise ValueError("The prior log-odds must be at least two finite numbers.")
    return np.sort(grid)


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
    systems : Mapping[str, Trials] or Trials
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
    systems = as_systems(systems)
    grid = _grid(plo)
    wide = len(systems) >= 3  # more room for the bars and their names
    fig = make_subplots(
        rows=1, cols=2, column_widths=[0.62, 0.38] if wide else [0.7, 0.3], horizontal_spacing=0.1 if wide else 0.12,
        subplot_titles=("Bayes error rate", "Cllr = minCllr + calibration loss"),
    )
    drawn = _positive_or_gap if y_axis == "log" else None
    default = np.minimum(sigmoid(grid), sigmoid(-grid))
    fig.add_trace(
        go.Scatter(
            x=grid, y=default, customdata=_plo_customdata(grid), mode="lines", name="dotted: no system, min(P, 1−P)",
            line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dot"),
            hovertemplate=f"no system<br>{_HOVER_X}error rate = %{{y:.3~%}}<extra></extra>",
            meta=dict(system=None, kind="default", label="no system (default)"),
        ),
        row=1, col=1,
    )
    names, cllrs, min_cllrs, curves = [], [], [], []
    for position, (name, trials) in enumerate(systems.items()):
        rates = bayes_error_rates(trials, plo=grid)
        names.append(name)
        cllrs.append(trials.sorted.cllr())
        min_cllrs.append(trials.sorted.min_cllr())
        curves += [rates.actual, rates.minimum]
        _system_curves(
            fig, name, system_colour(position), grid, [("actual", rates.actual), ("minimum", rates.minimum)],
            legend_label(name, f"Cllr {_bits(cllrs[-1])} bits"), _HOVER_X, _HOVER_RATE, drawn=drawn,
            columns=["p_target", "errors_per_100"], row=1, col=1,
        )
    _line_key(fig, [("solid: actual (scores as LLRs)", "solid", 2.5), ("dashed: minimum (PAV)", "dash", 2.5)],
              row=1, col=1)

    names_arr = np.array(names, dtype=object)
    cllr_arr, min_arr = np.array(cllrs), np.array(min_cllrs)
    finite = cllr_arr[np.isfinite(cllr_arr)]
    top = max(1.1, 1.18 * float(finite.max()) if finite.size else 1.1)
    with np.errstate(invalid="ignore"):
        loss = cllr_arr - min_arr
        loss_pct = np.where(cllr_arr > 0, 100 * loss / cllr_arr, 0.0)
    # an infinite Cllr (an LLR of -inf for a target or +inf for a non-target) is drawn up to the top, marked ∞
    loss_drawn = np.where(np.isfinite(loss), loss, np.maximum(0.9 * top - min_arr, 0.0))
    colours = [system_colour(i) for i in range(len(names))]
    bar_data = np.column_stack([cllr_arr, min_arr, loss, loss_pct])
    bar_hover = (
        "<b>%{x}</b><br>Cllr = %{customdata[0]:.3f} bits<br>minCllr = %{customdata[1]:.3f} bits<br>"
        "calibration loss = %{customdata[2]:.3f} bits (%{customdata[3]:.0f} %)<extra></extra>"
    )
    fig.add_trace(
        go.Bar(
            x=names_arr, y=min_arr, name="minCllr (discrimination)", marker=dict(color=colours, line=dict(width=0)),
            customdata=bar_data, hovertemplate=bar_hover, legendgroup="bars", legendgrouptitle_text=None,
            meta=dict(system=None, kind="min_cllr"),
        ),
        row=1, col=2,
    )
    fig.add_trace(
        go.Bar(
            x=names_arr, y=loss_drawn, name="calibration loss",
            marker=dict(color=[with_alpha(c, 0.35) for c in colours], line=dict(color=colours, width=2),
                        # an explicit background: by default the pattern takes the per-bar colours, which
                        # plotly.js cannot use there ("Invalid color specifier" in the browser console)
                        pattern=dict(shape="/", fgcolor=colours, bgcolor="rgba(0,0,0,0)", size=10, solidity=0.25)),
            customdata=bar_data, hovertemplate=bar_hover, legendgroup="bars",
            text=[_bits(c) for c in cllr_arr],
            textposition="outside", textfont=dict(size=15), textangle=0, cliponaxis=False,
            meta=dict(system=None, kind="calibration_loss"),
        ),
        row=1, col=2,
    )
    fig.add_hline(
        y=1.0, line=dict(color=REFERENCE_COLOUR, width=1.5, dash="dot"), row=1, col=2,
        annotation=dict(text="1 bit: no information", font=dict(size=13, color=REFERENCE_COLOUR)),
        annotation_position="top left",
    )
    style_figure(fig, "Applied probability of error (APE) and Cllr", height=560)
    fig.update_layout(barmode="stack", bargap=0.35, hovermode="closest", legend_traceorder="grouped")
    fig.update_xaxes(title_text=_PLO_TITLE, row=1, col=1)
    _ape_error_axis(fig, y_axis, curves, default)
    # names on several lines, never turned on their side: about 30 characters a line shared by the bars
    labels = [wrap_label(n, max(6, 30 // len(names))) for n in names]
    fig.update_xaxes(tickvals=names_arr, ticktext=labels, tickangle=0, tickfont=dict(size=13 if wide else 15),
                     row=1, col=2)
    fig.update_yaxes(title_text="Cllr (bits)", range=[0, top], row=1, col=2)
    fig.update_annotations(font_size=17, selector=dict(text="Bayes error rate"))
    fig.update_annotations(font_size=17, selector=dict(text="Cllr = minCllr + calibration loss"))
    return fig


# ----- normalised Bayes error ----------------------------------------------------------------------------------


def normalised_bayes_error_figure(
    systems,
    *,
    plo=None,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    p_target: float | None = None,
) -> go.Figure:
    """BOSARIS normalised Bayes error plot: actual and minimum Bayes error divided by the default.

    ``NBE(plo) = Pe(plo) / min(P, 1 - P)`` against the effective prior log-odds; at ``plo_eff`` this is the
    normalised DCF, so the curves read off actDCF (solid) and minDCF (dashed) at every operating point. Above the
    line at 1 the system does worse than deciding from the prior alone ("no system").

    Parameters
    ----------
    systems : Mapping[str, Trials] or Trials
    plo : array_like, optional
        Grid of effective prior log-odds; default :data:`DEFAULT_PLO`.
    c_miss, c_fa, p_target : float, optional
        The user's operating point: when `p_target` is given, a vertical line at
        ``plo_eff = effective_plo(p_target, c_miss, c_fa)`` with each system's actDCF and minDCF marked (the costs
        only move this point: the curves are the same for every cost).
    """
    systems = as_systems(systems)
    grid = _grid(plo)
    plo_eff = None if p_target is None else float(effective_plo(p_target, c_miss, c_fa))
    fig = go.Figure()
    x_lo, x_hi = float(grid[0]), float(grid[-1])
    if plo_eff is not None and np.isfinite(plo_eff):
        x_lo, x_hi = min(x_lo, plo_eff - 0.5), max(x_hi, plo_eff + 0.5)
    fig.add_trace(
        go.Scatter(
            x=np.array([x_lo, x_hi]), y=np.array([1.0, 1.0]), mode="lines", name="dotted: no system (= 1)",
            line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dot"), hoverinfo="skip",
            meta=dict(system=None, kind="default", label="no system (default)"),
        )
    )
    hover_x = "logit P<sub>eff</sub> = %{x:.2f} (P<sub>eff</sub> = %{customdata[0]:.3g})<br>"
    for position, (name, trials) in enumerate(systems.items()):
        colour = system_colour(position)
        rates = bayes_error_rates(trials, plo=grid)
        label = name
        if plo_eff is not None:
            values = np.array(
                [act_dcf(trials, p_target=p_target, c_miss=c_miss, c_fa=c_fa),
                 min_dcf(trials, p_target=p_target, c_miss=c_miss, c_fa=c_fa)]
            )
            label = legend_label(name, f"actDCF {values[0]:.3f}, minDCF {values[1]:.3f}")
        _system_curves(
            fig, name, colour, grid,
            [("actual", rates.normalised_actual), ("minimum", rates.normalised_minimum)],
            label, hover_x, "normalised error = %{y:.3f}",
        )
        if plo_eff is not None:
            fig.add_trace(
                go.Scatter(
                    x=np.array([plo_eff, plo_eff]), y=values, mode="markers", showlegend=False,
                    name=f"{name}: actDCF {values[0]:.3f}, minDCF {values[1]:.3f}", legendgroup=name,
                    customdata=np.array([["actDCF"], ["minDCF"]], dtype=object),
                    marker=dict(symbol=["star", "diamond"], size=[17, 15], color=colour,
                                line=dict(color="white", width=1.5)),
                    hovertemplate=f"<b>{name}</b><br>%{{customdata[0]}} = %{{y:.4f}}<br>"
                    f"P<sub>target</sub> = {p_target:g}, C<sub>miss</sub> = {c_miss:g}, C<sub>fa</sub> = {c_fa:g}"
                    "<extra></extra>",
                    meta=dict(system=name, kind="operating_point"),
                )
            )
    _line_key(fig, [("solid: actual (actDCF)", "solid", 2.5), ("dashed: minimum (minDCF)", "dash", 2.5)])
    if plo_eff is not None:
        _operating_point_line(fig, plo_eff, f"P<sub>target</sub> = {p_target:g}")
    style_figure(fig, "Normalised Bayes error (actual and minimum DCF at every prior)", height=560)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title_text="Effective prior log-odds logit(P<sub>eff</sub>)", range=[x_lo, x_hi])
    fig.update_yaxes(title_text="Normalised Bayes error (÷ default)", range=[0, 1.2], dtick=0.2)
    return fig


# ----- Bayes error vs trapezium ----------------------------------------------------------------------------------


def _trapezium_grid(grid: np.ndarray, eer: float) -> np.ndarray:
    """The grid with the trapezium's corners ``logit(EER)`` and ``logit(1 - EER)`` added, so they are drawn sharp."""
    if 0 < eer < 0.5:
        corner = float(np.log(eer) - np.log1p(-eer))
        extra = np.array([corner, -corner])
        grid = np.union1d(grid, extra[(extra > grid[0]) & (extra < grid[-1])])
    return grid


def bayes_error_trapezium_figure(
    systems, *, plo=None, p_target: float | None = None, log_scale: bool = True
) -> go.Figure:
    """The Bayes error rate against the prior with its trapezium bound ``min(P, 1 - P, EER)`` (Brümmer et al. 2021).

    As in the paper the prior is on a logit axis (``logit(P_target)`` below, ``P_target`` on top) and the error
    rate on a log axis ("out of a hundred trials, how many errors?"). Per system: the actual error rate of the
    scores taken as LLRs (solid), the minimum after optimal recalibration (dashed; it never exceeds the
    trapezium), and the trapezium itself (shaded, outlined); plus once the default ``min(P, 1 - P)``.

    Parameters
    ----------
    systems : Mapping[str, Trials] or Trials
    plo : array_like, optional
        Prior log-odds grid; default :data:`DEFAULT_PLO`.
    p_target : float, optional
        The user's prior: a vertical line with each system's actual and minimum error rate marked.
    log_scale : bool
        Logarithmic error-rate axis (the paper's choice; zeros are then not drawn).
    """
    systems = as_systems(systems)
    grid = _grid(plo)
    fig = go.Figure()
    default = np.minimum(sigmoid(grid), sigmoid(-grid))
    hover_x = _HOVER_X
    fig.add_trace(
        go.Scatter(
            x=grid, y=default, customdata=_plo_customdata(grid), mode="lines",
            name="dotted: prior alone, min(P, 1−P)",
            line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dot"),
            hovertemplate=f"no system<br>{hover_x}error rate = %{{y:.3~%}}<extra></extra>",
            meta=dict(system=None, kind="default", label="no system (default)"),
        )
    )
    plo_user = None if p_target is None else float(effective_plo(p_target))
    positive = [default[default > 0]]
    system_max = 0.0  # the largest error rate of any system curve (for the linear axis)
    for position, (name, trials) in enumerate(systems.items()):
        colour = system_colour(position)
        rates = bayes_error_rates(trials, plo=grid)
        eer = rates.eer
        t_grid = _trapezium_grid(grid, eer)
        trapezium = np.minimum(np.minimum(sigmoid(t_grid), sigmoid(-t_grid)), eer)
        fig.add_trace(
            go.Scatter(
                x=t_grid, y=trapezium, customdata=_plo_customdata(t_grid), mode="lines",
                name=f"{name} trapezium: min(P, 1−P, EER = {format_percent(eer)})", legendgroup=name,
                showlegend=False,
                line=dict(color=colour, width=1.6, dash="dashdot"), fill="tozeroy",
                fillcolor=with_alpha(colour, 0.10),
                hovertemplate=f"<b>{name}</b> trapezium bound<br>{hover_x}"
                "min(P, 1−P, EER) = %{y:.3~%}<extra></extra>",
                meta=dict(system=name, kind="trapezium", eer=eer, label=f"{name} trapezium"),
            )
        )
        details = f"EER {format_percent(eer)}"
        at = None
        if plo_user is not None and np.isfinite(plo_user):
            at = bayes_error_rates(trials, plo=[plo_user])
            details += f"; {100 * at.actual[0]:.3g} errors / 100 at P = {p_target:g}"
        label = legend_label(name, details)
        _system_curves(
            fig, name, colour, grid, [("actual", rates.actual), ("minimum", rates.minimum)], label, hover_x,
            _HOVER_RATE,
        )
        for values in (rates.actual, rates.minimum):
            positive.append(values[values > 0])
            system_max = max(system_max, float(np.max(values)))
        if at is not None:
            values = np.array([at.actual[0], at.minimum[0]])
            fig.add_trace(
                go.Scatter(
                    x=np.array([plo_user, plo_user]), y=values, mode="markers", showlegend=False,
                    name=f"{name} at P = {p_target:g}: {100 * values[0]:.3g} errors per 100 trials",
                    legendgroup=name, customdata=np.array([["actual", 100 * values[0]], ["minimum", 100 * values[1]]],
                                                          dtype=object),
                    marker=dict(symbol=["star", "diamond"], size=[17, 15], color=colour,
                                line=dict(color="white", width=1.5)),
                    hovertemplate=f"<b>{name}</b> %{{customdata[0]}} at P<sub>target</sub> = {p_target:g}<br>"
                    "error rate = %{y:.3~%} (%{customdata[1]:.3g} errors per 100 trials)<extra></extra>",
                    meta=dict(system=name, kind="operating_point"),
                )
            )
    fig.add_trace(legend_key("dash-dot, shaded: trapezium min(P, 1−P, EER)", mode="lines", fill="tozeroy",
                             fillcolor="rgba(85,85,85,0.15)", line=dict(color=REFERENCE_COLOUR, width=1.6,
                                                                        dash="dashdot")))
    _line_key(fig, [("solid: actual (scores as LLRs)", "solid", 2.5), ("dashed: minimum (PAV)", "dash", 2.5)])
    if plo_user is not None and np.isfinite(plo_user):
        _operating_point_line(fig, plo_user, f"your prior P<sub>target</sub> = {p_target:g}")

    title = "Bayes error rate and its trapezium bound"
    style_figure(fig, title, height=640)
    x_range = [float(grid[0]), float(grid[-1])]
    p_ticks = _P_TICKS[(np.log(_P_TICKS) - np.log1p(-_P_TICKS) >= x_range[0] - 1e-9)
                       & (np.log(_P_TICKS) - np.log1p(-_P_TICKS) <= x_range[1] + 1e-9)]
    fig.update_xaxes(title_text=_PLO_TITLE, range=x_range)
    fig.update_layout(
        hovermode="closest",
        margin=dict(t=115),
        title=dict(y=0.98, yanchor="top"),
        xaxis2=dict(
            overlaying="x", side="top", matches="x", range=x_range, showgrid=False, zeroline=False,
            tickvals=np.log(p_ticks) - np.log1p(-p_ticks), ticktext=[f"{p:g}" for p in p_ticks],
            title=dict(text="P<sub>target</sub>", font=dict(size=16), standoff=4), tickfont=dict(size=14),
        ),
    )
    # an invisible trace on the top axis so plotly draws it
    fig.add_trace(
        go.Scatter(x=np.array(x_range), y=np.array([np.nan, np.nan]), xaxis="x2", mode="lines", showlegend=False,
                   hoverinfo="skip", meta=dict(system=None, kind="axis")),
    )
    values = np.concatenate(positive)
    if log_scale:
        low = max(float(values.min()) / 2 if values.size else 1e-5, 1e-7)
        exponent_lo = int(np.floor(np.log10(low)))
        high = float(values.max()) if values.size else 0.5
        top = np.log10(min(max(high * 1.6, 0.6), 1.15))
        tick_values = 10.0 ** np.arange(exponent_lo, 1)
        fig.update_yaxes(
            type="log", range=[exponent_lo, top], title_text="Bayes error rate (%, log scale)",
            tickvals=tick_values, ticktext=[format_percent(v) for v in tick_values],
        )
    else:
        # zoom on the trapezium: the default min(P, 1-P) rises to 50 % and would flatten everything else
        max_eer = max(float(t.meta["eer"]) for t in fig.data if isinstance(t.meta, dict) and "eer" in t.meta)
        top = min(0.55, max(2.5 * max_eer, 1.15 * system_max, 0.01))
        fig.update_yaxes(title_text="Bayes error rate (%)", tickformat=".3~%", range=[0, top])
    return fig
