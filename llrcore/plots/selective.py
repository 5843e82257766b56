"""The risk-coverage figure of selective prediction: the share of wrong predictions among those accepted, as the
most confident are accepted first (ties together), against the share accepted; with the ideal ranking's curve and
the risk of accepting everything.

Reference: Y. Geifman, G. Uziel and R. El-Yaniv, "Bias-reduced uncertainty estimation for deep neural classifiers",
ICLR 2019 (their fig. 1 draws such curves; AURC is the area under them).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..multiclass.selective import RiskCoverage
from ._style import REFERENCE_COLOUR, decimate_curve, style_figure, system_colour

__all__ = ["risk_coverage_figure"]


def risk_coverage_figure(results: dict[str, RiskCoverage], *, title: str = "Risk against coverage") -> go.Figure:
    """One step curve per version (the risk is flat across a block of tied confidences, accepted together), the
    ideal ranking of the first version (every right prediction first) and its risk at full coverage, in percent;
    each curve decimated in plot space to at most 2,000 points (:func:`~llrcore.plots.decimate_curve`)."""
    fig = go.Figure()
    first = next(iter(results.values()))
    ideal = first.ideal_curve()
    x, y = decimate_curve(100 * np.r_[0.0, ideal["coverage"]], 100 * np.r_[0.0, ideal["risk"]])
    fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=dict(color=REFERENCE_COLOUR, dash="dash", width=2),
                             name=f"ideal ranking: AURC {100 * first.ideal_aurc:.2f} %"))
    fig.add_trace(go.Scatter(x=np.array([0.0, 100.0]), y=np.full(2, 100 * first.error_rate), mode="lines",
                             line=dict(color=REFERENCE_COLOUR, dash="dot", width=1.5),
                             name=f"accepting everything: risk {100 * first.error_rate:.2f} %"))
    for i, (name, result) in enumerate(results.items()):
        x, y = decimate_curve(*_staircase(result.curve["coverage"].to_numpy(), result.curve["risk"].to_numpy()))
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line=dict(color=system_colour(i), width=3),
            name=f"{name}: AURC {100 * result.aurc:.2f} %, E-AURC {100 * result.e_aurc:.2f} %",
            hovertemplate="coverage %{x:.1f} %<br>risk %{y:.2f} %<extra></extra>",
        ))
    fig.update_xaxes(title_text="coverage (% of predictions accepted, most confident first)", range=[0, 100])
    fig.update_yaxes(title_text="risk (% of accepted predictions wrong)", rangemode="tozero")
    return style_figure(fig, title)


def _staircase(coverage: np.ndarray, risk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The corners of the step curve in percent, ``(0, r_1), (C_1, r_1), (C_1, r_2), (C_2, r_2), ...``: each block's
    risk spans the coverages from the previous block's to its own. Drawn as explicit corners, not as a plotly step
    shape, so that a curve of many blocks is decimated in plot space like every other curve (the corners of a long
    step are kept exactly)."""
    return 100 * np.repeat(np.r_[0.0, coverage], 2)[1:-1], 100 * np.repeat(risk, 2)
