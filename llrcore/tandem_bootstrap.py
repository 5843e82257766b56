"""Bootstrap confidence interval of the minimum t-DCF of a countermeasure (CM) in front of a fixed speaker verifier.

The CM's trials and the ASV's trials are different trials (the organisers' ASV score file has no ids to pair them
with the CM's), so a replicate draws each of the five classes with replacement on its own: the CM's bona fide and
spoofed trials, the ASV's targets, non-targets and spoofs, each as many as there are. **The ASV threshold stays
where it is** (by default the ASV's equal-error point on all its trials, :func:`~llrcore.asv_eer_threshold`): it is a
setting of the deployed ASV, as in :mod:`llrcore.spoofing`, and what varies from replicate to replicate is how often
the ASV errs at it. The CM threshold is free: each replicate's value is the minimum over the CM thresholds, as the
full data's is. The interval is the percentile interval of the replicates (Efron & Tibshirani, "An introduction to
the bootstrap", 1993, ch. 13), as :func:`~llrcore.bootstrap` gives for the other metrics.

No replicate sorts again (the rule of :mod:`llrcore.uncertainty`): the scores are sorted once, and each CM score's
place among the thresholds of the full curve is found once. A replicate counts how often each place was drawn
(``np.bincount``), and the running sums of those counts are its miss and false-alarm counts at every threshold. A
threshold of the full curve that no drawn score equals has the rates of the next drawn score above it, so the
minimum over the full curve's thresholds is the minimum over the replicate's own, and a replicate's value equals
:func:`~llrcore.tdcf` on the drawn scores with the same ASV threshold, to the last bit (tested).

Replicates run on a pool of threads (``threads=``): the indices are drawn in the calling thread in the order given
under `seed`, and each replicate's counts and minimum are computed from its own, so no number depends on the number
of threads.

A replicate whose ASV errs so much that the t-DCF has a negative weight or no normaliser (which
:func:`~llrcore.tdcf` refuses) is NaN and left out of the interval; :attr:`TandemBootstrap.failed` counts them.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import parallel
from .data.trials import Trials
from .tdcf import tdcf, tdcf_weights
from .uncertainty import _window, check_replicates, percentile_interval

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
        The percentile interval at `level` (NaN replicates left out).
    level : float
    replicates : ndarray
        The minimum t-DCF of each replicate, in the order drawn.
    seed : int
    asv_threshold : float
        The ASV threshold every replicate keeps.
    """

    formulation: str
    minimum: float
    lower: float
    upper: float
    level: float
    replicates: np.ndarray = field(repr=False)
    seed: int
    asv_threshold: float

    @property
    def failed(self) -> int:
        """Replicates without a t-DCF (the ASV erred too much in them; NaN)."""
        return int(np.isnan(self.replicates).sum())

    def interval(self) -> tuple[float, float]:
        """``(lower, upper)``."""
        return self.lower, self.upper

    def to_frame(self) -> pd.DataFrame:
        """One row per replicate: ``replicate``, ``min_tdcf``."""
        return pd.DataFrame({"replicate": np.arange(self.replicates.size), "min_tdcf": self.replicates})


def bootstrap_tdcf(cm: Trials, asv: Trials, n: int = 1000, level: float = 0.95, seed: int = 0, *,
                   formulation: str = "revised", cost_model: Mapping | None = None,
                   asv_threshold: float | None = None,
                   progress: Callable[[int, int], object] | None = None,
                   threads: int | None = None) -> TandemBootstrap:
    """Percentile bootstrap interval of the normalised minimum t-DCF of `cm` in front of `asv`.

    The resampling is in the module docstring (:mod:`llrcore.tandem_bootstrap`): the five classes of trials drawn
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
        spoofed, the target, the non-target and the spoof trials (``rng.integers(0, size, size)`` each; bona fide and
        spoofed index the CM's ``cm.tar``/``cm.non``, the others ``asv.tar``/``asv.non``/``asv.spoof``, each sorted
        ascending).
    formulation, cost_model, asv_threshold
        As in :func:`~llrcore.tdcf`.
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
    full = tdcf(cm.tar, cm.non, asv.tar, asv.non, asv.spoof, formulation=formulation, cost_model=cost_model,
                asv_threshold=asv_threshold)
    cm_places = [np.searchsorted(full.thresholds, np.sort(scores)) for scores in (cm.tar, cm.non)]
    asv_rejects = [np.sort(scores) < full.asv_threshold for scores in (asv.tar, asv.non, asv.spoof)]
    rng = np.random.default_rng(seed)
    classes = [*cm_places, *asv_rejects]
    draws = ([rng.integers(0, values.size, values.size) for values in classes] for _ in range(n))

    def replicate(drawn) -> float:
        bonafide, spoof = (np.bincount(places[index], minlength=full.thresholds.size)
                           for places, index in zip(cm_places, drawn[:2]))
        tar, non, asv_spoof = (rejects[index].sum() for rejects, index in zip(asv_rejects, drawn[2:]))
        return _minimum(full, bonafide, spoof, tar / asv.tar.size, (asv.non.size - non) / asv.non.size,
                        (asv.spoof.size - asv_spoof) / asv.spoof.size)

    replicates = np.empty(n)
    in_flight = _window(sum(values.size for values in classes), threads)  # each holds its draws of every trial
    for i, value in enumerate(parallel.ordered_map(replicate, draws, threads, window=in_flight)):
        replicates[i] = value
        if progress is not None:
            progress(i + 1, n)
    lower, upper = percentile_interval(replicates, level)
    return TandemBootstrap(full.formulation, full.minimum, lower, upper, level, replicates, seed, full.asv_threshold)


def _minimum(full, bonafide: np.ndarray, spoof: np.ndarray, pmiss_asv: float, pfa_asv: float,
             pfa_spoof_asv: float) -> float:
    """The normalised minimum t-DCF of one replicate from how often each place among the thresholds was drawn."""
    c0, c1, c2, default = tdcf_weights(full.formulation, full.cost_model, pmiss_asv, pfa_asv, pfa_spoof_asv)
    if c1 < 0 or c2 < 0 or not default > 0:
        return np.nan
    rejected = np.cumsum(bonafide) - bonafide  # bona fide scores below each threshold (those before its place)
    accepted = spoof.sum() - (np.cumsum(spoof) - spoof)  # spoofs at or above it
    return float(np.min((c0 + c1 * (rejected / bonafide.sum()) + c2 * (accepted / spoof.sum())) / default))
