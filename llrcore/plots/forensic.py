"""Forensic validation figures: Tippett plots and ECE plots, for one system or several.

- :func:`tippett_figure` — per system, the proportion of same-source (solid) and different-source (dashed) LLRs at or
  above each value on one ``log10 LR`` axis (``units="ln"``: natural log), a vertical line at LR = 1 and the rates
  of misleading evidence marked there and stated in the legend (:func:`llrcore.forensic.tippett`).
- :func:`ece_figure` — empirical cross-entropy in bits against the prior log10-odds (``units="ln"``: natural-log
  odds): per system its LLRs (solid) and their PAV-calibrated version (dashed), once the neutral reference LR = 1
  (dotted); a vertical line at 0, where ECE is Cllr (:func:`llrcore.forensic.ece_curve`).

References
----------
D. Meuwly and A. Drygajlo, "Forensic speaker recognition based on a Bayesian framework and Gaussian mixture
modelling", Odyssey 2001 (Tippett plots in forensic voice comparison).
D. Ramos and J. González-Rodríguez, "Reliable support: measuring calibration of likelihood ratios", Forensic Science
International 230 (2013) 156-169 (the ECE plot).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from .._deprecation import old_spellings
from ..data.trials import as_systems
from ..forensic.ece import ECECurve, ece_curve
from ..forensic.tippett import Tippett, tippett
from ..forensic.units import from_log10
from ..binary.histograms import FENCE, histogram_range
from .._format import bits
from ._style import LINE_WIDTH, REFERENCE_COLOUR, decimate_curve, format_percent, legend_key, legend_label
from ._style import point_marker, style_figure, system_colour
from ._units import llr_unit, rescale_llr_axes

__all__ = ["ece_figure", "tippett_figure"]

LOG10_LR_TITLE = "log10 LR"
PRIOR_TITLE = "Prior log10-odds, log10(P(H1) / P(H2))"
#: The prior axis of an ECE plot in natural log (units="ln").
PRIOR_LN_TITLE = "Prior log-odds, ln(P(H1) / P(H2))"
ECE_TITLE = "ECE (bits)"
#: The ECE axis starts this fraction of its top below 0, so that a curve at 0 is not drawn on the axis line; a
#: curve that stays below :data:`_FLAT` of the top lies along 0.
_BELOW_ZERO, _FLAT = 0.04, 0.03


def _results(systems, kind, compute) -> dict:
    """``{name: result}``: results of `kind` as given (one, a mapping or a list), or computed from the systems."""
    if isinstance(systems, kind):
        return {systems.name or "system": systems}
    if isinstance(systems, Mapping) and systems and all(isinstance(v, kind) for v in systems.values()):
        return {str(name): result for name, result in systems.items()}
    if isinstance(systems, (list, tuple)) and systems and all(isinstance(v, kind) for v in systems):
        return {result.name or f"system {i + 1}": result for i, result in enumerate(systems)}
    return {name: compute(trials, name) for name, trials in as_systems(systems).items()}


def _class_curve(result: Tippett, proportions: np.ndarray, x_edges: tuple[float, float]):
    """The step curve "proportion at or above x" of one class, as the corners of its staircase, decimated.

    The proportion at or above ``x`` includes the LLRs equal to ``x``, so the curve drops just after each LLR of the
    class: at ``x = u`` it runs down from the proportion at or above ``u`` to the one above it. Infinite LLRs are
    drawn at the axis edges."""
    after = np.append(proportions[1:], 0.0)
    drops = np.flatnonzero(proportions > after)  # the class's own LLRs
    x = np.repeat(np.clip(result.log10_lr[drops], *x_edges), 2)
    y = np.column_stack([proportions[drops], after[drops]]).ravel()
    return decimate_curve(np.concatenate([[x_edges[0]], x, [x_edges[1]]]), np.concatenate([[1.0], y, [0.0]]), 3000)


def _x_edges(results) -> tuple[float, float]:
    """The Tippett plot's x range: the finite log10 LRs and 0, with a margin; LRs more than
    :data:`~llrcore.binary.histograms.FENCE` interquartile ranges beyond the quartiles are left out of it
    (:func:`~llrcore.binary.histograms.histogram_range` with no tails trimmed: its fence alone), so that an LLR of +-1e308
    among ordinary ones does not stretch the axis to +-1e307 with every other LR at 0."""
    classes = [np.sort(r.log10_lr[np.isfinite(r.log10_lr)]) for r in results] + [np.zeros(1)]
    lo, hi = histogram_range(classes, tail=0.0)
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    span = max(hi - lo, 1.0)
    return lo - 0.05 * span, hi + 0.05 * span


def _beyond(results, edges: tuple[float, float]) -> tuple[int, int]:
    """How many LRs of all `results` lie left and right of the x range `edges` (infinite ones included: all are
    drawn at the axis edges)."""
    left = right = 0
    for r in results:
        counts = r.same_source * r.n_tar + r.different_source * r.n_non  # LRs at or above each distinct value
        x = r.log10_lr
        first_in, first_right = np.searchsorted(x, edges[0]), np.searchsorted(x, edges[1], side="right")
        total = r.n_tar + r.n_non
        left += total - (round(counts[first_in]) if first_in < x.size else 0)
        right += round(counts[first_right]) if first_right < x.size else 0
    return int(left), int(right)


def _note_beyond(fig: go.Figure, left: int, right: int) -> None:
    """Arrows at the axis ends saying how many LRs lie beyond them (their curves end at the edge): bottom left and top
    right, the corners the curves leave free (every proportion is near 1 at the left end and near 0 at the right)."""
    for count, x, y, arrow, anchor in ((left, 0.0, 0.04, "←", "left"), (right, 1.0, 0.96, "→", "right")):
        if count:
            text = f"{count:,} LR{'s' * (count > 1)} beyond the axis"
            fig.add_annotation(
                text=f"{arrow} {text}" if anchor == "left" else f"{text} {arrow}", xref="paper", yref="paper",
                x=x, y=y, xanchor=anchor, yanchor="bottom" if anchor == "left" else "top", showarrow=False,
                font=dict(size=14, color="#222222"), bgcolor="rgba(255,255,255,0.85)", name="beyond the axis")


def tippett_figure(systems, *, units: str = "log10") -> go.Figure:
    """Tippett plot of one or several systems, with the rates of misleading evidence.

    Per system (its colour): the proportion of same-source LLRs at or above each ``log10 LR`` (solid) and of
    different-source LLRs (dashed). The vertical line at 0 is LR = 1; the markers on it are ``1 - RMEP`` on the
    same-source curve (the same-source LRs of at least 1) and RMED on the different-source one, where
    ``RMEP = #{same source: LR < 1} / N`` and ``RMED = #{different source: LR > 1} / N`` are the rates of misleading
    evidence, also stated in each legend entry. LLRs of ``+-inf`` are drawn at the axis edges.

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials, a sequence of Trials, or :class:`~llrcore.forensic.Tippett` result(s)
    units : {"log10", "ln"}
        The x axis in ``log10 LR`` (the default, as forensic reports write LRs) or in natural-log LLRs (``ln LR``).
    """
    unit = llr_unit(units)
    results = _results(systems, Tippett, lambda trials, name: tippett(trials, name=name))
    edges = _x_edges(results.values())
    fig = go.Figure()
    for position, (name, result) in enumerate(results.items()):
        colour = system_colour(position)
        for kind, proportions, rate, dash in (
            ("same source", result.same_source, result.misleading_same_source, "solid"),
            ("different source", result.different_source, result.misleading_different_source, "dash"),
        ):
            x, y = _class_curve(result, proportions, edges)
            sign = "<" if kind == "same source" else ">"
            details = f"{kind}; misleading LR {sign} 1: {format_percent(rate)}"
            fig.add_trace(go.Scatter(
                x=x, y=y, mode="lines", name=legend_label(name, details), legendgroup=name,
                line=dict(color=colour, width=LINE_WIDTH if dash == "solid" else LINE_WIDTH - 0.5, dash=dash),
                hovertemplate=f"<b>{name}</b> {kind}<br>{unit} = %{{x:.3f}}<br>at or above: %{{y:.2%}}"
                              "<extra></extra>",
                meta=dict(system=name, kind=kind, label=f"{name} {kind}", misleading_rate=rate),
            ))
        at_one = np.array([1.0 - result.misleading_same_source, result.misleading_different_source])
        fig.add_trace(go.Scatter(
            x=np.zeros(2), y=at_one, mode="markers", showlegend=False, legendgroup=name,
            name=f"{name}: misleading evidence", marker=point_marker(colour, 13, ["circle", "square"]),
            customdata=np.array([["same source with LR ≥ 1", format_percent(result.misleading_same_source),
                                  "LR < 1"],
                                 ["different source with LR > 1", format_percent(result.misleading_different_source),
                                  "LR > 1"]], dtype=object),
            hovertemplate=f"<b>{name}</b> %{{customdata[0]}}: %{{y:.2%}}<br>misleading (%{{customdata[2]}}): "
                          "%{customdata[1]}<extra></extra>",
            meta=dict(system=name, kind="misleading"),
        ))
    fig.add_trace(legend_key("solid: same source (H1 true)", line=dict(color=REFERENCE_COLOUR, width=2.5)))
    fig.add_trace(legend_key("dashed: different source (H2 true)",
                             line=dict(color=REFERENCE_COLOUR, width=2.5, dash="dash")))
    fig.add_vline(x=0.0, line=dict(color="#333333", width=1.6, dash="dashdot"), layer="below",
                  annotation=dict(text="LR = 1", font=dict(size=15, color="#222222"),
                                  bgcolor="rgba(255,255,255,0.8)"), annotation_position="top right")
    style_figure(fig, "Tippett plot: proportion of LRs at or above each value", height=600)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title_text=unit, range=list(edges))
    fig.update_yaxes(title_text="Proportion of LRs at or above (%)", tickformat=".0%", range=[-0.02, 1.02])
    _note_beyond(fig, *_beyond(results.values(), edges))
    return rescale_llr_axes(fig, units, drawn="log10")


def _interleaved_dash(position: int, count: int, length: int = 9) -> str:
    """The dash pattern of the `position`-th of `count` dashed curves: dashes of `length` px that take turns, so that
    curves lying on one another (every curve after PAV along 0 when Cllr_min is ~0) all show their colour; one
    curve alone is plainly dashed."""
    before, after = position * length, (count - position) * length
    return f"0px,{before}px,{length}px,{after}px" if before else f"{length}px,{after}px"


@old_spellings({"prior_log10_odds": ("plo", from_log10)})
def ece_figure(systems, *, plo=None, units: str = "log10") -> go.Figure:
    """ECE plot: empirical cross-entropy in bits against the prior log10-odds.

    Per system (its colour): the ECE of its LLRs (solid) and of their PAV-calibrated version (dashed, the least any
    monotone recalibration reaches; drawn over every solid curve, the dashes of the systems taking turns so that
    curves on one another all show); once the neutral reference LR = 1 (dotted, the prior's entropy). The ECE axis
    starts a little below 0, so that a curve at 0 (Cllr_min = 0) is drawn above the axis line, and the legend says
    so when a dashed curve lies along 0. At prior log10-odds 0 (vertical line) the solid curve is Cllr and the dashed
    one Cllr_min, stated in the legend; a solid curve above the dotted one means LLRs worse than no evidence at those
    priors.

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials, a sequence of Trials, or :class:`~llrcore.forensic.ECECurve` result(s)
    plo : array_like, optional
        The grid of prior log-odds (natural log; default log10-odds -3 to 3), when the curves are computed here.
    units : {"log10", "ln"}
        The x axis in prior log10-odds (the default) or in natural-log prior odds ``logit P(H1)`` (``"ln"``).
    """
    odds = "log10-odds" if llr_unit(units) == LOG10_LR_TITLE else "log-odds (ln)"
    curves = _results(systems, ECECurve,
                      lambda trials, name: ece_curve(trials, plo=plo, name=name))
    first = next(iter(curves.values()))
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=first.prior_log10_odds, y=first.reference, mode="lines", name="dotted: neutral reference (LR = 1)",
        line=dict(color=REFERENCE_COLOUR, width=2.2, dash="dot"),
        hovertemplate=f"neutral LR = 1<br>prior {odds} %{{x:.2f}}<br>ECE = %{{y:.3f}} bits<extra></extra>",
        meta=dict(system=None, kind="reference", label="neutral reference (LR = 1)"),
    ))
    tops = [float(first.reference.max())]
    # ECE beyond FENCE times the neutral reference's top (1 bit) is left above the axis (LLRs of +-1e308 on the wrong
    # side give 1e305 bits, which would flatten every other curve onto 0) and said in a note
    limit, above = FENCE * tops[0], {}
    calibrated = []  # the PAV curves, drawn over every system's own curve (so that none hides them)
    for position, (name, curve) in enumerate(curves.items()):
        colour = system_colour(position)
        details = f"Cllr {bits(curve.cllr)} bits, Cllr_min {bits(curve.min_cllr)}"  # 2.39e+305, never 306 digits
        for kind, values, dash, label in (("system", curve.system, "solid", legend_label(name, details)),
                                          ("PAV", curve.pav, "dash", f"{name} PAV-calibrated")):
            trace = go.Scatter(
                x=curve.prior_log10_odds, y=values, mode="lines", name=label, legendgroup=name,
                showlegend=kind == "system",
                line=dict(color=colour, width=LINE_WIDTH if dash == "solid" else LINE_WIDTH - 0.5,
                          dash=dash if dash == "solid" else _interleaved_dash(position, len(curves))),
                hovertemplate=f"<b>{name}</b> {'LLRs' if kind == 'system' else 'PAV-calibrated'}<br>prior "
                              f"{odds} %{{x:.2f}}<br>ECE = %{{y:.3f}} bits<extra></extra>",
                meta=dict(system=name, kind=kind, label=f"{name} {kind}"),
            )
            finite = values[np.isfinite(values)]
            shown = finite[finite <= limit]
            highest = float(shown.max()) if shown.size else 0.0
            if shown.size < values.size:
                above[f"{name}{'' if kind == 'system' else ' after PAV'}"] = float(np.max(values))
            tops.append(highest)
            if kind == "system":
                fig.add_trace(trace)
            else:
                calibrated.append((trace, highest))
    top = 1.08 * max(tops)
    for trace, _ in calibrated:
        fig.add_trace(trace)
    for position, (name, curve) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(
            x=np.zeros(2), y=np.array([curve.cllr, curve.min_cllr]), mode="markers", showlegend=False,
            legendgroup=name, name=f"{name}: Cllr and Cllr_min",
            marker=point_marker(system_colour(position), 12, ["circle", "diamond"]),
            customdata=np.array([["Cllr"], ["Cllr_min"]], dtype=object),
            hovertemplate=f"<b>{name}</b> %{{customdata[0]}} = %{{y:.4f}} bits<extra></extra>",
            meta=dict(system=name, kind="cllr"),
        ))
    fig.add_trace(legend_key("solid: the LLRs", line=dict(color=REFERENCE_COLOUR, width=2.5)))
    # a Cllr_min of ~0 puts a dashed curve along 0 all the way: the axis starts a little below 0 so that it is
    # drawn above the axis line, and the key says where to look for it
    flat = any(highest < _FLAT * top for _, highest in calibrated)
    fig.add_trace(legend_key("dashed: after PAV (calibrated)" + (", along 0 where Cllr_min ≈ 0" if flat else ""),
                             line=dict(color=REFERENCE_COLOUR, width=2.5, dash="dash")))
    fig.add_vline(x=0.0, line=dict(color="#333333", width=1.6, dash="dashdot"), layer="below",
                  annotation=dict(text="prior odds 1: ECE = Cllr", font=dict(size=15, color="#222222"),
                                  bgcolor="rgba(255,255,255,0.8)"), annotation_position="top right")
    if above:
        fig.add_annotation(
            text="↑ above the axis:<br>" + "<br>".join(f"{name} up to {bits(v)} bits" for name, v in above.items()),
            xref="paper", yref="paper", x=0.005, y=1.0, xanchor="left", yanchor="top", align="left", showarrow=False,
            name="beyond the axis",
            font=dict(size=14, color="#222222"), bgcolor="rgba(255,255,255,0.85)")
    style_figure(fig, "Empirical cross-entropy (ECE)", height=600)
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(title_text=PRIOR_TITLE if units == "log10" else PRIOR_LN_TITLE)
    fig.update_yaxes(title_text=ECE_TITLE, range=[-_BELOW_ZERO * top, top])
    return rescale_llr_axes(fig, units, drawn="log10")
