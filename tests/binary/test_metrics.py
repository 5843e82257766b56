"""Tests of the public binary metrics (:mod:`llrcore.binary.metrics`) against independent references.

References used (no expected value below is an output of llrcore itself):

- ROCAnalysis.jl's published test values on the EVALITA-2009 set (tests/data/rocanalysis_ru2009/SOURCE.txt);
- scikit-learn (``log_loss``, ``roc_curve``) and scipy (``special.log_expit``, ``spatial.ConvexHull``,
  ``integrate.quad``);
- brute force: every unique score (and +inf) tried as a threshold, every pair of DET points tried as an
  iso-cost slope;
- identities of the theory (DESIGN.md; Brümmer & du Preez 2006; Brümmer, Ferrer & Swart 2021): APE area = Cllr,
  max_prior min Bayes error = ROCCH-EER, min <= trapezium, minCllr = Cllr(PAV LLRs) <= Cllr, invariance to
  strictly increasing transforms;
- the ASVspoof 2019 reference EER code (``compute_eer`` of the organisers' t-DCF package, re-implemented here)
  for the real ASVspoof 2019 LA ASV scores (tests/data/asvspoof2019_la/SOURCE.txt).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.spatial import ConvexHull
from scipy.special import expit, log_expit, logit
from sklearn.metrics import log_loss, roc_curve

import llrcore as lc
from llrcore.binary.rates import SortedScores

# ----- independent helpers --------------------------------------------------------------------------------------


def step_points(tar, non):
    """(pfa, pmiss) at every unique score as threshold (accept when score >= t), then 'reject all' (0, 1).

    Counting by ``np.unique`` + ``np.bincount`` + cumulative sums: a different path from llrcore's merge."""
    tar, non = np.asarray(tar, float), np.asarray(non, float)
    unique, inverse = np.unique(np.concatenate([tar, non]), return_inverse=True)
    tar_counts = np.bincount(inverse[: tar.size], minlength=unique.size)
    non_counts = np.bincount(inverse[tar.size:], minlength=unique.size)
    tar_below = np.concatenate([[0], np.cumsum(tar_counts)])
    non_at_or_above = np.concatenate([non.size - np.concatenate([[0], np.cumsum(non_counts)[:-1]]), [0]])
    return non_at_or_above / non.size, tar_below / tar.size


def brute_rates(tar, non, thresholds):
    """Pmiss(t) = P(tar < t), Pfa(t) = P(non >= t) by comparing every score with every threshold."""
    t = np.asarray(thresholds, dtype=np.float64)[:, None]
    return (np.asarray(tar)[None, :] < t).mean(axis=1), (np.asarray(non)[None, :] >= t).mean(axis=1)


def brute_min_cost(tar, non, p, c_miss=1.0, c_fa=1.0, q=None):
    """min over all thresholds of P C_miss Pmiss + Q C_fa Pfa (unnormalised), for each prior in `p`; Q = 1 - P
    unless given (pass ``expit(-plo)`` to keep full precision when P is near 1)."""
    pfa, pmiss = step_points(tar, non)
    p = np.atleast_1d(np.asarray(p, float))[:, None]
    q = 1 - p if q is None else np.atleast_1d(np.asarray(q, float))[:, None]
    return np.min(p * c_miss * pmiss[None, :] + q * c_fa * pfa[None, :], axis=1)


def brute_min_dcf(tar, non, p, c_miss=1.0, c_fa=1.0):
    return brute_min_cost(tar, non, p, c_miss, c_fa)[0] / min(p * c_miss, (1 - p) * c_fa)


def pairwise_eer(tar, non):
    """ROCCH-EER as max over priors of the brute-force minimum Bayes error, with every iso-cost slope between two
    DET points tried as a prior. The minimum over points is concave in P, so its maximum sits where two of the
    lines cross, i.e. at one of these priors; it equals the EER of the ROC convex hull."""
    pfa, pmiss = step_points(tar, non)
    d_fa = pfa[:, None] - pfa[None, :]
    d_miss = pmiss[None, :] - pmiss[:, None]
    ok = (d_fa > 0) & (d_miss > 0)
    ratio = d_fa[ok] / d_miss[ok]  # P / (1 - P) where the two lines cross
    p = np.unique(ratio / (1 + ratio))
    if p.size == 0:
        return 0.0
    return float(np.max(brute_min_cost(tar, non, p)))


def qhull_eer(tar, non):
    """ROCCH-EER from scipy's ConvexHull (Qhull) of the DET points plus the corner (1, 1), crossed with the
    diagonal Pmiss = Pfa by linear interpolation."""
    pfa, pmiss = step_points(tar, non)
    points = np.column_stack([np.append(pfa, 1.0), np.append(pmiss, 1.0)])
    v = points[ConvexHull(points).vertices]
    v = v[~((v[:, 0] == 1.0) & (v[:, 1] == 1.0))]
    v = v[np.lexsort((v[:, 1], -v[:, 0]))]  # from (1, 0) to (0, 1)
    gap = v[:, 1] - v[:, 0]
    j = int(np.argmax(gap >= 0))
    if gap[j] == 0:
        return float(v[j, 1])
    s = -gap[j - 1] / (gap[j] - gap[j - 1])
    return float(v[j - 1, 1] + s * (v[j, 1] - v[j - 1, 1]))


