"""NME-SC (Park et al., IEEE SPL 27, 2020): spectral clustering auto-tuned by the normalised maximum eigengap.

Independent references: a direct numpy implementation of the paper's steps written here (row-wise p-neighbour
binarisation, (A + A^T)/2, unnormalised Laplacian, eigengaps, g_p = p / (N * max normalised eigengap) minimised
over p); block affinities drawn here with known speakers; the reference RTTM of pyannote's sample (2 speakers).
"""
from __future__ import annotations


import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

import llrcore as lc
from llrcore.diarization.nme_sc import nme_sc
from paths import ASSETS

SAMPLE = ASSETS / "pyannote_sample"


def block_affinity(sizes, seed=0, within=(0.65, 0.95), between=(0.0, 0.45)):
    """Symmetric affinity with uniform within-speaker values in `within` and between-speaker ones in `between`,
    ones on the diagonal, segments shuffled; returns (A, labels)."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    same = labels[:, None] == labels[None, :]
    values = np.where(same, rng.uniform(*within, same.shape), rng.uniform(*between, same.shape))
    values = np.triu(values, 1)
    return values + values.T + np.eye(labels.size), labels


def direct_nme(affinity, p_values, max_k):
    """The paper's estimate, step by step: returns (chosen p, K at that p, ratio per p)."""
    n = affinity.shape[0]
    ratios, ks = [], []
    for p in p_values:
        binary = np.zeros((n, n))
        for i in range(n):
            row = affinity[i].copy()
            row[i] = np.inf  # the segment itself is its own nearest neighbour
            binary[i, np.argsort(-row, kind="stable")[:p]] = 1.0
        graph = (binary + binary.T) / 2
        np.fill_diagonal(graph, 0.0)
        lam = np.sort(np.linalg.eigvalsh(np.diag(graph.sum(axis=1)) - graph))  # eps below as NeMo: p = 1 is empty
        gaps = lam[1:] - lam[:-1]
        k = int(np.argmax(gaps[:max_k])) + 1
        ratios.append((p / n) / (gaps[k - 1] / (lam[-1] + 1e-10) + 1e-10))
        ks.append(k)
    best = int(np.argmin(ratios))
    return p_values[best], ks[best], np.array(ratios)


@pytest.mark.parametrize("sizes", [[40, 30], [30, 25, 20, 15], [25] * 6])
def test_clear_blocks_give_the_number_of_speakers(sizes):
    affinity, truth = block_affinity(sizes, seed=len(sizes))
    result = lc.cluster_similarity(affinity, "nme-sc")
    assert result.n_clusters == len(sizes)
    assert lc.segment_scores(result.labels, truth).error == 0.0


def test_the_estimate_equals_a_direct_implementation_of_the_eigengap_ratio():
    affinity, _ = block_affinity([14, 10, 8], seed=3, within=(0.3, 0.9), between=(0.1, 0.6))
    n = affinity.shape[0]
    max_p = int(0.25 * n)
    p_values = sorted(set(np.linspace(1, max_p, min(max_p, 30)).astype(int).tolist()))
    p, k, ratios = direct_nme(affinity, p_values, max_k=8)
    fit = nme_sc(affinity)
    assert fit.search["p"].tolist() == p_values
    assert np.allclose(fit.search["ratio"], ratios, rtol=1e-6)
    row = fit.search.set_index("p").loc[p]
    assert row["connected"]  # so no fallback to a larger p is involved
    assert fit.p == p and fit.estimated_clusters == k == fit.n_clusters
    assert connected_components(affinity > 0)[0] == 1


@pytest.fixture(scope="module")
def sample():
    return lc.read_similarity(SAMPLE / "sample_similarity.npz", reference=SAMPLE / "sample.rttm")


def test_finds_the_two_speakers_of_pyannotes_sample(sample):
    result = lc.cluster_similarity(sample, "nme-sc")
    assert result.n_clusters == 2
    turns = result.turns(sample.start, sample.end, sample.uri)
    assert lc.diarization_error_rate(sample.reference_turns, turns).der < 0.05


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_honours_the_number_of_speakers_given(sample, k):
    result = lc.cluster_similarity(sample, "nme-sc", n_clusters=k)
    assert result.n_clusters == k == np.unique(result.labels).size


def test_bounds_on_the_estimate():
    affinity, _ = block_affinity([30, 25, 20, 15], seed=1)
    assert lc.cluster_similarity(affinity, "nme-sc", max_clusters=3).n_clusters <= 3
    assert lc.cluster_similarity(affinity, "nme-sc", min_clusters=5).n_clusters >= 5


def test_llr_scores_and_any_increasing_map_of_them_give_the_same_clusters():
    # only the order within rows matters: LLR-like scores (through the sigmoid) or their rescaling cluster alike
    affinity, _ = block_affinity([20, 15, 10], seed=2)
    llr = 30 * (affinity - 0.5)
    labels = lc.cluster_similarity(llr, "nme-sc").labels
    assert np.array_equal(labels, lc.cluster_similarity(expit(llr), "nme-sc").labels)
    assert np.array_equal(labels, lc.cluster_similarity(2 * llr + 7, "nme-sc").labels)
