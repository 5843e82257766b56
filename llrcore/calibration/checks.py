"""Far scores and collapsed fits: what an affine calibration or a fusion must know about scores such as +-1e308.

A score far from all the others decides a fit alone when it lies on the wrong side (a target scored -1e308): a
proper scoring rule whose cost grows without bound (the logarithmic one, logistic regression) charges it about
``|scale * score|``, so the exact optimum shrinks the scale until that trial costs little — to about 1e-306 — and
every other score gets the same LLR. That is the honest optimum of the objective, and useless as a calibration: it
*collapsed*. :func:`collapse_reason` says so (every ordinary score gets the same LLR, to :data:`COLLAPSED_SPREAD`
nats, although the scores separate the classes, or a parameter is not finite), and :func:`flag_collapse` warns and
records the reason in the calibrator's ``failure``.

A far score on the right side (a target scored +1e308) costs exactly nothing at any calibration that is not itself
collapsed, and yet its square overflows the Hessian and its size swamps the spread that conditions the fit (scaling
the scores by 1e308 turned the ordinary ones into subnormal numbers: the fit collapsed although its optimum is
ordinary). :func:`fit_setting_aside_far` fits without the far scores, keeping each class's weight ``P / N_tar`` and
``(1 - P) / N_non`` of all the trials, and accepts the fit only when both derivatives of every far score's cost are
exactly zero there in double precision: then the gradient and Hessian of the objective of all the trials are those of
the fit, which is its optimum up to a constant. The constant is 0 for far scores on the right side; on the wrong side
of a rule whose cost is bounded (Brier's, or any with alpha, beta > 1 on that side) each far score costs the bound, and
the fit is compared with the fit of all the trials as they are (which may collapse to lower their cost): the lower
objective is kept. The logarithmic rule charges a wrong-side score without bound, so there the collapse stands.

Far means more than :data:`FAR` interquartile ranges from the median of a system's pooled scores.
"""
from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from ..binary.rates import SortedScores
from ..prior import sigmoid
from .._format import percent
from .calibrators import Fusion
from .rules import BetaRule

__all__ = ["COLLAPSED_SPREAD", "FAR", "collapse_reason", "far_rows", "fit_setting_aside_far", "flag_collapse",
           "objective_value"]

#: A fit has collapsed when the LLRs of a system's lower and upper quartile scores differ by at most this (nats).
COLLAPSED_SPREAD = 1e-6
#: A score is far from the others beyond this many interquartile ranges from the median.
FAR = 1e8
# Only systems with a score of at least this size are searched for far scores (a median costs a pass).
_FAR_GATE = 1e6
_SAMPLE = 100_000


