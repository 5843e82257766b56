"""The verbal scale of the ENFSI guideline for evaluative reporting (2015): words for the size of an LR.

The bands, in LR (and ``log10 LR``) terms, for LR > 1 ("support for the first proposition, H1, rather than H2")::

    LR                        log10 LR     verbal equivalent
    1                         0            the findings support neither proposition
    1 < LR < 10               (0, 1)       weak support
    10 <= LR < 100            [1, 2)       moderate support
    100 <= LR < 1,000         [2, 3)       moderately strong support
    1,000 <= LR < 10,000      [3, 4)       strong support
    10,000 <= LR < 1,000,000  [4, 6)       very strong support
    LR >= 1,000,000           [6, inf]     extremely strong support

and the same bands of ``1 / LR`` for LR < 1 (support for H2 rather than H1): ``1/LR = 10`` is moderate support for
H2. At a band edge the stronger band applies (each band includes its lower edge, as the guideline's top band,
"1,000,000 and above", does): LR = 10 is moderate, LR = 1,000,000 extremely strong, LR = 0.1 moderate support for
H2. An LLR within ``1e-12`` relative of an edge counts as on it, so that ``np.log(100)`` and ``from_log10(2)``,
which differ in the last binary digit, both give moderately strong support.

The verbal scale describes the strength of the findings, never the probability of a proposition.

References
----------
ENFSI, "ENFSI guideline for evaluative reporting in forensic science: strengthening the evaluation of forensic
results across Europe (STEOFRAE)", European Network of Forensic Science Institutes, 2015 (its verbal scale table).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .units import to_log10

__all__ = ["VERBAL_BANDS", "verbal_scale", "verbal_scale_table"]

VERBAL_BANDS = (
    (0.0, 1.0, "weak"),
    (1.0, 2.0, "moderate"),
    (2.0, 3.0, "moderately strong"),
    (3.0, 4.0, "strong"),
    (4.0, 6.0, "very strong"),
    (6.0, np.inf, "extremely strong"),
)
"""``(lower, upper, strength)`` of each band in ``|log10 LR|``; a band holds ``lower <= |log10 LR| < upper`` (the
weak band excludes 0: LR = 1 is no support)."""

NEITHER = "the findings support neither proposition"
_EDGES = np.array([lower for lower, _, _ in VERBAL_BANDS[1:]])
_RELATIVE_EDGE = 1e-12


def _strength(magnitude: np.ndarray) -> np.ndarray:
    """Index into :data:`VERBAL_BANDS` of each ``|log10 LR| > 0`` (snapped to an edge within 1e-12 relative)."""
    nearest = _EDGES[np.clip(np.searchsorted(_EDGES, magnitude), 0, _EDGES.size - 1)]
    previous = _EDGES[np.clip(np.searchsorted(_EDGES, magnitude) - 1, 0, _EDGES.size - 1)]
    for edge in (nearest, previous):
        magnitude = np.where(np.abs(magnitude - edge) <= _RELATIVE_EDGE * edge, edge, magnitude)
    return np.searchsorted(_EDGES, magnitude, side="right")


def verbal_scale(llr: ArrayLike, *, propositions: tuple[str, str] = ("H1", "H2")) -> str | np.ndarray:
    """The ENFSI verbal equivalent of natural-log LLRs (the bands in the module docstring).

    Parameters
    ----------
    llr : float or array_like
        Natural-log LLRs (``lc.from_log10`` turns ``log10 LR`` into them); ``+-inf`` is extremely strong support.
    propositions : (str, str)
        How to name the first proposition (favoured by LR > 1) and the second, e.g. ``("the same-source
        proposition", "the different-source proposition")``.

    Returns
    -------
    str or ndarray of str
        E.g. ``"moderate support for H1 rather than H2"``, or ``"the findings support neither proposition"`` at
        LR = 1; an array for an array.

    Raises
    ------
    ValueError
        For a missing value (NaN): a missing LR has no verbal equivalent.

    Examples
    --------
    >>> verbal_scale(np.log(10))
    'moderate support for H1 rather than H2'
    """
    values = np.asarray(llr, dtype=np.float64)
    if np.isnan(values).any():
        raise ValueError("An LLR is missing (NaN): a missing value has no verbal equivalent.")
    first, second = propositions
    magnitude = np.abs(to_log10(values.ravel()))
    band = _strength(magnitude)
    words = np.array([strength for _, _, strength in VERBAL_BANDS], dtype=object)[band]
    phrases = np.where(values.ravel() > 0, [f"{w} support for {first} rather than {second}" for w in words],
                       [f"{w} support for {second} rather than {first}" for w in words])
    phrases = np.where(values.ravel() == 0, NEITHER, phrases).astype(object).reshape(values.shape)
    return str(phrases) if values.ndim == 0 else phrases


def verbal_scale_table() -> pd.DataFrame:
    """The scale as a table, one row per band of LR > 1: ``log10_lr_from``, ``log10_lr_to`` (the band holds
    ``from <= log10 LR < to``), ``lr_from``, ``lr_to`` and ``support``; the same bands of ``1 / LR`` hold for the
    second proposition, and LR = 1 supports neither."""
    lower = np.array([b[0] for b in VERBAL_BANDS])
    upper = np.array([b[1] for b in VERBAL_BANDS])
    return pd.DataFrame({"log10_lr_from": lower, "log10_lr_to": upper, "lr_from": 10.0 ** lower,
                         "lr_to": 10.0 ** upper, "support": [f"{b[2]} support" for b in VERBAL_BANDS]})
