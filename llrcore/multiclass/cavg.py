"""The language-recognition cost Cavg of the NIST LRE plans and the LRE 2017 primary cost, from class log-likelihoods.

For every target class ``T`` the detection LLR of eq. 9 of the seed paper (prior flat over the other classes) is
compared with the Bayes threshold of the operating point, ``log beta`` with
``beta = C_fa (1 - P_target) / (C_miss P_target)``, i.e. accept when ``llr >= -logit(P_target) - log(C_miss/C_fa)``.
With ``P_miss(T)`` the share of class-T trials rejected and ``P_fa(T, N)`` the share of class-N trials accepted as T,
the average cost over the N classes is (NIST LRE 2011 and 2015 plans)

    Cavg = (1/N) sum_T [ C_miss P_target P_miss(T) + sum_{N != T} C_fa (1 - P_target)/(N - 1) P_fa(T, N) ],

the non-target probability shared equally among the other classes. The LRE 2017 plan (and LRE 2022) writes the same
cost divided by ``C_miss P_target``,

    Cavg(beta) = (1/N) sum_T [ P_miss(T) + beta/(N - 1) sum_{N != T} P_fa(T, N) ],

so that a system that rejects everything scores 1 at every operating point, and its primary cost is the mean of that
normalised Cavg at ``P_target`` 0.5 and 0.1 (``beta`` 1 and 9, ``C_miss = C_fa = 1``). The functions here give the
normalised cost by default (``normalised=False`` gives the 2011/2015 form: at ``P_target = 0.5`` exactly half).

``minimum=True`` replaces the Bayes threshold with the single threshold, shared by all target classes, that makes
the cost smallest (as the LRE scorers' minimum Cavg): the cost is a sum over every (trial, target) detection LLR of a
weight for a miss or for a false alarm, so one sort of all of them and cumulative sums give it at every threshold,
rejecting everything included (as the binary minimum DCF); the cost of the best is then counted from whole counts, as
the actual cost is. Equal detection LLRs are equal to the last bit (:func:`~llrcore.multiclass.detection_llrs` works
from the differences ``l_i - l_t``), so a tie is never split.

References: N. Brümmer and D. van Leeuwen, "On calibration of language recognition scores", Odyssey 2006 (eq. 9);
NIST, "The 2015 NIST Language Recognition Evaluation Plan" and "The 2017 NIST Language Recognition Evaluation Plan"
(C_avg(beta) and C_primary). Public LRE scoring code computes the same normalised form, ``(sum_T P_miss(T) +
beta sum_{T, N} P_fa(T, N) / (N - 1)) / N`` with ``beta = C_fa (1 - P_target) / (C_miss P_target)``, and averages it at
``P_target`` 0.5 and 0.1 for C_primary.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._deprecation import old_spellings
from ..data.multiclass import MulticlassScores, llrs_and_labels
from .analysis import _calibrated, detection_llrs

__all__ = ["LRE17_P_TARGETS", "cavg", "cavg_table", "lre_cprimary"]

#: The two target priors whose normalised Cavg the LRE 2017 primary cost averages.
LRE17_P_TARGETS = (0.5, 0.1)


def _weights(p_target, c_miss, c_fa, normalised: bool) -> tuple[float, float, float]:
    """(weight of a miss, weight of a false alarm, Bayes threshold) of an operating point, checked."""
    for name, value in (("P_target", p_target), ("C_miss", c_miss), ("C_fa", c_fa)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name} must be a number, not {value!r}.")  # noqa: TRY004 (a sentence for users)
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, not {value}.")
    if not 0 < p_target < 1:
        raise ValueError(f"P_target must lie strictly between 0 and 1; {p_target} does not.")
    if c_miss <= 0 or c_fa <= 0:
        raise ValueError(f"The costs of a miss and of a false alarm must be positive (got C_miss = {c_miss}, "
                         f"C_fa = {c_fa}).")
    miss, fa = c_miss * p_target, c_fa * (1 - p_target)
    threshold = math.log(fa) - math.log(miss)  # log beta = -logit(P_target) - log(C_miss / C_fa)
    return (1.0, fa / miss, threshold) if normalised else (miss, fa, threshold)


def _all_detection_llrs(llrs: np.ndarray) -> np.ndarray:
    """``D[t, T]``: the detection LLR of every trial for every target (eq. 9, prior flat over the other classes)."""
    return np.column_stack([detection_llrs(llrs, t) for t in range(llrs.shape[1])])


def _counts(labels: np.ndarray, n: int) -> np.ndarray:
    counts = np.bincount(labels, minlength=n)
    if not counts.all():
        raise ValueError(f"There are no trials of class {int(np.argmin(counts))}; Cavg needs trials of every class "
                         "(each is a target and a non-target).")
    return counts


def _cost(det: np.ndarray, labels: np.ndarray, miss_w: float, fa_w: float, threshold: float | None, minimum: bool
          ) -> float:
    counts = _counts(labels, det.shape[1])
    if minimum:
        threshold = _best_threshold(det, labels, counts, miss_w, fa_w)
    return _cost_at(det, labels, counts, miss_w, fa_w, threshold)


def _cost_at(det: np.ndarray, labels: np.ndarray, counts: np.ndarray, miss_w: float, fa_w: float,
             threshold: float | None) -> float:
    """The cost with every trial accepted as each target T whose detection LLR is at or above `threshold` (None:
    nothing accepted), from whole counts: each rate is one division of two integers."""
    n = det.shape[1]
    accepted = np.zeros((n, n))  # accepted[c, T]: trials of class c accepted as T
    if threshold is not None:
        np.add.at(accepted, labels, det >= threshold)
    p_miss = (counts - np.diag(accepted)) / counts
    fa_rate = accepted / counts[:, None]  # fa_rate[c, T] = P_fa(T, c) off the diagonal
    np.fill_diagonal(fa_rate, 0.0)
    return float(np.mean(miss_w * p_miss + fa_w / (n - 1) * fa_rate.sum(axis=0)))


def _best_threshold(det: np.ndarray, labels: np.ndarray, counts: np.ndarray, miss_w: float, fa_w: float
                    ) -> float | None:
    """The single threshold (a detection LLR, or None for rejecting everything) of least cost.

    Every (trial, target) pair weighs a miss (its own class) or a false alarm (another class) when on the wrong side,
    so one sort of all detection LLRs and cumulative sums give the cost at every threshold: at each distinct value (a
    tie is never split) and above all of them. Rejecting everything is always a candidate, as in the binary minimum
    DCF, even above a detection LLR of ``+inf`` that no threshold rejects.
    """
    t_count, n = det.shape
    per_trial = 1.0 / (n * counts[labels])
    is_target = np.zeros((t_count, n), dtype=bool)
    is_target[np.arange(t_count), labels] = True
    weight = np.where(is_target, (miss_w * per_trial)[:, None], (fa_w / (n - 1) * per_trial)[:, None])
    order = np.argsort(det, axis=None, kind="stable")
    values = det.reshape(-1)[order]
    miss_weight = np.where(is_target.reshape(-1)[order], weight.reshape(-1)[order], 0.0)
    fa_weight = weight.reshape(-1)[order] - miss_weight
    below_miss = np.concatenate(([0.0], np.cumsum(miss_weight)))  # miss cost with the first k values rejected
    above_fa = np.concatenate((np.cumsum(fa_weight[::-1])[::-1], [0.0]))  # false alarms with the rest accepted
    cuts = np.append(np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1]))), values.size)
    best = cuts[np.argmin(below_miss[cuts] + above_fa[cuts])]
    return None if best == values.size else float(values[best])  # the cost is then counted exactly (_cost_at)


@old_spellings(positional=("p_target",))
def cavg(scores: MulticlassScores | ArrayLike, *, p_target: float = 0.5, c_miss: float = 1, c_fa: float = 1,
         minimum: bool = False, normalised: bool = True, labels: ArrayLike | None = None) -> float:
    """Average detection cost Cavg of the NIST language recognition evaluations.

    ``Cavg = (1/N) sum_T [ P_miss(T) + beta/(N - 1) sum_{N != T} P_fa(T, N) ]`` with
    ``beta = C_fa (1 - P_target) / (C_miss P_target)`` (LRE 2017 plan; ``normalised=False``: times
    ``C_miss P_target``, the 2011/2015 form), from the detection LLRs of eq. 9 of Brümmer & van Leeuwen (2006), prior
    flat over the non-target classes, decided at the Bayes threshold ``llr >= log beta``.

    Parameters
    ----------
    scores : MulticlassScores or array_like (T, N)
        Class log-likelihoods (natural log); a bare matrix needs `labels`.
    p_target : float
        Prior of the target class in each detection, strictly between 0 and 1 (0.5 in LRE 2011-2017).
    c_miss, c_fa : float
        Costs of a miss and a false alarm (1 in the LRE plans).
    minimum : bool
        Instead of the Bayes threshold, the single threshold shared by all targets that gives the least cost.
    normalised : bool
        Divide by ``C_miss P_target`` as the LRE 2017 plan does (default); False gives the LRE 2011/2015 form.
    labels : array_like of int, optional
        True class of each trial, with a bare matrix.

    Returns
    -------
    float
        The cost; normalised, 1 is the cost of rejecting everything.
    """
    llrs, labels = llrs_and_labels(scores, labels)
    miss_w, fa_w, threshold = _weights(p_target, c_miss, c_fa, normalised)
    return _cost(_all_detection_llrs(llrs), labels, miss_w, fa_w, threshold, minimum)


def lre_cprimary(scores: MulticlassScores | ArrayLike, *, minimum: bool = False, labels: ArrayLike | None = None
                 ) -> float:
    """LRE 2017 primary cost: mean of the normalised Cavg at ``P_target`` 0.5 and 0.1 (``C_miss = C_fa = 1``).

    ``C_primary = (Cavg(beta=1) + Cavg(beta=9)) / 2`` (the 2017 NIST LRE plan, sec. 3.1); `minimum` takes the best
    shared threshold of each Cavg separately.

    Parameters
    ----------
    scores : MulticlassScores or array_like (T, N)
        Class log-likelihoods (natural log); a bare matrix needs `labels`.
    minimum : bool
        Each Cavg at the single threshold, shared by all targets, that gives it the least cost, instead of the
        Bayes threshold.
    labels : array_like of int, optional
        True class of each trial, with a bare matrix.

    Returns
    -------
    float
        The primary cost, normalised: 1 is the cost of rejecting everything.

    Raises
    ------
    ValueError
        Missing labels, or a class with no trial.
    """
    llrs, labels = llrs_and_labels(scores, labels)
    det = _all_detection_llrs(llrs)
    costs = [_cost(det, labels, *_weights(p, 1, 1, True), minimum) for p in LRE17_P_TARGETS]
    return float(np.mean(costs))


@old_spellings(positional=("p_target",))
def cavg_table(scores: MulticlassScores | ArrayLike,
               calibrated: ArrayLike | Callable[[np.ndarray], np.ndarray] | None = None, *, p_target: float = 0.5,
               labels: ArrayLike | None = None) -> pd.DataFrame:
    """Cavg (at `p_target`), minimum Cavg and the LRE 2017 primary cost (actual and minimum), raw and calibrated.

    As the table of the seed paper: the same costs of the LLRs before and after the multiclass calibration
    (:func:`cavg` and :func:`lre_cprimary`, normalised, ``C_miss = C_fa = 1``).

    Parameters
    ----------
    scores : MulticlassScores or array_like (T, N)
        Class log-likelihoods (natural log); a bare matrix needs `labels`.
    calibrated : array_like (T, N), callable or None
        The calibrated LLR matrix, a calibrator applied to the LLRs, or None for ``fit_multiclass_affine`` on these
        trials.
    p_target : float
        Prior of the target class in each detection of the Cavg columns, strictly between 0 and 1.
    labels : array_like of int, optional
        True class of each trial, with a bare matrix.

    Returns
    -------
    DataFrame
        Index ``raw``, ``calibrated``; columns ``cavg``, ``min_cavg``, ``cprimary``, ``min_cprimary`` (normalised).

    Raises
    ------
    ValueError
        Missing labels, a class with no trial, a `p_target` outside (0, 1), or calibrated LLRs of another shape.
    """
    llrs, labels = llrs_and_labels(scores, labels)
    miss_w, fa_w, threshold = _weights(p_target, 1, 1, True)
    rows = {}
    for name, matrix in (("raw", llrs), ("calibrated", _calibrated(llrs, labels, calibrated))):
        det = _all_detection_llrs(matrix)
        primaries = [[_cost(det, labels, *_weights(p, 1, 1, True), minimum) for p in LRE17_P_TARGETS]
                     for minimum in (False, True)]
        rows[name] = {"cavg": _cost(det, labels, miss_w, fa_w, threshold, False),
                      "min_cavg": _cost(det, labels, miss_w, fa_w, threshold, True),
                      "cprimary": float(np.mean(primaries[0])), "min_cprimary": float(np.mean(primaries[1]))}
    return pd.DataFrame.from_dict(rows, orient="index")
