"""Detection error trade-off (DET) figure: miss rate against false-alarm rate on probit axes.

A DET plots ``(Pfa, Pmiss)`` over all thresholds with both axes warped by the probit (the inverse standard normal
cumulative distribution, :func:`scipy.special.ndtri`), so Gaussian score distributions give straight lines
(Martin et al., "The DET curve in assessment of detection task performance", Eurospeech 1997). The curve drawn
by default is the ROC convex hull (ROCCH), on which the EER and every minimum DCF live (Brümmer & du Preez,
CSL 2006); its straight ROC segments are bent by the probit warping, so they are interpolated before warping.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from scipy.special import ndtr, ndtri

from .._deprecation import old_spellings
from ..binary.curves import MARKER_TITLES, CurveSet, DETCurve, DETMarker, det_curves
from ..prior import OperatingPoint
from ._operating_point import OPERATING_POINT, operating_point_of
from ._style import (
    LINE_WIDTH,
    REFERENCE_COLOUR,
    _visible_length,
    decimation_indices,
    format_percent,
    legend_key,
    legend_label,
    operating_point_text,
    point_marker,
    style_figure,
    system_colour,
    with_alpha,
)

__all__ = ["det_figure", "DET_TICKS", "probit"]

#: Candidate tick values (as probabilities) of the DET axes; the ones inside the axis range are used.
DET_TICKS = np.array(
    [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4]
    + [0.6, 0.8, 0.9, 0.95, 0.98, 0.99]
)
_LOWEST = 1e-6  # no DET axis goes below 0.0001 %
_HIGHEST = (0.5, 0.6, 0.8, 0.9, 0.95, 0.98, 0.99)
_MAX_POINTS = 2000
_SYMBOLS = {"eer": "circle", "min_dcf": "diamond", "act_dcf": "star"}
#: A marker pinned off the axes is drawn this far inside the edge (a fraction of the axes' span: the half width of a
#: 19 px star with its outline on a plot of 300 px), and markers that would cover one another this far apart.
_PINNED_INSET, _PINNED_STEP = 0.04, 0.075
_NOTE_WIDTH = 90  # characters of the note above the plot on one line
_HOVER_RATES = "False-alarm rate: %{customdata[0]:.3~%}<br>Miss rate: %{customdata[1]:.3~%}"


def probit(p):
    """The DET warping: ``ndtri(p)``, the standard normal quantile of a probability (``-inf`` at 0)."""
    return ndtri(np.asarray(p, dtype=np.float64))


def _lower_limit(smallest: float) -> float:
    """Largest tick value at or below `smallest` (the smallest non-zero rate to show), but not below 0.0001 %."""
    smallest = max(smallest, _LOWEST)
    candidates = DET_TICKS[DET_TICKS <= smallest * (1 + 1e-9)]
    return float(candidates[-1]) if candidates.size else float(DET_TICKS[0])


def _upper_limit(max_eer: float, max_marker: float = 0.0) -> float:
    """50 % unless a system's EER is so large that its curve near the diagonal would be cut off, or an
    operating-point marker (a rate up to `max_marker`) would fall outside."""
    wanted = max(ndtr(probit(max(max_eer, 1e-9)) + 1.0), ndtr(probit(min(max_marker, 0.999)) + 0.3))
    for value in _HIGHEST:
        if value >= wanted:
            return value
    return _HIGHEST[-1]


def _ticks(lo: float, hi: float, char_width: float = 0.016, padding: float = 0.025) -> tuple[np.ndarray, list[str]]:
    """Tick positions (probits) and labels (in %) between `lo` and `hi` whose labels do not collide.

    Two labels need a distance (as a fraction of the axis) of their mean length times `char_width` plus
    `padding`. Decades and the ticks at 1 % and above are placed first, then the 5s, then the 2s.
    """
    ticks = DET_TICKS[(DET_TICKS >= lo * (1 - 1e-9)) & (DET_TICKS <= hi * (1 + 1e-9))]
    positions = (probit(ticks) - probit(lo)) / float(probit(hi) - probit(lo))
    labels = [f"{100 * t:.6g}" for t in ticks]
    mantissa = np.round(ticks / 10.0 ** np.floor(np.log10(ticks)), 6)
    priority = np.where((mantissa == 1) | (ticks >= 0.01), 0, np.where(mantissa == 5, 1, 2))
    chosen: list[int] = []
    for level in (0, 1, 2):
        for i in np.flatnonzero(priority == level):
            if all(
                abs(positions[i] - positions[j]) >= char_width * (len(labels[i]) + len(labels[j])) / 2 + padding
                for j in chosen
            ):
                chosen.append(int(i))
    chosen.sort()
    return probit(ticks[chosen]), [labels[i] for i in chosen]


def _rocch_curve(pfa: np.ndarray, pmiss: np.ndarray, clip: float, resolution: float = 0.01):
    """Points along the ROCCH segments (straight in ROC space), dense enough to look smooth on probit axes.

    Returns the interpolated ``(pfa, pmiss)`` and the positions of the original vertices among them.
    """
    px = probit(np.clip(pfa, clip, 1 - clip))
    py = probit(np.clip(pmiss, clip, 1 - clip))
    length = np.hypot(np.diff(px), np.diff(py))
    pieces = np.clip(np.ceil(length / resolution), 1, 400).astype(np.int64)
    start = np.concatenate([[0], np.cumsum(pieces)])
    segment = np.repeat(np.arange(pieces.size), pieces)
    fraction = (np.arange(start[-1]) - start[segment]) / pieces[segment]
    out_pfa = np.concatenate([pfa[segment] + fraction * (pfa[segment + 1] - pfa[segment]), pfa[-1:]])
    out_pmiss = np.concatenate([pmiss[segment] + fraction * (pmiss[segment + 1] - pmiss[segment]), pmiss[-1:]])
    return out_pfa, out_pmiss, start


def _curve_trace(pfa, pmiss, keep, clip, span, *, name, colour, group, kind, width, opacity=1.0, showlegend=True):
    x = probit(np.clip(pfa, clip, 1 - clip))
    y = probit(np.clip(pmiss, clip, 1 - clip))
    idx = decimation_indices(x, y, _MAX_POINTS, keep=keep, x_span=span, y_span=span)
    return go.Scatter(
        x=x[idx],
        y=y[idx],
        customdata=np.column_stack([pfa[idx], pmiss[idx]]),
        mode="lines",
        name=name,
        legendgroup=group,
        showlegend=showlegend,
        opacity=opacity,
        line=dict(color=colour, width=width),
        hovertemplate=f"<b>{group}</b><br>{_HOVER_RATES}<extra></extra>",
        meta=dict(system=group, kind=kind, columns=["false_alarm_rate", "miss_rate"],
                  label=f"{group} {'DET (ROCCH)' if kind == 'det' else 'DET (steps)'}"),
    )


def _edge(rate: float, axis_range, inset: float = 0.0) -> tuple[float, str | None]:
    """Where a marker at `rate` is drawn on an axis spanning `axis_range` (probits): at ``probit(rate)``, or pinned
    `inset` inside the nearer edge when that is outside (a rate of 0 or 1 has no probit): inside, so that the symbol
    sits in the plot and not on the tick labels beyond the axis line. Returns the position and ``"low"``, ``"high"``
    or None (not pinned)."""
    position = float(probit(rate))
    if position < axis_range[0]:
        return float(axis_range[0]) + inset, "low"
    if position > axis_range[1]:
        return float(axis_range[1]) - inset, "high"
    return position, None


def _off_axis_text(what: str, rate: float, side: str) -> str:
    """``"Pmiss = 0"``, ``"Pfa = 1"``, or the rate and the side of the axis it is off."""
    if rate in (0.0, 1.0):
        return f"{what} = {rate:g}"
    return f"{what} = {format_percent(rate)}, {'below' if side == 'low' else 'above'} the axis"


def _point_trace(pfa, pmiss, extra, x_range, y_range, *, name, colour, group, kind, symbol, size, hover, columns,
                 inset=0.0):
    """One operating-point marker; pinned `inset` inside the edge of the axes with an open symbol when a rate is
    off them.

    ``customdata`` keeps the true rates (also 0 or 1), ``meta["pinned"]`` the note saying which rate is off the
    axes (None when the marker sits at its rates).
    """
    x, x_side = _edge(pfa, x_range, inset)
    y, y_side = _edge(pmiss, y_range, inset)
    off = [_off_axis_text(what, rate, side) for what, rate, side in (("Pfa", pfa, x_side), ("Pmiss", pmiss, y_side))
           if side is not None]
    note = " and ".join(off) + " at this threshold" if off else None
    marker = point_marker(colour, size, symbol)
    if note:
        marker = dict(symbol=f"{symbol}-open", size=size + 2, color=colour, line=dict(color=colour, width=3))
        hover += f"<br><i>drawn inside the edge of the axes: {note}</i>"
    return go.Scatter(
        x=np.array([x]),
        y=np.array([y]),
        customdata=np.array([[pfa, pmiss, *extra]], dtype=np.float64),
        mode="markers",
        name=name,
        legendgroup=group,
        showlegend=False,  # the system's curve names the values; one shared key explains the symbols
        marker=marker,
        cliponaxis=False,  # a marker near the edge is drawn whole
        hovertemplate=f"<b>{group}</b><br>{hover}<extra></extra>",
        meta=dict(system=group, kind=kind, columns=["false_alarm_rate", "miss_rate", *columns], pinned=note,
                  sides=(x_side, y_side)),
    )


def _spread_pinned(fig: go.Figure, step: float) -> None:
    """Move pinned markers that would cover another marker (pinned or not) `step` further inside the plot, away
    from the edge they are pinned to (from a corner: along the false-alarm axis), until they are free: two systems
    whose actDCF has Pfa = 0 then show two symbols, not one on top of the other. A pinned marker's position says
    only "off the axes", so moving it inwards changes nothing it stands for."""
    markers = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") in _SYMBOLS]
    placed = [(float(t.x[0]), float(t.y[0])) for t in markers if not t.meta.get("pinned")]
    for trace in (t for t in markers if t.meta.get("pinned")):
        x_side, y_side = trace.meta["sides"]
        dx = {"low": 1.0, "high": -1.0}.get(x_side, 0.0)
        dy = 0.0 if dx else {"low": 1.0, "high": -1.0}[y_side]
        x, y = float(trace.x[0]), float(trace.y[0])
        while any(np.hypot(x - u, y - v) < step * (1 - 1e-9) for u, v in placed):
            x, y = x + dx * step, y + dy * step
        trace.x, trace.y = np.array([x]), np.array([y])
        placed.append((x, y))


def _coloured_names(traces) -> str:
    """The systems of `traces`, each in its colour, separated by commas, on lines of about :data:`_NOTE_WIDTH`
    characters (a name is never broken)."""
    lines: list[list[str]] = [[]]
    length = 0
    for trace in traces:
        name = trace.meta["system"]
        if lines[-1] and length + 2 + len(name) > _NOTE_WIDTH:
            lines.append([])
            length = 0
        length += len(name) + 2
        lines[-1].append(f"<span style='color:{trace.marker.color}'>{html.escape(name)}</span>")
    return ",<br>".join(", ".join(line) for line in lines)


def _pinned_note(fig: go.Figure, titles: dict[str, str]) -> None:
    """One note above the plot for every marker pinned inside the edge, saying which rate is 0 or 1 there: a line
    per marker and rate (systems that share both on one line, each name in its colour). Above the plot, no curve,
    marker or tick label can hide it and no two notes can overlap; the figure and its top margin grow by its
    lines."""
    lines: dict[tuple, list] = {}
    for trace in fig.data:
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        if meta.get("pinned"):
            lines.setdefault((titles[meta["kind"]], meta["pinned"]), []).append(trace)
    if not lines:
        return
    text = ["Open symbols inside the edge: a rate of 0 or 1 (or off the axes), which probit axes cannot show"]
    for (title, note), traces in lines.items():
        names = _coloured_names(traces)
        line = f"{names}: {title} at {note}"
        text.append(line if _visible_length(line) <= _NOTE_WIDTH else f"{names}:<br>{title} at {note}")
    note = "<br>".join(text)
    fig.add_annotation(text=note, xref="paper", yref="paper", x=0.5, y=1, xanchor="center", yanchor="bottom",
                       yshift=8, showarrow=False, align="center", font=dict(size=13, color=REFERENCE_COLOUR))
    room = 18 * (note.count("<br>") + 1)  # the note's lines; the figure grows by them, the plot keeps its size
    height = (fig.layout.height or 680) + room
    # the title keeps its place at the top (by default it sits in the middle of the margin, on the note)
    fig.update_layout(height=height, margin=dict(t=80 + room),
                      title=dict(yref="container", y=1 - 22 / height, yanchor="top"))


@old_spellings(OPERATING_POINT)
def det_figure(
    systems,
    *,
    p_target: OperatingPoint | float | None = None,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    rocch: bool = True,
    steps: bool = False,
    rule_of_30: bool = False,
) -> go.Figure:
    """DET curves of one or several systems on probit axes labelled in %, with their EER marked.

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials, or the CurveSet of :func:`llrcore.det_curves`
        The systems to overlay (a system keeps its colour, by position, in every figure), or their DET curves
        computed already; then the operating point is the one the curves were computed at.
    p_target, c_miss, c_fa : OperatingPoint or float, optional
        An operating point (`p_target` may be an OperatingPoint, with its costs). With it, each system gets two more
        markers: the minimum-DCF point (the ROCCH vertex chosen by :meth:`~llrcore.binary.rates.SortedScores.min_rates` at
        ``plo_eff``) and the actual-DCF point (the scores taken as LLRs and thresholded at ``-plo_eff``), with the
        normalised costs in the legend and hover text. ``plo_eff = logit(P_target) + log(C_miss / C_fa)``.
    rocch : bool
        Draw the ROC-convex-hull DET (the default curve).
    steps : bool
        Draw the step DET (one vertex per unique score). With `rocch` as well it is drawn thin underneath.
        When both are False the ROCCH is drawn.
    rule_of_30 : bool
        Dotted lines at ``Pmiss = 30 / N_tar`` and ``Pfa = 30 / N_non``: Doddington's rule of 30 (rates measured
        from fewer than 30 errors are not to be trusted), per system.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces carry ``meta={"system", "kind", "columns"}``; kinds are ``"det"``, ``"det_steps"``, ``"eer"``,
        ``"min_dcf"``, ``"act_dcf"``, ``"rule_of_30"``. The x and y data are probits; ``customdata`` holds the
        rates as fractions (and the normalised cost for the DCF markers).

    Notes
    -----
    A rate of 0 or 1 has no probit (``-inf``, ``+inf``): an EER, minDCF or actDCF marker with such a rate (or one
    beyond the axes' 0.0001 %...99 % limits) is pinned at the edge of the axes, drawn as the open version of its
    symbol, a little inside the plot (not on the tick labels beyond the axis line; markers that would cover each
    other are spread further in), with one note above the plot saying which rate it is ("Pmiss = 0 at this
    threshold") and ``meta["pinned"]`` holding that note; its ``customdata`` keeps the true rates. The symbol key
    lists only the looks that are drawn.
    """
    curves = systems if isinstance(systems, CurveSet) else det_curves(systems, p_target=operating_point_of(
        p_target, c_miss, c_fa))
    axes = _Axes.fit(curves.values())
    fig = go.Figure()
    for position, curve in enumerate(curves.values()):
        _draw_system(fig, curve, system_colour(position), axes, rocch=rocch or not steps, steps=steps,
                     rule_of_30=rule_of_30)
    _spread_pinned(fig, _PINNED_STEP * axes.span)
    _symbol_key(fig)
    if steps and (rocch or not steps):
        fig.add_trace(legend_key("thin: step DET", line=dict(color=REFERENCE_COLOUR, width=1.5)))
    if rule_of_30:
        fig.add_trace(legend_key("30 errors (rule of 30)", line=dict(color=REFERENCE_COLOUR, width=1.8, dash="dot")))
    op = next(iter(curves.values())).operating_point if curves else None
    title = ("DET curve" if len(curves) == 1 else "DET curves") + (
        "" if op is None else f" (operating point P<sub>target</sub> = {op.p_target:g})")
    _style_axes(fig, axes, title)
    _pinned_note(fig, MARKER_TITLES)
    return fig


@dataclass(frozen=True)
class _Axes:
    """The probit axes of a DET: from the smallest non-zero rate to show (1 / N, or a marker's) to 50 % or more."""

    lo_x: float
    lo_y: float
    hi: float

    @classmethod
    def fit(cls, curves) -> "_Axes":
        curves = list(curves)
        markers = [m for curve in curves for m in curve.markers]
        fa = [m.false_alarm_rate for m in markers]
        miss = [m.miss_rate for m in markers]
        # the axes reach the smallest non-zero rate of a curve (1 / N) or a marker (a ROCCH EER can be below 1 / N)
        lo_x = _lower_limit(min([1 / max(c.n_non for c in curves)] + [r for r in fa if r > 0]))
        lo_y = _lower_limit(min([1 / max(c.n_tar for c in curves)] + [r for r in miss if r > 0]))
        hi = _upper_limit(max(c.eer for c in curves), max([r for r in fa + miss if r < 1.0], default=0.0))
        return cls(lo_x, lo_y, hi)

    @property
    def clip(self) -> float:
        """Where rates of 0 land: just outside the axes, so that a curve runs off the edge."""
        return min(self.lo_x, self.lo_y) / 4

    @property
    def span(self) -> float:
        return float(probit(self.hi) - probit(min(self.lo_x, self.lo_y)))

    @property
    def x_range(self) -> list[float]:
        return [float(probit(self.lo_x)), float(probit(self.hi))]

    @property
    def y_range(self) -> list[float]:
        return [float(probit(self.lo_y)), float(probit(self.hi))]


def _draw_system(fig: go.Figure, curve: DETCurve, colour: str, axes: _Axes, *, rocch: bool, steps: bool,
                 rule_of_30: bool) -> None:
    """One system: its curve(s), its markers and, if asked, its rule-of-30 lines."""
    name = curve.name
    label = legend_label(name, f"EER {format_percent(curve.eer)}" + "".join(
        f", {m.title} {m.cost:.3f}" for m in curve.markers if m.kind != "eer"))
    if steps:
        pfa, pmiss = curve.steps
        keep = np.concatenate([curve.table.pav.first, [pfa.size - 1]])
        fig.add_trace(_curve_trace(pfa, pmiss, keep, axes.clip, axes.span, name=f"{name} steps" if rocch else label,
                                   colour=colour, group=name, kind="det_steps", width=1.5 if rocch else LINE_WIDTH,
                                   opacity=0.55 if rocch else 1.0, showlegend=not rocch))
    if rocch:
        pfa, pmiss, vertices = _rocch_curve(*curve.rocch, axes.clip)
        fig.add_trace(_curve_trace(pfa, pmiss, vertices, axes.clip, axes.span, name=label, colour=colour, group=name,
                                   kind="det", width=LINE_WIDTH))
    for marker in curve.markers:
        fig.add_trace(_marker_trace(marker, curve, colour, axes))
    if rule_of_30:
        fig.add_trace(_rule_of_30_trace(curve, colour, axes))


def _marker_trace(marker: DETMarker, curve: DETCurve, colour: str, axes: _Axes) -> go.Scatter:
    if marker.kind == "eer":
        return _point_trace(marker.false_alarm_rate, marker.miss_rate, [marker.cost], axes.x_range, axes.y_range,
                            name=f"{curve.name}: EER", colour=colour, group=curve.name, kind="eer",
                            symbol=_SYMBOLS["eer"], size=13, hover="EER = %{customdata[2]:.3~%}", columns=["eer"],
                            inset=_PINNED_INSET * axes.span)
    symbol = _SYMBOLS[marker.kind]
    return _point_trace(
        marker.false_alarm_rate, marker.miss_rate, [marker.cost], axes.x_range, axes.y_range,
        name=f"{curve.name}: {marker.title} {marker.cost:.3f}", colour=colour, group=curve.name, kind=marker.kind,
        symbol=symbol, size=17 if symbol == "star" else 15,
        hover=(f"{marker.title} = %{{customdata[2]:.4f}} (normalised)<br>"
               f"{operating_point_text(curve.operating_point)}<br>{_HOVER_RATES}"),
        columns=[marker.kind], inset=_PINNED_INSET * axes.span,
    )


def _rule_of_30_trace(curve: DETCurve, colour: str, axes: _Axes) -> go.Scatter:
    """Dotted lines where 30 errors are made: ``Pmiss = 30 / N_tar`` and ``Pfa = 30 / N_non``."""
    r_miss, r_fa = min(30.0 / curve.n_tar, 1.0), min(30.0 / curve.n_non, 1.0)
    a, b = probit(axes.clip), probit(1 - axes.clip)
    return go.Scatter(
        x=np.array([a, b, np.nan, probit(r_fa), probit(r_fa)]),
        y=np.array([probit(r_miss), probit(r_miss), np.nan, a, b]),
        mode="lines", name=f"{curve.name}: 30 errors", legendgroup=curve.name, showlegend=False,
        line=dict(color=with_alpha(colour, 0.8), width=1.8, dash="dot"),
        hovertemplate=(f"<b>{curve.name}</b><br>rule of 30: Pmiss = 30/{curve.n_tar} = {format_percent(r_miss)}"
                       f", Pfa = 30/{curve.n_non} = {format_percent(r_fa)}<extra></extra>"),
        meta=dict(system=curve.name, kind="rule_of_30"),
    )


def _symbol_key(fig: go.Figure) -> None:
    """One key for the symbols shared by all systems: only for the looks that are drawn."""
    keys = {"eer": "EER", "min_dcf": "minDCF (best threshold)", "act_dcf": "actDCF (scores as LLRs)"}
    markers = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") in keys]
    for kind, text in keys.items():
        looks = {bool(t.meta["pinned"]) for t in markers if t.meta["kind"] == kind}
        if False in looks:
            fig.add_trace(legend_key(text, marker=dict(symbol=_SYMBOLS[kind], size=13, color=REFERENCE_COLOUR)))
        if True in looks:
            fig.add_trace(legend_key(
                f"{MARKER_TITLES[kind]} drawn inside the edge: a rate off the axes (the note above)",
                marker=dict(symbol=f"{_SYMBOLS[kind]}-open", size=13, color=REFERENCE_COLOUR,
                            line=dict(color=REFERENCE_COLOUR, width=2.5)),
            ))


def _style_axes(fig: go.Figure, axes: _Axes, title: str) -> None:
    """Square probit axes labelled in %, the Pmiss = Pfa diagonal, the title."""
    x_range, y_range = axes.x_range, axes.y_range
    x_ticks, x_labels = _ticks(axes.lo_x, axes.hi)
    y_ticks, y_labels = _ticks(axes.lo_y, axes.hi, char_width=0.0, padding=0.05)  # stacked labels need only height
    low = min(x_range[0], y_range[0])
    fig.add_shape(type="line", x0=low, y0=low, x1=x_range[1], y1=y_range[1], layer="below",
                  line=dict(color=REFERENCE_COLOUR, width=1.2, dash="dash"))
    fig.add_annotation(x=x_range[1], y=y_range[1], text="Pmiss = Pfa", showarrow=False, xanchor="right",
                       yanchor="top", textangle=-45, font=dict(color=REFERENCE_COLOUR, size=13), xshift=-30, yshift=-6)
    style_figure(fig, title, height=680)
    fig.update_xaxes(title_text="False-alarm rate (%)", range=x_range, tickvals=x_ticks, ticktext=x_labels,
                     constrain="domain", tickangle=0)
    fig.update_yaxes(title_text="Miss rate (%)", range=y_range, tickvals=y_ticks, ticktext=y_labels,
                     scaleanchor="x", scaleratio=1, constrain="domain", tickangle=0)
    fig.update_layout(hovermode="closest")
