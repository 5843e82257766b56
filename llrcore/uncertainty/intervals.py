"""Confidence intervals from bootstrap replicates: BCa (the default), the out-of-bag bracket of minDCF, percentile,
the smoothed bootstrap of minDCF, and the grouped jackknife that gives BCa its acceleration.

**Percentile** (Efron & Tibshirani 1993, ch. 13): the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the
replicates. It assumes the replicates scatter around the estimate as the estimate scatters around the truth; a
biased metric breaks this: the ROCCH-EER and the minDCF of a few hundred targets are optimistic (the hull and the
minimum over thresholds fit the sample), the replicates are more optimistic still, and the percentile interval
misses the true value mostly from below.

**BCa**, bias-corrected and accelerated (Efron 1987; Efron & Tibshirani 1993, ch. 14): the quantiles at the
corrected levels

    alpha_1 = Phi(z0 + (z0 + z_lo) / (1 - a (z0 + z_lo))),   alpha_2 = the same with z_hi,

where ``z_lo = Phi^-1((1 - level) / 2)``, ``z_hi = -z_lo``; the bias correction ``z0 = Phi^-1(p)`` with ``p`` the share
of replicates below the estimate (ties count half), and the acceleration ``a``, the skewness of the estimate's
influence, from a jackknife:

    a = sum_j v_j^3 / (6 (sum_j v_j^2)^(3/2)),    v_j = ((m_k - 1) / m_k) (mean_k theta_(.) - theta_(j)),

over the left-out blocks j of every stratum k (targets and non-targets are drawn apart, so each class is a stratum
of its own, as in Efron's several-sample acceleration; whole groups with ``group_by`` are one stratum), with
``theta_(j)`` the metric without block j and ``m_k`` the stratum's number of blocks. The jackknife here is
**grouped (delete-d)**: each stratum's trials (or groups) are dealt at random into ``m_k = min(count, 40)`` blocks
and one block at a time is left out, by giving its trials the weight 0 (never sorted again: Cllr, actDCF and
Cprimary of each block in closed form from the block's sums, EER, minDCF and minCllr by one PAV each,
:mod:`llrcore.uncertainty.jackknife`). A delete-one jackknife would cost one evaluation per trial; blocks give the
same acceleration for smooth metrics at a cost of 40 PAVs per stratum (80 for targets and non-targets), and delete-d
jackknives are the ones that stay consistent for non-smooth statistics such as quantiles (Shao & Wu 1989). The
blocks of stratum k are dealt by ``numpy.random.default_rng([seed, 1, k])``, streams apart from the replicates'
draws (:func:`llrcore.uncertainty.draws.jackknife_blocks`, beside every draw of the bootstrap).

**Why minDCF needs its own interval.** minDCF is a minimum over thresholds of a cost that, at P_target 0.01 and
3,000 non-targets, counts about four false alarms (each worth 99 / 3,000). The sample's cost curve sits, at its
minimum, in a dip of chance; the plain bootstrap takes the sample for the population, so its replicates start from
that dip and find little more to gain, while the true curve is flat near its minimum and the sample finds a dip
anywhere along it: the replicates show about a third of the estimate's optimism, and every interval made from them
(percentile, BC, BCa, basic) misses the truth from below (the plain bootstrap of a non-smooth functional such as an
extremum is inconsistent: Bickel, Götze & van Zwet 1997).

**Out-of-bag bracket of minDCF** (the default for minDCF when it rests on fewer than 30 misses or false alarms, the
rule of 30 of Doddington et al. 2000; :func:`bracket_interval`). The truth lies between two biased estimates: the
minimum over thresholds of a sample's cost is optimistic, and the cost, on trials it has not seen, of a threshold
chosen on a sample is pessimistic (no threshold does better than the best one). The bracket takes its lower end
from the first and its upper end from the second:

    [q_lo,  mean_b oob_b + (q_hi - mean_b m_b)]   within [0, 1],

where ``m_b`` is replicate b's minDCF, ``q_lo``, ``q_hi`` the ``(1 -+ level) / 2`` percentiles of the ``m_b`` (the
percentile interval's ends), and ``oob_b`` the normalised cost, at replicate b's minDCF threshold
(:meth:`~llrcore.binary.rates.ScoreCounts.min_cut`), of the trials that replicate did not draw (about 37 % of
each class): the out-of-bag estimate of the error of a rule fitted to a bootstrap sample (Efron 1983; Efron &
Tibshirani 1997, the leave-one-out bootstrap). The replicates' spread above their mean is added to that
pessimistic centre. The percentile lower end errs low (the replicates are more optimistic than the estimate), so
the bracket is wider than a pivotal interval, about 1.5 times the percentile interval's width at 300 + 3,000 trials;
it costs one pass over each replicate's weights (no sort). It was chosen on the two *chose* designs of the
benchmark over seven alternatives (percentile and basic intervals, OOB-shifted and .632-shifted percentile
intervals, an optimism-corrected basic interval, the percentile lower end with the OOB costs' upper percentile or
with the .632 estimate), then run once on held-out designs (measured coverage below).

**Smoothed bootstrap of minDCF** (``smooth=True``; before the bracket, the default). The
smoothed bootstrap (Efron 1979, sec. 2; Silverman & Young 1987; Hall, DiCiccio & Romano 1989) draws each class's
scores from a kernel estimate of its density instead: a world whose cost curve is smooth like the true one, with a
true minDCF of its own, the **centre** (:func:`smoothed_min_dcf`). The replicates' scatter around the centre stands
for the estimate's around the truth, so the interval is the basic (pivotal) one (Davison & Hinkley 1997, eq. 5.6):

    [theta_hat - (q_hi - centre),  theta_hat - (q_lo - centre)]   within [0, 1],

``q_lo``, ``q_hi`` the ``(1 -+ level) / 2`` quantiles of the smoothed replicates. The kernel is the shrunk Gaussian
kernel of Silverman & Young (1987), which keeps each class's variance, with Silverman's rule-of-thumb bandwidth per
class (:class:`SmoothedKernel`): no constant was chosen here. A smoothed replicate draws the trials as a plain one
does (from ``default_rng([seed, 2])``), then moves each drawn score to a draw of its kernel component: the scores
change, so this is not a re-weighting, and each smoothed replicate sorts its scores again (one sort and two
cumulative sums, :func:`empirical_min_dcf`; about half the time of a re-weighted replicate of all six metrics at
3,300 trials). Beyond the rule of 30 the plain bootstrap is in its normal regime and smoothing, which would cost
several re-weighted replicates each on millions of trials, is left out. Paired comparisons
(:func:`~llrcore.compare_systems`) and the t-DCF keep BCa.

References
----------
B. Efron, "Bootstrap methods: another look at the jackknife", Annals of Statistics 7, 1979. B. Efron, "Estimating
the error rate of a prediction rule: improvement on cross-validation", JASA 78, 1983. B. Efron, "Better bootstrap
confidence intervals", JASA 82, 1987. B. Efron and R. J. Tibshirani, "Improvements on cross-validation: the .632+
bootstrap method", JASA 92, 1997. B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
Chapman & Hall, 1993 (ch. 13-14). J. Shao and C. F. J. Wu, "A general theory for jackknife variance estimation",
Annals of Statistics 17, 1989. B. W. Silverman, *Density Estimation for Statistics and Data Analysis*, Chapman & Hall,
1986 (eq. 3.31). B. W. Silverman and G. A. Young, "The bootstrap: to smooth or not to smooth?", Biometrika 74, 1987.
P. Hall, T. J. DiCiccio and J. P. Romano, "On smoothing and the bootstrap", Annals of Statistics 17, 1989. P. J.
Bickel, F. Götze and W. R. van Zwet, "Resampling fewer than n observations: gains, losses, and remedies for losses",
Statistica Sinica 7, 1997. P. J. Bickel and A. Sakov, "On the choice of m in the m out of n bootstrap and confidence
bounds for extrema", Statistica Sinica 18, 2008. A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their
Application*, Cambridge University Press, 1997. G. R. Doddington et al., Speech Communication 31, 2000 (rule of 30).

Measured coverage
-----------------
Nominal 95 % intervals on calibrated Gaussian LLRs at ``lc.bootstrap``'s default 1,000 replicates
(``bench/bench_bootstrap_coverage.py --size default``, bench/RESULTS.md: 200 samples per design). The out-of-bag
bracket was chosen on EER 7.9 % and 2.3 % at 300 + 3,000 trials, P_target 0.01 (98.5 % / 98.0 %), then run once on
held-out designs (other seeds; EER 1 % and 15 %; 100 + 1,000 and 1,000 + 10,000 trials; P_target 0.05 and 0.001): it
covers the minDCF in 91.5 to 100 % of samples (93 % or more on six of seven; 91.5 % at EER 1 %, two false alarms),
where the smoothed bootstrap covered 74.5 to 92.5 %, BCa 16.5 to 93.5 % and percentiles 10.5 to 89.5 %; its price is
width, about 1.5 times the percentile interval's. (The smoothed bootstrap had been chosen on the same two designs over
the m-out-of-n bootstrap with Bickel & Sakov's m and unshrunk smoothing.) BCa covers the EER in 91.0 to 94.0 % and
Cllr in 90.5 to 96.0 %.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import ndtr, ndtri

from .. import parallel
from .._format import INTERVAL_METHODS, interval_words

__all__ = ["DEFAULT_METHOD", "INTERVAL_METHODS", "RULE_OF_30", "SMOOTHED_METRICS", "ReplicateIntervals",
           "SmoothedKernel", "SmoothedReplicates", "acceleration", "basic_interval", "bca_interval", "check_method",
           "bracket_interval", "empirical_min_dcf", "interval_words", "min_dcf_errors",
           "rests_on_few_errors",
           "percentile_interval", "run_counts", "smoothed_bootstrap", "smoothed_min_dcf"]

SMOOTHED_METRICS = ("min_dcf",)
"""The metrics whose default interval may be their own (the out-of-bag bracket, or the smoothed bootstrap's)."""
RULE_OF_30 = 30
"""Fewer misses or false alarms than this at the minDCF threshold: the smoothed bootstrap (Doddington et al. 2000)."""


def rests_on_few_errors(tar, non, op, *, counts=None) -> bool:
    """Whether the minDCF of these scores at the operating point `op` rests on fewer than :data:`RULE_OF_30` misses
    or false alarms, where the plain bootstrap of the minimum fails and the out-of-bag bracket is the default.
    `counts`: the targets and non-targets at each unique score of these scores in ascending order
    (:class:`~llrcore.binary.rates.SortedScores`' ``tar_counts`` and ``non_counts``), or in each run of unique
    scores that holds one class (:func:`run_counts`), which spares sorting again."""
    w_miss, w_fa = op.p_target * op.c_miss, (1 - op.p_target) * op.c_fa
    return min(min_dcf_errors(tar, non, w_miss, w_fa, counts=counts)) < RULE_OF_30
#: The bootstrap interval of :func:`~llrcore.bootstrap` when none is asked for: BCa (bias-corrected and accelerated,
#: Efron 1987), the method that covers best (``bench/bench_bootstrap_coverage.py``, in bench/RESULTS.md).
DEFAULT_METHOD = "bca"

def check_method(method: str) -> str:
    """`method` if it is one of :data:`INTERVAL_METHODS`, else a ValueError with a sentence."""
    if method not in INTERVAL_METHODS:
        raise ValueError(f"The interval method must be one of {', '.join(map(repr, INTERVAL_METHODS))}, "
                         f"not {method!r}.")
    return method


def percentile_interval(values, level: float):
    """The percentile interval ``(lower, upper)`` of the replicates `values` (NaN left out), per column for 2-D."""
    tail = 100 * (1 - level) / 2
    if np.ndim(values) == 1:
        return _percentiles(values, [tail, 100 - tail])
    lower, upper = np.nanpercentile(values, [tail, 100 - tail], axis=0)
    return lower, upper


def _percentiles(values, percents) -> tuple[float, ...]:
    """Percentiles of the non-NaN `values`, interpolated linearly as ``numpy.percentile`` does, except that between
    two equal values (two infinite replicates: an infinite Cllr) the percentile is that value, not NaN."""
    x = np.sort(np.asarray(values, dtype=np.float64)[~np.isnan(values)])
    if x.size == 0:
        return tuple(np.full(len(percents), np.nan))
    h = (x.size - 1) * (np.asarray(percents, dtype=np.float64) / 100)
    below = np.floor(h).astype(np.int64)
    a, b, t = x[below], x[np.minimum(below + 1, x.size - 1)], h - below
    with np.errstate(invalid="ignore"):
        diff = b - a
        lerp = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)  # numpy's _lerp, monotone in t
    return tuple(float(q) for q in np.where(a == b, a, lerp))


