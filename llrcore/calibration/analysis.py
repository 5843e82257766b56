"""A calibration judged honestly: train a calibrator on development trials, evaluate it elsewhere.

What the Calibrate page (and a notebook) needs, built on :mod:`llrcore.calibration.fit` and
:mod:`llrcore.binary.metrics`: :func:`calibrate_and_evaluate` fits affine-by-rule, CMLG or PAV calibration on a
training set and scores it on a separate evaluation set, or by k-fold cross-validation when only one set exists; it
returns the calibrated trials, the calibrator and the metrics before and after (:class:`CalibrationResult`), with
the sentences of :func:`~llrcore.calibration.problems.calibration_problems` when the calibration is degenerate. The
prior-weighting sweep over rules (fig. 2 of the paper) is :mod:`llrcore.calibration.sweep`; one calibration per
condition :mod:`llrcore.calibration.conditions`.

Honest evaluation: no trial is ever calibrated by a transform that saw it. With a separate evaluation set the
calibrator is trained on the training set alone; with one set, every trial's LLR comes from the calibrator trained
on the other folds (:func:`~llrcore.calibration.folds.cross_calibrate`).

Reference
---------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from .._deprecation import old_spellings
from .._moved import left_for
from ..binary.metrics import BinaryMetrics, evaluate
from ..binary.tables import metrics_table
from ..data.trials import Trials
from ..prior import sigmoid
from .calibrators import Affine, PAVCalibrator
from .cmlg import fit_cmlg
from .fit import fit_affine
from .folds import Folds, collapsed_folds, collapsed_folds_words
from .pav import fit_pav
from .problems import calibration_problems
from .rules import BetaRule

__all__ = ["METHODS", "CalibrationResult", "calibrate_and_evaluate", "calibration_label"]

#: The prior-weighting sweep (:mod:`.sweep`) and the problems of a calibration (:mod:`.problems`) lived here until
#: issue 42: their names (and those this module imported for them) still answer here for one release, with a
#: DeprecationWarning.
__getattr__ = left_for("calibration.analysis")

#: Calibration methods: affine trained with a proper scoring rule, closed-form CMLG, interpolated PAV.
METHODS = ("affine", "cmlg", "pav")


# ----- one calibration ----------------------------------------------------------------------------------------------


def calibration_label(method: str, *, rule: BetaRule | None = None, plo: float | None = None,
                      folds: int | None = None) -> str:
    """A short name for a calibration, as tables and legends show it.

    Parameters
    ----------
    method : {"affine", "cmlg", "pav"}
        The calibration method.
    rule : BetaRule, optional
        The affine calibration's scoring rule (default logarithmic).
    plo : float, optional
        The affine calibration's prior weighting, in prior log-odds (shown as P = sigmoid(plo)).
    folds : int, optional
        The number of cross-validation folds, when the calibration was cross-validated.

    Returns
    -------
    str
        E.g. ``"calibrated (Brier, P=0.01)"`` or ``"calibrated (PAV, 5-fold CV)"``.
    """
    method = check_method(method)
    if method == "affine":
        parts = [(rule or BetaRule.logarithmic()).name, f"P={float(sigmoid(plo or 0.0)):.3g}"]
    else:
        parts = ["CMLG" if method == "cmlg" else "PAV"]
    if folds is not None:
        parts.append(f"{folds}-fold CV")
    return f"calibrated ({', '.join(parts)})"


@dataclass(frozen=True)
class CalibrationResult:
    """A calibrator trained on one set and the evaluation-set trials before and after it.

    Attributes
    ----------
    method : {"affine", "cmlg", "pav"}
    rule : BetaRule or None
        The proper scoring rule of an affine calibration.
    plo : float or None
        The prior weighting ``tau`` (log-odds) of an affine calibration.
    folds : int or None
        Number of cross-validation folds, or None when a separate evaluation set was used.
    calibrator : Affine or PAVCalibrator
        Trained on *all* the training trials: the transform to apply to new scores. (Under cross-validation the
        calibrated LLRs below come from the fold calibrators, each trained without the trials it calibrates.)
    raw : Trials
        The evaluation trials as given (the training set itself under cross-validation).
    calibrated : Trials
        The same trials with calibrated LLRs (spoof trials, if any, through ``calibrator``), named
        ``"<raw name> · <label>"``.
    before, after : BinaryMetrics
        Metrics of ``raw`` (scores taken as LLRs) and of ``calibrated`` at the chosen operating point.
    train_name : str
        Name of the training set.
    problems : tuple of str
        Sentences saying why this calibration is degenerate (:func:`calibration_problems`); empty when it is not.
        The result is kept either way: a degenerate fit is the honest optimum of its objective.
    collapsed_folds : tuple of int
        Under cross-validation, the folds (numbered from 1) whose calibrator collapsed
        (:attr:`~llrcore.Affine.failure`): their trials' calibrated LLRs are all about equal, and say nothing.
    fold_failure : str
        Why the first of them collapsed; empty when none did.
    """

    method: str
    rule: BetaRule | None
    plo: float | None
    folds: int | None
    calibrator: Affine | PAVCalibrator
    raw: Trials
    calibrated: Trials
    before: BinaryMetrics
    after: BinaryMetrics
    train_name: str
    problems: tuple[str, ...] = ()
    collapsed_folds: tuple[int, ...] = ()
    fold_failure: str = ""

    @property
    def cross_validated(self) -> bool:
        return self.folds is not None

    @property
    def failure(self) -> str:
        """Why this is no calibration: the calibrator trained on all the trials collapsed, or that of a
        cross-validation fold did (then the calibrated LLRs of its trials are meaningless); empty when none did."""
        where = f"in {collapsed_folds_words(self.collapsed_folds, self.folds)}" \
            if self.collapsed_folds and self.folds is not None else ""  # (folds collapse when cross-validated)
        if isinstance(self.calibrator, Affine) and self.calibrator.collapsed:
            also = f", and {where}" if where else ""
            return f"the calibration trained on all the trials collapsed{also} — {self.calibrator.failure}"
        return f"the calibration collapsed {where} — {self.fold_failure}" if where else ""

    @property
    def collapsed(self) -> bool:
        """Whether a fit collapsed (:attr:`failure`): the result is then no calibration to use or to show."""
        return bool(self.failure)

    @property
    def degenerate(self) -> bool:
        """Whether :attr:`problems` found anything wrong with this calibration."""
        return bool(self.problems)

    @property
    def label(self) -> str:
        """E.g. ``"calibrated (Brier, P=0.01)"``."""
        return calibration_label(self.method, rule=self.rule, plo=self.plo, folds=self.folds)

    def calibrator_json(self) -> str:
        """:attr:`calibrator` as JSON text with the rule and the prior weighting it was trained with
        (``to_json()``; read back by :func:`~llrcore.load_calibrator`)."""
        if isinstance(self.calibrator, Affine):
            return self.calibrator.to_json(rule=self.rule, plo=self.plo)
        return self.calibrator.to_json()

    def to_frame(self, *, eer_percent: bool = False) -> pd.DataFrame:
        """Two rows, the scores ``as given`` and calibrated (:attr:`label`): :func:`~llrcore.metrics_table`'s columns."""
        return metrics_table([dataclasses.replace(self.before, name="as given"),
                              dataclasses.replace(self.after, name=self.label)],
                             eer_percent=eer_percent)


