"""Multiclass (language-recognition style) evaluation and calibration of log-likelihood vectors.

A multiclass recogniser gives, per trial ``t``, a vector of N relative log-likelihoods ``l_t`` (natural log, defined
up to an additive constant per trial). With a prior ``pi`` the posterior of class i is
``P_i(t) = pi_i exp(l_ti) / sum_j pi_j exp(l_tj)`` (eq. 4 of the paper). From that one vector come:

- :func:`multiclass_cllr` — ``Cllr = -sum_i pi_i mean_{t in class i} log2 P_i(t)`` in bits (eq. 17 with the flat
  prior ``pi_i = 1/N``); ``log2 N`` is the useless reference (entropy of the prior in general).
- :func:`fit_multiclass_affine` — the direction-preserving calibration ``l' = alpha l + gamma`` (eq. 18: a scalar
  scale and N offsets defined up to a common constant, N free parameters), trained by minimising that Cllr
  (multiclass logistic regression) with Newton's method on the exact gradient and Hessian. ``Cllr - Cllr^T`` is
  the calibration loss.
- :func:`pairwise_analysis` — every pair of classes as a binary problem with LLR ``l_i - l_j``: Cllr before and
  after calibration and minCllr by PAV (which the calibration cannot change: it is monotone on each pair).
- :func:`detection_llrs` — one-against-the-rest LLR of eq. 9 with a prior over the non-targets (flat by default),
  so every binary tool (Cllr, APE, DET, EER) applies per target; :func:`detection_analysis` tabulates them.
- MAP decisions for identification, detection and pair-wise questions with any prior
  (:func:`map_decisions`, :func:`detection_decisions`, :func:`pairwise_decisions`) and
  :func:`identification_errors` (confusion matrix, per-class and prior-weighted error rates).

Scores of classifiers are turned into LLRs with :func:`scores_to_llrs` (logits and log-posteriors lose the log of
the training prior). Functions take an ``(T, N)`` LLR matrix with integer labels ``0..N-1``, or a
:class:`MulticlassScores` alone.

Reference: N. Brümmer and D. van Leeuwen, "On calibration of language recognition scores", Odyssey 2006.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from .data.trials import Trials
from .newton import newton_polish, trust_region
from .rates import SortedScores, cllr_bits

__all__ = [
    "SCORE_TYPES",
    "IdentificationErrors",
    "MulticlassAffine",
    "MulticlassAnalysis",
    "MulticlassScores",
    "analyse_multiclass",
    "class_prior",
    "confusion_matrix",
    "detection_analysis",
    "detection_decisions",
    "detection_llrs",
    "detection_trials",
    "fit_multiclass_affine",
    "identification_errors",
    "map_decisions",
    "multiclass_cllr",
    "pairwise_analysis",
    "pairwise_decisions",
    "read_multiclass",
    "scores_to_llrs",
]

#: What the columns of a score matrix can be (see :func:`scores_to_llrs`).
SCORE_TYPES = ("llr", "logit", "log-posterior")
_SCORE_TYPE_ALIASES = {
    "llr": "llr", "llrs": "llr", "log-likelihood": "llr", "log-likelihoods": "llr", "loglik": "llr",
    "logit": "logit", "logits": "logit",
    "log-posterior": "log-posterior", "log-posteriors": "log-posterior", "log_posterior": "log-posterior",
    "logpost": "log-posterior",
}
_BLOCK = 1 << 18  # matrix elements per block (2 MB of float64): big enough for numpy, small enough for the cache
_LN2 = np.log(2.0)
# The trust region runs on a per-class strided subsample of about this many trials (at least _PER_CLASS per class)
# when the set is over twice as large; its optimum is within a percent or so of the full one, and Newton steps on
# all trials (quadratic convergence: 3 or 4 passes) finish the job. Only the starting point depends on it.
_SUBSAMPLE_TRIALS, _PER_CLASS = 20_000, 500


# ----- data ----------------------------------------------------------------------------------------------------------


def _as_llr_matrix(llrs, what: str = "LLRs") -> np.ndarray:
    """``(T, N)`` float64 matrix (no copy when it already is one); NaN, ``+inf`` and fewer than 2 classes refused.

    ``-inf`` is allowed (a class ruled out) as long as each trial has a finite value.
    """
    try:
        matrix = np.asarray(llrs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"The {what} must be numbers.") from None
    if matrix.ndim != 2:
        raise ValueError(f"The {what} must be a (trials x classes) matrix, not a {matrix.ndim}-D array.")
    if matrix.shape[0] == 0:
        raise ValueError(f"There are no trials: the {what} matrix has no rows.")
    if matrix.shape[1] < 2:
        raise ValueError(f"The {what} have {matrix.shape[1]} column; at least 2 classes are needed.")
    if np.isnan(matrix).any():
        row = int(np.argmax(np.isnan(matrix).any(axis=1)))
        raise ValueError(f"The {what} of trial {row} (counting from 0) contain a missing value (NaN).")
    if np.isposinf(matrix).any():
        row = int(np.argmax(np.isposinf(matrix).any(axis=1)))
        raise ValueError(f"The {what} of trial {row} (counting from 0) contain +inf; use a large finite number.")
    hopeless = ~np.isfinite(matrix).any(axis=1) if np.isneginf(matrix).any() else np.zeros(1, bool)
    if hopeless.any():
        raise ValueError(f"Every value of trial {int(np.argmax(hopeless))} (counting from 0) is -inf.")
    return matrix


def _as_labels(labels, n_trials: int, n_classes: int) -> np.ndarray:
    """Integer class indices ``0..n_classes-1``, one per trial."""
    values = np.asarray(labels).reshape(-1)
    if values.dtype.kind == "b" or values.dtype.kind not in "iuf":
        raise ValueError("The labels must be class numbers 0, 1, ..., N-1.")
    if values.dtype.kind == "f":
        if not np.all(np.isfinite(values)) or np.any(values != np.round(values)):
            raise ValueError("The labels must be whole class numbers 0, 1, ..., N-1.")
    values = values.astype(np.int64)
    if values.size != n_trials:
        raise ValueError(f"There are {n_trials} trials but {values.size} labels.")
    bad = (values < 0) | (values >= n_classes)
    if bad.any():
        raise ValueError(f"Label {int(values[np.argmax(bad)])} is not a class number 0 to {n_classes - 1} "
                         f"(there are {n_classes} classes).")
    return values


@dataclass(frozen=True, eq=False)
class MulticlassScores:
    """LLR vectors of multiclass trials with their true classes.

    Parameters
    ----------
    llrs : array_like, shape (T, N)
        Relative log-likelihoods (natural log), one row per trial, one column per class; a row may be shifted by
        any constant. NaN and ``+inf`` are refused; ``-inf`` rules a class out.
    labels : array_like of int, shape (T,)
        The true class of each trial, ``0..N-1``.
    classes : sequence of str, optional
        Class names (default ``"0"``, ``"1"``, ...).
    name : str
        The system's name.
    """

    llrs: np.ndarray
    labels: np.ndarray
    classes: tuple = ()
    name: str = ""
    counts: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        llrs = _as_llr_matrix(self.llrs)
        n = llrs.shape[1]
        labels = _as_labels(self.labels, llrs.shape[0], n)
        classes = tuple(str(c) for c in self.classes) if len(self.classes) else tuple(str(i) for i in range(n))
        if len(classes) != n:
            raise ValueError(f"There are {n} score columns but {len(classes)} class names.")
        if len(set(classes)) != n:
            repeated = next(c for c in classes if classes.count(c) > 1)
            raise ValueError(f"The class name {repeated!r} is used twice; class names must differ.")
        counts = np.bincount(labels, minlength=n)
        if not counts.all():
            raise ValueError(f"There are no trials of class {classes[int(np.argmin(counts))]!r}; every class needs "
                             "at least one trial.")
        if llrs is self.llrs or not llrs.flags.owndata:
            llrs = llrs.copy()
        for array in (llrs, labels, counts):
            array.flags.writeable = False
        object.__setattr__(self, "llrs", llrs)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "counts", counts)

    @property
    def n_classes(self) -> int:
        return self.llrs.shape[1]

    @property
    def empirical_prior(self) -> np.ndarray:
        """The class frequencies of these trials."""
        return self.counts / self.counts.sum()

    def class_index(self, target) -> int:
        """Index of a class given by index or by name."""
        return _class_index(target, self.n_classes, self.classes)

    def __len__(self) -> int:
        return self.llrs.shape[0]

    def __repr__(self) -> str:
        return f"MulticlassScores(name={self.name!r}, trials={len(self)}, classes={list(self.classes)})"


def _llrs_and_labels(llrs, labels) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(llrs, MulticlassScores):
        return llrs.llrs, (llrs.labels if labels is None else _as_labels(labels, len(llrs), llrs.n_classes))
    if labels is None:
        raise ValueError("Give the labels (true class of each trial) with the LLR matrix.")
    matrix = _as_llr_matrix(llrs)
    return matrix, _as_labels(labels, matrix.shape[0], matrix.shape[1])


def _classes_of(llrs, classes, n: int) -> tuple:
    if classes is not None:
        return tuple(str(c) for c in classes)
    if isinstance(llrs, MulticlassScores):
        return llrs.classes
    return tuple(str(i) for i in range(n))


def _class_index(target, n: int, classes=()) -> int:
    if isinstance(target, (int, np.integer)) and not isinstance(target, bool):
        if not 0 <= target < n:
            raise ValueError(f"Class {int(target)} does not exist: the classes are numbered 0 to {n - 1}.")
        return int(target)
    if str(target) in classes:
        return list(classes).index(str(target))
    raise ValueError(f"There is no class {target!r}; the classes are {', '.join(map(str, classes or range(n)))}.")


def class_prior(prior, n_classes: int, labels=None) -> np.ndarray:
    """A prior over the classes as a normalised float array.

    Parameters
    ----------
    prior : None, "flat", "empirical" or array_like
        ``None``/``"flat"``: ``1/N`` each; ``"empirical"``: the class frequencies of `labels`; an array of N
        non-negative weights (normalised to sum 1). A zero removes a class from the question (the paper's
        sub-problems: two non-zero entries make a pair-wise problem).
    """
    if prior is None or (isinstance(prior, str) and prior == "flat"):
        return np.full(n_classes, 1.0 / n_classes)
    if isinstance(prior, str):
        if prior != "empirical":
            raise ValueError(f"The prior {prior!r} is not known: give 'flat', 'empirical' or one weight per class.")
        if labels is None:
            raise ValueError("The empirical prior needs the labels.")
        counts = np.bincount(np.asarray(labels), minlength=n_classes)
        return counts / counts.sum()
    values = np.asarray(prior, dtype=np.float64).reshape(-1)
    if values.size != n_classes:
        raise ValueError(f"The prior has {values.size} values but there are {n_classes} classes.")
    if not np.all(np.isfinite(values)) or np.any(values < 0) or values.sum() <= 0:
        raise ValueError("The prior must be non-negative numbers, not all zero.")
    return values / values.sum()


def scores_to_llrs(scores, score_type: str = "llr", training_prior=None, labels=None) -> np.ndarray:
    """Relative log-likelihoods from a classifier's score matrix.

    A classifier's log-posteriors (or logits, which differ from them by a constant per trial) carry the prior it
    was trained with: ``log P_i = l_i + log pi_i + c``. Removing ``log pi_train`` leaves the LLRs (up to the
    constant, which never matters). LLRs are returned as they are.

    Parameters
    ----------
    scores : array_like, shape (T, N)
    score_type : {"llr", "logit", "log-posterior"}
    training_prior : None, "flat", "empirical" or array_like, optional
        The prior the classifier was trained with (its class frequencies in training); flat by default, in which
        case nothing is subtracted. ``"empirical"`` uses the class frequencies of `labels`. Not allowed for LLRs.
    """
    kind = _SCORE_TYPE_ALIASES.get(str(score_type).strip().lower())
    if kind is None:
        raise ValueError(f"The score type {score_type!r} is not known: use one of {', '.join(SCORE_TYPES)}.")
    matrix = _as_llr_matrix(scores, "scores")
    if kind == "llr":
        if training_prior is not None:
            raise ValueError("LLRs do not depend on a training prior; give it only for logits or log-posteriors.")
        return matrix
    if training_prior is None or (isinstance(training_prior, str) and training_prior == "flat"):
        return matrix
    prior = class_prior(training_prior, matrix.shape[1], labels)
    if np.any(prior == 0):
        raise ValueError("A training prior of 0 for a class would make its LLRs infinite; every class needs a "
                         "positive training prior.")
    return matrix - np.log(prior)


# ----- the core computation: log-normalisers per trial, in cache-sized blocks -------------------------------------


def _blocks(n_rows: int, n_columns: int):
    rows = max(1, _BLOCK // max(n_columns, 1))
    for start in range(0, n_rows, rows):
        yield slice(start, min(start + rows, n_rows))


def _class_major(llrs: np.ndarray, rows: slice, scale: float = 1.0) -> np.ndarray:
    """``scale * llrs[rows]`` as a new C-contiguous ``(N, B)`` block: one row per class.

    The per-trial reductions over the N classes (max, sum) then run along contiguous memory, element-wise over
    trials, which numpy vectorises; along rows of 10-20 values they are several times slower.
    """
    block = llrs[rows]
    out = np.empty((block.shape[1], block.shape[0]))
    if scale == 1.0:
        np.copyto(out, block.T)
    else:
        np.multiply(block.T, scale, out=out)
    return out


def _softmax_columns(z: np.ndarray) -> np.ndarray:
    """Normalise each column of a class-major block of log-values in place to probabilities; return the log-sums."""
    top = z.max(axis=0)
    top[~np.isfinite(top)] = 0.0  # a trial with every allowed class at -inf: its sum is 0, its log -inf
    z -= top
    np.exp(z, out=z)
    total = z.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z /= total
        return top + np.log(total)


def _row_logsumexp(llrs: np.ndarray, shift: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """``log sum_j exp(scale * l_tj + shift_j)`` for every row ``t`` (shift may hold ``-inf``: a class left out)."""
    out = np.empty(llrs.shape[0])
    for rows in _blocks(*llrs.shape):
        z = _class_major(llrs, rows, scale)
        z += shift[:, None]
        out[rows] = _softmax_columns(z)
    return out


def _true_class_costs(llrs, labels, log_prior, lse) -> np.ndarray:
    """``-log P_true(t)`` in nats; ``inf`` when the true class was ruled out (its posterior is 0)."""
    true = llrs[np.arange(labels.size), labels] + log_prior[labels]
    with np.errstate(invalid="ignore"):
        cost = lse - true
    cost[np.isnan(cost)] = np.inf  # -inf - (-inf): the true class and all others ruled out
    return cost


def _require_trials(prior: np.ndarray, counts: np.ndarray, classes) -> None:
    missing = (prior > 0) & (counts == 0)
    if missing.any():
        raise ValueError(f"There are no trials of class {classes[int(np.argmax(missing))]!r}, which has a non-zero "
                         "prior; give it prior 0 or add trials of it.")


def multiclass_cllr(llrs, labels=None, prior=None) -> float:
    """Multiclass Cllr in bits: the prior-weighted logarithmic scoring rule of the posteriors.

    ``Cllr = -sum_i pi_i mean_{t in class i} log2 P_i(t)`` with ``P_i(t) = pi_i e^{l_ti} / sum_j pi_j e^{l_tj}``
    (Brümmer & van Leeuwen 2006, eq. 17, which uses the flat prior ``pi_i = 1/N``). A system that always outputs
    equal LLRs scores the entropy of the prior, ``log2 N`` bits at the flat prior; more than that is worse than
    deciding from the prior alone. Classes with prior 0 are left out of the question (their trials do not count
    and their LLRs do not enter the posteriors). With two classes and the flat prior this is the binary Cllr of
    ``l_1 - l_0``.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
    labels : array_like of int (T,), optional
        True classes; taken from `llrs` when it is a :class:`MulticlassScores`.
    prior : None, "flat", "empirical" or array_like
        See :func:`class_prior`; flat by default.
    """
    llrs, labels = _llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    prior = class_prior(prior, n, labels)
    counts = np.bincount(labels, minlength=n)
    _require_trials(prior, counts, _classes_of(None, None, n))
    with np.errstate(divide="ignore"):
        log_prior = np.log(prior)
    cost = _true_class_costs(llrs, labels, log_prior, _row_logsumexp(llrs, log_prior))
    cost[prior[labels] == 0] = 0.0  # trials of classes outside the question
    mean_cost = np.bincount(labels, weights=cost, minlength=n) / np.maximum(counts, 1)
    return float(prior[prior > 0] @ mean_cost[prior > 0] / _LN2)


def _entropy_bits(prior: np.ndarray) -> float:
    positive = prior[prior > 0]
    return float(-(positive @ np.log2(positive)))


# ----- direction-preserving calibration ---------------------------------------------------------------------------


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
        for rows in _blocks(n, k):
            l = self.llrs_t[:, rows]
            p = l * alpha
            p += shift[:, None]
            yield rows, l, p, _softmax_columns(p)

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
    for rows in _blocks(*llrs.shape):
        z = llrs[rows] * alpha + shift
        index = np.arange(z.shape[0]), labels[rows]
        true = z[index]
        z[index] = -np.inf
        if not np.all(true > z.max(axis=1)):
            return False
    return True


def fit_multiclass_affine(llrs, labels=None, prior=None) -> MulticlassAffine:
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
    labels : array_like of int, optional
    prior : None, "flat", "empirical" or array_like
        The prior of the Cllr being minimised (flat by default). Offsets of classes with prior 0 are left at 0.

    Raises
    ------
    ValueError
        When the scaled LLRs separate the classes perfectly (the optimum is at infinite scale), or on bad input.
    """
    llrs, labels = _llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    prior = class_prior(prior, n, labels)
    _require_trials(prior, np.bincount(labels, minlength=n), _classes_of(None, None, n))
    if not np.isfinite(llrs).all():
        raise ValueError("Calibration needs finite LLRs; some are -inf.")
    active = np.flatnonzero(prior > 0)
    if active.size < 2:
        raise ValueError("Calibration needs a prior with at least two classes above 0.")
    if active.size < n:  # only the classes of the question take part
        rows = np.flatnonzero(prior[labels] > 0)
        relabel = np.full(n, -1)
        relabel[active] = np.arange(active.size)
        llrs, labels, prior = llrs[np.ix_(rows, active)], relabel[labels[rows]], prior[active]
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


