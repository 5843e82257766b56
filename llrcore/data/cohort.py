"""Cohort scores: every enrolment model (or every test segment) scored against the same cohort of impostor
recordings, held as one dense matrix ``ids x cohort`` — what score normalisation (Z-, T-, S- and adaptive S-norm)
takes its statistics from.

Built from the long table WeSpeaker- and SpeechBrain-style pipelines write (``model cohort score``, one line per
pair: :meth:`CohortScores.from_frame`, and :func:`llrcore.io.cohort.read_cohort_scores` for files) or from embeddings
(:meth:`CohortScores.from_embeddings`, cosine scores as both toolkits compute them).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["CohortScores", "CohortProblem"]


class CohortProblem(ValueError):
    """A long table of cohort scores that is not one score per (id, cohort id) pair.

    Attributes
    ----------
    reason : str
        The problem as a sentence.
    row : int or None
        The 0-based row of the table where it shows (a repeated pair), None when no one row is at fault.
    """

    def __init__(self, reason: str, row: int | None = None):
        self.reason = reason
        self.row = row
        super().__init__(reason)


@dataclass(frozen=True, eq=False)  # arrays inside: equality and hash are identity
class CohortScores:
    """Scores of ids (enrolment models or test segments) against a cohort, as a dense matrix.

    Parameters
    ----------
    ids : array_like of str
        The scored ids, all different: one row of `scores` each.
    scores : array_like, shape (len(ids), len(cohort))
        ``scores[i, j]``: the score of ``ids[i]`` against cohort recording ``cohort[j]``; float32 is kept as is
        (statistics are computed in float64). NaN is refused.
    cohort : array_like of str, optional
        The cohort's ids (default ``"0", "1", ...``); used to find cohort recordings that are also trial ids.
    name : str
        Shown in messages (e.g. the file name).
    """

    ids: np.ndarray
    scores: np.ndarray
    # None in, "0", "1", ... once built: the annotation is the attribute's (mypy reads it for __init__ too)
    cohort: np.ndarray = None  # type: ignore[assignment]
    name: str = ""

    def __post_init__(self):
        ids = np.asarray(self.ids).astype(str).reshape(-1)
        scores = np.asarray(self.scores)
        if scores.dtype not in (np.float32, np.float64):
            scores = scores.astype(np.float64)
        if scores.ndim != 2 or scores.shape[0] != ids.size:
            raise ValueError(f"The cohort scores must be a matrix with one row per id ({ids.size:,} ids), not an "
                             f"array of shape {scores.shape}.")
        if scores.shape[1] < 2:
            raise ValueError("A cohort needs at least 2 recordings to give a mean and a standard deviation.")
        if np.isnan(scores).any():
            raise ValueError("The cohort scores contain NaN; every id needs a score against every cohort recording.")
        unique, counts = np.unique(ids, return_counts=True)
        if unique.size != ids.size:
            raise ValueError(f"The id {unique[counts > 1][0]!r} has more than one row of cohort scores.")
        cohort = (np.arange(scores.shape[1]) if self.cohort is None else np.asarray(self.cohort)).astype(str)
        if cohort.shape != (scores.shape[1],):
            raise ValueError(f"There are {cohort.size:,} cohort ids for {scores.shape[1]:,} columns of scores.")
        scores.flags.writeable = False
        for attribute, value in (("ids", ids), ("scores", scores), ("cohort", cohort)):
            object.__setattr__(self, attribute, value)

    @property
    def size(self) -> int:
        """The number of cohort recordings (columns)."""
        return self.scores.shape[1]

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "") -> "CohortScores":
        """From a long table with columns ``id, cohort, score`` (in that order; any names, e.g. ``model cohort
        score``), one row per pair, every id scored against every cohort recording exactly once.

        Raises
        ------
        CohortProblem
            For a repeated pair (its row given) or a missing one (an id and how many cohort scores it has).
        """
        if frame.shape[1] != 3:
            raise CohortProblem(f"A cohort table has 3 columns (id, cohort id, score), not {frame.shape[1]}.")
        id_codes, ids = pd.factorize(frame.iloc[:, 0], sort=False)
        cohort_codes, cohort = pd.factorize(frame.iloc[:, 1], sort=False)
        values = pd.to_numeric(frame.iloc[:, 2], errors="coerce").to_numpy(np.float64)
        if np.isnan(values).any():
            row = int(np.flatnonzero(np.isnan(values))[0])
            raise CohortProblem(f"the score {frame.iloc[row, 2]!r} is not a number.", row)
        n, m = ids.size, cohort.size
        cell = id_codes.astype(np.int64) * m + cohort_codes
        counts = np.bincount(cell, minlength=n * m)
        if counts.max(initial=0) > 1:
            first = np.flatnonzero(counts > 1)[0]
            row = int(np.flatnonzero(cell == first)[1])
            raise CohortProblem(f"the pair {ids[first // m]!s} / {cohort[first % m]!s} is scored twice.", row)
        if (counts == 0).any():
            short = np.bincount(id_codes, minlength=n)
            worst = int(np.argmin(short))
            raise CohortProblem(f"{ids[worst]} has {short[worst]:,} cohort scores but the cohort has {m:,} "
                                "recordings; every id needs a score against every cohort recording.")
        scores = np.empty(n * m)
        scores[cell] = values
        return cls(np.asarray(ids, dtype=str), scores.reshape(n, m), np.asarray(cohort, dtype=str), name=name)

    @classmethod
    def from_embeddings(cls, ids, embeddings, cohort_embeddings, cohort_ids=None, name: str = "") -> "CohortScores":
        """Cosine scores of `embeddings` (one row per id) against `cohort_embeddings`, as WeSpeaker's
        ``score_norm.py`` and SpeechBrain's ``CosineSimilarity`` compute them: both sides L2-normalised, then dot
        products."""
        e = np.asarray(embeddings, dtype=np.float64)
        c = np.asarray(cohort_embeddings, dtype=np.float64)
        e = e / np.linalg.norm(e, axis=1, keepdims=True)
        c = c / np.linalg.norm(c, axis=1, keepdims=True)
        return cls(ids, e @ c.T, cohort_ids, name=name)

    def to_frame(self) -> pd.DataFrame:
        """The long table ``id, cohort, score``, one row per pair (ids in order, then cohort ids in order)."""
        n, m = self.scores.shape
        return pd.DataFrame({"id": np.repeat(self.ids, m), "cohort": np.tile(self.cohort, n),
                             "score": self.scores.reshape(-1).astype(np.float64)})
