"""LLR axes in the units a person reads them in: natural log (``"ln"``, llrcore's own) or ``"log10"``.

Figures compute and draw in natural log (DESIGN.md); a figure whose axis is an LLR takes ``units=`` and, for log10,
:func:`rescale_llr_axes` divides the values on that axis by ``ln 10`` — traces, vertical lines and shaded bands,
annotations placed on the axis, the axis range — and, on a density axis, multiplies the densities by ``ln 10`` so
that each curve keeps unit area. Labels with LLR numbers in them go through :func:`llr_number`.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..forensic.units import LN10

__all__ = ["LLR_UNITS", "check_llr_units", "llr_factor", "llr_number", "llr_unit", "rescale_llr_axes"]

#: The units an LLR may be shown in.
LLR_UNITS = ("ln", "log10")


def check_llr_units(units: str) -> str:
    """`units`, or a ValueError saying what it may be."""
    if units not in LLR_UNITS:
        raise ValueError(f"units is 'ln' (natural-log LLRs) or 'log10' (log10 LRs), not {units!r}.")
    return units


def llr_factor(units: str, drawn: str = "ln") -> float:
    """What a value drawn in `drawn` units is multiplied by to be in `units`."""
    check_llr_units(units)
    return 1.0 if units == check_llr_units(drawn) else (1.0 / LN10 if units == "log10" else LN10)


def llr_unit(units: str) -> str:
    """``"log10 LR"`` or ``"ln LR"``: what an axis of LLRs in `units` says."""
    return "log10 LR" if check_llr_units(units) == "log10" else "ln LR"


def llr_number(llr: float, units: str, spec: str = "+.2f") -> str:
    """A natural-log LLR written in `units` with `spec` and a typeset minus sign (``"−1.00"``; no ``"−0.00"``)."""
    value = float(llr) * llr_factor(units)
    text = format(value, spec)
    if float(text.lstrip("+-−") or 0) == 0:
        text = format(0.0, spec)
    return text.replace("-", "−")


def _scaled(values, factor: float):
    return None if values is None else np.asarray(values, dtype=np.float64) * factor


def _on(ref, letter: str) -> bool:
    """Whether a trace's or shape's axis reference (``"x"``, ``"x2"``, ``None`` for the first) is a `letter` axis
    (``"x domain"`` and ``"paper"`` are not)."""
    ref = ref or letter
    return ref.startswith(letter) and ref[1:].isdigit() or ref == letter


def rescale_llr_axes(fig: go.Figure, units: str, *, llr_axes: str = "x", density_axis: str | None = None,
                     drawn: str = "ln") -> go.Figure:
    """Show `fig`'s LLR axes (``"x"``, ``"y"`` or ``"xy"``; every subplot's) in `units` instead of `drawn`.

    Scales the trace values, the shapes and annotations placed on those axes and the axis ranges; a `density_axis`
    (``"y"``) is divided by the same factor (a density per ln unit is ``ln 10`` times smaller than per log10 unit).
    Titles are the figure's own business: it knows what the axis is. Returns the figure.
    """
    factor = llr_factor(units, drawn)
    if factor == 1.0:
        return fig
    scales = {letter: factor for letter in llr_axes}
    if density_axis:
        scales[density_axis] = 1.0 / factor
    for trace in fig.data:
        for letter, scale in scales.items():
            if _on(getattr(trace, f"{letter}axis", None), letter) and getattr(trace, letter, None) is not None:
                setattr(trace, letter, _scaled(getattr(trace, letter), scale))
    for shape in fig.layout.shapes:
        for letter, scale in scales.items():
            if _on(shape[f"{letter}ref"], letter):
                shape[f"{letter}0"], shape[f"{letter}1"] = shape[f"{letter}0"] * scale, shape[f"{letter}1"] * scale
    for annotation in fig.layout.annotations:
        for letter, scale in scales.items():
            if _on(annotation[f"{letter}ref"], letter) and annotation[letter] is not None:
                annotation[letter] = annotation[letter] * scale
    for name in fig.layout.to_plotly_json():
        axis = fig.layout[name] if name[0] in scales and name[1:5] == "axis" else None
        if axis is not None and axis.range is not None:  # a log axis's range is in log10 of the values
            axis.range = [value + np.log10(scales[name[0]]) if axis.type == "log" else value * scales[name[0]]
                          for value in axis.range]
    return fig
