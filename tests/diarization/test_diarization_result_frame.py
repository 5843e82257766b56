"""``ClusteringResult.to_frame``: the table of segment labels the Diarization page offers as "Labels as CSV".

References: hand-written tables (segment numbers 0..N-1, the given times, the labels of a partition that every
method must find: two speakers whose scores are 1 within and 0 across), and the exact CSV text the page wrote before
the table moved into the library (issue 29: pages compute nothing).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import llrcore as lc

#: Two speakers, A A B B A in time order: scores 1 within a speaker and 0 across.
SPEAKERS = np.array([0, 0, 1, 1, 0])
SCORES = (SPEAKERS[:, None] == SPEAKERS[None, :]).astype(float)


@pytest.fixture(scope="module")
def result():
    found = lc.cluster_similarity(SCORES, "ahc")
    np.testing.assert_array_equal(found.labels, SPEAKERS)  # numbered by first appearance, as the hand labels
    return found


def test_without_times_a_row_per_segment_with_its_cluster(result):
    expected = pd.DataFrame({"segment": [0, 1, 2, 3, 4], "cluster": [0, 0, 1, 1, 0]})
    pd.testing.assert_frame_equal(result.to_frame(), expected, check_dtype=False)
    assert result.to_frame().to_csv(index=False) == "segment,cluster\n0,0\n1,0\n2,1\n3,1\n4,0\n"


def test_with_times_start_and_end_sit_between_segment_and_cluster(result):
    start, end = [0.0, 0.25, 0.5, 0.75, 1.0], [1.5, 1.75, 2.0, 2.25, 2.5]
    expected = pd.DataFrame({"segment": [0, 1, 2, 3, 4], "start": start, "end": end, "cluster": [0, 0, 1, 1, 0]})
    pd.testing.assert_frame_equal(result.to_frame(np.array(start), np.array(end)), expected, check_dtype=False)
    assert result.to_frame(start, end).to_csv(index=False).splitlines()[:2] == ["segment,start,end,cluster",
                                                                                "0,0.0,1.5,0"]


def test_times_of_another_length_or_only_one_of_them_are_refused_in_a_sentence(result):
    with pytest.raises(ValueError, match="one start and one end per segment"):
        result.to_frame([0.0, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="both start and end, or neither"):
        result.to_frame([0.0] * 5)
