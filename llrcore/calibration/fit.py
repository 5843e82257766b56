"""Calibration: scores -> LLRs, trained on development trials; the affine and fusion fits.

- :func:`fit_affine` — ``llr = scale * score + offset`` minimising a prior-weighted proper scoring rule
  (Brümmer & Doddington 2013); the logarithmic rule is prior-weighted logistic regression.
- :func:`fit_fusion` — the same objective over a weighted sum of several systems' scores plus an offset
  (BOSARIS / FoCal linear fusion); :func:`fit_affine` is its one-system case.
- :func:`~llrcore.calibration.affine_kinds.fit_affine_by_condition` — one calibration per condition, a
  :class:`~llrcore.calibration.conditional.ConditionalCalibration`; ``fit_quality_affine`` — one with quality measures.

The objective itself, with its gradient and Hessian, is :mod:`llrcore.calibration.fit_objective`; the closed-form
Gaussian calibration :mod:`llrcore.calibration.cmlg` (also every fit's starting point) and PAV calibration
:mod:`llrcore.calibration.pav`; the warm-started fits of a sweep :mod:`llrcore.calibration.warm`. k-fold
cross-validated calibration (:func:`~llrcore.calibration.folds.cross_calibrate`) is in
:mod:`llrcore.calibration.folds`; the calibrators themselves in :mod:`llrcore.calibration.calibrators`; far scores
(+-1e308) and collapsed fits in :mod:`llrcore.calibration.checks`.

The affine objective has two parameters (``d + 1`` for fusion), so it is minimised by a trust-region Newton method
with its exact gradient and Hessian (scipy's ``trust-exact``): it converges to machine precision in a handful of
iterations. On large sets a fit on an evenly strided subsample gives the starting point and the full data only
polishes it, so a fit costs a few passes over the data. A fit may also start from a nearby calibration (``start=``,
e.g. the one at a neighbouring prior weighting), which saves most of the passes of a sweep over prior weightings.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._deprecation import moved_call, old_spellings
from .._moved import left_for
from ..data.checks import as_scores
from ..data.trials import Trials
from ..parallel import dot
from ..prior import as_plo, sigmoid
from .calibrators import Affine, Fusion
from .calibrators import as_matrix as _as_matrix
from .checks import fit_setting_aside_far, flag_collapse
from .cmlg import cmlg_affine
from .conditional import ConditionalCalibration
from .fit_objective import FusionObjective
from .newton import newton, newton_polish, trust_region
from .quality import fit_quality, with_quality
from .rules import BetaRule

__all__ = ["Affine", "Fusion", "fit_affine", "fit_fusion"]

#: CMLG (:mod:`.cmlg`), PAV (:mod:`.pav`) and the warm-started fits of a sweep (:mod:`.warm`) lived here until issue
#: 42: their old path answers for one release, with a DeprecationWarning.
__getattr__ = left_for("calibration.fit")

_SUBSAMPLE_ABOVE = 200_000  # trials; below this the full data is used from the start
_HUGE = 1e100  # scores beyond this are scaled before fitting
# Newton steps from a caller's start stop once a step is this small relative to the parameters (what remains is of the
# order of its square): the polish's usual 1e-5 assumes a trust region that already ended much closer.
_WARM_STEP = 1e-8
# A fit has reached its optimum when no gradient entry of the standardised objective exceeds this times the objective's
# value (a converged fit ends near 1e-12; the standardised parameters are of order 1).
_GRADIENT_TOLERANCE = 1e-6
# Scores with a smaller spread, or an offset larger than this many spreads, are fitted on centred and scaled copies:
# in raw parameters their products with the scale lose digits and their squares may underflow.
_SMALL_SPREAD, _LARGE_OFFSET = 1e-8, 1e6


def _centre_spread(tar: np.ndarray, non: np.ndarray) -> tuple[float, float]:
    """Mean and standard deviation of one system's pooled scores, in two passes (exact for any offset)."""
    n = tar.size + non.size
    mean = (tar.sum() + non.sum()) / n
    deviation = np.concatenate([tar, non]) - mean
    return mean, np.sqrt(dot(deviation, deviation) / n)


