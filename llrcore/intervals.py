"""Confidence intervals from bootstrap replicates: BCa (the default) and percentile, and the grouped jackknife that
gives BCa its acceleration.

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
and one block at a time is left out, by giving its trials the weight 0 (the trials are re-weighted, never sorted
again). A delete-one jackknife would cost one evaluation per trial; blocks give the same acceleration for smooth
metrics at a cost of 40 evaluations per stratum (80 for targets and non-targets), and delete-d jackknives are the
ones that stay consistent for non-smooth statistics such as quantiles (Shao & Wu 1989). The blocks of stratum k are
dealt by ``numpy.random.default_rng([seed, 1, k])``, streams apart from the replicates' draws.

References
----------
B. Efron, "Better bootstrap confidence intervals", JASA 82, 1987. B. Efron and R. J. Tibshirani, *An Introduction to
the Bootstrap*, Chapman & Hall, 1993 (ch. 13-14). J. Shao and C. F. J. Wu, "A general theory for jackknife variance
estimation", Annals of Statistics 17, 1989.

Measured coverage
-----------------
Nominal 95 % intervals on calibrated Gaussian LLRs, 300 targets + 3,000 non-targets, 400 samples x 1,000 replicates
(``bench/bench_bootstrap_coverage.py``, bench/RESULTS.md), at EER 7.9 % / 2.3 %: BCa covers the true EER in 94.0 % /
93.8 % of samples (percentile 91.5 % / 88.5 %), Cllr in 95.0 % / 92.2 % (94.2 % / 91.8 %), and minDCF at P_target
0.01 in 85.2 % / 83.8 % (67.5 % / 63.0 %). Of percentile, BC, BCa and basic, BCa covers best, or within 0.2 points
of the best, in every case; but no resampling of the same trials reaches 95 % for that minDCF: it rests on about
four false alarms (the rule of 30), and the minimum over thresholds is about three times as optimistic as its
replicates show.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = ["DEFAULT_METHOD", "INTERVAL_METHODS", "ReplicateIntervals", "acceleration", "bca_interval", "check_method",
           "interval_words", "jackknife_blocks", "percentile_interval"]

#: Interval methods -> their name in words.
INTERVAL_METHODS = {"bca": "BCa", "percentile": "percentile"}
DEFAULT_METHOD = "bca"
"""The method that covers best (``bench/bench_bootstrap_coverage.py``, in bench/RESULTS.md)."""

JACKKNIFE_BLOCKS = 40
"""Blocks per stratum of the grouped jackknife (fewer when the stratum has fewer trials or groups)."""


def check_method(method: str) -> str:
    """`method` if it is one of :data:`INTERVAL_METHODS`, else a ValueError with a sentence."""
    if method not in INTERVAL_METHODS:
        raise ValueError(f"The interval method must be one of {', '.join(map(repr, INTERVAL_METHODS))}, "
                         f"not {method!r}.")
    return method


def interval_words(level: float, method: str) -> str:
    """``"95 % BCa bootstrap interval"``."""
    return f"{100 * level:g} % {INTERVAL_METHODS[method]} bootstrap interval"


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
    return _percentiles(values, 100 * ndtr(z0 + z / (1 - a * z)))


def jackknife_blocks(n: int, seed: int, stratum: int = 0, blocks: int = JACKKNIFE_BLOCKS) -> np.ndarray:
    """The block (0 to ``min(n, blocks) - 1``) of each of `n` units of one stratum, dealt at random in equal shares
    (sizes differ by at most one) by ``numpy.random.default_rng([seed, 1, stratum])``."""
    m = max(1, min(n, blocks))
    return np.random.default_rng([seed, 1, stratum]).permutation(n) % m


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


class ReplicateIntervals:
    """What results with replicates per metric share (:class:`~llrcore.BootstrapResult`,
    :class:`~llrcore.SystemComparison`): the interval of a metric by their method. Subclasses give the replicates
    and the estimate of a metric, and the fields ``level``, ``method`` and ``acceleration`` (metric -> a)."""

    level: float
    method: str
    acceleration: dict | None

    def _values(self, metric: str) -> np.ndarray:
        raise NotImplementedError

    def _estimate(self, metric: str) -> float:
        raise NotImplementedError

    def interval(self, metric: str, method: str | None = None) -> tuple[float, float]:
        """The interval ``(lower, upper)`` of `metric` (``"eer"``, ``"min_dcf"``, ...) by the result's :attr:`method`,
        or by `method` (``"percentile"`` for any result; ``"bca"`` needs a result drawn with ``method="bca"``)."""
        values, method = self._values(metric), check_method(method or self.method)
        if method == "percentile":
            return percentile_interval(values, self.level)
        if self.acceleration is None:
            raise ValueError("BCa intervals need the jackknife of a bootstrap run with method='bca'; this one was run "
                             "with method='percentile'.")
        return bca_interval(values, self._estimate(metric), self.acceleration[metric], self.level)

    @property
    def interval_words(self) -> str:
        """The intervals in words, e.g. ``"95 % BCa bootstrap interval"``."""
        return interval_words(self.level, self.method)
