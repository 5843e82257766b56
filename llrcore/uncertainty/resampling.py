"""How sure the numbers are: bootstrap confidence intervals and a DET band (the paired comparison of two systems,
:mod:`llrcore.uncertainty.comparison`, draws the same way).

A bootstrap replicate draws the trials again with replacement and recomputes every metric. Here a replicate never
sorts: the scores were sorted once (:class:`~llrcore.binary.rates.SortedScores`), each trial knows the index of its unique
score, and a replicate only counts how many times each trial was drawn and sums those counts per unique score
(:meth:`~llrcore.binary.rates.SortedScores.reweighted`); PAV then runs on the weighted counts. The numbers are those of
resampling the score arrays and evaluating them from scratch (the naive way), for the same draws.

The draws (:class:`~llrcore.uncertainty.draws.Draws`, whose module lists them in the order of the random numbers, so
that the naive way can repeat them): ``rng = numpy.random.default_rng(seed)``; trial by trial, stratified by class so
that each replicate keeps the numbers of targets and non-targets (the targets, then the non-targets, indexing the
sorted scores; :func:`~llrcore.compare_systems` indexes them in the order of ``Trials.tar`` and ``Trials.non`` of
system A); or, with ``group_by``, in two levels, so that trials that share a speaker are not taken for independent
ones: G of the G groups (speakers, models, ...) with replacement, then each drawn group's own trials again with
replacement, as many as it has (the groups numbered in order of first appearance, targets before non-targets); a trial
counts as often as it was drawn. A grouped replicate left without targets or without non-targets gives NaN metrics,
which the intervals leave out.

Why two levels (Davison & Hinkley 1997, sec. 3.8, strategy 2): drawing whole groups only (their strategy 1) makes the
replicates of a mean over G groups vary by ``(G - 1) / G`` of its variance, and BCa intervals from them covered the
EER and Cllr of 30 speakers in 87 to 91 % of samples at nominal 95 % (bench/RESULTS.md, "few groups"). Drawing the
trials again within the drawn groups adds the within-group variance a second time: conservative by that term (most
when the trials of a group hardly share anything: intervals up to about 1.4 times as wide), which makes up for the
few groups (Field & Welsh 2007 give the variances of both strategies under a random-effects model). It was chosen,
on two development designs, over a jackknife-t interval over groups and over BCa widened by sqrt(G / (G - 1)) with
Student-t levels on G - 1 degrees of freedom (Cameron, Gelbach & Miller 2008), which covered less; docs/conventions.md
and bench/RESULTS.md give its coverage on held-out designs.

Replicates run on a pool of threads (``threads=``, :mod:`llrcore.parallel`): the draws are made in the calling thread,
in the order above, and each replicate's metrics are computed from its own draws, so no number depends on the number
of threads.

Intervals are BCa intervals by default (bias-corrected and accelerated, Efron 1987; ``method="percentile"`` for
percentile intervals): the acceleration comes from a grouped (delete-d) jackknife that leaves out one block of trials
(or of groups) at a time by giving it the weight 0, so the jackknife does not sort again either; its means of
per-trial costs (Cllr, actDCF, Cprimary) come in closed form from per-block sums, its rank metrics from one PAV per
block (:mod:`llrcore.uncertainty.intervals`, :mod:`llrcore.uncertainty.jackknife`). A minDCF that rests on fewer than 30 misses or false alarms gets the
out-of-bag bracket: from the percentile interval's lower end to the mean cost, at each replicate's minDCF threshold, of
the trials that replicate did not draw, plus the replicates' upper spread (one more pass over each replicate's
weights; ``smooth=True`` gives the smoothed bootstrap's basic interval instead, whose replicates sort again). The
measured coverage of every method is in :mod:`llrcore.uncertainty.intervals`. The DET band stays pointwise
percentile.

The rule of 30 (Doddington et al. 2000): to be 90 % sure that a true error rate lies within 30 % of the observed one,
at least 30 errors must have been observed.

References
----------
B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993.
B. Efron, "Better bootstrap confidence intervals", JASA 82, 1987 (BCa).
B. Efron, "Estimating the error rate of a prediction rule: improvement on cross-validation", JASA 78, 1983
(out-of-bag). B. W. Silverman and G. A. Young, "The bootstrap: to smooth or not to smooth?", Biometrika 74, 1987.
A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their Application*, Cambridge University Press, 1997 (sec. 3.8).
C. A. Field and A. H. Welsh, "Bootstrapping clustered data", JRSS B 69, 2007. A. C. Cameron, J. B. Gelbach and
D. L. Miller, "Bootstrap-based improvements for inference with clustered errors", Review of Economics and Statistics
90, 2008.
R. M. Bolle, N. K. Ratha and S. Pankanti, "Error analysis of pattern recognition systems — the subsets bootstrap",
CVIU 93, 2004 (resampling whole subjects).
G. R. Doddington, M. A. Przybocki, A. F. Martin and D. A. Reynolds, "The NIST speaker recognition evaluation —
overview, methodology, systems, results, perspective", Speech Communication 31, 2000 (the rule of 30).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from .. import parallel
from ..binary.metrics import SRE12_P_TARGETS, BinaryMetrics, evaluate, normalised_bayes_error
from ..binary.rates import ReweightedScores, ScoreCounts, SortedScores
from ..data.trials import Trials
from ..memory import available_memory
from ..prior import OperatingPoint, as_operating_point, effective_plo, primary_p_targets
from .draws import Draws
from .intervals import (
    DEFAULT_METHOD,
    ReplicateIntervals,
    SmoothedReplicates,
    acceleration,
    check_method,
    interval_words,
    percentile_interval,
    rests_on_few_errors,
    run_counts,
    smoothed_bootstrap,
)
from .jackknife import BlockJackknife

__all__ = ["BOOTSTRAP_METRICS", "BootstrapResult", "DETBand", "bootstrap"]

BOOTSTRAP_METRICS = ("eer", "min_dcf", "act_dcf", "cllr", "min_cllr", "cprimary")
"""The metrics every replicate recomputes (attributes of :class:`~llrcore.BinaryMetrics`)."""

DET_BAND_PROBITS = np.linspace(ndtri(1e-5), ndtri(0.995), 91)
"""The false-alarm rates (as probits, 0.001 % to 99.5 %) at which the DET band gives the miss rate."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class DETBand:
    """A pointwise confidence band of the ROCCH DET: at each false-alarm rate, percentiles of the miss rate over
    the bootstrap replicates (vertical averaging, Fawcett 2006).

    Attributes
    ----------
    pfa : ndarray
        False-alarm rates, as fractions.
    pmiss, lower, upper : ndarray
        Miss rate of all the trials' ROCCH and the band's limits at each `pfa`.
    level : float
    """

    pfa: np.ndarray = field(repr=False)
    pmiss: np.ndarray = field(repr=False)
    lower: np.ndarray = field(repr=False)
    upper: np.ndarray = field(repr=False)
    level: float

    def __repr__(self) -> str:
        return f"DETBand({self.pfa.size} false-alarm rates, level={self.level:g}, pointwise percentile)"

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"pfa": self.pfa, "pmiss": self.pmiss, "pmiss_lower": self.lower,
                             "pmiss_upper": self.upper})


