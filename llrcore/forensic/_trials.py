"""The inputs of the forensic analyses: one :class:`~llrcore.Trials` (or its sorted scores) or two arrays of LLRs."""
from __future__ import annotations

from ..binary.metrics import sorted_scores
from ..binary.rates import SortedScores
from ..data.trials import Trials

__all__ = ["sorted_classes"]


def sorted_classes(tar, non=None) -> tuple[SortedScores, str]:
    """The :class:`~llrcore.binary.rates.SortedScores` of the same-source (target) and different-source (non-target) LLRs,
    and the system's name (that of a Trials, else ``""``).

    Raises
    ------
    ValueError
        With a sentence when a class has no LLR or an LLR is missing (NaN).
    TypeError
        For re-weighted scores (a bootstrap replicate): the forensic analyses count each trial once.
    """
    table = sorted_scores(tar, non)
    if not isinstance(table, SortedScores):
        raise TypeError("The forensic analyses need the LLRs themselves (a Trials or two arrays), not re-weighted "
                        "scores.")
    return table, tar.name if isinstance(tar, Trials) else ""
