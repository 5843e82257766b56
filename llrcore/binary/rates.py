"""Sorted-score machinery: sort once, PAV once, answer many questions.

:class:`SortedScores` sorts the target and non-target scores, merges them into one table of unique scores with
per-score class counts (a block of tied scores is never split), and runs the pool-adjacent-violators algorithm
(PAV, scipy's C++ ``isotonic_regression``) once, lazily. From that one object come:

- miss and false-alarm rates at any thresholds (the actual operating points of LLRs),
- the step DET (one point per unique score) and the ROC convex hull (ROCCH) DET,
- the ROCCH-EER, the minimum Bayes error rate at any number of priors, and minCllr,
- the PAV-optimal (oracle) LLR of every score.

Conventions (DESIGN.md): a trial is accepted as a target when ``score >= threshold``, so
``Pmiss(t) = P(score < t | target)`` and ``Pfa(t) = P(score >= t | non-target)``.

References
----------
N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", CSL 20, 2006 (PAV, ROCCH,
minCllr). The PYLLR ``PAV`` object (N. Brümmer) answers the same questions from one PAV.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.optimize import isotonic_regression

from .. import parallel
from ..data.checks import as_scores
from ..prior import sigmoid

__all__ = ["ReweightedScores", "ScoreCounts", "SortedScores", "PAVBlocks", "sigmoid", "softplus", "softplus_bits",
           "cllr_bits", "mean_cost_bits"]


def softplus(x):
    """``log(1 + exp(x))`` without overflow: ``softplus(inf) = inf``, ``softplus(-inf) = 0``."""
    return np.logaddexp(0.0, np.asarray(x, dtype=np.float64))


def softplus_bits(x):
    """``log2(1 + e^x)``: the cost of an LLR in bits, computed in base 2 so that an LLR of 0 costs exactly 1 bit."""
    with np.errstate(over="ignore"):  # |x| near the largest float: x / ln 2 is inf, and so is the cost
        return np.logaddexp2(0.0, np.asarray(x, dtype=np.float64) / np.log(2))


def cllr_bits(tar_llr: np.ndarray, non_llr: np.ndarray, *, threads: int | None = None) -> float:
    """``(mean_tar log2(1 + e^-l) + mean_non log2(1 + e^l)) / 2``: Cllr in bits of validated LLR arrays.

    Finite costs give a finite Cllr whenever it is below the largest float, even when one cost in bits (an LLR beyond
    about 1.2e308) or a sum of costs is not, and whatever infinite LLRs that cost nothing (a target's ``+inf``, a
    non-target's ``-inf``) lie beside them: the costs are then summed without overflow (:func:`mean_cost_bits`). The
    costs are computed on `threads` threads (:mod:`llrcore.parallel`), each mean over the whole array at once, so the
    value does not depend on their number.
    """
    tar_cost, non_cost = cost_bits(tar_llr, non_llr, threads=threads)
    with np.errstate(over="ignore"):
        value = (tar_cost.mean() + non_cost.mean()) / 2
    if np.isinf(value):  # a cost is infinite, or a sum of costs overflowed
        value = mean_cost_bits(tar_llr, -1) + mean_cost_bits(non_llr, 1)
    return float(value)


def mean_cost_bits(llr: np.ndarray, sign: int, plo: float = 0.0, weights=None, total=None) -> float:
    """``P_class * mean log2(1 + e^(sign (l + plo)))`` over one class's LLRs without overflow: what the target
    (``sign = -1``, ``P_class = sigmoid(plo)``) or non-target (``sign = 1``, ``P_class = sigmoid(-plo)``) trials add to
    the empirical cross-entropy at prior log-odds `plo`, or to Cllr at ``plo = 0``.

    Each cost is taken in nats at half scale, ``softplus(x) / 2`` with ``x / 2 = sign (l / 2 + plo / 2)`` (finite for
    a finite LLR even where ``l + plo`` is not; ``softplus(x) = x`` to the last bit for ``x > 40``), and the mean is
    ``top * mean(cost / top)`` with ``top`` the largest half cost, so no sum can overflow, and the prior multiplies
    ``top`` before it can underflow (:func:`_prior_times`). The result is infinite only when it is beyond the largest
    float, or when an LLR is infinite on the costly side (whatever the prior: it is never 0 at a finite `plo`).
    `weights` (summing to `total`) count each LLR a number of times; an LLR of weight 0 adds nothing, even an
    infinite one.
    """
    llr = np.asarray(llr, dtype=np.float64)
    if weights is not None:
        counted = weights > 0
        llr, weights = llr[counted], weights[counted]
    half = sign * (llr / 2 + plo / 2)
    if half.size == 0:
        return 0.0
    if np.isposinf(half).any():
        return np.inf
    with np.errstate(over="ignore"):  # 2 * half overflows only where half > 20, and that branch is not taken
        half_cost = np.where(half > 20, half, softplus(2 * half) / 2)
    top = half_cost.max()
    if top == 0:
        return 0.0
    ratio = half_cost / top
    mean = ratio.mean() if weights is None else parallel.dot(weights, ratio) / total
    with np.errstate(over="ignore"):  # beyond the largest float: inf is the answer
        return float(_prior_times(-sign * plo, top) * (mean * (2 / np.log(2))))


def _prior_times(x: float, value: float) -> float:
    """``sigmoid(x) * value`` for a positive `value`, also where the prior ``sigmoid(x)`` is below the smallest
    float: there (``x < -700``) it is ``e^x`` to the last bit, applied as ``e^a e^a e^(x - 2a)`` with ``a = trunc(x /
    3)`` (``x - 2a`` is exact), the largest factor first, so that ``value`` shrinks without underflow on the way."""
    if x >= -700:
        return float(sigmoid(x)) * value
    a = math.trunc(x / 3)
    return value * math.exp(a) * math.exp(a) * math.exp(x - 2 * a)


def cost_bits(tar_llr: np.ndarray, non_llr: np.ndarray, *, threads: int | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Cllr's cost in bits of each target LLR, ``log2(1 + e^-l)``, and each non-target LLR, ``log2(1 + e^l)``
    (:func:`softplus_bits` element by element, on `threads` threads)."""
    tar_llr, non_llr = (np.asarray(x, dtype=np.float64) for x in (tar_llr, non_llr))
    return (parallel.elementwise(_miss_cost_bits, np.empty(tar_llr.size), tar_llr, threads=threads),
            parallel.elementwise(_false_alarm_cost_bits, np.empty(non_llr.size), non_llr, threads=threads))


def _miss_cost_bits(llr, out):
    """``softplus_bits(-llr)`` into `out`, operation by operation as :func:`softplus_bits` does it."""
    with np.errstate(over="ignore"):
        np.negative(llr, out=out)
        np.divide(out, np.log(2), out=out)
        return np.logaddexp2(0.0, out, out=out)


def _false_alarm_cost_bits(llr, out):
    """``softplus_bits(llr)`` into `out`."""
    with np.errstate(over="ignore"):
        np.divide(llr, np.log(2), out=out)
        return np.logaddexp2(0.0, out, out=out)


@dataclass(frozen=True)
class PAVBlocks:
    """The PAV solution as blocks of consecutive unique scores sharing one optimal LLR.

    Attributes
    ----------
    first : ndarray of int
        Index (into :attr:`SortedScores.unique`) of the first unique score of each block, increasing.
    n_tar, n_non : ndarray of int
        Number of target / non-target trials in each block.
    llr : ndarray of float
        Optimal LLR of each block, ``log(n_tar/N_tar) - log(n_non/N_non)``; non-decreasing, may be +-inf.
    tar_below, non_below : ndarray of int
        Number of target / non-target trials in the blocks before each block (length ``len(first) + 1``; the last
        entry is the class total). These give the ROCCH vertices.
    """

    first: np.ndarray
    n_tar: np.ndarray
    n_non: np.ndarray
    llr: np.ndarray
    tar_below: np.ndarray
    non_below: np.ndarray


class ScoreCounts:
    """What every metric answers from: how many (or how much weight of the) target and non-target trials lie below
    any threshold, and the PAV blocks. Two kinds: :class:`SortedScores` (the scores, sorted once) and
    :class:`ReweightedScores` (the same scores with each trial counted a given number of times: a bootstrap
    replicate, or trials weighted per partition), which answer the same questions.

    Subclasses set ``n_tar`` and ``n_non`` (the classes' totals) and give ``_tar_below(t)`` and ``_non_below(t)``
    (the count strictly below each threshold), ``pav`` and ``cllr()``.
    """

    n_tar: float
    n_non: float

    # ----- actual rates at given thresholds -------------------------------------------------------------------
    def miss_rate(self, thresholds) -> np.ndarray:
        """``Pmiss(t)``: fraction of target scores strictly below each threshold."""
        return self._tar_below(thresholds) / self.n_tar

    def false_alarm_rate(self, thresholds) -> np.ndarray:
        """``Pfa(t)``: fraction of non-target scores at or above each threshold, counted from the top so that a
        small rate keeps all its digits."""
        return _above(self._non_below(thresholds), self.n_non)

    def actual_bayes_error(self, plo) -> np.ndarray:
        """Bayes error rate of the scores taken as LLRs, at prior log-odds `plo` (threshold ``-plo``).

        ``Pe(plo) = sigmoid(plo) Pmiss(-plo) + sigmoid(-plo) Pfa(-plo)``.
        """
        plo = np.asarray(plo, dtype=np.float64)
        return sigmoid(plo) * self.miss_rate(-plo) + sigmoid(-plo) * self.false_alarm_rate(-plo)

    # ----- what the PAV answers -------------------------------------------------------------------------------
    def rocch(self) -> tuple[np.ndarray, np.ndarray]:
        """Vertices ``(pfa, pmiss)`` of the ROC convex hull, from ``(1, 0)`` to ``(0, 1)``."""
        blocks = self.pav
        return _above(blocks.non_below, self.n_non), blocks.tar_below / self.n_tar

    def eer(self) -> float:
        """ROCCH-EER: where the ROC convex hull crosses ``Pmiss = Pfa`` (exact segment intersection)."""
        pfa, pmiss = self.rocch()
        j = int(np.argmax(pmiss >= pfa))  # first vertex on or past the diagonal; vertex 0 is (1, 0)
        if pmiss[j] == pfa[j]:
            return float(pmiss[j])
        # Segment from vertex j-1 (pmiss < pfa) to j (pmiss > pfa): solve pfa(s) = pmiss(s) for s in (0, 1).
        d_fa, d_miss = pfa[j] - pfa[j - 1], pmiss[j] - pmiss[j - 1]
        s = (pfa[j - 1] - pmiss[j - 1]) / (d_miss - d_fa)
        return float(pmiss[j - 1] + s * d_miss)

    def min_rates(self, plo) -> tuple[np.ndarray, np.ndarray]:
        """``(Pmiss, Pfa)`` of the Bayes decisions made with the PAV-optimal LLRs at prior log-odds `plo`.

        These minimise ``sigmoid(plo) Pmiss + sigmoid(-plo) Pfa`` over all thresholds (a ROCCH vertex).
        """
        blocks = self.pav
        j = np.searchsorted(blocks.llr, -np.asarray(plo, dtype=np.float64), side="left")
        return blocks.tar_below[j] / self.n_tar, _above(blocks.non_below[j], self.n_non)

    def min_cut(self, plo: float) -> tuple[int, int]:
        """Where the decisions of :meth:`min_rates` at prior log-odds `plo` cut the sorted target and non-target
        scores: how many of each lie below the threshold (trials of any weight, so that trials a bootstrap replicate
        did not draw can be scored at that threshold: :func:`~llrcore.bootstrap`'s out-of-bag minDCF)."""
        blocks = self.pav
        return self._cut_before(blocks, int(np.searchsorted(blocks.llr, -plo, side="left")))

    def min_bayes_error(self, plo) -> np.ndarray:
        """Minimum Bayes error rate at prior log-odds `plo`: the Bayes error of the PAV-optimal LLRs."""
        plo = np.asarray(plo, dtype=np.float64)
        pmiss, pfa = self.min_rates(plo)
        return sigmoid(plo) * pmiss + sigmoid(-plo) * pfa

    def min_cllr(self) -> float:
        """minCllr in bits: the Cllr of the PAV-optimal LLRs (blocks without a class contribute nothing)."""
        blocks = self.pav
        with np.errstate(invalid="ignore"):
            miss_cost = np.where(blocks.n_tar > 0, blocks.n_tar * softplus_bits(-blocks.llr), 0.0).sum()
            fa_cost = np.where(blocks.n_non > 0, blocks.n_non * softplus_bits(blocks.llr), 0.0).sum()
        return float((miss_cost / self.n_tar + fa_cost / self.n_non) / 2)


class SortedScores(ScoreCounts):
    """Target and non-target scores sorted once, with the PAV and ROCCH computed on demand.

    Parameters
    ----------
    tar, non : array_like
        Target and non-target scores (any real scores for the minimum/ROC quantities; LLRs for the actual ones).
    threads : int, optional
        Threads for the sort and every later pass over all the scores (:func:`~llrcore.parallel.thread_count`:
        by default the limit in force, ``LLRCORE_THREADS``, or every CPU). No number depends on it.

    Notes
    -----
    :attr:`tar` and :attr:`non` are ``np.sort`` of the scores, with ``-0.0`` read as ``0.0`` (a tie of zeros then
    sorts the same way on any number of threads; no metric tells the two apart).

    Examples
    --------
    >>> s = SortedScores([0.0, 1.0, 2.0], [1.0])
    >>> s.eer()
    0.4
    """

    def __init__(self, tar, non, *, threads: int | None = None):
        self.threads = None if threads is None else parallel.thread_count(threads)
        tar, non = as_scores(tar, "target scores"), as_scores(non, "non-target scores")
        merge = _Merge(tar.size + non.size)
        # Each value range of the parallel sort merges its own targets and non-targets (a tie lies in one range)
        # into its place among all the scores: its targets and non-targets below it come before it.
        (self.tar, self.non), _ = parallel.sort_classes([tar, non], self.threads, ranges=merge.range)
        self.n_tar = self.tar.size
        self.n_non = self.non.size
        self.unique, self.tar_counts, self.non_counts = merge.counts(self.threads)
        for array in (self.tar, self.non, self.unique, self.tar_counts, self.non_counts):
            array.flags.writeable = False

    def _tar_below(self, thresholds):
        return np.searchsorted(self.tar, thresholds, side="left")

    def _non_below(self, thresholds):
        return np.searchsorted(self.non, thresholds, side="left")

    def cllr(self) -> float:
        """Cllr in bits of the scores taken as LLRs: ``(mean_tar softplus(-l) + mean_non softplus(l)) / (2 ln 2)``."""
        return cllr_bits(self.tar, self.non, threads=self.threads)

    @cached_property
    def pav(self) -> PAVBlocks:
        """The PAV blocks (computed once, on first use)."""
        runs = _fraction_runs(self.tar_counts, self.non_counts, self.threads)
        return _pav_of_runs(*runs, self.n_tar, self.n_non)

    def _cut_before(self, blocks: PAVBlocks, j: int) -> tuple[int, int]:
        return int(blocks.tar_below[j]), int(blocks.non_below[j])  # unweighted: counts below are positions

    def det_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """Step DET: ``(pfa, pmiss)`` at each unique score as threshold, then above the largest one.

        Returns ``K + 1`` points from ``(1, 0)`` to ``(0, 1)``, where ``K`` is the number of unique scores.
        """
        size = self.unique.size + 1
        pfa = parallel.cumulative(self.non_counts, np.empty(size), _fraction_above(self.n_non), self.threads)
        pmiss = parallel.cumulative(self.tar_counts, np.empty(size), _fraction_below(self.n_tar), self.threads)
        return pfa, pmiss

    def pav_llr(self, scores) -> np.ndarray:
        """PAV-optimal LLR of each given score (each must be one of the scores this object was built from)."""
        unique_index = np.searchsorted(self.unique, scores, side="left")
        return self.pav.llr[np.searchsorted(self.pav.first, unique_index, side="right") - 1]

    # ----- re-weighting, for the bootstrap and for partitions weighed alike ------------------------------------
    @cached_property
    def runs(self) -> tuple[np.ndarray, np.ndarray]:
        """The runs of consecutive unique scores that hold one class only (a unique score holding both is a run of
        its own), as ``(tar_start, non_start)``: where each run begins, and the last run ends, in :attr:`tar` and
        in :attr:`non`. PAV pools each such run first, whatever the weights of its trials."""
        mixed = (self.tar_counts > 0) & (self.non_counts > 0)
        starts = np.concatenate([[True], (self.tar_counts[1:] > 0) != (self.tar_counts[:-1] > 0)])
        starts[1:] |= mixed[1:] | mixed[:-1]
        first = np.flatnonzero(starts)
        return (np.append(np.cumsum(np.concatenate([[0], self.tar_counts]))[first], self.n_tar),
                np.append(np.cumsum(np.concatenate([[0], self.non_counts]))[first], self.n_non))

    @cached_property
    def costs(self) -> tuple[np.ndarray, np.ndarray]:
        """Cllr's cost in bits of each sorted target score, ``log2(1 + e^-l)``, and non-target score,
        ``log2(1 + e^l)``."""
        return cost_bits(self.tar, self.non, threads=self.threads)

    def trial_order(self, tar, non) -> tuple[np.ndarray, np.ndarray]:
        """For the target and non-target scores given in their own (unsorted) order — the scores this object was
        built from — the position in that order of each score of :attr:`tar` and :attr:`non`: weights given per
        trial in the original order are put in sorted order with it (one argsort per class)."""
        return np.argsort(tar), np.argsort(non)  # tied scores share a run and a cost: their order does not matter

    def reweighted(self, tar_weights: np.ndarray, non_weights: np.ndarray, *, order=None) -> "ReweightedScores":
        """The same scores with each trial counted `weight` times: one bootstrap replicate, without sorting.

        Parameters
        ----------
        tar_weights, non_weights : ndarray
            How many times each target / non-target trial counts (0 leaves it out), in sorted order (that of
            :attr:`tar` and :attr:`non`), or in the order that `order` picks them from.
        order : (ndarray, ndarray), optional
            For each sorted target and non-target, the index of its weight (e.g. :meth:`trial_order`, for weights
            in the original order of the scores).
        """
        if order is not None:
            tar_weights, non_weights = tar_weights[order[0]], non_weights[order[1]]
        return ReweightedScores(self, tar_weights, non_weights)


class ReweightedScores(ScoreCounts):
    """Sorted scores with each trial counted a number of times (non-negative, not necessarily whole): every metric
    of the weighted trials, from cumulative weights per class and PAV over the one-class runs.

    Made by :meth:`SortedScores.reweighted`; nothing is sorted again and no array as long as all the unique scores
    is made, so a bootstrap replicate costs about two passes over the trials.
    """

    def __init__(self, table: SortedScores, tar_weights: np.ndarray, non_weights: np.ndarray):
        self._table, self._tar_weights, self._non_weights = table, tar_weights, non_weights
        self._tar_cumulative, self._non_cumulative = _cumulative(tar_weights), _cumulative(non_weights)
        self.n_tar, self.n_non = self._tar_cumulative[-1], self._non_cumulative[-1]
        if not (self.n_tar > 0 and self.n_non > 0):
            raise ValueError("Both classes need trials: the weights leave no target or no non-target trial.")

    def _tar_below(self, thresholds):
        return self._tar_cumulative[np.searchsorted(self._table.tar, thresholds, side="left")]

    def _non_below(self, thresholds):
        return self._non_cumulative[np.searchsorted(self._table.non, thresholds, side="left")]

    def cllr(self) -> float:
        """Cllr in bits, each class's mean cost weighted by the trials' weights."""
        tar_cost, non_cost = self._table.costs
        miss, fa = _weighted_sum(self._tar_weights, tar_cost), _weighted_sum(self._non_weights, non_cost)
        with np.errstate(over="ignore"):
            value = (miss / self.n_tar + fa / self.n_non) / 2
        if np.isinf(value):  # a drawn cost is infinite, or a weighted sum overflowed (as cllr_bits)
            value = (mean_cost_bits(self._table.tar, -1, weights=self._tar_weights, total=self.n_tar)
                     + mean_cost_bits(self._table.non, 1, weights=self._non_weights, total=self.n_non))
        return float(value)

    def _cut_before(self, blocks: PAVBlocks, j: int) -> tuple[int, int]:
        tar_start, non_start = self._table.runs  # block j's first run begins the cut; past the last block, the ends
        run = blocks.first[j] if j < blocks.first.size else tar_start.size - 1
        return int(tar_start[run]), int(non_start[run])

    @cached_property
    def pav(self) -> PAVBlocks:
        """The PAV blocks over the one-class runs (``first`` indexes the runs)."""
        tar_start, non_start = self._table.runs
        run_tar = np.diff(self._tar_cumulative[tar_start])
        run_non = np.diff(self._non_cumulative[non_start])
        return _pav_blocks(run_tar, run_non, self.n_tar, self.n_non)


def _above(below, total):
    """``(total - below) / total``: the fraction at or above, counted from the top (``1 - below / total`` loses the
    digits of a small fraction)."""
    return (total - below) / total


def _fraction_above(total):
    """``out = (total - below) / total`` (:func:`_above`) as a chunk-wise map."""
    def above(below, out):
        np.subtract(total, below, out=out)
        return np.divide(out, total, out=out)
    return above


def _fraction_below(total):
    """``out = below / total`` as a chunk-wise map."""
    def fraction(below, out):
        return np.divide(below, total, out=out)
    return fraction


def _cumulative(weights: np.ndarray) -> np.ndarray:
    """``[0, w0, w0 + w1, ...]`` in float64: the weight below each sorted position, and the total last."""
    below = np.empty(weights.size + 1)
    below[0] = 0.0
    np.cumsum(weights, out=below[1:])
    return below


def _weighted_sum(weights: np.ndarray, cost: np.ndarray) -> float:
    """``sum(weights * cost)`` where a zero weight of an infinite cost adds nothing (not NaN); inf when the sum
    overflows (:meth:`ReweightedScores.cllr` then sums without overflow)."""
    with np.errstate(invalid="ignore", over="ignore"):
        total = parallel.dot(weights, cost)
        if np.isnan(total):
            total = np.where(weights > 0, weights * cost, 0.0).sum()
    return total


class _Merge:
    """The target and non-target scores merged into one sorted array, value range by value range, then counted per
    unique score (:meth:`counts`).

    Each range inserts its targets by binary search into its non-targets (linear, no argsort), so the class of every
    merged position is known without a second sort, and marks where a new score begins (a range's first score always
    does: ranges are cut between different values).
    """

    def __init__(self, size: int):
        self.merged = np.empty(size)
        self.is_tar = np.zeros(size, dtype=bool)
        self.new = np.empty(size, dtype=bool)

    def range(self, pieces, starts) -> None:
        """Merge one value range's sorted targets and non-targets (``pieces``) into its place."""
        tar, non = pieces
        at = starts[0] + starts[1]
        n = tar.size + non.size
        merged, is_tar, new = self.merged[at:at + n], self.is_tar[at:at + n], self.new[at:at + n]
        is_tar[np.searchsorted(non, tar, side="left") + np.arange(tar.size)] = True
        merged[is_tar] = tar
        merged[~is_tar] = non
        new[:1] = True
        np.not_equal(merged[1:], merged[:-1], out=new[1:])

    def counts(self, threads: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unique scores with their target and non-target counts. Without ties (continuous scores) every merged
        score is unique and its counts are its class."""
        n = self.merged.size
        if self.new.all():
            tar_counts, non_counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)

            def one_each(a: int, b: int) -> None:
                np.copyto(tar_counts[a:b], self.is_tar[a:b])
                np.subtract(1, tar_counts[a:b], out=non_counts[a:b])

            parallel.over_chunks(one_each, n, threads)
            return self.merged, tar_counts, non_counts
        starts = np.flatnonzero(self.new)
        tar_counts = np.add.reduceat(self.is_tar, starts, dtype=np.int64)
        non_counts = np.diff(starts, append=n)  # each unique score's trials, less its targets in place
        return self.merged[starts], tar_counts, np.subtract(non_counts, tar_counts, out=non_counts)


def _fraction_runs(tar_counts: np.ndarray, non_counts: np.ndarray, threads: int | None):
    """The runs of consecutive unique scores with the same target fraction, as ``(first, run_tar, run_total)``:
    where each run begins and how many target and all trials it holds (PAV pools each run whatever it does).

    Chunk by chunk on `threads` threads, each chunk reading the score before it to see whether a run begins at its
    first score; a run that crosses into later chunks gets their counts added (integers: the same whatever the
    chunks).
    """
    bounds = parallel.chunk_bounds(tar_counts.size)
    spans = list(zip(bounds[:-1], bounds[1:]))

    def chunk(span):
        a, b = span
        low = max(a - 1, 0)
        tar, total = tar_counts[low:b], tar_counts[low:b] + non_counts[low:b]
        fraction = tar / total
        first = np.flatnonzero(fraction[1:] != fraction[:-1]) + 1
        if a == 0:
            first = np.concatenate([[0], first])
        head = first[0] if first.size else total.size  # scores before the chunk's first run: the last run's tail
        skip = a - low
        carry = tar[skip:head].sum(), total[skip:head].sum()
        if not first.size:
            return first + low, first, first, carry
        return (first + low, np.add.reduceat(tar[head:], first - head), np.add.reduceat(total[head:], first - head),
                carry)

    parts = parallel.map_tasks(chunk, spans, parallel.workers_for(tar_counts.size, threads))
    first = np.concatenate([part[0] for part in parts])
    run_tar = np.concatenate([part[1] for part in parts]).astype(np.int64, copy=False)
    run_total = np.concatenate([part[2] for part in parts]).astype(np.int64, copy=False)
    before = np.cumsum([part[0].size for part in parts])
    for k in range(1, len(parts)):  # chunk k's leading scores continue the last run begun before it
        run_tar[before[k - 1] - 1] += parts[k][3][0]
        run_total[before[k - 1] - 1] += parts[k][3][1]
    return first, run_tar, run_total


def _pav_blocks(tar_counts, non_counts, n_tar, n_non) -> PAVBlocks:
    """Run PAV on the per-unique-score (or per-run) target fractions, weighted by the number of trials.

    Runs of consecutive scores with the same target fraction always end up in one PAV block, so they are pooled
    first: with untied scores this shrinks the input from all scores to the number of class changes. An entry
    that carries no weight (a bootstrap replicate that did not draw it) joins the run before it.
    """
    totals = tar_counts + non_counts
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = tar_counts / totals
    runs = np.flatnonzero(np.concatenate([[True], fraction[1:] != fraction[:-1]]))  # NaN != NaN: empty entries
    run_tar = np.add.reduceat(tar_counts, runs)
    run_total = np.add.reduceat(totals, runs)
    weighed = run_total > 0
    if not weighed.all():
        runs, run_tar, run_total = runs[weighed], run_tar[weighed], run_total[weighed]
        runs[0] = 0
    return _pav_of_runs(runs, run_tar, run_total, n_tar, n_non)


def _pav_of_runs(runs, run_tar, run_total, n_tar, n_non) -> PAVBlocks:
    """PAV over runs of scores (``runs``: where each begins) holding `run_tar` targets of `run_total` trials."""
    fit = isotonic_regression(run_tar / run_total, weights=run_total, increasing=True)
    block_tar = np.add.reduceat(run_tar, fit.blocks[:-1])
    block_non = np.add.reduceat(run_total, fit.blocks[:-1]) - block_tar
    with np.errstate(divide="ignore"):
        llr = np.log(block_tar / n_tar) - np.log(block_non / n_non)
    return PAVBlocks(
        first=runs[fit.blocks[:-1]],
        n_tar=block_tar,
        n_non=block_non,
        llr=llr,
        tar_below=np.concatenate([[0], np.cumsum(block_tar)]),
        non_below=np.concatenate([[0], np.cumsum(block_non)]),
    )
