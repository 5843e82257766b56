"""Tests of the sorted-score machinery (:mod:`llrcore.binary.rates`) against independent references.

References used (none of them is llrcore's own output):

- brute force: rates computed by comparing every score with every threshold (numpy broadcasting);
- scikit-learn: ``roc_curve`` / ``det_curve`` for the step DET, ``IsotonicRegression`` (its own Cython PAVA,
  ties pooled by de Leeuw's secondary method) for the PAV-optimal LLRs;
- scipy: ``spatial.ConvexHull`` (Qhull) for the ROC convex hull;
- ROCAnalysis.jl ``test/extremes.jl`` for the ROCCH-EER of tie cases (tests/data/rocanalysis_ru2009/SOURCE.txt).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull
from scipy.special import logit
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import det_curve as sk_det_curve
from sklearn.metrics import roc_curve

import llrcore as lc
from llrcore.binary.rates import SortedScores

# ----- independent helpers --------------------------------------------------------------------------------------


def brute_rates(tar, non, thresholds):
    """Pmiss = P(score < t | tar), Pfa = P(score >= t | non), by comparing every score with every threshold."""
    t = np.asarray(thresholds, dtype=np.float64)[:, None]
    return (np.asarray(tar)[None, :] < t).mean(axis=1), (np.asarray(non)[None, :] >= t).mean(axis=1)


def brute_steps(tar, non):
    """Step DET points (pfa, pmiss): every unique score as threshold, then +inf."""
    thresholds = np.append(np.unique(np.concatenate([tar, non])), np.inf)
    pmiss, pfa = brute_rates(tar, non, thresholds)
    return pfa, pmiss


def qhull_rocch(tar, non):
    """Vertices (pfa, pmiss) of the ROC convex hull by Qhull: hull of the step points plus the corner (1, 1),
    with the corner removed, sorted by decreasing pfa."""
    pfa, pmiss = brute_steps(tar, non)
    points = np.column_stack([np.append(pfa, 1.0), np.append(pmiss, 1.0)])
    vertices = points[ConvexHull(points).vertices]
    vertices = vertices[~((vertices[:, 0] == 1.0) & (vertices[:, 1] == 1.0))]
    order = np.lexsort((vertices[:, 1], -vertices[:, 0]))
    return vertices[order, 0], vertices[order, 1]


def strictly_convex(pfa, pmiss, n_tar, n_non):
    """Remove collinear middle vertices (exact integer arithmetic on the counts)."""
    x = np.rint(pfa * n_non).astype(np.int64)
    y = np.rint(pmiss * n_tar).astype(np.int64)
    keep = [0]
    for k in range(1, len(x) - 1):
        a, b = keep[-1], k + 1
        cross = (x[k] - x[a]) * (y[b] - y[a]) - (y[k] - y[a]) * (x[b] - x[a])
        if cross != 0:
            keep.append(k)
    keep.append(len(x) - 1)
    return x[keep], y[keep]


def random_scores(rng, n_tar, n_non, tied=False):
    if tied:
        return rng.integers(0, 6, n_tar).astype(float), rng.integers(-2, 4, n_non).astype(float)
    return rng.normal(1.5, 1.0, n_tar), rng.normal(0.0, 1.0, n_non)


score_lists = st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=25)


@st.composite
def trial_sets(draw):
    """Small target / non-target arrays; rounding to few decimals makes ties frequent."""
    decimals = draw(st.sampled_from([0, 1, 3]))
    tar = np.round(np.array(draw(score_lists)), decimals)
    non = np.round(np.array(draw(score_lists)), decimals)
    return tar, non


# ----- rates at thresholds --------------------------------------------------------------------------------------


@pytest.mark.parametrize("tied", [False, True])
def test_rates_at_thresholds_match_brute_force(tied):
    """Reference: brute-force comparisons. Thresholds include every score itself (accept when score >= t)."""
    rng = np.random.default_rng(1)
    tar, non = random_scores(rng, 300, 500, tied)
    thresholds = np.concatenate([tar, non, rng.normal(0, 3, 200), [-np.inf, np.inf]])
    s = SortedScores(tar, non)
    pmiss, pfa = brute_rates(tar, non, thresholds)
    np.testing.assert_array_equal(s.miss_rate(thresholds), pmiss)
    np.testing.assert_allclose(s.false_alarm_rate(thresholds), pfa, rtol=0, atol=1e-15)


def test_unique_scores_and_counts_match_numpy_unique():
    """Reference: ``np.unique`` + ``np.bincount`` on the pooled scores."""
    rng = np.random.default_rng(2)
    tar, non = random_scores(rng, 400, 700, tied=True)
    tar = np.concatenate([tar, rng.normal(size=50)])
    s = SortedScores(tar, non)
    unique, inverse = np.unique(np.concatenate([tar, non]), return_inverse=True)
    np.testing.assert_array_equal(s.unique, unique)
    np.testing.assert_array_equal(s.tar_counts, np.bincount(inverse[: tar.size], minlength=unique.size))
    np.testing.assert_array_equal(s.non_counts, np.bincount(inverse[tar.size:], minlength=unique.size))


# ----- step DET vs scikit-learn ---------------------------------------------------------------------------------


@pytest.mark.parametrize("tied", [False, True])
def test_det_steps_equal_sklearn_roc_curve(tied):
    """Reference: ``sklearn.metrics.roc_curve(drop_intermediate=False)``: (fpr, tpr) at every unique score and at
    +inf; our points are (pfa, pmiss) = (fpr, 1 - tpr), in the opposite order."""
    rng = np.random.default_rng(3)
    tar, non = random_scores(rng, 250, 400, tied)
    pfa, pmiss = lc.det_curve(tar, non)
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    fpr, tpr, thresholds = roc_curve(y, np.r_[tar, non], drop_intermediate=False)
    assert pfa.size == fpr.size == np.unique(np.r_[tar, non]).size + 1
    np.testing.assert_allclose(pfa[::-1], fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(pmiss[::-1], 1.0 - tpr, rtol=0, atol=1e-15)


@pytest.mark.parametrize("tied", [False, True])
def test_det_steps_contain_sklearn_det_curve(tied):
    """Reference: ``sklearn.metrics.det_curve``. sklearn trims the leading points where Pmiss is still 0, so each
    of its (fpr, fnr, threshold) must be our step point at the same threshold (index = position of the threshold
    among the unique scores; +inf is the last point)."""
    rng = np.random.default_rng(4)
    tar, non = random_scores(rng, 300, 200, tied)
    pfa, pmiss = lc.det_curve(tar, non)
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    fpr, fnr, thresholds = sk_det_curve(y, np.r_[tar, non])
    index = np.searchsorted(np.unique(np.r_[tar, non]), thresholds)
    np.testing.assert_allclose(pfa[index], fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(pmiss[index], fnr, rtol=0, atol=1e-15)


def test_det_step_count_is_unique_scores_plus_one_with_ties():
    """Reference: counting. Tie blocks are never split: K unique scores give K + 1 step points, each one equal to
    the brute-force rates at that unique score."""
    tar = np.array([1.0, 1.0, 2.0, 2.0, 2.0, 5.0])
    non = np.array([0.0, 1.0, 2.0, 2.0, 3.0])
    pfa, pmiss = lc.det_curve(tar, non)
    assert pfa.size == 5 + 1
    ref_pfa, ref_pmiss = brute_steps(tar, non)
    np.testing.assert_allclose(pfa, ref_pfa, atol=1e-15)
    np.testing.assert_allclose(pmiss, ref_pmiss, atol=1e-15)
    assert (pfa[0], pmiss[0], pfa[-1], pmiss[-1]) == (1.0, 0.0, 0.0, 1.0)


# ----- ROC convex hull vs Qhull ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,tied", [(5, False), (6, True), (7, False)])
def test_rocch_vertices_equal_qhull(seed, tied):
    """Reference: ``scipy.spatial.ConvexHull`` of the brute-force step points plus (1, 1). Compared after removing
    collinear middle vertices, in exact integer counts."""
    rng = np.random.default_rng(seed)
    tar, non = random_scores(rng, 120, 150, tied)
    pfa, pmiss = lc.det_curve(tar, non, rocch=True)
    ref_pfa, ref_pmiss = qhull_rocch(tar, non)
    ours = strictly_convex(pfa, pmiss, tar.size, non.size)
    ref = strictly_convex(ref_pfa, ref_pmiss, tar.size, non.size)
    np.testing.assert_array_equal(ours[0], ref[0])
    np.testing.assert_array_equal(ours[1], ref[1])


def test_rocch_vertices_are_step_points():
    """Reference: brute-force step points. Every hull vertex sits at a unique-score threshold (a tie block is never
    split), and the ROCCH lies on or below the step curve."""
    rng = np.random.default_rng(8)
    tar, non = random_scores(rng, 200, 200, tied=True)
    pfa, pmiss = lc.det_curve(tar, non, rocch=True)
    step = set(zip(*brute_steps(tar, non)))
    for point in zip(pfa, pmiss):
        assert any(abs(point[0] - a) < 1e-15 and abs(point[1] - b) < 1e-15 for a, b in step)


# ----- PAV vs scikit-learn IsotonicRegression ------------------------------------------------------------------


def sklearn_pav_llrs(tar, non):
    """Reference PAV: sklearn's IsotonicRegression of the labels on the scores with class-balancing weights
    (1/Nt, 1/Nn), i.e. a flat effective prior; the posterior p then gives LLR = logit(p). sklearn pools tied scores
    (secondary method of de Leeuw), as llrcore does."""
    scores = np.r_[tar, non]
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    weights = np.r_[np.full(tar.size, 1.0 / tar.size), np.full(non.size, 1.0 / non.size)]
    p = IsotonicRegression(increasing=True).fit(scores, y, sample_weight=weights).predict(scores)
    with np.errstate(divide="ignore"):
        llr = logit(p)
    return llr[: tar.size], llr[tar.size:], p


def assert_llrs_match(ours, ref, p):
    ours = np.asarray(ours)
    finite = np.isfinite(ours)
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=1e-9, atol=1e-9)
    # Where only one class remains sklearn's weighted mean may be 1 - ulp instead of 1 (or an ulp above 0).
    np.testing.assert_allclose(p[ours == np.inf], 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p[ours == -np.inf], 0.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [9, 10, 11])
def test_pav_llrs_equal_sklearn_isotonic_tie_free(seed):
    """Reference: sklearn IsotonicRegression (balanced weights) on continuous, tie-free data."""
    rng = np.random.default_rng(seed)
    tar, non = random_scores(rng, 300, 700)
    assert np.unique(np.r_[tar, non]).size == 1000
    ref_tar, ref_non, p = sklearn_pav_llrs(tar, non)
    ours_tar, ours_non = lc.pav_llrs(tar, non)
    assert_llrs_match(ours_tar, ref_tar, p[: tar.size])
    assert_llrs_match(ours_non, ref_non, p[tar.size:])


@pytest.mark.parametrize("seed", [12, 13])
def test_pav_llrs_equal_sklearn_isotonic_pooled_ties(seed):
    """Reference: sklearn IsotonicRegression (balanced weights) on heavily tied integer scores: both pool ties."""
    rng = np.random.default_rng(seed)
    tar, non = random_scores(rng, 200, 300, tied=True)
    ref_tar, ref_non, p = sklearn_pav_llrs(tar, non)
    ours_tar, ours_non = lc.pav_llrs(tar, non)
    assert_llrs_match(ours_tar, ref_tar, p[: tar.size])
    assert_llrs_match(ours_non, ref_non, p[tar.size:])
    # tied scores share one LLR, across classes too
    for value in np.unique(np.r_[tar, non]):
        llrs = np.r_[ours_tar[tar == value], ours_non[non == value]]
        assert np.all(llrs == llrs[0])


def test_pav_llrs_keep_input_order():
    """Reference: hand-computed PAV. tar=[3, 1, 2], non=[0, 2.5]: blocks {0}, {1, 2, 2.5}, {3} give LLRs
    -inf, log((2/3)/(1/2)), +inf."""
    tar_llr, non_llr = lc.pav_llrs([3.0, 1.0, 2.0], [0.0, 2.5])
    middle = np.log((2 / 3) / (1 / 2))
    np.testing.assert_allclose(tar_llr, [np.inf, middle, middle])
    np.testing.assert_allclose(non_llr, [-np.inf, middle])


# ----- ROCCH-EER tie cases (ROCAnalysis.jl test/extremes.jl) ---------------------------------------------------

ROCANALYSIS_TIE_CASES = [
    ([0, 2], [1], 1 / 3),
    ([1], [0, 2], 1 / 3),
    ([0], [1], 1 / 2),
    ([1], [0], 0.0),
    ([0, 1, 2], [1], 2 / 5),
    ([0, 1, 2], [0.5], 1 / 4),
    ([0, 1, 2], [1.5], 2 / 5),
    ([1], [0, 1, 2], 2 / 5),
    ([0.5], [0, 1, 2], 2 / 5),
    ([1.5], [0, 1, 2], 1 / 4),
]


@pytest.mark.parametrize("tar,non,expected", ROCANALYSIS_TIE_CASES)
def test_rocch_eer_rocanalysis_tie_cases(tar, non, expected):
    """Reference: ROCAnalysis.jl test/extremes.jl (published values, SOURCE.txt): exact."""
    assert SortedScores(tar, non).eer() == expected
    assert lc.eer(tar, non) == expected


# ----- minimum Bayes error and PAV blocks ----------------------------------------------------------------------


@pytest.mark.parametrize("tied", [False, True])
def test_min_bayes_error_equals_brute_force_minimum_over_thresholds(tied):
    """Reference: brute-force min over every unique score and +inf of P Pmiss(t) + (1-P) Pfa(t)."""
    rng = np.random.default_rng(14)
    tar, non = random_scores(rng, 150, 250, tied)
    pfa, pmiss = brute_steps(tar, non)
    plo = np.linspace(-8, 8, 161)
    p = 1.0 / (1.0 + np.exp(-plo))
    ref = np.min(p[:, None] * pmiss[None, :] + (1 - p[:, None]) * pfa[None, :], axis=1)
    np.testing.assert_allclose(SortedScores(tar, non).min_bayes_error(plo), ref, rtol=1e-13, atol=1e-16)


def test_pav_blocks_are_consistent():
    """Reference: counting. Block counts sum to the class totals, LLRs are non-decreasing, and each block LLR is
    log(n_tar_b/N_tar) - log(n_non_b/N_non)."""
    rng = np.random.default_rng(15)
    tar, non = random_scores(rng, 333, 444, tied=True)
    blocks = SortedScores(tar, non).pav
    assert blocks.n_tar.sum() == tar.size and blocks.n_non.sum() == non.size
    assert np.all(np.diff(blocks.llr) >= 0)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(blocks.llr, np.log(blocks.n_tar / tar.size) - np.log(blocks.n_non / non.size))
    assert blocks.tar_below[-1] == tar.size and blocks.non_below[-1] == non.size


@settings(max_examples=150, deadline=None)
@given(trial_sets())
def test_property_det_monotone_and_rocch_below_steps(trials):
    """Reference: definition of the DET. Steps and hull go from (1, 0) to (0, 1), Pfa non-increasing, Pmiss
    non-decreasing; the step curve has K + 1 points and the hull is convex towards the origin."""
    tar, non = trials
    pfa, pmiss = lc.det_curve(tar, non)
    assert pfa.size == np.unique(np.r_[tar, non]).size + 1
    assert np.all(np.diff(pfa) <= 0) and np.all(np.diff(pmiss) >= 0)
    assert (pfa[0], pmiss[0], pfa[-1], pmiss[-1]) == (1.0, 0.0, 0.0, 1.0)
    hfa, hmiss = lc.det_curve(tar, non, rocch=True)
    assert np.all(np.diff(hfa) <= 0) and np.all(np.diff(hmiss) >= 0)
    assert (hfa[0], hmiss[0], hfa[-1], hmiss[-1]) == (1.0, 0.0, 0.0, 1.0)
    x = np.rint(hfa * non.size).astype(np.int64)
    y = np.rint(hmiss * tar.size).astype(np.int64)
    # convexity: each vertex lies on or below the chord of its neighbours (exact integer cross products)
    cross = (x[1:-1] - x[:-2]) * (y[2:] - y[:-2]) - (y[1:-1] - y[:-2]) * (x[2:] - x[:-2])
    assert np.all(cross <= 0)
