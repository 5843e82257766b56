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
block at a time gets the weight 0, so the jackknife does not sort again either. The draws and the blocks are those of
:class:`~llrcore.uncertainty.draws.Draws` over the five classes (its module lists them in the order of the random
numbers).

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import parallel
from ..data.trials import Trials
from ..uncertainty.draws import Draws
from ..uncertainty.intervals import (
    DEFAULT_METHOD,
    acceleration,
    bca_interval,
    check_method,
    percentile_interval,
)
from ..uncertainty.resampling import _window, check_replicates
from .tdcf import tdcf, tdcf_weights

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
    cm_places = [np.searchsorted(full.thresholds, np.sort(scores)) for scores in (cm.tar, cm.non)]
    asv_rejects = [np.sort(scores) < full.asv_threshold for scores in (asv.tar, asv.non, asv.spoof)]
    classes = [*cm_places, *asv_rejects]
    draw = Draws([values.size for values in classes], seed)

    def weighted_minimum(weights) -> float:
        """The minimum t-DCF with each trial of each class counted `weights` times (sorted order)."""
        bonafide, spoof = (np.bincount(places, weights=w, minlength=full.thresholds.size)
                           for places, w in zip(cm_places, weights[:2]))
        (tar, n_tar), (non, n_non), (asv_spoof, n_spoof) = ((np.dot(rejects, w), w.sum())
                                                             for rejects, w in zip(asv_rejects, weights[2:]))
        return _minimum(full, bonafide, spoof, tar / n_tar, (n_non - non) / n_non, (n_spoof - asv_spoof) / n_spoof)

    def replicate(drawn) -> float:
        return weighted_minimum(draw.weights(drawn))

    replicates = np.empty(n)
    in_flight = _window(sum(values.size for values in classes), threads)  # each holds its draws of every trial
    for i, value in enumerate(parallel.ordered_map(replicate, draw.replicates(n), threads, window=in_flight)):
        replicates[i] = value
        if progress is not None:
            progress(i + 1, n)
    accel = None
    if method == "bca":
        # Each block's weights are made as the pool takes it.
        strata, jackknife = zip(*parallel.ordered_map(lambda block: (block[0], weighted_minimum(block[1])),
                                                      draw.jackknife(), threads, window=in_flight))
        accel = float(acceleration(np.array(jackknife), np.array(strata)))
    lower, upper = _interval(replicates, full.minimum, accel, level, method)
    return TandemBootstrap(full.formulation, full.minimum, lower, upper, level, replicates, seed, full.asv_threshold,
                           method, accel)


def _interval(replicates: np.ndarray, minimum: float, accel: float | None, level: float,
              method: str) -> tuple[float, float]:
    if method == "percentile":
        return percentile_interval(replicates, level)
    if accel is None:
        raise ValueError("A BCa interval needs the jackknife of a bootstrap run with method='bca'; this one was run "
                         "with method='percentile'.")
    return bca_interval(replicates, minimum, accel, level)


def _minimum(full, bonafide: np.ndarray, spoof: np.ndarray, pmiss_asv: float, pfa_asv: float,
             pfa_spoof_asv: float) -> float:
    """The normalised minimum t-DCF of one replicate from how often each place among the thresholds was drawn."""
    c0, c1, c2, default = tdcf_weights(full.formulation, full.cost_model, pmiss_asv, pfa_asv, pfa_spoof_asv)
    if c1 < 0 or c2 < 0 or not default > 0:
        return np.nan
    rejected = np.cumsum(bonafide) - bonafide  # bona fide scores below each threshold (those before its place)
    accepted = spoof.sum() - (np.cumsum(spoof) - spoof)  # spoofs at or above it
    return float(np.min((c0 + c1 * (rejected / bonafide.sum()) + c2 * (accepted / spoof.sum())) / default))
