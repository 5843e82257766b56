"""Calibration experiments: train a calibrator on development trials and judge it honestly.

What the Calibrate and Compare-rules pages (and a notebook) need, built on :mod:`llrcore.calibration.fit` and
:mod:`llrcore.binary.metrics`:

- :func:`calibrate_and_evaluate` — fit affine-by-rule, CMLG or PAV calibration on a training set and score it on a
  separate evaluation set, or by k-fold cross-validation when only one set exists; returns the calibrated trials,
  the calibrator and the metrics before and after (:class:`CalibrationResult`).
- :func:`sweep_prior_weighting` — the experiment of fig. 2 of Brümmer & Doddington (2013): for several proper
  scoring rules and a grid of prior weightings ``tau``, the evaluation-set Cprimary (or any mean actual DCF) of the
  affine calibration trained with that rule and weighting (:class:`RuleSweep`).
- :func:`weighting_mode` — where the effective threshold weighting of a rule peaks (fig. 1 of the same paper).
- :func:`calibrate_by_condition` — one calibration per condition (gender, language, attack, ...) against one pooled
  calibration, both judged per condition on the evaluation trials (:class:`ConditionCalibrationResult`), as the same
  paper trained its calibrations separately for male and female trials.

Honest evaluation: no trial is ever calibrated by a transform that saw it. With a separate evaluation set the
calibrator is trained on the training set alone; with one set, every trial's LLR comes from the calibrator trained
on the other folds (:func:`~llrcore.calibration.folds.cross_calibrate`).

Reference
---------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013 (eqs. 3, 7, 10, 16; figs. 1-3).
"""
from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import parallel
from .._deprecation import old_spellings
from ..binary.metrics import (
    SRE12_P_TARGETS,
    BinaryMetrics,
    act_dcf,
    effective_plo,
    evaluate,
    min_dcf,
    normalised_bayes_error,
)
from ..binary.rates import SortedScores, cllr_bits, sigmoid
from ..data.trials import Trials
from ..words import listed
from .fit import Affine, PAVCalibrator, WarmFits, fit_affine, fit_cmlg, fit_pav
from .folds import Folds
from .rules import BetaRule
from .weighting import weighting_mode  # noqa: F401  (in __all__: fig. 1 beside the sweep of fig. 2)

__all__ = [
    "DEFAULT_PLO_GRID",
    "METHODS",
    "NAMED_RULES",
    "STEP_SCALE_RATIO",
    "CalibrationResult",
    "RuleSweep",
    "calibrate_and_evaluate",
    "calibration_label",
    "calibration_problems",
    "collapsed_folds",
    "collapsed_folds_words",
    "sweep_prior_weighting",
    "weighting_mode",
]

#: The four rules of Brümmer & Doddington (2013): logarithmic (1, 1), Brier (2, 2), boosting (1/2, 1/2) and the
#: asymmetric (2, 1) rule that favours high thresholds.
NAMED_RULES = (BetaRule.logarithmic(), BetaRule.brier(), BetaRule.boosting(), BetaRule.asymmetric())
#: Prior weightings of the default sweep: tau from -8 (P = 3.4e-4) to 0 (P = 1/2) in steps of 1/2.
DEFAULT_PLO_GRID = np.linspace(-8.0, 0.0, 17)
#: Calibration methods: affine trained with a proper scoring rule, closed-form CMLG, interpolated PAV.
METHODS = ("affine", "cmlg", "pav")


# ----- one calibration ----------------------------------------------------------------------------------------------


def calibration_label(method: str, rule: BetaRule | None = None, plo: float | None = None,
                      folds: int | None = None) -> str:
    """A short name for a calibration, e.g. ``"calibrated (Brier, P=0.01)"`` or ``"calibrated (PAV, 5-fold CV)"``."""
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
        where = f"in {collapsed_folds_words(self.collapsed_folds, self.folds)}" if self.collapsed_folds else ""
        if getattr(self.calibrator, "collapsed", False):
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
        return calibration_label(self.method, self.rule, self.plo, self.folds)


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