def reference_cllr(tar_llr, non_llr):
    """Cllr in bits with scipy's log_expit: -(mean_tar log sigma(l) + mean_non log sigma(-l)) / (2 ln 2)."""
    return -(np.mean(log_expit(tar_llr)) + np.mean(log_expit(-np.asarray(non_llr)))) / (2 * np.log(2))


def exact_ape_area(tar_llr, non_llr):
    """Exact integral over plo of Pe(plo) = sigma(plo) Pmiss(-plo) + sigma(-plo) Pfa(-plo).

    Between consecutive breakpoints -llr the rates are constant, and sigma(x), sigma(-x) have the antiderivatives
    softplus(x), -softplus(-x); the two tails integrate to finite values as well."""
    breaks = np.unique(-np.concatenate([tar_llr, non_llr]))
    edges = np.concatenate([[-np.inf], breaks, [np.inf]])
    inner = 0.5 * (breaks[1:] + breaks[:-1])
    probes = np.concatenate([[breaks[0] - 1.0], inner, [breaks[-1] + 1.0]])  # one plo inside each interval
    pmiss, pfa = brute_rates(tar_llr, non_llr, -probes)
    lo, hi = edges[:-1], edges[1:]
    softplus = lambda x: np.logaddexp(0.0, x)  # noqa: E731
    with np.errstate(invalid="ignore"):  # inf - inf in a tail whose rate is 0 (never reached otherwise)
        miss_part = np.where(pmiss > 0, pmiss * (softplus(hi) - softplus(lo)), 0.0)
        fa_part = np.where(pfa > 0, pfa * (softplus(-lo) - softplus(-hi)), 0.0)
    assert np.all(np.isfinite(miss_part)) and np.all(np.isfinite(fa_part))
    return float(np.sum(miss_part + fa_part))


def asvspoof_compute_eer(target_scores, nontarget_scores):
    """Re-implementation of ``compute_eer`` from the ASVspoof 2019 t-DCF package: rates after each sorted score,
    EER = mean of (FRR, FAR) where |FRR - FAR| is smallest."""
    scores = np.concatenate([target_scores, nontarget_scores])
    labels = np.concatenate([np.ones(target_scores.size), np.zeros(nontarget_scores.size)])
    labels = labels[np.argsort(scores, kind="mergesort")]
    tar_sums = np.cumsum(labels)
    non_sums = nontarget_scores.size - (np.arange(1, scores.size + 1) - tar_sums)
    frr = np.concatenate([[0], tar_sums / target_scores.size])
    far = np.concatenate([[1], non_sums / nontarget_scores.size])
    i = np.argmin(np.abs(frr - far))
    return float(np.mean([frr[i], far[i]]))


def sklearn_interpolated_eer(tar, non):
    """EER from sklearn's ROC: linear interpolation of the step curve where FNR = 1 - TPR crosses FPR."""
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    fpr, tpr, _ = roc_curve(y, np.r_[tar, non], drop_intermediate=False)
    fnr = 1.0 - tpr
    i = int(np.argmax(fnr <= fpr))
    a = (fnr[i - 1] - fpr[i - 1]) / ((fpr[i] - fpr[i - 1]) - (fnr[i] - fnr[i - 1]))
    return float(fpr[i - 1] + a * (fpr[i] - fpr[i - 1]))


def gaussian_llrs(rng, n_tar, n_non, mu=3.0, shift=0.0):
    """Calibrated Gaussian LLRs (means +-mu, variance 2 mu), optionally shifted to be mis-calibrated."""
    sd = np.sqrt(2 * mu)
    return rng.normal(mu, sd, n_tar) + shift, rng.normal(-mu, sd, n_non) + shift


def tied_scores(rng, n_tar, n_non):
    return rng.integers(0, 7, n_tar).astype(float), rng.integers(-2, 5, n_non).astype(float)


# ----- 1. ROCAnalysis.jl published values on EVALITA-2009 ------------------------------------------------------

PLO_DCF = -np.log(9.9)  # ptar = 0.01, cmiss = 10, cfa = 1: logit(0.01) + log(10) = log(10/99) = -log(9.9)


def test_rocanalysis_actual_and_minimum_bayes_error(evalita):
    """Reference: ROCAnalysis.jl test/dcf.jl, ber and minber at plo = -log(9.9), to rel 1e-12."""
    tar, non = evalita
    s = SortedScores(tar, non)
    assert float(s.actual_bayes_error(PLO_DCF)) == pytest.approx(0.03291547867387523, rel=1e-12)
    assert float(s.min_bayes_error(PLO_DCF)) == pytest.approx(0.03173675448189074, rel=1e-12)
    rates = lc.bayes_error_rates(tar, non, plo=[PLO_DCF])
    assert rates.actual[0] == pytest.approx(0.03291547867387523, rel=1e-12)
    assert rates.minimum[0] == pytest.approx(0.03173675448189074, rel=1e-12)