# ----- pair-wise and detection analysis ---------------------------------------------------------------------------


def _calibrated(llrs, labels, calibrated) -> np.ndarray:
    """The calibrated LLR matrix: given, from a calibrator, or from a flat-prior fit on these trials."""
    if calibrated is None:
        calibrated = fit_multiclass_affine(llrs, labels)
    if callable(calibrated):
        calibrated = calibrated(llrs)
    matrix = _as_llr_matrix(calibrated, "calibrated LLRs")
    if matrix.shape != llrs.shape:
        raise ValueError(f"The calibrated LLRs have shape {matrix.shape}, the LLRs {llrs.shape}.")
    return matrix


def _members(labels: np.ndarray, n: int) -> list[np.ndarray]:
    """Trial indices of each class (one sort of the labels)."""
    order = np.argsort(labels, kind="stable")
    return np.split(order, np.cumsum(np.bincount(labels, minlength=n))[:-1])


def _binary(llrs: np.ndarray, a: int, b: int, members) -> tuple[np.ndarray, np.ndarray]:
    """Binary LLRs ``l_a - l_b`` of the trials of class a (targets) and of class b (non-targets)."""
    tar, non = llrs[members[a]], llrs[members[b]]
    return tar[:, a] - tar[:, b], non[:, a] - non[:, b]


