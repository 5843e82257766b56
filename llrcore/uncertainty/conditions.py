"""Metrics per condition: one row per value of a metadata column (gender, language, channel, attack, ...) and a
pooled row, each condition flagged when it has too few errors to say much (the rule of 30), and bootstrap
intervals per condition.

Every evaluation that speaker, language and forensic people publish breaks its results down this way; the NIST SRE
plans since 2016 also average the normalised costs over such partitions (:func:`~llrcore.cprimary` with
``partition_by``). A condition's metrics are exactly those of its subset of trials (:meth:`~llrcore.Trials.split`).

References
----------
G. R. Doddington, M. A. Przybocki, A. F. Martin and D. A. Reynolds, "The NIST speaker recognition evaluation —
overview, methodology, systems, results, perspective", Speech Communication 31, 2000 (the rule of 30: to be 90 %
sure that the true error rate lies within ±30 % of the observed one, at least 30 errors must have been observed).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._format import listed
from ..binary.metrics import SRE12_P_TARGETS, BinaryMetrics, answers_by_condition, evaluate
from ..binary.tables import table_row
from ..data.trials import Trials, condition_codes
from ..parallel import thread_limit
from ..prior import OperatingPoint, as_operating_point
from .intervals import DEFAULT_METHOD
from .resampling import BootstrapResult, Progress, bootstrap

__all__ = ["MAX_CONDITIONS", "RULE_OF_30", "Condition", "ConditionColumns", "ConditionMetrics", "condition_columns",
           "evaluate_by_condition"]

RULE_OF_30 = 30
"""Fewest errors of each kind (misses and false alarms at the EER) for an error rate known to within ±30 %."""

POOLED = "pooled"

MAX_CONDITIONS = 100
"""Most values a metadata column may have to be offered as a condition: beyond, a table of its conditions is a list of
identifiers (speakers, models, utterances), each with a handful of trials."""


@dataclass(frozen=True)
class Condition:
    """One condition: its values, its trials and their metrics (None when one class is absent).

    Attributes
    ----------
    values : dict
        ``{column: value}``; ``{}`` for the pooled row.
    trials : Trials or None
    metrics : BinaryMetrics or None
    """

    values: dict
    trials: Trials | None
    metrics: BinaryMetrics | None

    @property
    def label(self) -> str:
        """``"gender=f, language=en"``, or ``"pooled"``."""
        return ", ".join(f"{c}={v}" for c, v in self.values.items()) or POOLED

    @property
    def errors_at_eer(self) -> tuple[float, float]:
        """The numbers of misses and false alarms at the EER operating point (``EER × N``)."""
        if self.metrics is None:
            return 0.0, 0.0
        return self.metrics.eer * self.metrics.n_tar, self.metrics.eer * self.metrics.n_non

    @property
    def too_few_errors(self) -> bool:
        """Fewer than :data:`RULE_OF_30` misses or false alarms at the EER: the error rates are not known to within
        ±30 % (the rule of 30)."""
        return min(self.errors_at_eer) < RULE_OF_30

    def record(self, by: Sequence[str], *, eer_percent: bool = False, interval: BootstrapResult | None = None
               ) -> dict:
        """The condition's row of a table: its value of each column of `by` (``pooled`` for the pooled row), the
        metrics named as in papers (:func:`~llrcore.metrics_table`'s, with `interval`'s bounds) and ``too few
        errors``."""
        return {**{c: self.values.get(c, POOLED) for c in by},
                **table_row(self.metrics, eer_percent=eer_percent, interval=interval),
                "too few errors": self.too_few_errors}

    def to_frame(self, *, eer_percent: bool = False) -> pd.DataFrame:
        """One row: :meth:`record` over the condition's own columns (none for the pooled row)."""
        return pd.DataFrame([self.record(tuple(self.values), eer_percent=eer_percent)])

    def note(self) -> str:
        """A sentence for a condition that cannot say much, or ``""``."""
        if self.metrics is None:
            return f"{self.label}: only one class of trials, no metric can be computed."
        if self.too_few_errors:
            misses, false_alarms = self.errors_at_eer
            return (f"{self.label}: about {misses:.0f} misses and {false_alarms:.0f} false alarms at the EER, fewer "
                    f"than {RULE_OF_30}: by the rule of 30 its error rates are not known to within ±30 %.")
        return ""


