"""Defects of the diarization clustering (issue 32), each pinned by a test that failed before its fix.

Independent references: the hand-built truth of synthetic block matrices (speaker turns and window times written
out here, the speech time of each speaker computed by hand from its windows), and scikit-learn's
adjusted Rand index for the agreement of two partitions.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

import llrcore as lc
from llrcore.diarization.model import MIN_SPEECH


def block_matrix(labels, *, within=0.8, between=0.2, noise=0.05, seed=0):
    """Cosine-like scores: `within` for pairs of one speaker, `between` otherwise, plus symmetric noise."""
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    n = labels.size
    S = np.where(labels[:, None] == labels[None, :], within, between) + rng.normal(0, noise, (n, n))
    S = (S + S.T) / 2
    np.fill_diagonal(S, 1.0)
    return S


# ----- (1) min_speech counts speech time from the union of a speaker's windows ------------------------------------

LENGTH, SHIFT = 1.5, 0.25


def short_speakers_recording(windows=(16, 15, 16), pause=1.0):
    """Three clearly separated speakers, one turn each between pauses of `pause` seconds (the windows of a speech
    detector's segments), windows of 1.5 s every 0.25 s."""
    labels = np.repeat(np.arange(len(windows)), windows)
    start, t = [], 0.0
    for count in windows:
        start.extend(t + SHIFT * np.arange(count))
        t += SHIFT * (count - 1) + LENGTH + pause
    start = np.asarray(start)
    return labels, lc.SimilarityMatrix(block_matrix(labels), start=start, end=start + LENGTH)


def test_short_speakers_have_more_speech_than_windows_times_shift():
    """The premise, by hand: 15 windows of 1.5 s every 0.25 s cover 14 x 0.25 + 1.5 = 5.0 s of speech, above
    the default smallest speaker (4 s), while 15 x 0.25 = 3.75 s is below it."""
    assert 14 * SHIFT + LENGTH == 5.0 > MIN_SPEECH > 15 * SHIFT


def test_three_short_speakers_are_all_kept():
    labels, matrix = short_speakers_recording()
    result = lc.cluster_similarity(matrix)
    assert result.n_clusters == 3
    assert adjusted_rand_score(labels, result.labels) == pytest.approx(1.0)


def test_a_speaker_below_min_speech_is_still_merged():
    """The smallest speaker still holds: 4 windows cover 0.75 + 1.5 = 2.25 s < 4 s, so that cluster goes."""
    _, matrix = short_speakers_recording((40, 4, 40))
    result = lc.cluster_similarity(matrix)
    assert result.n_clusters == 2


# ----- (2) NME-SC's cap of 8 speakers says when it binds ---------------------------------------------------------

def test_nme_sc_finds_ten_speakers_when_allowed():
    labels = np.repeat(np.arange(10), 40)
    result = lc.cluster_similarity(block_matrix(labels), "nme-sc", max_clusters=20)
    assert result.n_clusters == 10
    assert adjusted_rand_score(labels, result.labels) == pytest.approx(1.0)


def test_nme_sc_cap_is_said_when_it_binds():
    labels = np.repeat(np.arange(10), 40)
    with pytest.warns(UserWarning, match=r"at most 8 speakers.*would say 10 speakers.*max_clusters=20"):
        result = lc.cluster_similarity(block_matrix(labels), "nme-sc")
    assert result.options["nme_uncapped_clusters"] == 10


def test_nme_sc_cap_is_silent_when_it_does_not_bind():
    labels = np.repeat(np.arange(3), 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = lc.cluster_similarity(block_matrix(labels), "nme-sc")
    assert result.n_clusters == 3


# ----- (4) the docstring describes the model the code fits --------------------------------------------------------

def test_docstring_describes_the_sticky_chain_model():
    doc = lc.cluster_similarity.__doc__
    bayes = doc[doc.index('``"bayes"``'):doc.index('``"ahc"``')]
    assert "sticky" in bayes and "Chinese restaurant" not in bayes
    assert "midpoint" in doc[doc.index("min_speech :"):doc.index("concentration :")]


def test_window_seconds_is_the_time_of_the_turns():
    """By hand, windows of 1.5 s every 0.25 s: windows 0-10 from 0 to 4 s, then a pause and 15 windows from 20 s.
    Window 0 holds 0 to the midpoint of its overlap with window 1, (1.5 + 0.25) / 2 = 0.875 s; windows 1-9 one
    shift each; window 10 from the midpoint of its overlap with window 9, (3.75 + 2.5) / 2 = 3.125 s, to its end,
    4 s: 0.875 s. The second turn: 0.875 + 13 x 0.25 + 0.875 = 5 s, the union of its windows."""
    from llrcore.diarization.model import window_seconds
    start = np.r_[SHIFT * np.arange(11), 20 + SHIFT * np.arange(15)]
    seconds = window_seconds(start, start + LENGTH)
    assert seconds[:11] == pytest.approx([0.875] + [0.25] * 9 + [0.875])
    assert seconds[11:].sum() == pytest.approx(5.0) and seconds[:11].sum() == pytest.approx(4.0)
