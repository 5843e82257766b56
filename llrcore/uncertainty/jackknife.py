"""The grouped jackknife of BCa's acceleration without re-weighting: each left-out block's metrics from what the
block holds, worked out once, on the scores sorted once.

Leaving block J out gives its trials the weight 0 and every other trial the weight 1
(:mod:`llrcore.uncertainty.draws` deals the blocks). A metric that is, per class, a mean of per-trial costs follows in
closed form from the block's sums (Efron & Tibshirani 1993, ch. 11: the jackknife of a mean needs no recomputation).
Cllr, with ``c_i`` Cllr's cost in bits of trial i, ``S`` a class's sum of costs over its blocks, ``s_J`` the sum over
block J's trials of that class and ``N``, ``n_J`` their numbers:

    Cllr_(J) = ( (S_tar - s_tar,J) / (N_tar - n_tar,J) + (S_non - s_non,J) / (N_non - n_non,J) ) / 2,

with ``S - s_J`` taken as the sum of the other blocks' sums (costs are never negative: no cancellation); the actual
DCF and Cprimary, whose per-trial costs are a miss or a false alarm at a fixed threshold t, count the same way:
``misses_(J)(t) = #{targets < t} - #{block J's targets < t}``, the second by a binary search of the block's sorted
positions. The rank metrics (EER, minDCF, minCllr) need PAV again: each of the table's one-class runs
(:attr:`~llrcore.binary.rates.SortedScores.runs`) keeps its trials less the block's, and PAV runs over the runs;
nothing is sorted again and no pass over all the trials is made per block.

The numbers are those of re-weighting the table by the block's weights
(:meth:`~llrcore.binary.rates.SortedScores.reweighted`, :class:`~llrcore.binary.rates.ReweightedScores`): the same
whole counts, so the same PAV and the same rates to the last bit; Cllr to rounding (a sum of block sums in place of a
weighted sum of all the costs).

Reference
---------
B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993 (ch. 11, ch. 14).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from ..binary.costs import mean_cost_bits
from ..binary.pav import PAVBlocks, pav_blocks
from ..binary.rates import ScoreCounts, SortedScores
from .draws import block_members

__all__ = ["BlockJackknife", "LeftOutScores"]


class BlockJackknife:
    """The leave-one-block-out jackknife of one set of sorted trials: each block's trials per class, the classes'
    runs and per-block cost sums, made once for every block.

    Parameters
    ----------
    table : SortedScores
        The sorted trials.
    labels : (ndarray, ndarray)
        The block (0 to ``n_blocks - 1``) of each target and each non-target trial, in the order of the draws
        (:meth:`~llrcore.uncertainty.draws.Draws.block_labels`).
    n_blocks : int
    order : (ndarray, ndarray), optional
        For each sorted target and non-target, the index of its label (:meth:`SortedScores.trial_order`); None when
        the labels follow the sorted scores already.
    """

    def __init__(self, table: SortedScores, labels, n_blocks: int, order=None):
        self.table, self.n_blocks = table, n_blocks
        if order is not None:
            labels = [class_labels[class_order] for class_labels, class_order in zip(labels, order)]
        self.members = [block_members(class_labels, n_blocks) for class_labels in labels]
        self.kept_costs = [_sums_of_the_others(np.array([cost[members].sum() for members in class_members]))
                           for cost, class_members in zip(table.costs, self.members)]
        self.run_counts = [np.diff(starts) for starts in table.runs]
        # The run of each sorted trial of each class, so that a block's trials are counted per run in one bincount.
        self.run_of = [np.repeat(np.arange(counts.size, dtype=np.min_scalar_type(counts.size)), counts)
                       for counts in self.run_counts]

    def __len__(self) -> int:
        return self.n_blocks

    def left_out(self, j: int) -> LeftOutScores | None:
        """The trials without block `j`; None when that leaves a class without trials (its metrics are NaN)."""
        out = [class_members[j] for class_members in self.members]
        if out[0].size == self.table.n_tar or out[1].size == self.table.n_non:
            return None
        return LeftOutScores(self, j)


class LeftOutScores(ScoreCounts):
    """Sorted trials with one jackknife block left out (module docstring): the rates, Cllr and PAV of
    :class:`~llrcore.binary.rates.ReweightedScores` for the weights 0 in the block and 1 elsewhere, from the block's
    trials alone."""

    def __init__(self, jackknife: BlockJackknife, j: int):
        self._jackknife, self._j = jackknife, j
        self._tar_out, self._non_out = (class_members[j] for class_members in jackknife.members)
        self.n_tar = jackknife.table.n_tar - self._tar_out.size
        self.n_non = jackknife.table.n_non - self._non_out.size

    def _tar_below(self, thresholds):
        below = np.searchsorted(self._jackknife.table.tar, thresholds, side="left")
        return below - np.searchsorted(self._tar_out, below, side="left")

    def _non_below(self, thresholds):
        below = np.searchsorted(self._jackknife.table.non, thresholds, side="left")
        return below - np.searchsorted(self._non_out, below, side="left")

    def cllr(self) -> float:
        """Cllr in bits: each class's sum of costs over the other blocks, over its trials left."""
        miss, fa = (kept_costs[self._j] for kept_costs in self._jackknife.kept_costs)
        with np.errstate(over="ignore"):
            value = (miss / self.n_tar + fa / self.n_non) / 2
        if np.isinf(value):  # a kept cost is infinite, or a sum overflowed: summed without overflow (as cllr_bits)
            table = self._jackknife.table
            value = (mean_cost_bits(table.tar, -1, weights=self._kept(0), total=self.n_tar)
                     + mean_cost_bits(table.non, 1, weights=self._kept(1), total=self.n_non))
        return float(value)

    def _kept(self, k: int) -> np.ndarray:
        """The weight of each sorted trial of class `k`: 0 in the block, 1 elsewhere."""
        scores, out = ((self._jackknife.table.tar, self._tar_out), (self._jackknife.table.non, self._non_out))[k]
        kept = np.ones(scores.size)
        kept[out] = 0
        return kept

    @cached_property
    def pav(self) -> PAVBlocks:
        """The PAV blocks over the one-class runs, each run's trials less the block's."""
        jackknife = self._jackknife
        run_tar, run_non = (
            counts - np.bincount(run_of[out], minlength=counts.size) if out.size else counts
            for counts, run_of, out in zip(jackknife.run_counts, jackknife.run_of, (self._tar_out, self._non_out)))
        return pav_blocks(run_tar, run_non, self.n_tar, self.n_non)


def _sums_of_the_others(sums: np.ndarray) -> np.ndarray:
    """``sum_{i != j} sums_i`` for each j, as the sum of the blocks before j plus that of the blocks after it (costs
    are never negative: no cancellation, and an infinite cost counts only where its block is kept)."""
    with np.errstate(over="ignore", invalid="ignore"):
        before = np.concatenate([[0.0], np.cumsum(sums)[:-1]])
        after = np.concatenate([np.cumsum(sums[::-1])[::-1][1:], [0.0]])
        return before + after
