"""devPAV and Cllr_cal: how far LLRs are from their PAV-calibrated version.

devPAV (Vergeer et al. 2021) is the mean absolute deviation, in log10 units, of the PAV transform from the identity:
the points ``(x_i, y_i)`` = (``log10 LR`` of each distinct LLR, ``log10`` of its PAV-optimal LR), joined by straight
segments, enclose with the line ``y = x`` an area ``A = sum_i integral_{x_i}^{x_{i+1}} |y(x) - x| dx``, and::

    devPAV = A / (x_last - x_first)

Points whose PAV LR is 0 or infinite are left out (the PAV's ends where only one class lies). Pathological cases, as
``lir.metrics.devpav.devpav`` (lir 1.3) decides them: the PAV transform runs horizontally to ``x = +inf`` (the
largest LLR is ``+inf`` and its PAV LLR finite) or to ``x = -inf`` (the smallest LLR is ``-inf`` with a finite PAV
LLR, while the largest PAV LLR is ``+inf``): ``inf``; every PAV LLR is ``-inf`` or ``+inf`` (the classes are
separated): NaN; one finite point: ``|x - y|``.

Where this differs from lir: each segment's area is the exact integral of ``|y(x) - x|`` (for end deviations
``d1 = y1 - x1`` and ``d2 = y2 - x2``: ``L (|d1| + |d2|) / 2`` when they share a sign, ``L (d1^2 + d2^2) / (2 (|d1| +
|d2|))`` when the segment crosses the identity). lir's ``_calcsurface`` gives the same numbers except on a segment
that starts exactly on the identity (``y1 == x1``) and rises above it (``y2 > x2``), where it returns minus the area;
and a smallest LLR of ``-inf`` with a finite PAV LLR and a finite largest PAV LLR gives NaN in lir (an infinite
x-range) but ``inf`` here (a horizontal line to ``x = -inf`` encloses an infinite area); and lir turns log10 LRs
into LRs (``10 ** x``), so an LR beyond the float range (``|log10 LR|`` above about 308) becomes 0 or infinite there
and its devPAV ``inf``, where llrcore, in log units throughout, gives the finite value (the area divided by the
x-range as a mean over segments, so that an area beyond the largest float still gives it). The PAV itself is llrcore's
(:class:`~llrcore.binary.rates.SortedScores`, ties pooled); lir's is scikit-learn's isotonic regression with the classes
weighted equally, the same solution to rounding.

``Cllr_cal = Cllr - Cllr_min`` (bits) is the other calibration measure of the same paper's comparison: the Cllr lost
to miscalibration, Cllr_min being the Cllr of the PAV LLRs.

References
----------
P. Vergeer, Y. van Schaik and M. Sjerps, "Measuring calibration of likelihood-ratio systems: A comparison of four
metrics, including a new metric devPAV", Forensic Science International 321 (2021) 110722.
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (Cllr, minCllr).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._deprecation import LLRS, old_spellings
from ..data.trials import Trials
from ._trials import sorted_classes
from .units import to_log10

__all__ = ["cllr_cal", "devpav", "identity_deviation_area", "mean_identity_deviation"]


def identity_deviation_area(x, y) -> float:
    """``sum_i integral_{x_i}^{x_{i+1}} |y(x) - x| dx`` for the polyline through the points ``(x_i, y_i)``
    (``x`` increasing): the area between it and the identity line."""
    length, deviation = _segments(x, y)
    with np.errstate(over="ignore"):  # an area beyond the largest float is inf
        return float((length * deviation).sum())


def mean_identity_deviation(x, y) -> float:
    """:func:`identity_deviation_area` divided by ``x_last - x_first``, without overflow: the mean over the segments,
    weighted by their share of the x-range (each at most 1), of their mean deviation (LLRs of +-1e308 have areas
    beyond the largest float but a finite devPAV)."""
    length, deviation = _segments(x, y)
    return float(((length / length.sum()) * deviation).sum())


def _segments(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's x-length and its mean ``|y(x) - x|``: for end deviations ``d1, d2``, ``(|d1| + |d2|) / 2`` on
    one side of the identity, ``(d1^2 + d2^2) / (2 (|d1| + |d2|))`` across it, written ``s/2 ((|d1|/s)^2 +
    (|d2|/s)^2)`` with ``s = |d1| + |d2|`` so that no square overflows."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    deviation = np.abs(y - x)
    d1, d2, length = deviation[:-1], deviation[1:], np.diff(x)
    crosses = np.sign(y - x)[:-1] * np.sign(y - x)[1:] < 0
    total = d1 + d2
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 only where the segment does not cross
        crossing = total / 2 * ((d1 / total) ** 2 + (d2 / total) ** 2)
    return length, np.where(crosses, crossing, d1 / 2 + d2 / 2)


@old_spellings(LLRS)
def devpav(tar: ArrayLike | Trials, non: ArrayLike | None = None) -> float:
    """devPAV of natural-log LLRs, in log10 units (0 for LLRs equal to their PAV transform).

    Parameters
    ----------
    tar, non
        One :class:`~llrcore.Trials` or the same-source and different-source LLRs (natural log).

    Returns
    -------
    float
        ``inf`` or NaN in the pathological cases of the module docstring.
    """
    table, _ = sorted_classes(tar, non)
    x = table.unique
    y = table.pav_llr(x)
    if (np.isposinf(x[-1]) and not np.isposinf(y[-1])) or (np.isneginf(x[0]) and not np.isneginf(y[0])):
        return np.inf  # the PAV transform runs horizontally to x = +-inf
    finite = np.isfinite(y)
    if not finite.any():
        return np.nan  # separated classes: the PAV transform is a vertical line
    x, y = to_log10(x[finite]), to_log10(y[finite])
    if x.size == 1:
        return float(abs(x[0] - y[0]))
    return mean_identity_deviation(x, y)


@old_spellings(LLRS)
def cllr_cal(tar: ArrayLike | Trials, non: ArrayLike | None = None) -> float:
    """``Cllr_cal = Cllr - Cllr_min`` in bits: the part of Cllr that a monotone recalibration (PAV) would remove.

    Equal to ``lir.metrics.cllr_cal`` (both Cllrs computed in bits); from one sort and one PAV.

    Parameters
    ----------
    tar, non
        One :class:`~llrcore.Trials` or the same-source and different-source natural-log LLRs.

    Returns
    -------
    float
        The calibration loss in bits: 0 when PAV cannot improve the LLRs, ``inf`` when Cllr is.

    Raises
    ------
    ValueError
        When a class has no LLR or an LLR is missing (NaN).
    """
    table, _ = sorted_classes(tar, non)
    return table.cllr() - table.min_cllr()