def bca_interval(values, estimate: float, accel: float, level: float) -> tuple[float, float]:
    """The BCa interval ``(lower, upper)`` of the replicates `values` (NaN left out) around `estimate`.

    ``z0 = Phi^-1(p)``, ``p = (#{values < estimate} + #{values == estimate} / 2) / B``, kept within
    ``[1 / 2B, 1 - 1 / 2B]`` so that an estimate outside the replicates gives the extreme replicate, not infinity;
    then the quantiles at the levels of the module docstring. A NaN `accel` counts as 0 (bias correction only).
    """
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if values.size == 0 or np.isnan(estimate):
        return np.nan, np.nan
    share = (np.sum(values < estimate) + 0.5 * np.sum(values == estimate)) / values.size
    share = np.clip(share, 0.5 / values.size, 1 - 0.5 / values.size)
    z0, a = ndtri(share), (0.0 if np.isnan(accel) else accel)
    z = z0 + ndtri(np.array([(1 - level) / 2, (1 + level) / 2]))
    lower, upper = _percentiles(values, 100 * ndtr(z0 + z / (1 - a * z)))
    return lower, upper


def acceleration(jackknife, strata) -> np.ndarray:
    """BCa's acceleration per column of `jackknife` (one row per left-out block, one column per metric), the rows'
    stratum in `strata`: the formula of the module docstring. NaN rows (a block whose removal leaves a class empty)
    are left out; 0 when the jackknife values do not vary."""
    jackknife, strata = np.asarray(jackknife, dtype=np.float64), np.asarray(strata)
    if jackknife.ndim == 1:
        return acceleration(jackknife[:, None], strata)[0]
    v = np.full_like(jackknife, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a metric NaN in every block of a stratum: left out
        for k in np.unique(strata):
            rows = jackknife[strata == k]
            m = np.sum(~np.isnan(rows), axis=0)  # the blocks with a value, per metric
            v[strata == k] = (m - 1) / m * (np.nanmean(rows, axis=0) - rows)
        accel = np.nansum(v ** 3, axis=0) / (6 * np.nansum(v ** 2, axis=0) ** 1.5)
    return np.where(np.isfinite(accel), accel, 0.0)


@dataclass(frozen=True)
class SmoothedKernel:
    """The shrunk Gaussian kernel estimate of one class's score density (Silverman & Young 1987): component i is
    ``N(m + (x_i - m) / c, (h / c)^2)`` with ``c = sqrt(1 + h^2 / s^2)``, so that its variance is the sample's
    ``s^2``; ``h = 0.9 min(s, IQR / 1.34) n^(-1/5)`` is Silverman's rule of thumb (1986, eq. 3.31), over the finite
    scores (an infinite score stays where it is; fewer than two finite scores, no spread, or a variance beyond the
    largest float, as scores of +-1e308 give: no smoothing)."""

    centres: np.ndarray = field(repr=False)
    width: float

    @classmethod
    def of(cls, scores) -> "SmoothedKernel":
        x = np.asarray(scores, dtype=np.float64)
        finite = x[np.isfinite(x)]
        with np.errstate(over="ignore", invalid="ignore"):
            s, m = (finite.std(ddof=1), finite.mean()) if finite.size > 1 else (0.0, 0.0)
        if not (s > 0 and np.isfinite(s) and np.isfinite(m)):  # no spread, or one beyond a float (+-1e308)
            return cls(x, 0.0)
        iqr = np.subtract(*np.percentile(finite, [75, 25]))
        h = 0.9 * (min(s, iqr / 1.34) if iqr > 0 else s) * finite.size ** -0.2
        c = np.sqrt(1 + (h / s) ** 2)
        with np.errstate(invalid="ignore"):
            return cls(np.where(np.isfinite(x), m + (x - m) / c, x), float(h / c))

    def draw(self, weights, normals) -> np.ndarray:
        """Scores drawn from the estimate: component i ``weights[i]`` times, each with its own standard normal."""
        return np.repeat(self.centres, weights) + self.width * normals

    def below(self, t: float) -> float:
        """The share of the estimated density below `t`: ``mean_i Phi((t - centre_i) / width)``."""
        if self.width == 0:
            return float(np.mean(self.centres < t))
        return float(np.mean(ndtr((t - self.centres) / self.width)))


@dataclass(frozen=True)
class SmoothedReplicates:
    """The smoothed bootstrap of a metric: its replicates, and its value on the kernel estimates (the truth of the
    smoothed bootstrap's world, which :func:`basic_interval` centres on)."""

    replicates: np.ndarray = field(repr=False)
    centre: float


def smoothed_min_dcf(tar: SmoothedKernel, non: SmoothedKernel, p_target: float, c_miss: float, c_fa: float) -> float:
    """The normalised minDCF of the kernel estimates (the minimum over a continuous threshold, found on a grid of 400
    thresholds and refined by Brent's method; never above 1, the cost of the better constant decision)."""
    w_miss, w_fa = p_target * c_miss, (1 - p_target) * c_fa

    def dcf(t):
        return (w_miss * tar.below(t) + w_fa * (1 - non.below(t))) / min(w_miss, w_fa)

    centres = np.concatenate([tar.centres, non.centres])
    centres, spread = centres[np.isfinite(centres)], 5 * max(tar.width, non.width)
    if centres.size == 0:
        return 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        grid = np.linspace(centres.min() - spread, centres.max() + spread, 400)
    if not np.isfinite(grid).all():  # scores of +-1e308: no even grid spans them; the scores themselves as thresholds
        grid = np.unique(centres)
    values = np.array([dcf(t) for t in grid])
    best = int(np.argmin(values))
    refined = minimize_scalar(dcf, bounds=(grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]),
                              method="bounded")
    return float(min(values[best], refined.fun, 1.0))