def pairwise_analysis(llrs, labels=None, calibrated=None, *, classes=None) -> pd.DataFrame:
    """Every pair of classes as a binary problem: Cllr before and after calibration, and minCllr.

    For each pair ``a < b`` the LLR ``l_a - l_b`` of the trials of classes a (targets) and b (non-targets) is
    scored with the binary Cllr (:func:`~llrcore.metrics.cllr`), before and after the calibration, and with
    minCllr (PAV). The direction-preserving calibration maps ``l_a - l_b`` to ``alpha (l_a - l_b) + gamma_a -
    gamma_b``, a rising function of it alone, so minCllr is the same before and after (sec. 4.2 of the paper) and
    bounds both Cllrs from below. Pairs with Cllr above 1 bit do worse than the prior alone.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
    labels : array_like of int, optional
    calibrated : array_like (T, N), callable or None
        The calibrated LLR matrix, or a calibrator applied to `llrs`; by default
        ``fit_multiclass_affine(llrs, labels)`` (flat prior) on these very trials.
    classes : sequence of str, optional
        Class names for the table (default those of a :class:`MulticlassScores`, else ``"0"``, ``"1"``, ...).

    Returns
    -------
    DataFrame
        One row per pair: ``class_a``, ``class_b``, ``cllr``, ``cllr_calibrated``, ``min_cllr`` (bits).
    """
    names = llrs
    llrs, labels = _llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    classes = _classes_of(names, classes, n)
    calibrated = _calibrated(llrs, labels, calibrated)
    members = _members(labels, n)
    rows = []
    for a, b in combinations(range(n), 2):
        if members[a].size == 0 or members[b].size == 0:
            rows.append((classes[a], classes[b], np.nan, np.nan, np.nan))
            continue
        tar, non = _binary(llrs, a, b, members)
        tar_cal, non_cal = _binary(calibrated, a, b, members)
        rows.append((classes[a], classes[b], cllr_bits(tar, non), cllr_bits(tar_cal, non_cal),
                     SortedScores(tar, non).min_cllr()))
    return pd.DataFrame(rows, columns=["class_a", "class_b", "cllr", "cllr_calibrated", "min_cllr"])


