"""Figures of calibrated Gaussian LLRs: the two densities, the straight DET line, Cllr against EER.

- :func:`gaussian_llr_figure` — the target and non-target LLR densities ``N(+-mu, 2 mu)``, with "the LLR of the LLR
  is the LLR" shown at a chosen LLR (the ratio of the two densities there is ``e^llr``); optionally a system's
  CMLG-calibrated LLR histograms over the ideal with the same mu.
- :func:`gaussian_det_figure` — the DET of calibrated Gaussian LLRs, a straight line at 45 degrees; optionally a
  system's DET against the ideal lines.
- :func:`cllr_eer_figure` — the exact Cllr of calibrated Gaussian LLRs against their EER, with the approximation
  ``1 - (2 EER - 1)^2``; optionally a system's Cllr at its EER.

Reference: D. A. van Leeuwen and N. Brümmer, "The distribution of calibrated likelihood-ratios in speaker
recognition", Interspeech 2013.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from scipy.special import ndtr

from ..teaching.gaussian import (
    CllrEerCurve,
    GaussianComparison,
    GaussianDensities,
    cllr_eer_curve,
    dprime_from_mu,
    eer_from_mu,
    gaussian_cllr,
    gaussian_densities,
    mu_from_eer,
)
from ._style import (
    CLASS_COLOURS,
    LINE_WIDTH,
    PALETTE,
    REFERENCE_COLOUR,
    format_percent,
    point_marker,
    style_figure,
    with_alpha,
    wrap_label,
)
from ._units import llr_factor, llr_unit, rescale_llr_axes
from .decisions import two_line_title
from .det import _ticks, _upper_limit, det_figure, probit

__all__ = ["gaussian_llr_figure", "gaussian_det_figure", "cllr_eer_figure"]

_IDEAL_COLOUR = "#111111"
_REFERENCE_EERS = (0.001, 0.01, 0.05, 0.1, 0.2, 0.4)
_COINCIDE = 0.05  # a Cllr within 5 % (or 0.01 bit) of the minCllr sits on the same point of the plot


def _mu_text(mu: float) -> str:
    return f"μ = {mu:.3g}"


def gaussian_llr_figure(mu: float | GaussianDensities | None = None, *, llr: float | None = None,
                        comparison: GaussianComparison | None = None, bins: int = 60,
                        log_density: bool = False, units: str = "ln") -> go.Figure:
    """The LLR densities of calibrated Gaussian LLRs: targets ``N(+mu, 2 mu)``, non-targets ``N(-mu, 2 mu)``.

    Parameters
    ----------
    mu : float or GaussianDensities, optional
        Positive; default the fitted mu of `comparison`. Or the densities computed already by
        :func:`~llrcore.teaching.gaussian.gaussian_densities` (then `llr`, `comparison` and `bins` are theirs).
    llr : float, optional
        Mark this LLR: both densities there, and their ratio, which equals ``e^llr`` ("the LLR of the LLR is the
        LLR": a density ratio of 7.39 at LLR 2).
    comparison : GaussianComparison, optional
        A system's CMLG-calibrated LLRs, drawn as per-class histograms (each class sums to 1) over the ideal
        densities with the same mu.
    bins : int
        Histogram bins over the plotted range.
    log_density : bool
        Logarithmic density axis (the densities become parabolas; their gap at ``l`` is ``l`` natural-log units).
    units : {"ln", "log10"}
        The LLR axis and the marked LLR in natural log or in ``log10 LR`` (densities then per log10 unit); mu and the
        densities' parameters stay natural-log.
    """
    densities = mu if isinstance(mu, GaussianDensities) else gaussian_densities(mu, llr=llr, comparison=comparison,
                                                                                 bins=bins)
    fig = go.Figure()
    if densities.comparison is not None:
        _data_histograms(fig, densities)
    _ideal_densities(fig, densities, units)
    if densities.marked is not None:
        _marked_llr(fig, densities, units)
    _density_axes(fig, densities, log_density, units)
    return rescale_llr_axes(fig, units, density_axis="y")


def _data_histograms(fig: go.Figure, densities: GaussianDensities) -> None:
    """The system's CMLG LLRs, one filled step histogram per class."""
    comparison, edges = densities.comparison, densities.edges
    assert comparison is not None and edges is not None  # (drawn for a comparison, which has its histograms)
    name = comparison.name
    for label, density in densities.data_density.items():
        fig.add_trace(go.Scatter(
            x=edges, y=np.concatenate([density, density[-1:]]), mode="lines",
            line=dict(color=CLASS_COLOURS[label], width=2.2, shape="hv"), fill="tozeroy",
            fillcolor=with_alpha(CLASS_COLOURS[label], 0.18), name=f"{label} LLRs of {name or 'the data'} (CMLG)",
            hovertemplate=f"{label} LLRs from %{{x:.3g}}<br>density %{{y:.3g}}<extra></extra>",
            meta=dict(system=name, kind=f"data_{label.replace('-', '_')}"),
        ))


def _ideal_densities(fig: go.Figure, densities: GaussianDensities, units: str = "ln") -> None:
    """The two ideal densities: filled alone, dashed over a system's histograms."""
    mu, over_data = densities.mu, densities.comparison is not None
    for label, sign, density in (("target", "+", densities.target), ("non-target", "−", densities.non_target)):
        fig.add_trace(go.Scatter(
            x=densities.llr, y=density, mode="lines",
            line=dict(color=CLASS_COLOURS[label], width=LINE_WIDTH + 0.5, dash="dash" if over_data else "solid"),
            fill=None if over_data else "tozeroy", fillcolor=with_alpha(CLASS_COLOURS[label], 0.15),
            name=f"{'ideal ' if over_data else ''}{label} LLRs: N({sign}{mu:.3g}, {2 * mu:.3g})"
                 + (" in ln" if units == "log10" else ""),
            hovertemplate=f"{label} density at LLR %{{x:.3g}}: %{{y:.4g}}<extra></extra>",
            meta=dict(system=None, kind=f"ideal_{label.replace('-', '_')}"),
        ))


def _marked_llr(fig: go.Figure, densities: GaussianDensities, units: str = "ln") -> None:
    """The two densities at the marked LLR and a note dividing one by the other (the ratio is the LR, whatever
    the units: ``e^llr = 10^(llr / ln 10)``)."""
    llr, (f_tar, f_non) = densities.marked, densities.marked_densities
    assert llr is not None  # (drawn for a marked LLR)
    shown, base = f"{llr * llr_factor(units):.2f}", "e" if units == "ln" else "10"
    word = "LLR" if units == "ln" else llr_unit(units)
    f_tar, f_non = f_tar / llr_factor(units), f_non / llr_factor(units)  # per unit of the axis, as drawn
    fig.add_vline(x=llr, line=dict(color=_IDEAL_COLOUR, width=1.8, dash="dot"))
    fig.add_trace(go.Scatter(
        x=np.array([llr, llr]), y=np.array([f_tar, f_non]), mode="markers", showlegend=False,
        marker=dict(size=14, color=[CLASS_COLOURS["target"], CLASS_COLOURS["non-target"]],
                    line=dict(color="white", width=2)),
        customdata=np.array(["target", "non-target"], dtype=object),
        hovertemplate="%{customdata} density at " + f"{word} {shown}: " + "%{y:.4g}<extra></extra>",
        meta=dict(system=None, kind="llr_marker"),
    ))
    # in the top corner on the other side of 0, where only a far tail runs (the curves peak at +-mu)
    fig.add_annotation(
        x=0.01 if llr >= 0 else 0.99, xref="paper", y=0.98, yref="paper", yanchor="top",
        xanchor="left" if llr >= 0 else "right", showarrow=False, align="left",
        bgcolor="rgba(255,255,255,0.9)", bordercolor="#999999", borderwidth=1, font=dict(size=16),
        text=(f"<b>at {word} = {shown}</b><br>target density {f_tar:.4g}<br>÷ non-target density "
              f"{f_non:.4g}<br>= <b>{densities.marked_ratio:.4g}</b> = {base}<sup>{shown}</sup>"),
    )


def _density_axes(fig: go.Figure, densities: GaussianDensities, log_density: bool, units: str = "ln") -> None:
    mu, comparison = densities.mu, densities.comparison
    title = two_line_title("Calibrated Gaussian LLRs", f"{_mu_text(mu)}, variance 2μ = {2 * mu:.3g}, EER "
                           f"{format_percent(eer_from_mu(mu))}")
    if comparison is not None:
        title = two_line_title(f"{comparison.name or 'Data'} after CMLG",
                               f"against the ideal with the same μ = {mu:.3g}")
    style_figure(fig, title, height=540)
    fig.update_xaxes(title_text=f"LLR ({llr_unit(units)})", range=[densities.llr[0], densities.llr[-1]])
    if log_density:
        fig.update_yaxes(type="log", title_text="density (log scale)", exponentformat="power")
    else:
        fig.update_yaxes(title_text="density", rangemode="tozero")
    fig.update_layout(hovermode="closest")


# ----- DET ------------------------------------------------------------------------------------------------------


def _line(fig, mu: float, x_range, *, name: str, colour: str, width: float, dash: str = "solid", kind: str,
          showlegend: bool = True, hover: bool = True) -> None:
    """The straight DET of calibrated Gaussian LLRs, ``probit(Pmiss) = -probit(Pfa) - sqrt(2 mu)``, across the
    x range (a few hundred points, so hovering anywhere gives the rates)."""
    # a straight line needs two points; the hoverable ones get a few hundred so every point of them answers
    x = np.linspace(x_range[0] - 1, x_range[1] + 1, 241 if hover else 2)
    y = -x - dprime_from_mu(mu)
    pfa, pmiss = ndtr(x), ndtr(y)
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="lines", name=name, line=dict(color=colour, width=width, dash=dash), showlegend=showlegend,
        customdata=np.column_stack([pfa, pmiss]),
        hovertemplate=(f"{name}<br>false alarms %{{customdata[0]:.3~%}}<br>misses %{{customdata[1]:.3~%}}"
                       "<extra></extra>") if hover else None,
        hoverinfo=None if hover else "skip",
        meta=dict(system=None, kind=kind, mu=mu, columns=["false_alarm_rate", "miss_rate"]),
    ))


