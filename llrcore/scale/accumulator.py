"""Scores fed in batches, kept as counts per unique score: every binary metric of all the trials seen, in memory
bounded by the number of unique scores.

A training or evaluation loop gives :meth:`ScoreAccumulator.update` each batch's scores and labels; the batches are
buffered and, once they hold more than ``buffer_size`` trials, counted per unique score into a pending table. The
pending tables are merged into the counts kept so far (:func:`llrcore.binary.counts.merge_tables`, one sort) once they
hold more rows than those counts: each row is then merged a logarithmic number of times, where merging every
batch's counts into the whole table at once would take time quadratic in the number of unique scores (continuous
scores), and memory stays within about twice the unique scores seen plus the buffer. Accumulators of several processes merge the same way
(:meth:`ScoreAccumulator.merge`, ``a + b``), and :attr:`ScoreAccumulator.counts` is the
:class:`~llrcore.binary.counts.CountedScores` of every trial seen, whose metrics are those of the trials themselves
to the last bit.

Reference: N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech
and Language 20, 2006 (every metric is a function of the target and non-target counts at each unique score).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..binary.counts import CountedScores, merge_tables

__all__ = ["ScoreAccumulator"]

#: Trials buffered before they are counted (16 MB of scores and labels): a bound on memory beside the counts.
BUFFER_SIZE = 1 << 20

_EMPTY: tuple[np.ndarray, ...] = (np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))


class ScoreAccumulator:
    """Counts of target and non-target trials per unique score, fed batch by batch and mergeable across processes.

    Parameters
    ----------
    buffer_size : int
        Trials buffered before they are counted (keyword-only). Memory is at most about twice that of the unique
        scores seen (three numbers each) and that of this many buffered trials; no number depends on it.

    Attributes
    ----------
    counts : CountedScores
        Every trial seen, as counts per unique score (both classes must have been seen).
    n_tar, n_non : int
        Target and non-target trials seen.

    Notes
    -----
    Every binary metric is a function of the number of target and non-target trials at each unique score (Brümmer &
    du Preez 2006), and counts add: ``lc.eer(acc.counts)`` is the EER of all the trials seen, the same float as that
    of ``lc.Trials`` of them, and so are minDCF, actDCF, Cllr, minCllr, Cprimary and the DET. An accumulator pickles,
    so processes can send theirs to one that merges them (``sum(accumulators)`` works, ``0 + a`` being ``a``).

    References
    ----------
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech &
    Language 20(2-3), pp. 230-275, 2006: the ROC convex hull, PAV and Cllr of the counts at each score.

    Examples
    --------
    >>> acc = ScoreAccumulator()
    >>> acc.update([2.0, -1.0, 0.5], [True, False, False])
    >>> acc.update([1.5, 0.5], [1, 0])
    >>> acc.counts.to_frame()
       score  targets  non-targets
    0   -1.0        0            1
    1    0.5        0            2
    2    1.5        1            0
    3    2.0        1            0
    """

    def __init__(self, *, buffer_size: int = BUFFER_SIZE):
        if not (isinstance(buffer_size, (int, np.integer)) and buffer_size >= 0):
            raise ValueError(f"buffer_size must be a whole number of trials, 0 or more, not {buffer_size!r}.")
        self.buffer_size = int(buffer_size)
        self._table = _EMPTY
        self._pending: list[tuple[np.ndarray, ...]] = []
        self._buffer: list[tuple[np.ndarray, np.ndarray]] = []
        self._buffered = self.n_tar = self.n_non = 0

    def update(self, scores, labels) -> None:
        """Add a batch of trials.

        Parameters
        ----------
        scores : array_like of float
            The batch's scores (anything ``numpy.asarray`` takes: a list, an array, a CPU tensor; a tensor that
            requires grad must be detached first). ``+inf`` and ``-inf`` are scores; NaN is refused.
        labels : array_like of bool or {0, 1}
            ``True`` or ``1`` for a target trial, ``False`` or ``0`` for a non-target, one per score.

        Returns
        -------
        None
        """
        scores, labels = _batch(scores, labels)
        self._buffer.append((scores, labels))
        self._buffered += scores.size
        self.n_tar += int(labels.sum())
        self.n_non += scores.size - int(labels.sum())
        if self._buffered > self.buffer_size:
            self._compact()

    def add_counts(self, unique, tar_counts, non_counts) -> None:
        """Add a batch already counted per unique score (a block of pairs counted on a thread, say).

        Parameters
        ----------
        unique : array_like of float
            The batch's scores, each once (their order does not matter).
        tar_counts, non_counts : array_like of int
            Its target and non-target trials at each score.

        Returns
        -------
        None
        """
        table = _counted_batch(unique, tar_counts, non_counts)
        self._pending.append(table)
        self.n_tar += int(table[1].sum())
        self.n_non += int(table[2].sum())
        self._compact()

    def merge(self, other: ScoreAccumulator) -> ScoreAccumulator:
        """The trials of both accumulators in a new one (this one and `other` are left as they are).

        Parameters
        ----------
        other : ScoreAccumulator
            Another process's accumulator (e.g. unpickled).

        Returns
        -------
        ScoreAccumulator
            Counts of each score added over the two: exact, associative and commutative.
        """
        if not isinstance(other, ScoreAccumulator):
            raise ValueError(f"Only a ScoreAccumulator merges with a ScoreAccumulator, not a {type(other).__name__}.")
        merged = ScoreAccumulator(buffer_size=self.buffer_size)
        merged._table = merge_tables([self._compacted(), other._compacted()])
        merged.n_tar, merged.n_non = self.n_tar + other.n_tar, self.n_non + other.n_non
        return merged

    def __add__(self, other) -> ScoreAccumulator:
        return self.merge(other) if isinstance(other, ScoreAccumulator) else NotImplemented

    def __radd__(self, other) -> ScoreAccumulator:
        if isinstance(other, int) and other == 0:  # sum(accumulators) starts from 0
            return self
        return NotImplemented

    @property
    def counts(self) -> CountedScores:
        """Every trial seen, as a :class:`~llrcore.binary.counts.CountedScores` (every metric takes it)."""
        unique, tar_counts, non_counts = self._compacted()
        for total, what in ((tar_counts.sum(), "target"), (non_counts.sum(), "non-target")):
            if total == 0:
                raise ValueError(f"No {what} trial has been seen yet: metrics need both classes.")
        return CountedScores(unique, tar_counts, non_counts)

    def to_frame(self) -> pd.DataFrame:
        """One row per unique score seen: ``score``, ``targets``, ``non-targets``."""
        unique, tar_counts, non_counts = self._compacted()
        return pd.DataFrame({"score": unique, "targets": tar_counts, "non-targets": non_counts})

    def __repr__(self) -> str:
        return (f"ScoreAccumulator({self.n_tar:,} targets, {self.n_non:,} non-targets, "
                f"{self._compacted()[0].size:,} unique scores)")

    def _compacted(self) -> tuple[np.ndarray, ...]:
        """Every trial seen in one table (buffered and pending ones counted and merged)."""
        self._compact()
        if self._pending:
            self._table = merge_tables([self._table, *self._pending])
            self._pending = []
        return self._table

    def _compact(self) -> None:
        """Count the buffered trials per unique score into a pending table, and merge the pending tables into the
        table once they hold more rows than it (module notes)."""
        if self._buffer:
            scores = np.concatenate([batch for batch, _ in self._buffer])
            labels = np.concatenate([batch for _, batch in self._buffer])
            tar, tar_counts = np.unique(scores[labels], return_counts=True)
            non, non_counts = np.unique(scores[~labels], return_counts=True)
            self._pending.append(merge_tables([(tar, tar_counts, np.zeros_like(tar_counts)),
                                               (non, np.zeros_like(non_counts), non_counts)]))
            self._buffer, self._buffered = [], 0
        if sum(table[0].size for table in self._pending) > self._table[0].size:
            self._table = merge_tables([self._table, *self._pending])
            self._pending = []


def _batch(scores, labels) -> tuple[np.ndarray, np.ndarray]:
    """A batch as flat float64 scores (``-0.0`` read as ``0.0``) and boolean labels, or a sentence saying what is
    wrong with it."""
    try:
        scores = np.asarray(scores, dtype=np.float64).ravel() + 0.0
    except (TypeError, ValueError):
        raise ValueError("The scores must be numbers.") from None
    labels = np.asarray(labels).ravel()
    if scores.size != labels.size:
        raise ValueError(f"The batch has {scores.size} scores but {labels.size} labels: give one label per score.")
    if np.isnan(scores).any():
        raise ValueError(f"Score {int(np.argmax(np.isnan(scores)))} of the batch (from 0) is NaN: every score must "
                         "be a number.")
    if labels.dtype == bool:
        return scores, labels
    if labels.dtype.kind not in "iuf":
        raise ValueError("The labels must be True/False or 1/0 (target/non-target).")
    neither = (labels != 0) & (labels != 1)
    if neither.any():
        at = int(np.argmax(neither))
        raise ValueError(f"Label {labels[at].item()!r} (trial {at} of the batch, from 0) is neither class: give True "
                         "or 1 for a target, False or 0 for a non-target.")
    return scores, labels == 1


def _counted_batch(unique, tar_counts, non_counts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A counted batch as float64 scores (``-0.0`` read as ``0.0``) and int64 counts, or a sentence: the merge pairs
    the columns row by row, so columns of other lengths would shift every count after the shorter one's end."""
    scores, _ = _batch(unique, np.zeros(np.size(unique), dtype=bool))
    counts = [np.asarray(column).ravel() for column in (tar_counts, non_counts)]
    if any(column.size != scores.size for column in counts):
        raise ValueError(f"The batch has {scores.size} scores but {counts[0].size} target and {counts[1].size} "
                         "non-target counts: give one of each per score.")
    if any(column.dtype.kind not in "iu" or (column < 0).any() for column in counts):
        raise ValueError("The counts must be whole numbers of trials, 0 or more.")
    return scores, counts[0].astype(np.int64), counts[1].astype(np.int64)
