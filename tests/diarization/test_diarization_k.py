"""The number of speakers, when the user gives it or bounds it, is honoured by every clustering method.

Independent references: the number of distinct labels counted with ``np.unique`` (nothing of llrcore); the
speakers drawn into the synthetic matrices here (cosines of random speaker centres plus noise, 5 to 8 speakers, known
labels); the reference speakers of the two real recordings (their RTTM files: AMI ES2005a's 4, pyannote's sample's
2); and, for AHC, scipy's own ``cut_tree`` of the average-linkage tree of the distances ``max(S) - S``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.cluster.hierarchy import cut_tree, linkage
from scipy.spatial.distance import squareform

import llrcore as lc
from paths import ASSETS

ALL_METHODS = ("bayes", "ahc", "spectral", "nme-sc")
BOUNDS = [(1, 1), (1, 2), (2, 3), (3, 3), (5, 8), (6, 20)]


def cosine_speakers(sizes, seed=0, dim=32, spread=0.9):
    """Cosine similarities of segment embeddings ``centre_speaker + spread * noise`` (unit-norm centres, noise of
    unit variance per dimension / sqrt(dim)); returns (S, true labels), segments in a shuffled order."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    labels = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    embeddings = centres[labels] + spread * rng.normal(size=(labels.size, dim)) / np.sqrt(dim)
    embeddings /= np.linalg.norm(embeddings, axis=1, keepdims=True)
    return embeddings @ embeddings.T, labels


SYNTHETIC = {
    "5 speakers": [60, 40, 30, 20, 10],
    "6 speakers": [40] * 6,
    "7 speakers": [50, 40, 30, 30, 20, 15, 10],
    "8 speakers": [30] * 8,
}


@pytest.fixture(scope="module")
def es2005a():
    return lc.read_similarity(ASSETS / "ami_ES2005a" / "ES2005a_similarity.npz",
                              reference=ASSETS / "ami_ES2005a" / "ES2005a.rttm")


@pytest.fixture(scope="module")
def pyannote_sample():
    return lc.read_similarity(ASSETS / "pyannote_sample" / "sample_similarity.npz",
                              reference=ASSETS / "pyannote_sample" / "sample.rttm")


def _matrices(request, name):
    if name in SYNTHETIC:
        return cosine_speakers(SYNTHETIC[name], seed=len(SYNTHETIC[name]))[0]
    return request.getfixturevalue(name)


def _check_exact(result, k):
    assert result.n_clusters == k
    assert np.unique(result.labels).size == k
    assert set(np.unique(result.labels)) == set(range(k))
    assert result.responsibilities.shape[1] == k


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("matrix", ["es2005a", "pyannote_sample", *SYNTHETIC])
def test_every_method_returns_exactly_the_number_of_speakers_given(request, method, matrix):
    S = _matrices(request, matrix)
    for k in range(1, 9):
        _check_exact(lc.cluster_similarity(S, method, n_clusters=k), k)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("matrix", ["es2005a", "pyannote_sample", "5 speakers", "8 speakers"])
def test_every_method_stays_within_the_bounds_given(request, method, matrix):
    S = _matrices(request, matrix)
    for low, high in BOUNDS:
        result = lc.cluster_similarity(S, method, min_clusters=low, max_clusters=high)
        k = np.unique(result.labels).size
        assert low <= k <= high, (low, high, k)
        assert result.n_clusters == k


@pytest.mark.parametrize("name", ["5 speakers", "8 speakers"])
def test_exact_k_on_the_true_number_recovers_the_speakers(name):
    S, truth = cosine_speakers(SYNTHETIC[name], seed=len(SYNTHETIC[name]))
    for method in ALL_METHODS:
        result = lc.cluster_similarity(S, method, n_clusters=len(SYNTHETIC[name]))
        assert lc.segment_scores(result.labels, truth).error <= 0.05, method


@pytest.mark.parametrize("k", [2, 5, 8])
def test_ahc_with_k_given_is_scipys_cut_of_the_average_linkage_tree(es2005a, k):
    scores = np.asarray(es2005a.scores)
    distance = scores.max() - scores
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    reference = cut_tree(tree, n_clusters=k).ravel()
    labels = lc.cluster_similarity(es2005a, "ahc", n_clusters=k).labels
    assert lc.segment_scores(labels, reference).error == 0.0


@pytest.mark.parametrize("method", ALL_METHODS)
def test_more_speakers_than_segments_is_refused_with_a_sentence(method):
    S = cosine_speakers([3, 2], seed=0)[0]
    with pytest.raises(ValueError, match="between 1 and the number of segments"):
        lc.cluster_similarity(S, method, n_clusters=6)
    with pytest.raises(ValueError, match="only 5 segments"):
        lc.cluster_similarity(S, method, min_clusters=6)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_identical_segments_still_give_k_clusters(method):
    # every score equal: nothing tells the segments apart, yet the user asked for 3 speakers
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = lc.cluster_similarity(np.ones((12, 12)), method, n_clusters=3)
    _check_exact(result, 3)