def _det_axes(fig: go.Figure, lo: float, hi: float, title: str) -> None:
    """Square probit axes from `lo` to `hi` labelled in %, with the diagonal ``Pmiss = Pfa`` (as in det_figure)."""
    ticks, labels = _ticks(lo, hi)
    y_ticks, y_labels = _ticks(lo, hi, char_width=0.0, padding=0.05)
    axis = [float(probit(lo)), float(probit(hi))]
    fig.add_shape(type="line", x0=axis[0], y0=axis[0], x1=axis[1], y1=axis[1], layer="below",
                  line=dict(color=REFERENCE_COLOUR, width=1.2, dash="dash"))
    style_figure(fig, title, height=620)
    fig.update_xaxes(title_text="False-alarm rate (%)", range=axis, tickvals=ticks, ticktext=labels,
                     constrain="domain", tickangle=0)
    fig.update_yaxes(title_text="Miss rate (%)", range=axis, tickvals=y_ticks, ticktext=y_labels, scaleanchor="x",
                     scaleratio=1, constrain="domain", tickangle=0)
    fig.update_layout(hovermode="closest")


def _eer_marker(fig, eer: float, name: str, colour: str) -> None:
    fig.add_trace(go.Scatter(
        x=np.array([probit(eer)]), y=np.array([probit(eer)]), mode="markers", name=name, showlegend=False,
        marker=point_marker(colour, 14, "circle"),
        hovertemplate=f"{name}: EER {format_percent(eer)}<extra></extra>", meta=dict(system=None, kind="eer"),
    ))