@dataclass(frozen=True)
class ConditionMetrics:
    """The metrics of each condition and of all the trials pooled.

    Attributes
    ----------
    by : tuple of str
        The metadata columns broken down by.
    conditions : list of Condition
        One per condition, in order of first appearance.
    pooled : Condition
        All the trials.
    """

    by: tuple[str, ...]
    conditions: list[Condition]
    pooled: Condition

    @property
    def rows(self) -> list[Condition]:
        """The conditions, then the pooled row."""
        return [*self.conditions, self.pooled]

    def to_frame(self, *, eer_percent: bool = False, intervals: dict[str, BootstrapResult] | None = None
                 ) -> pd.DataFrame:
        """One row per condition, then ``pooled``: the condition columns, the metrics named as in papers
        (:func:`~llrcore.metrics_table`'s) and ``too few errors``.

        Parameters
        ----------
        eer_percent : bool
            The EER in percent, in a column ``EER %``.
        intervals : dict, optional
            :meth:`bootstrap`'s result: adds ``<metric> lower`` and ``<metric> upper`` after each metric that has one,
            and ``interval method`` (``"95 % BCa"``, :func:`~llrcore.binary.tables.interval_method`).
        """
        return pd.DataFrame.from_records([row.record(self.by, eer_percent=eer_percent,
                                                     interval=(intervals or {}).get(row.label)) for row in self.rows])

    def notes(self) -> list[str]:
        """Sentences for the conditions that cannot say much: those with one class only, and those with fewer
        than :data:`RULE_OF_30` errors of a kind at their EER (the rule of 30), each kind in one sentence."""
        lonely = [row.label for row in self.rows if row.metrics is None]
        few = [row.label for row in self.rows if row.metrics is not None and row.too_few_errors]
        notes = []
        if lonely:
            notes.append(f"No metric for {listed(lonely)}: only one class of trials.")
        if few:
            notes.append(f"By the rule of 30, the error rates of {listed(few)} are not known to within ±30 %: "
                         f"{'each has' if len(few) > 1 else 'it has'} fewer than {RULE_OF_30} misses or false alarms "
                         "at its EER.")
        return notes

    def bootstrap(self, n: int = 1000, level: float = 0.95, group_by: str | None = None, seed: int = 0, *,
                  method: str = DEFAULT_METHOD, progress: Progress | None = None) -> dict[str, BootstrapResult]:
        """Bootstrap intervals of each condition and of the pooled trials (:func:`~llrcore.bootstrap`, by `method`:
        ``"bca"`` or ``"percentile"``, which each result keeps as ``.method``), keyed by :attr:`Condition.label`;
        conditions without both classes are left out. `progress(done, total)` counts replicates over all
        conditions."""
        rows = [row for row in self.rows if row.trials is not None]
        total, results = n * len(rows), {}
        for position, row in enumerate(rows):
            assert row.trials is not None and row.metrics is not None  # (a condition with both classes)
            step = None if progress is None else (lambda done, _, offset=position * n: progress(offset + done, total))
            results[row.label] = bootstrap(row.trials, n=n, level=level, group_by=group_by, seed=seed, method=method,
                                           p_target=row.metrics.operating_point, primary=row.metrics.primary,
                                           progress=step)
        return results


