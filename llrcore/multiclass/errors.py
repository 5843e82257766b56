"""The binned calibration errors machine-learning papers report, ECE, ACE, MCE and RMS-CE, with the binning named.

All four read the non-empty bins of :func:`~llrcore.multiclass.binned.binned_ece` (right-closed bins; equal-width
``((k-1)/M, k/M]`` or equal-mass, edges at quantiles of the forecasts): with ``n_b`` forecasts in bin ``b`` of ``N``,
``gap_b = acc_b - conf_b`` (mean outcome minus mean forecast) and ``B`` the number of non-empty bins,

- ``ECE = sum_b (n_b / N) |gap_b|`` (Naeini et al. 2015; Guo et al. 2017),
- ``ACE = (1 / B) sum_b |gap_b|``, every bin alike whatever it holds (netcal's "average calibration error"; with
  equal-mass bins, the adaptive calibration error of Nixon et al. 2019 for one forecast),
- ``MCE = max_b |gap_b|`` (Naeini et al. 2015),
- ``RMS-CE = sqrt(sum_b (n_b / N) gap_b^2)`` (Hendrycks et al. 2019; Nixon et al. 2019).

An empty bin has no mean outcome: it is left out of every sum, of ``B`` and of the diagram (netcal issue #52).

References
----------
M. P. Naeini, G. Cooper and M. Hauskrecht, "Obtaining well calibrated probabilities using Bayesian binning", AAAI
2015. C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural networks", ICML 2017.
J. Nixon, M. W. Dusenberry, L. Zhang, G. Jerfel and D. Tran, "Measuring calibration in deep learning", CVPR
Workshops 2019. D. Hendrycks, M. Mazeika and T. Dietterich, "Deep anomaly detection with outlier exposure", ICLR 2019.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .binned import BinnedECE, binned_ece

__all__ = ["BINNINGS", "CalibrationErrors", "calibration_errors"]

#: binning -> :func:`~llrcore.multiclass.binned.binned_ece`'s strategy
BINNINGS = {"equal-width": "uniform", "equal-mass": "quantile"}
_BINNING_OF = {strategy: binning for binning, strategy in BINNINGS.items()}
#: measure -> its definition, as the table says it
DEFINITIONS = {
    "ECE": "sum over bins of (count / N) |accuracy - confidence|",
    "ACE": "mean over non-empty bins of |accuracy - confidence|, every bin alike",
    "MCE": "largest |accuracy - confidence| of any non-empty bin",
    "RMS-CE": "square root of the sum over bins of (count / N) (accuracy - confidence)^2",
}


@dataclass(frozen=True)
class CalibrationErrors:
    """ECE, ACE, MCE and RMS-CE of one forecast over one binning (:func:`calibration_errors`).

    Attributes
    ----------
    ece, ace, mce, rms_ce : float
        Fractions (ML papers often print them in percent).
    binning : str
        ``"equal-width"`` or ``"equal-mass"``.
    bins : int
        Bins asked for; ``table`` holds the non-empty ones.
    target : str
        ``"binary"``, ``"top-label"`` or the class number against the rest.
    table : DataFrame
        One row per non-empty bin: ``lower``, ``upper``, ``count``, ``confidence``, ``accuracy``, ``gap``.
    """

    ece: float
    ace: float
    mce: float
    rms_ce: float
    binning: str
    bins: int
    target: str
    table: pd.DataFrame

    @classmethod
    def of(cls, binned: BinnedECE) -> CalibrationErrors:
        """The four errors over the bins of a :func:`~llrcore.multiclass.binned.binned_ece` result."""
        gap, count = binned.table["gap"].to_numpy(), binned.table["count"].to_numpy()
        return cls(binned.ece, float(np.mean(np.abs(gap))), binned.mce,
                   float(np.sqrt(np.sum(count / count.sum() * gap ** 2))), _BINNING_OF[binned.strategy], binned.bins,
                   binned.target, binned.table)

    def to_frame(self, *, percent: bool = False) -> pd.DataFrame:
        """One row per measure: ``measure``, ``value`` (``value %`` with `percent`), ``binning`` and ``definition``."""
        scale, column = (100.0, "value %") if percent else (1.0, "value")
        values = (self.ece, self.ace, self.mce, self.rms_ce)
        return pd.DataFrame({"measure": list(DEFINITIONS), column: [scale * v for v in values],
                             "binning": self.binning_name, "definition": list(DEFINITIONS.values())})

    @property
    def binning_name(self) -> str:
        """The binning in words, e.g. "15 equal-width bins, 14 non-empty"."""
        used = len(self.table)
        return f"{self.bins} {self.binning} bins" + ("" if used == self.bins else f", {used} non-empty")

    def sentence(self) -> str:
        """The four errors in percent with the binning they were computed over."""
        return (f"ECE {100 * self.ece:.2f} %, ACE {100 * self.ace:.2f} %, MCE {100 * self.mce:.2f} %, RMS-CE "
                f"{100 * self.rms_ce:.2f} % ({self.target}, {self.binning_name}).")


def calibration_errors(probabilities: ArrayLike, labels: ArrayLike, *, binning: str = "equal-width", bins: int = 15,
                       target: str | int = "top-label") -> CalibrationErrors:
    """ECE, ACE, MCE and RMS calibration error over the non-empty bins of one binning.

    ``ECE = sum_b (n_b/N) |gap_b|``, ``ACE = mean_b |gap_b|``, ``MCE = max_b |gap_b|``,
    ``RMS-CE = sqrt(sum_b (n_b/N) gap_b^2)`` with ``gap_b`` the bin's mean outcome minus its mean forecast
    (module docstring for the references).

    Parameters
    ----------
    probabilities : array_like, shape (T,) or (T, K)
        Probability of class 1 (labels 0/1), or one probability per class.
    labels : array_like of int
    binning : {"equal-width", "equal-mass"}
        Bins of equal width on [0, 1], or holding (about) equal numbers of forecasts, their edges at quantiles.
    bins : int
    target : "top-label" or int
        For a matrix: the top label's confidence against whether it is right, or class ``k`` against the rest.

    Returns
    -------
    CalibrationErrors
        The four errors, the binning, and the table of non-empty bins.

    Examples
    --------
    >>> import llrcore as lc
    >>> errors = lc.calibration_errors([0.1, 0.2, 0.3, 0.9], [0, 1, 1, 1], bins=2)
    >>> [round(v, 4) for v in (errors.ece, errors.ace, errors.mce, errors.rms_ce)]
    [0.375, 0.2833, 0.4667, 0.4072]
    """
    if binning not in BINNINGS:
        raise ValueError(f"binning must be one of {', '.join(BINNINGS)}, not {binning!r}.")
    return CalibrationErrors.of(binned_ece(probabilities, labels, bins, BINNINGS[binning], target=target))
