"""Multiclass scores as data: a matrix of log-likelihoods (trials x classes) with the true class of every trial.

:class:`MulticlassScores` and the checks every multiclass reader and analysis relies on (an LLR matrix without NaN
or ``+inf``, class numbers ``0..N-1``, a prior over the classes), :func:`scores_to_llrs` (a classifier's logits or
log-posteriors without the log of its training prior) and the one computation every layer needs: the log of the sum
of exponentials of each row, done in cache-sized blocks (:func:`row_logsumexp`).

Reference: N. Brümmer and D. van Leeuwen, "On calibration of language recognition scores", Odyssey 2006.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "SCORE_TYPES",
    "MulticlassScores",
    "as_class_labels",
    "as_llr_matrix",
    "blocks",
    "class_index",
    "class_prior",
    "classes_of",
    "llrs_and_labels",
    "require_trials",
    "row_logsumexp",
    "score_type_of",
    "scores_to_llrs",
    "softmax_columns",
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


def as_llr_matrix(llrs, what: str = "LLRs") -> np.ndarray:
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


def as_class_labels(labels, n_trials: int, n_classes: int) -> np.ndarray:
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
        llrs = as_llr_matrix(self.llrs)
        n = llrs.shape[1]
        labels = as_class_labels(self.labels, llrs.shape[0], n)
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
        return class_index(target, self.n_classes, self.classes)

    def __len__(self) -> int:
        return self.llrs.shape[0]

    def __repr__(self) -> str:
        return f"MulticlassScores(name={self.name!r}, trials={len(self)}, classes={list(self.classes)})"


def llrs_and_labels(llrs, labels) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(llrs, MulticlassScores):
        return llrs.llrs, (llrs.labels if labels is None else as_class_labels(labels, len(llrs), llrs.n_classes))
    if labels is None:
        raise ValueError("Give the labels (true class of each trial) with the LLR matrix.")
    matrix = as_llr_matrix(llrs)
    return matrix, as_class_labels(labels, matrix.shape[0], matrix.shape[1])


def classes_of(llrs, classes, n: int) -> tuple:
    if classes is not None:
        return tuple(str(c) for c in classes)
    if isinstance(llrs, MulticlassScores):
        return llrs.classes
    return tuple(str(i) for i in range(n))


def class_index(target, n: int, classes=()) -> int:
    if isinstance(target, (int, np.integer)) and not isinstance(target, bool):
        if not 0 <= target < n:
            raise ValueError(f"Class {int(target)} does not exist: the classes are numbered 0 to {n - 1}.")
        return int(target)
    if str(target) in classes:
        return list(classes).index(str(target))
    raise ValueError(f"There is no class {target!r}; the classes are {', '.join(map(str, classes or range(n)))}.")


def class_prior(prior: str | ArrayLike | None, n_classes: int, labels: ArrayLike | None = None) -> np.ndarray:
    """A prior over the classes as a normalised float array.

    Parameters
    ----------
    prior : None, "flat", "empirical" or array_like
        ``None``/``"flat"``: ``1/N`` each; ``"empirical"``: the class frequencies of `labels`; an array of N
        non-negative weights (normalised to sum 1). A zero removes a class from the question (the paper's
        sub-problems: two non-zero entries make a pair-wise problem).
    n_classes : int
        The number of classes N.
    labels : array_like of int, optional
        The true class of each trial (0 to N - 1); needed for ``"empirical"`` only.

    Returns
    -------
    ndarray, shape (N,)
        The prior probabilities, non-negative, summing to 1.

    Raises
    ------
    ValueError
        For an unknown name, ``"empirical"`` without labels, a wrong number of weights, or weights that are
        negative, not finite or all zero.
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


def require_trials(prior: np.ndarray, counts: np.ndarray, classes) -> None:
    missing = (prior > 0) & (counts == 0)
    if missing.any():
        raise ValueError(f"There are no trials of class {classes[int(np.argmax(missing))]!r}, which has a non-zero "
                         "prior; give it prior 0 or add trials of it.")


def score_type_of(score_type: str) -> str:
    """The score type's name in :data:`SCORE_TYPES`, whatever spelling was given ("logits", "LogPost", ...).

    Raises
    ------
    ValueError
        For a score type that is none of them.
    """
    kind = _SCORE_TYPE_ALIASES.get(str(score_type).strip().lower())
    if kind is None:
        raise ValueError(f"The score type {score_type!r} is not known: use one of {', '.join(SCORE_TYPES)}.")
    return kind


def scores_to_llrs(scores: ArrayLike, score_type: str = "llr", training_prior: str | ArrayLike | None = None,
                   labels: ArrayLike | None = None) -> np.ndarray:
    """Relative log-likelihoods from a classifier's score matrix.

    A classifier's log-posteriors (or logits, which differ from them by a constant per trial) carry the prior it
    was trained with: ``log P_i = l_i + log pi_i + c``. Removing ``log pi_train`` leaves the LLRs (up to the
    constant, which never matters). LLRs are returned as they are.

    Parameters
    ----------
    scores : array_like, shape (T, N)
        One row per trial, one column per class.
    score_type : {"llr", "logit", "log-posterior"}
        What the scores are (other spellings such as ``"logits"`` or ``"LogPost"`` are understood).
    training_prior : None, "flat", "empirical" or array_like, optional
        The prior the classifier was trained with (its class frequencies in training); flat by default, in which
        case nothing is subtracted. ``"empirical"`` uses the class frequencies of `labels`. Not allowed for LLRs.
    labels : array_like of int, optional
        The true class of each trial, for ``training_prior="empirical"``.

    Returns
    -------
    ndarray, shape (T, N)
        Natural-log relative log-likelihoods ``scores - log pi_train`` (the matrix itself for LLRs or a flat prior).

    Raises
    ------
    ValueError
        For an unknown score type, a training prior with LLRs, or a training prior of 0 for a class.
    """
    kind = score_type_of(score_type)
    matrix = as_llr_matrix(scores, "scores")
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


def blocks(n_rows: int, n_columns: int):
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


def softmax_columns(z: np.ndarray) -> np.ndarray:
    """Normalise each column of a class-major block of log-values in place to probabilities; return the log-sums."""
    top = z.max(axis=0)
    top[~np.isfinite(top)] = 0.0  # a trial with every allowed class at -inf: its sum is 0, its log -inf
    z -= top
    np.exp(z, out=z)
    total = z.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z /= total
        return top + np.log(total)


def row_logsumexp(llrs: np.ndarray, shift: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """``log sum_j exp(scale * l_tj + shift_j)`` for every row ``t`` (shift may hold ``-inf``: a class left out)."""
    out = np.empty(llrs.shape[0])
    for rows in blocks(*llrs.shape):
        z = _class_major(llrs, rows, scale)
        z += shift[:, None]
        out[rows] = softmax_columns(z)
    return out

