"""Non-parametric monotone calibration by PAV: :func:`fit_pav`, finite and monotone on scores it has not seen.

Reference
---------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (PAV).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..binary.rates import SortedScores
from ..data.checks import as_scores
from .calibrators import PAVCalibrator

__all__ = ["fit_pav"]


def fit_pav(tar: ArrayLike, non: ArrayLike) -> PAVCalibrator:
    """PAV calibration that stays finite and monotone on unseen scores.

    One pseudo-target is added at the lowest score and one pseudo-non-target at the highest, so that every PAV
    block holds both classes and every LLR is finite (the end blocks would otherwise be +-inf). The block LLRs
    hold over each block's score range and are interpolated linearly in the gaps between blocks.

    Parameters
    ----------
    tar, non : array_like
        Target and non-target training scores, finite.

    Returns
    -------
    PAVCalibrator
        Scores to natural-log LLRs: the block LLRs at knots (each block's lowest and highest score), linear between.

    Raises
    ------
    ValueError
        When a class is empty or has a missing or infinite score.
    """
    tar, non = as_scores(tar, "target scores"), as_scores(non, "non-target scores")
    if not (np.isfinite(tar).all() and np.isfinite(non).all()):
        raise ValueError("PAV calibration needs finite scores.")
    lowest, highest = min(tar.min(), non.min()), max(tar.max(), non.max())
    table = SortedScores(np.append(tar, lowest), np.append(non, highest))
    blocks = table.pav
    last = np.append(blocks.first[1:], table.unique.size) - 1
    knots = np.column_stack([table.unique[blocks.first], table.unique[last]]).ravel()
    return PAVCalibrator(knots=knots, llrs=np.repeat(blocks.llr, 2))