def detection_llrs(llrs, target, prior=None) -> np.ndarray:
    """One-against-the-rest detection LLR of every trial for class `target` (eq. 9 of the paper).

    ``l_det(t) = -log sum_{i != target} (pi_i / (1 - pi_target)) exp(-(l_target - l_i))``: the LLR of "the class is
    `target`" against "it is one of the others", which needs the relative prior of the other classes (flat over
    them by default, as in NIST LRE). The target's own prior does not enter (it only sets the threshold).

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
    target : int or str
        The target class (index, or name with a :class:`MulticlassScores`).
    prior : None, "flat" or array_like
        Prior over the classes; the target's entry is ignored, the others are renormalised.
    """
    classes = llrs.classes if isinstance(llrs, MulticlassScores) else ()
    matrix = llrs.llrs if isinstance(llrs, MulticlassScores) else _as_llr_matrix(llrs)
    n = matrix.shape[1]
    t = _class_index(target, n, classes)
    weights = class_prior(prior, n, getattr(llrs, "labels", None)).copy()
    weights[t] = 0.0
    if weights.sum() <= 0:
        raise ValueError("The prior gives no weight to any non-target class, so there is nothing to detect against.")
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights / weights.sum())
    return matrix[:, t] - _row_logsumexp(matrix, log_weights)