def test_rocanalysis_dcf_ptar_001(evalita):
    """Reference: ROCAnalysis.jl test/dcf.jl, DCF(ptar=0.01, cfa=1, cmiss=10): unnormalised actual and minimum,
    and the normalised actual (normaliser min(0.01*10, 0.99*1) = 0.1), to rel 1e-12."""
    tar, non = evalita
    norm = min(0.01 * 10, 0.99 * 1)
    act = lc.act_dcf(tar, non, p_target=0.01, c_miss=10, c_fa=1)
    mindcf = lc.min_dcf(tar, non, p_target=0.01, c_miss=10, c_fa=1)
    assert act == pytest.approx(0.35877871754524004, rel=1e-12)
    assert act * norm == pytest.approx(0.035877871754524004, rel=1e-12)
    assert mindcf * norm == pytest.approx(0.034593062385260914, rel=1e-12)
    # the same through bayes_error_rates with costs (its values are unnormalised expected costs)
    rates = lc.bayes_error_rates(tar, non, plo=[logit(0.01)], c_miss=10, c_fa=1)
    assert rates.actual[0] == pytest.approx(0.035877871754524004, rel=1e-12)
    assert rates.minimum[0] == pytest.approx(0.034593062385260914, rel=1e-12)


def test_rocanalysis_dcf_ptar_05(evalita):
    """Reference: ROCAnalysis.jl test/dcf.jl, dcf and mindcf (unnormalised) at ptar=.5, cfa=1, cmiss=10;
    normaliser min(0.5*10, 0.5*1) = 0.5; to rel 1e-12."""
    tar, non = evalita
    norm = min(0.5 * 10, 0.5 * 1)
    assert lc.act_dcf(tar, non, p_target=0.5, c_miss=10, c_fa=1) * norm == pytest.approx(
        0.23094942466561763, rel=1e-12)
    assert lc.min_dcf(tar, non, p_target=0.5, c_miss=10, c_fa=1) * norm == pytest.approx(
        0.21843024685287174, rel=1e-12)
    rates = lc.bayes_error_rates(tar, non, plo=[0.0], c_miss=10, c_fa=1)
    assert rates.actual[0] == pytest.approx(0.23094942466561763, rel=1e-12)
    assert rates.minimum[0] == pytest.approx(0.21843024685287174, rel=1e-12)


# ----- 2. scikit-learn / scipy / brute-force peers --------------------------------------------------------------


@pytest.mark.parametrize("seed,shift", [(1, 0.0), (2, 1.5), (3, -2.0)])
def test_cllr_equals_sklearn_balanced_log_loss(seed, shift):
    """Reference: ``sklearn.metrics.log_loss`` with class weights 1/Nt, 1/Nn (prior 0.5):
    Cllr = log_loss / ln 2."""
    rng = np.random.default_rng(seed)
    tar, non = gaussian_llrs(rng, 700, 1300, mu=2.0, shift=shift)
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    weights = np.r_[np.full(tar.size, 1 / tar.size), np.full(non.size, 1 / non.size)]
    ref = log_loss(y, expit(np.r_[tar, non]), sample_weight=weights) / np.log(2)
    assert lc.cllr(tar, non) == pytest.approx(ref, rel=1e-10)
    assert lc.cllr(tar, non) == pytest.approx(reference_cllr(tar, non), rel=1e-12)


def test_cllr_large_llrs_against_log_expit():
    """Reference: scipy ``log_expit`` (no probability clipping, unlike log_loss) on LLRs up to +-800."""
    tar = np.array([-800.0, -40.0, 0.0, 3.0, 700.0])
    non = np.array([-750.0, -1.0, 37.0, 800.0])
    assert lc.cllr(tar, non) == pytest.approx(reference_cllr(tar, non), rel=1e-14)


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("tied", [False, True])
def test_min_dcf_equals_brute_force(seed, tied):
    """Reference: brute-force minimum over every unique score and +inf as threshold, normalised by
    min(P C_miss, (1-P) C_fa); several priors and costs; rel 1e-12."""
    rng = np.random.default_rng(seed)
    tar, non = tied_scores(rng, 300, 500) if tied else gaussian_llrs(rng, 300, 500)
    for p, c_miss, c_fa in [(0.5, 1, 1), (0.01, 1, 1), (0.001, 1, 1), (0.01, 10, 1), (0.3, 1, 7), (0.99, 1, 1)]:
        assert lc.min_dcf(tar, non, p_target=p, c_miss=c_miss, c_fa=c_fa) == pytest.approx(
            brute_min_dcf(tar, non, p, c_miss, c_fa), rel=1e-12, abs=1e-15)


def test_min_dcf_equals_brute_force_on_evalita(evalita):
    """Reference: brute-force minimum over all 24,839 unique EVALITA scores (+inf) as thresholds."""
    tar, non = evalita
    for p, c_miss in [(0.01, 10), (0.5, 1), (0.001, 1), (0.1, 1)]:
        assert lc.min_dcf(tar, non, p_target=p, c_miss=c_miss) == pytest.approx(brute_min_dcf(tar, non, p, c_miss),
                                                                                rel=1e-12)


