"""NIST's equalised costs (SRE16-SRE21): trials weighted so that every partition of them weighs alike, their error
rates counted exactly (:func:`~llrcore.cprimary` with ``partition_by``).

References
----------
NIST 2016 Speaker Recognition Evaluation Plan (the primary cost equalised over partitions of the trials).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..data.trials import Trials
from .rates import ReweightedScores, SortedScores

__all__ = ["EqualisedScores", "equalised"]


def equalised(trials, non_llr, partition_by) -> EqualisedScores:
    """The trials re-weighted so that each partition's targets, and its non-targets, weigh 1 in all: a trial's
    weight is the sum over the partitions it is in of ``1 / (number of trials of its class there)``."""
    if not isinstance(trials, Trials) or non_llr is not None:
        raise TypeError("Give one Trials with metadata to equalise the cost over partitions, not two arrays.")
    n_tar, n_scored = trials.tar.size, len(trials)
    weights = np.zeros(n_scored)
    tar_parts, non_parts = [], []
    for values, mask in trials.partitions(partition_by):
        mask = mask[:n_scored]
        counts = mask[:n_tar].sum(), mask[n_tar:].sum()
        if min(counts) == 0:
            described = ", ".join(f"{c}={v}" for c, v in values.items())
            raise ValueError(f"The partition {described} has trials of one class only; every partition needs "
                             "targets and non-targets for an equalised cost.")
        weights[:n_tar] += mask[:n_tar] / counts[0]
        weights[n_tar:] += mask[n_tar:] / counts[1]
        tar_parts.append(np.sort(trials.tar[mask[:n_tar]]))
        non_parts.append(np.sort(trials.non[mask[n_tar:]]))
    table = trials.sorted
    order = table.trial_order(trials.tar, trials.non)
    return EqualisedScores(table, weights[:n_tar][order[0]], weights[n_tar:][order[1]], tar_parts, non_parts)


class EqualisedScores(ReweightedScores):
    """Trials weighted so that every partition weighs alike (:func:`cprimary` with ``partition_by``), whose error
    rates are counted exactly: ``Pmiss(t) = (1/K) sum_p (targets of p below t) / (targets of p)`` summed as fractions
    of whole counts (a sum of float weights ``1 / n_p`` drifts by many ulps over thousands of trials). The PAV runs on
    the float weights; the rates of the vertex it picks are counted exactly too."""

    def __init__(self, table: SortedScores, tar_weights, non_weights, tar_parts, non_parts):
        super().__init__(table, tar_weights, non_weights)
        self._tar_parts, self._non_parts = tar_parts, non_parts

    def miss_rate(self, thresholds) -> np.ndarray:
        """``(1/K) sum_p Pmiss_p(t)``, each threshold's value rounded once from the exact fraction."""
        return _mean_fraction(self._tar_parts, thresholds, below=True)

    def false_alarm_rate(self, thresholds) -> np.ndarray:
        """``(1/K) sum_p Pfa_p(t)``, each threshold's value rounded once from the exact fraction."""
        return _mean_fraction(self._non_parts, thresholds, below=False)

    def min_rates(self, plo) -> tuple[np.ndarray, np.ndarray]:
        """The exact rates at the threshold of the PAV vertex that :meth:`ScoreCounts.min_rates` picks: the first
        score of that block (above every score for the block past the last: nothing accepted)."""
        j = np.searchsorted(self.pav.llr, -np.asarray(plo, dtype=np.float64), side="left")
        table, (tar_start, non_start) = self._table, self._table.runs
        first_tar = np.append(table.tar, np.inf)[tar_start[self.pav.first]]
        first_non = np.append(table.non, np.inf)[non_start[self.pav.first]]
        thresholds = np.append(np.minimum(first_tar, first_non), np.nan)  # NaN: above every score
        return self.miss_rate(thresholds[j]), self.false_alarm_rate(thresholds[j])


def _mean_fraction(parts: list[np.ndarray], thresholds, *, below: bool) -> np.ndarray:
    """For each threshold ``t``, ``(1/K) sum_p`` (share of partition p's sorted scores below ``t``, or at or above it
    with ``below=False``), summed exactly as fractions; a NaN threshold lies above every score."""
    thresholds = np.asarray(thresholds, dtype=np.float64)
    counts = [np.where(np.isnan(thresholds), part.size, np.searchsorted(part, thresholds, side="left"))
              for part in parts]
    out = np.empty(thresholds.shape)
    for index in np.ndindex(thresholds.shape):
        total = sum(Fraction(int(count[index]) if below else part.size - int(count[index]), part.size)
                    for part, count in zip(parts, counts))
        out[index] = float(total / len(parts))
    return out
