"""Direction-preserving multiclass calibration ``l' = alpha l + gamma`` (eq. 18), trained by minimising the
multiclass Cllr (multiclass logistic regression with one shared scale) with the Newton solver of
:mod:`llrcore.calibration.newton` on the exact gradient and Hessian.

Reference: N. Brümmer and D. van Leeuwen, "On calibration of language recognition scores", Odyssey 2006, sec. 4.1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..calibration.newton import newton_polish, trust_region
from ..calibration.saved import Saved, dumps
from ..data.multiclass import (
    MulticlassScores,
    blocks,
    class_prior,
    classes_of,
    llrs_and_labels,
    require_trials,
    softmax_columns,
)

__all__ = ["MulticlassAffine", "fit_multiclass_affine"]

# The trust region runs on a per-class strided subsample of about this many trials (at least _PER_CLASS per class)
# when the set is over twice as large; its optimum is within a percent or so of the full one, and Newton steps on
# all trials (quadratic convergence: 3 or 4 passes) finish the job. Only the starting point depends on it.
_SUBSAMPLE_TRIALS, _PER_CLASS = 20_000, 500


@dataclass(frozen=True)
class MulticlassAffine:
    """Direction-preserving calibration ``l' = scale * l + offsets`` (eq. 18); call it on an LLR matrix.

    ``offsets`` sum to zero (an LLR vector is defined up to a constant), so ``scale`` and the offsets make N free
    parameters.
    """

    scale: float
    offsets: np.ndarray

    def __call__(self, llrs) -> np.ndarray:
        if isinstance(llrs, MulticlassScores):
            llrs = llrs.llrs
        matrix = np.asarray(llrs, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[1] != self.offsets.size:
            raise ValueError(f"This calibration is for {self.offsets.size} classes; the LLRs have shape "
                             f"{matrix.shape}.")
        return self.scale * matrix + self.offsets

    KIND = "multiclass-affine"

    def to_json(self, *, classes=None) -> str:
        """The calibrator as JSON text (schema ``llrcore.calibrator/1``, docs/calibration.md): coefficients
        ``scale`` and ``offsets`` (one per class, in the order of `classes` when given)."""
        return dumps(self.KIND, "llrs", {"scale": self.scale, "offsets": self.offsets}, features=classes)

    @classmethod
    def from_saved(cls, document: Saved) -> MulticlassAffine:
        """The calibrator of a saved document (:func:`llrcore.load_calibrator`)."""
        coefficients = document.part("coefficients")
        return cls(scale=coefficients.number("scale"), offsets=coefficients.vector("offsets"))


class _MulticlassObjective:
    """Multiclass logistic-regression objective of ``z_t = alpha l_t + gamma + log pi`` (nats).

    ``E(alpha, gamma) = sum_t w_t [logsumexp(z_t) - z_t,y_t]`` with ``w_t = pi_y / n_y``, so ``E = Cllr ln 2``.
    It is convex (log-sum-exp of an affine map). The last offset is fixed at 0 (the others are relative to it) and
    the scale is standardised, ``alpha = phi_0 / spread`` with ``spread`` the spread of the LLRs around each
    trial's mean, so that Newton steps are well scaled whatever the LLRs' units. Only classes with a positive
    prior take part. The interface (``value``, ``derivatives``) is the one of the binary calibration's
    optimisers, which are reused. The LLRs are kept class-major (one copy), as every pass reduces over classes.
    """

    def __init__(self, llrs: np.ndarray, labels: np.ndarray, prior: np.ndarray, spread: float):
        self.llrs_t = np.ascontiguousarray(llrs.T)
        self.labels, self.prior, self.spread = labels, prior, spread
        counts = np.bincount(labels, minlength=prior.size)
        self.weights = (prior / counts)[labels]
        self.log_prior = np.log(prior)
        self.true_llr_sum = float(self.weights @ llrs[np.arange(labels.size), labels])

    @staticmethod
    def spread_of(llrs: np.ndarray) -> float:
        sample = llrs[:: max(1, llrs.shape[0] // 20_000)]
        centred = sample - sample.mean(axis=1, keepdims=True)
        spread = float(np.sqrt(np.mean(centred**2)))
        return spread if np.isfinite(spread) and spread > 0 else 1.0

    def raw(self, phi) -> tuple[float, np.ndarray]:
        """``(alpha, gamma)`` from the optimiser's parameters."""
        return float(phi[0]) / self.spread, np.append(phi[1:], 0.0)

    def _posteriors(self, alpha: float, shift: np.ndarray):
        """Per block of trials: (rows, class-major LLRs, posteriors, log-normalisers)."""
        k, n = self.llrs_t.shape
        for rows in blocks(n, k):
            l = self.llrs_t[:, rows]
            p = l * alpha
            p += shift[:, None]
            yield rows, l, p, softmax_columns(p)

    def value(self, phi) -> float:
        alpha, gamma = self.raw(phi)
        shift = gamma + self.log_prior
        total = sum(self.weights[rows] @ lse for rows, _, _, lse in self._posteriors(alpha, shift))
        return float(total - alpha * self.true_llr_sum - self.prior @ shift)

    def derivatives(self, phi) -> tuple[np.ndarray, np.ndarray]:
        """Gradient and Hessian in the optimiser's parameters, from one pass over the trials.

        Per trial with posteriors ``p = softmax(z)``: ``dE/dgamma = p - e_y``, ``dE/dalpha = p.l - l_y``, and
        the Hessian of log-sum-exp ``diag(p) - p p^T`` mapped through ``dz/dalpha = l``, ``dz/dgamma = I``.
        """
        alpha, gamma = self.raw(phi)
        shift = gamma + self.log_prior
        k = self.prior.size
        sum_p, sum_pl_classes, sum_p_outer, h_ag_correction = np.zeros(k), np.zeros(k), np.zeros((k, k)), np.zeros(k)
        sum_pl = h_aa = 0.0
        for rows, l, p, _ in self._posteriors(alpha, shift):
            w = self.weights[rows]
            wp = p * w
            wpl = wp * l
            pl = np.einsum("ij,ij->j", p, l)  # p . l of every trial
            sum_p += wp.sum(axis=1)
            sum_pl_classes += wpl.sum(axis=1)
            sum_p_outer += np.einsum("it,jt->ij", wp, p)  # numpy's own loop: BLAS threads stall on these shapes
            sum_pl += w @ pl
            h_aa += np.einsum("ij,ij->", wpl, l) - (w * pl) @ pl
            h_ag_correction += wp @ pl
        gradient = np.concatenate([[sum_pl - self.true_llr_sum], sum_p - self.prior])
        hessian = np.empty((k + 1, k + 1))
        hessian[0, 0] = h_aa
        hessian[0, 1:] = hessian[1:, 0] = sum_pl_classes - h_ag_correction
        hessian[1:, 1:] = np.diag(sum_p) - sum_p_outer
        # to the optimiser's parameters: alpha = phi_0 / spread, the last offset fixed
        scaling = np.concatenate([[1.0 / self.spread], np.ones(k)])
        gradient, hessian = gradient * scaling, hessian * np.outer(scaling, scaling)
        return gradient[:-1], hessian[:-1, :-1]


