"""Test-only reference: dscore's Jaccard error rate (JER), vendored to test llrcore against it.

Never imported by llrcore; only tests/diarization/test_diarization_conventions.py loads it. Provenance: github.com/nryant/dscore
at commit e02f949ac6592279300a2c33d03daf9e0c12fd27 (2026-04-08): ``turns_to_frames`` from scorelib/score.py,
``contingency_matrix`` and ``jer`` from scorelib/metrics.py, copied unchanged but for the docstrings (shortened) and
the one-hot branch of ``contingency_matrix`` that ``score`` uses (kept alone). ``trim_turns`` replaces dscore's
``turn.trim_turns`` (which needs the intervaltree package, not installed here): like it, it keeps of every turn its
pieces inside the scored regions, dropping empty ones; ``file_jer`` is the JER part of dscore's ``score`` (the
per-file durations and contingency matrix, then ``jer``). A turn is ``(onset, offset, speaker_id)``.

BSD 2-Clause License

Copyright (c) 2018, Neville Ryant
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

* Redistributions of source code must retain the above copyright notice, this
  list of conditions and the following disclaimer.

* Redistributions in binary form must reproduce the above copyright notice,
  this list of conditions and the following disclaimer in the documentation
  and/or other materials provided with the distribution.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""
import numpy as np
from scipy.optimize import linear_sum_assignment


def turns_to_frames(turns, score_regions, step=0.010):
    """Frame-level labels (n_frames, n_speakers) of a diarization (scorelib/score.py)."""
    onsets = [turn[0] for turn in turns]
    offsets = [turn[1] for turn in turns]
    speaker_ids = [turn[2] for turn in turns]
    speaker_classes, speaker_class_inds = np.unique(
        speaker_ids, return_inverse=True)
    dur = max(score_offset for score_onset, score_offset in score_regions)
    n_frames = int(dur/step)
    X = np.zeros((n_frames, speaker_classes.size), dtype='int32')
    times = step*np.arange(n_frames)
    bis = np.searchsorted(times, onsets)
    eis = np.searchsorted(times, offsets)
    for bi, ei, speaker_class_ind in zip(bis, eis, speaker_class_inds):
        X[bi:ei, speaker_class_ind] = 1

    # Eliminate frames belonging to non-score regions.
    keep = np.zeros(len(X), dtype=bool)
    for score_onset, score_offset in score_regions:
        bi, ei = np.searchsorted(times, (score_onset, score_offset))
        keep[bi:ei] = True
    X = X[keep, ]

    return X


def contingency_matrix(ref_labels, sys_labels):
    """Contingency matrix of one-hot labels (scorelib/metrics.py, its 2-D branch)."""
    ref_labels = ref_labels.astype('int64', copy=False)
    sys_labels = sys_labels.astype('int64', copy=False)
    cm = ref_labels.T.dot(sys_labels)
    return cm


def jer(file_to_ref_durs, file_to_sys_durs, file_to_cm, min_ref_dur=0):
    """Jaccard error rate in percent: per file and overall (scorelib/metrics.py)."""
    ref_dur_fids = set(file_to_ref_durs.keys())
    sys_dur_fids = set(file_to_sys_durs.keys())
    cm_fids = set(file_to_cm.keys())
    if not ref_dur_fids == sys_dur_fids == cm_fids:
        raise ValueError(
            'All passed dicts must have same keys.')
    file_ids = ref_dur_fids
    file_to_jer = {}
    all_speaker_jers = []
    n_ref_speakers_global = 0
    n_sys_speakers_global = 0
    for file_id in file_ids:
        # Filter.
        ref_durs = file_to_ref_durs[file_id]
        sys_durs = file_to_sys_durs[file_id]
        cm = file_to_cm[file_id]
        ref_keep = ref_durs >= min_ref_dur
        ref_durs = ref_durs[ref_keep]
        cm = cm[ref_keep, ]
        n_ref_speakers = ref_durs.size
        n_sys_speakers = sys_durs.size
        n_ref_speakers_global += n_ref_speakers
        n_sys_speakers_global += n_sys_speakers

        # Handle edge cases where either reference or system segmentation
        # posited no speech.
        if n_ref_speakers == 0 and n_sys_speakers > 0:
            # Case 1: no reference speech.
            file_to_jer[file_id] = 100.0
            continue
        elif n_ref_speakers > 0 and n_sys_speakers == 0:
            # Case 2: no system speech.
            file_to_jer[file_id] = 100.0
            all_speaker_jers.extend([100.]*n_ref_speakers)
            continue
        elif n_ref_speakers == 0 and n_sys_speakers == 0:
            # Case 3: no reference or system speech
            file_to_jer[file_id] = 0.0
            continue

        # Determine all speaker-level JER.
        ref_durs = np.tile(ref_durs, [n_sys_speakers, 1]).T
        sys_durs = np.tile(sys_durs, [n_ref_speakers, 1])
        intersect = cm
        union = ref_durs + sys_durs - intersect
        jer_speaker = 1 - intersect / union

        # Find dominant mapping by Hungarian algorithm (scipy >= 0.17) and compute
        # JER.
        ref_speaker_inds, sys_speaker_inds = linear_sum_assignment(jer_speaker)
        jers = np.ones(n_ref_speakers, dtype='float64')
        for ref_speaker_ind, sys_speaker_ind in zip(
                ref_speaker_inds, sys_speaker_inds):
            jers[ref_speaker_ind] = jer_speaker[ref_speaker_ind,
                                                sys_speaker_ind]
        jers *= 100.
        file_to_jer[file_id] = jers.mean()
        all_speaker_jers.extend(jers)

    # Determine global JER.
    if n_ref_speakers_global == 0 and n_sys_speakers_global > 0:
        # Case 1: no reference speech on ANY file.
        global_jer = 100.
    elif n_ref_speakers_global > 0 and n_sys_speakers_global == 0:
        # Case 2: no system speech on ANY file.
        global_jer = 100.
    elif n_ref_speakers_global == n_sys_speakers_global == 0:
        # Case 3: no reference OR system speech on ANY file.
        global_jer = 0.0
    else:
        # General case: at least 1 reference and 1 system speaker present.
        global_jer = np.mean(all_speaker_jers)

    return file_to_jer, global_jer


def trim_turns(turns, score_regions):
    """The pieces of every turn inside the scored regions (empty pieces dropped), as dscore's trim_turns."""
    pieces = []
    for onset, offset, speaker in turns:
        for score_onset, score_offset in score_regions:
            begin, end = max(onset, score_onset), min(offset, score_offset)
            if end > begin:
                pieces.append((begin, end, speaker))
    return pieces


def file_jer(file_to_ref_turns, file_to_sys_turns, uem, step=0.010):
    """dscore's per-file and overall JER (percent) of turns ``{file: [(onset, offset, speaker)]}`` and a UEM
    ``{file: [(onset, offset)]}``, as its ``score`` computes them."""
    file_to_jer_cm, file_to_ref_durs, file_to_sys_durs = {}, {}, {}
    for file_id, score_regions in uem.items():
        ref_labels = turns_to_frames(
            trim_turns(file_to_ref_turns.get(file_id, []), score_regions), score_regions, step=step)
        sys_labels = turns_to_frames(
            trim_turns(file_to_sys_turns.get(file_id, []), score_regions), score_regions, step=step)
        file_to_ref_durs[file_id] = ref_labels.sum(axis=0)
        file_to_sys_durs[file_id] = sys_labels.sum(axis=0)
        file_to_jer_cm[file_id] = contingency_matrix(ref_labels, sys_labels)
    return jer(file_to_ref_durs, file_to_sys_durs, file_to_jer_cm)