def smoothed_bootstrap(tar, non, draws_of_weights, rng, op, threads: int | None = None,
                       window: int | None = None) -> SmoothedReplicates:
    """The smoothed bootstrap of minDCF: for each replicate's ``(target weights, non-target weights)`` in
    `draws_of_weights`
    (drawn from `rng`), each drawn score moves to a draw of its component of the :class:`SmoothedKernel` of its class
    (standard normals from `rng` after the replicate's weights, targets first), and minDCF at the operating point
    `op` is computed from these new scores (sorted again: smoothing is not a re-weighting); a replicate left without
    a class gives NaN. The replicates are computed on `threads` threads (:func:`llrcore.parallel.ordered_map`)."""
    kernels = SmoothedKernel.of(tar), SmoothedKernel.of(non)
    weights = op.p_target * op.c_miss, (1 - op.p_target) * op.c_fa

    def draws():
        for drawn in draws_of_weights:
            yield drawn, [rng.standard_normal(int(w.sum())) for w in drawn]

    def replicate(drawn):
        (w_tar, w_non), (z_tar, z_non) = drawn
        if not (w_tar.any() and w_non.any()):
            return np.nan
        return empirical_min_dcf(kernels[0].draw(w_tar, z_tar), kernels[1].draw(w_non, z_non), *weights)

    values = np.fromiter(parallel.ordered_map(replicate, draws(), threads, window=window), dtype=np.float64)
    return SmoothedReplicates(values, smoothed_min_dcf(*kernels, op.p_target, op.c_miss, op.c_fa))


