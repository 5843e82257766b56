"""Selective prediction: the risk-coverage curve, its area (AURC) and the excess over the ideal ranking (E-AURC).

A classifier that may abstain accepts its most confident predictions first. Ranked by confidence, highest first,
accepting the first ``i`` of ``N`` predictions covers ``i / N`` of them at the risk ``errors_i / i`` (the share of
wrong ones among the accepted). Predictions of equal confidence cannot be told apart, so they are accepted together:
for every ``i`` inside a block of ties the risk is the one after the whole block. The area under the curve averages
the risk over the ``N`` coverages:

``AURC = (1 / N) sum_{i=1}^{N} risk(i) = sum_g (n_g / N) E_g / C_g``

with, for each block ``g`` of ``n_g`` tied predictions, ``C_g`` the predictions accepted up to and including it and
``E_g`` the errors among them. The ideal ranking puts the ``N_c`` right predictions first:
``AURC* = (1 / N) sum_{i = N_c + 1}^{N} (i - N_c) / i``, and ``E-AURC = AURC - AURC*`` is what the ranking loses to
it (0 for a perfect ranking, whatever the accuracy). Geifman et al.'s closed form
``r + (1 - r) ln(1 - r)`` (``r`` the error rate) is the limit of ``AURC*`` for large ``N``.

References
----------
Y. Geifman, G. Uziel and R. El-Yaniv, "Bias-reduced uncertainty estimation for deep neural classifiers", ICLR 2019
(AURC, E-AURC). R. El-Yaniv and Y. Wiener, "On the foundations of noise-free selective classification", JMLR 11, 2010
(risk-coverage curve).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

__all__ = ["RiskCoverage", "aurc"]


@dataclass(frozen=True)
class RiskCoverage:
    """Risk-coverage curve of ranked predictions, its area and its excess over the ideal ranking (:func:`aurc`).

    Attributes
    ----------
    aurc : float
        Area under the risk-coverage curve: the risk averaged over the ``N`` coverages.
    e_aurc : float
        ``aurc - ideal_aurc``.
    ideal_aurc : float
        AURC of the ideal ranking (every right prediction before every wrong one).
    error_rate : float
        The risk when every prediction is accepted (coverage 1).
    curve : DataFrame
        One row per block of tied confidences, highest first: ``confidence`` (the block's), ``accepted`` (predictions
        accepted with it), ``coverage`` (``accepted / N``), ``risk`` (errors among the accepted / accepted).
    """

    aurc: float
    e_aurc: float
    ideal_aurc: float
    error_rate: float
    curve: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The risk-coverage curve (:attr:`curve`)."""
        return self.curve

    def ideal_curve(self) -> pd.DataFrame:
        """The ideal ranking's curve at every coverage ``i / N``: ``coverage``, ``risk = max(0, i - N_c) / i``."""
        n = int(self.curve["accepted"].iloc[-1])
        i = np.arange(1, n + 1)
        right = n - round(self.error_rate * n)
        return pd.DataFrame({"coverage": i / n, "risk": np.maximum(0, i - right) / i})

    def sentence(self) -> str:
        """AURC, E-AURC and the full-coverage risk in percent."""
        return (f"AURC {100 * self.aurc:.2f} % (risk averaged over every coverage, most confident first, ties "
                f"accepted together); E-AURC {100 * self.e_aurc:.2f} % above the ideal ranking's "
                f"{100 * self.ideal_aurc:.2f} %; accepting everything, the risk is {100 * self.error_rate:.2f} %.")


def _checked(confidence: ArrayLike, correct: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(confidence, dtype=np.float64).reshape(-1)
    right = np.asarray(correct).reshape(-1)
    if c.size == 0 or c.size != right.size:
        raise ValueError(f"The confidences ({c.size}) and the correct flags ({right.size}) must be as many, and not "
                         "none.")
    if not np.all(np.isfinite(c)):
        raise ValueError("Every confidence must be a finite number.")
    if not np.all((right == 0) | (right == 1)):
        raise ValueError("correct must say, for every prediction, whether it is right: True/False or 1/0.")
    return c, right.astype(bool)


def aurc(confidence: ArrayLike, correct: ArrayLike) -> RiskCoverage:
    """Area under the risk-coverage curve, accepting the most confident predictions first and ties together, and
    its excess over the ideal ranking (Geifman et al. 2019).

    ``AURC = (1/N) sum_i risk(i)`` with ``risk(i)`` the error rate among the ``i`` most confident predictions
    (the whole block of ties that ``i`` falls in accepted with it); ``E-AURC = AURC - AURC*``,
    ``AURC* = (1/N) sum_{i>N_c} (i - N_c)/i`` (module docstring).

    Parameters
    ----------
    confidence : array_like of float, shape (T,)
        Any score that ranks the predictions (higher: more confident), e.g. the top label's probability.
    correct : array_like of bool, shape (T,)
        Whether each prediction is right.

    Returns
    -------
    RiskCoverage
        ``.aurc``, ``.e_aurc``, ``.ideal_aurc``, ``.error_rate`` and the ``.curve`` (``to_frame()``).

    Examples
    --------
    >>> import llrcore as lc
    >>> result = lc.aurc([0.9, 0.8, 0.8, 0.6], [True, False, True, False])
    >>> round(result.aurc, 4), round(result.e_aurc, 4)
    (0.2917, 0.0833)
    """
    c, right = _checked(confidence, correct)
    n = c.size
    order = np.argsort(-c, kind="stable")
    ranked, errors = c[order], np.cumsum(~right[order])
    ends = np.flatnonzero(np.append(ranked[1:] != ranked[:-1], True))  # last of each block of ties
    accepted = ends + 1
    risk = errors[ends] / accepted
    block = np.diff(accepted, prepend=0)
    area = float(np.sum(block * risk) / n)
    i = np.arange(1, n + 1)
    n_right = int(right.sum())
    ideal = float(np.sum(np.maximum(0, i - n_right) / i) / n)
    curve = pd.DataFrame({"confidence": ranked[ends], "accepted": accepted, "coverage": accepted / n, "risk": risk})
    return RiskCoverage(area, area - ideal, ideal, float(errors[-1] / n), curve)
