"""A paired comparison of two systems in words: how often each did better over the resamplings of a paired
bootstrap (:func:`paired_shares`), and what the interval of their difference says (:func:`paired_verdict`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["paired_shares", "paired_verdict"]


def _share(count: int, n: int) -> str:
    """``count`` of ``n`` as a whole percentage that says 0 % or 100 % only when it is exactly that (``"under 1 %"``,
    ``"over 99 %"`` otherwise)."""
    value = 100 * count / n
    if 0 < value < 0.5:
        return "under 1 %"
    if 99.5 <= value < 100:
        return "over 99 %"
    return f"{value:.0f} %"


def paired_shares(differences, a: str, b: str, label: str, of: str) -> str:
    """How often each of two systems did better over the resamplings of a paired bootstrap, in words: wins, losses
    and ties counted apart, so that equal costs are never called a win. `differences` are B minus A per replicate of
    a cost or an error rate (negative: B better); `of` says what was resampled.

    ``"B has a lower EER than A in 97 % of 1,000 resamplings of the trials"`` (no ties);
    ``"B has a lower actDCF than A in 60 % of 200 resamplings of the trials, A in 10 %, and they are equal in 30 %"``;
    ``"A and B have an equal actDCF in every one of 200 resamplings of the trials"``.
    """
    d = np.asarray(differences, dtype=np.float64)
    b_wins, a_wins, ties = (int(np.count_nonzero(x)) for x in (d < 0, d > 0, d == 0))
    if ties == d.size:
        return f"{a} and {b} have an equal {label} in every one of {d.size:,} resamplings {of}"
    better, worse, wins, losses = (b, a, b_wins, a_wins) if b_wins >= a_wins else (a, b, a_wins, b_wins)
    text = f"{better} has a lower {label} than {worse} in {_share(wins, d.size)} of {d.size:,} resamplings {of}"
    return text + (f", {worse} in {_share(losses, d.size)}, and they are equal in {_share(ties, d.size)}"
                   if ties else "")


def paired_verdict(low: float, high: float, differences) -> str:
    """What a paired difference's interval (`low`, `high`) says: ``"so the difference is very likely real"`` when it
    leaves out 0, ``"so the difference could be chance"`` when it holds 0, ``"so these trials do not tell them
    apart"`` when every replicate's difference is exactly 0."""
    if np.all(np.asarray(differences) == 0):
        return "so these trials do not tell them apart"
    return f"so the difference {'is very likely real' if low > 0 or high < 0 else 'could be chance'}"
