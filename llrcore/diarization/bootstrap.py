"""Recording-level bootstrap of a diarization's DER and JER, and the paired comparison "is diarizer B better than A?".

A recording is the unit that varies (its speakers, room, length), so every replicate draws recordings with
replacement (as :func:`llrcore.uncertainty.bootstrap` draws whole ``group_by`` groups of trials; the counts of each
recording in each replicate are multinomial, :func:`llrcore.uncertainty.draws.multinomial_counts`) and recomputes the
rates from the pyannote.metrics components of the drawn recordings: pooled (errors over speech, JER errors over
speakers, summed over the draw) or the mean of per-recording rates, as the scoring conventions say. For two systems
scored on the same references every replicate draws the same recordings for both, so that what a recording does to
both (a hard meeting) cancels from the difference (:func:`llrcore.uncertainty.compare_systems`, by trials). Intervals
are percentile intervals (:func:`llrcore.uncertainty.intervals.percentile_interval`); with few recordings they are
too narrow, as every bootstrap over few groups is (Efron & Tibshirani 1993, ch. 6). Below :data:`MIN_RECORDINGS`
recordings there is no interval at all (NaN bounds, and a sentence saying why): two recordings draw only three
distinct pools, so their "95 % interval" is little more than their two DERs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from ..uncertainty.draws import multinomial_counts
from ..uncertainty.intervals import percentile_interval
from ..uncertainty.paired_words import paired_shares, paired_verdict
from .system_scoring import SystemScores

__all__ = ["MIN_RECORDINGS", "NO_INTERVAL", "DiarizationBootstrap", "DiarizerComparison", "bootstrap_diarization",
           "compare_diarizers"]

METRICS = ("der", "jer")
#: The fewest recordings over which a bootstrap interval is given.
MIN_RECORDINGS = 10
#: Why there is no interval, with the number of recordings to fill in.
NO_INTERVAL = ("no interval: a bootstrap over {n} recording{s} only reshuffles {those} own rates, so an interval "
               f"needs at least {MIN_RECORDINGS} recordings")


def _no_interval(n_recordings: int) -> str | None:
    """The sentence saying why there is no interval over `n_recordings`, or None when there is one."""
    if n_recordings >= MIN_RECORDINGS:
        return None
    return NO_INTERVAL.format(n=n_recordings, s="" if n_recordings == 1 else "s",
                              those="its" if n_recordings == 1 else "their")


def _interval(values: np.ndarray, level: float, n_recordings: int) -> tuple[float, float]:
    if _no_interval(n_recordings):
        return float("nan"), float("nan")
    return percentile_interval(values, level)


def _rates(scores: SystemScores, weights: np.ndarray) -> dict[str, np.ndarray]:
    """DER and JER of every replicate, `weights` (replicates x recordings) the times each recording is drawn."""
    c = scores.corpus.components
    if scores.conventions.average == "pooled":
        errors = (c["missed"] + c["false_alarm"] + c["confusion"]).to_numpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            return {"der": weights @ errors / (weights @ c["speech"].to_numpy()),
                    "jer": weights @ c["jer_error"].to_numpy() / (weights @ c["jer_speakers"].to_numpy())}
    frame = scores.per_recording
    per = {"der": frame["DER %"].to_numpy() / 100.0, "jer": frame["JER %"].to_numpy() / 100.0}
    return {m: weights @ per[m] / weights.sum(axis=1) for m in METRICS}


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"The confidence level must be between 0 and 1, not {level}.")


@dataclass(frozen=True)
class DiarizationBootstrap:
    """Replicates of DER and JER over recordings drawn with replacement (:func:`bootstrap_diarization`)."""

    scores: SystemScores
    replicates: pd.DataFrame
    level: float

    @property
    def why_no_interval(self) -> str | None:
        """Why there is no interval (fewer than :data:`MIN_RECORDINGS` recordings), or None."""
        return _no_interval(len(self.scores.corpus.components))

    def interval(self, metric: str = "der") -> tuple[float, float]:
        """The percentile interval of `metric`; NaN bounds below :data:`MIN_RECORDINGS` recordings."""
        return _interval(self.replicates[metric].to_numpy(), self.level, len(self.scores.corpus.components))

    def to_frame(self) -> pd.DataFrame:
        """One row per metric (``der``, ``jer``, fractions): the value and its interval."""
        rows = {m: (getattr(self.scores, m), *self.interval(m)) for m in METRICS}
        return pd.DataFrame.from_dict(rows, orient="index", columns=["value", "lower", "upper"])

    def paragraph(self) -> str:
        """DER and JER with their intervals, or with the one reason there are none."""
        if self.why_no_interval:
            return (f"DER {100 * self.scores.der:.2f} % and JER {100 * self.scores.jer:.2f} % "
                    f"({self.why_no_interval}).")
        return " ".join(self.sentence(m) for m in METRICS)

    def sentence(self, metric: str = "der") -> str:
        if self.why_no_interval:
            return f"{metric.upper()} {100 * getattr(self.scores, metric):.2f} % ({self.why_no_interval})."
        low, high = self.interval(metric)
        return (f"{metric.upper()} {100 * getattr(self.scores, metric):.2f} % ({100 * self.level:.0f} % percentile "
                f"interval {100 * low:.2f} to {100 * high:.2f} % over {len(self.replicates):,} resamplings of the "
                f"{len(self.scores.corpus.components)} recordings).")


def bootstrap_diarization(scores: SystemScores, n: int = 1000, level: float = 0.95,
                          seed: int = 0) -> DiarizationBootstrap:
    """Percentile intervals of the DER and JER of `scores` (:func:`~llrcore.diarization.score_system`) by drawing its
    recordings with replacement `n` times.

    Each replicate recomputes the rates from the drawn recordings' components, pooled or averaged as the scoring
    conventions say (module docstring); below :data:`MIN_RECORDINGS` recordings there is no interval.

    Parameters
    ----------
    scores : SystemScores
        One system scored against the reference recordings.
    n : int
        Replicates, at least 1.
    level : float
        Confidence level, strictly between 0 and 1 (e.g. 0.95).
    seed : int
        Seed of ``numpy.random.default_rng`` (the draws: :func:`~llrcore.uncertainty.draws.multinomial_counts`).

    Returns
    -------
    DiarizationBootstrap
        The DER and JER (fractions) of every replicate; ``.interval(metric)`` (NaN bounds below
        :data:`MIN_RECORDINGS` recordings), ``.to_frame()`` and ``.paragraph()``.

    Raises
    ------
    ValueError
        For `n` below 1 or a `level` outside (0, 1).
    """
    _check_level(level)
    weights = multinomial_counts(len(scores.corpus.components), n, seed)
    return DiarizationBootstrap(scores, pd.DataFrame(_rates(scores, weights)), float(level))


@dataclass(frozen=True)
class DiarizerComparison:
    """Paired bootstrap of two diarizations of the same recordings: B minus A, replicate by replicate."""

    a: SystemScores
    b: SystemScores
    differences: pd.DataFrame
    level: float
    names: tuple[str, str] = ("A", "B")

    @property
    def why_no_interval(self) -> str | None:
        """Why there is no interval (fewer than :data:`MIN_RECORDINGS` recordings), or None."""
        return _no_interval(len(self.a.corpus.components))

    def interval(self, metric: str = "der") -> tuple[float, float]:
        """The percentile interval of B minus A; NaN bounds below :data:`MIN_RECORDINGS` recordings."""
        return _interval(self.differences[metric].to_numpy(), self.level, len(self.a.corpus.components))

    def b_better(self, metric: str = "der") -> float:
        """The share of replicates in which B has the lower (better) error rate."""
        return float(np.mean(self.differences[metric].to_numpy() < 0))

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: A, B, ``difference`` (B - A), its interval and ``b_better`` (fractions)."""
        rows = {m: (getattr(self.a, m), getattr(self.b, m), getattr(self.b, m) - getattr(self.a, m),
                    *self.interval(m), self.b_better(m)) for m in METRICS}
        return pd.DataFrame.from_dict(rows, orient="index",
                                      columns=["a", "b", "difference", "lower", "upper", "b_better"])

    def sentence(self, metric: str = "der") -> str:
        """E.g. ``"B has a lower DER than A in 97 % of 1,000 resamplings of the 20 recordings: B minus A is -1.2
        percentage points (95 % percentile interval -2.1 to -0.3), so the difference is very likely real."``"""
        a, b = self.names
        if self.why_no_interval:
            difference = 100 * (getattr(self.b, metric) - getattr(self.a, metric))
            return (f"{b} minus {a} is {difference:+.3g} percentage points of {metric.upper()} "
                    f"({self.why_no_interval}), so whether one is better cannot be told from these recordings.")
        differences = self.differences[metric].to_numpy()
        low, high = (100 * x for x in self.interval(metric))
        difference = 100 * (getattr(self.b, metric) - getattr(self.a, metric))
        shares = paired_shares(differences, a, b, metric.upper(), f"of the {len(self.a.corpus.components)} recordings")
        return (f"{shares}: {b} minus {a} is {difference:+.3g} percentage points ({100 * self.level:.0f} % percentile "
                f"interval {low:+.3g} to {high:+.3g}), {paired_verdict(low, high, differences)}.")