def detection_trials(llrs, labels=None, target=0, prior=None, *, name: str | None = None) -> Trials:
    """The detection LLRs of `target` as binary :class:`~llrcore.data.Trials`: its trials against all others."""
    classes = _classes_of(llrs, None, np.shape(getattr(llrs, "llrs", llrs))[-1])
    matrix, labels = _llrs_and_labels(llrs, labels)
    t = _class_index(target, matrix.shape[1], classes)
    det = detection_llrs(matrix, t, class_prior(prior, matrix.shape[1], labels))
    return Trials.from_labels(det, labels == t, name=classes[t] if name is None else name)


def detection_analysis(llrs, labels=None, calibrated=None, *, prior=None, classes=None) -> pd.DataFrame:
    """Per target class, the binary evaluation of its detection LLRs before and after calibration.

    Detection LLRs (eq. 9, prior flat over the non-targets by default) are computed from the LLRs and from the
    calibrated LLRs. Unlike the pair-wise LLRs, calibrated detection LLRs are not a function of the raw ones
    (sec. 4.3), so minCllr and the EER may change a little too.

    Returns
    -------
    DataFrame
        One row per class: ``target``, ``n_target``, ``n_non_target``, ``cllr``, ``min_cllr``, ``eer``,
        ``cllr_calibrated``, ``min_cllr_calibrated``, ``eer_calibrated`` (Cllr in bits, EER as a fraction).
    """
    names = llrs
    llrs, labels = _llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    classes = _classes_of(names, classes, n)
    calibrated = _calibrated(llrs, labels, calibrated)
    rows = []
    for t in range(n):
        row = {"target": classes[t]}
        for suffix, matrix in (("", llrs), ("_calibrated", calibrated)):
            table = detection_trials(matrix, labels, t, prior).sorted
            row.update({"n_target": table.n_tar, "n_non_target": table.n_non, f"cllr{suffix}": table.cllr(),
                        f"min_cllr{suffix}": table.min_cllr(), f"eer{suffix}": table.eer()})
        rows.append(row)
    columns = ["target", "n_target", "n_non_target", "cllr", "min_cllr", "eer", "cllr_calibrated",
               "min_cllr_calibrated", "eer_calibrated"]
    return pd.DataFrame(rows)[columns]


