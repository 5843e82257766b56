"""Reliability diagrams of probability forecasts: CORP (PAV, with its consistency band), its MCB/DSC/UNC
decomposition, and the binned diagram the ML papers draw.

- :func:`corp_figure` — the recalibrated probability against the forecast for each version (raw, scaled, ...), the
  band of a calibrated forecaster in grey, the diagonal, and a histogram of the forecasts along the bottom.
- :func:`decomposition_figure` — the mean score of each version as ``MCB - DSC + UNC``, three bars per version.
- :func:`binned_figure` — per bin the mean outcome (accuracy) against the mean forecast (confidence), the bars of
  the binned diagram, with the ECE in the legend.
- :func:`smooth_figure` — the kernel-smoothed mean outcome against the forecast (smooth ECE, Błasiok & Nakkiran),
  with its bootstrap band and the forecasts' density along the bottom.

Reference: T. Dimitriadis, T. Gneiting and A. I. Jordan, "Stable reliability diagrams for probabilistic
classifiers", PNAS 118(8), 2021 (their fig. 1 is the CORP diagram drawn here).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..multiclass.binned import BinnedECE
from ..multiclass.corp import CORP
from ..multiclass.smooth import SmoothECE
from ._style import REFERENCE_COLOUR, style_figure, system_colour, with_alpha

__all__ = ["binned_figure", "corp_figure", "decomposition_figure", "smooth_figure"]

#: The smoothed curve is drawn where the forecasts' density is at least this share of its peak: elsewhere it is the
#: kernel's extrapolation from far-away forecasts (relplot thins its line there).
SPARSE = 0.02
_TERMS = (("mcb", "MCB (miscalibration)", "#D55E00"), ("dsc", "DSC (discrimination)", "#009E73"),
          ("unc", "UNC (uncertainty)", "#555555"))


def _square(fig: go.Figure, x_title: str, y_title: str) -> go.Figure:
    fig.update_xaxes(title_text=x_title, range=[0, 1], constrain="domain")
    fig.update_yaxes(title_text=y_title, range=[0, 1], scaleanchor="x", constrain="domain")
    fig.add_trace(go.Scatter(x=np.array([0.0, 1.0]), y=np.array([0.0, 1.0]), mode="lines", name="calibrated",
                             line=dict(color=REFERENCE_COLOUR, dash="dot", width=1.5)))
    return fig


def _density_bars(fig: go.Figure, x: np.ndarray, density: np.ndarray, colour: str, unit: str) -> None:
    """The forecasts' distribution as bars along the bottom, 15 % of the height at their peak."""
    fig.add_trace(go.Bar(x=x, y=0.15 * density / max(density.max(), 1e-300), width=x[1] - x[0],
                         marker_color=with_alpha(colour, 0.35), showlegend=False, customdata=density,
                         hovertemplate=f"%{{customdata:,.3g}} {unit}<extra></extra>"))


