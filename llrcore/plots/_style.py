"""Shared look of every llrcore figure: colours, fonts, layout, system handling and plot-space decimation.

The figures are shown in the app, embedded in reports and put on a projector, so the defaults favour large
fonts, thick lines and a colour-blind-safe palette (Okabe & Ito). A system keeps its colour in every figure:
the colour is chosen by the system's position in the ``systems`` mapping.
"""
from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

from .._format import percent as format_percent  # the plots' name for the one percent rule

__all__ = [
    "PALETTE",
    "CLASS_COLOURS",
    "REFERENCE_COLOUR",
    "system_colour",
    "with_alpha",
    "style_figure",
    "decimation_indices",
    "decimate_curve",
    "format_percent",
    "wrap_label",
    "legend_label",
    "legend_key",
    "point_marker",
    "operating_point_text",
]

#: Okabe & Ito colour-blind-safe palette (yellow left out: invisible on white and on a projector).
PALETTE = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#8C6D31",  # brown
)
#: Colours of the trial classes in score histograms (the same in every system's panel).
CLASS_COLOURS = {"target": "#009E73", "non-target": "#D55E00", "spoof": "#7F4FA8"}
#: Colour of reference curves that belong to no system (the default error rate, "no system").
REFERENCE_COLOUR = "#555555"

FONT_FAMILY = "Arial, Helvetica, sans-serif"
FONT_SIZE = 16
TITLE_SIZE = 22
AXIS_TITLE_SIZE = 18
TICK_SIZE = 15
LINE_WIDTH = 3.0


def system_colour(index: int) -> str:
    """Colour of the system at position `index` (cycling through :data:`PALETTE`)."""
    return PALETTE[index % len(PALETTE)]


