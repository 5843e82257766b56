"""Paired comparison of two systems on the same trials: a bootstrap whose every replicate draws the same trials for
both, so that what the trials have in common cancels from the difference.

The trials are paired by their ids (:func:`llrcore.data.pairing.pair_trials`, shared with
:func:`~llrcore.align_systems`); the draws (:class:`~llrcore.uncertainty.draws.Draws`: the trials of system A, or
its ``group_by`` groups), the re-weighting that never sorts again and the BCa intervals are those of
:func:`~llrcore.uncertainty.resampling.bootstrap` (module docstring there).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import parallel
from ..binary.metrics import SRE12_P_TARGETS, BinaryMetrics, evaluate
from ..data.pairing import pair_trials
from ..data.trials import Trials
from ..prior import OperatingPoint, as_operating_point, primary_p_targets
from .draws import Draws
from .intervals import DEFAULT_METHOD, ReplicateIntervals, check_method
from .paired_words import paired_shares, paired_verdict
from .resampling import (
    BOOTSTRAP_METRICS,
    Progress,
    _acceleration,
    _check_metric,
    _inverse,
    _method_label,
    _ReplicateMetrics,
    _prepared,
    _reweighted,
    _window,
    check_replicates,
)

__all__ = ["SystemComparison", "compare_systems"]

#: metric -> (its name in a sentence, scale, unit)
_METRIC_WORDS = {"eer": ("EER", 100.0, " percentage points"), "min_dcf": ("minDCF", 1.0, ""),
                 "act_dcf": ("actDCF", 1.0, ""),
                 "cllr": ("Cllr", 1.0, " bits"), "min_cllr": ("minCllr", 1.0, " bits"),
                 "cprimary": ("Cprimary", 1.0, "")}


@dataclass(frozen=True, repr=False)
class SystemComparison(ReplicateIntervals):
    """Paired bootstrap of two systems on the same trials: system B minus system A, replicate by replicate.

    Attributes
    ----------
    a, b : BinaryMetrics
        The metrics of each system on all the trials.
    differences : DataFrame
        One row per replicate: ``metric(B) - metric(A)`` for each metric of :data:`BOOTSTRAP_METRICS` (every metric
        is a cost or an error rate, so a negative difference means B is better).
    level : float
    group_by : str or None
    method : str
        ``"bca"`` or ``"percentile"``.
    acceleration : dict of str -> float, or None
        BCa's acceleration of each difference.
    paired_by : str
        How the trials were paired: ``"utt"``, ``"model and test"``, ``"line order"``, ...
        (:meth:`~llrcore.data.pairing.Pairing.describe`).
    """

    a: BinaryMetrics
    b: BinaryMetrics
    differences: pd.DataFrame
    level: float
    group_by: str | None
    method: str = DEFAULT_METHOD
    acceleration: dict | None = None
    paired_by: str = "line order"

    def __repr__(self) -> str:
        return (f"SystemComparison({self.a.name or 'A'!r} vs {self.b.name or 'B'!r}, paired by {self.paired_by}, "
                f"{len(self.differences):,} replicates, {self.interval_words}s, group_by={self.group_by!r})")

    def _values(self, metric: str) -> np.ndarray:
        return _check_metric(self.differences, metric)

    def _estimate(self, metric: str) -> float:
        return getattr(self.b, metric) - getattr(self.a, metric)

    def b_better(self, metric: str) -> float:
        """The fraction of replicates in which B has the lower (better) value of `metric`."""
        return float(np.mean(self.differences[metric].to_numpy() < 0))

    def sentence(self, metric: str = "eer") -> str:
        """The comparison in words, the better system first, e.g. ``"B has a lower EER than A in 97 % of 1,000
        resamplings of the trials (paired by utt): B minus A is -0.52 percentage points (95 % BCa bootstrap interval
        -0.8 to -0.21), so the difference is very likely real."``; replicates where both are equal are counted apart
        (:func:`llrcore.uncertainty.paired_words.paired_shares`): ``"A and B have an equal actDCF in every one of 200 resamplings ..."``
        when they never differ."""
        label, scale, unit = _METRIC_WORDS[metric]
        low, high = (scale * x for x in self.interval(metric))
        differences = self.differences[metric].to_numpy()
        a, b = self.a.name or "A", self.b.name or "B"
        shares = paired_shares(differences, a, b, label, "of the trials")
        return (f"{shares} (paired by {self.paired_by}): {b} minus {a} is {scale * self._estimate(metric):+.3g}{unit} "
                f"({self.interval_words} {low:+.3g} to {high:+.3g}), {paired_verdict(low, high, differences)}.")

    def to_frame(self, *, eer_percent: bool = False) -> pd.DataFrame:
        """One row per metric: A, B, ``difference`` (B - A), its interval, ``b_better``, ``method`` (e.g.
        ``"95 % BCa"``) and ``paired_by``.

        With ``eer_percent=True`` the EER row's A, B, difference and interval are in % (points), as in
        :func:`~llrcore.metrics_table` with the same option; ``b_better`` stays a fraction."""
        scales = {m: 100.0 if m == "eer" and eer_percent else 1.0 for m in BOOTSTRAP_METRICS}
        rows = {m: (*(scales[m] * v for v in (getattr(self.a, m), getattr(self.b, m), self._estimate(m),
                                              *self.interval(m))), self.b_better(m))
                for m in BOOTSTRAP_METRICS}
        frame = pd.DataFrame.from_dict(rows, orient="index",
                                       columns=["a", "b", "difference", "lower", "upper", "b_better"])
        frame["method"] = _method_label(self.level, self.method)
        frame["paired_by"] = self.paired_by
        frame.index.name = "metric"
        return frame


def compare_systems(a: Trials, b: Trials, n: int = 1000, level: float = 0.95, group_by: str | None = None,
                    seed: int = 0, *, p_target: float | OperatingPoint = 0.01, c_miss: float = 1.0, c_fa: float = 1.0,
                    primary: Sequence[float] | str = SRE12_P_TARGETS, method: str = DEFAULT_METHOD,
                    progress: Progress | None = None, threads: int | None = None) -> SystemComparison:
    """Is system B better than A on the same trials? A paired bootstrap: every replicate draws the same trials for
    both, so what the trials have in common cancels from the difference.

    The trials are paired as :func:`~llrcore.align_systems` pairs them (the same code,
    :func:`llrcore.data.pairing.pair_trials`): by the first id group both sets have (``model`` and ``test``, else
    ``utt``, else ``trial``), whatever the order of the lines; by line order when they have none (the two sets must
    then have as many targets and non-targets) or when their ids repeat but agree row by row. The result's
    :attr:`~SystemComparison.paired_by` says which.

    Parameters
    ----------
    a, b : Trials
        The two systems' scores of the same trials (taken as LLRs for the actual costs).
    n : int
        Number of replicates.
    level : float
        Coverage of the intervals of the differences, in (0, 1).
    group_by : str, optional
        A metadata column of A whose values are drawn whole (as in :func:`bootstrap`).
    seed : int
        Seed of ``numpy.random.default_rng``.
    p_target, c_miss, c_fa
        The operating point of minDCF and actDCF (`p_target` may be an :class:`~llrcore.OperatingPoint`).
    primary : sequence of float or str
        The P_target values of Cprimary, or a NIST evaluation's name (``"SRE16"``); default SRE'12's.
    method : {"bca", "percentile"}
        BCa intervals (the default) or percentile intervals of the differences.
    progress : callable, optional
        Called as ``progress(done, n)`` after each replicate, in the calling thread.
    threads : int, optional
        Replicates computed at once (:func:`~llrcore.thread_count`). No number depends on it.

    Returns
    -------
    SystemComparison
        ``metric(B) - metric(A)`` per replicate; a system compared with itself gives differences of exactly 0.

    Raises
    ------
    ValueError
        With a sentence when the two sets are not the same trials, or their ids repeat in a different order.
    """
    op, primary = as_operating_point(p_target, c_miss, c_fa), primary_p_targets(primary)
    n, level = check_replicates(n, level)
    method = check_method(method)
    pairing = pair_trials(a.name or "A", a, b.name or "B", b,
                          remedy="Compare systems scored on the same trial list.")
    b_order = _class_positions(pairing.positions, a, b)
    draw = Draws.of(a, group_by, seed)
    with parallel.thread_limit(threads):
        tables = _prepared(a.sorted), _prepared(b.sorted)
        order_a = tables[0].trial_order(a.tar, a.non)
        order_b = tuple(_inverse(position)[order]
                        for position, order in zip(b_order, tables[1].trial_order(b.tar, b.non)))
        estimates = (evaluate(a, p_target=op, name=a.name, primary=primary),
                     evaluate(b, p_target=op, name=b.name, primary=primary))

    metrics_row = _ReplicateMetrics(op, primary)

    def differences(counts_a, counts_b):
        return [vb - va for va, vb in zip(metrics_row(counts_a), metrics_row(counts_b))]

    def replicate(weights: tuple[np.ndarray, ...]):
        tar_weights, non_weights = weights
        return differences(*(_reweighted(table, tar_weights, non_weights, order)
                             for table, order in zip(tables, (order_a, order_b))))

    rows = []
    replicates = parallel.ordered_map(lambda drawn: replicate(draw.weights(drawn)), draw.replicates(n), threads,
                                      window=_window(2 * len(a), threads))
    for done, row in enumerate(replicates, start=1):
        rows.append(row)
        if progress is not None:
            progress(done, n)
    return SystemComparison(a=estimates[0], b=estimates[1],
                            differences=pd.DataFrame(rows, columns=list(BOOTSTRAP_METRICS)), level=level,
                            group_by=group_by, method=method,
                            acceleration=_acceleration(draw, list(tables), [order_a, order_b], differences,
                                                        method, threads),
                            paired_by=pairing.describe())


def _class_positions(positions: np.ndarray | None, a: Trials, b: Trials) -> tuple[np.ndarray, np.ndarray]:
    """For each target and non-target of A, the position of the same trial among B's targets and non-targets (the
    pairing checked that they have the same labels)."""
    if positions is None:
        return np.arange(a.tar.size), np.arange(a.non.size)
    return positions[:a.tar.size], positions[a.tar.size:a.tar.size + a.non.size] - b.tar.size
