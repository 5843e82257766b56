"""The prior-weighting sweep of fig. 2 of Brümmer & Doddington (2013): for several proper scoring rules and a grid of
prior weightings ``tau``, the evaluation-set Cprimary (or any mean actual DCF) of the affine calibration trained with
that rule and weighting (:func:`sweep_prior_weighting`, :class:`RuleSweep`).

Honest evaluation: with a separate evaluation set every calibration is trained on the training set alone; with one
set, by k-fold cross-validation (:class:`~llrcore.calibration.folds.Folds`). Where a rule's weighting over thresholds
peaks (fig. 1) is :func:`~llrcore.calibration.weighting.weighting_mode`.

Reference
---------
N. Brümmer and G. Doddington, "Likelihood-ratio calibration using prior-weighted proper scoring rules",
Interspeech 2013 (eqs. 3, 7, 10, 16; figs. 1-3).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .. import parallel
from .._deprecation import old_spellings
from ..binary.costs import cllr_bits
from ..binary.metrics import SRE12_P_TARGETS, act_dcf, effective_plo, min_dcf, normalised_bayes_error
from ..binary.rates import SortedScores
from ..data.trials import Trials
from ..prior import sigmoid
from .calibrators import Affine
from .folds import Folds, collapsed_folds
from .rules import BetaRule
from .warm import WarmFits

__all__ = ["DEFAULT_PLO_GRID", "NAMED_RULES", "RuleSweep", "sweep_prior_weighting"]

#: The four rules of Brümmer & Doddington (2013): logarithmic (1, 1), Brier (2, 2), boosting (1/2, 1/2) and the
#: asymmetric (2, 1) rule that favours high thresholds.
NAMED_RULES = (BetaRule.logarithmic(), BetaRule.brier(), BetaRule.boosting(), BetaRule.asymmetric())
#: Prior weightings of the default sweep: tau from -8 (P = 3.4e-4) to 0 (P = 1/2) in steps of 1/2.
DEFAULT_PLO_GRID = np.linspace(-8.0, 0.0, 17)


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

    def to_frame(self) -> pd.DataFrame:
        """:attr:`frame`: one row per (rule, prior weighting)."""
        return self.frame.copy()

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
        # a label of this frame; pandas-stubs types idxmin's as any Hashable, which .loc does not take
        return usable.loc[usable["cost"].idxmin()]  # type: ignore[call-overload]


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
    plo_grid: ArrayLike | None = None,
    *,
    p_target: float | Sequence[float] = SRE12_P_TARGETS,
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
    each as soon as the one it starts from is done (:class:`~llrcore.calibration.warm.WarmStarts` plans them), so the rows
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
    tasks: list = []  # each fit's (fit, rule, plo), then each cell
    depends_on: list[tuple[int, ...]] = []
    offsets: list[int] = []
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
