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

Reference: numpy's ``pairwise_sum`` (numpy/_core/src/umath/loops_utils.h.src), which ``np.add.reduce`` of a
contiguous float64 array runs over the whole array; the tests hold the two sums equal.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .costs import cost_bits, mean_cost_bits
from .rates import ScoreCounts, SortedScores

__all__ = ["CountedScores", "counted_reader", "repeated_sum"]

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

    Examples
    --------
    >>> CountedScores([0.0, 1.0, 2.0], [1, 0, 1], [0, 1, 0]).eer()
    0.4
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
    value numpy's recursion gives it (adding 0.0 first changes no sum of non-negative costs).
    """
    present = counts > 0
    values, counts = values[present], counts[present]
    ends = np.cumsum(counts)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(_pairwise(values, ends, 0, int(ends[-1]) if ends.size else 0))


def _pairwise(values: np.ndarray, ends: np.ndarray, start: int, n: int) -> float:
    """numpy's pairwise sum of the repeated values at positions ``start .. start + n - 1``."""
    if n <= LEAF:
        first = int(np.searchsorted(ends, start, side="right"))
        last = int(np.searchsorted(ends, start + n - 1, side="right")) + 1
        counts = np.diff(np.clip(ends[first:last], start, start + n), prepend=start)
        return np.add.reduce(np.repeat(values[first:last], counts), initial=0.0)
    half = n // 2
    half -= half % 8
    return _pairwise(values, ends, start, half) + _pairwise(values, ends, start + half, n - half)


def counted_reader(reader, name: str = "read_counts"):
    """A reader of counts per unique score (returning an object :meth:`CountedScores.of` takes) made into one that
    returns :class:`CountedScores`: the public ``read_counts`` is ``counted_reader`` of the io layer's counting
    reader (the io layer does not import the engines)."""
    import functools
    import inspect

    @functools.wraps(reader)
    def read(*args, **kwargs) -> CountedScores:
        return CountedScores.of(reader(*args, **kwargs))

    read.__name__ = read.__qualname__ = name
    # the reader's parameters, this one's return (the signature shown follows __wrapped__ otherwise)
    setattr(read, "__signature__", inspect.signature(reader).replace(  # noqa: B010 - mypy: a function has none
        return_annotation="CountedScores"))
    return read