def compare_diarizers(a: SystemScores, b: SystemScores, n: int = 1000, level: float = 0.95, seed: int = 0,
                      names: tuple[str, str] = ("A", "B")) -> DiarizerComparison:
    """Is diarizer B better than A? A paired bootstrap over the recordings, B minus A replicate by replicate.

    Both are scored (:func:`~llrcore.diarization.score_system`) on the same reference recordings with the same
    conventions; every replicate draws the same recordings for both, so what a recording does to both cancels from
    the difference.

    Parameters
    ----------
    a, b : SystemScores
        The two systems, scored on the same recordings with the same conventions.
    n : int
        Replicates, at least 1.
    level : float
        Confidence level of the percentile interval of the difference, strictly between 0 and 1.
    seed : int
        Seed of ``numpy.random.default_rng`` (the draws: :func:`~llrcore.uncertainty.draws.multinomial_counts`).
    names : (str, str)
        The names of A and B in the sentences.

    Returns
    -------
    DiarizerComparison
        The differences (B - A) of DER and JER (fractions) per replicate; ``.interval(metric)``,
        ``.b_better(metric)`` (the share of replicates in which B is better), ``.to_frame()`` and ``.sentence()``.

    Raises
    ------
    ValueError
        When the two were scored on different recordings or with different conventions, for `n` below 1, or a
        `level` outside (0, 1).
    """
    _check_level(level)
    if list(a.corpus.components.index) != list(b.corpus.components.index):
        raise ValueError("The two systems were not scored on the same reference recordings, so they cannot be "
                         "compared recording by recording.")
    if a.conventions != b.conventions:
        raise ValueError("The two systems were scored with different conventions (collar, overlap, region or "
                         "average); score both the same way to compare them.")
    weights = multinomial_counts(len(a.corpus.components), n, seed)
    rates_a, rates_b = _rates(a, weights), _rates(b, weights)
    differences = pd.DataFrame({m: rates_b[m] - rates_a[m] for m in METRICS})
    # (a list of the two names too: stored as the tuple it stands for)
    return DiarizerComparison(a, b, differences, float(level), cast(tuple[str, str], tuple(names)))
