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

from functools import cached_property

import numpy as np

from .. import parallel
from .._deprecation import holds_both_classes
from .._moved import left_for
from ..data.checks import as_scores
from ..prior import sigmoid
from .costs import cllr_bits, cost_bits, mean_cost_bits, softplus_bits
from .merge import ScoreMerge
from .pav import PAVBlocks, fraction_runs, pav_blocks, pav_of_runs

__all__ = ["ReweightedScores", "ScoreCounts", "SortedScores"]

#: Cllr's cost kernels (:mod:`.costs`) and PAV (:mod:`.pav`) lived here until issue 42: a name of theirs not imported
#: above still answers here for one release, with a DeprecationWarning.
__getattr__ = left_for("binary.rates")


@holds_both_classes
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
    @property
    def pav(self) -> PAVBlocks:
        raise NotImplementedError  # each kind's, computed once

    def _tar_below(self, thresholds) -> np.ndarray:
        raise NotImplementedError  # each kind counts its own way (so below)

    def _non_below(self, thresholds) -> np.ndarray:
        raise NotImplementedError

    def _cut_before(self, blocks: PAVBlocks, j: int) -> tuple[int, int]:
        raise NotImplementedError

    def cllr(self) -> float:
        raise NotImplementedError

    def det_steps(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

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

    n_tar: int  # counts of trials (a ReweightedScores' totals are weights)
    n_non: int

    def __init__(self, tar, non, *, threads: int | None = None):
        self.threads = None if threads is None else parallel.thread_count(threads)
        tar, non = as_scores(tar, "target scores"), as_scores(non, "non-target scores")
        merge = ScoreMerge(tar.size + non.size)
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
        # The costs of a table that keeps them (a bootstrap's, :attr:`costs`) are not worked out again.
        return cllr_bits(self.tar, self.non, threads=self.threads, costs=self.__dict__.get("costs"))

    @cached_property
    def pav(self) -> PAVBlocks:
        """The PAV blocks (computed once, on first use)."""
        runs = fraction_runs(self.tar_counts, self.non_counts, self.threads)
        return pav_of_runs(*runs, self.n_tar, self.n_non)

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
        has_tar = self.tar_counts > 0
        mixed = has_tar & (self.non_counts > 0)
        starts = np.empty(has_tar.size, dtype=bool)
        starts[0] = True
        np.not_equal(has_tar[1:], has_tar[:-1], out=starts[1:])
        starts[1:] |= mixed[1:]
        starts[1:] |= mixed[:-1]
        # The trials below each run's first score, by binary search of the few run starts (not running sums of all
        # the unique scores' counts: two passes and two copies as long as all the scores).
        first_score = self.unique[np.flatnonzero(starts)]
        return (np.append(np.searchsorted(self.tar, first_score, "left"), self.n_tar),
                np.append(np.searchsorted(self.non, first_score, "left"), self.n_non))

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
        self._table = table
        self._tar, self._non = _ClassWeights(tar_weights, table, 0), _ClassWeights(non_weights, table, 1)
        self._tar_weights, self._non_weights = self._tar.weights, self._non.weights
        self._tar_cumulative, self._non_cumulative = self._tar.cumulative, self._non.cumulative
        self.n_tar, self.n_non = self._tar_cumulative[-1], self._non_cumulative[-1]
        if not (self.n_tar > 0 and self.n_non > 0):
            raise ValueError("Both classes need trials: the weights leave no target or no non-target trial.")

    def _tar_below(self, thresholds):
        return self._tar_cumulative[np.searchsorted(self._table.tar, thresholds, side="left")]

    def _non_below(self, thresholds):
        return self._non_cumulative[np.searchsorted(self._table.non, thresholds, side="left")]

    def cllr(self) -> float:
        """Cllr in bits, each class's mean cost weighted by the trials' weights."""
        miss, fa = self._tar.cost, self._non.cost
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
        return pav_blocks(run_tar, run_non, self.n_tar, self.n_non)


class _ClassWeights:
    """One class's trial weights, in the order of its sorted scores, with what a re-weighting by them reads: their
    running sum and (on first use) their weighted sum of Cllr's costs.

    Parameters
    ----------
    weights : ndarray
        How many times each trial counts.
    table : SortedScores
        The sorted scores.
    k : int
        The class: 0 for the targets, 1 for the non-targets.
    """

    def __init__(self, weights: np.ndarray, table: SortedScores, k: int):
        self.weights, self._table, self._k = weights, table, k
        self.cumulative = _cumulative(weights)

    @cached_property
    def cost(self) -> float:
        """``sum(weights * cost)`` of Cllr's costs (:attr:`SortedScores.costs`; :func:`_weighted_sum`)."""
        return _weighted_sum(self.weights, self._table.costs[self._k])


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
    """``[0, w0, w0 + w1, ...]``: the weight below each sorted position, and the total last; in int64 for whole
    counts (exact: every rate, PAV block and cost divided by them is that of their float64 values, which these
    integers are below 2**53; summed straight into the result, half the time of summing then casting to float64),
    else in float64."""
    whole = weights.dtype.kind in "iub"
    below = np.empty(weights.size + 1, dtype=np.int64 if whole else np.float64)
    below[0] = 0
    np.cumsum(weights, out=below[1:], dtype=below.dtype)
    return below


def _weighted_sum(weights: np.ndarray, cost: np.ndarray) -> float:
    """``sum(weights * cost)`` where a zero weight of an infinite cost adds nothing (not NaN); inf when the sum
    overflows (:meth:`ReweightedScores.cllr` then sums without overflow)."""
    with np.errstate(invalid="ignore", over="ignore"):
        total = parallel.dot(weights, cost)
        if np.isnan(total):
            total = np.where(weights > 0, weights * cost, 0.0).sum()
    return total