def _check_metric(frame: pd.DataFrame, metric: str) -> np.ndarray:
    if metric not in frame.columns:
        raise KeyError(f"No interval for {metric!r}: the metrics are {', '.join(BOOTSTRAP_METRICS)}.")
    return frame[metric].to_numpy()


@dataclass(frozen=True, repr=False)
class BootstrapResult(ReplicateIntervals):
    """Bootstrap replicates of the metrics of one set of trials, and their intervals.

    Attributes
    ----------
    estimate : BinaryMetrics
        The metrics of all the trials.
    replicates : DataFrame
        One row per replicate, one column per metric of :data:`BOOTSTRAP_METRICS`.
    level : float
        Coverage of the intervals, e.g. 0.95.
    group_by : str or None
        The metadata column whose values were drawn whole, then their trials within them (None: trials drawn one by
        one, per class).
    n_groups : int or None
        The number of groups drawn from.
    det_band : DETBand
    method : str
        ``"bca"`` or ``"percentile"``: how :meth:`interval` makes the intervals (:mod:`llrcore.uncertainty.intervals`).
    acceleration : dict of str -> float, or None
        BCa's acceleration of each metric, from the grouped jackknife (None with ``method="percentile"``).
    smoothed : SmoothedReplicates or None
        The smoothed bootstrap of minDCF (``smooth=True``).
    held_out : ndarray
        Each replicate's out-of-bag minDCF cost: the normalised cost, at the replicate's minDCF threshold, of the
        trials it did not draw (the upper end of the out-of-bag bracket, :mod:`llrcore.uncertainty.intervals`).
    min_dcf_method : str or None
        How minDCF's interval is made by default: ``"bracket"`` (the out-of-bag bracket, when minDCF rests on fewer
        than 30 errors), ``"smoothed"`` (``smooth=True``) or None (the run's :attr:`method`).
    """

    estimate: BinaryMetrics
    replicates: pd.DataFrame
    level: float
    group_by: str | None
    n_groups: int | None
    det_band: DETBand
    method: str = DEFAULT_METHOD
    acceleration: dict | None = None
    smoothed: SmoothedReplicates | None = None
    held_out: np.ndarray | None = field(default=None, repr=False)
    min_dcf_method: str | None = None

    def __repr__(self) -> str:
        return (f"BootstrapResult({self.estimate.name or 'trials'!r}, {len(self.replicates):,} replicates, "
                f"{self.interval_words}s, group_by={self.group_by!r})")

    def _values(self, metric: str) -> np.ndarray:
        return _check_metric(self.replicates, metric)

    def _estimate(self, metric: str) -> float:
        return getattr(self.estimate, metric)

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: ``estimate``, ``lower``, ``upper``, the replicates' standard deviation and ``method``
        (e.g. ``"95 % BCa"``)."""
        rows = {m: (getattr(self.estimate, m), *self.interval(m), float(np.nanstd(self._values(m), ddof=1)))
                for m in BOOTSTRAP_METRICS}
        frame = pd.DataFrame.from_dict(rows, orient="index", columns=["estimate", "lower", "upper", "std"])
        frame["method"] = [_method_label(self.level, self.metric_method(m)) for m in BOOTSTRAP_METRICS]
        frame.index.name = "metric"
        return frame


def _method_label(level: float, method: str) -> str:
    return interval_words(level, method).removesuffix(" bootstrap interval")


def bootstrap(trials: Trials, n: int = 1000, level: float = 0.95, group_by: str | None = None, seed: int = 0, *,
              p_target: float | OperatingPoint = 0.01, c_miss: float = 1.0, c_fa: float = 1.0,
              primary: Sequence[float] | str = SRE12_P_TARGETS, method: str = DEFAULT_METHOD,
              smooth: bool | None = None, progress: Progress | None = None, threads: int | None = None
              ) -> BootstrapResult:
    """Bootstrap confidence intervals for EER, minDCF, actDCF, Cllr, minCllr and Cprimary, and a DET band.

    Parameters
    ----------
    trials : Trials
        The trials (scores taken as LLRs for the actual costs).
    n : int
        Number of replicates.
    level : float
        Coverage of the intervals, in (0, 1).
    group_by : str, optional
        A metadata column (``"model"``, ``"test"``, ``"speaker"``, ...): its values are drawn whole, then the trials
        of each drawn value again within it (two levels, which make up for few groups: module docstring), instead of
        trials one by one. Use it when trials share a speaker or a model: trial-level intervals are then too narrow.
    seed : int
        Seed of ``numpy.random.default_rng``; the draws are listed in the module docstring.
    p_target, c_miss, c_fa
        The operating point of minDCF and actDCF (`p_target` may be an :class:`~llrcore.OperatingPoint`).
    primary : sequence of float or str
        The P_target values of Cprimary, or a NIST evaluation's name (``"SRE16"``); default SRE'12's.
    method : {"bca", "percentile"}
        BCa intervals (the default: they cover best, see :mod:`llrcore.uncertainty.intervals`), with their grouped jackknife
        (80 more PAVs, no re-weighting: :mod:`llrcore.uncertainty.jackknife`), or percentile intervals.
    smooth : bool, optional
        With ``method="bca"``: True for minDCF's interval from the smoothed bootstrap (its replicates sort again),
        False for BCa. By default (None) the out-of-bag bracket when the minDCF rests on fewer than 30 misses or
        false alarms (the rule of 30), else BCa (:mod:`llrcore.uncertainty.intervals`).
    progress : callable, optional
        Called as ``progress(done, n)`` after each replicate, in the calling thread.
    threads : int, optional
        Replicates computed at once (:func:`~llrcore.thread_count`: by default ``LLRCORE_THREADS`` or every CPU;
        fewer when the replicates in flight would fill a quarter of the free memory). No number depends on it.

    Returns
    -------
    BootstrapResult
    """
    op, primary = as_operating_point(p_target, c_miss, c_fa), primary_p_targets(primary)
    n, level = check_replicates(n, level)
    method = check_method(method)
    draw = Draws.of(trials, group_by, seed)
    with parallel.thread_limit(threads):
        table = _prepared(trials.sorted)
        min_dcf_method = _min_dcf_method(method, smooth, table, op)
        # Trials drawn one by one are drawn from the sorted scores; whole groups need each trial's place in them.
        order = None if group_by is None else table.trial_order(trials.tar, trials.non)
        estimate = evaluate(trials, p_target=op, name=trials.name, primary=primary)

    metrics_row = _ReplicateMetrics(op, primary)

    def replicate(drawn):
        weights = _in_sorted_order(draw.weights(drawn), order)
        counts = _reweighted(table, *weights, None)
        return metrics_row(counts), _rocch_pmiss(counts), _held_out_min_dcf(table, counts, *weights, op)

    rows, band, held_out = [], [], []
    replicates = parallel.ordered_map(replicate, draw.replicates(n), threads, window=_window(len(trials), threads))
    for done, (row, pmiss, cost) in enumerate(replicates, start=1):
        rows.append(row)
        band.append(pmiss)
        held_out.append(cost)
        if progress is not None:
            progress(done, n)
    return BootstrapResult(estimate=estimate, replicates=pd.DataFrame(rows, columns=list(BOOTSTRAP_METRICS)),
                           level=level, group_by=group_by, n_groups=draw.n_groups,
                           det_band=_det_band(np.array(band), _rocch_pmiss(table), level), method=method,
                           acceleration=_acceleration(draw, [table], [order], metrics_row, method, threads),
                           smoothed=_smoothed(trials, group_by, seed, n, op, threads) if min_dcf_method == "smoothed"
                           else None, held_out=np.array(held_out, dtype=np.float64), min_dcf_method=min_dcf_method)


def _min_dcf_method(method: str, smooth: bool | None, table: SortedScores, op: OperatingPoint) -> str | None:
    """minDCF's default interval (:attr:`BootstrapResult.min_dcf_method`) for a run of `method` and `smooth`, on the
    sorted trials `table`."""
    if method != "bca" or smooth is False:
        return None
    if smooth:
        return "smoothed"
    return "bracket" if rests_on_few_errors(table.tar, table.non, op, counts=run_counts(table)) else None


def _in_sorted_order(weights: tuple, order) -> tuple[np.ndarray, np.ndarray]:
    """Per-trial weights in the order of the sorted scores (`order`: :meth:`SortedScores.trial_order`, or None when
    the draws index the sorted scores already)."""
    return weights if order is None else (weights[0][order[0]], weights[1][order[1]])


def _held_out_min_dcf(table: SortedScores, counts: ScoreCounts | None, tar_weights, non_weights,
                      op: OperatingPoint) -> float:
    """The out-of-bag minDCF cost of one replicate: the normalised DCF, at the replicate's minDCF threshold, of the
    trials it did not draw (weights in sorted order); NaN when it drew every trial of a class, or none. The
    threshold lies just above the highest drawn score the replicate's minDCF rejects (:meth:`~llrcore.binary.rates.
    ScoreCounts.min_cut` gives the rejected drawn trials): trials of weight 0 between it and the lowest accepted drawn
    score, which any threshold in that gap treats alike in the replicate, count as accepted."""
    if counts is None:
        return math.nan
    n_tar, n_non = (weights.size - int(np.count_nonzero(weights)) for weights in (tar_weights, non_weights))
    if not (n_tar and n_non):
        return math.nan
    cut_tar, cut_non = counts.min_cut(op.plo_eff)
    highest = max(_last_drawn(table.tar, tar_weights, cut_tar), _last_drawn(table.non, non_weights, cut_non))
    cut_tar = int(np.searchsorted(table.tar, highest, "right"))
    cut_non = int(np.searchsorted(table.non, highest, "right"))
    w_miss, w_fa = op.p_target * op.c_miss, (1 - op.p_target) * op.c_fa
    misses = cut_tar - np.count_nonzero(tar_weights[:cut_tar])
    false_alarms = non_weights.size - cut_non - np.count_nonzero(non_weights[cut_non:])
    return (w_miss * misses / n_tar + w_fa * false_alarms / n_non) / min(w_miss, w_fa)


def _last_drawn(scores: np.ndarray, weights: np.ndarray, stop: int) -> float:
    """The highest of the sorted `scores` before position `stop` with a weight above 0 (-inf if none), looked for
    backwards in windows that double (a replicate draws about 63 % of the trials: the first window nearly always
    holds one; not an index of every drawn trial below `stop`)."""
    window = 64
    while stop > 0:
        start = max(stop - window, 0)
        drawn = np.flatnonzero(weights[start:stop])
        if drawn.size:
            return float(scores[start + drawn[-1]])
        stop, window = start, 2 * window
    return -math.inf


def _acceleration(draw: Draws, tables: list[SortedScores], orders: list, row, method: str,
                  threads: int | None) -> dict | None:
    """BCa's acceleration of each metric from the grouped jackknife of `draw` (:mod:`llrcore.uncertainty.intervals`)
    on the sorted `tables`, whose trials take their blocks through `orders` (:class:`~llrcore.uncertainty.jackknife.
    BlockJackknife`); ``row(*counts)`` gives a row of metrics for the tables, each without one block (None when that
    leaves it a class without trials). None for percentile intervals."""
    if method != "bca":
        return None
    strata, labels = draw.block_strata(), draw.block_labels()
    jackknives = [BlockJackknife(table, labels, strata.size, order) for table, order in zip(tables, orders)]
    rows = parallel.ordered_map(lambda j: row(*(jackknife.left_out(j) for jackknife in jackknives)),
                                range(strata.size), threads)
    values = np.array(list(rows), dtype=np.float64)
    return dict(zip(BOOTSTRAP_METRICS, acceleration(values, strata)))


def _smoothed(trials: Trials, group_by, seed: int, n: int, op: OperatingPoint, threads) -> SmoothedReplicates:
    """The smoothed bootstrap of minDCF (:func:`~llrcore.uncertainty.intervals.smoothed_bootstrap`), drawn as the plain one but
    by ``default_rng([seed, 2])`` (trials one by one index the sorted scores; whole groups weigh them in order)."""
    draw = Draws.of(trials, group_by, [seed, 2])
    tar, non = (np.sort(trials.tar), np.sort(trials.non)) if group_by is None else (trials.tar, trials.non)
    return smoothed_bootstrap(tar, non, map(draw.weights, draw.replicates(n)), draw.rng, op, threads,
                              _window(len(trials), threads))


def _prepared(table: SortedScores) -> SortedScores:
    """`table` with what every replicate reads computed once beforehand, on all the threads (not once per pool
    thread that happens to ask first)."""
    table.costs, table.runs  # noqa: B018 (cached properties)
    return table


#: Bytes a replicate in flight holds per trial (draws, weights, running sums, temporaries), and the share of the
#: free memory the replicates in flight may take.
_BYTES_PER_TRIAL, _MEMORY_SHARE = 48, 0.25


def _window(n_trials: int, threads: int | None) -> int:
    """How many replicates may be in flight at once: one per thread, fewer when they would fill more than a quarter
    of the free memory (a workstation's 64 threads on 10M trials would otherwise need tens of GB)."""
    free = available_memory()
    return max(1, min(parallel.thread_count(threads), int(_MEMORY_SHARE * free // (_BYTES_PER_TRIAL * n_trials))))


def _reweighted(table: SortedScores, tar_weights, non_weights, order) -> ReweightedScores | None:
    """One replicate's weighted trials; None when its draws leave a class without trials (grouped draws on a small
    set can miss every target or every non-target)."""
    try:
        return table.reweighted(tar_weights, non_weights, order=order)
    except ValueError:
        return None


class _ReplicateMetrics:
    """The metrics of :data:`BOOTSTRAP_METRICS` of one replicate's weighted trials, as :func:`evaluate` computes them
    (the same kernels on the same numbers: equal to the last bit), with the priors' log-odds worked out once for all
    replicates: on a small set, evaluate's checks of the operating point and its unused minimum Cprimary took most of
    a replicate's time."""

    def __init__(self, op: OperatingPoint, primary: tuple[float, ...]):
        self.plo = effective_plo(op)
        self.primary_plo = effective_plo(np.asarray(primary, dtype=np.float64))

    def __call__(self, counts: ScoreCounts | None) -> list[float]:
        """One row; NaN for a replicate left without a class (the intervals leave it out)."""
        if counts is None:
            return [math.nan] * len(BOOTSTRAP_METRICS)
        plo, primary_plo = self.plo, self.primary_plo
        values = {
            "eer": counts.eer(),
            "min_dcf": float(normalised_bayes_error(counts.min_bayes_error(plo), plo)),
            "act_dcf": float(normalised_bayes_error(counts.actual_bayes_error(plo), plo)),
            "cllr": counts.cllr(),
            "min_cllr": counts.min_cllr(),
            "cprimary": float(np.mean(normalised_bayes_error(counts.actual_bayes_error(primary_plo), primary_plo))),
        }
        return [values[m] for m in BOOTSTRAP_METRICS]


def _rocch_pmiss(counts: ScoreCounts | None) -> np.ndarray:
    """Miss rate of the ROCCH at the false-alarm rates of :data:`DET_BAND_PROBITS` (linear along hull segments);
    NaN for a replicate left without a class."""
    if counts is None:
        return np.full(DET_BAND_PROBITS.size, np.nan)
    pfa, pmiss = counts.rocch()
    # Vertices run from pfa = 1 down to 0; np.interp wants increasing abscissae.
    return np.interp(ndtr(DET_BAND_PROBITS), pfa[::-1], pmiss[::-1])


def _det_band(replicates: np.ndarray, pmiss: np.ndarray, level: float) -> DETBand:
    lower, upper = percentile_interval(replicates, level)
    return DETBand(pfa=ndtr(DET_BAND_PROBITS), pmiss=pmiss, lower=lower, upper=upper, level=level)


def _inverse(position: np.ndarray) -> np.ndarray:
    """For `position` (where A's trial i is in B), which of A's trials each of B's trials is."""
    inverse = np.empty_like(position)
    inverse[position] = np.arange(position.size)
    return inverse


def check_replicates(n, level) -> tuple[int, float]:
    if int(n) != n or n < 2:
        raise ValueError(f"The number of bootstrap replicates must be a whole number of at least 2, not {n!r}.")
    if not 0 < level < 1:
        raise ValueError(f"The confidence level must lie between 0 and 1 (e.g. 0.95), not {level!r}.")
    return int(n), float(level)