@pytest.mark.parametrize("seed", [6, 7, 8])
@pytest.mark.parametrize("tied", [False, True])
def test_eer_equals_pairwise_max_min_bayes_error(seed, tied):
    """Reference: max over all pairwise iso-cost priors of the brute-force minimum Bayes error (= ROCCH-EER)."""
    rng = np.random.default_rng(seed)
    tar, non = tied_scores(rng, 40, 70) if tied else gaussian_llrs(rng, 40, 70, mu=1.0)
    assert lc.eer(tar, non) == pytest.approx(pairwise_eer(tar, non), rel=1e-12, abs=1e-15)


def test_eer_equals_qhull_eer_on_real_data(evalita, asvspoof_dev, asvspoof_eval):
    """Reference: scipy.spatial.ConvexHull (Qhull) of the DET points, crossed with the diagonal; rel 1e-12."""
    sets = [evalita, (asvspoof_dev["target"], asvspoof_dev["nontarget"]),
            (asvspoof_eval["target"], asvspoof_eval["nontarget"])]
    for tar, non in sets:
        assert lc.eer(tar, non) == pytest.approx(qhull_eer(tar, non), rel=1e-12)


# ----- 3. identities ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,shift", [(9, 0.0), (10, 2.0)])
def test_ape_area_equals_cllr_exact(seed, shift):
    """Reference: exact piecewise integral of the actual Bayes error over plo (softplus antiderivatives):
    Cllr = 1/(2 ln 2) * integral of Pe(plo) dplo; rel 1e-10. Also checks that ``bayes_error_rates().actual``
    is that Pe, at every interval's midpoint."""
    rng = np.random.default_rng(seed)
    tar, non = gaussian_llrs(rng, 200, 300, mu=2.5, shift=shift)
    area = exact_ape_area(tar, non)
    assert lc.cllr(tar, non) == pytest.approx(area / (2 * np.log(2)), rel=1e-10)
    plo = np.linspace(-12, 12, 999)
    pmiss, pfa = brute_rates(tar, non, -plo)
    np.testing.assert_allclose(lc.bayes_error_rates(tar, non, plo=plo).actual,
                               expit(plo) * pmiss + expit(-plo) * pfa, rtol=1e-13, atol=1e-17)


def test_ape_area_equals_cllr_on_evalita_fine_grid(evalita):
    """Reference: numerical integral (trapezium, 2e6 points on [-50, 50]) of ``bayes_error_rates().actual``
    on the EVALITA scores taken as LLRs, and the exact piecewise integral; rel 1e-4 and 1e-9."""
    tar, non = evalita
    plo = np.linspace(-50, 50, 2_000_001)
    actual = lc.bayes_error_rates(tar, non, plo=plo).actual
    area = integrate.trapezoid(actual, plo)
    cllr = lc.cllr(tar, non)
    assert cllr == pytest.approx(area / (2 * np.log(2)), rel=1e-4)
    assert cllr == pytest.approx(reference_cllr(tar, non), rel=1e-12)


def test_ape_area_with_quad_breakpoints():
    """Reference: scipy.integrate.quad piecewise between the breakpoints -llr (plus the two tails)."""
    tar = np.array([-1.5, 0.2, 1.0, 2.5, 4.0])
    non = np.array([-3.0, -2.0, -0.5, 0.7])
    s = SortedScores(tar, non)
    breaks = np.unique(-np.r_[tar, non])
    edges = np.concatenate([[-np.inf], breaks, [np.inf]])
    area = sum(integrate.quad(lambda x: float(s.actual_bayes_error(x)), a, b, epsabs=1e-13, epsrel=1e-12)[0]
               for a, b in zip(edges[:-1], edges[1:]))
    assert lc.cllr(tar, non) == pytest.approx(area / (2 * np.log(2)), rel=1e-9)


def max_min_bayes_error_at_block_boundaries(tar, non):
    """Max of the minimum Bayes error over plo = -(PAV block LLR) and their floating-point neighbours."""
    s = SortedScores(tar, non)
    plo = -s.pav.llr[np.isfinite(s.pav.llr)]
    plo = np.concatenate([plo, np.nextafter(plo, np.inf), np.nextafter(plo, -np.inf), [0.0]])
    return float(np.max(lc.bayes_error_rates(tar, non, plo=plo).minimum))


