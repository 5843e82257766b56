"""Bayes (MAP) decisions of a multiclass recogniser at any prior: identification (eq. 8), detection of one class
(eq. 10) and pair-wise classification (eq. 7), with the confusion matrix and error rates of identification.

Reference: N. Brümmer and D. van Leeuwen, "On calibration of language recognition scores", Odyssey 2006.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.multiclass import MulticlassScores, class_index, class_prior, classes_of, llrs_and_labels, require_trials
from .analysis import detection_llrs, llrs_with_prior

__all__ = [
    "IdentificationErrors",
    "confusion_matrix",
    "detection_decisions",
    "identification_errors",
    "map_decisions",
    "pairwise_decisions",
]


def map_decisions(llrs: ArrayLike | MulticlassScores, prior: str | ArrayLike | None = None) -> np.ndarray:
    """Identification: the class of maximum posterior, ``argmax_i (l_i + log pi_i)`` (eq. 8).

    Ties go to the lower index.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    prior : None, "flat", "empirical" or array_like
        Prior over the classes (:func:`class_prior`); flat by default.

    Returns
    -------
    ndarray of int (T,)
        The decided class index of each trial.
    """
    matrix, _, prior = llrs_with_prior(llrs, prior)
    with np.errstate(divide="ignore"):
        return np.argmax(matrix + np.log(prior), axis=1)


def detection_decisions(llrs: ArrayLike | MulticlassScores, target: int | str, prior: str | ArrayLike | None = None
                        ) -> np.ndarray:
    """Detection of `target` (eq. 10): True where ``l_det >= log((1 - pi_t) / pi_t)``, i.e. ``P(target) >= 1/2``.

    The detection LLR ``l_det`` is :func:`detection_llrs`'s (eq. 9).

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    target : int or str
        The target class (index, or name with a :class:`MulticlassScores`).
    prior : None, "flat", "empirical" or array_like
        The full prior: the target's entry sets the threshold, the others the detection LLR; flat by default.

    Returns
    -------
    ndarray of bool (T,)
        True where the trial is accepted as the target class (all False when the target's prior is 0).

    Raises
    ------
    ValueError
        An unknown `target`, or a prior that gives no weight to any non-target class.
    """
    matrix, classes, prior = llrs_with_prior(llrs, prior)
    t = class_index(target, matrix.shape[1], classes)
    if prior[t] == 0:
        return np.zeros(matrix.shape[0], dtype=bool)
    with np.errstate(divide="ignore"):
        threshold = np.log1p(-prior[t]) - np.log(prior[t])
    return detection_llrs(matrix, t, prior) >= threshold


def pairwise_decisions(llrs: ArrayLike | MulticlassScores, class_a: int | str, class_b: int | str,
                       prior: str | ArrayLike | None = None) -> np.ndarray:
    """Pair-wise classification (eq. 7): True (class a) where ``l_a - l_b >= log(pi_b / pi_a)``.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    class_a, class_b : int or str
        The two classes (indices, or names with a :class:`MulticlassScores`).
    prior : None, "flat", "empirical" or array_like
        Prior over the classes (:func:`class_prior`); flat by default.

    Returns
    -------
    ndarray of bool (T,)
        True where class a is decided, False where class b is.

    Raises
    ------
    ValueError
        An unknown class, or the same class twice.
    """
    matrix, classes, prior = llrs_with_prior(llrs, prior)
    n = matrix.shape[1]
    a, b = class_index(class_a, n, classes), class_index(class_b, n, classes)
    if a == b:
        raise ValueError("A pair-wise question needs two different classes.")
    with np.errstate(divide="ignore"):
        return matrix[:, a] - matrix[:, b] >= np.log(prior[b]) - np.log(prior[a])


def confusion_matrix(labels: ArrayLike, decisions: ArrayLike, n_classes: int | None = None) -> np.ndarray:
    """Counts ``C[i, j]`` of trials of true class i decided as class j.

    Parameters
    ----------
    labels : array_like of int (T,)
        True class index of each trial.
    decisions : array_like of int (T,)
        Decided class index of each trial (e.g. :func:`map_decisions`).
    n_classes : int, optional
        The number of classes N; default one more than the largest index seen.

    Returns
    -------
    ndarray of int (N, N)
        ``C[i, j]``: the number of trials of class i decided as class j.

    Raises
    ------
    ValueError
        When `labels` and `decisions` differ in length.
    """
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


def identification_errors(llrs: ArrayLike | MulticlassScores, labels: ArrayLike | None = None,
                          prior: str | ArrayLike | None = None, *, classes: Sequence[str] | None = None
                          ) -> IdentificationErrors:
    """MAP identification decisions at `prior` (flat by default) scored against the labels.

    The decisions are :func:`map_decisions`'s (eq. 8); the Bayes error rate is ``sum_i pi_i class_error_i``.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    labels : array_like of int (T,), optional
        True classes the decisions are scored against; taken from `llrs` when it is a :class:`MulticlassScores`.
    prior : None, "flat", "empirical" or array_like
        Prior over the classes (:func:`class_prior`); flat by default.
    classes : sequence of str, optional
        Class names; default those of a :class:`MulticlassScores`, else the indices.

    Returns
    -------
    IdentificationErrors
        The confusion matrix, the error fraction per class, the Bayes error rate and the error rate of deciding by
        the prior alone.

    Raises
    ------
    ValueError
        Missing labels, or a class with non-zero prior and no trial.
    """
    names = llrs
    matrix, labels = llrs_and_labels(llrs, labels)
    n = matrix.shape[1]
    prior = class_prior(prior, n, labels)
    confusion = confusion_matrix(labels, map_decisions(matrix, prior), n)
    counts = confusion.sum(axis=1)
    require_trials(prior, counts, classes_of(names, classes, n))
    with np.errstate(invalid="ignore"):
        class_error = np.where(counts > 0, 1.0 - np.diag(confusion) / np.maximum(counts, 1), np.nan)
    return IdentificationErrors(
        classes=classes_of(names, classes, n),
        prior=prior,
        confusion=confusion,
        class_error=class_error,
        error_rate=float(prior[prior > 0] @ class_error[prior > 0]),
        default_error=float(1.0 - prior.max()),
    )