def _centre_spread(tar: np.ndarray, non: np.ndarray) -> tuple[float, float]:
    """Median and interquartile range of one system's pooled scores (of an evenly strided sample of about
    :data:`_SAMPLE` of them: both only compare with margins of many orders of magnitude); the range when the
    quartiles are equal."""
    step = max(1, (tar.size + non.size) // _SAMPLE)
    pooled = np.concatenate([tar[::step], non[::step]])
    lower, centre, upper = np.percentile(pooled, [25, 50, 75])
    spread = upper - lower
    return float(centre), float(spread if spread > 0 else max(tar.max(), non.max()) - min(tar.min(), non.min()))


def far_rows(tar_columns, non_columns) -> tuple[np.ndarray, np.ndarray]:
    """Which target and non-target trials have a score more than :data:`FAR` interquartile ranges from the median of
    its system (in any system)."""
    far_tar, far_non = np.zeros(tar_columns[0].size, bool), np.zeros(non_columns[0].size, bool)
    for tar, non in zip(tar_columns, non_columns):
        if max(np.abs(tar).max(), np.abs(non).max()) < _FAR_GATE:
            continue
        centre, spread = _centre_spread(tar, non)
        if spread > 0:
            far_tar |= np.abs(tar - centre) > FAR * spread
            far_non |= np.abs(non - centre) > FAR * spread
    return far_tar, far_non


def _derivatives_vanish(rule: BetaRule, tar_llr: np.ndarray, non_llr: np.ndarray) -> bool:
    """Whether the costs of these log-odds under `rule` have slope and curvature exactly 0 in double precision (a
    log-odds that overflowed to infinity does too where the cost is bounded there; an undefined one, NaN, does not)."""
    if np.isnan(tar_llr).any() or np.isnan(non_llr).any():
        return False
    with np.errstate(over="ignore", invalid="ignore"):
        parts = (*rule.target_derivatives(tar_llr), *rule.non_derivatives(non_llr))
    return all(not np.any(part) for part in parts)  # a NaN part (inf on the wrong side) is truthy: not free


def objective_value(fusion: Fusion, tar_columns, non_columns, rule: BetaRule, plo: float) -> float:
    """The prior-weighted objective ``P mean_tar C(q|H1) + (1 - P) mean_non C(q|H2)`` of `fusion` on these trials."""
    with np.errstate(over="ignore", invalid="ignore"):
        tar_llr = sum(w * c for w, c in zip(fusion.weights, tar_columns)) + (fusion.offset + plo)
        non_llr = sum(w * c for w, c in zip(fusion.weights, non_columns)) + (fusion.offset + plo)
        return float(sigmoid(plo) * rule.target_cost(tar_llr).mean() + sigmoid(-plo) * rule.non_cost(non_llr).mean())


def fit_setting_aside_far(fit, tar_columns, non_columns, rule: BetaRule, plo: float, theta, *, plain) \
        -> Fusion | None:
    """The fit of all the trials made without their far scores (:func:`far_rows`), or None when there are none, when
    the others cannot be fitted alone, or when a far score's cost is not exactly flat at the fit found.

    Each remaining trial keeps its weight in the objective of all the trials: the per-trial weights ``P / N_tar`` and
    ``(1 - P) / N_non`` of ``n_tar`` and ``n_non`` remaining trials are those of prior weighting
    ``tau' = tau + ln(n_tar / N_tar) - ln(n_non / N_non)`` on them (up to a common factor), and as the objective sees
    ``scale * s + offset + tau`` the offset found at ``tau'`` is ``offset' = offset - (tau' - tau)``. Where a far
    score costs something there (a bounded cost on its wrong side), the fit of all the trials as they are,
    ``plain()``, is made too and the one with the lower objective (:func:`objective_value`) is returned.

    `fit` is :func:`~llrcore.calibration.fit.fit_fusion`'s worker ``(tar_columns, non_columns, rule, plo,
    regularisation, theta) -> Fusion``; `theta` a start (weights..., offset) or None.
    """
    far_tar, far_non = far_rows(tar_columns, non_columns)
    kept_tar, kept_non = int((~far_tar).sum()), int((~far_non).sum())
    if not (far_tar.any() or far_non.any()) or kept_tar == 0 or kept_non == 0:
        return None
    shift = float(np.log(kept_tar / far_tar.size) - np.log(kept_non / far_non.size))
    start = None if theta is None else np.append(theta[:-1], theta[-1] - shift)
    try:
        fusion = fit([c[~far_tar] for c in tar_columns], [c[~far_non] for c in non_columns], rule, plo + shift, 0.0,
                     start)
    except ValueError:  # e.g. the remaining scores separate the classes
        return None
    fusion = Fusion(weights=fusion.weights, offset=float(fusion.offset + shift), converged=fusion.converged)
    with np.errstate(over="ignore", invalid="ignore"):
        tar_llr = np.asarray(sum(w * c[far_tar] for w, c in zip(fusion.weights, tar_columns)) + fusion.offset + plo,
                             dtype=np.float64)
        non_llr = np.asarray(sum(w * c[far_non] for w, c in zip(fusion.weights, non_columns)) + fusion.offset + plo,
                             dtype=np.float64)
        free = not (np.any(rule.target_cost(tar_llr)) or np.any(rule.non_cost(non_llr)))
    if not _derivatives_vanish(rule, tar_llr, non_llr):
        return None
    if free:
        return fusion
    return min((fusion, plain()), key=lambda f: objective_value(f, tar_columns, non_columns, rule, plo))


def collapse_reason(weights, offset: float, tar_columns, non_columns) -> str:
    """Why the calibration ``llr = weights . s + offset`` of these training scores collapsed; empty when it did not.

    It collapsed when a parameter is not finite, or when ``sum_k |w_k| IQR_k`` (how far apart the LLRs of the middle
    half of the scores are) is at most :data:`COLLAPSED_SPREAD` nats although some system separates the classes (its
    ROCCH-EER is below 50 %): then it gives every ordinary trial the same LLR, and says nothing.
    """
    weights = np.atleast_1d(np.asarray(weights, dtype=np.float64))
    if not (np.isfinite(weights).all() and np.isfinite(offset)):
        return "its parameters are not finite numbers"
    spreads = np.array([_centre_spread(t, u)[1] for t, u in zip(tar_columns, non_columns)])
    bulk = float(np.abs(weights) @ spreads)
    if not (spreads > 0).any() or bulk > COLLAPSED_SPREAD:
        return ""
    eer = min(SortedScores(t, u).eer() for t, u in zip(tar_columns, non_columns))
    if not eer < 0.5:
        return ""
    far_tar, far_non = far_rows(tar_columns, non_columns)
    far = int(far_tar.sum() + far_non.sum())
    cause = ""
    if far:
        largest = max(np.abs(c[far_tar]).max(initial=0) for c in tar_columns)
        largest = max(largest, max(np.abs(c[far_non]).max(initial=0) for c in non_columns))
        cause = (f"; {far} score{'s lie' if far != 1 else ' lies'} (up to {largest:.3g} in size) more than {FAR:.0e} "
                 "interquartile ranges from the others, and on the wrong side they cost so much that the fit can "
                 "only shrink its scale to nearly 0")
    return (f"it gives every ordinary trial the same LLR (the LLRs of the middle half of the scores differ by "
            f"{bulk:.2g} nats) although the scores separate the classes (EER {percent(eer)}){cause}")


def flag_collapse(calibrator, tar_columns, non_columns, stacklevel: int = 3):
    """`calibrator` (an Affine or Fusion) with ``failure`` set and a warning when its fit collapsed; else itself."""
    weights = calibrator.weights if hasattr(calibrator, "weights") else calibrator.scale
    reason = collapse_reason(weights, calibrator.offset, tar_columns, non_columns)
    if not reason:
        return calibrator
    warnings.warn(f"The calibration collapsed: {reason}. It is not a calibration to use; remove the far scores, or "
                  "use PAV calibration.", RuntimeWarning, stacklevel=stacklevel)
    return replace(calibrator, failure=reason)