def empirical_min_dcf(tar: np.ndarray, non: np.ndarray, w_miss: float, w_fa: float) -> float:
    """``min_t (w_miss Pmiss(t) + w_fa Pfa(t)) / min(w_miss, w_fa)`` over every threshold below, between and above
    the distinct scores: :func:`llrcore.min_dcf` (a linear cost is least at a vertex of the ROC's convex hull, and
    every vertex is such a threshold) without the hull, which the smoothed replicates, new scores each time, do not
    need (one sort, two cumulative sums)."""
    misses, false_alarms = _errors_per_threshold(tar, non)
    return float(np.min(w_miss * misses / tar.size + w_fa * false_alarms / non.size) / min(w_miss, w_fa))


def min_dcf_errors(tar, non, w_miss: float, w_fa: float, *, counts=None) -> tuple[int, int]:
    """The misses and false alarms at the threshold of :func:`empirical_min_dcf` (the lowest such threshold);
    `counts` as in :func:`rests_on_few_errors`."""
    tar, non = np.asarray(tar, dtype=np.float64), np.asarray(non, dtype=np.float64)
    misses, false_alarms = _errors_per_threshold(tar, non) if counts is None else _errors_of_counts(*counts)
    best = int(np.argmin(w_miss * misses / tar.size + w_fa * false_alarms / non.size))
    return int(misses[best]), int(false_alarms[best])