def gaussian_det_figure(mu: float | None = None, *, comparison: GaussianComparison | None = None,
                        references=_REFERENCE_EERS) -> go.Figure:
    """The DET of calibrated Gaussian LLRs: a straight line of slope -1 on probit axes through the EER.

    ``probit(Pmiss) = -probit(Pfa) - d'`` with ``d' = sqrt(2 mu)``. Without a comparison, faint lines of the same
    family at the EERs in `references` show that every calibrated Gaussian system has a parallel DET.

    With `comparison`, the system's DET (ROC convex hull, from :func:`~llrcore.plots.det_figure`) is drawn against
    two ideal lines: the one with the fitted mu (the ideal of the LLR histograms) and the one through the data's
    own EER (where a calibrated Gaussian system of the same EER would lie).
    """
    if comparison is not None:
        name = comparison.name or "data"
        fig = det_figure({name: comparison.calibrated})
        x_range = list(fig.layout.xaxis.range)
        _line(fig, comparison.mu, x_range, name=f"ideal with the fitted {_mu_text(comparison.mu)} "
              f"(EER {format_percent(comparison.gaussian_eer)})", colour=_IDEAL_COLOUR, width=2.5, kind="ideal")
        if comparison.eer > 0:
            _line(fig, mu_from_eer(comparison.eer), x_range, name="ideal with the data's EER "
                  f"({format_percent(comparison.eer)})", colour=PALETTE[3], width=2.5, dash="dash",
                  kind="ideal_same_eer")
        fig.update_layout(title_text=two_line_title(f"DET of {name}", "against calibrated Gaussian lines at 45°"))
        return fig
    if mu is None or not mu > 0:
        raise ValueError("Give a positive mu, or a comparison.")
    eer = eer_from_mu(mu)
    lo = 1e-4 if eer >= 5e-3 else 1e-6
    hi = _upper_limit(eer)
    fig = go.Figure()
    x_range = [float(probit(lo)), float(probit(hi))]
    for reference in (r for r in references if not 0.8 < r / eer < 1.25):  # not on top of the system's line
        _line(fig, mu_from_eer(reference), x_range, name=f"EER {format_percent(reference)}",
              colour=with_alpha(REFERENCE_COLOUR, 0.35), width=1.3, kind="reference", showlegend=False,
              hover=False)
        if lo < reference < hi:
            fig.add_annotation(x=float(probit(reference)), y=float(probit(reference)), text=format_percent(reference),
                               showarrow=False, font=dict(size=12, color=REFERENCE_COLOUR), xshift=14, yshift=10)
    _line(fig, mu, x_range, name=f"calibrated Gaussian LLRs, {_mu_text(mu)}, d' = {dprime_from_mu(mu):.3g}",
          colour=PALETTE[0], width=LINE_WIDTH + 0.5, kind="ideal")
    _eer_marker(fig, eer, f"EER {format_percent(eer)}", PALETTE[0])
    _det_axes(fig, lo, hi, two_line_title("DET of calibrated Gaussian LLRs", f"a straight line at 45°, EER "
                                   f"{format_percent(eer)}"))
    return fig


