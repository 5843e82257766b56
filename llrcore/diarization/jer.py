"""The Jaccard error rate (JER) as dscore computes it (DIHARD II), on 10 ms frames of the scored regions.

For one recording with reference speakers i and system speakers j, counted in frames of `step` seconds inside the
UEM: ``JER_ij = 1 - |R_i ∩ S_j| / |R_i ∪ S_j|``. The speakers are paired one-to-one so that the sum of the paired
JERs is the smallest (Hungarian algorithm on ``JER_ij``, not on the time in common as for the DER); a reference
speaker left unpaired has JER 1. The recording's JER is the mean over its reference speakers, a corpus's the mean
over every reference speaker of every recording. A speaker counts when one of its turns reaches into the UEM
(dscore trims the turns to the UEM first). Unlike dscore's DER, its JER takes no collar and scores overlapped
speech: ``--collar`` and ``--ignore_overlaps`` do not reach it.

Frame ``k`` is the instant ``k * step`` (``k < int(end / step)``, ``end`` the last scored instant); a turn
``[a, b)`` covers the frames with ``a <= k * step < b``, as dscore's ``turns_to_frames``.

Reference: N. Ryant et al., "The Second DIHARD Diarization Challenge: Dataset, task, and baselines", Interspeech
2019; dscore, scorelib/metrics.py ``jer`` and scorelib/score.py ``turns_to_frames`` (github.com/nryant/dscore).
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["JER_STEP", "jer_components"]

#: dscore's frame step in seconds (its ``--step``).
JER_STEP = 0.010


def _frames(annotation, times: np.ndarray) -> np.ndarray:
    """(frames, speakers) boolean: speaker j talks at frame k."""
    labels = {label: j for j, label in enumerate(annotation.labels())}
    talking = np.zeros((times.size, len(labels)), dtype=bool)
    for segment, _, label in annotation.itertracks(yield_label=True):
        first, last = np.searchsorted(times, (segment.start, segment.end))
        talking[first:last, labels[label]] = True
    return talking


def jer_components(reference, hypothesis, scored, *, step: float = JER_STEP) -> tuple[float, int]:
    """The sum of the per-speaker JERs of one recording and its number of reference speakers.

    Parameters
    ----------
    reference, hypothesis : pyannote.core.Annotation
        The turns of the recording.
    scored : pyannote.core.Timeline
        Its UEM.
    step : float
        Frame step in seconds (dscore's 0.01).

    Returns
    -------
    (float, int)
        ``sum_i JER_i`` and the number of reference speakers: their ratio is the recording's JER.
    """
    reference = reference.crop(scored, mode="intersection")
    hypothesis = hypothesis.crop(scored, mode="intersection")
    n_reference = len(reference.labels())
    if n_reference == 0:
        return 0.0, 0
    if not hypothesis.labels():
        return float(n_reference), n_reference
    times = step * np.arange(int(max(region.end for region in scored) / step))
    inside = np.zeros(times.size, dtype=bool)
    for region in scored:
        first, last = np.searchsorted(times, (region.start, region.end))
        inside[first:last] = True
    ref, hyp = _frames(reference, times)[inside].astype(np.int64), _frames(hypothesis, times)[inside].astype(np.int64)
    common = ref.T @ hyp
    union = ref.sum(axis=0)[:, None] + hyp.sum(axis=0)[None, :] - common
    with np.errstate(invalid="ignore", divide="ignore"):
        pair = np.where(union > 0, 1.0 - common / union, 1.0)
    rows, columns = linear_sum_assignment(pair)
    per_speaker = np.ones(n_reference)
    per_speaker[rows] = pair[rows, columns]
    return float(per_speaker.sum()), n_reference