def _subsample(labels: np.ndarray, n_classes: int, per_class: int) -> np.ndarray:
    """Indices of an evenly strided subsample of every class (each class keeps at least `per_class` or all)."""
    order = np.argsort(labels, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(labels, minlength=n_classes))])
    parts = []
    for i in range(n_classes):
        members = order[starts[i]:starts[i + 1]]
        parts.append(members[:: max(1, members.size // per_class)])
    return np.sort(np.concatenate(parts))


def _separates(llrs: np.ndarray, labels: np.ndarray, alpha: float, shift: np.ndarray) -> bool:
    """True when ``alpha l + shift`` puts every trial's true class strictly above all others.

    At a finite optimum this cannot happen: scaling a transform without errors up would lower every cost.
    """
    for rows in blocks(*llrs.shape):
        z = llrs[rows] * alpha + shift
        index = np.arange(z.shape[0]), labels[rows]
        true = z[index]
        z[index] = -np.inf
        if not np.all(true > z.max(axis=1)):
            return False
    return True


def fit_multiclass_affine(llrs: ArrayLike | MulticlassScores, labels: ArrayLike | None = None,
                          prior: str | ArrayLike | None = None) -> MulticlassAffine:
    """Direction-preserving calibration ``alpha l + gamma`` minimising the multiclass Cllr.

    Minimises :func:`multiclass_cllr` of the transformed LLRs over the scale ``alpha`` and the offsets ``gamma``
    (Brümmer & van Leeuwen 2006, sec. 4.1: N parameters; this is multiclass logistic regression with one shared
    scale). The objective is convex; a trust-region Newton method with the exact gradient and Hessian, then plain
    Newton steps, reach its optimum to machine precision. On large sets a fit on a per-class strided subsample
    gives the starting point and the full data only polishes it (a few passes over the trials).

    ``Cllr(llrs) - Cllr(cal(llrs))`` is the calibration loss, ``Cllr(cal(llrs))`` (:math:`C^T_{llr}`) an estimate of
    the information the LLRs hold. The scale is not constrained: a negative one says the LLRs point the wrong way.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    labels : array_like of int, optional
        True class of each trial; taken from `llrs` when it is a :class:`MulticlassScores`.
    prior : None, "flat", "empirical" or array_like
        The prior of the Cllr being minimised (flat by default). Offsets of classes with prior 0 are left at 0.

    Returns
    -------
    MulticlassAffine
        The calibrator: ``scale`` (alpha) and ``offsets`` (gamma, centred to mean 0); called on a (T, N) matrix it
        gives the calibrated LLRs.

    Raises
    ------
    ValueError
        When the scaled LLRs separate the classes perfectly (the optimum is at infinite scale), or on bad input:
        missing labels, a class with non-zero prior and no trial, LLRs of ``-inf``, fewer than two classes of
        non-zero prior.
    """
    llrs, labels = llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    prior = class_prior(prior, n, labels)
    require_trials(prior, np.bincount(labels, minlength=n), classes_of(None, None, n))
    if not np.isfinite(llrs).all():
        raise ValueError("Calibration needs finite LLRs; some are -inf.")
    active = np.flatnonzero(prior > 0)
    if active.size < 2:
        raise ValueError("Calibration needs a prior with at least two classes above 0.")
    if active.size < n:  # only the classes of the question take part
        rows = np.flatnonzero(prior[labels] > 0)
        relabel = np.full(n, -1)
        relabel[active] = np.arange(active.size)
        llrs, labels, prior = llrs[np.ix_(rows, active)], relabel.take(labels[rows]), prior[active]
    k = active.size
    spread = _MulticlassObjective.spread_of(llrs)
    objective = _MulticlassObjective(llrs, labels, prior, spread)
    if labels.size > 2 * _SUBSAMPLE_TRIALS:
        rows = _subsample(labels, k, max(_PER_CLASS, _SUBSAMPLE_TRIALS // k))
        start = trust_region(_MulticlassObjective(llrs[rows], labels[rows], prior, spread), np.zeros(k))
    else:
        start = trust_region(objective, np.zeros(k))
    phi = newton_polish(objective, start)
    alpha, gamma = objective.raw(phi)
    if not (np.isfinite(alpha) and np.all(np.isfinite(gamma))):
        raise ValueError("Calibration did not converge to finite parameters.")
    if _separates(llrs, labels, alpha, gamma + np.log(prior)):
        raise ValueError("The LLRs separate the classes perfectly, so the calibration's scale would grow without "
                         "bound. Calibrate on more (or harder) trials.")
    offsets = np.zeros(n)
    offsets[active] = gamma
    return MulticlassAffine(scale=alpha, offsets=offsets - offsets.mean())

