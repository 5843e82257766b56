"""Every binary metric from the number of target and non-target trials at each unique score.

A score file larger than memory is reduced, outside Python (:mod:`llrcore.io.out_of_core`, DuckDB's ``GROUP BY
score``), to one row per unique score with its two counts. That table is all the sorted engine needs: the rates
below any threshold are cumulative counts, the PAV runs over the unique scores, the DET has one point per unique
score. :class:`CountedScores` answers the questions of :class:`~llrcore.binary.rates.ScoreCounts` from it, with the
same numbers as :class:`~llrcore.binary.rates.SortedScores` built from the trials themselves:

- counts are integers, so the rates, the ROCCH, the EER, minDCF, actDCF, minCllr and the DET are the same floats;
- Cllr is a mean of one cost per trial. ``SortedScores`` takes ``numpy.mean`` of the costs of the sorted trials,
  which numpy sums pairwise (halves cut at a multiple of 8, blocks of at most 128 summed by 8 accumulators).
  :func:`repeated_sum` sums the costs repeated by their counts in exactly that order, materialising one block of at
  most :data:`LEAF` trials at a time, so Cllr is the same float too, in bounded memory.

Counts merge: the trials of two tables together are counted by adding each unique score's counts (``a + b``,
``sum(parts)``, :meth:`CountedScores.merge`), so a table built from the concatenated trials has the same unique scores
and counts, and every metric above is the same float as that of the concatenated trials.

Reference: numpy's ``pairwise_sum`` (numpy/_core/src/umath/loops_utils.h.src), which ``np.add.reduce`` of a
contiguous float64 array runs over the whole array; the tests hold the two sums equal.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .costs import cost_bits, mean_cost_bits
from .rates import ScoreCounts, SortedScores

__all__ = ["CountedScores", "merge_tables", "repeated_sum"]

#: Trials materialised at once when a sum over repeated values is taken (8 MB of float64).
LEAF = 1 << 20


class CountedScores(ScoreCounts):
    """Trials given as counts per unique score: every metric of :class:`~llrcore.binary.rates.ScoreCounts`.

    Parameters
    ----------
    unique : array_like of float
        The unique scores, strictly increasing, without NaN (``-0.0`` is read as ``0.0``).
    tar_counts, non_counts : array_like of int
        How many target and non-target trials have each score (non-negative; each class at least one in all).
    name : str
        A name for the trials (a file's stem).
    threads : int, optional
        Threads for the passes over the unique scores (no number depends on it).

    Notes
    -----
    Tables merge exactly: ``a + b`` holds each score of either with its target and non-target counts added, the
    table of the trials of both (Brümmer & du Preez 2006: every metric is a function of these counts), so its EER,
    minDCF, actDCF, Cllr, minCllr, Cprimary and DET are those of the concatenated trials, to the last bit.
    ``sum(parts)`` works too (``0 + a`` is ``a``), adding one part at a time; for many parts :meth:`merge` sorts all
    their scores once. The merged table keeps the parts' name when they all share one, else it has none.

    References
    ----------
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech and
    Language 20, 2006.

    Examples
    --------
    >>> CountedScores([0.0, 1.0, 2.0], [1, 0, 1], [0, 1, 0]).eer()  # the trials tar = [0, 2], non = [1]
    0.3333333333333333
    >>> (CountedScores([0.0, 1.0], [1, 0], [0, 1]) + CountedScores([1.0, 2.0], [0, 1], [1, 0])).to_frame()
       score  targets  non-targets
    0    0.0        1            0
    1    1.0        0            2
    2    2.0        1            0
    """

    def __init__(self, unique, tar_counts, non_counts, *, name: str = "", threads: int | None = None):
        unique = np.asarray(unique, dtype=np.float64) + 0.0  # -0.0 + 0.0 is 0.0
        tar_counts, non_counts = (np.asarray(c) for c in (tar_counts, non_counts))
        if unique.ndim != 1 or tar_counts.shape != unique.shape or non_counts.shape != unique.shape:
            raise ValueError("Give one target count and one non-target count per unique score (three arrays of the "
                             "same length).")
        if np.isnan(unique).any() or (unique.size > 1 and not (unique[1:] > unique[:-1]).all()):
            raise ValueError("The unique scores must be numbers in strictly increasing order.")
        for counts, what in ((tar_counts, "target"), (non_counts, "non-target")):
            if counts.dtype.kind not in "iu" or (counts < 0).any():
                raise ValueError(f"The {what} counts must be whole numbers, none negative.")
            if counts.sum() == 0:
                raise ValueError(f"There are no {what} trials: both classes are needed.")
        self.unique, self.name, self.threads = unique, name, threads
        self.tar_counts, self.non_counts = tar_counts.astype(np.int64), non_counts.astype(np.int64)
        self.n_tar, self.n_non = int(self.tar_counts.sum()), int(self.non_counts.sum())
        self._tar_cumulative = np.concatenate([[0], np.cumsum(self.tar_counts)])
        self._non_cumulative = np.concatenate([[0], np.cumsum(self.non_counts)])
        for array in (self.unique, self.tar_counts, self.non_counts):
            array.flags.writeable = False

    @classmethod
    def of(cls, table) -> CountedScores:
        """From any object with ``unique``, ``tar_counts``, ``non_counts`` (and ``name``): a reader's tally."""
        return cls(table.unique, table.tar_counts, table.non_counts, name=getattr(table, "name", ""))

    @classmethod
    def merge(cls, parts, *, name: str | None = None) -> CountedScores:
        """The trials of all the parts in one table: each unique score's counts added over the parts.

        Parameters
        ----------
        parts : iterable of CountedScores
            The tables to merge (at least one), e.g. the counts of a score file's pieces.
        name : str, optional
            The merged table's name; by default the parts' name when they all share one, else ``""``.

        Returns
        -------
        CountedScores
            ``unique`` the union of the parts' unique scores; ``tar_counts``, ``non_counts`` the sums of their
            counts (int64). Exact, associative and commutative: any grouping or order of the parts gives this table.
        """
        parts = list(parts)
        if not parts or not all(isinstance(part, CountedScores) for part in parts):
            raise ValueError("Give one or more CountedScores to merge.")
        if name is None:
            name = parts[0].name if all(part.name == parts[0].name for part in parts) else ""
        return cls(*merge_tables([(part.unique, part.tar_counts, part.non_counts) for part in parts]), name=name)

    def __add__(self, other) -> CountedScores:
        if not isinstance(other, CountedScores):
            return NotImplemented
        return CountedScores.merge([self, other])

    def __radd__(self, other) -> CountedScores:
        if isinstance(other, int) and other == 0:  # sum(parts) starts from 0
            return self
        return NotImplemented

    def __repr__(self) -> str:
        return (f"CountedScores({self.name!r}: {self.n_tar:,} targets, {self.n_non:,} non-targets, "
                f"{self.unique.size:,} unique scores)")

    def to_frame(self) -> pd.DataFrame:
        """One row per unique score: ``score``, ``targets``, ``non-targets`` (how many trials of each class have it)."""
        return pd.DataFrame({"score": self.unique, "targets": self.tar_counts, "non-targets": self.non_counts})

    def _tar_below(self, thresholds):
        return self._tar_cumulative[np.searchsorted(self.unique, thresholds, side="left")]

    def _non_below(self, thresholds):
        return self._non_cumulative[np.searchsorted(self.unique, thresholds, side="left")]

    # these read only unique, tar_counts, non_counts, the totals and threads: the same code as for sorted trials
    pav = SortedScores.__dict__["pav"]
    det_steps = SortedScores.det_steps
    pav_llr = SortedScores.pav_llr

    def cllr(self) -> float:
        """Cllr in bits of the scores taken as LLRs, the same float as for the trials themselves (module notes)."""
        tar_cost, non_cost = cost_bits(self.unique, self.unique)
        with np.errstate(over="ignore"):
            value = (repeated_sum(tar_cost, self.tar_counts) / self.n_tar
                     + repeated_sum(non_cost, self.non_counts) / self.n_non) / 2
        if np.isinf(value):  # a cost is infinite, or a sum overflowed: summed without overflow (as cllr_bits)
            value = (mean_cost_bits(self.unique, -1, weights=self.tar_counts, total=self.n_tar)
                     + mean_cost_bits(self.unique, 1, weights=self.non_counts, total=self.n_non))
        return float(value)


def repeated_sum(values: np.ndarray, counts: np.ndarray) -> float:
    """``np.sum(np.repeat(values, counts))`` to the last bit, holding at most :data:`LEAF` repeated values at once.

    numpy sums ``n`` values pairwise: the first ``n2 = n // 2 - (n // 2) % 8`` and the rest separately, down to blocks
    it sums directly; a block of at most ``LEAF`` values summed by ``np.add.reduce(block, initial=0.0)`` gives the
    value numpy's recursion gives it (adding 0.0 first changes no sum of non-negative costs). A stretch of one value
    repeated ``n`` times sums to the same float wherever it lies, so it is summed once per value and length: the work
    grows with the number of values times ``log(n)``, not with the counts (10^10 trials in a few unique scores).
    """
    present = counts > 0
    values, counts = values[present], counts[present]
    ends = np.cumsum(counts)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(_pairwise(values, ends, 0, int(ends[-1]) if ends.size else 0, {}))


def _pairwise(values: np.ndarray, ends: np.ndarray, start: int, n: int, uniform: dict) -> float:
    """numpy's pairwise sum of the repeated values at positions ``start .. start + n - 1``; `uniform` keeps the sums
    of each value repeated, by the value's index and the length."""
    first = int(np.searchsorted(ends, start, side="right"))
    if n > 0 and ends[first] >= start + n:  # one value repeated
        return _uniform_sum(values[first], n, uniform.setdefault(first, {}))
    if n <= LEAF:
        last = int(np.searchsorted(ends, start + n - 1, side="right")) + 1
        counts = np.diff(np.clip(ends[first:last], start, start + n), prepend=start)
        return np.add.reduce(np.repeat(values[first:last], counts), initial=0.0)
    half = _first_half(n)
    return _pairwise(values, ends, start, half, uniform) + _pairwise(values, ends, start + half, n - half, uniform)


def _uniform_sum(value: float, n: int, sums: dict) -> float:
    """numpy's pairwise sum of `value` repeated `n` times, kept in `sums` by length (the recursion meets few)."""
    if n not in sums:
        if n <= LEAF:
            sums[n] = np.add.reduce(np.full(n, value), initial=0.0)
        else:
            half = _first_half(n)
            sums[n] = _uniform_sum(value, half, sums) + _uniform_sum(value, n - half, sums)
    return sums[n]


def _first_half(n: int) -> int:
    """The length of the first part of numpy's pairwise split of `n` values."""
    half = n // 2
    return half - half % 8


def merge_tables(tables) -> tuple[np.ndarray, ...]:
    """Tables ``(unique, tar_counts, non_counts)``, each sorted by score, merged into one: ``(unique, tar_counts,
    non_counts)`` with each score once and its counts (int64) added; scores no trial has are left out. Tables of more
    count columns (a reader's counts per label word) merge the same way, column by column.

    One concatenation and one sort of all the tables' scores, not one merge per table (which makes ``k`` tables cost
    ``k`` passes over the growing result): numpy's stable sort of float64 is timsort, which finds the ``k`` sorted
    runs and merges them, ``O(n log k)`` for ``n`` scores in all. Tied scores are then adjacent and their counts are
    summed in integers, so the result does not depend on the tables' order or grouping.
    """
    unique = np.concatenate([np.asarray(table[0], dtype=np.float64) for table in tables]) + 0.0  # -0.0 is 0.0
    order = np.argsort(unique, kind="stable")
    unique = unique[order]
    counts = [np.concatenate([np.asarray(table[column], dtype=np.int64) for table in tables])[order]
              for column in range(1, len(tables[0]))]
    if unique.size == 0:
        return (unique, *counts)
    starts = np.flatnonzero(np.concatenate([[True], unique[1:] != unique[:-1]]))
    summed = [np.add.reduceat(column, starts) for column in counts]
    seen = np.logical_or.reduce([column > 0 for column in summed])
    return (unique[starts][seen], *(column[seen] for column in summed))
