"""Figures of llrcore: pure functions from systems (``name -> Trials``) to plotly figures.

Every function takes ``systems`` (a mapping from system name to :class:`~llrcore.data.Trials`, or a single
``Trials``), keyword-only options, and returns a :class:`plotly.graph_objects.Figure` styled for a projector.
A system has the same colour in every figure (chosen by its position in ``systems``). Nothing here imports
streamlit; the figures draw from each system's cached ``Trials.sorted`` so nothing is sorted twice.

- :func:`det_figure` — DET curves on probit axes, EER, minDCF/actDCF operating points, rule of 30.
- :func:`ape_figure` — APE curves and Cllr = minCllr + calibration-loss bars.
- :func:`normalised_bayes_error_figure` — BOSARIS normalised Bayes error plot.
- :func:`bayes_error_trapezium_figure` — Bayes error rate vs its trapezium bound ``min(P, 1-P, EER)``.
- :func:`score_histogram_figure` — per-class score histograms (computed with numpy, small for any size).
- :func:`figure_to_frame` — a figure's trace data as a long table, for "download the data" buttons.

Families with their own inputs live in submodules (also re-exported here): :mod:`.calibration` (threshold
weighting, rule comparison, calibrated vs PAV LLRs), :mod:`.decisions` (Bayes decisions out of 100 trials),
:mod:`.gaussian` (calibrated Gaussian LLRs), :mod:`.multiclass` (pair-wise bar matrix, detection APE and scatter,
confusion matrix), :mod:`.diarization` (reordered similarity matrix, score model, number of speakers, evidence
bound, timeline), :mod:`.forensic` (Tippett, ECE), :mod:`.reliability` (CORP, binned and smooth reliability, score
decomposition), :mod:`.selective` (risk-coverage), :mod:`.spoofing` (t-DCF curves, per-attack bars),
:mod:`.uncertainty` (metrics per condition, DET bands). :func:`llr_factor` and :func:`llr_unit` say how an LLR axis
is scaled and labelled in ``"ln"`` or ``"log10"``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import calibration, decisions, diarization, gaussian, multiclass
from ._style import PALETTE, decimate_curve, decimation_indices, format_percent, system_colour
from ._units import LLR_UNITS, llr_factor, llr_unit
from .bayes import APE_Y_AXES, ape_figure, bayes_error_trapezium_figure, normalised_bayes_error_figure
from .calibration import calibration_transform_figure, rule_comparison_figure, threshold_weighting_figure
from .decisions import decision_figure, errors_per_100_figure, fixed_threshold_figure
from .det import det_figure
from .diarization import (
    elbo_trace_figure,
    n_speakers_figure,
    score_distribution_figure,
    similarity_heatmap_figure,
    timeline_figure,
)
from .forensic import ece_figure, tippett_figure
from .gaussian import cllr_eer_figure, gaussian_det_figure, gaussian_llr_figure
from .multiclass import (
    confusion_matrix_figure,
    detection_ape_figure,
    detection_scatter_figure,
    pairwise_bar_matrix_figure,
)
from .reliability import binned_figure, corp_figure, decomposition_figure, smooth_figure
from .selective import risk_coverage_figure
from .scores import score_histogram_figure
from .spoofing import TDCF_X_AXES, attack_bars_figure, tdcf_figure
from .uncertainty import CONDITION_METRICS, condition_figure, with_det_bands

__all__ = [
    "det_figure",
    "ape_figure",
    "APE_Y_AXES",
    "normalised_bayes_error_figure",
    "bayes_error_trapezium_figure",
    "score_histogram_figure",
    "threshold_weighting_figure",
    "rule_comparison_figure",
    "calibration_transform_figure",
    "decision_figure",
    "errors_per_100_figure",
    "fixed_threshold_figure",
    "gaussian_llr_figure",
    "gaussian_det_figure",
    "cllr_eer_figure",
    "pairwise_bar_matrix_figure",
    "detection_ape_figure",
    "detection_scatter_figure",
    "confusion_matrix_figure",
    "similarity_heatmap_figure",
    "score_distribution_figure",
    "n_speakers_figure",
    "elbo_trace_figure",
    "timeline_figure",
    "tippett_figure",
    "ece_figure",
    "corp_figure",
    "binned_figure",
    "smooth_figure",
    "risk_coverage_figure",
    "decomposition_figure",
    "tdcf_figure",
    "attack_bars_figure",
    "TDCF_X_AXES",
    "condition_figure",
    "CONDITION_METRICS",
    "with_det_bands",
    "llr_factor",
    "llr_unit",
    "LLR_UNITS",
    "figure_to_frame",
    "decimate_curve",
    "decimation_indices",
    "system_colour",
    "format_percent",
    "PALETTE",
]


def _values(data) -> np.ndarray | None:
    if data is None:
        return None
    values = np.asarray(data)
    if values.dtype.kind in "iufb":
        return values.astype(np.float64)
    return values.astype(object)


def figure_to_frame(fig: go.Figure) -> pd.DataFrame:
    """Long-form table of the data of a figure's traces: one row per point, columns ``trace``, ``x``, ``y``.

    Traces are named by ``meta["label"]`` where the figure gives one (e.g. ``"ASV actual"`` for a curve whose
    legend entry also carries numbers), else by their legend name (``trace <i>`` when unnamed); the name is
    prefixed with the system's name when several traces share it (the class histograms of several systems).
    Where a trace's ``meta`` names the columns of its ``customdata`` (the DET figure stores the rates as
    fractions there, its x and y being probits; the histograms store bin edges and counts), those columns are
    added, empty for other traces. Legend-only keys and the helper trace that only draws an axis are left out.

    Examples
    --------
    >>> frame = figure_to_frame(det_figure(trials))          # doctest: +SKIP
    >>> frame.to_csv("det.csv", index=False)                 # doctest: +SKIP
    """
    parts = []
    names = [trace.name if trace.name else f"trace {i}" for i, trace in enumerate(fig.data)]
    for index, trace in enumerate(fig.data):
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        if meta.get("kind") in ("axis", "legend_key"):
            continue
        label = meta.get("label") or names[index]
        if names.count(label) > 1 and meta.get("system") and not label.startswith(str(meta["system"])):
            label = f"{meta['system']}: {label}"  # e.g. the class histograms of several systems
        x, y = _values(getattr(trace, "x", None)), _values(getattr(trace, "y", None))
        given = x if x is not None else y
        if given is None:
            continue
        n = given.shape[0]
        if x is None:
            x = np.arange(n, dtype=np.float64)
        if y is None:
            y = np.full(n, np.nan)
        part = pd.DataFrame({"trace": label, "x": x, "y": y})
        columns = meta.get("columns")
        custom = getattr(trace, "customdata", None)
        if columns and custom is not None:
            custom = np.asarray(custom)
            if custom.ndim == 1:
                custom = custom[:, None]
            for k, column in enumerate(columns[: custom.shape[1]]):
                part[column] = custom[:, k]
        parts.append(part)
    if not parts:
        return pd.DataFrame({"trace": pd.Series(dtype=object), "x": pd.Series(dtype=float),
                             "y": pd.Series(dtype=float)})
    return pd.concat(parts, ignore_index=True)
