"""Validated data objects: the only way trials enter the library.

Every analysis takes these (or plain arrays that are validated the same way), so checks for NaN, empty classes
and wrong shapes live here once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = ["Trials", "as_scores"]


def as_scores(values, what: str) -> np.ndarray:
    """Return `values` as a 1-D float64 array, refusing NaN and empty input.

    ``+inf`` and ``-inf`` are valid LLRs (certainty) and are kept.

    Raises
    ------
    ValueError
        With a sentence naming `what` when the values are empty, not numbers, not 1-D or contain NaN.
    """
    try:
        scores = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise ValueError(f"The {what} must be numbers.") from None
    if scores.ndim != 1:
        raise ValueError(f"The {what} must be a flat list of numbers, not a {scores.ndim}-D array.")
    if scores.size == 0:
        raise ValueError(f"There are no {what}: at least one is needed.")
    if np.isnan(scores).any():
        raise ValueError(f"The {what} contain {int(np.isnan(scores).sum())} missing values (NaN).")
    return scores


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
        from .rates import SortedScores  # rates imports this module

        return SortedScores(self.tar, self.non)

    def __len__(self) -> int:
        return self.tar.size + self.non.size

    def __repr__(self) -> str:
        spoof = f", spoof={self.spoof.size}" if self.spoof.size else ""
        return f"Trials(name={self.name!r}, tar={self.tar.size}, non={self.non.size}{spoof})"
