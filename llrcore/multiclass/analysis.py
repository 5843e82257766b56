"""Every sub-problem of a multiclass recogniser as a binary one (Brümmer & van Leeuwen, Odyssey 2006, sec. 4.2-4.3).

- :func:`pairwise_analysis` — every pair of classes with LLR ``l_i - l_j``: Cllr before and after calibration and
  minCllr by PAV (which the calibration cannot change: it is monotone on each pair).
- :func:`detection_llrs` — one-against-the-rest LLR of eq. 9 with a prior over the non-targets (flat by default),
  so every binary tool (Cllr, APE, DET, EER) applies per target; :func:`detection_analysis` tabulates them.
- :func:`analyse_multiclass` — all of it for one set of trials, calibrated on themselves (a measurement).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..binary.costs import cllr_bits
from ..binary.rates import SortedScores
from ..data.multiclass import (
    MulticlassScores,
    as_llr_matrix,
    blocks,
    class_index,
    class_prior,
    classes_of,
    llrs_and_labels,
    softmax_columns,
)
from ..data.records import one_row
from ..data.trials import Trials
from .calibration import MulticlassAffine, fit_multiclass_affine
from .cllr import entropy_bits, multiclass_cllr

__all__ = [
    "MulticlassAnalysis",
    "analyse_multiclass",
    "detection_analysis",
    "detection_llrs",
    "detection_trials",
    "llrs_with_prior",
    "pairwise_analysis",
]


def _calibrated(llrs, labels, calibrated) -> np.ndarray:
    """The calibrated LLR matrix: given, from a calibrator, or from a flat-prior fit on these trials."""
    if calibrated is None:
        calibrated = fit_multiclass_affine(llrs, labels)
    if callable(calibrated):
        calibrated = calibrated(llrs)
    matrix = as_llr_matrix(calibrated, "calibrated LLRs")
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


def pairwise_analysis(llrs: ArrayLike | MulticlassScores, labels: ArrayLike | None = None,
                      calibrated: ArrayLike | Callable[[np.ndarray], np.ndarray] | None = None, *,
                      classes: Sequence[str] | None = None) -> pd.DataFrame:
    """Every pair of classes as a binary problem: Cllr before and after calibration, and minCllr.

    For each pair ``a < b`` the LLR ``l_a - l_b`` of the trials of classes a (targets) and b (non-targets) is
    scored with the binary Cllr (:func:`~llrcore.binary.metrics.cllr`), before and after the calibration, and with
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
    llrs, labels = llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    classes = classes_of(names, classes, n)
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


def llrs_with_prior(llrs, prior=None) -> tuple[np.ndarray, tuple, np.ndarray]:
    """The LLR matrix, the class names (empty for a bare matrix) and the normalised prior of a question.

    Every multiclass question (a detection, a pair, identification) starts here; a :class:`MulticlassScores`
    brings its labels, so ``prior="empirical"`` works with it alone (:func:`~llrcore.multiclass.class_prior`).
    """
    if isinstance(llrs, MulticlassScores):
        return llrs.llrs, llrs.classes, class_prior(prior, llrs.n_classes, llrs.labels)
    matrix = as_llr_matrix(llrs)
    return matrix, (), class_prior(prior, matrix.shape[1])


