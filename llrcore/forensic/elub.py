"""Empirical lower and upper bounds (ELUB) of LLRs, and a calibration that never goes beyond them.

Vergeer et al. (2016) ask how large an LR the validation data can support. For an LR threshold ``t`` (a decision
"accept H1 when LR > t"), the expected utility, in the units of the normalised Bayes error, is::

    EU_system(t) = Pmiss(t) + t Pfa(t),   Pmiss(t) = #{tar: LR <= t} / N_tar,   Pfa(t) = #{non: LR > t} / N_non

and that of the neutral system (LR = 1 for every trial) is ``EU_neutral(t) = min(t, 1)``. Before counting, one
misleading LR is added to each class (`add_misleading`): a same-source LR of 0 (it always misses) and a
different-source LR of infinity (it always false-alarms), so a finite validation set can never support an infinite
LR. The system is no better than the neutral one wherever ``EU_neutral(t) / EU_system(t) < 1``. The ELUB bounds are
the thresholds nearest to LR = 1 on either side where that happens: LLRs beyond them say more than the data can
show, and a bounded system reports them as the bound.

Two definitions, selected by `step`:

- ``step=0.01`` (default): exactly what ``lir.algorithms.bayeserror.elub`` (lir 1.3, the NFI's package, after the
  authors' MATLAB code) computes. The thresholds are a grid of ``log10 t`` in steps of 0.01 from below the
  smallest ``max(log10 LR, -log10(N_tar + 1))`` to above the largest ``min(log10 LR, log10(N_non + 1))``; log10
  LRs are first clipped to ``[-9, 9]``; the lower bound is one step above the largest failing grid threshold
  at or below 0, the upper bound one step below the smallest failing one at or above 0 (a grid end when none
  fails); a bound on the wrong side of 0 becomes 0. The same floating-point operations as lir's, so the same
  digits. One step more than lir: the log10 LRs (llrcore's natural-log LLRs divided by ``ln 10``) are rounded to
  12 decimals after clipping. A file of log10 LRs with few decimals (``0.22``) puts LRs exactly on the grid
  thresholds, where lir's strict ``LR > t`` is decided by the last binary digit, and the round trip through
  natural log moves about one value in seven by one unit in the last place: without the rounding a bound came
  out one grid step off lir's on 17 of 300 synthetic sets of 2-decimal log10 LRs (3 of 300 with 1 decimal). The
  rounding gives back, bit for bit, the number a file with at most 12 decimals held, and moves any other value
  by less than ``5e-13``.
- ``step=None``: the grid-free definition, the same inequalities solved exactly between the distinct LLRs:
  ``lower = sup{log t <= 0: EU_neutral(t) < EU_system(t)}``, ``upper = inf{log t >= 0: ...}``.

Where they differ: a grid bound lies on the grid, at most one step (0.01 in log10, a factor of 1.023 in LR) closer
to LR = 1 than the grid-free bound, as long as every stretch of failing thresholds is wider than a step; a failing
stretch narrower than the step can fall between two grid points and be missed, and then the grid bound is further
from 1 than the grid-free one, by up to the width of the next passing stretch. The grid also stops at the most
extreme (clipped) LLR: where nothing fails before that, lir reports the grid's end. On the cartridge-case data of
the tests the grid bounds (-0.84, 1.55) are closer to 1 than the grid-free ones (-0.8484, 1.5530) by 0.0084 and 0.0030
log10 units; on the FVC-AUS demo (-2.93, 4.97) against (-2.9304, 4.9738), by 0.0004 and 0.0038.

References
----------
P. Vergeer, A. van Es, A. de Jongh, I. Alberink and R. Stoel, "Numerical likelihood ratios outputted by LR systems
are often based on extrapolation: When to stop extrapolating?", Science & Justice 56 (2016) 482-491.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._deprecation import LLRS, old_spellings
from ..data.trials import Trials
from ._trials import sorted_classes
from .units import from_log10, to_log10

__all__ = ["ElubBounded", "ElubBounds", "elub_bounded", "elub_bounds"]

LIR_STEP = 0.01
LIR_EXTREMES = (-9.0, 9.0)


@dataclass(frozen=True)
class ElubBounds:
    """The ELUB bounds of one set of validation LLRs.

    Attributes
    ----------
    lower, upper : float
        The bounds as natural-log LLRs (``lower <= 0 <= upper``; ``-inf``/``inf`` when nothing fails, which needs
        ``add_misleading=0``).
    lower_log10, upper_log10 : float
        The same as ``log10 LR``, as computed (on the grid, with `step`, these are lir's numbers to the last digit).
    step : float or None
        The log10 grid step, or None for the grid-free definition.
    add_misleading : int
        Misleading LRs added to each class.
    n_tar, n_non : int
        Number of same-source and different-source validation LLRs.
    """

    lower: float
    upper: float
    lower_log10: float
    upper_log10: float
    step: float | None
    add_misleading: int
    n_tar: int
    n_non: int

    def clip(self, llr) -> np.ndarray:
        """Natural-log LLRs limited to ``[lower, upper]``; values inside are returned unchanged."""
        return np.clip(np.asarray(llr, dtype=np.float64), self.lower, self.upper)

    def to_frame(self) -> pd.DataFrame:
        """One row per bound: ``bound`` (lower, upper), ``llr``, ``log10_lr``, ``lr``."""
        log10 = np.array([self.lower_log10, self.upper_log10])
        with np.errstate(over="ignore"):
            return pd.DataFrame({"bound": ["lower", "upper"], "llr": [self.lower, self.upper], "log10_lr": log10,
                                 "lr": 10.0 ** log10})


def _lir_grid_bounds(tar10: np.ndarray, non10: np.ndarray, step: float, add_misleading: int, extremes):
    """lir 1.3's ``elub`` on sorted log10 LLRs: the same grid and the same arithmetic, counted by binary search."""
    # clipped, then the decimals a log10 file held given back (the natural-log round trip is one ulp off them)
    tar10, non10 = (np.round(np.clip(values, *extremes), 12) for values in (tar10, non10))
    n_tar, n_non, m = tar10.size, non10.size, add_misleading
    llr_min = max(min(tar10[0], non10[0]), -np.log10(n_tar + 1))
    llr_max = min(max(tar10[-1], non10[-1]), np.log10(n_non + 1))
    steps_min = min(0, int(np.floor_divide(llr_min, step)))
    steps_max = max(0, int(np.floor_divide(llr_max, step)) + 1)
    grid = np.linspace(steps_min * step, steps_max * step, steps_max - steps_min + 1)
    threshold = 10**grid
    neutral_accept = (1 > threshold).astype(np.float64)
    eu_neutral = 1 - neutral_accept + threshold * neutral_accept
    tar_accept = (n_tar - np.searchsorted(10**tar10, threshold, side="right")) / (n_tar + m)
    non_accept = (n_non - np.searchsorted(10**non10, threshold, side="right") + m) / (n_non + m)
    eu_system = 1 - tar_accept + threshold * non_accept
    worse = eu_neutral / eu_system < 1
    lower = np.max(grid[(grid <= 0) & worse] + step, initial=np.min(grid))
    upper = np.min(grid[(grid >= 0) & worse] - step, initial=np.max(grid))
    return float(min(lower, 0)), float(max(upper, 0))


def _exact_bounds(tar: np.ndarray, non: np.ndarray, add_misleading: int) -> tuple[float, float]:
    """The grid-free bounds (natural log): the failing thresholds solved on each interval between distinct LLRs."""
    n_tar, n_non, m = tar.size, non.size, add_misleading
    breaks = np.unique(np.concatenate([tar, non]))
    start, end = np.concatenate([[-np.inf], breaks]), np.concatenate([breaks, [np.inf]])  # intervals [start, end)
    tar_at_or_below = np.searchsorted(tar, start, side="right")
    non_at_or_below = np.searchsorted(non, start, side="right")
    miss, hit = (tar_at_or_below + m) / (n_tar + m), (n_tar - tar_at_or_below) / (n_tar + m)
    false_alarm, rejection = (n_non - non_at_or_below + m) / (n_non + m), non_at_or_below / (n_non + m)
    with np.errstate(divide="ignore", invalid="ignore"):
        # below LR 1: Pmiss + t Pfa > t  <=>  log t < log(Pmiss / (1 - Pfa));  above: > 1  <=>  log t > log(...)
        below = np.log(miss) - np.log(rejection)
        above = np.log(hit) - np.log(false_alarm)
    low_end = np.minimum(np.minimum(end, below), 0.0)
    low_fails = start < low_end
    high_start = np.maximum(np.maximum(start, above), 0.0)
    high_fails = high_start < end
    lower = float(low_end[low_fails].max()) if low_fails.any() else -np.inf
    upper = float(high_start[high_fails].min()) if high_fails.any() else np.inf
    return lower, upper


@old_spellings(LLRS)
def elub_bounds(tar: ArrayLike | Trials, non: ArrayLike | None = None, *, step: float | None = LIR_STEP,
                add_misleading: int = 1) -> ElubBounds:
    """Empirical lower and upper bounds of natural-log LLRs (Vergeer et al. 2016), lir's definition by default.

    Parameters
    ----------
    tar, non
        One :class:`~llrcore.Trials` or the same-source and different-source validation LLRs (natural log).
    step : float or None
        The log10 grid of thresholds: 0.01 (default) reproduces ``lir.algorithms.bayeserror.elub`` exactly
        (LLRs clipped to ``[-9, 9]`` log10 first, as lir does); None solves the definition without a grid (see the
        module docstring for where and by how much the two differ).
    add_misleading : int
        Misleading LRs added to each class (1, as lir and the paper).

    Returns
    -------
    ElubBounds
        The lower and upper bounds, as natural-log LLRs and in log10 (``-inf``/``inf`` where a side has no bound),
        with the options and the counts of trials.

    Raises
    ------
    ValueError
        When a class has no LLR, an LLR is missing (NaN), or the options are out of range.
    """
    table, _ = sorted_classes(tar, non)
    if int(add_misleading) != add_misleading or add_misleading < 0:
        raise ValueError("add_misleading is the number of misleading LRs added to each class: 0, 1, 2, ...")
    add_misleading = int(add_misleading)
    if step is None:
        lower, upper = _exact_bounds(table.tar, table.non, add_misleading)
        lower_log10, upper_log10 = to_log10(lower), to_log10(upper)
    else:
        if not (np.isfinite(step) and step > 0):
            raise ValueError("The grid step of the ELUB thresholds must be a positive number of log10 units (lir's "
                             "is 0.01), or None for no grid.")
        lower_log10, upper_log10 = _lir_grid_bounds(to_log10(table.tar), to_log10(table.non), float(step),
                                                    add_misleading, LIR_EXTREMES)
        lower, upper = from_log10(lower_log10), from_log10(upper_log10)
    return ElubBounds(lower=lower, upper=upper, lower_log10=lower_log10, upper_log10=upper_log10, step=step,
                      add_misleading=add_misleading, n_tar=int(table.n_tar), n_non=int(table.n_non))


@dataclass(frozen=True)
class ElubBounded:
    """A fitted calibration whose LLRs are limited to the ELUB bounds of its validation LLRs.

    Call it on scores: ``bounds.clip(calibrator(scores))``. LLRs inside the bounds are the calibrator's own,
    unchanged; none is ever below :attr:`ElubBounds.lower` or above :attr:`ElubBounds.upper`. (lir's
    ``ELUBBounder`` as the last step of a pipeline does the same.)
    """

    calibrator: Callable[[np.ndarray], np.ndarray]
    bounds: ElubBounds

    def __call__(self, scores) -> np.ndarray:
        return self.bounds.clip(self.calibrator(scores))


@old_spellings({"tar_scores": "tar", "non_scores": "non"})
def elub_bounded(calibrator: Callable[[np.ndarray], np.ndarray], tar: ArrayLike | Trials, non: ArrayLike | None = None,
                 *, step: float | None = LIR_STEP, add_misleading: int = 1) -> ElubBounded:
    """Any fitted calibration (:class:`~llrcore.Affine`, :class:`~llrcore.PAVCalibrator`, a fusion, any function
    from scores to natural-log LLRs) bounded by the ELUB bounds of the LLRs it gives on validation trials.

    Parameters
    ----------
    calibrator : callable
        Scores -> natural-log LLRs, already fitted (on training trials).
    tar, non
        The validation trials' scores: one :class:`~llrcore.Trials` or the same-source and different-source
        scores. The bounds are those of ``calibrator(scores)``.
    step, add_misleading
        As in :func:`elub_bounds`.

    Returns
    -------
    ElubBounded
        Callable on scores: the calibrator's LLRs clipped to the bounds, which it holds as ``.bounds``.

    Raises
    ------
    ValueError
        As :func:`elub_bounds`: a class without scores, a missing score, options out of range.
    """
    table, _ = sorted_classes(tar, non)
    bounds = elub_bounds(calibrator(table.tar), calibrator(table.non), step=step, add_misleading=add_misleading)
    return ElubBounded(calibrator=calibrator, bounds=bounds)