def with_alpha(colour: str, alpha: float) -> str:
    """``rgba(...)`` string of a ``#rrggbb`` colour with opacity `alpha`."""
    colour = colour.lstrip("#")
    r, g, b = (int(colour[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha:g})"


def _visible_length(text: str) -> int:
    """Characters a label shows (HTML tags such as ``<sub>`` take no room)."""
    return len(re.sub(r"<[^>]*>", "", text))


def wrap_label(text: str, width: int = 40) -> str:
    """`text` broken with ``<br>`` at spaces into lines of at most about `width` visible characters.

    For legend entries and category labels that would otherwise run out of a figure. Existing ``<br>`` are kept;
    a word longer than `width` stays whole; a ``%`` stays with its number and ``P = 0.01`` stays on one line.
    """
    lines = []
    for paragraph in text.split("<br>"):
        units: list[str] = []
        for token in paragraph.split(" "):
            if units and (token.startswith("%") or token == "=" or units[-1].endswith(" =")):
                units[-1] += " " + token
            elif token:
                units.append(token)
        line = ""
        for unit in units:
            if line and _visible_length(line) + 1 + _visible_length(unit) > width:
                lines.append(line)
                line = unit
            else:
                line = f"{line} {unit}" if line else unit
        lines.append(line)
    return "<br>".join(lines)


def legend_label(name: str, details: str, width: int = 48) -> str:
    """A system's legend entry ``"name (details)"``, on two or more lines when longer than `width` characters:
    the name, then the numbers, so that three or four systems with long names wrap instead of leaving the figure."""
    label = f"{name} ({details})"
    if _visible_length(label) <= width:
        return label
    return f"{wrap_label(name, width)}<br>{wrap_label(f'({details})', width)}"


def legend_key(name: str, **style) -> go.Scatter:
    """A legend-only entry (no data) explaining a symbol or line style shared by all systems."""
    style.setdefault("mode", "markers" if "marker" in style else "lines")
    return go.Scatter(
        x=[None], y=[None], name=name, hoverinfo="skip", legendgroup="_key",
        meta=dict(system=None, kind="legend_key"), **style,
    )


def point_marker(colour, size, symbol=None) -> dict:
    """The look of a point marked on a curve (an EER, a DCF, a mode): outlined in white so it stands out from the
    line it sits on. `colour`, `size` and `symbol` may be lists, one entry per point of the trace."""
    marker = dict(size=size, color=colour, line=dict(color="white", width=1.5))
    return marker if symbol is None else dict(symbol=symbol, **marker)


def operating_point_text(op) -> str:
    """``P_target``, ``C_miss`` and ``C_fa`` of an operating point, for hover text."""
    return f"P<sub>target</sub> = {op.p_target:g}, C<sub>miss</sub> = {op.c_miss:g}, C<sub>fa</sub> = {op.c_fa:g}"


def style_figure(
    fig: go.Figure,
    title: str,
    *,
    height: int | None = 560,
    legend_below: bool = True,
) -> go.Figure:
    """Apply the common look: white template, projector-size fonts, title, legend, hover labels."""
    fig.update_layout(
        template="plotly_white",
        title=dict(text=title, font=dict(size=TITLE_SIZE), x=0.5, xanchor="center"),
        font=dict(family=FONT_FAMILY, size=FONT_SIZE, color="#222222"),
        hoverlabel=dict(font=dict(size=FONT_SIZE)),
        legend=dict(
            font=dict(size=FONT_SIZE - 1),
            bgcolor="rgba(255,255,255,0.85)",
            bordercolor="#cccccc",
            borderwidth=1,
            tracegroupgap=4,
        ),
        margin=dict(l=80, r=30, t=80, b=70),
        showlegend=True,
    )
    if legend_below:
        # below the plot, so a narrow column (the app, a report) does not squeeze the plot sideways
        fig.update_layout(
            legend=dict(orientation="h", yref="container", y=0.0, yanchor="bottom", xanchor="center", x=0.5)
        )
    if height is not None:
        fig.update_layout(height=height)
    axis_style = dict(
        title_font=dict(size=AXIS_TITLE_SIZE),
        tickfont=dict(size=TICK_SIZE),
        showline=True,
        linecolor="#444444",
        mirror=True,
        gridcolor="#e3e3e3",
        zeroline=False,
    )
    fig.update_xaxes(**axis_style)
    fig.update_yaxes(**axis_style)
    return fig


# ----- decimation --------------------------------------------------------------------------------------------


def decimation_indices(
    x,
    y,
    max_points: int = 2000,
    *,
    keep=None,
    x_span: float | None = None,
    y_span: float | None = None,
) -> np.ndarray:
    """Indices of the vertices of a polyline worth drawing: at most `max_points`, chosen in plot space.

    The polyline is walked along its length in plot coordinates (each axis scaled by its span, so a step is a
    fraction of the plot's width or height); a vertex is kept when the walk crosses the next multiple of a step
    ``length / max_points``, and both ends of every segment longer than a step are kept, so long straight
    pieces (the corners of a coarse staircase) are exact and the drawn line never strays more than one step
    from the true one. The first and last vertices are always kept; the indices are increasing, so a monotone
    curve stays monotone.

    Parameters
    ----------
    x, y : array_like
        Vertices in plot coordinates (e.g. probits for a DET). Non-finite values are kept as vertices only when
        they are ends of the curve; they do not count towards the length.
    max_points : int
        The cap on the number of returned indices (at least 2).
    keep : array_like of int, optional
        Indices to keep in any case (e.g. the ROCCH vertices), honoured only if they fit under the cap together
        with the ends.
    x_span, y_span : float, optional
        The extent of each axis in plot coordinates; default the finite range of the data.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    if y.size != n:
        raise ValueError(f"x and y have different lengths ({n} and {y.size}).")
    max_points = max(int(max_points), 2)
    forced = np.zeros(n, dtype=bool)
    if n:
        forced[[0, n - 1]] = True
    if keep is not None:
        keep = np.asarray(keep, dtype=np.int64).reshape(-1)
        keep = keep[(keep >= 0) & (keep < n)]
        if np.unique(keep).size + 2 <= max_points:
            forced[keep] = True
    if n <= max_points:
        return np.arange(n)

    def span(values, given):
        if given is not None and given > 0:
            return float(given)
        finite = values[np.isfinite(values)]
        width = float(finite.max() - finite.min()) if finite.size else 0.0
        return width if width > 0 else 1.0

    dx = np.diff(x) / span(x, x_span)
    dy = np.diff(y) / span(y, y_span)
    seg = np.hypot(dx, dy)
    seg[~np.isfinite(seg)] = 0.0
    cumulative = np.concatenate([[0.0], np.cumsum(seg)])
    total = cumulative[-1]
    n_forced = int(forced.sum())
    if total <= 0 or n_forced >= max_points:
        idx = np.flatnonzero(forced)
        return idx if idx.size <= max_points else np.unique(np.linspace(0, n - 1, max_points).round().astype(int))

    budget = max_points - n_forced
    base = total / max(budget, 1)
    # One pass over all vertices at the finest step; coarser steps are integer multiples of it, so the vertices
    # they keep are a subset of these candidates and the search for a step under the cap runs on them alone.
    bucket = np.floor(cumulative / base)
    candidate = np.zeros(n, dtype=bool)
    candidate[1:] = bucket[1:] > bucket[:-1]
    candidate[:-1] |= seg > base
    candidate |= forced
    idx = np.flatnonzero(candidate)
    if idx.size <= max_points:
        return idx
    here = cumulative[idx]
    before = cumulative[np.maximum(idx - 1, 0)]
    seg_after = np.append(seg, 0.0)[idx]  # length of the segment starting at each candidate
    is_forced = forced[idx]
    multiple, count = 1, idx.size
    for _ in range(60):
        multiple = max(multiple + 1, int(np.ceil(multiple * 1.05 * count / max_points)))
        step = base * multiple
        mask = (np.floor(here / step) > np.floor(before / step)) | (seg_after > step) | is_forced
        count = int(mask.sum())
        if count <= max_points:
            return idx[mask]
    return np.flatnonzero(forced)  # pragma: no cover - the loop always converges


def decimate_curve(x, y, max_points: int = 2000, **kwargs) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` reduced to at most `max_points` vertices with :func:`decimation_indices` (same options)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    idx = decimation_indices(x, y, max_points, **kwargs)
    return x[idx], y[idx]