@dataclass(frozen=True)
class MulticlassAnalysis:
    """Everything the paper's calibration analysis reports for one set of multiclass trials.

    Attributes
    ----------
    scores : MulticlassScores
    prior : ndarray
        The prior of the Cllrs (flat unless asked otherwise).
    cllr, cllr_calibrated : float
        Multiclass Cllr before and after the direction-preserving calibration (bits).
    reference : float
        Cllr of a useless system: the entropy of the prior (``log2 N`` at the flat prior).
    calibration : MulticlassAffine
    calibrated : ndarray (T, N)
        The calibrated LLRs.
    pairwise, detection : DataFrame
        :func:`pairwise_analysis` and :func:`detection_analysis`.
    """

    scores: MulticlassScores
    prior: np.ndarray
    cllr: float
    cllr_calibrated: float
    reference: float
    calibration: MulticlassAffine
    calibrated: np.ndarray
    pairwise: pd.DataFrame
    detection: pd.DataFrame

    @property
    def calibration_loss(self) -> float:
        """``Cllr - Cllr^T`` in bits: the information lost to misinterpretation."""
        return self.cllr - self.cllr_calibrated


def analyse_multiclass(scores: MulticlassScores, prior=None) -> MulticlassAnalysis:
    """Calibrate on the trials themselves (a measurement, as in the paper) and analyse every sub-problem.

    The multiclass Cllr and the calibration use `prior` (flat by default); the detection LLRs use a prior flat
    over the non-targets.
    """
    if not isinstance(scores, MulticlassScores):
        raise TypeError("analyse_multiclass takes a MulticlassScores (see read_multiclass).")
    prior = class_prior(prior, scores.n_classes, scores.labels)
    calibration = fit_multiclass_affine(scores, prior=prior)
    calibrated = calibration(scores.llrs)
    calibrated.flags.writeable = False
    return MulticlassAnalysis(
        scores=scores,
        prior=prior,
        cllr=multiclass_cllr(scores, prior=prior),
        cllr_calibrated=multiclass_cllr(calibrated, scores.labels, prior),
        reference=_entropy_bits(prior),
        calibration=calibration,
        calibrated=calibrated,
        pairwise=pairwise_analysis(scores, calibrated=calibrated),
        detection=detection_analysis(scores, calibrated=calibrated),
    )


