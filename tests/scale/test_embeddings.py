"""``lc.score_embeddings``: every pair of a set of embeddings (or a trial list) scored in blocks and counted gives the
EER and minDCF of the brute-force scores; binned counts bound them; the Dask engine counts what the numpy engine does.

Independent references: the brute force computed here with numpy (unit vectors, their full Gram matrix, its upper
triangle, ``lc.Trials`` of it, which sorts the scores and never sees a block), and the cosines of a few vectors
worked out by hand. The embeddings are drawn from a Gaussian speaker model (seeded): speakers' means and each
embedding's own noise.
"""
from __future__ import annotations

import numpy as np
import pytest

import llrcore as lc
from llrcore.scale import embeddings

PRIORS = np.array([0.5, 0.05, 0.01, 0.001])


def speakers(n: int, speakers: int = 80, dim: int = 48, seed: int = 44):
    """`n` embeddings of `speakers` speakers: a speaker's mean plus noise of the same size."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, speakers, n)
    return rng.normal(size=(speakers, dim))[labels] + rng.normal(size=(n, dim)), labels


def brute_force(vectors, labels, pairs=None) -> lc.Trials:
    """Every pair's cosine from the whole Gram matrix of the unit vectors (or the given pairs'), as lc.Trials."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    gram = unit @ unit.T
    first, second = np.triu_indices(len(unit), 1) if pairs is None else pairs.T
    same = labels[first] == labels[second]
    return lc.Trials(gram[first, second][same], gram[first, second][~same])


@pytest.fixture(scope="module")
def thousands():
    return speakers(2_000)


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 2^16 scores: the 2,000 embeddings' 1,999,000 pairs in 63 blocks (about 33 rows each)."""
    monkeypatch.setattr(embeddings, "BLOCK_SCORES", 1 << 16)


def assert_same_metrics(counts, trials: lc.Trials) -> None:
    assert (counts.n_tar, counts.n_non) == (trials.tar.size, trials.non.size)
    assert lc.eer(counts) == lc.eer(trials)
    assert np.array_equal(lc.min_dcf(counts, p_target=PRIORS), lc.min_dcf(trials, p_target=PRIORS))


def test_every_pair_gives_the_brute_force_eer_and_min_dcf(thousands, small_blocks):
    vectors, labels = thousands
    counts = lc.score_embeddings(vectors, labels, threads=2)
    assert counts.n_tar + counts.n_non == 2_000 * 1_999 // 2
    assert_same_metrics(counts, brute_force(vectors, labels))


def test_a_trial_list_gives_the_brute_force_of_its_pairs(thousands, small_blocks):
    vectors, labels = thousands
    rng = np.random.default_rng(7)
    pairs = rng.integers(0, len(labels), size=(200_000, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    pairs = np.concatenate([pairs, np.argwhere(labels[:, None] == labels[None, :])[:20_000]])  # targets too
    assert_same_metrics(lc.score_embeddings(vectors, labels, trials=pairs), brute_force(vectors, labels, pairs))


def test_cosines_by_hand():
    # unit vectors a = (1, 0), b = (3, 4) / 5 = (0.6, 0.8), c = (0, 1), d = (0, -2) / 2 = (0, -1); a, b of x; c, d of y
    # targets a.b = 0.6, c.d = -1; non-targets a.c = 0, a.d = 0, b.c = 0.8, b.d = -0.8
    counts = lc.score_embeddings([[1, 0], [3, 4], [0, 1], [0, -2]], ["x", "x", "y", "y"])
    assert counts.unique.tolist() == [-1.0, -0.8, 0.0, 0.6, 0.8]
    assert counts.tar_counts.tolist() == [1, 0, 0, 1, 0] and counts.non_counts.tolist() == [0, 1, 2, 0, 1]


def test_the_dask_engine_counts_what_numpy_does(client, small_blocks):
    vectors, labels = speakers(800)
    here = lc.score_embeddings(vectors, labels)
    there = lc.score_embeddings(vectors, labels, engine="dask", client=client)
    for column in ("unique", "tar_counts", "non_counts"):
        assert np.array_equal(getattr(here, column), getattr(there, column))
    binned = lc.score_embeddings(vectors, labels, engine="dask", client=client, bins=64)
    assert binned.to_frame().equals(lc.score_embeddings(vectors, labels, bins=64).to_frame())


@pytest.mark.parametrize("bins", [16, 1_000, 100_000])
def test_binned_counts_bound_the_eer_and_min_dcf(thousands, bins):
    vectors, labels = thousands
    exact = brute_force(vectors, labels)
    binned = lc.score_embeddings(vectors, labels, bins=bins)
    low, high = binned.eer_bounds()
    assert low <= lc.eer(exact) <= high
    for p_target in PRIORS:
        low_dcf, high_dcf = binned.min_dcf_bounds(p_target=p_target)
        assert low_dcf <= lc.min_dcf(exact, p_target=p_target) <= high_dcf
    assert binned.counts.unique.size <= bins and binned.to_frame()["targets"].sum() == exact.tar.size
    assert "bins of width" in binned.sentence()


def test_binned_dot_products_of_zero_embeddings_are_one_score():
    """Every dot product of zero vectors is 0: one bin holds them all (the range of the dot products, from the
    largest squared norm, was [0, 0] and divided by zero); 2 target pairs and 4 non-target pairs of 4 embeddings."""
    binned = lc.score_embeddings(np.zeros((4, 2)), [0, 0, 1, 1], metric="dot", bins=10)
    assert binned.to_frame()[["targets", "non-targets"]].values.tolist() == [[2, 4]]
    low, high = binned.eer_bounds()  # the one bin's non-targets put below its targets: the lower bound is 0
    assert low == 0.0 and high == lc.eer(np.zeros(2), np.zeros(4)) == 0.5


def test_bins_narrow_the_bounds(thousands):
    vectors, labels = thousands
    coarse, fine = (lc.score_embeddings(vectors, labels, bins=bins).eer_bounds() for bins in (100, 100_000))
    assert fine[1] - fine[0] < (coarse[1] - coarse[0]) / 100


@pytest.mark.parametrize("call, message", [
    (lambda: lc.score_embeddings([[1.0, 0.0], [0.0, 0.0]], [0, 1]), "Row 1 of the embeddings .* is all zeros"),
    (lambda: lc.score_embeddings(np.ones((3, 2)), [0, 1]), "3 embeddings but 2 labels"),
    (lambda: lc.score_embeddings(np.eye(3), [0, 1, 2], trials=[[0, 3]]), r"Trial 0 .*\(0, 3\).* outside the 3"),
    (lambda: lc.score_embeddings(np.eye(3), [0, 1, 2]), "No pair is a target trial"),
    (lambda: lc.score_embeddings(np.eye(3), [0, 0, 1], metric="euclid"), "Unknown metric 'euclid'"),
    (lambda: lc.score_embeddings(np.ones(3), [0, 0, 1]), "a 2-D array"),
    (lambda: lc.score_embeddings(np.eye(3), [0, 0, 1], bins=True), "bins must be a whole number, 1 or more, not True"),
    (lambda: lc.score_embeddings(np.eye(3), [0, 0, 1], trials=np.empty((0, 2), int)), r"shape \(m, 2\), m at least 1"),
])
def test_bad_input_is_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()
