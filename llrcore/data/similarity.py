"""The similarity matrix of one recording: the only way pairwise scores enter the diarization code.

A :class:`SimilarityMatrix` holds the ``N x N`` scores between the speech segments of a recording (PLDA LLRs,
cosine similarities, ...), optionally the segments' start and end times and a reference (one speaker label per
segment and/or the reference turns of an RTTM). It is validated once, on construction: square, finite, symmetric.
:func:`labels_from_turns` gives each segment its reference speaker from the turns of an RTTM.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["SimilarityMatrix", "as_similarity", "labels_from_turns", "TURN_COLUMNS"]

#: Columns of a table of speaker turns (what :func:`~llrcore.read_rttm` returns and the scoring code takes).
TURN_COLUMNS = ["uri", "channel", "start", "end", "speaker"]

#: Largest relative asymmetry ``max|S - S.T| / max|S|`` accepted silently (float32 round-off of saved matrices).
_SYMMETRY_TOLERANCE = 1e-6


def as_similarity(scores, what: str = "similarity matrix") -> tuple[np.ndarray, str | None]:
    """Validate `scores` as a square, finite matrix; return it as symmetric float64 and a note if it was not symmetric.

    An asymmetric matrix (score(i, j) != score(j, i) beyond float32 round-off, as some scorers give) is replaced by
    ``(S + S.T) / 2``; the note says so (the callers turn it into a :class:`UserWarning`).

    Raises
    ------
    ValueError
        With a sentence when the matrix is not square, not numbers, empty, or holds NaN or infinite values
        (naming the first one by row and column, counted from 1).
    """
    try:
        matrix = np.array(scores, dtype=np.float64)  # a copy: the caller's array is never changed
    except (TypeError, ValueError):
        raise ValueError(f"The {what} must hold numbers only.") from None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"The {what} must be square (N x N), not of shape {matrix.shape}.")
    if matrix.shape[0] == 0:
        raise ValueError(f"The {what} is empty: at least one segment is needed.")
    bad = ~np.isfinite(matrix)
    if bad.any():
        row, column = (int(v) + 1 for v in np.unravel_index(int(np.argmax(bad)), matrix.shape))
        kind = "missing (NaN)" if np.isnan(matrix[row - 1, column - 1]) else "infinite"
        raise ValueError(f"The {what} holds {int(bad.sum()):,} missing or infinite values, the first ({kind}) at row "
                         f"{row}, column {column}; every pair of segments needs a finite score.")
    scale = float(np.abs(matrix).max()) or 1.0
    asymmetry = float(np.abs(matrix - matrix.T).max())
    note = None
    if asymmetry > _SYMMETRY_TOLERANCE * scale:
        note = (f"The {what} is not symmetric (largest |S[i, j] - S[j, i]| = {asymmetry:.3g}); it was replaced by "
                "(S + S.T) / 2.")
    matrix = 0.5 * (matrix + matrix.T)  # also removes round-off asymmetry exactly
    return matrix, note


def _optional_times(values, n: int, what: str) -> np.ndarray | None:
    if values is None:
        return None
    times = np.asarray(values, dtype=np.float64).reshape(-1)
    if times.size != n:
        raise ValueError(f"There are {n} segments in the matrix but {times.size} {what} times.")
    if not np.isfinite(times).all():
        raise ValueError(f"The segment {what} times must be finite numbers.")
    return times


@dataclass(frozen=True, eq=False)  # arrays inside: equality and hash are identity
class SimilarityMatrix:
    """Pairwise scores between the N speech segments of one recording, with optional times and reference.

    Parameters
    ----------
    scores : array_like, shape (N, N)
        Similarity of every pair of segments (higher = more likely the same speaker). Must be finite; an
        asymmetric matrix is symmetrised as ``(S + S.T) / 2`` with a warning. The diagonal is never used.
    start, end : array_like, shape (N,), optional
        Segment times in seconds (both or neither); needed for turns, RTTM output and the DER.
    reference : array_like of str, shape (N,), optional
        The reference speaker of every segment (e.g. by majority overlap with a reference RTTM).
    reference_turns : pandas.DataFrame, optional
        Reference speaker turns (columns :data:`TURN_COLUMNS`, as :func:`~llrcore.read_rttm` returns), used for
        the time-based DER.
    uri : str
        The recording's name (RTTM "file" field).
    name : str
        Shown in titles and legends.
    notes : tuple of str
        What the reader had to fix (e.g. that the matrix was symmetrised), for the app to show.
    """

    scores: np.ndarray
    start: np.ndarray | None = None
    end: np.ndarray | None = None
    reference: np.ndarray | None = None
    reference_turns: pd.DataFrame | None = None
    uri: str = "recording"
    name: str = ""
    notes: tuple = field(default_factory=tuple)

    def __post_init__(self):
        scores, note = as_similarity(self.scores)
        if note:
            warnings.warn(note, UserWarning, stacklevel=3)
            object.__setattr__(self, "notes", tuple(self.notes) + (note,))
        n = scores.shape[0]
        scores.flags.writeable = False
        object.__setattr__(self, "scores", scores)
        if (self.start is None) != (self.end is None):
            raise ValueError("Give both the start and the end times of the segments, or neither.")
        start = _optional_times(self.start, n, "start")
        end = _optional_times(self.end, n, "end")
        if start is not None and end is not None and (end < start).any():  # (both or neither)
            first = int(np.argmax(end < start))
            raise ValueError(f"Segment {first + 1} ends ({end[first]:g} s) before it starts ({start[first]:g} s).")
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        if self.reference is not None:
            reference = np.asarray(self.reference).astype(str).reshape(-1)
            if reference.size != n:
                raise ValueError(f"There are {n} segments in the matrix but {reference.size} reference labels.")
            object.__setattr__(self, "reference", reference)
        if self.reference_turns is not None:
            missing = set(TURN_COLUMNS) - set(self.reference_turns.columns)
            if missing:
                raise ValueError(f"The reference turns lack the columns {sorted(missing)}.")
        for array in (self.start, self.end, self.reference):
            if array is not None:
                array.flags.writeable = False

    @property
    def n_segments(self) -> int:
        return int(self.scores.shape[0])

    @property
    def has_times(self) -> bool:
        return self.start is not None

    @property
    def n_reference_speakers(self) -> int | None:
        """Number of distinct reference speakers (from the labels, else from the turns), None without reference."""
        if self.reference is not None:
            return int(np.unique(self.reference).size)
        if self.reference_turns is not None:
            return int(self.reference_turns["speaker"].nunique())
        return None

    def __len__(self) -> int:
        return self.n_segments

    def __repr__(self) -> str:
        extras = [f"N={self.n_segments}"]
        if self.start is not None and self.end is not None:  # (has_times)
            extras.append(f"{self.start.min():g}-{self.end.max():g} s")
        if self.n_reference_speakers is not None:
            extras.append(f"{self.n_reference_speakers} reference speakers")
        return f"SimilarityMatrix(name={self.name!r}, uri={self.uri!r}, {', '.join(extras)})"


def labels_from_turns(start, end, turns: pd.DataFrame) -> np.ndarray:
    """Reference speaker of each segment: the speaker with the most time inside it (ties: first in sorted order).

    Segments that overlap no turn get the label ``""``.
    """
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    speakers = np.unique(turns["speaker"].astype(str).to_numpy())
    overlap = np.zeros((start.size, speakers.size))
    index = np.searchsorted(speakers, turns["speaker"].astype(str).to_numpy())
    for t0, t1, k in zip(turns["start"].to_numpy(float), turns["end"].to_numpy(float), index):
        overlap[:, k] += np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0.0, None)
    labels = speakers[np.argmax(overlap, axis=1)] if speakers.size else np.full(start.size, "")
    return np.where(overlap.max(axis=1, initial=0.0) > 0, labels, "")
