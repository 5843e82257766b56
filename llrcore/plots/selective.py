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
from ._style import REFERENCE_COLOUR, style_figure, system_colour

__all__ = ["risk_coverage_figure"]


def risk_coverage_figure(results: dict[str, RiskCoverage], *, title: str = "Risk against coverage") -> go.Figure:
    """One step curve per version (the risk is flat across a block of tied confidences, accepted together), the
    ideal ranking of the first version (every right prediction first) and its risk at full coverage, in percent."""
    fig = go.Figure()
    first = next(iter(results.values()))
    ideal = first.ideal_curve()
    fig.add_trace(go.Scatter(x=100 * np.r_[0.0, ideal["coverage"]], y=100 * np.r_[0.0, ideal["risk"]], mode="lines",
                             line=dict(color=REFERENCE_COLOUR, dash="dash", width=2),
                             name=f"ideal ranking: AURC {100 * first.ideal_aurc:.2f} %"))
    fig.add_trace(go.Scatter(x=np.array([0.0, 100.0]), y=np.full(2, 100 * first.error_rate), mode="lines",
                             line=dict(color=REFERENCE_COLOUR, dash="dot", width=1.5),
                             name=f"accepting everything: risk {100 * first.error_rate:.2f} %"))
    for i, (name, result) in enumerate(results.items()):
        curve = result.curve
        risk = curve["risk"].to_numpy()
        # (0, r_1), (C_1, r_1), (C_2, r_2)...: drawn vertical-then-horizontal, each block's risk spans its coverages
        fig.add_trace(go.Scatter(
            x=100 * np.r_[0.0, curve["coverage"]], y=100 * np.r_[risk[0], risk], mode="lines",
            line=dict(color=system_colour(i), width=3, shape="vh"),
            name=f"{name}: AURC {100 * result.aurc:.2f} %, E-AURC {100 * result.e_aurc:.2f} %",
            hovertemplate="coverage %{x:.1f} %<br>risk %{y:.2f} %<extra></extra>",
        ))
    fig.update_xaxes(title_text="coverage (% of predictions accepted, most confident first)", range=[0, 100])
    fig.update_yaxes(title_text="risk (% of accepted predictions wrong)", rangemode="tozero")
    return style_figure(fig, title)