def corp_figure(results: dict[str, CORP], *, title: str = "CORP reliability diagram") -> go.Figure:
    """The PAV-recalibrated probability against the forecast, one step curve per version, with the band of the
    first version that has one (where a calibrated forecaster's recalibrated curve falls, pointwise)."""
    fig = go.Figure()
    banded = next(((r, r.bands) for r in results.values() if r.bands is not None), None)
    if banded is not None:
        result, b = banded
        fig.add_trace(go.Scatter(x=b["forecast"].to_numpy(), y=b["upper"].to_numpy(), mode="lines",
                                 line=dict(width=0), hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(x=b["forecast"].to_numpy(), y=b["lower"].to_numpy(), mode="lines",
                                 line=dict(width=0), fill="tonexty", fillcolor=with_alpha(REFERENCE_COLOUR, 0.22),
                                 name=f"{100 * result.level:.0f} % consistency band"))
    _square(fig, "forecast probability", "recalibrated probability (PAV)")
    for i, (name, result) in enumerate(results.items()):
        curve = result.curve
        fig.add_trace(go.Scatter(
            x=curve["forecast"].to_numpy(), y=curve["recalibrated"].to_numpy(), mode="lines",
            line=dict(color=system_colour(i), width=3, shape="hv"),
            name=f"{name}: MCB {result.mcb:.4f}",
        ))
        counts, edges = np.histogram(curve["forecast"].to_numpy(), bins=50, range=(0, 1),
                                     weights=curve["count"].to_numpy())
        _density_bars(fig, (edges[:-1] + edges[1:]) / 2, counts, system_colour(i), "forecasts")
    fig.update_layout(barmode="overlay")
    return style_figure(fig, title)


def decomposition_figure(results: dict[str, CORP], *, title: str | None = None) -> go.Figure:
    """Three bars per version: MCB, DSC and UNC, with ``score = MCB - DSC + UNC`` above them."""
    names = list(results)
    fig = go.Figure()
    for key, label, colour in _TERMS:
        values = np.array([getattr(results[n], key) for n in names])
        fig.add_trace(go.Bar(x=names, y=values, name=label, marker_color=colour,
                             text=[f"{v:.4f}" for v in values], textposition="outside"))
    first = results[names[0]]
    rule = {"brier": "Brier", "log": "log"}[first.score_name]
    unit = " (bits)" if first.score_name == "log" else ""
    fig.update_yaxes(title_text=f"{rule} score{unit}", rangemode="tozero")
    fig.update_xaxes(ticktext=[f"{n}<br>score {results[n].score:.4f}" for n in names], tickvals=names)
    fig.update_layout(barmode="group")
    return style_figure(fig, title or f"Mean {rule} score = MCB − DSC + UNC", height=460)


def binned_figure(results: dict[str, BinnedECE], *, title: str | None = None) -> go.Figure:
    """The binned reliability diagram: per non-empty bin, the mean outcome against the mean forecast."""
    fig = _square(go.Figure(), "mean forecast in the bin (confidence)", "mean outcome in the bin (accuracy)")
    for i, (name, result) in enumerate(results.items()):
        table = result.table
        pooled = result.target == "classwise"  # every class's bins: points, not one line
        fig.add_trace(go.Scatter(
            x=table["confidence"].to_numpy(), y=table["accuracy"].to_numpy(), mode="markers" if pooled else "lines+markers",
            line=dict(color=system_colour(i), width=2.5), marker=dict(size=9),
            name=f"{name}: ECE {100 * result.ece:.2f} %", customdata=table["count"].to_numpy(),
            hovertemplate="confidence %{x:.3f}<br>accuracy %{y:.3f}<br>%{customdata:,} forecasts<extra></extra>",
        ))
    first = next(iter(results.values()))
    return style_figure(fig, title or f"Binned reliability ({first.bins} {first.strategy} bins)")


def smooth_figure(results: dict[str, SmoothECE], *, title: str = "Smooth reliability diagram") -> go.Figure:
    """The kernel-smoothed mean outcome against the forecast, one curve per version, with the bootstrap band of
    the first version that has one; drawn where the forecasts' density is at least :data:`SPARSE` of its peak."""
    fig = go.Figure()
    banded = next((r for r in results.values() if "lower" in r.curve), None)
    if banded is not None:
        curve = banded.curve
        dense = curve["density"].to_numpy() >= SPARSE * curve["density"].max()
        x = curve["forecast"].to_numpy()
        fig.add_trace(go.Scatter(x=x, y=np.where(dense, curve["upper"], np.nan), mode="lines", line=dict(width=0),
                                 hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(x=x, y=np.where(dense, curve["lower"], np.nan), mode="lines", line=dict(width=0),
                                 fill="tonexty", fillcolor=with_alpha(REFERENCE_COLOUR, 0.22),
                                 name=f"{100 * banded.level:.0f} % bootstrap band ({banded.n} replicates)"))
    _square(fig, "forecast probability", "smoothed outcome frequency")
    for i, (name, result) in enumerate(results.items()):
        curve = result.curve
        density = curve["density"].to_numpy()
        fig.add_trace(go.Scatter(
            x=curve["forecast"].to_numpy(), y=np.where(density >= SPARSE * density.max(), curve["recalibrated"],
                                                       np.nan),
            mode="lines", line=dict(color=system_colour(i), width=3),
            name=f"{name}: smooth ECE {100 * result.smece:.2f} % (σ {result.sigma:.3f})",
        ))
        _density_bars(fig, curve["forecast"].to_numpy(), density, system_colour(i), "density of forecasts")
    fig.update_layout(barmode="overlay")
    return style_figure(fig, title)