def test_max_min_bayes_error_equals_eer(evalita, asvspoof_dev):
    """Reference: identity max_plo minBayesError(plo) = ROCCH-EER (Brümmer, Ferrer & Swart 2021), evaluated at
    all PAV block boundaries -llr and their neighbours; plus the pairwise brute-force max on tied data; 1e-12."""
    rng = np.random.default_rng(11)
    sets = [evalita, (asvspoof_dev["target"], asvspoof_dev["nontarget"]), tied_scores(rng, 300, 400),
            gaussian_llrs(rng, 500, 500, mu=1.0)]
    for tar, non in sets:
        eer = lc.eer(tar, non)
        assert max_min_bayes_error_at_block_boundaries(tar, non) == pytest.approx(eer, rel=1e-12, abs=1e-15)
        # and nothing on a fine grid exceeds it
        assert np.max(lc.bayes_error_rates(tar, non, plo=np.linspace(-20, 20, 4001)).minimum) <= eer + 1e-15
    tar, non = tied_scores(rng, 60, 50)
    assert max_min_bayes_error_at_block_boundaries(tar, non) == pytest.approx(pairwise_eer(tar, non), rel=1e-12)


def test_minimum_below_trapezium_actual_and_default(evalita):
    """Reference: bounds of the theory: minimum <= min(P, 1-P, EER) (trapezium), minimum <= actual,
    minimum <= default = min(P, 1-P); trapezium and default checked against their formulas."""
    tar, non = evalita
    plo = np.linspace(-30, 30, 6001)
    r = lc.bayes_error_rates(tar, non, plo=plo)
    p, q = expit(plo), expit(-plo)  # P and 1 - P, each to full relative precision
    eer = lc.eer(tar, non)
    np.testing.assert_allclose(r.default, np.minimum(p, q), rtol=1e-14)
    np.testing.assert_allclose(r.trapezium, np.minimum.reduce([p, q, np.full_like(p, eer)]), rtol=1e-14)
    assert r.eer == eer
    assert np.all(r.minimum <= r.trapezium + 1e-15)
    assert np.all(r.minimum <= r.actual + 1e-15)
    assert np.all(r.minimum <= r.default + 1e-15)


@pytest.mark.parametrize("tied", [False, True])
def test_min_cllr_is_cllr_of_pav_llrs_and_below_cllr(tied, evalita):
    """Reference: identities minCllr = Cllr(PAV LLRs) (Cllr by scipy log_expit) and minCllr <= Cllr."""
    rng = np.random.default_rng(12)
    tar, non = tied_scores(rng, 400, 600) if tied else gaussian_llrs(rng, 400, 600, shift=1.0)
    for t, n in [(tar, non), evalita]:
        pav_tar, pav_non = lc.pav_llrs(t, n)
        assert lc.min_cllr(t, n) == pytest.approx(reference_cllr(pav_tar, pav_non), rel=1e-12)
        assert lc.min_cllr(t, n) <= lc.cllr(t, n)


@pytest.mark.parametrize("c_miss,c_fa", [(10.0, 1.0), (1.0, 5.0), (2.5, 0.3)])
def test_bayes_error_rates_with_costs_equal_brute_force(c_miss, c_fa):
    """Reference: brute force. actual = P C_miss Pmiss(t) + (1-P) C_fa Pfa(t) at t = -(plo + log(C_miss/C_fa));
    minimum = the brute-force min of that cost over all thresholds; normalised values = act_dcf / min_dcf."""
    rng = np.random.default_rng(13)
    tar, non = gaussian_llrs(rng, 250, 350, mu=2.0, shift=0.7)
    plo = np.linspace(-9, 9, 121)
    r = lc.bayes_error_rates(tar, non, plo=plo, c_miss=c_miss, c_fa=c_fa)
    p, q = expit(plo), expit(-plo)  # P and 1 - P, each to full relative precision
    pmiss, pfa = brute_rates(tar, non, -(plo + np.log(c_miss / c_fa)))
    np.testing.assert_allclose(r.actual, p * c_miss * pmiss + q * c_fa * pfa, rtol=1e-13, atol=1e-17)
    np.testing.assert_allclose(r.minimum, brute_min_cost(tar, non, p, c_miss, c_fa, q), rtol=1e-12, atol=1e-17)
    np.testing.assert_allclose(r.default, np.minimum(p * c_miss, q * c_fa), rtol=1e-14)
    for k in range(0, plo.size, 10):
        assert r.normalised_minimum[k] == pytest.approx(lc.min_dcf(tar, non, p_target=p[k], c_miss=c_miss, c_fa=c_fa),
                                                        rel=1e-12)
        assert r.normalised_minimum[k] == pytest.approx(brute_min_dcf(tar, non, p[k], c_miss, c_fa), rel=1e-11)
        assert r.normalised_actual[k] == pytest.approx(lc.act_dcf(tar, non, p_target=p[k], c_miss=c_miss, c_fa=c_fa),
                                                       rel=1e-12)


