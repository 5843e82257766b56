"""Bootstrap confidence interval of the minimum t-DCF of a countermeasure (CM) in front of a fixed speaker verifier.

The CM's trials and the ASV's trials are different trials (the organisers' ASV score file has no ids to pair them
with the CM's), so a replicate draws each of the five classes with replacement on its own: the CM's bona fide and
spoofed trials, the ASV's targets, non-targets and spoofs, each as many as there are. **The ASV threshold stays
where it is** (by default the ASV's equal-error point on all its trials, :func:`~llrcore.asv_eer_threshold`): it is a
setting of the deployed ASV, as in :mod:`llrcore.spoofing.tandem`, and what varies from replicate to replicate is how often
the ASV errs at it. The CM threshold is free: each replicate's value is the minimum over the CM thresholds, as the
full data's is. The interval is BCa by default (bias-corrected and accelerated, Efron 1987), or the percentile
interval of the replicates (``method="percentile"``; Efron & Tibshirani, "An introduction to the bootstrap", 1993,
ch. 13-14), as :func:`~llrcore.bootstrap` gives for the other metrics (:mod:`llrcore.uncertainty.intervals`). BCa's acceleration
comes from a grouped jackknife: each of the five classes is a stratum, dealt into blocks
(:func:`~llrcore.uncertainty.draws.jackknife_blocks`, strata 0 to 4 in the order of the draws under `seed`), and one
block at a time is left out. The draws and the blocks are those of :class:`~llrcore.uncertainty.draws.Draws` over the
five classes (its module lists them in the order of the random numbers). A block leaves out trials of one class only:
the other four keep the counts of all the trials, made once, and the block's own class loses, at each threshold, the
block's trials below it (a step function with one step per trial of the block; for an ASV class, one number). So a
block costs a few passes over the thresholds, and its value is the minimum t-DCF of the trials it keeps to the last
bit, as :func:`~llrcore.spoofing.tdcf` gives it (tested).

No replicate sorts again (the rule of :mod:`llrcore.uncertainty.resampling`): the scores are sorted once, and each CM score's
place among the thresholds of the full curve is found once. A replicate counts how often each place was drawn
(``np.bincount``), and the running sums of those counts are its miss and false-alarm counts at every threshold. A
threshold of the full curve that no drawn score equals has the rates of the next drawn score above it, so the
minimum over the full curve's thresholds is the minimum over the replicate's own, and a replicate's value equals
:func:`~llrcore.spoofing.tdcf` on the drawn scores with the same ASV threshold, to the last bit (tested).

Replicates run on a pool of threads (``threads=``): the indices are drawn in the calling thread in the order given
under `seed`, and each replicate's counts and minimum are computed from its own, so no number depends on the number
of threads.

A replicate whose ASV errs so much that the t-DCF has a negative weight or no normaliser (which
:func:`~llrcore.spoofing.tdcf` refuses) is NaN and left out of the interval; :attr:`TandemBootstrap.failed` counts them.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import parallel
from ..data.trials import Trials
from ..uncertainty.draws import Draws, jackknife_blocks
from ..uncertainty.intervals import (
    DEFAULT_METHOD,
    acceleration,
    bca_interval,
    check_method,
    percentile_interval,
)
from ..uncertainty.resampling import _window, check_replicates
from .tdcf import TandemDCF, tdcf, tdcf_weights

__all__ = ["TandemBootstrap", "bootstrap_tdcf"]


@dataclass(frozen=True, eq=False)
class TandemBootstrap:
    """Bootstrap replicates of the normalised minimum t-DCF (see :func:`bootstrap_tdcf`).

    Attributes
    ----------
    formulation : str
        ``"revised"`` or ``"legacy"``.
    minimum : float
        The normalised minimum t-DCF of all the trials.
    lower, upper : float
        The interval at `level` by `method` (NaN replicates left out).
    level : float
    replicates : ndarray
        The minimum t-DCF of each replicate, in the order drawn.
    seed : int
    asv_threshold : float
        The ASV threshold every replicate keeps.
    method : str
        ``"bca"`` or ``"percentile"`` (:mod:`llrcore.uncertainty.intervals`).
    acceleration : float or None
        BCa's acceleration, from the grouped jackknife (None with ``method="percentile"``).
    """

    formulation: str
    minimum: float
    lower: float
    upper: float
    level: float
    replicates: np.ndarray = field(repr=False)
    seed: int
    asv_threshold: float
    method: str = DEFAULT_METHOD
    acceleration: float | None = None

    @property
    def failed(self) -> int:
        """Replicates without a t-DCF (the ASV erred too much in them; NaN)."""
        return int(np.isnan(self.replicates).sum())

    def interval(self, method: str | None = None) -> tuple[float, float]:
        """``(lower, upper)``; by `method` when given (``"percentile"`` for any result, ``"bca"`` for one drawn with
        ``method="bca"``)."""
        if method is None:
            return self.lower, self.upper
        return _interval(self.replicates, self.minimum, self.acceleration, self.level, check_method(method))

    def to_frame(self) -> pd.DataFrame:
        """One row per replicate: ``replicate``, ``min_tdcf``."""
        return pd.DataFrame({"replicate": np.arange(self.replicates.size), "min_tdcf": self.replicates})


def bootstrap_tdcf(cm: Trials, asv: Trials, n: int = 1000, level: float = 0.95, seed: int = 0, *,
                   formulation: str = "revised", cost_model: Mapping | None = None,
                   asv_threshold: float | None = None, method: str = DEFAULT_METHOD,
                   progress: Callable[[int, int], object] | None = None,
                   threads: int | None = None) -> TandemBootstrap:
    """Bootstrap interval (BCa by default) of the normalised minimum t-DCF of `cm` in front of `asv`.

    The resampling is in the module docstring (:mod:`llrcore.spoofing.tdcf_bootstrap`): the five classes of trials drawn
    apart, the ASV threshold held, no sort per replicate.

    Parameters
    ----------
    cm : Trials
        The CM's scores: bona fide trials as targets, spoofed trials as non-targets.
    asv : Trials
        The ASV's scores with its spoof trials (``asv.spoof``).
    n : int
        Replicates (at least 2).
    level : float
        Confidence level, e.g. 0.95.
    seed : int
        Seed of ``numpy.random.default_rng``. Each replicate draws, in this order, the indices of the bona fide, the
        spoofed, the target, the non-target and the spoof trials (``rng.integers(0, size, size)`` each, the five
        strata of :class:`~llrcore.uncertainty.draws.Draws`; bona fide and spoofed index the CM's
        ``cm.tar``/``cm.non``, the others ``asv.tar``/``asv.non``/``asv.spoof``, each sorted ascending).
    formulation, cost_model, asv_threshold
        As in :func:`~llrcore.spoofing.tdcf`.
    method : {"bca", "percentile"}
        BCa (the default, with the grouped jackknife of the module docstring) or percentile interval.
    progress : callable, optional
        Called as ``progress(done, n)`` after each replicate, in the calling thread.
    threads : int, optional
        Replicates computed at once (:func:`~llrcore.thread_count`: by default ``LLRCORE_THREADS`` or every CPU).
        No number depends on it.

    Returns
    -------
    TandemBootstrap
    """
    n, level = check_replicates(n, level)
    method = check_method(method)
    full = tdcf(cm.tar, cm.non, asv.tar, asv.non, asv.spoof, formulation=formulation, cost_model=cost_model,
                asv_threshold=asv_threshold)
    counted = _Counted(full, cm, asv)
    draw = Draws(counted.sizes, seed)
    replicates = np.empty(n)
    in_flight = _window(sum(counted.sizes), threads)  # each holds its draws of every trial
    for i, value in enumerate(parallel.ordered_map(counted.replicate, draw.replicates(n), threads, window=in_flight)):
        replicates[i] = value
        if progress is not None:
            progress(i + 1, n)
    accel = None
    if method == "bca":
        strata, jackknife = zip(*parallel.ordered_map(lambda block: (block[0], counted.left_out(*block)),
                                                      counted.blocks(seed), threads))
        accel = float(acceleration(np.array(jackknife), np.array(strata)))
    lower, upper = _interval(replicates, full.minimum, accel, level, method)
    return TandemBootstrap(full.formulation, full.minimum, lower, upper, level, replicates, seed, full.asv_threshold,
                           method, accel)


class _Counted:
    """The counts of all the trials that every replicate and every jackknife block starts from.

    Each sorted CM score's place among the thresholds of the full curve (`places`, bona fide then spoofed), and the
    ASV's ``(rejected, trials)`` of its targets, non-targets and spoofs (`asv`): the sorted ASV scores below the
    threshold are the first ones of each class, so a draw of index ``i`` is rejected when ``i < rejected``. With all
    the trials counted, the CM's miss and false-alarm rates at every threshold (`pmiss_cm`, `pfa_cm`) are those of
    the full curve; a jackknife block leaves out the trials of one class only, so it takes the other four classes'
    counts from here and counts only what its own block removes.
    """

    def __init__(self, full: TandemDCF, cm: Trials, asv: Trials):
        self.full = full
        self.places = tuple(np.searchsorted(full.thresholds, np.sort(scores)) for scores in (cm.tar, cm.non))
        self.asv = tuple((int(np.count_nonzero(scores < full.asv_threshold)), scores.size)
                         for scores in (asv.tar, asv.non, asv.spoof))
        self.sizes = (cm.tar.size, cm.non.size, *(size for _, size in self.asv))
        self._at = np.arange(full.thresholds.size)
        # the bona fide trials below each threshold, and the spoofed ones
        self._below = tuple(np.searchsorted(places, self._at) for places in self.places)
        self.pmiss_cm = self._below[0] / cm.tar.size
        self.pfa_cm = (cm.non.size - self._below[1]) / cm.non.size

    def replicate(self, drawn: tuple[np.ndarray, ...]) -> float:
        """The minimum t-DCF of the trials drawn at these indices of the five sorted classes."""
        bonafide, spoof = (np.bincount(places[index], minlength=self._at.size)
                           for places, index in zip(self.places, drawn[:2]))
        rejected, spoofed_below = (np.cumsum(counts) - counts for counts in (bonafide, spoof))  # before each place
        asv = [(np.count_nonzero(index < rejects), size) for index, (rejects, size) in zip(drawn[2:], self.asv)]
        return self._minimum(asv, rejected / self.sizes[0],
                             (self.sizes[1] - spoofed_below) / self.sizes[1])

    def blocks(self, seed) -> Iterator[tuple[int, np.ndarray]]:
        """The jackknife's left-out blocks in the order of :meth:`~llrcore.uncertainty.draws.Draws.jackknife`:
        ``(stratum, its units in the block, ascending)``, block 0 to the last of stratum 0, then of stratum 1, ..."""
        for stratum, size in enumerate(self.sizes):
            dealt = jackknife_blocks(size, seed, stratum)
            by_block = np.argsort(dealt.astype(np.min_scalar_type(dealt.max())), kind="stable")  # a radix sort
            yield from ((stratum, members) for members in np.split(by_block, np.cumsum(np.bincount(dealt))[:-1]))

    def left_out(self, stratum: int, members: np.ndarray) -> float:
        """The minimum t-DCF of all the trials but the `members` (sorted order) of class `stratum`."""
        kept = self.sizes[stratum] - members.size
        if stratum >= 2:  # an ASV class: the CM's rates stay those of all the trials
            asv = list(self.asv)
            rejects, _ = asv[stratum - 2]
            asv[stratum - 2] = (rejects - int(np.searchsorted(members, rejects)), kept)
            return self._minimum(asv, self.pmiss_cm, self.pfa_cm)
        if kept == 0:
            return np.nan
        # the block's trials below each threshold: a step up after each of their places
        gone = np.repeat(np.arange(members.size + 1), np.diff(self.places[stratum][members], prepend=-1,
                                                               append=self._at.size - 1))
        if stratum == 0:
            return self._minimum(self.asv, (self._below[0] - gone) / kept, self.pfa_cm)
        above = (self.sizes[1] - self._below[1]) - (members.size - gone)
        return self._minimum(self.asv, self.pmiss_cm, above / kept)

    def _minimum(self, asv, pmiss_cm: np.ndarray, pfa_cm: np.ndarray) -> float:
        """The normalised minimum t-DCF at these CM rates, the ASV's ``(rejected, trials)`` per class; NaN where
        the t-DCF has no meaning (a negative weight, no normaliser, an ASV class left without trials)."""
        (tar, n_tar), (non, n_non), (spoof, n_spoof) = asv
        if not (n_tar and n_non and n_spoof):
            return np.nan
        c0, c1, c2, default = tdcf_weights(self.full.formulation, self.full.cost_model, tar / n_tar,
                                           (n_non - non) / n_non, (n_spoof - spoof) / n_spoof)
        if c1 < 0 or c2 < 0 or not default > 0:
            return np.nan
        # the minimum divided rather than the curve: division by a positive number keeps the order, the same bits
        return float(np.min(c0 + c1 * pmiss_cm + c2 * pfa_cm) / default)


def _interval(replicates: np.ndarray, minimum: float, accel: float | None, level: float,
              method: str) -> tuple[float, float]:
    if method == "percentile":
        return percentile_interval(replicates, level)
    if accel is None:
        raise ValueError("A BCa interval needs the jackknife of a bootstrap run with method='bca'; this one was run "
                         "with method='percentile'.")
    return bca_interval(replicates, minimum, accel, level)