def _ill_conditioned(centre: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Which systems to fit on centred and scaled copies: a spread below ``_SMALL_SPREAD``, or an offset of more
    than ``_LARGE_OFFSET`` spreads (not a system without spread: nothing scales it)."""
    return (spread > 0) & ((spread < _SMALL_SPREAD) | (np.abs(centre) > _LARGE_OFFSET * spread))


def _fit_rescaled(tar_columns, non_columns, rule, plo, regularisation, theta, centre, spread) -> "Fusion":
    """:func:`fit_fusion` of the scores ``z = (s - centre) / spread``, transformed back: ``w_s = w_z / spread``,
    ``b_s = b_z - w_s . centre``. A start is transformed the other way."""
    tar_z = [(t - c) / d for t, c, d in zip(tar_columns, centre, spread)]
    non_z = [(u - c) / d for u, c, d in zip(non_columns, centre, spread)]
    start = None if theta is None else np.append(theta[:-1] * spread, theta[-1] + theta[:-1] @ centre)
    fusion = _fit_fusion(tar_z, non_z, rule, plo, regularisation, start)
    weights = fusion.weights / spread
    return Fusion(weights=weights, offset=float(fusion.offset - weights @ centre), converged=fusion.converged)


def _prior_weighting(plo) -> float:
    """The prior weighting of a fit as a float: one finite number at which neither class weighs 0."""
    values = as_plo(plo, "The prior weighting plo", finite=True)
    if values.size != 1:
        raise ValueError(f"The prior weighting plo must be one number, not {values.size}.")
    value = float(values.reshape(-1)[0])
    if sigmoid(-abs(value)) == 0:
        raise ValueError(f"The prior weighting plo = {value:g} gives the {'non-' if value > 0 else ''}target trials "
                         "no weight at all in double precision; choose a plo nearer 0.")
    return value


def _check_converged(objective: "FusionObjective", phi: np.ndarray) -> bool:
    """Whether `phi` is the optimum (its standardised gradient vanishes relative to the objective's value, which at
    an extreme prior weighting is tiny); warns when it is not.

    Costs no pass over the data: the solvers end either with converged Newton steps (a point beyond the last one
    whose gradient was taken) or at the trust region's last point, whose gradient and value it took.
    """
    point, gradient = getattr(objective, "last_gradient", (None, None))
    if point is None or gradient is None or not np.array_equal(point, phi):
        return True  # the last Newton step converged
    at, value = getattr(objective, "last_value", (None, None))
    value = value if at is not None and value is not None and np.array_equal(at, phi) else objective.value(phi)
    if np.all(np.abs(gradient) <= _GRADIENT_TOLERANCE * value):
        return True
    warnings.warn("The calibration did not reach the optimum of its objective (largest gradient "
                  f"{np.abs(gradient).max():.2g}); its parameters are the best found, not the best possible.",
                  RuntimeWarning, stacklevel=3)
    return False


def _start(objective: FusionObjective, tar_columns, non_columns) -> np.ndarray:
    """A starting point: the mean of the systems' Gaussian (CMLG) LLRs, or zero if that is worse.

    On well-separated scores the optimum is far from zero (a large scale), where the trust region would need many
    steps; the closed-form Gaussian calibration is usually close to it, at the cost of one pass over the scores.
    """
    zero = np.zeros(len(tar_columns) + 1)
    try:
        gaussian = [cmlg_affine(t, u, 0.5) for t, u in zip(tar_columns, non_columns)]
    except ValueError:  # a system without spread: no Gaussian estimate
        return zero
    raw = np.array([g.scale for g in gaussian] + [sum(g.offset for g in gaussian)]) / len(gaussian)
    phi = objective.standardised(raw)
    return phi if objective.value(phi) < objective.value(zero) else zero


def is_convex(rule: BetaRule) -> bool:
    """Whether the objective of `rule` is convex in the fusion parameters, so that its minimum is unique.

    The second derivative of ``C(q|H1)`` in the log-odds is ``f(x) ((1 - alpha)(1 - q) + beta q)`` (``f > 0``),
    non-negative for every ``q`` exactly when ``alpha <= 1``; symmetrically ``C(q|H2)`` needs ``beta <= 1``. Brier's
    bounded costs, for one, make flat plateaus at large scales, with local minima of their own.
    """
    return rule.alpha <= 1 and rule.beta <= 1


def _fit_standardised(tar_columns, non_columns, rule: BetaRule, plo: float, regularisation: float, start=None):
    """Minimise the objective: logistic regression first (convex: a safe start), then `rule` from there.

    The trust region can stop a little short of the optimum (scipy gives up once it no longer predicts its own
    improvement, around a gradient of 1e-9), so Newton steps finish the job to machine precision. A `start` (raw
    parameters) near the optimum replaces the first stage when Newton steps from it converge (:func:`_fit_from`).
    """
    fitted = None if start is None else _fit_from(tar_columns, non_columns, rule, plo, regularisation, start)
    if fitted is not None:
        return fitted
    logarithmic = BetaRule.logarithmic()
    objective = FusionObjective(tar_columns, non_columns, logarithmic, plo, regularisation)
    phi = trust_region(objective, _start(objective, tar_columns, non_columns))
    if rule != logarithmic:
        objective = FusionObjective(tar_columns, non_columns, rule, plo, regularisation)
        phi = trust_region(objective, phi)
    return objective, newton_polish(objective, phi)


def _fit_from(tar_columns, non_columns, rule: BetaRule, plo: float, regularisation: float, start):
    """Minimise the objective by Newton steps from `start` (raw parameters), or None if they do not converge.

    Where they converge the gradient vanishes and the Hessian is positive definite: on a convex objective that is its
    only minimum. A non-convex one can have several local minima, and its search must start where the fit from
    scratch starts, so Newton steps from `start` find logistic regression's optimum (convex) and the trust region
    goes on from there. Far from the optimum (e.g. on a plateau of a bounded rule) Newton steps stall, and the
    trust region could crawl for hundreds of iterations: the caller then fits from scratch.
    """
    first = rule if is_convex(rule) else BetaRule.logarithmic()
    objective = FusionObjective(tar_columns, non_columns, first, plo, regularisation)
    phi, converged = newton(objective, objective.standardised(start), small_step=_WARM_STEP)
    if not converged:
        return None
    if first != rule:
        objective = FusionObjective(tar_columns, non_columns, rule, plo, regularisation)
        phi = newton_polish(objective, trust_region(objective, phi))
    return objective, phi


@old_spellings({"systems_tar": "tar", "systems_non": "non"}, positional=("plo",))
def fit_fusion(tar: ArrayLike, non: ArrayLike, rule: BetaRule | None = None, *, plo: float = 0.0,
               regularisation: float = 0.0, start: Fusion | None = None,
               quality: tuple[ArrayLike, ArrayLike] | None = None) -> Fusion:
    """Linear fusion of K systems trained with a prior-weighted proper scoring rule.

    Minimises ``E(w, b) = P mean_tar C(sigmoid(s w + b + tau) | H1) + (1-P) mean_non C(sigmoid(s w + b + tau) | H2)``
    with ``tau = plo`` and ``P = sigmoid(tau)``, over the weights ``w`` and offset ``b``.

    Parameters
    ----------
    tar, non : array_like
        ``(N_tar, K)`` and ``(N_non, K)`` score matrices, or lists of K score arrays (one per system).
    rule : BetaRule, optional
        The proper scoring rule; logarithmic (logistic regression) by default.
    plo : float
        Prior log-odds ``tau`` of the prior weighting.
    regularisation : float
        ``lambda >= 0`` of a penalty ``lambda/2 |w_std|^2`` on the weights of the standardised scores (each system
        scaled to unit spread; the offset is not penalised), as FoCal's regularised fusion. It keeps the weights
        finite when several systems together separate the training classes; 1e-3 to 1e-2 is a mild choice.
    start : Fusion, optional
        A fusion near the optimum to start from, e.g. the one trained at a neighbouring `plo`: it saves most of the
        work and does not change the result beyond round-off. A rule with ``alpha, beta <= 1`` (logarithmic,
        boosting) has a convex objective, whose only minimum is searched from `start`. The others' objectives can
        have several local minima, and their search always continues from logistic regression's optimum, as without
        `start`: for them `start` should be near that (logistic regression's fusion at a neighbouring `plo`). A
        start from which Newton steps do not converge is ignored.
    quality : (array_like, array_like), optional
        Quality measures ``(q_tar, q_non)``, one row per trial: the weights are those of ``[scores, quality]`` (QMF).

    Returns
    -------
    Fusion
        Scores of the K systems to natural-log LLRs, ``s w + b``: the weights, the offset and whether the search
        converged.

    Raises
    ------
    ValueError
        If the classes are separated without regularisation (the optimum is at infinite scale), or on bad input
        (different numbers of systems in the two classes, a negative regularisation, missing scores).

    Notes
    -----
    Far scores (+-1e308) that cost nothing at the optimum are set aside while fitting; a fit that collapses (as far
    scores on the wrong side force) comes with ``failure`` saying why and a RuntimeWarning
    (:mod:`llrcore.calibration.checks`).
    """
    rule, plo = rule or BetaRule.logarithmic(), _prior_weighting(plo)
    tar, non = with_quality(tar, non, quality)
    tar_columns, non_columns = _columns(tar, "target scores"), _columns(non, "non-target scores")
    if len(tar_columns) != len(non_columns):
        raise ValueError(f"The target scores have {len(tar_columns)} systems but the non-target scores {len(non_columns)}.")
    if not (np.isfinite(regularisation) and regularisation >= 0):
        raise ValueError("The regularisation must be a non-negative number.")
    theta = None if start is None else _start_parameters(start, len(tar_columns))
    fusion = _fit_fusion(tar_columns, non_columns, rule, plo, regularisation, theta)
    return flag_collapse(fusion, tar_columns, non_columns)


def _fit_fusion(tar_columns, non_columns, rule: BetaRule, plo: float, regularisation: float, theta) -> Fusion:
    """:func:`fit_fusion` of checked score columns from raw start parameters `theta` (or None), not yet checked for
    a collapse. Far scores are set aside when they cost nothing (:func:`~.checks.fit_setting_aside_far`)."""
    if regularisation == 0:
        _refuse_separable(tar_columns, non_columns)
        aside = fit_setting_aside_far(_fit_fusion, tar_columns, non_columns, rule, plo, theta,
                                      plain=lambda: _fit_all(tar_columns, non_columns, rule, plo, 0.0, theta))
        if aside is not None:
            return aside
    return _fit_all(tar_columns, non_columns, rule, plo, regularisation, theta)


def _fit_all(tar_columns, non_columns, rule: BetaRule, plo: float, regularisation: float, theta) -> Fusion:
    """:func:`_fit_fusion` with every score in the objective as it is."""
    magnitude = np.array([max(np.abs(t).max(), np.abs(u).max()) for t, u in zip(tar_columns, non_columns)])
    if (magnitude > _HUGE).any():
        # Squares of such scores overflow in the Hessian: fit on scaled copies, then scale the weights back.
        divisor = np.where(magnitude > _HUGE, magnitude, 1.0)
        scaled_start = None if theta is None else np.append(theta[:-1] * divisor, theta[-1])
        fusion = _fit_fusion([t / d for t, d in zip(tar_columns, divisor)],
                             [u / d for u, d in zip(non_columns, divisor)], rule, plo, regularisation, scaled_start)
        return Fusion(weights=fusion.weights / divisor, offset=fusion.offset, converged=fusion.converged)
    centre, spread = np.array([_centre_spread(t, u) for t, u in zip(tar_columns, non_columns)]).T
    rescale = _ill_conditioned(centre, spread)
    if rescale.any():
        centre, spread = np.where(rescale, centre, 0.0), np.where(rescale, spread, 1.0)
        return _fit_rescaled(tar_columns, non_columns, rule, plo, regularisation, theta, centre, spread)
    n = tar_columns[0].size + non_columns[0].size
    if n > _SUBSAMPLE_ABOVE:
        # The optimum of an evenly strided subsample is close to the full one; the full data only polishes it.
        tar_step = max(1, tar_columns[0].size * 4 // _SUBSAMPLE_ABOVE)
        non_step = max(1, non_columns[0].size * 4 // _SUBSAMPLE_ABOVE)
        subsample, phi = _fit_standardised(
            [c[::tar_step] for c in tar_columns], [c[::non_step] for c in non_columns], rule, plo, regularisation, theta
        )
        objective = FusionObjective(tar_columns, non_columns, rule, plo, regularisation)
        phi = newton_polish(objective, objective.standardised(subsample.raw(phi)))
    else:
        objective, phi = _fit_standardised(tar_columns, non_columns, rule, plo, regularisation, theta)
    theta = objective.raw(phi)
    if not np.all(np.isfinite(theta)):
        raise ValueError("Calibration did not converge to finite parameters.")
    fusion = Fusion(weights=theta[:-1], offset=float(theta[-1]))
    # At a finite optimum the fused training scores overlap: were they separated, a larger scale would do better.
    # Finding them separated means the systems together separate the classes and the optimum is at infinity.
    separated = objective._llrs(tar_columns, theta).min() > objective._llrs(non_columns, theta).max()
    if separated and regularisation == 0:
        raise ValueError(
            "Together these systems separate the target and non-target training scores perfectly, so the fusion "
            "weights would grow without bound. Use some regularisation, fuse fewer systems, or train on more trials."
        )
    return Fusion(weights=fusion.weights, offset=fusion.offset, converged=_check_converged(objective, phi))


def _start_parameters(start: Fusion, systems: int) -> np.ndarray:
    """The raw parameters (weights..., offset) of a start fusion, checked against the number of systems."""
    theta = np.append(np.asarray(start.weights, dtype=np.float64).ravel(), start.offset)
    if theta.size != systems + 1 or not np.all(np.isfinite(theta)):
        raise ValueError(f"The start must be a finite fusion of {systems} system(s).")
    return theta


def _columns(scores, what: str) -> list[np.ndarray]:
    """Scores of K systems as a list of K contiguous 1-D arrays (a 1-D array is one system, used without a copy)."""
    if isinstance(scores, np.ndarray) and scores.ndim == 1:
        columns = [as_scores(scores, what)]
    else:
        columns = [np.ascontiguousarray(column) for column in _as_matrix(scores, what).T]
    if not all(np.isfinite(column).all() for column in columns):
        raise ValueError(f"The {what} contain infinite values; calibration needs finite scores.")
    return columns


def _refuse_separable(tar_columns, non_columns):
    if len(tar_columns) == 1 and (
        tar_columns[0].min() > non_columns[0].max() or tar_columns[0].max() < non_columns[0].min()
    ):
        raise ValueError(
            "The target and non-target scores do not overlap, so an affine calibration would need an infinite "
            "scale. Use PAV calibration, or calibrate on more (or harder) trials."
        )


@old_spellings(positional=("plo",))
def fit_affine(tar: ArrayLike | Trials, non: ArrayLike | None = None, rule: BetaRule | None = None, *, plo: float = 0.0,
               start: Affine | None = None, by: str | Sequence[str] | None = None, quality: Sequence[str] | None = None,
               bilinear: Sequence[tuple[str, str]] | None = None) -> Affine:
    """Affine calibration ``llr = scale * score + offset`` minimising a prior-weighted proper scoring rule.

    For the logarithmic rule this is prior-weighted logistic regression: with target weight ``P / N_tar`` and
    non-target weight ``(1-P) / N_non``, ``P = sigmoid(plo)``, the logistic intercept is ``offset + plo``.
    See :func:`fit_fusion` for the objective and for `start`, a calibration near the optimum (e.g. the one at a
    neighbouring `plo`) that makes the fit faster without changing it.

    Parameters
    ----------
    tar, non : array_like
        Target and non-target scores; or one :class:`~llrcore.Trials` as `tar` (then `non` is left out).
    rule : BetaRule, optional
        The proper scoring rule; logarithmic by default.
    plo : float
        Prior weighting ``tau``.
    start : Affine, optional
        A calibration near the optimum to start from.
    by, quality, bilinear
        Deprecated: :func:`~llrcore.fit_affine_by_condition` and :func:`~llrcore.fit_quality_affine` make these
        calibrations (this gives their result, after a FutureWarning, for one release).

    Returns
    -------
    Affine
        Called on scores, it gives their LLRs.

    References
    ----------
    N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
    Interspeech 2013.
    """
    if quality is not None or bilinear is not None:
        moved_call("fit_affine(trials, quality=...)", "fit_quality_affine(trials, quality)")
        calibration = fit_quality(fit_fusion, tar, non, rule, plo, start=start, by=by, quality=quality,
                                  bilinear=bilinear)
        # the old spellings answer as the new functions do, for one release: not with the Affine the API promises
        return calibration  # type: ignore[return-value]
    if isinstance(tar, Trials):
        if non is not None:
            raise TypeError("Give one Trials, or the target and the non-target scores, not both; pass the rule and "
                            "the prior weighting by name (rule=..., plo=...).")
        if by is not None:
            if start is not None:
                raise TypeError("A start calibration is for one affine fit; it cannot start a calibration per "
                                "condition.")
            moved_call("fit_affine(trials, by=...)", "fit_affine_by_condition(trials, by)")
            return ConditionalCalibration.fit(tar, by, fit_affine, rule=rule, plo=plo)  # type: ignore[return-value]
        non, tar = tar.non, tar.tar
    elif by is not None:
        raise TypeError("A calibration per condition needs one Trials with metadata, as fit_affine(trials, "
                        "by=...), not two arrays of scores.")
    elif non is None:
        raise TypeError("Give the non-target scores as well as the target scores.")
    fusion_start = None if start is None else Fusion(weights=np.array([start.scale]), offset=start.offset)
    fusion = fit_fusion(as_scores(tar, "target scores"), as_scores(non, "non-target scores"), rule, plo=plo,
                        start=fusion_start)
    return Affine(scale=float(fusion.weights[0]), offset=fusion.offset, converged=fusion.converged,
                  failure=fusion.failure)
