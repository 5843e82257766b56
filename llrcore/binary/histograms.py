"""Score histograms per class as results: bin edges and counts of target, non-target and spoof scores.

A histogram is a few hundred numbers whatever the number of trials, computed with :func:`numpy.histogram` on the
sorted scores; :func:`llrcore.plots.score_histogram_figure` draws them and the table a user downloads is theirs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.trials import Systems, as_systems
from .curves import CurveSet

__all__ = ["ScoreHistograms", "score_histograms", "histogram_range"]


def _quantile_sorted(values: np.ndarray, q: float) -> float:
    """Quantile of an already sorted array (nearest rank, no copy)."""
    return float(values[min(int(q * (values.size - 1) + 0.5), values.size - 1)])


def histogram_range(classes: list[np.ndarray], tail: float = 5e-4) -> tuple[float, float]:
    """Common bin range of several sorted score arrays: their finite extremes, unless far-out outliers would
    squash the histograms, in which case the ``tail``/``1 - tail`` quantiles of each class (with a margin)."""
    finite = [c[np.isfinite(c)] for c in classes]
    finite = [c for c in finite if c.size]
    if not finite:
        return -1.0, 1.0
    lo = min(float(c[0]) for c in finite)
    hi = max(float(c[-1]) for c in finite)
    q_lo = min(_quantile_sorted(c, tail) for c in finite)
    q_hi = max(_quantile_sorted(c, 1 - tail) for c in finite)
    core = q_hi - q_lo
    if core > 0 and hi - lo > 3 * core:
        lo, hi = q_lo - 0.05 * core, q_hi + 0.05 * core
    lo, hi = _fenced(lo, hi, finite)
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


#: Scores further than this many interquartile ranges beyond the quartiles are left out of a histogram's range.
FENCE = 1e3


def _fenced(lo: float, hi: float, classes: list[np.ndarray]) -> tuple[float, float]:
    """``[lo, hi]``, or the range of the scores within :data:`FENCE` interquartile ranges of the quartiles (the lowest
    class's lower and the highest class's upper quartile) when it is far wider: a few scores of +-1e308 among ordinary
    ones, in a class too small for the tail quantiles to leave them out, would put every other score in one bin, and
    ``hi - lo`` overflows. `classes` are sorted and finite."""
    lower = min(_quantile_sorted(c, 0.25) for c in classes)
    upper = max(_quantile_sorted(c, 0.75) for c in classes)
    fence = FENCE * (upper - lower)
    if upper > lower and not hi - lo <= 2 * fence:
        inside = [c[np.searchsorted(c, lower - fence):np.searchsorted(c, upper + fence, side="right")] for c in classes]
        lo, hi = min(float(c[0]) for c in inside if c.size), max(float(c[-1]) for c in inside if c.size)
    return lo, hi


@dataclass(frozen=True, eq=False)
class ScoreHistograms:
    """One system's histograms over common bin `edges`: ``counts[class]`` per bin, ``n_trials[class]`` in all.

    Classes are ``"target"``, ``"non-target"`` and, for ASVspoof files, ``"spoof"``. Trials outside the bins (far
    outliers left out of the range) are counted in ``n_trials`` but in no bin.
    """

    name: str
    edges: np.ndarray
    counts: dict
    n_trials: dict

    def density(self, label: str) -> np.ndarray:
        """Counts per trial of the class and per score unit: the area over the bins is at most 1."""
        return self.counts[label] / (self.n_trials[label] * np.diff(self.edges))

    def to_frame(self) -> pd.DataFrame:
        """Rows ``system, class, bin_start, bin_end, count, density``."""
        return pd.concat([pd.DataFrame({"system": self.name, "class": label, "bin_start": self.edges[:-1],
                                        "bin_end": self.edges[1:], "count": counts, "density": self.density(label)})
                          for label, counts in self.counts.items()], ignore_index=True)


def score_histograms(systems: Systems, *, bins: int = 80, include_spoof: bool = True) -> CurveSet:
    """The per-class histograms of each system over a range common to its classes (:func:`histogram_range`).

    Parameters
    ----------
    systems : Mapping[str, Trials], Trials or sequence of Trials
        The systems' scores.
    bins : int
        Number of equal bins over the range (fewer than 1 counts as 1).
    include_spoof : bool
        Also a histogram of the spoof trials, for a system that has them (ASVspoof files).

    Returns
    -------
    CurveSet
        ``name -> ScoreHistograms``: counts per bin of ``"target"``, ``"non-target"`` (and ``"spoof"``).
    """
    bins = max(int(bins), 1)
    out = CurveSet()
    for name, trials in as_systems(systems).items():
        table = trials.sorted
        classes = {"target": table.tar, "non-target": table.non}
        if include_spoof and trials.spoof.size:
            classes["spoof"] = np.sort(trials.spoof)
        edges = np.linspace(*histogram_range(list(classes.values())), bins + 1)
        out[name] = ScoreHistograms(name, edges, {label: np.histogram(scores, bins=edges)[0]
                                                  for label, scores in classes.items()},
                                    {label: int(scores.size) for label, scores in classes.items()})
    return out
