"""md-eval's DER of one recording, computed exactly on the elementary intervals between the turns' boundaries.

NIST md-eval-22 (which dscore runs) scores the UEM less a collar of `collar` seconds on each side of every
reference turn boundary as written and, with `skip_overlap` (md-eval ``-1``), less every stretch where two reference
turns as written overlap. Each speaker's own turns are merged (a speaker talks at most once at a time, reference and
system alike), and the system speakers are mapped one-to-one onto the reference speakers so that they talk together
the most seconds over the whole UEM (Hungarian algorithm). Between consecutive boundaries of all the turns and
regions nothing changes, so on each such interval of length ``d`` inside the scored region, with ``n_ref`` and
``n_sys`` the speakers talking and ``n_correct`` the mapped pairs talking together::

    total += d n_ref            missed      += d max(0, n_ref - n_sys)
    false_alarm += d max(0, n_sys - n_ref)    confusion += d (min(n_ref, n_sys) - n_correct)

The same sums as pyannote.metrics' segment-by-segment loop over its timelines (``IdentificationErrorRate`` on the
merged turns, mapped by its ``HungarianMapper``: ties between equally good mappings are broken as it breaks them),
in a few array operations: the AMI dev set of VBx's table in milliseconds instead of seconds.

References: NIST, md-eval-22.pl (RT-09 evaluation plan); N. Ryant, dscore (github.com/nryant/dscore); H. Bredin,
"pyannote.metrics", Interspeech 2017.
"""
from __future__ import annotations

from string import ascii_uppercase

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

__all__ = ["md_eval_components"]

#: Turns no longer than this (seconds) are no turns (pyannote.core's SEGMENT_PRECISION, which scored them so).
PRECISION = 1e-6


def md_eval_components(reference: pd.DataFrame, hypothesis: pd.DataFrame, scored: np.ndarray, *, collar: float,
                       skip_overlap: bool) -> dict:
    """Seconds of scored reference speech and of each error of one recording, as md-eval counts them.

    Parameters
    ----------
    reference, hypothesis : pandas.DataFrame
        The recording's speaker turns (columns ``start, end, speaker``), as written.
    scored : array_like, shape (k, 2)
        The UEM's regions (start, end) in seconds.
    collar : float
        Seconds on each side of every reference boundary (md-eval ``-c``).
    skip_overlap : bool
        Leave out the stretches where two reference turns overlap (md-eval ``-1``).

    Returns
    -------
    dict
        ``total, missed, false_alarm, confusion`` in seconds.
    """
    ref_start, ref_end, ref_speaker, ref_labels = _turns(reference)
    sys_start, sys_end, sys_speaker, sys_labels = _turns(hypothesis)
    uem = np.asarray(scored, dtype=np.float64).reshape(-1, 2)
    zones = []
    if collar > 0:
        bounds = np.concatenate([ref_start, ref_end])
        zones.append(np.column_stack([bounds - collar, bounds + collar]))
    if skip_overlap:
        zones.append(_where_covered(ref_start, ref_end, at_least=2))
    region = _difference(uem, np.concatenate(zones)) if zones else uem
    points = np.unique(np.concatenate([ref_start, ref_end, sys_start, sys_end, uem.ravel(), region.ravel()]))
    length = np.diff(points)
    ref = _talking(points, ref_start, ref_end, ref_speaker, ref_labels.size)
    sys = _talking(points, sys_start, sys_end, sys_speaker, sys_labels.size)
    in_uem = length * (_coverage(points, uem[:, 0], uem[:, 1]) > 0)
    together = (ref * in_uem[:, None]).T @ sys  # seconds each reference and system speaker talk together in the UEM
    pairs = _mapping(together, ref_labels, sys_labels, present=(ref.T @ in_uem > PRECISION, sys.T @ in_uem > PRECISION))
    n_ref, n_sys = ref.sum(axis=1), sys.sum(axis=1)
    n_correct = sum((ref[:, r] * sys[:, s] for r, s in pairs), np.zeros_like(length))
    weight = length * (_coverage(points, region[:, 0], region[:, 1]) > 0)
    return {"total": float(weight @ n_ref), "missed": float(weight @ np.maximum(0.0, n_ref - n_sys)),
            "false_alarm": float(weight @ np.maximum(0.0, n_sys - n_ref)),
            "confusion": float(weight @ (np.minimum(n_ref, n_sys) - n_correct))}