def _errors_per_threshold(tar: np.ndarray, non: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Misses and false alarms at a threshold below every score, then just above each run of equal scores."""
    scores = np.concatenate([tar, non])
    order = np.argsort(scores)  # the order within a run of equal scores does not matter: only runs' ends count
    is_tar, ordered = order < tar.size, scores[order]
    cut = np.append(ordered[1:] != ordered[:-1], True)  # the last of each run of equal scores
    return np.append(0, np.cumsum(is_tar)[cut]), np.append(non.size, non.size - np.cumsum(~is_tar)[cut])


def run_counts(table) -> tuple[np.ndarray, np.ndarray]:
    """The targets and non-targets in each run of consecutive unique scores that holds one class (a unique score
    holding both is a run of its own) of the sorted scores `table` (:attr:`~llrcore.binary.rates.SortedScores.runs`).

    Counted per run, :func:`min_dcf_errors` finds the same errors as per unique score, from far fewer thresholds:
    with ``w_miss, w_fa > 0``, a threshold inside a run of targets costs more than the run's start (more misses, the
    same false alarms) and one inside a run of non-targets more than the run's end (more false alarms), so the lowest
    threshold of least cost lies between two runs, or below or above them all."""
    return np.diff(table.runs[0]), np.diff(table.runs[1])


def _errors_of_counts(tar_counts: np.ndarray, non_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_errors_per_threshold` from the classes' counts at each unique score (or run of them), in ascending
    order."""
    return (np.append(0, np.cumsum(tar_counts)),
            np.append(non_counts.sum(), non_counts.sum() - np.cumsum(non_counts)))