# ----- Bayes (MAP) decisions ---------------------------------------------------------------------------------------


def map_decisions(llrs, prior=None) -> np.ndarray:
    """Identification: the class of maximum posterior, ``argmax_i (l_i + log pi_i)`` (eq. 8); ties go to the lower
    index."""
    matrix = llrs.llrs if isinstance(llrs, MulticlassScores) else _as_llr_matrix(llrs)
    prior = class_prior(prior, matrix.shape[1], getattr(llrs, "labels", None))
    with np.errstate(divide="ignore"):
        return np.argmax(matrix + np.log(prior), axis=1)


def detection_decisions(llrs, target, prior=None) -> np.ndarray:
    """Detection of `target` (eq. 10): True where ``l_det >= log((1 - pi_t) / pi_t)``, i.e. ``P(target) >= 1/2``.

    `prior` is the full prior: the target's entry sets the threshold, the others the detection LLR.
    """
    matrix = llrs.llrs if isinstance(llrs, MulticlassScores) else _as_llr_matrix(llrs)
    classes = llrs.classes if isinstance(llrs, MulticlassScores) else ()
    t = _class_index(target, matrix.shape[1], classes)
    prior = class_prior(prior, matrix.shape[1], getattr(llrs, "labels", None))
    if prior[t] == 0:
        return np.zeros(matrix.shape[0], dtype=bool)
    with np.errstate(divide="ignore"):
        threshold = np.log1p(-prior[t]) - np.log(prior[t])
    return detection_llrs(matrix, t, prior) >= threshold