# ----- Cllr against EER ------------------------------------------------------------------------------------------


def cllr_eer_figure(eer: float | CllrEerCurve | None = None, *, comparison: GaussianComparison | None = None,
                    log_axes: bool = False) -> go.Figure:
    """Cllr of calibrated Gaussian LLRs against their EER: exact (quadrature) and ``1 - (2 EER - 1)^2``.

    Parameters
    ----------
    eer : float or CllrEerCurve, optional
        Mark this EER on both curves, with their values. Or the curve computed already by
        :func:`~llrcore.teaching.gaussian.cllr_eer_curve` (then `comparison` is its own).
    comparison : GaussianComparison, optional
        Mark a system at its EER: its Cllr after CMLG (star) and its minCllr (diamond); the ideal at that EER is
        on the curve.
    log_axes : bool
        Logarithmic EER and Cllr axes, for systems with an EER of a few percent or less (on linear axes they sit in
        the corner).
    """
    curve = eer if isinstance(eer, CllrEerCurve) else cllr_eer_curve(eer, comparison=comparison)
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=100 * curve.eer, y=curve.cllr, mode="lines", name="exact (quadrature)",
        line=dict(color=PALETTE[0], width=LINE_WIDTH),
        hovertemplate="EER %{x:.3~g} %<br>Cllr %{y:.4f} bits<extra></extra>",
        meta=dict(system=None, kind="exact", label="exact"),
    ))
    fig.add_trace(go.Scatter(
        x=100 * curve.eer, y=curve.approximation, mode="lines", name="approximation 1 − (2·EER − 1)² (off by ≤ "
        f"{curve.max_error:.3f} bits for EER 1–49 %)",
        line=dict(color=PALETTE[1], width=LINE_WIDTH - 0.5, dash="dash"),
        fill="tonexty", fillcolor=with_alpha(PALETTE[1], 0.15),
        hovertemplate="EER %{x:.3~g} %<br>approximation %{y:.4f} bits<extra></extra>",
        meta=dict(system=None, kind="approximation", label="approximation"),
    ))
    if curve.marked is not None:
        _marked_eer(fig, curve)
    if curve.comparison is not None:
        _system_at_its_eer(fig, curve.comparison)
    style_figure(fig, two_line_title("Cllr against EER", "of calibrated Gaussian LLRs: it depends on the EER alone"),
                 height=560)
    _cllr_eer_axes(fig, curve, log_axes)
    fig.update_layout(hovermode="closest", legend_traceorder="normal")
    return fig


