"""Binary trials: the scores of target and non-target trials of one system, validated once.

Every binary analysis takes a :class:`Trials` (or two arrays validated the same way, :func:`~llrcore.data.checks.
as_scores`); :func:`as_systems` turns the ``systems`` argument of figures and reports into ``{name: Trials}``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .checks import as_scores

__all__ = ["Trials", "as_systems"]


@dataclass(frozen=True, eq=False)  # arrays inside: equality and hash are identity
class Trials:
    """Scores of binary trials: targets (H1, same source) and non-targets (H2, different sources).

    Parameters
    ----------
    tar, non : array_like
        Scores of the target and the non-target trials. NaN is refused; +-inf is allowed.
    name : str
        The system's name, shown in tables and legends.
    spoof : array_like, optional
        Scores of spoofing trials (ASVspoof files), kept apart from `non`; empty when the file has none.
    """

    tar: np.ndarray
    non: np.ndarray
    name: str = ""
    spoof: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self):
        object.__setattr__(self, "tar", as_scores(self.tar, "target scores"))
        object.__setattr__(self, "non", as_scores(self.non, "non-target scores"))
        spoof = np.asarray(self.spoof, dtype=np.float64).reshape(-1)
        if spoof.size:
            spoof = as_scores(spoof, "spoof scores")
        object.__setattr__(self, "spoof", spoof)
        for array in (self.tar, self.non, self.spoof):
            array.flags.writeable = False

    @property
    def scores(self) -> np.ndarray:
        """All target then non-target scores in one array (spoof trials not included)."""
        return np.concatenate([self.tar, self.non])

    @property
    def labels(self) -> np.ndarray:
        """Boolean labels matching :attr:`scores`: True for targets."""
        return np.concatenate([np.ones(self.tar.size, bool), np.zeros(self.non.size, bool)])

    @classmethod
    def from_labels(cls, scores, labels, name: str = "") -> "Trials":
        """Build from one array of scores and a boolean-like array of labels (True/1 = target)."""
        scores = as_scores(scores, "scores")
        labels = np.asarray(labels).astype(bool).reshape(-1)
        if labels.shape != scores.shape:
            raise ValueError(f"There are {scores.size} scores but {labels.size} labels.")
        return cls(scores[labels], scores[~labels], name=name)

    @cached_property
    def sorted(self):
        """The :class:`~llrcore.rates.SortedScores` of these trials, built on first use and kept: one sort and
        one PAV serve every metric and figure of this system."""
        from ..rates import SortedScores  # the analysis layer: imported when first needed, so data stays below it

        return SortedScores(self.tar, self.non)

    def __len__(self) -> int:
        return self.tar.size + self.non.size

    def __repr__(self) -> str:
        spoof = f", spoof={self.spoof.size}" if self.spoof.size else ""
        return f"Trials(name={self.name!r}, tar={self.tar.size}, non={self.non.size}{spoof})"


def as_systems(systems) -> dict[str, Trials]:
    """Normalise the `systems` argument of every figure function to an ordered ``{name: Trials}``.

    Accepts a mapping ``name -> Trials`` (or ``name -> (tar, non)``), a single :class:`~llrcore.data.Trials`
    (named by its ``.name``), or a sequence of ``Trials`` (named by their ``.name``, made unique).

    Raises
    ------
    ValueError
        When there is no system.
    TypeError
        When a value is not trials.
    """
    if isinstance(systems, Trials):
        items = [(systems.name, systems)]
    elif isinstance(systems, Mapping):
        items = list(systems.items())
    elif isinstance(systems, Sequence) and not isinstance(systems, (str, bytes)):
        items = [(getattr(t, "name", ""), t) for t in systems]
    else:
        raise TypeError("Give the systems as a Trials object or a mapping from system name to Trials.")
    if not items:
        raise ValueError("There is no system to plot: give at least one set of trials.")
    result: dict[str, Trials] = {}
    for position, (name, trials) in enumerate(items):
        if isinstance(trials, tuple) and len(trials) == 2:
            trials = Trials(trials[0], trials[1], name=str(name))
        if not isinstance(trials, Trials):
            raise TypeError(f"System {name!r} is a {type(trials).__name__}, not a Trials object.")
        name = str(name) if str(name) else (f"system {position + 1}" if len(items) > 1 else "system")
        unique, k = name, 2
        while unique in result:
            unique, k = f"{name} ({k})", k + 1
        result[unique] = trials
    return result