def _turns(turns: pd.DataFrame):
    """Start and end times, speaker indices and the speakers (names sorted as strings) of the turns that are turns."""
    start = turns["start"].to_numpy(dtype=np.float64)
    end = turns["end"].to_numpy(dtype=np.float64)
    kept = end - start > PRECISION
    names = turns["speaker"].astype(str).to_numpy()[kept]
    labels, speaker = np.unique(names, return_inverse=True)
    return start[kept], end[kept], speaker.reshape(-1), labels


def _coverage(points: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """How many of the intervals [start, end) cover each elementary interval between consecutive `points` (every
    start and end among the points)."""
    steps = np.zeros(points.size)
    np.add.at(steps, np.searchsorted(points, start), 1.0)
    np.add.at(steps, np.searchsorted(points, end), -1.0)
    return np.cumsum(steps)[:-1]


def _talking(points: np.ndarray, start: np.ndarray, end: np.ndarray, speaker: np.ndarray, speakers: int) -> np.ndarray:
    """1 where a speaker talks on an elementary interval, else 0: (intervals, speakers), the turns merged."""
    steps = np.zeros((points.size, speakers))
    np.add.at(steps, (np.searchsorted(points, start), speaker), 1.0)
    np.add.at(steps, (np.searchsorted(points, end), speaker), -1.0)
    return (np.cumsum(steps, axis=0)[:-1] > 0).astype(np.float64)


def _intervals(points: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The elementary intervals marked `inside`, consecutive ones joined: (k, 2)."""
    edges = np.diff(np.concatenate([[0], inside.astype(np.int8), [0]]))
    return np.column_stack([points[np.flatnonzero(edges == 1)], points[np.flatnonzero(edges == -1)]])


def _where_covered(start: np.ndarray, end: np.ndarray, *, at_least: int) -> np.ndarray:
    points = np.unique(np.concatenate([start, end]))
    return _intervals(points, _coverage(points, start, end) >= at_least)


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The union of the intervals `a` less that of the intervals `b` (either may overlap among themselves)."""
    points = np.unique(np.concatenate([a.ravel(), b.ravel()]))
    return _intervals(points, (_coverage(points, a[:, 0], a[:, 1]) > 0) & (_coverage(points, b[:, 0], b[:, 1]) == 0))


def _mapping(together: np.ndarray, ref_labels: np.ndarray, sys_labels: np.ndarray, present) -> list[tuple[int, int]]:
    """(reference, system) speaker pairs of the most seconds together, with pyannote.metrics' order of rows and columns
    (so that equally good mappings are told apart as it tells them): its reference speakers renamed A, B, ... and its
    system speakers 0, 1, ... in the order of their names, each set then sorted by the new names as strings, the
    speakers absent from the UEM left out; pairs of no time together are no pairs."""
    ref_order = [r for r in sorted(range(ref_labels.size), key=_letters) if present[0][r]]
    sys_order = [s for s in sorted(range(sys_labels.size), key=str) if present[1][s]]
    if not ref_order or not sys_order:
        return []
    seconds = together[np.ix_(ref_order, sys_order)].T  # pyannote's matrix: system rows, reference columns
    rows, columns = linear_sum_assignment(-seconds)
    return [(ref_order[c], sys_order[r]) for r, c in zip(rows, columns) if seconds[r, c] > 0]


def _letters(k: int) -> str:
    """pyannote.core's k-th generated string label: A..Z, AA..ZZ, AAA, ..."""
    width = 1
    while k >= 26 ** width:
        k -= 26 ** width
        width += 1
    letters = []
    for _ in range(width):
        k, digit = divmod(k, 26)
        letters.append(ascii_uppercase[digit])
    return "".join(reversed(letters))