def pairwise_decisions(llrs, class_a, class_b, prior=None) -> np.ndarray:
    """Pair-wise classification (eq. 7): True (class a) where ``l_a - l_b >= log(pi_b / pi_a)``."""
    matrix = llrs.llrs if isinstance(llrs, MulticlassScores) else _as_llr_matrix(llrs)
    classes = llrs.classes if isinstance(llrs, MulticlassScores) else ()
    n = matrix.shape[1]
    a, b = _class_index(class_a, n, classes), _class_index(class_b, n, classes)
    if a == b:
        raise ValueError("A pair-wise question needs two different classes.")
    prior = class_prior(prior, n, getattr(llrs, "labels", None))
    with np.errstate(divide="ignore"):
        return matrix[:, a] - matrix[:, b] >= np.log(prior[b]) - np.log(prior[a])


def confusion_matrix(labels, decisions, n_classes: int | None = None) -> np.ndarray:
    """Counts ``C[i, j]`` of trials of true class i decided as class j."""
    labels, decisions = np.asarray(labels, dtype=np.int64), np.asarray(decisions, dtype=np.int64)
    if labels.shape != decisions.shape:
        raise ValueError(f"There are {labels.size} labels but {decisions.size} decisions.")
    n = int(max(labels.max(initial=-1), decisions.max(initial=-1)) + 1) if n_classes is None else int(n_classes)
    return np.bincount(labels * n + decisions, minlength=n * n).reshape(n, n)


@dataclass(frozen=True)
class IdentificationErrors:
    """MAP identification at a prior: the confusion matrix and its error rates.

    Attributes
    ----------
    classes : tuple of str
    prior : ndarray
        The prior of the decisions (and of the weighting of :attr:`error_rate`).
    confusion : ndarray of int (N, N)
        ``confusion[i, j]``: trials of class i decided as class j.
    class_error : ndarray
        Per class, the fraction of its trials decided as another class.
    error_rate : float
        The Bayes error rate ``sum_i pi_i class_error_i`` (the plain error rate when the prior is the class
        frequencies).
    default_error : float
        The error rate of deciding by the prior alone, ``1 - max_i pi_i``.
    """

    classes: tuple
    prior: np.ndarray
    confusion: np.ndarray
    class_error: np.ndarray
    error_rate: float
    default_error: float

    @property
    def normalised_error(self) -> float:
        """``error_rate / default_error``: above 1 the system does worse than the prior alone."""
        return self.error_rate / self.default_error if self.default_error > 0 else 0.0

    def to_frame(self) -> pd.DataFrame:
        """The confusion matrix as a table: rows are true classes, columns decided classes."""
        frame = pd.DataFrame(self.confusion, index=list(self.classes), columns=list(self.classes))
        frame.index.name, frame.columns.name = "true class", "decided class"
        return frame


def identification_errors(llrs, labels=None, prior=None, *, classes=None) -> IdentificationErrors:
    """MAP identification decisions at `prior` (flat by default) scored against the labels."""
    names = llrs
    matrix, labels = _llrs_and_labels(llrs, labels)
    n = matrix.shape[1]
    prior = class_prior(prior, n, labels)
    confusion = confusion_matrix(labels, map_decisions(matrix, prior), n)
    counts = confusion.sum(axis=1)
    _require_trials(prior, counts, _classes_of(names, classes, n))
    with np.errstate(invalid="ignore"):
        class_error = np.where(counts > 0, 1.0 - np.diag(confusion) / np.maximum(counts, 1), np.nan)
    return IdentificationErrors(
        classes=_classes_of(names, classes, n),
        prior=prior,
        confusion=confusion,
        class_error=class_error,
        error_rate=float(prior[prior > 0] @ class_error[prior > 0]),
        default_error=float(1.0 - prior.max()),
    )


# The reader lives with the other readers (llrcore.io.multiclass); it is re-exported so that this module holds the
# whole multiclass API. llrcore.io.multiclass imports from this module only inside its functions, so there is no cycle.
from .io.multiclass import read_multiclass
