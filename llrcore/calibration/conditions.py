"""Calibration per condition, judged: one calibration per condition against one pooled calibration, per condition
on evaluation trials (or by cross-validation).

References
----------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013: its calibrations were trained separately for male and female trials (sec. 5).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._deprecation import old_spellings
from .._format import listed
from ..binary.metrics import evaluate
from ..data.trials import Trials
from ..prior import OperatingPoint, as_operating_point
from ..uncertainty.conditions import Condition, ConditionMetrics, evaluate_by_condition
from .analysis import calibration_label, check_method, method_fitter
from .conditional import ConditionalCalibration
from .folds import Folds
from .rules import BetaRule

__all__ = ["NOT_IN_TRAINING", "OWN", "ConditionCalibrationResult", "calibrate_by_condition"]

OWN, NOT_IN_TRAINING = "own", "pooled: not in training"


@dataclass(frozen=True)
class ConditionCalibrationResult:
    """One calibration per condition against one pooled calibration, judged per condition on evaluation trials.

    Attributes
    ----------
    by : tuple of str
        The metadata columns of the conditions.
    method, rule, plo, folds
        As in :class:`CalibrationResult`; `folds` is None when a separate evaluation set was used.
    calibration : ConditionalCalibration
        Trained on all the training trials: one calibration per training condition and the pooled one.
    before : ConditionMetrics
        The evaluation trials as given (scores taken as LLRs), per condition and pooled.
    pooled : ConditionMetrics
        The evaluation trials after the pooled calibration, per condition and pooled.
    per_condition : ConditionMetrics
        After one calibration per condition: each condition's trials (those with no value too, as in
        :meth:`~llrcore.Trials.split`) calibrated by that condition's calibration; in the pooled row each trial by its
        own condition's (:meth:`ConditionalCalibration.apply`: the pooled one for a trial with no value).
    own : tuple of str
        Per evaluation condition (in the order of ``before.conditions``) how it was calibrated in
        ``per_condition``: :data:`OWN`, or the pooled calibration and why (not in training, or the reason in
        ``calibration.untrained``).
    train_name : str
    """

    by: tuple[str, ...]
    method: str
    rule: BetaRule | None
    plo: float | None
    folds: int | None
    calibration: ConditionalCalibration
    before: ConditionMetrics
    pooled: ConditionMetrics
    per_condition: ConditionMetrics
    own: tuple[str, ...]
    train_name: str = ""

    @property
    def label(self) -> str:
        """The calibration method, e.g. ``"calibrated (logarithmic, P=0.01)"``."""
        return calibration_label(self.method, rule=self.rule, plo=self.plo, folds=self.folds)

    def calibrator_json(self) -> str:
        """:attr:`calibration` (trained on all the training trials) as JSON text with the rule and the prior
        weighting it was trained with (``to_json()``; read back by :func:`~llrcore.load_calibrator`)."""
        return self.calibration.to_json(rule=self.rule, plo=self.plo)

    def to_frame(self, *, eer_percent: bool = False) -> pd.DataFrame:
        """One row per evaluation condition, then ``pooled``: the condition columns, ``targets``, ``non-targets``,
        ``calibration`` (how the condition was calibrated per condition), each of Cllr and actDCF ``before``,
        after the ``pooled`` calibration and after the calibration ``per condition``, then ``minCllr``, ``EER``
        (``EER %`` with `eer_percent`; both of the trials as given, which an increasing affine calibration of one
        condition keeps) and ``too few errors`` (the rule of 30)."""
        records = []
        for before, pooled, own, condition in zip(self.before.rows, self.pooled.rows, (*self.own, "by condition"),
                                                  self.per_condition.rows):
            record = {column: before.values.get(column, "pooled") for column in self.by}
            metrics = before.metrics
            record.update({"targets": metrics.n_tar if metrics else 0, "non-targets": metrics.n_non if metrics else 0,
                           "calibration": own})
            for label, attribute in (("Cllr", "cllr"), ("actDCF", "act_dcf")):
                for stage, row in (("before", before), ("pooled", pooled), ("per condition", condition)):
                    record[f"{label} {stage}"] = getattr(row.metrics, attribute) if row.metrics else np.nan
            scale, eer = (100.0, "EER %") if eer_percent else (1.0, "EER")
            record.update({"minCllr": metrics.min_cllr if metrics else np.nan,
                           eer: scale * metrics.eer if metrics else np.nan, "too few errors": before.too_few_errors})
            records.append(record)
        return pd.DataFrame.from_records(records)

    def notes(self) -> list[str]:
        """Sentences for the conditions calibrated by the pooled calibration and for those that cannot say much
        (:meth:`ConditionMetrics.notes`)."""
        fallback: dict[str, list] = {}
        for row, own in zip(self.before.conditions, self.own):
            if own != OWN:
                fallback.setdefault(own.removeprefix("pooled: "), []).append(row.label)
        notes = [f"The pooled calibration serves {listed(labels)}: {reason}." for reason, labels in fallback.items()]
        return notes + self.before.notes()


@old_spellings(positional=("plo",))
def calibrate_by_condition(
    train: Trials,
    test: Trials | None,
    by: str | Sequence[str],
    method: str = "affine",
    rule: BetaRule | None = None,
    *,
    plo: float = 0.0,
    cmlg_alpha: float = 0.5,
    folds: int = 5,
    seed: int = 0,
    p_target: float | OperatingPoint = 0.01,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
) -> ConditionCalibrationResult:
    """One calibration per condition against one pooled calibration, both judged per condition on `test`.

    The per-condition calibration trains ``f_c`` on the training trials of each condition ``c`` alone (for the
    affine method ``f_c(s) = a_c s + b_c`` minimising the prior-weighted objective
    ``E = P mean_tar C(sigmoid(f_c(s) + tau)|H1) + (1-P) mean_non C(sigmoid(f_c(s) + tau)|H2)`` of `rule`,
    ``P = sigmoid(tau)``, ``tau = plo``: eq. 3 of Brümmer & Doddington 2013) and calibrates the evaluation trials
    of condition ``c`` with it; the pooled one trains one ``f`` on all the training trials and calibrates every
    evaluation trial with it. The Cllr and actDCF of each condition before calibration, after the pooled and after
    the per-condition calibration show whether calibrating by condition pays: where conditions shift the scores
    differently, one pooled calibration is miscalibrated within each. An evaluation condition not calibrated in
    training gets the pooled calibration in both.

    Parameters
    ----------
    train : Trials
        Development trials with metadata column(s) `by`.
    test : Trials or None
        Evaluation trials with the same column(s); None for k-fold cross-validation of `train` (each fold
        calibrated by the calibrations trained on the other folds, on the folds of :func:`calibrate_and_evaluate`
        with the same `folds` and `seed`).
    by : str or list of str
        The metadata column(s); several are crossed.
    method, rule, plo, cmlg_alpha, folds, seed, p_target, c_miss, c_fa
        As in :func:`calibrate_and_evaluate`.

    Returns
    -------
    ConditionCalibrationResult

    Raises
    ------
    KeyError
        When a set lacks a column of `by`.
    ValueError
        When the pooled calibration cannot be trained.

    References
    ----------
    N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
    Interspeech 2013: its calibrations were trained separately for male and female trials (sec. 5).
    """
    method = check_method(method)
    fit, options = method_fitter(method, rule, plo, cmlg_alpha)
    by = (by,) if isinstance(by, str) else tuple(by)
    operating_point = as_operating_point(p_target, c_miss, c_fa)
    calibration = ConditionalCalibration.fit(train, by, fit, **options)
    raw = train if test is None else test
    raw.partitions(by)  # a missing column is said before any fold is trained
    if test is None:
        calibrations, fold = _fold_calibrations(train, by, fit, options, calibration, folds, seed)
    else:
        calibrations, fold = [calibration], np.zeros(len(raw.metadata), int)

    def calibrated(llrs_of) -> Trials:
        """`raw` with each row's scores calibrated by ``llrs_of(calibration, scores, metadata)`` of its fold."""
        scores = np.concatenate([raw.tar, raw.non, raw.spoof])
        llr = np.empty_like(scores)
        for k, fold_calibration in enumerate(calibrations):
            rows = fold == k
            llr[rows] = llrs_of(fold_calibration, scores[rows], raw.metadata[rows])
        tar, non, spoof = np.split(llr, np.cumsum([raw.tar.size, raw.non.size]))
        return dataclasses.replace(raw, tar=tar, non=non, spoof=spoof)

    by_condition = calibrated(lambda c, scores, metadata: c.llrs(scores, metadata))
    conditions = []
    for values, mask in raw.partitions(by):
        own = calibrated(lambda c, scores, metadata, values=values: c.calibrator(values)(scores))
        label = ", ".join(f"{column}={value}" for column, value in values.items())
        try:
            subset = own.subset(mask, name=f"{raw.name} ({label})" if raw.name else label)
        except ValueError:  # one class only: said, not dropped, as in lc.evaluate
            subset = None
        conditions.append(Condition(values, subset, None if subset is None else
                                    evaluate(subset.sorted, p_target=operating_point, name=subset.name)))
    per_condition = ConditionMetrics(by=by, conditions=conditions, pooled=Condition(
        {}, by_condition, evaluate(by_condition.sorted, p_target=operating_point, name=raw.name)))
    pooled = calibrated(lambda c, scores, metadata: c.pooled(scores))
    return ConditionCalibrationResult(
        by=by, method=method, rule=options.get("rule"), plo=options.get("plo"),
        folds=None if test is not None else int(folds),
        calibration=calibration,
        before=evaluate_by_condition(raw, by, p_target=operating_point),
        pooled=evaluate_by_condition(pooled, by, p_target=operating_point),
        per_condition=per_condition,
        own=tuple(_how_calibrated(calibration, values) for values, _ in raw.partitions(by)),
        train_name=train.name,
    )


def _how_calibrated(calibration: ConditionalCalibration, values: dict) -> str:
    key = calibration.key(values)
    if key in calibration.calibrators:
        return OWN
    return f"pooled: {calibration.untrained[key]}" if key in calibration.untrained else NOT_IN_TRAINING


def _fold_calibrations(train: Trials, by, fit, options, calibration, folds: int, seed: int):
    """The per-condition calibrations of each fold (trained on the other folds) and each row's fold; the spoof rows
    (never in a fold) get the calibration of all the training trials, the last one."""
    split = Folds.split(train.tar.size, train.non.size, folds, seed=seed)
    fold = np.full(len(train.metadata), len(split.test))
    spoof = np.ones(train.spoof.size, bool)
    calibrations = []
    for k, (tar_test, non_test) in enumerate(split.test):
        fold[np.concatenate([tar_test, non_test, ~spoof])] = k
        training = train.subset(np.concatenate([~tar_test, ~non_test, spoof]))
        calibrations.append(ConditionalCalibration.fit(training, by, fit, **options))
    return [*calibrations, calibration], fold