def bracket_interval(values, held_out, level: float, bounds=(0.0, 1.0)) -> tuple[float, float]:
    """The out-of-bag bracket of minDCF (module docstring): from the replicates' minDCF `values` and their
    out-of-bag costs `held_out` (NaN left out),

        [q_lo,  mean(held_out) + (q_hi - mean(values))]   within `bounds`,

    ``q`` the ``(1 -+ level) / 2`` percentiles of `values`."""
    values = np.asarray(values, dtype=np.float64)
    low, high = _percentiles(values, [50 * (1 - level), 50 * (1 + level)])
    upper = np.nanmean(held_out) + (high - np.nanmean(values))
    return float(np.clip(low, *bounds)), float(np.clip(upper, *bounds))


def basic_interval(values, estimate: float, centre: float, level: float, bounds=(0.0, 1.0)) -> tuple[float, float]:
    """The basic bootstrap interval (Davison & Hinkley 1997, eq. 5.6) of replicates drawn from a world whose truth is
    `centre`: ``(estimate - (q_hi - centre), estimate - (q_lo - centre))``, ``q`` the replicates' percentiles,
    within `bounds` (the values the metric can take: clipping never loses coverage)."""
    low, high = _percentiles(np.asarray(values, dtype=np.float64) - centre, [50 * (1 - level), 50 * (1 + level)])
    return float(np.clip(estimate - high, *bounds)), float(np.clip(estimate - low, *bounds))