def test_act_dcf_and_cprimary_equal_brute_force():
    """Reference: brute force at the Bayes threshold -logit(P_eff), normalised by min(P C_miss, (1-P) C_fa);
    Cprimary = mean over P in (0.01, 0.001) with unit costs (NIST SRE'12)."""
    rng = np.random.default_rng(14)
    tar, non = gaussian_llrs(rng, 500, 2000, mu=3.0, shift=-1.0)

    def ref_act(p, c_miss=1.0, c_fa=1.0):
        pmiss, pfa = brute_rates(tar, non, [-(logit(p) + np.log(c_miss / c_fa))])
        return (p * c_miss * pmiss[0] + (1 - p) * c_fa * pfa[0]) / min(p * c_miss, (1 - p) * c_fa)

    for p, c_miss, c_fa in [(0.01, 1, 1), (0.5, 1, 1), (0.2, 10, 1), (0.9, 1, 3)]:
        assert lc.act_dcf(tar, non, p_target=p, c_miss=c_miss, c_fa=c_fa) == pytest.approx(ref_act(p, c_miss, c_fa),
                                                                                            rel=1e-12)
    assert lc.cprimary(tar, non) == pytest.approx((ref_act(0.01) + ref_act(0.001)) / 2, rel=1e-12)
    ref_min = (brute_min_dcf(tar, non, 0.01) + brute_min_dcf(tar, non, 0.001)) / 2
    assert lc.cprimary(tar, non, minimum=True) == pytest.approx(ref_min, rel=1e-12)


# ----- 4. ties ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_tar,n_non", [(1, 1), (3, 7), (1, 47), (20, 51)])
def test_all_scores_tied(n_tar, n_non):
    """Reference: theory. One tie block cannot be split: the ROCCH is the chance diagonal, so EER = 0.5,
    minCllr = 1 bit, minDCF = 1 (no better than the default), and the DET has 1 + 1 points."""
    tar, non = np.full(n_tar, 2.0), np.full(n_non, 2.0)
    assert lc.eer(tar, non) == 0.5
    assert lc.min_cllr(tar, non) == pytest.approx(1.0, rel=1e-15)
    assert lc.min_dcf(tar, non, p_target=0.01) == pytest.approx(1.0, rel=1e-15)
    pfa, pmiss = lc.det_curve(tar, non)
    assert pfa.tolist() == [1.0, 0.0] and pmiss.tolist() == [0.0, 1.0]
    np.testing.assert_array_equal(np.r_[lc.pav_llrs(tar, non)], 0.0)


def test_tie_block_not_split_changes_eer():
    """Reference: hand computation. tar=[0, 1, 1], non=[1, 1, 2]: the step points are (1, 0), (1, 1/3), (1/3, 1),
    (0, 1); the middle two lie above the chance diagonal, so the ROCCH is the diagonal and EER = 1/2. Splitting
    the tie at 1 (targets just above) would add the point (1/3, 1/3) and give EER = 1/3."""
    tar, non = np.array([0.0, 1.0, 1.0]), np.array([1.0, 1.0, 2.0])
    pfa, pmiss = lc.det_curve(tar, non)
    np.testing.assert_allclose(pfa, [1, 1, 1 / 3, 0], rtol=1e-15)
    np.testing.assert_allclose(pmiss, [0, 1 / 3, 1, 1], rtol=1e-15)
    assert lc.eer(tar, non) == 0.5
    assert lc.min_cllr(tar, non) == pytest.approx(1.0, rel=1e-15)
    assert lc.eer(tar + np.array([0, 1e-9, 1e-9]), non) == pytest.approx(1 / 3, rel=1e-15)


# ----- 5. infinite LLRs ---------------------------------------------------------------------------------------------


def test_infinite_llrs_give_defined_values():
    """Reference: limits of the definitions. A target at -inf (or a non-target at +inf) costs inf in Cllr;
    a target at +inf / non-target at -inf costs 0; nothing is NaN."""
    assert lc.cllr([-np.inf, 1.0], [0.0]) == np.inf
    assert lc.cllr([1.0], [np.inf, 0.0]) == np.inf
    assert lc.cllr([np.inf], [-np.inf]) == 0.0
    assert lc.cllr([np.inf, 0.0], [-np.inf, 0.0]) == pytest.approx(0.5, rel=1e-15)
    tar, non = np.array([-np.inf, 0.5, np.inf, 2.0]), np.array([-np.inf, -1.0, np.inf, 0.0])
    m = lc.evaluate(tar, non, p_target=0.01)
    values = [m.eer, m.min_dcf, m.act_dcf, m.cllr, m.min_cllr, m.cprimary, m.min_cprimary]
    assert not np.any(np.isnan(values))
    assert m.cllr == np.inf
    r = lc.bayes_error_rates(tar, non, plo=[-np.inf, -50, 0, 50, np.inf])
    assert not np.any(np.isnan(np.r_[r.actual, r.minimum, r.default, r.trapezium, r.normalised_actual,
                                      r.normalised_minimum]))
    assert lc.eer(tar, non) == pytest.approx(pairwise_eer(tar, non), rel=1e-15)
    assert lc.min_dcf(tar, non, p_target=0.3) == pytest.approx(brute_min_dcf(tar, non, 0.3), rel=1e-15)


def test_perfect_separation():
    """Reference: theory. Perfectly separated scores (including infinite ones): EER 0, minCllr 0, minDCF 0,
    PAV LLRs +inf for targets and -inf for non-targets."""
    tar, non = np.array([np.inf, 3.0, 2.5]), np.array([-np.inf, 1.0, 2.0])
    assert lc.eer(tar, non) == 0.0
    assert lc.min_cllr(tar, non) == 0.0
    assert lc.min_dcf(tar, non, p_target=0.01) == 0.0
    pav_tar, pav_non = lc.pav_llrs(tar, non)
    assert np.all(pav_tar == np.inf) and np.all(pav_non == -np.inf)


