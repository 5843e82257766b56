"""Conditions and confidence in a report: the breakdown of every system and its bootstrap intervals.

:func:`resample` breaks each system down by the chosen metadata column(s) (:func:`~llrcore.evaluate_by_condition`)
and draws its bootstrap replicates (:func:`~llrcore.bootstrap`; with conditions,
:meth:`~llrcore.ConditionMetrics.bootstrap`, whose pooled row is the same draws as ``bootstrap`` of all the trials
with the same seed). The sentences that say them are in :mod:`~llrcore.report.summary`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..data.trials import Trials
from ..prior import OperatingPoint
from ..uncertainty.conditions import evaluate_by_condition
from ..uncertainty.intervals import DEFAULT_METHOD, interval_words
from ..uncertainty.resampling import bootstrap
from .summary import SystemExtras

__all__ = ["Breakdown", "Resampling", "resample"]

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Resampling:
    """How the report's confidence intervals were drawn.

    Attributes
    ----------
    level : float
        Coverage of the intervals (BCa, :func:`~llrcore.bootstrap`'s default), e.g. 0.95.
    replicates : int
    group_by : str or None
        The metadata column whose groups were drawn whole (None: trials one by one).
    seed : int
    ungrouped : tuple of str
        Systems without the `group_by` column, whose trials were drawn one by one.
    """

    level: float
    replicates: int
    group_by: str | None
    seed: int
    ungrouped: tuple[str, ...] = ()

    def describe(self) -> str:
        """``"95 % BCa bootstrap, 1,000 replicates, trials drawn one by one, seed 0"``."""
        how = f"whole {self.group_by} groups drawn" if self.group_by else "trials drawn one by one"
        if self.ungrouped:
            how += f" (one by one for {', '.join(self.ungrouped)}: no column {self.group_by!r})"
        drawn = self.interval_words.removesuffix(" interval")
        return f"{drawn}, {self.replicates:,} replicates, {how}, seed {self.seed}"

    @property
    def interval_words(self) -> str:
        """``"95 % BCa bootstrap interval"`` (:func:`~llrcore.bootstrap`'s default method, which the report draws)."""
        return interval_words(self.level, DEFAULT_METHOD)


@dataclass(frozen=True)
class Breakdown:
    """The conditions of a report: the column(s) broken down by and the systems that do not have them."""

    by: tuple[str, ...]
    lacking: tuple[str, ...] = ()

    @property
    def words(self) -> str:
        """``"attack"``, ``"gender × language"``."""
        return " × ".join(self.by)


def resample(systems: Mapping[str, Trials], op: OperatingPoint, by: Sequence[str], level: float | None,
             replicates: int, group_by: str | None, seed: int, progress: Progress | None = None
             ) -> tuple[dict[str, SystemExtras], Breakdown | None, Resampling | None]:
    """Break every system down by `by` (if any) and draw its bootstrap intervals (if `level` is given).

    A system without the `by` columns is not broken down; one without the `group_by` column has its trials drawn
    one by one; both are said in the result. `progress(done, total)` counts replicates over every system.

    Raises
    ------
    ValueError
        When no system has the `by` columns.
    """
    by = tuple(by)
    lacking = tuple(name for name, trials in systems.items() if by and not set(by) <= set(trials.conditions))
    if by and len(lacking) == len(systems):
        columns = dict.fromkeys(c for trials in systems.values() for c in trials.conditions)
        raise ValueError(f"No system has the column{'s' if len(by) > 1 else ''} {', '.join(map(repr, by))} to break "
                         f"down by; their columns are {', '.join(columns) or 'none'}.")
    conditions = {name: evaluate_by_condition(trials, by, p_target=op) for name, trials in systems.items()
                  if by and name not in lacking}
    breakdown = Breakdown(by, lacking) if by else None
    if level is None:
        return ({name: SystemExtras(conditions=conditions.get(name), by=by) for name in systems}, breakdown, None)
    groups = {name: group_by if group_by in trials.conditions else None for name, trials in systems.items()}
    runs = {name: sum(row.trials is not None for row in conditions[name].rows) if name in conditions else 1
            for name in systems}
    total, done, extras = replicates * sum(runs.values()), 0, {}
    for name, trials in systems.items():
        step = None if progress is None else (lambda d, _, offset=done: progress(offset + d, total))
        options: dict[str, Any] = dict(n=replicates, level=level, group_by=groups[name], seed=seed, progress=step)
        if name in conditions:  # the pooled row is bootstrap(trials) with the same draws
            per_condition = conditions[name].bootstrap(**options)
            interval = per_condition[conditions[name].pooled.label]
        else:
            per_condition, interval = None, bootstrap(trials, p_target=op, **options)
        extras[name] = SystemExtras(interval, conditions.get(name), per_condition, by, group_by)
        done += replicates * runs[name]
    ungrouped = tuple(name for name, group in groups.items() if group_by and group is None)
    return extras, breakdown, Resampling(level, replicates, group_by, seed, ungrouped)