class ReplicateIntervals:
    """What results with replicates per metric share (:class:`~llrcore.BootstrapResult`,
    :class:`~llrcore.SystemComparison`): the interval of a metric by their method. Subclasses give the replicates
    and the estimate of a metric, and the fields ``level``, ``method`` and ``acceleration`` (metric -> a); a
    bootstrap also the out-of-bag costs of minDCF (``held_out``), its smoothed replicates and how its minDCF interval
    is made by default (``min_dcf_method``: ``"bracket"``, ``"smoothed"``, or None for the run's ``method``)."""

    level: float
    method: str
    acceleration: dict | None
    smoothed: SmoothedReplicates | None = None
    held_out: np.ndarray | None = None
    min_dcf_method: str | None = None

    def _values(self, metric: str) -> np.ndarray:
        raise NotImplementedError

    def _estimate(self, metric: str) -> float:
        raise NotImplementedError

    def interval(self, metric: str, method: str | None = None) -> tuple[float, float]:
        """The interval ``(lower, upper)`` of `metric` (``"eer"``, ``"min_dcf"``, ...) by the result's :attr:`method`,
        or by `method` (``"percentile"`` for any result; ``"bca"`` needs a result drawn with ``method="bca"``;
        ``"bracket"`` and ``"smoothed"`` are for the minDCF of a bootstrap, the second drawn with ``smooth=True``)."""
        values, method = self._values(metric), method or self.metric_method(metric)
        if method == "bracket":
            if self.held_out is None or metric != "min_dcf":
                raise ValueError("The out-of-bag bracket is for the minDCF of a bootstrap run (lc.bootstrap).")
            return bracket_interval(values, self.held_out, self.level)
        if method == "smoothed":
            if self.smoothed is None or metric not in SMOOTHED_METRICS:
                raise ValueError("Smoothed-bootstrap intervals are for the minDCF of a bootstrap run with "
                                 "method='bca' and smooth=True.")
            return basic_interval(self.smoothed.replicates, self._estimate(metric), self.smoothed.centre, self.level)
        if check_method(method) == "percentile":
            return percentile_interval(values, self.level)
        if self.acceleration is None:
            raise ValueError("BCa intervals need the jackknife of a bootstrap run with method='bca'; this one was run "
                             "with method='percentile'.")
        return bca_interval(values, self._estimate(metric), self.acceleration[metric], self.level)

    def metric_method(self, metric: str) -> str:
        """How :meth:`interval` makes `metric`'s interval by default: the run's :attr:`method`, except for the minDCF
        of a bootstrap that says otherwise (:attr:`min_dcf_method`)."""
        if metric in SMOOTHED_METRICS and self.min_dcf_method is not None:
            return self.min_dcf_method
        return self.method

    @property
    def interval_words(self) -> str:
        """The intervals in words, e.g. ``"95 % BCa bootstrap interval"``."""
        return interval_words(self.level, self.method)
