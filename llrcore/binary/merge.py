"""The parallel merge of sorted target and non-target scores into one table of unique scores with their class counts
(:class:`ScoreMerge`), what :class:`~llrcore.binary.rates.SortedScores` is built from.

:func:`llrcore.parallel.sort_classes` sorts each class by value ranges on the pool's threads; each range then merges
its own targets into its non-targets in place (a tie lies in one range), and :meth:`ScoreMerge.counts` counts each
unique score's trials per class.
"""
from __future__ import annotations

import numpy as np

from .. import parallel

__all__ = ["ScoreMerge"]


class ScoreMerge:
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