def detection_llrs(llrs: ArrayLike | MulticlassScores, target: int | str, prior: str | ArrayLike | None = None
                   ) -> np.ndarray:
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

    Returns
    -------
    ndarray (T,)
        The detection LLR of each trial (natural log); ``-inf`` where the target was ruled out, ``+inf`` where
        every other class was.

    Raises
    ------
    ValueError
        An unknown `target`, a prior that gives no weight to any non-target class, or LLRs that are no (T, N)
        matrix of numbers.
    """
    matrix, classes, weights = llrs_with_prior(llrs, prior)
    t = class_index(target, matrix.shape[1], classes)
    weights = weights.copy()
    weights[t] = 0.0
    if weights.sum() <= 0:
        raise ValueError("The prior gives no weight to any non-target class, so there is nothing to detect against.")
    with np.errstate(divide="ignore"):
        log_weights = np.log(weights / weights.sum())
    return _detection(matrix, t, log_weights)


def _detection(matrix: np.ndarray, t: int, log_weights: np.ndarray) -> np.ndarray:
    """``-log sum_i exp(log_weights_i + (l_i - l_t))`` for every row, block by block.

    Computed from the differences ``l_i - l_t`` alone, their terms summed in sorted order, so that two trials whose
    LLRs differ by a constant, or whose other classes are the same values in another order, get the same detection
    LLR to the last bit (``l_t - logsumexp(l_i + log w_i)`` rounds each row its own way, and a tie split by one ulp
    changes the minimum Cavg). A target ruled out (``l_t = -inf``) gives ``-inf``; every other class ruled out,
    ``+inf``.
    """
    out = np.empty(matrix.shape[0])
    for rows in blocks(*matrix.shape):
        z = np.ascontiguousarray(matrix[rows].T)  # class-major: the sums over classes run along contiguous memory
        target = z[t].copy()
        ruled_out = np.isneginf(target)
        with np.errstate(invalid="ignore"):  # -inf - -inf: a ruled-out target, answered below
            z -= target
        z += log_weights[:, None]
        z[:, ruled_out] = 0.0
        z.sort(axis=0)  # summed smallest first, in one order whatever the order of the classes
        out[rows] = np.where(ruled_out, -np.inf, -softmax_columns(z))
    return out


def detection_trials(llrs: ArrayLike | MulticlassScores, labels: ArrayLike | None = None, target: int | str = 0,
                     prior: str | ArrayLike | None = None, *, name: str | None = None) -> Trials:
    """The detection LLRs of `target` as binary :class:`~llrcore.data.Trials`: its trials against all others.

    The LLRs are those of :func:`detection_llrs` (eq. 9 of Brümmer & van Leeuwen 2006).

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    labels : array_like of int (T,), optional
        True classes (the target's trials become ``tar``, the others ``non``); taken from `llrs` when it is a
        :class:`MulticlassScores`.
    target : int or str
        The target class (index, or name with a :class:`MulticlassScores`); default the first.
    prior : None, "flat", "empirical" or array_like
        Prior over the classes (:func:`class_prior`); only the non-targets' relative weights enter.
    name : str, optional
        The Trials' name; default the target class's name.

    Returns
    -------
    Trials
        ``tar``: the detection LLRs of the target's trials; ``non``: those of every other class's trials.

    Raises
    ------
    ValueError
        Missing labels, an unknown `target`, or a prior as :func:`detection_llrs` refuses.
    """
    classes = classes_of(llrs, None, np.shape(llrs.llrs if isinstance(llrs, MulticlassScores) else llrs)[-1])
    matrix, labels = llrs_and_labels(llrs, labels)
    t = class_index(target, matrix.shape[1], classes)
    det = detection_llrs(matrix, t, class_prior(prior, matrix.shape[1], labels))
    return Trials.from_labels(det, labels == t, name=classes[t] if name is None else name)


def detection_analysis(llrs: ArrayLike | MulticlassScores, labels: ArrayLike | None = None,
                       calibrated: ArrayLike | Callable[[np.ndarray], np.ndarray] | None = None, *,
                       prior: str | ArrayLike | None = None, classes: Sequence[str] | None = None) -> pd.DataFrame:
    """Per target class, the binary evaluation of its detection LLRs before and after calibration.

    Detection LLRs (eq. 9, prior flat over the non-targets by default) are computed from the LLRs and from the
    calibrated LLRs. Unlike the pair-wise LLRs, calibrated detection LLRs are not a function of the raw ones
    (sec. 4.3), so minCllr and the EER may change a little too.

    Parameters
    ----------
    llrs : array_like (T, N) or MulticlassScores
        Natural-log LLRs, one column per class.
    labels : array_like of int (T,), optional
        True classes (each class's trials are the targets of its row); taken from `llrs` when it is a
        :class:`MulticlassScores`.
    calibrated : array_like (T, N), callable or None
        The calibrated LLRs, or a calibrator applied to `llrs`; default an affine calibration
        (:func:`fit_multiclass_affine`, flat prior) fitted on these trials.
    prior : None, "flat", "empirical" or array_like
        Prior over the classes; only the non-targets' relative weights enter each detection LLR.
    classes : sequence of str, optional
        Class names; default those of a :class:`MulticlassScores`, else the indices.

    Returns
    -------
    DataFrame
        One row per class: ``target``, ``n_target``, ``n_non_target``, ``cllr``, ``min_cllr``, ``eer``,
        ``cllr_calibrated``, ``min_cllr_calibrated``, ``eer_calibrated`` (Cllr in bits, EER as a fraction).

    Raises
    ------
    ValueError
        Missing labels, or calibrated LLRs of another shape than the LLRs.
    """
    names = llrs
    llrs, labels = llrs_and_labels(llrs, labels)
    n = llrs.shape[1]
    classes = classes_of(names, classes, n)
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

    def to_frame(self) -> pd.DataFrame:
        """One row: ``classes``, ``Cllr``, ``Cllr calibrated`` and ``reference`` (bits); :attr:`pairwise` and
        :attr:`detection` are the tables per pair and per class."""
        return one_row(self, columns={"cllr": "Cllr", "cllr_calibrated": "Cllr calibrated"}).assign(
            classes=len(self.scores.classes))


def analyse_multiclass(scores: MulticlassScores, prior: str | ArrayLike | None = None) -> MulticlassAnalysis:
    """Calibrate on the trials themselves (a measurement, as in the paper) and analyse every sub-problem.

    The multiclass Cllr and the calibration use `prior` (flat by default); the detection LLRs use a prior flat
    over the non-targets. Reference: Brümmer & van Leeuwen, "On calibration of language recognition scores",
    Odyssey 2006, sec. 4.

    Parameters
    ----------
    scores : MulticlassScores
        Natural-log LLRs of the trials with their true classes.
    prior : None, "flat", "empirical" or array_like
        Prior over the classes of the Cllrs and the calibration (:func:`class_prior`).

    Returns
    -------
    MulticlassAnalysis
        The multiclass Cllr before and after the affine calibration and its reference (bits), the calibration and
        the calibrated LLRs, and the tables per pair of classes and per target class.

    Raises
    ------
    TypeError
        When `scores` is no :class:`MulticlassScores`.
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
        reference=entropy_bits(prior),
        calibration=calibration,
        calibrated=calibrated,
        pairwise=pairwise_analysis(scores, calibrated=calibrated),
        detection=detection_analysis(scores, calibrated=calibrated),
    )

