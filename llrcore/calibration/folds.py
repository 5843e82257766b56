"""k-fold cross-validated calibration: every trial calibrated by a calibrator that never saw it.

:class:`Folds` splits target and non-target trials into folds (whole groups, e.g. speakers, in one fold when group
ids are given); :func:`cross_calibrate` trains a calibrator on all folds but one and calibrates that one, the one
implementation of cross-calibration every experiment and page calls; :func:`collapsed_folds` names the folds whose fit
collapsed.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._format import listed
from ..data.checks import as_scores
from .fit import fit_affine

__all__ = ["Folds", "collapsed_folds", "collapsed_folds_words", "cross_calibrate"]


def _folds(n_tar: int, n_non: int, folds: int, tar_groups, non_groups, rng) -> tuple[np.ndarray, np.ndarray]:
    """Fold number of each target and non-target trial; all trials sharing a group id share a fold."""
    if (tar_groups is None) != (non_groups is None):
        raise ValueError("Give group ids for both the target and the non-target trials, or for neither.")
    if tar_groups is None:
        return rng.permutation(n_tar) % folds, rng.permutation(n_non) % folds
    tar_groups, non_groups = np.asarray(tar_groups), np.asarray(non_groups)
    if tar_groups.shape != (n_tar,) or non_groups.shape != (n_non,):
        raise ValueError(f"There are {n_tar} + {n_non} trials but {tar_groups.size} + {non_groups.size} group ids.")
    unique, index = np.unique(np.concatenate([tar_groups, non_groups]), return_inverse=True)
    fold = (rng.permutation(unique.size) % folds)[index]
    return fold[:n_tar], fold[n_tar:]


def cross_calibrate(tar: ArrayLike, non: ArrayLike, fit: Callable[..., Any] = fit_affine,
                    *, folds: int = 5, tar_groups: ArrayLike | None = None, non_groups: ArrayLike | None = None,
                    seed: int = 0, refuse_collapsed: bool = False, **fit_options: Any) -> tuple[np.ndarray, np.ndarray]:
    """Calibrated LLRs of every trial from a calibrator trained on the other folds (k-fold cross-validation).

    The honest way to judge calibration when only one set exists: no trial is calibrated by a transform that saw
    it. With group ids (e.g. the model/speaker of each trial) all trials of a group fall in one fold, so the
    calibrator never trains on the speaker it is tested on.

    Parameters
    ----------
    tar, non : array_like
        Target and non-target scores.
    fit : callable
        ``fit(tar, non, **fit_options)`` returning a calibrator (``fit_affine``, ``fit_pav``, ``fit_cmlg``, ...).
    folds : int
        Number of folds, at least 2.
    tar_groups, non_groups : array_like, optional
        Group id of each target / non-target trial.
    seed : int
        Seed of the fold assignment, so results are reproducible.
    refuse_collapsed : bool
        Raise instead of returning the LLRs of a fold whose fit collapsed (:func:`collapsed_folds`): its trials'
        LLRs would all be about equal, no calibration.
    **fit_options
        Passed to `fit` in every fold.

    Returns
    -------
    tar_llr, non_llr : ndarray
        The calibrated natural-log LLRs of the target and non-target trials, in the order given.

    Raises
    ------
    ValueError
        With fewer than 2 folds, a fold that would hold every trial of a class, group ids of the wrong length, or
        with `refuse_collapsed`, when the fit of any fold collapsed (:attr:`~llrcore.Affine.failure`, e.g. a score of
        -1e308 among the targets), naming the folds and the first one's failure.
    """
    tar, non = as_scores(tar, "target scores"), as_scores(non, "non-target scores")
    split = Folds.split(tar.size, non.size, folds, tar_groups=tar_groups, non_groups=non_groups, seed=seed)
    calibrators = [fit(tar_train, non_train, **fit_options) for tar_train, non_train in split.training_sets(tar, non)]
    failed = collapsed_folds(calibrators)
    if refuse_collapsed and failed:
        raise ValueError(f"The calibration collapsed in {collapsed_folds_words(failed, folds)} — "
                         f"{calibrators[failed[0] - 1].failure}; no calibrated scores are made.")
    return split.apply(tar, non, calibrators)


def collapsed_folds(calibrators) -> tuple[int, ...]:
    """The folds, numbered from 1, whose calibrator collapsed (``.collapsed``, :mod:`llrcore.calibration.checks`)."""
    return tuple(i for i, c in enumerate(calibrators, start=1) if getattr(c, "collapsed", False))


def collapsed_folds_words(folds: Sequence[int], n_folds: int) -> str:
    """``"folds 1, 2 and 4 of 5"``, ``"fold 3 of 5"``."""
    return f"fold{'s' * (len(folds) > 1)} {listed([str(f) for f in folds])} of {n_folds}"


@dataclass(frozen=True)
class Folds:
    """A k-fold split of target and non-target trials for cross-validated calibration (:func:`cross_calibrate`).

    ``test`` holds, per non-empty fold, the boolean masks of its target and non-target trials. One split serves
    many calibrations (a sweep of rules and prior weightings trains one calibrator per fold and setting), so every
    one of them is judged on the same folds.
    """

    test: tuple

    @classmethod
    def split(cls, n_tar: int, n_non: int, folds: int, *, tar_groups=None, non_groups=None, seed: int = 0) -> Folds:
        """Assign the trials to `folds` folds at random (`seed`), whole groups at a time when group ids are given.

        Raises
        ------
        ValueError
            With fewer than 2 folds, or when a fold would hold every trial of one class.
        """
        if folds < 2:
            raise ValueError("Cross-validation needs at least 2 folds.")
        tar_fold, non_fold = _folds(n_tar, n_non, folds, tar_groups, non_groups, np.random.default_rng(seed))
        test = []
        for fold in range(folds):
            tar_test, non_test = tar_fold == fold, non_fold == fold
            if not (tar_test.any() or non_test.any()):
                continue
            if tar_test.all() or non_test.all():
                raise ValueError(f"Fold {fold + 1} holds every trial of one class; use fewer folds or more groups.")
            test.append((tar_test, non_test))
        return cls(tuple(test))

    def training_sets(self, tar: np.ndarray, non: np.ndarray):
        """The target and non-target scores each fold's calibrator trains on: all but that fold's."""
        return [(tar[~tar_test], non[~non_test]) for tar_test, non_test in self.test]

    def apply(self, tar: np.ndarray, non: np.ndarray, calibrators) -> tuple[np.ndarray, np.ndarray]:
        """The LLRs of every trial from the calibrator of its fold (one per fold, trained without it)."""
        tar_llr, non_llr = np.empty_like(tar), np.empty_like(non)
        for (tar_test, non_test), calibrator in zip(self.test, calibrators):
            tar_llr[tar_test], non_llr[non_test] = calibrator(tar[tar_test]), calibrator(non[non_test])
        return tar_llr, non_llr