def test_calibration_loss_percent_is_defined_for_infinite_cllr():
    """Reference: limit of the definition. minCllr is always finite (PAV never gives a target -inf), so with
    Cllr = inf the calibration loss is inf and its share of Cllr is 100 %, not NaN (it feeds metrics_table)."""
    m = lc.evaluate([-np.inf, 1.0], [0.0, -1.0])
    assert m.cllr == np.inf and np.isfinite(m.min_cllr)
    assert m.calibration_loss == np.inf
    assert m.calibration_loss_percent == 100.0
    assert not lc.metrics_table([m]).isna().any().any()


@pytest.mark.parametrize("n_tar,n_non", [(1, 1), (3, 7), (1, 25), (10, 10), (1000, 37), (5, 3000)])
def test_cllr_of_zero_llrs_is_exactly_one_bit(n_tar, n_non):
    """Reference: definition. LLR = 0 everywhere: every trial costs log2(1 + e^0) = 1 bit exactly."""
    assert lc.cllr(np.zeros(n_tar), np.zeros(n_non)) == 1.0


def test_min_dcf_at_degenerate_priors_is_zero():
    """Reference: definition. At P_target 0 or 1 one decision is free: normalised costs 0, not NaN."""
    tar, non = np.array([0.0, 1.0]), np.array([0.5, -1.0])
    for p in (0.0, 1.0):
        assert lc.min_dcf(tar, non, p_target=p) == 0.0
        assert lc.act_dcf(tar, non, p_target=p) == 0.0


# ----- 6. property tests (hypothesis) -------------------------------------------------------------------------------

score_lists = st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=25)


@st.composite
def trial_sets(draw):
    """Small target / non-target arrays; rounding to few decimals makes ties frequent."""
    decimals = draw(st.sampled_from([0, 1, 2]))
    tar = np.round(np.array(draw(score_lists)), decimals)
    non = np.round(np.array(draw(score_lists)), decimals)
    return tar, non


@settings(max_examples=200, deadline=None)
@given(trial_sets())
def test_property_bounds_and_brute_force(trials):
    """References: theory bounds (EER in [0, 0.5], minCllr <= 1, min <= actual Bayes error) and brute force
    (pairwise max-min EER, min over thresholds for minDCF)."""
    tar, non = trials
    eer = lc.eer(tar, non)
    assert 0.0 <= eer <= 0.5
    assert eer == pytest.approx(pairwise_eer(tar, non), rel=1e-12, abs=1e-15)
    assert lc.min_cllr(tar, non) <= 1.0 + 1e-12
    assert lc.min_cllr(tar, non) <= lc.cllr(tar, non) + 1e-12
    plo = np.linspace(-6, 6, 61)
    r = lc.bayes_error_rates(tar, non, plo=plo)
    assert np.all(r.minimum <= r.actual + 1e-15)
    assert np.all(r.minimum <= r.trapezium + 1e-15)
    for p in (0.5, 0.1):
        assert lc.min_dcf(tar, non, p_target=p) == pytest.approx(brute_min_dcf(tar, non, p), rel=1e-12, abs=1e-15)


@settings(max_examples=150, deadline=None)
@given(trial_sets())
def test_property_invariance_to_increasing_transforms(trials):
    """Reference: theory. EER, minDCF, minCllr and the ROCCH depend only on the order of the scores, so they are
    unchanged (exactly) by 3x + 1 and exp(x) (strictly increasing, no new ties on these rounded scores)."""
    tar, non = trials
    base = (lc.eer(tar, non), lc.min_dcf(tar, non, p_target=0.01), lc.min_dcf(tar, non, p_target=0.3, c_miss=2, c_fa=1),
            lc.min_cllr(tar, non))
    for f in (lambda x: 3 * x + 1, np.exp):
        t, n = f(tar), f(non)
        assert np.unique(np.r_[t, n]).size == np.unique(np.r_[tar, non]).size
        assert (lc.eer(t, n), lc.min_dcf(t, n, p_target=0.01), lc.min_dcf(t, n, p_target=0.3, c_miss=2, c_fa=1),
                lc.min_cllr(t, n)) == base
        np.testing.assert_array_equal(np.r_[lc.pav_llrs(t, n)], np.r_[lc.pav_llrs(tar, non)])


# ----- 7. real data: ASVspoof 2019 LA ASV scores ------------------------------------------------------------------


