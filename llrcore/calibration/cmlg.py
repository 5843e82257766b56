"""Constrained maximum-likelihood Gaussian calibration (CMLG), in closed form: :func:`fit_cmlg`.

The LLR of two Gaussians sharing one variance, fitted to the target and non-target scores in one pass; also the
starting point of every affine fit (:mod:`llrcore.calibration.fit`).

Reference
---------
D. van Leeuwen and N. Brümmer, "The distribution of calibrated likelihood-ratios in speaker recognition",
Interspeech 2013.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..data.checks import as_scores
from .calibrators import Affine
from .checks import flag_collapse

__all__ = ["fit_cmlg"]


def fit_cmlg(tar: ArrayLike, non: ArrayLike, alpha: float = 0.5) -> Affine:
    """Constrained maximum-likelihood Gaussian calibration, in closed form.

    With target and non-target score means ``m_e, m_d`` and variances ``s_e^2, s_d^2``, the shared variance is
    ``v = (1 - alpha) s_d^2 + alpha s_e^2`` and ``scale = (m_e - m_d) / v``, ``offset = -scale (m_e + m_d) / 2``:
    the LLR of two equal-variance Gaussians.

    Parameters
    ----------
    tar, non : array_like
        Target and non-target training scores, finite.
    alpha : float
        The weight of the target variance in the shared one, between 0 and 1 (0.5: their mean).

    Returns
    -------
    Affine
        Scores to natural-log LLRs, ``scale * score + offset``; with ``failure`` set (and a RuntimeWarning) when far
        scores make the fit collapse.

    Raises
    ------
    ValueError
        When a class is empty or has a missing or infinite score, `alpha` is outside [0, 1], or the scores have no
        spread.

    References
    ----------
    D. van Leeuwen and N. Brümmer, "The distribution of calibrated likelihood-ratios in speaker recognition",
    Interspeech 2013.
    """
    tar, non = as_scores(tar, "target scores"), as_scores(non, "non-target scores")
    if not 0 <= alpha <= 1:
        raise ValueError("CMLG's alpha weights the two variances and must be between 0 and 1.")
    if not (np.isfinite(tar).all() and np.isfinite(non).all()):
        raise ValueError("CMLG calibration needs finite scores.")
    return flag_collapse(cmlg_affine(tar, non, alpha), [tar], [non])


def cmlg_affine(tar: np.ndarray, non: np.ndarray, alpha: float) -> Affine:
    """:func:`fit_cmlg` of checked scores, not checked for a collapse (far scores make its variance overflow)."""
    with np.errstate(over="ignore", invalid="ignore"):
        variance = (1 - alpha) * non.var() + alpha * tar.var()
        if variance <= 0:
            raise ValueError("The scores have no spread, so a Gaussian calibration cannot be fitted.")
        scale = (tar.mean() - non.mean()) / variance
        return Affine(scale=float(scale), offset=float(-scale * (tar.mean() + non.mean()) / 2))