@answers_by_condition
def evaluate_by_condition(trials: Trials, by: str | Sequence[str], *, p_target: float | OperatingPoint = 0.01,
                          c_miss: float = 1.0, c_fa: float = 1.0, name: str = "",
                          primary: Sequence[float] | str = SRE12_P_TARGETS, threads: int | None = None
                          ) -> ConditionMetrics:
    """The metrics of :func:`~llrcore.evaluate` for every condition of `trials` and for all of them pooled.

    A condition's metrics are exactly those of its subset of the trials (:meth:`~llrcore.Trials.split`).

    Parameters
    ----------
    trials : Trials
        With metadata.
    by : str or list of str
        Metadata column(s) to break the trials down by (crossed when several); see :meth:`~llrcore.Trials.split`
        for trials that have no value.
    p_target, c_miss, c_fa
        The operating point of minDCF and actDCF; `p_target` may be an :class:`~llrcore.OperatingPoint`.
    name : str
        The name of the pooled row's system (default: the Trials' own).
    primary : sequence of float or str
        The P_target values of Cprimary, or a NIST evaluation's name (``"SRE16"``); default SRE'12's.
    threads : int, optional
        Threads for the sort and the passes over all the scores (:func:`~llrcore.thread_count`). No number depends
        on it.

    Returns
    -------
    ConditionMetrics
        One :class:`Condition` per condition, in order of first appearance, and the pooled one.
    """
    if not isinstance(trials, Trials):
        raise TypeError(f"Give one Trials with metadata to break down by a condition, not a {type(trials).__name__}.")
    op = as_operating_point(p_target, c_miss, c_fa)
    by = (by,) if isinstance(by, str) else tuple(by)
    with thread_limit(threads):
        conditions = [Condition(values, subset, None if subset is None else
                                evaluate(subset, p_target=op, name=subset.name, primary=primary))
                      for values, subset in trials.split(by)]
        pooled = Condition({}, trials, evaluate(trials, p_target=op, name=name or trials.name, primary=primary))
    return ConditionMetrics(by=by, conditions=conditions, pooled=pooled)


@dataclass(frozen=True)
class ConditionColumns:
    """Which metadata columns are conditions to break trials down by, and why the others are not.

    Attributes
    ----------
    offered : list of str
        The condition columns, in order of first appearance.
    left_out : dict
        ``{column: reason}`` for the others, e.g. ``{"utt": "one value per trial or nearly"}``.
    """

    offered: list[str]
    left_out: dict[str, str]

    def to_frame(self) -> pd.DataFrame:
        """One row per metadata column: ``column``, ``offered`` and ``why not`` (``""`` for an offered one)."""
        return pd.DataFrame({"column": [*self.offered, *self.left_out], "offered": [True] * len(self.offered)
                             + [False] * len(self.left_out), "why not": [""] * len(self.offered)
                             + list(self.left_out.values())})

    def note(self) -> str:
        """One sentence naming the columns left out and why, or ``""``."""
        if not self.left_out:
            return ""
        return (f"Not offered as conditions: {listed([f'{c} ({why})' for c, why in self.left_out.items()])}; "
                "identifiers rather than conditions.")


def condition_columns(trials: Trials | Iterable[Trials], *, max_values: int = MAX_CONDITIONS) -> ConditionColumns:
    """The metadata columns whose values repeat enough to be conditions (gender, language, attack), and the ones
    left out (per-trial or per-speaker identifiers) with the reason.

    A column is left out when no scored trial has a value in it, when it has more distinct values than half the
    trials that have one (one value per trial or nearly: an utterance id), or more than `max_values` values (a
    model or speaker id: a table of hundreds of conditions, each with a few trials). Values are counted over the
    target and non-target trials that have one (:meth:`~llrcore.Trials.split`'s rule).

    Parameters
    ----------
    trials : Trials or iterable of Trials
        With several systems, a column is offered when it is a condition of any of them; a column left out of all
        of them keeps the reason of the first.
    max_values : int
        The most values a condition column may have (:data:`MAX_CONDITIONS`).

    Returns
    -------
    ConditionColumns
        ``offered``, the condition columns in order of first appearance, and ``left_out``, each other column with
        its reason in words.
    """
    systems = [trials] if isinstance(trials, Trials) else list(trials)
    reasons: dict[str, list] = {}  # every column in order of first appearance: its reason in each system
    for system in systems:
        scored = system.metadata.iloc[:len(system)]
        for column in system.conditions:
            reasons.setdefault(column, []).append(_not_a_condition(scored[column], max_values))
    return ConditionColumns([c for c, why in reasons.items() if None in why],
                            {c: why[0] for c, why in reasons.items() if None not in why})


def _not_a_condition(column: pd.Series, max_values: int) -> str | None:
    """Why a metadata column (its scored trials' values) is no condition, or None when it is one."""
    codes, values = condition_codes(column)
    with_value = int(np.count_nonzero(codes >= 0))
    if with_value == 0:
        return "no value on any trial"
    if 2 * len(values) > with_value:
        return "one value per trial or nearly"
    if len(values) > max_values:
        return f"{len(values):,} values, more than {max_values}"
    return None