def _marked_eer(fig: go.Figure, curve: CllrEerCurve) -> None:
    """The exact and approximate Cllr at the marked EER, with a note giving both."""
    eer, (value, guess) = curve.marked, curve.marked_values
    assert eer is not None  # (drawn for a marked EER)
    fig.add_vline(x=100 * eer, line=dict(color="#333333", width=1.5, dash="dot"))
    fig.add_trace(go.Scatter(
        x=np.array([100 * eer, 100 * eer]), y=np.array([value, guess]), mode="markers", showlegend=False,
        marker=point_marker([PALETTE[0], PALETTE[1]], 13),
        hovertemplate="EER %{x:.3~g} %: %{y:.4f} bits<extra></extra>", meta=dict(system=None, kind="marker"),
    ))
    # bottom right, under the rising curve, where nothing else is drawn on either kind of axes
    fig.add_annotation(
        x=0.98, y=0.04, xref="paper", yref="paper", xanchor="right", yanchor="bottom", showarrow=False,
        align="left", bgcolor="rgba(255,255,255,0.9)", bordercolor="#999999", borderwidth=1, font=dict(size=16),
        text=f"EER {format_percent(eer)}<br>Cllr <b>{value:.4f}</b> bits<br>approx. {guess:.4f} "
             f"({guess - value:+.4f})",
    )


def _system_at_its_eer(fig: go.Figure, comparison: GaussianComparison) -> None:
    """A system's Cllr after CMLG (star) and minCllr (diamond) at its EER.

    The two are often a few thousandths of a bit apart, one point on the plot: the diamond is drawn first, open and
    larger, the star filled on top of it, so both show however close they are (a star inside a diamond), and the
    star's legend entry says so when they coincide."""
    name = comparison.name or "data"
    close = abs(comparison.cllr - comparison.min_cllr) <= max(_COINCIDE * comparison.min_cllr, 0.01)
    for value, label, symbol, marker, rank, note in (
            (comparison.min_cllr, "minCllr (PAV)", "diamond",
             dict(symbol="diamond-open", size=24, color=PALETTE[3], line=dict(color=PALETTE[3], width=3)), 1002, ""),
            (comparison.cllr, "Cllr after CMLG", "star", point_marker(PALETTE[3], 16, "star"), 1001,
             ", inside the diamond" if close else "")):
        fig.add_trace(go.Scatter(
            x=np.array([100 * comparison.eer]), y=np.array([value]), mode="markers",
            name=wrap_label(f"{name}: {label} {value:.3f} bits{note}", 48), marker=marker, legendrank=rank,
            hovertemplate=f"{name}<br>EER %{{x:.3~g}} %<br>{label} %{{y:.4f}} bits<extra></extra>",
            meta=dict(system=name, kind=symbol),
        ))


def _cllr_eer_axes(fig: go.Figure, curve: CllrEerCurve, log_axes: bool) -> None:
    """Linear axes (EER 0-50 %, Cllr 0-1 bit) or log axes from below the smallest EER and Cllr shown."""
    if not log_axes:
        fig.update_xaxes(title_text="EER (%)", range=[0, 50])
        fig.update_yaxes(title_text="Cllr (bits)", range=[0, 1.02])
        return
    comparison = curve.comparison
    shown = [e for e in (curve.marked, comparison.eer if comparison is not None else None) if e]
    low = max(min([1e-4, *shown]) / 3, 1e-5)  # as a fraction
    values = [float(gaussian_cllr(mu_from_eer(low)))]
    if comparison is not None:
        values += [comparison.min_cllr, comparison.cllr]
    bottom = min(v for v in values if v > 0) / 2
    fig.update_xaxes(type="log", title_text="EER (%, log scale)", range=[np.log10(100 * low), np.log10(50)],
                     dtick=1, tickformat="~g")
    fig.update_yaxes(type="log", title_text="Cllr (bits, log scale)", range=[np.log10(bottom), 0.02], dtick=1,
                     tickformat="~g")