def calibrate_and_evaluate(
    train: Trials,
    test: Trials | None = None,
    method: str = "affine",
    rule: BetaRule | None = None,
    plo: float = 0.0,
    *,
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
    folds, seed : int
        Cross-validation folds and the seed of their random assignment (used only when `test` is None).
    p_target, c_miss, c_fa : float
        Operating point of the before/after metrics (:func:`~llrcore.binary.metrics.evaluate`); `p_target` may be an
        :class:`~llrcore.prior.OperatingPoint` (then it brings its costs).

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
    label = calibration_label(method, options.get("rule"), options.get("plo"), cv_folds)
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


def collapsed_folds(calibrators) -> tuple[int, ...]:
    """The folds, numbered from 1, whose calibrator collapsed (``.collapsed``, :mod:`llrcore.calibration.checks`)."""
    return tuple(i for i, c in enumerate(calibrators, start=1) if getattr(c, "collapsed", False))


def collapsed_folds_words(folds: Sequence[int], n_folds: int) -> str:
    """``"folds 1, 2 and 4 of 5"``, ``"fold 3 of 5"``."""
    return f"fold{'s' * (len(folds) > 1)} {listed([str(f) for f in folds])} of {n_folds}"


#: An affine calibration whose scale is this many times that of the closed-form Gaussian one is close to a step.
STEP_SCALE_RATIO = 10.0


def calibration_problems(calibrator, train: Trials, evaluation_cllr: float | None = None, *,
                         rule: BetaRule | None = None) -> tuple[str, ...]:
    """Why a trained calibration is degenerate, in sentences for the user; empty when nothing is wrong.

    Three signs, each measured, and one cause:

    - a **diverging scale**: an affine calibration whose scale is more than :data:`STEP_SCALE_RATIO` times that of
      the closed-form Gaussian calibration of the same training trials (:func:`~llrcore.calibration.fit.fit_cmlg`) is
      close to a step function: it calls most trials certain. (Sensible fits of any rule stay within a factor of
      about 2 of it on the demo sets; the degenerate ones are hundreds of times steeper.)
    - **Cllr above 1 bit on the training trials**: the calibrated LLRs do worse than no system (LLR 0) on the very
      trials they were trained on;
    - **Cllr above 1 bit on the evaluation trials** (`evaluation_cllr`);
    - and, when any of these shows, a **thin-tailed rule**: with ``alpha > 1`` a target with an arbitrarily low LLR
      costs the objective at most ``(alpha + beta - 1) / (alpha - 1)`` (:attr:`~llrcore.BetaRule.max_target_cost`;
      symmetrically ``beta > 1`` for non-targets), so the fit can make a few trials certain and wrong.

    Brümmer & Doddington (2013) warn that rules with thin tails, weighted for low priors, look only at few training
    trials; these checks say when that happened.
    """
    problems = []
    if isinstance(calibrator, Affine):
        try:
            with warnings.catch_warnings():  # a collapse of the reference is not the user's fit's: no warning
                warnings.simplefilter("ignore", RuntimeWarning)
                reference = fit_cmlg(train.tar, train.non)
            gaussian = np.nan if reference.collapsed else reference.scale
        except ValueError:  # no spread in a class: no Gaussian reference
            gaussian = np.nan
        if np.isfinite(gaussian) and gaussian != 0 and abs(calibrator.scale) > STEP_SCALE_RATIO * abs(gaussian):
            problems.append(
                f"The calibration is close to a step function: its scale {calibrator.scale:.3g} is "
                f"{abs(calibrator.scale / gaussian):.0f} times that of the Gaussian (CMLG) calibration of the same "
                "training trials, so it calls most trials certain."
            )
    train_cllr = cllr_bits(calibrator(train.tar), calibrator(train.non))
    if not train_cllr < 1.0:
        problems.append(f"On its own training trials the calibrated LLRs have Cllr {train_cllr:.3g} bits: worse than "
                        "no system at all (1 bit).")
    if evaluation_cllr is not None and not evaluation_cllr < 1.0:
        problems.append(f"On the evaluation trials Cllr is {evaluation_cllr:.3g} bits: worse than no system at all "
                        "(1 bit).")
    if problems and rule is not None:
        problems += _thin_tails(rule)
    return tuple(problems)


def _thin_tails(rule: BetaRule) -> list[str]:
    sentences = []
    for tail, value, bound, trials, side in (("α", rule.alpha, rule.max_target_cost, "target", "low"),
                                             ("β", rule.beta, rule.max_non_cost, "non-target", "high")):
        if np.isfinite(bound):
            sentences.append(
                f"The rule ({rule.alpha:g}, {rule.beta:g}) has a thin tail ({tail} = {value:g} > 1): a {trials} trial "
                f"given an extremely {side} LLR costs it at most {bound:.3g}, so the fit may make some trials certain "
                "and wrong. The logarithmic rule (1, 1) has no such limit."
            )
    return sentences


# ----- one calibration per condition ---------------------------------------------------------------------------------


#: How a condition of the evaluation trials was calibrated in :meth:`ConditionCalibrationResult.to_frame`.
# ----- the prior-weighting sweep (fig. 2) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleSweep:
    """Evaluation-set cost of affine calibrations trained with several rules and prior weightings.

    Attributes
    ----------
    frame : DataFrame
        One row per (rule, prior weighting): ``rule`` (name), ``alpha``, ``beta``, ``plo`` (the weighting ``tau``),
        ``p_weight`` (``sigmoid(tau)``), ``cost`` (mean normalised actual DCF over `p_targets` of the calibrated
        evaluation LLRs; Cprimary with the defaults), ``cllr`` (their Cllr in bits) and ``collapsed`` (True when the
        fit, or that of any cross-validation fold, collapsed: :attr:`~llrcore.Affine.failure`; its cost is that of
        meaningless LLRs, and :attr:`best` never chooses it).
    cost_name : str
        What ``cost`` is, for axis labels: ``"Cprimary"`` or e.g. ``"actDCF (P=0.01, Cmiss=10, Cfa=1)"``.
    raw_cost : float
        The same cost of the evaluation scores taken as LLRs without calibration.
    min_cost : float
        The same with minimum DCFs: the floor no monotone calibration of these scores can go below (it uses the
        evaluation labels).
    p_targets : tuple of float
    c_miss, c_fa : float
    cross_validated : bool
        True when the costs come from k-fold cross-validation of the training set.
    """

    frame: pd.DataFrame
    cost_name: str
    raw_cost: float
    min_cost: float
    p_targets: tuple
    c_miss: float
    c_fa: float
    cross_validated: bool

    @property
    def usable(self) -> pd.DataFrame:
        """The rows whose fits did not collapse."""
        return self.frame[~self.frame["collapsed"]]

    @property
    def best(self) -> pd.Series:
        """The row with the lowest cost (the first one if several tie) among those whose fit did not collapse.

        Raises
        ------
        ValueError
            When every fit collapsed."""
        usable = self.usable
        if usable.empty:
            raise ValueError("Every calibration of the sweep collapsed (a score far away on the wrong side of the "
                             "others decides every fit): remove the far scores from the training trials.")
        return usable.loc[usable["cost"].idxmin()]


def _cost_name(p_targets: tuple, c_miss: float, c_fa: float) -> str:
    if tuple(p_targets) == SRE12_P_TARGETS and c_miss == 1 and c_fa == 1:
        return "Cprimary"
    costs = "" if (c_miss == 1 and c_fa == 1) else f", Cmiss={c_miss:g}, Cfa={c_fa:g}"
    if len(p_targets) == 1:
        return f"actDCF (P={p_targets[0]:g}{costs})"
    return f"mean actDCF (P={', '.join(f'{p:g}' for p in p_targets)}{costs})"


def _mean_act_dcf(table: SortedScores, plo_eff: np.ndarray, affine: Affine | None = None) -> float:
    """Mean normalised actual DCF at the effective priors `plo_eff` of ``affine(scores)`` (or the scores as LLRs).

    An affine map with positive scale keeps the order, so its Bayes decisions ``a s + b >= -plo_eff`` are those of
    the raw scores at ``s >= (-plo_eff - b) / a``: the sorted raw scores answer without calibrating or sorting.
    """
    threshold = -plo_eff if affine is None else (-plo_eff - affine.offset) / affine.scale
    error = sigmoid(plo_eff) * table.miss_rate(threshold) + sigmoid(-plo_eff) * table.false_alarm_rate(threshold)
    return float(np.mean(normalised_bayes_error(error, plo_eff)))


@old_spellings({"p_targets": "p_target"})
def sweep_prior_weighting(
    train: Trials,
    test: Trials | None,
    rules: Sequence[BetaRule] = NAMED_RULES,
    plo_grid=None,
    *,
    p_target=SRE12_P_TARGETS,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    folds: int = 5,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    threads: int | None = None,
) -> RuleSweep:
    """Evaluation cost of affine calibration against the prior weighting, for several rules (fig. 2 of the paper).

    For every rule and every ``tau`` in `plo_grid` an affine calibration is trained on `train` by minimising the
    objective ``E = P mean_tar C(sigmoid(l + tau)|H1) + (1-P) mean_non C(sigmoid(l + tau)|H2)``, ``P = sigmoid(tau)``,
    and the mean normalised actual DCF of the calibrated `test` LLRs over `p_target` is recorded. With the defaults
    this is NIST SRE'12 Cprimary (``P_target`` 0.01 and 0.001, unit costs), whose Bayes thresholds sit at LLR 4.6
    and 6.9: rules that put more weight there (Brier, the asymmetric (2, 1) rule) can beat logistic regression.
    Each calibration is :func:`~llrcore.calibration.fit.fit_affine`'s, started from a nearby one (its ``start``): the
    sweep costs a fraction of as many independent fits, with the same results. The fits run on `threads` threads,
    each as soon as the one it starts from is done (:class:`~llrcore.calibration.fit.WarmStarts` plans them), so the rows
    do not depend on the number of threads.

    Parameters
    ----------
    train : Trials
        Training (development) trials.
    test : Trials or None
        Evaluation trials; None for `folds`-fold cross-validation of `train` (slower: one fit per fold).
    rules : sequence of BetaRule
    plo_grid : array_like, optional
        Prior weightings ``tau`` (log-odds); default :data:`DEFAULT_PLO_GRID`, -8 to 0 in steps of 1/2.
    p_target, c_miss, c_fa :
        The cost: mean normalised actDCF at these priors and costs.
    progress : callable, optional
        Called as ``progress(done, total)`` in the calling thread as each row (rule and ``tau``) is done, e.g. to
        drive a progress bar.
    threads : int, optional
        Fits made at once (:func:`~llrcore.thread_count`: by default ``LLRCORE_THREADS`` or every CPU).

    Returns
    -------
    RuleSweep
    """
    rules = list(rules)
    if not rules:
        raise ValueError("Choose at least one scoring rule to compare.")
    grid = np.atleast_1d(np.asarray(DEFAULT_PLO_GRID if plo_grid is None else plo_grid, dtype=np.float64))
    if grid.size == 0 or not np.all(np.isfinite(grid)):
        raise ValueError("The prior weightings must be finite log-odds.")
    p_targets = tuple(float(p) for p in np.atleast_1d(p_target))
    plo_eff = effective_plo(np.asarray(p_targets), c_miss, c_fa)
    evaluated = train if test is None else test
    with parallel.thread_limit(threads):
        table = evaluated.sorted
    # The fits of one training set (one per fold) differ only in rule and tau: each starts from a nearby one.
    if test is None:
        split = Folds.split(train.tar.size, train.non.size, folds, seed=seed)
        fits = [WarmFits(tar, non) for tar, non in split.training_sets(train.tar, train.non)]
    else:
        fits = [WarmFits(train.tar, train.non)]
    cells = [(rule, float(tau)) for rule in rules for tau in grid]
    planned = [[fit.starts.add(rule, tau) for rule, tau in cells] for fit in fits]  # each cell's fit, per set

    def row(cell, affines) -> dict:
        rule, tau = cell
        if test is None:
            tar_llr, non_llr = split.apply(train.tar, train.non, affines)
            cost = _mean_act_dcf(SortedScores(tar_llr, non_llr), plo_eff)
        else:
            affine = affines[0]
            tar_llr, non_llr = affine(test.tar), affine(test.non)
            cost = (_mean_act_dcf(table, plo_eff, affine) if affine.scale > 0
                    else _mean_act_dcf(SortedScores(tar_llr, non_llr), plo_eff))
        return {"rule": rule.name, "alpha": rule.alpha, "beta": rule.beta, "plo": tau,
                "p_weight": float(sigmoid(tau)), "cost": cost, "cllr": cllr_bits(tar_llr, non_llr),
                "collapsed": bool(collapsed_folds(affines))}

    rows = _run_planned(fits, planned, cells, row, threads, progress)
    operating_points = [dict(p_target=p, c_miss=c_miss, c_fa=c_fa) for p in p_targets]
    return RuleSweep(
        frame=pd.DataFrame(rows, columns=["rule", "alpha", "beta", "plo", "p_weight", "cost", "cllr", "collapsed"]),
        cost_name=_cost_name(p_targets, c_miss, c_fa),
        raw_cost=float(np.mean([act_dcf(table, **op) for op in operating_points])),
        min_cost=float(np.mean([min_dcf(table, **op) for op in operating_points])),
        p_targets=p_targets,
        c_miss=float(c_miss),
        c_fa=float(c_fa),
        cross_validated=test is None,
    )


def _run_planned(fits: list[WarmFits], planned: list[list[int]], cells: list, row: Callable, threads: int | None,
                 progress: Callable[[int, int], None] | None) -> list[dict]:
    """Every planned fit of every training set, then each cell's row from its fits (``planned[set][cell]`` indexes
    them), on `threads` threads: a fit waits only for the fit it starts from, a row for its fits."""
    tasks, depends_on, offsets = [], [], []
    for fit in fits:
        offsets.append(len(tasks))
        for rule, plo, start in fit.starts.fits:
            tasks.append((fit, rule, plo))
            depends_on.append(() if start is None else (offsets[-1] + start,))
    first_row = len(tasks)
    for k, cell in enumerate(cells):
        tasks.append(cell)
        depends_on.append(tuple(offset + indices[k] for offset, indices in zip(offsets, planned)))
    done = []

    def run(task, *parents):
        if isinstance(task[0], WarmFits):
            fit, rule, plo = task
            return fit.fit(rule, plo, parents[0] if parents else None)
        return row(task, list(parents))

    def on_done(i: int) -> None:
        if i >= first_row:
            done.append(i)
            if progress is not None:
                progress(len(done), len(cells))

    return parallel.run_dependent(run, tasks, depends_on, threads, on_done=on_done)[first_row:]