def check_method(method: str) -> str:
    method = str(method).lower()
    if method not in METHODS:
        raise ValueError(f"Unknown calibration method {method!r}: choose one of {', '.join(METHODS)}.")
    return method


def method_fitter(method: str, rule: BetaRule | None, plo: float, cmlg_alpha: float) -> tuple[Callable, dict]:
    """The fit function of `method` and its options, as :func:`cross_calibrate` takes them."""
    if method == "affine":
        return fit_affine, {"rule": rule or BetaRule.logarithmic(), "plo": float(plo)}
    if method == "cmlg":
        return fit_cmlg, {"alpha": float(cmlg_alpha)}
    return fit_pav, {}


@old_spellings(positional=("plo",))
def calibrate_and_evaluate(
    train: Trials,
    test: Trials | None = None,
    method: str = "affine",
    rule: BetaRule | None = None,
    *,
    plo: float = 0.0,
    cmlg_alpha: float = 0.5,
    folds: int = 5,
    seed: int = 0,
    p_target: float = 0.01,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
) -> CalibrationResult:
    """Train a calibration on `train` and evaluate it on `test`, or by k-fold cross-validation of `train`.

    Parameters
    ----------
    train : Trials
        Development trials with their labels: the calibrator is trained on their target and non-target scores.
    test : Trials, optional
        A separate evaluation set. When None, every trial of `train` is calibrated by a calibrator trained on the
        other ``folds - 1`` folds (:func:`~llrcore.calibration.folds.cross_calibrate`).
    method : {"affine", "cmlg", "pav"}
        ``"affine"``: ``llr = a s + b`` minimising the prior-weighted objective of `rule` at prior log-odds `plo`
        (eq. 3 of Brümmer & Doddington 2013); ``"cmlg"``: closed-form constrained ML Gaussian calibration with
        variance weight `cmlg_alpha`; ``"pav"``: interpolated PAV (monotone, non-parametric).
    rule : BetaRule, optional
        Proper scoring rule of the affine calibration (logarithmic by default: prior-weighted logistic regression).
    plo : float
        Prior weighting ``tau = logit(P)`` of the affine calibration.
    cmlg_alpha : float
        Weight of the target variance in the shared variance of CMLG calibration, between 0 and 1
        (:func:`~llrcore.fit_cmlg`'s `alpha`).
    folds, seed : int
        Cross-validation folds and the seed of their random assignment (used only when `test` is None).
    p_target, c_miss, c_fa : float
        Operating point of the before/after metrics (:func:`~llrcore.binary.metrics.evaluate`); `p_target` may be an
        :class:`~llrcore.prior.OperatingPoint` (then it brings its costs).

    Returns
    -------
    CalibrationResult
        The calibrator trained on all of `train`, the evaluation trials before and after calibration with their
        :class:`~llrcore.BinaryMetrics`, and the sentences of :func:`calibration_problems`.

    Raises
    ------
    ValueError
        With a sentence for the user when the method or its options are bad, or the calibration cannot be fitted
        (e.g. training scores that separate the classes completely, for affine calibration).
    """
    method = check_method(method)
    fit, options = method_fitter(method, rule, plo, cmlg_alpha)
    calibrator = fit(train.tar, train.non, **options)
    fold_calibrators = []
    if test is None:
        raw = train
        split = Folds.split(train.tar.size, train.non.size, folds, seed=seed)  # as cross_calibrate, keeping the fits
        fold_calibrators = [fit(tar, non, **options) for tar, non in split.training_sets(train.tar, train.non)]
        tar_llr, non_llr = split.apply(train.tar, train.non, fold_calibrators)
    else:
        raw = test
        tar_llr, non_llr = calibrator(test.tar), calibrator(test.non)
    collapsed = collapsed_folds(fold_calibrators)
    cv_folds = int(folds) if test is None else None
    label = calibration_label(method, rule=options.get("rule"), plo=options.get("plo"), folds=cv_folds)
    name = f"{raw.name} · {label}" if raw.name else label
    spoof = calibrator(raw.spoof) if raw.spoof.size else raw.spoof
    calibrated = dataclasses.replace(raw, tar=tar_llr, non=non_llr, name=name, spoof=spoof)  # metadata kept
    operating_point = dict(p_target=p_target, c_miss=c_miss, c_fa=c_fa)
    after = evaluate(calibrated.sorted, name=name, **operating_point)
    return CalibrationResult(
        method=method,
        rule=options.get("rule"),
        plo=options.get("plo"),
        folds=cv_folds,
        calibrator=calibrator,
        raw=raw,
        calibrated=calibrated,
        before=evaluate(raw.sorted, name=raw.name, **operating_point),
        after=after,
        train_name=train.name,
        problems=calibration_problems(calibrator, train, after.cllr, rule=options.get("rule")),
        collapsed_folds=collapsed,
        fold_failure=fold_calibrators[collapsed[0] - 1].failure if collapsed else "",
    )