@pytest.mark.parametrize("part,expected_percent", [("dev", 33.08), ("eval", 45.89)])
def test_asvspoof_reference_eer_code_reproduces_source_tar_vs_spoof(part, expected_percent, request):
    """Reference: SOURCE.txt's own-computed ASV target-vs-spoof EERs (33.08 / 45.89 %) are reproduced by the
    ASVspoof 2019 ``compute_eer`` method (re-implemented above): this validates the loaded data and the step-EER
    reference. The ROCCH-EER lies at or below any step-curve EER."""
    scores = request.getfixturevalue(f"asvspoof_{part}")
    step_eer = asvspoof_compute_eer(scores["target"], scores["spoof"])
    assert round(100 * step_eer, 2) == expected_percent
    assert lc.eer(scores["target"], scores["spoof"]) <= sklearn_interpolated_eer(scores["target"], scores["spoof"])


@pytest.mark.parametrize("part", ["dev", "eval"])
def test_asvspoof_eer_agrees_with_sklearn_roc(part, request):
    """Reference: EER interpolated on sklearn's ROC step curve and the ASVspoof compute_eer; the ROCCH-EER is at
    most that and agrees to 1e-3 (absolute, as a fraction)."""
    scores = request.getfixturevalue(f"asvspoof_{part}")
    tar, non = scores["target"], scores["nontarget"]
    eer, step = lc.eer(tar, non), sklearn_interpolated_eer(tar, non)
    assert eer <= step
    assert eer == pytest.approx(step, abs=1e-3)
    assert eer == pytest.approx(asvspoof_compute_eer(tar, non), abs=1e-3)


# ----- 8. evaluate and metrics_table --------------------------------------------------------------------------------


def test_evaluate_fields_equal_individual_functions(evalita):
    """Reference: the individual public functions (each checked above against independent references)."""
    tar, non = evalita
    m = lc.evaluate(tar, non, p_target=0.01, c_miss=10, c_fa=1, name="evalita")
    assert (m.name, m.n_tar, m.n_non, m.p_target, m.c_miss, m.c_fa) == ("evalita", tar.size, non.size, 0.01, 10, 1)
    assert m.eer == lc.eer(tar, non)
    assert m.min_dcf == lc.min_dcf(tar, non, p_target=0.01, c_miss=10, c_fa=1)
    assert m.act_dcf == lc.act_dcf(tar, non, p_target=0.01, c_miss=10, c_fa=1)
    assert m.cllr == lc.cllr(tar, non)
    assert m.min_cllr == lc.min_cllr(tar, non)
    assert m.cprimary == lc.cprimary(tar, non)
    assert m.min_cprimary == lc.cprimary(tar, non, minimum=True)
    assert m.calibration_loss == pytest.approx(m.cllr - m.min_cllr, rel=1e-15)
    assert m.calibration_loss_percent == pytest.approx(100 * (m.cllr - m.min_cllr) / m.cllr, rel=1e-14)
    # a Trials object gives the same numbers as the arrays
    trials = lc.Trials(tar, non, name="evalita")
    assert lc.evaluate(trials, p_target=0.01, c_miss=10, c_fa=1, name="evalita") == m
    assert lc.eer(trials) == m.eer and lc.min_cllr(trials) == m.min_cllr and lc.cllr(trials) == m.cllr


def test_metrics_table_one_row_per_system(evalita, asvspoof_dev):
    """Reference: the BinaryMetrics it is built from: one row per system, indexed by name."""
    results = [lc.evaluate(*evalita, name="evalita"),
               lc.evaluate(asvspoof_dev["target"], asvspoof_dev["nontarget"], name="asv dev")]
    table = lc.metrics_table(results)
    assert isinstance(table, pd.DataFrame)
    assert list(table.index) == ["evalita", "asv dev"]
    assert table.index.name == "system"
    assert table.loc["evalita", "EER"] == results[0].eer
    assert table.loc["asv dev", "minCllr"] == results[1].min_cllr
    assert table.loc["asv dev", "targets"] == asvspoof_dev["target"].size


def test_metrics_table_keeps_systems_with_the_same_name():
    """Reference: the list given. ``evaluate`` names systems "" by default; two unnamed (or equally named)
    systems must not be merged silently into one row: either both rows are kept or a ValueError says why."""
    a = lc.evaluate([1.0, 2.0], [0.0])
    b = lc.evaluate([3.0, 2.0], [0.0, 4.0])
    try:
        table = lc.metrics_table([a, b])
    except ValueError:
        return
    assert len(table) == 2
    assert list(table["targets"]) == [a.n_tar, b.n_tar]
    assert list(table["non-targets"]) == [a.n_non, b.n_non]


def test_invalid_input_raises_value_error():
    """Reference: DESIGN.md conventions: NaN scores, empty classes, priors outside [0, 1] and non-positive costs
    are refused with a ValueError."""
    with pytest.raises(ValueError):
        lc.eer([np.nan, 1.0], [0.0])
    with pytest.raises(ValueError):
        lc.min_cllr([], [0.0])
    with pytest.raises(ValueError):
        lc.min_dcf([1.0], [0.0], p_target=1.5)
    with pytest.raises(ValueError):
        lc.act_dcf([1.0], [0.0], p_target=0.1, c_miss=0)
    with pytest.raises(ValueError):
        lc.bayes_error_rates([1.0], [0.0], plo=[0.0], c_fa=-1)
