"""Every bootstrap draw and every jackknife block of llrcore, in one place, with the exact order of the random numbers
so that a resampling from scratch can repeat them.

A bootstrap replicate draws the data again with replacement (Efron & Tibshirani 1993, ch. 6): with ``rng =
numpy.random.default_rng(seed)``, a :class:`Draws` over strata of sizes ``n_0, n_1, ...`` (the classes, which every
replicate keeps at their numbers) draws, replicate after replicate, in one of two ways.

**Units one by one** (stratified, Efron & Tibshirani 1993, sec. 8.3): per replicate, ``rng.integers(0, n_k, n_k)``
for each stratum ``k`` in turn; draw ``i`` of stratum ``k`` is that stratum's unit ``i`` and a unit counts as often as
it was drawn (``np.bincount(drawn, minlength=n_k)``). :func:`~llrcore.bootstrap` has two strata, the targets then the
non-targets, indexing the sorted scores (``np.sort(trials.tar)``, ``np.sort(trials.non)``);
:func:`~llrcore.compare_systems` indexes them in the order of ``Trials.tar`` and ``Trials.non`` of system A;
:func:`~llrcore.bootstrap_tdcf` has five, the CM's bona fide and spoofed trials then the ASV's targets, non-targets and
spoofs, each sorted ascending. :func:`~llrcore.smooth_ece` has one, the forecasts in the order given (each replicate's
weights re-weight relplot's kernel sums).

**Whole groups, in two levels** (``group_by``; Davison & Hinkley 1997, sec. 3.8, strategy 2), so that units that share
a speaker are not taken for independent ones: the groups are numbered in order of first appearance over the units of
stratum 0, then of stratum 1, ...; per replicate, ``rng.integers(0, G, G)`` draws G of the G groups with replacement,
then each drawn group's own units are drawn again with replacement, as many as it has, by one call
``rng.integers(0, n[rep])`` with ``rep = np.repeat(drawn, n[drawn])`` (``n`` the groups' numbers of units); a draw
``j`` of group ``g`` is its ``j``-th unit in that order, and a unit counts as often as it was drawn. A replicate can
leave a stratum without units (its caller gives NaN).

The random numbers are drawn by :meth:`Draws.replicates`, in the calling thread and in the serial order above;
turning them into weights (:meth:`Draws.weights`) needs no generator, so replicates can do it on any thread and no
number depends on the number of threads. :attr:`Draws.rng` stays available to a caller that draws more from the same
stream between the replicates' draws (the smoothed bootstrap of minDCF, :mod:`llrcore.uncertainty.intervals`).

**Jackknife blocks** (BCa's acceleration, :mod:`llrcore.uncertainty.intervals`): a grouped (delete-d) jackknife leaves
out one block of units at a time by giving it the weight 0 (Efron & Tibshirani 1993, ch. 11 and 14; Shao & Wu 1989).
The ``n`` units of stratum ``k`` are dealt at random into ``m = max(1, min(n, 40))`` blocks of equal shares (sizes
differ by at most one): unit ``i`` is in block ``default_rng([seed, 1, k]).permutation(n)[i] % m``
(:func:`jackknife_blocks`), a stream apart from the replicates'. :meth:`Draws.jackknife` leaves out the blocks of
stratum 0 in turn, then those of stratum 1, ...; with whole groups, the groups are dealt into blocks as one stratum
(``k = 0``).

**Recordings' counts, multinomial** (:func:`multinomial_counts`, the recording-level bootstrap of DER and JER of
:mod:`llrcore.diarization.bootstrap`): ``rng.multinomial(R, [1/R] * R, size=n)`` gives how often each of R recordings
is drawn in each of ``n`` replicates, all at once. It is the same distribution as R draws of
``rng.integers(0, R, R)`` counted by ``np.bincount``, but another stream of numbers, kept so that the numbers of those
intervals stay what they were.

Not here: the consistency band of the CORP reliability diagram (:mod:`llrcore.multiclass.corp`) draws outcomes
``y* ~ Bernoulli(p)`` from the forecasts themselves, a simulation under the hypothesis of calibration, not a
resampling of the data.

References
----------
B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993 (ch. 6, sec. 8.3, ch. 11,
ch. 14). A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their Application*, Cambridge University Press, 1997
(sec. 3.8). J. Shao and C. F. J. Wu, "A general theory for jackknife variance estimation", Annals of Statistics 17,
1989.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property

import numpy as np
import pandas as pd

from ..data.trials import Trials

__all__ = ["JACKKNIFE_BLOCKS", "Draws", "block_members", "jackknife_blocks", "multinomial_counts"]

JACKKNIFE_BLOCKS = 40
"""Blocks per stratum of the grouped jackknife (fewer when the stratum has fewer units or groups)."""


def jackknife_blocks(n: int, seed, stratum: int = 0, blocks: int = JACKKNIFE_BLOCKS) -> np.ndarray:
    """The block of each of `n` units of one stratum, dealt at random in equal shares.

    Parameters
    ----------
    n : int
        Units (trials or groups) of the stratum.
    seed : int or sequence of int
        The run's seed.
    stratum : int
        The stratum's place in the draws.
    blocks : int
        The most blocks.

    Returns
    -------
    ndarray of int
        ``default_rng([seed, 1, stratum]).permutation(n) % m`` with ``m = max(1, min(n, blocks))``: blocks 0 to
        ``m - 1``, whose sizes differ by at most one. Made as ``arange(n) % m`` shuffled by that generator, which
        moves the entries as the permutation's shuffle moves ``arange(n)`` (the same swaps: they depend on `n` only),
        in the smallest integer type (8 times less memory to swap in than the permutation's int64).
    """
    m = _block_count(n, blocks)
    labels = (np.arange(n) % m).astype(np.min_scalar_type(m - 1))
    np.random.default_rng([seed, 1, stratum]).shuffle(labels)
    return labels


def _block_count(n: int, blocks: int = JACKKNIFE_BLOCKS) -> int:
    return max(1, min(n, blocks))


def block_members(labels: np.ndarray, n_blocks: int) -> list[np.ndarray]:
    """The units of each block ``0, ..., n_blocks - 1``, ascending, from the block of every unit (`labels`): one
    stable sort of the labels, a radix sort of small integers (no pass over all the units per block)."""
    labels = labels.astype(np.min_scalar_type(max(n_blocks - 1, 0)), copy=False)
    ends = np.cumsum(np.bincount(labels, minlength=n_blocks))
    return np.split(np.argsort(labels, kind="stable"), ends[:-1])


def multinomial_counts(n_units: int, n: int, seed) -> np.ndarray:
    """How many times each of `n_units` units is drawn in each of `n` replicates (module docstring).

    Parameters
    ----------
    n_units : int
        Units drawn whole (recordings).
    n : int
        Replicates, at least 1.
    seed : int or sequence of int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    ndarray of float, shape (n, n_units)
        ``rng.multinomial(n_units, [1 / n_units] * n_units, size=n)``: each row sums to `n_units`.

    Raises
    ------
    ValueError
        For `n` below 1.
    """
    if n < 1:
        raise ValueError(f"The number of bootstrap replicates must be at least 1, not {n}.")
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n).astype(np.float64)


class Draws:
    """The draws of successive bootstrap replicates over strata, and the per-unit weights they give.

    Units one by one per stratum, or whole groups then their units, in the order of the module docstring.

    Parameters
    ----------
    sizes : sequence of int
        The units of each stratum, in the order drawn.
    seed : int or sequence of int
        Seed of ``numpy.random.default_rng`` (and of the jackknife blocks).
    groups : ndarray of int, optional
        With whole groups: the group of every unit, strata after strata, numbered 0, 1, ... in order of first
        appearance.

    Attributes
    ----------
    rng : numpy.random.Generator
        The generator of the replicates' draws.
    seed : int or sequence of int
    sizes : tuple of int
    n_groups : int or None
        The number of groups (None: units one by one).
    """

    def __init__(self, sizes: Sequence[int], seed, *, groups: np.ndarray | None = None):
        self.rng, self.seed = np.random.default_rng(seed), seed
        self.sizes = tuple(int(size) for size in sizes)
        self._groups = groups
        self.n_groups: int | None = None
        if groups is not None:  # the units of each group in turn, and where each group's run of them starts
            self.n_groups = int(groups.max()) + 1
            self._by_group = np.argsort(groups, kind="stable")
            self._group_sizes = np.bincount(groups, minlength=self.n_groups)
            self._starts = np.cumsum(self._group_sizes) - self._group_sizes

    @classmethod
    def of(cls, trials: Trials, group_by: str | None, seed) -> Draws:
        """The draws of :func:`~llrcore.bootstrap`: targets and non-targets, or whole values of the metadata column
        `group_by` (KeyError or ValueError with a sentence when the column is missing or has no value somewhere)."""
        sizes = trials.tar.size, trials.non.size
        if group_by is None:
            return cls(sizes, seed)
        if group_by not in trials.metadata.columns:
            raise KeyError(f"The trials have no column {group_by!r} to draw groups by; their columns are "
                           f"{', '.join(trials.conditions) or 'none'}.")
        column = trials.metadata[group_by].iloc[:sum(sizes)]
        if column.isna().any():
            raise ValueError(f"{int(column.isna().sum()):,} trials have no value in column {group_by!r}: every trial "
                             "must belong to a group to draw whole groups.")
        return cls(sizes, seed, groups=pd.factorize(column)[0])

    def replicates(self, n: int) -> Iterator[tuple[np.ndarray, ...]]:
        """The random draws of `n` replicates, one at a time: the indices drawn in each stratum, or the drawn groups
        (each once per time it was drawn) and the draws within them."""
        for _ in range(n):
            if self._groups is None:
                yield tuple(self.rng.integers(0, size, size) for size in self.sizes)
            else:
                drawn = self.rng.integers(0, self.n_groups, self.n_groups)
                repeated = np.repeat(drawn, self._group_sizes[drawn])
                yield repeated, self.rng.integers(0, self._group_sizes[repeated])

    def weights(self, drawn: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        """How many times each unit of each stratum counts in the replicate of these draws."""
        if self._groups is None:
            return tuple(np.bincount(index, minlength=size) for index, size in zip(drawn, self.sizes))
        repeated, within = drawn
        return self._split(np.bincount(self._by_group[self._starts[repeated] + within], minlength=self._groups.size))

    def jackknife(self) -> Iterator[tuple[int, tuple[np.ndarray, ...]]]:
        """The grouped jackknife's left-out blocks, one at a time, as ``(stratum, weights of every stratum)``: weight
        0 for the units of the block, 1 for the others; stratum after stratum, or blocks of groups (stratum 0)."""
        if self.n_groups is not None:
            blocks = jackknife_blocks(self.n_groups, self.seed)
            for j in range(blocks.max() + 1):
                yield 0, self._split((blocks != j).astype(np.int64)[self._groups])
            return
        whole = self.whole
        for stratum, size in enumerate(self.sizes):
            for members in block_members(jackknife_blocks(size, self.seed, stratum), _block_count(size)):
                kept = np.ones(size, np.int64)
                kept[members] = 0
                yield stratum, (*whole[:stratum], kept, *whole[stratum + 1:])

    def block_labels(self) -> tuple[np.ndarray, ...]:
        """The jackknife block of every unit of each stratum, the blocks numbered across the strata in the order
        :meth:`jackknife` leaves them out (stratum 0's first); with whole groups, the block of each unit's group."""
        if self.n_groups is not None:
            return self._split(jackknife_blocks(self.n_groups, self.seed)[self._groups])
        first = np.cumsum([0, *map(_block_count, self.sizes)])
        small = np.min_scalar_type(first[-1])
        return tuple(jackknife_blocks(size, self.seed, k).astype(small) + small.type(first[k])
                     for k, size in enumerate(self.sizes))

    def block_strata(self) -> np.ndarray:
        """The stratum of each block of :meth:`block_labels`, in their order."""
        if self.n_groups is not None:
            return np.zeros(_block_count(self.n_groups), np.int64)
        return np.repeat(np.arange(len(self.sizes)), list(map(_block_count, self.sizes)))

    @cached_property
    def whole(self) -> tuple[np.ndarray, ...]:
        """Each stratum's weights when no unit of it is left out (all 1, read-only): the very arrays
        :meth:`jackknife` gives for the strata a block leaves whole, so that a caller can work out what they weigh
        once for all the blocks."""
        whole = tuple(np.ones(size, np.int64) for size in self.sizes)
        for weights in whole:
            weights.flags.writeable = False
        return whole

    def _split(self, weights: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per-unit weights of all the strata, one after the other, cut into each stratum's."""
        return tuple(np.split(weights, np.cumsum(self.sizes)[:-1]))
