"""Checks every score array passes on its way into the library: numbers, flat, not empty, no NaN.

``+inf`` and ``-inf`` are valid LLRs (certainty) and pass.
"""
from __future__ import annotations

import numpy as np

__all__ = ["as_scores", "sorted_scores", "unique_of_sorted"]


def as_scores(values, what: str) -> np.ndarray:
    """Return `values` as a 1-D float64 array, refusing NaN and empty input.

    ``+inf`` and ``-inf`` are valid LLRs (certainty) and are kept.

    Raises
    ------
    ValueError
        With a sentence naming `what` when the values are missing (None), empty, not numbers, not 1-D or contain
        NaN.
    """
    if values is None:
        raise ValueError(f"The {what} are missing: give them as well (e.g. both the target and the non-target "
                         "scores).")
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


def sorted_scores(values, what: str) -> np.ndarray:
    """:func:`as_scores`, ascending: ``np.sort`` of them, or the checked scores themselves when they are in ascending
    order already (one pass instead of a sort: a tandem's per-attack rows hand on classes sorted once)."""
    scores = as_scores(values, what)
    return scores if bool(np.all(scores[1:] >= scores[:-1])) else np.sort(scores)


def unique_of_sorted(*classes: np.ndarray) -> np.ndarray:
    """``np.unique(np.concatenate(classes))`` of classes each sorted ascending (:func:`sorted_scores`): their
    concatenation is a few ascending runs, which numpy's stable sort (timsort) merges in about one pass where
    ``np.unique`` sorts from scratch; then the first score of each run of equal ones, as ``np.unique`` keeps."""
    merged = np.sort(np.concatenate(classes), kind="stable")
    first = np.empty(merged.size, dtype=bool)
    first[:1] = True
    np.not_equal(merged[1:], merged[:-1], out=first[1:])
    return merged[first]
