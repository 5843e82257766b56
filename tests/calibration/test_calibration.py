"""Tests of calibration and fusion (:mod:`llrcore.calibration.fit`) against independent references.

References used (no expected value below is an output of llrcore itself):

- scikit-learn ``LogisticRegression`` without penalty, with sample weights ``P/N_tar`` and ``(1-P)/N_non``
  (DESIGN.md: affine calibration with the logarithmic rule is prior-weighted logistic regression,
  ``offset = intercept - plo``), solved by its Newton-Cholesky solver to ``tol=1e-12``;
- optimality checks of the objective by finite differences, perturbations and scipy's Nelder-Mead for the other
  proper scoring rules (Brümmer & Doddington 2013);
- the CMLG closed form of DESIGN.md (van Leeuwen & Brümmer 2013) written out with numpy, and the LLR of two
  equal-variance Gaussians; calibrated Gaussian LLRs have means +-mu and variance 2 mu;
- minCllr and the PAV LLRs (``lc.min_cllr``, ``lc.pav_llrs``, tested against brute force in test_metrics.py);
- ``scipy.optimize.linprog`` to show that a set of trials is linearly separable;
- real scores: the ASVspoof 2019 LA organisers' ASV dev scores (tests/data/asvspoof2019_la/SOURCE.txt) and the four
  ASVspoof 2019 LA countermeasure systems of Tak et al.'s SVM-fusion folder (tests/data/asvspoof2019_la_cm/SOURCE.txt).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.io
from scipy import optimize
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

import llrcore as lc
import llrcore.calibration.fit as calibration
from llrcore.calibration.calibrators import Affine, Fusion, PAVCalibrator
from llrcore.calibration.cmlg import fit_cmlg
from llrcore.calibration.fit import fit_affine, fit_fusion
from llrcore.calibration.pav import fit_pav
from llrcore.calibration.rules import BetaRule, objective
from paths import DATA

CM_DIR = DATA / "asvspoof2019_la_cm"


# ----- independent references and data --------------------------------------------------------------------------


def weighted_logistic_regression(tar, non, plo):
    """Prior-weighted logistic regression by scikit-learn: returns (weights, offset) with offset = intercept - plo.

    ``tar``, ``non`` are (N, K) matrices or 1-D arrays. The sample weights P/N_tar and (1-P)/N_non are scaled up by
    N (which does not move the optimum) so that sklearn's absolute tolerance is meaningful."""
    tar = np.asarray(tar, float).reshape(len(tar), -1)
    non = np.asarray(non, float).reshape(len(non), -1)
    x = np.vstack([tar, non])
    y = np.r_[np.ones(len(tar)), np.zeros(len(non))]
    p = expit(plo)
    weights = np.r_[np.full(len(tar), p / len(tar)), np.full(len(non), (1 - p) / len(non))] * y.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-12, max_iter=10_000)
        model.fit(x, y, sample_weight=weights)
    return model.coef_[0], float(model.intercept_[0]) - plo


def linearly_separable(tar, non) -> bool:
    """True if some (w, b) has s.w + b >= 1 for every target and <= -1 for every non-target (an LP feasibility)."""
    tar = np.asarray(tar, float).reshape(len(tar), -1)
    non = np.asarray(non, float).reshape(len(non), -1)
    a_ub = np.vstack([-np.c_[tar, np.ones(len(tar))], np.c_[non, np.ones(len(non))]])
    k = tar.shape[1] + 1
    result = optimize.linprog(np.zeros(k), A_ub=a_ub, b_ub=-np.ones(len(a_ub)), bounds=[(None, None)] * k,
                              method="highs")
    return result.status == 0


@pytest.fixture(scope="module")
def synthetic():
    """Overlapping, non-Gaussian-looking scores in arbitrary units (offset and scaled away from LLRs)."""
    rng = np.random.default_rng(20130825)
    tar = 10 + 3 * np.r_[rng.normal(2.0, 1.5, 700), rng.gumbel(1.0, 1.0, 300)]
    non = 10 + 3 * np.r_[rng.normal(-1.0, 1.0, 1500), rng.logistic(0.0, 0.8, 500)]
    return tar, non


@pytest.fixture(scope="module")
def asv_dev(asvspoof_dev):
    """ASVspoof 2019 LA ASV dev scores: targets vs zero-effort non-targets (spoofs left out)."""
    return asvspoof_dev["target"], asvspoof_dev["nontarget"]


@pytest.fixture(scope="module")
def cm_systems():
    """The four CM systems' scores: dict part -> (bona fide (target) matrix, spoof (non-target) matrix)."""
    parts = {}
    for part in ("dev", "eval"):
        mat = scipy.io.loadmat(CM_DIR / f"S_{part}.mat")
        scores, labels = mat[f"S_{part}"], mat[f"{part}_labels"].ravel()
        parts[part] = (scores[labels == 1], scores[labels == 0])
    dev_tar, dev_non = parts["dev"]
    eval_tar, eval_non = parts["eval"]
    # counts of the ASVspoof 2019 LA protocols (dev 2548 bona fide / 22296 spoof, eval 7355 / 63882)
    assert dev_tar.shape == (2548, 4) and dev_non.shape == (22296, 4)
    assert eval_tar.shape == (7355, 4) and eval_non.shape == (63882, 4)
    return parts


# ----- 7. logarithmic rule = prior-weighted logistic regression ------------------------------------------------------


@pytest.mark.parametrize("plo", [0.0, -2.3, 3.0])
@pytest.mark.parametrize("dataset", ["synthetic", "asv_dev"])
def test_affine_logarithmic_equals_logistic_regression(request, dataset, plo):
    tar, non = request.getfixturevalue(dataset)
    fit = fit_affine(tar, non, BetaRule.logarithmic(), plo=plo)
    assert isinstance(fit, Affine)
    (scale,), offset = weighted_logistic_regression(tar, non, plo)
    assert fit.scale == pytest.approx(scale, rel=1e-6)
    assert fit.offset == pytest.approx(offset, rel=1e-6, abs=1e-6)
    # the default rule is the logarithmic one
    default = fit_affine(tar, non, plo=plo)
    assert default.scale == pytest.approx(fit.scale, rel=1e-12)
    assert default.offset == pytest.approx(fit.offset, rel=1e-12, abs=1e-12)


def test_affine_calibrator_applies_scale_and_offset(synthetic):
    tar, non = synthetic
    fit = fit_affine(tar, non)
    scores = np.array([-1.0, 0.0, 2.5, 13.0])
    np.testing.assert_allclose(fit(scores), fit.scale * scores + fit.offset, rtol=1e-15)
    # calibrating the training scores makes the logarithmic objective no worse than any other affine map, in
    # particular the identity and a pure shift
    cllr_calibrated = lc.cllr(fit(tar), fit(non))
    assert cllr_calibrated <= lc.cllr(tar - 10, non - 10)
    assert cllr_calibrated <= 1.0  # never worse than the useless system at the prior it was trained for


# ----- 8. other rules: the fit is a minimum of the objective --------------------------------------------------------

OTHER_RULES = [BetaRule.brier(), BetaRule.boosting(), BetaRule.asymmetric(), BetaRule(3.0, 0.7), BetaRule(0.7, 3.0)]
OTHER_IDS = ["Brier", "boosting", "asymmetric", "3,0.7", "0.7,3"]


def local_objective(tar, non, rule, plo, fit):
    """E as a function of standardised perturbations (u, v) of the fit: llr = fit(s) + u (s - m) / sd + v."""
    scores = np.r_[tar, non]
    centre, spread = scores.mean(), scores.std()

    def value(uv):
        u, v = uv
        return objective(fit(tar) + u * (tar - centre) / spread + v, fit(non) + u * (non - centre) / spread + v,
                         rule, plo=plo)

    return value


@pytest.mark.parametrize("plo", [0.0, -2.3])
@pytest.mark.parametrize("rule", OTHER_RULES, ids=OTHER_IDS)
def test_affine_other_rules_reach_the_minimum(synthetic, rule, plo):
    tar, non = synthetic
    fit = fit_affine(tar, non, rule, plo=plo)
    assert np.isfinite(fit.scale) and np.isfinite(fit.offset) and fit.scale > 0
    value = local_objective(tar, non, rule, plo, fit)
    at_fit = value((0.0, 0.0))
    # gradient ~ 0 by central differences
    h = 1e-4
    gradient = np.array([(value((h, 0)) - value((-h, 0))) / (2 * h), (value((0, h)) - value((0, -h))) / (2 * h)])
    assert np.all(np.abs(gradient) < 1e-7), gradient
    # no small perturbation does better
    for angle in np.linspace(0, 2 * np.pi, 8, endpoint=False):
        for radius in (1e-3, 1e-2):
            assert value((radius * np.cos(angle), radius * np.sin(angle))) >= at_fit - 1e-14
    # Nelder-Mead from the logistic-regression solution (the library's own start) finds nothing lower
    (scale, ), offset = weighted_logistic_regression(tar, non, plo)
    scores = np.r_[tar, non]
    centre, spread = scores.mean(), scores.std()
    start = np.array([(scale - fit.scale) * spread, offset - fit.offset + (scale - fit.scale) * centre])
    search = optimize.minimize(value, start, method="Nelder-Mead",
                               options={"xatol": 1e-10, "fatol": 1e-15, "maxiter": 4000, "maxfev": 8000})
    assert search.fun >= at_fit - 1e-9


@pytest.mark.parametrize("rule", [BetaRule.brier(), BetaRule(3.0, 0.7)], ids=["Brier", "3,0.7"])
def test_affine_other_rules_on_real_scores(asv_dev, rule):
    tar, non = asv_dev
    fit = fit_affine(tar, non, rule, plo=-1.0)
    value = local_objective(tar, non, rule, -1.0, fit)
    h = 1e-4
    gradient = np.array([(value((h, 0)) - value((-h, 0))) / (2 * h), (value((0, h)) - value((0, -h))) / (2 * h)])
    assert np.all(np.abs(gradient) < 1e-7), gradient
    search = optimize.minimize(value, np.array([0.05, -0.05]), method="Nelder-Mead",
                               options={"xatol": 1e-10, "fatol": 1e-15, "maxiter": 4000, "maxfev": 8000})
    assert search.fun >= value((0.0, 0.0)) - 1e-9


# ----- 9. large-data path: subsample + Newton polish ----------------------------------------------------------------


@pytest.fixture(scope="module")
def large_trials():
    rng = np.random.default_rng(9)
    tar = 5 + 2 * rng.normal(2.0, 1.3, 100_000)
    non = 5 + 2 * rng.normal(-1.0, 1.0, 200_500)
    assert tar.size + non.size > calibration._SUBSAMPLE_ABOVE
    return tar, non


@pytest.fixture(scope="module")
def large_fits(large_trials):
    """Logarithmic and Brier fits at plo=-1, with the default subsampling and with it disabled."""
    tar, non = large_trials
    fits = {}
    for name, rule in (("logarithmic", BetaRule.logarithmic()), ("Brier", BetaRule.brier())):
        fits[name, "subsampled"] = fit_affine(tar, non, rule, plo=-1.0)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(calibration, "_SUBSAMPLE_ABOVE", 10**15)
            fits[name, "full"] = fit_affine(tar, non, rule, plo=-1.0)
    return fits


@pytest.mark.parametrize("rule", ["logarithmic", "Brier"])
def test_large_data_subsampling_equals_full_fit(large_fits, rule):
    subsampled, full = large_fits[rule, "subsampled"], large_fits[rule, "full"]
    assert subsampled.scale == pytest.approx(full.scale, rel=1e-8)
    assert subsampled.offset == pytest.approx(full.offset, rel=1e-8, abs=1e-8)


@pytest.mark.parametrize("path", ["subsampled", "full"])
def test_large_data_fit_equals_logistic_regression(large_trials, large_fits, path):
    """Both paths against the independent optimum (the docstring promises convergence to machine precision)."""
    tar, non = large_trials
    (scale,), offset = weighted_logistic_regression(tar, non, -1.0)
    fit = large_fits["logarithmic", path]
    assert fit.scale == pytest.approx(scale, rel=1e-8)
    assert fit.offset == pytest.approx(offset, rel=1e-8, abs=1e-8)


# ----- 10. CMLG -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.0, 0.5, 0.3, 1.0])
def test_cmlg_closed_form(alpha):
    rng = np.random.default_rng(42)
    tar = rng.normal(3.0, 2.0, 800)
    non = rng.normal(-1.0, 1.2, 1700)
    m_e, m_d = np.mean(tar), np.mean(non)
    s2_e = np.sum((tar - m_e) ** 2) / tar.size  # ML variances
    s2_d = np.sum((non - m_d) ** 2) / non.size
    v = (1 - alpha) * s2_d + alpha * s2_e
    a = (m_e - m_d) / v
    b = -a * (m_e + m_d) / 2
    fit = fit_cmlg(tar, non, alpha=alpha)
    assert isinstance(fit, Affine)
    assert fit.scale == pytest.approx(a, rel=1e-12)
    assert fit.offset == pytest.approx(b, rel=1e-12)


def test_cmlg_default_alpha_is_one_half():
    rng = np.random.default_rng(4)
    tar, non = rng.normal(1.0, 3.0, 100), rng.normal(0.0, 1.0, 100)
    assert fit_cmlg(tar, non) == fit_cmlg(tar, non, alpha=0.5)


def test_cmlg_recovers_true_llr_of_equal_variance_gaussians():
    rng = np.random.default_rng(2013)
    m_e, m_d, sd = 2.0, -1.0, np.sqrt(1.5)
    tar, non = rng.normal(m_e, sd, 400_000), rng.normal(m_d, sd, 400_000)
    fit = fit_cmlg(tar, non)
    true_scale = (m_e - m_d) / sd**2  # log N(s; m_e, v) - log N(s; m_d, v) = a s - a (m_e + m_d) / 2
    true_offset = -true_scale * (m_e + m_d) / 2
    assert fit.scale == pytest.approx(true_scale, rel=0.01)
    assert fit.offset == pytest.approx(true_offset, abs=0.01)
    grid = np.linspace(-4, 6, 11)
    np.testing.assert_allclose(fit(grid), true_scale * grid + true_offset, atol=0.05)
    # calibrated Gaussian LLRs: means +-mu, variance 2 mu, mu = (m_e - m_d)^2 / (2 v) = 3
    mu = (m_e - m_d) ** 2 / (2 * sd**2)
    tar_llr, non_llr = fit(tar), fit(non)
    assert tar_llr.mean() == pytest.approx(mu, rel=0.02)
    assert non_llr.mean() == pytest.approx(-mu, rel=0.02)
    assert tar_llr.var() == pytest.approx(2 * mu, rel=0.02)
    assert non_llr.var() == pytest.approx(2 * mu, rel=0.02)


@pytest.mark.parametrize("alpha", [-0.1, 1.5])
def test_cmlg_alpha_out_of_range(alpha):
    with pytest.raises(ValueError, match="alpha"):
        fit_cmlg([1.0, 2.0, 3.0], [0.0, 1.0, 2.0], alpha=alpha)


# ----- 11. PAV calibration ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pav_data():
    rng = np.random.default_rng(11)
    return rng.normal(2.0, 1.2, 2000), rng.normal(0.0, 1.0, 3000)


def test_pav_training_cllr_close_to_min_cllr(pav_data):
    tar, non = pav_data
    calibrator = fit_pav(tar, non)
    assert isinstance(calibrator, PAVCalibrator)
    cllr = lc.cllr(calibrator(tar), calibrator(non))
    min_cllr = lc.min_cllr(tar, non)
    assert min_cllr <= cllr <= min_cllr + 1e-2


def test_pav_is_monotone_and_finite_on_unseen_scores(pav_data):
    tar, non = pav_data
    calibrator = fit_pav(tar, non)
    grid = np.linspace(-8, 10, 200_001)
    llrs = calibrator(grid)
    assert np.all(np.isfinite(llrs))
    assert np.all(np.diff(llrs) >= 0)
    extremes = np.array([-1e9, min(tar.min(), non.min()), max(tar.max(), non.max()), 1e9])
    ends = calibrator(extremes)
    assert np.all(np.isfinite(ends))
    assert ends[0] == ends[1] and ends[2] == ends[3]  # constant beyond the training range
    assert ends[0] < 0 < ends[3]


def test_pav_equals_pav_llrs_away_from_the_end_blocks(pav_data):
    tar, non = pav_data
    calibrator = fit_pav(tar, non)
    got = np.r_[calibrator(tar), calibrator(non)]
    oracle = np.concatenate(lc.pav_llrs(tar, non))
    # the pseudo-counts (one target at the lowest score, one non-target at the highest) change only the end blocks:
    # leave out the trials in the calibrator's lowest and highest blocks, which must be few
    interior = (got > got.min()) & (got < got.max())
    assert interior.mean() > 0.95
    assert np.all(np.isfinite(oracle[interior]))
    # elsewhere only the class totals change by one: log(N_tar/(N_tar+1)) - log(N_non/(N_non+1)) ~ 2e-4
    np.testing.assert_allclose(got[interior], oracle[interior], atol=1e-3)


def test_pav_keeps_ties_together():
    tar = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0])
    non = np.array([-1.0, 0.0, 1.0, 1.0, 2.0, 1.5])
    calibrator = fit_pav(tar, non)
    llrs = calibrator(np.r_[tar, non])
    scores = np.r_[tar, non]
    for value in np.unique(scores):
        assert np.ptp(llrs[scores == value]) == 0


# ----- 12. fusion ----------------------------------------------------------------------------------------------------


def test_fusion_with_one_system_equals_affine(cm_systems):
    tar, non = cm_systems["dev"]
    for rule in (BetaRule.logarithmic(), BetaRule.brier()):
        affine = fit_affine(tar[:, 1], non[:, 1], rule, plo=-2.0)
        for fusion in (fit_fusion(tar[:, [1]], non[:, [1]], rule, plo=-2.0),
                       fit_fusion([tar[:, 1]], [non[:, 1]], rule, plo=-2.0)):
            assert isinstance(fusion, Fusion)
            assert fusion.weights.shape == (1,)
            assert fusion.weights[0] == pytest.approx(affine.scale, rel=1e-12)
            assert fusion.offset == pytest.approx(affine.offset, rel=1e-12)


def test_fusion_equals_logistic_regression(cm_systems):
    """The three RawNet2 systems (columns 1-3), which overlap on dev, fused by prior-weighted logistic regression."""
    tar, non = cm_systems["dev"]
    for plo in (0.0, -2.0):
        fusion = fit_fusion(tar[:, 1:], non[:, 1:], plo=plo)
        weights, offset = weighted_logistic_regression(tar[:, 1:], non[:, 1:], plo)
        np.testing.assert_allclose(fusion.weights, weights, rtol=1e-6)
        assert fusion.offset == pytest.approx(offset, rel=1e-6)
        np.testing.assert_allclose(fusion(tar[:5, 1:]), tar[:5, 1:] @ weights + offset, rtol=1e-6)


def test_fusion_beats_single_systems_on_eval(cm_systems):
    """Fused on dev, applied to eval: better discrimination (EER, minDCF, minCllr) than every single system
    affine-calibrated on dev; and on dev itself a lower objective (the fusion contains each single system).

    Uses the three RawNet2 systems: any set including column 0 (the LFCC-GMM) is linearly separable on dev
    (see test_fusion_refuses_linearly_separable_systems)."""
    dev_tar, dev_non = cm_systems["dev"]
    eval_tar, eval_non = cm_systems["eval"]
    columns = [1, 2, 3]
    fusion = fit_fusion(dev_tar[:, columns], dev_non[:, columns])
    fused_eval = fusion(eval_tar[:, columns]), fusion(eval_non[:, columns])
    fused_dev_cllr = lc.cllr(fusion(dev_tar[:, columns]), fusion(dev_non[:, columns]))
    for k in columns:
        single = fit_affine(dev_tar[:, k], dev_non[:, k])
        single_eval = single(eval_tar[:, k]), single(eval_non[:, k])
        assert fused_dev_cllr <= lc.cllr(single(dev_tar[:, k]), single(dev_non[:, k])), k
        assert lc.eer(*fused_eval) < lc.eer(*single_eval), k
        assert lc.min_dcf(*fused_eval, p_target=0.05) < lc.min_dcf(*single_eval, p_target=0.05), k
        assert lc.min_cllr(*fused_eval) < lc.min_cllr(*single_eval), k


def test_regularised_fusion_equals_penalised_logistic_regression(cm_systems):
    """Reference: scikit-learn's L2-penalised logistic regression on scores standardised to zero mean and unit
    (population) spread over all trials: our penalty lambda/2 |w_std|^2 on mean-weighted costs is sklearn's
    1/(2C) |w|^2 on N-scaled sample weights with C = 1 / (lambda N)."""
    tar, non = cm_systems["dev"]  # all four systems: separable, so only the penalty keeps the optimum finite
    pooled = np.vstack([tar, non])
    centre, spread = pooled.mean(axis=0), pooled.std(axis=0)
    y = np.r_[np.ones(len(tar)), np.zeros(len(non))]
    for regularisation, plo in ((1e-2, 0.0), (1e-3, -2.0)):
        p = expit(plo)
        weights = np.r_[np.full(len(tar), p / len(tar)), np.full(len(non), (1 - p) / len(non))] * y.size
        model = LogisticRegression(C=1 / (regularisation * y.size), solver="newton-cholesky", tol=1e-12,
                                   max_iter=10_000).fit((pooled - centre) / spread, y, sample_weight=weights)
        expected_weights = model.coef_[0] / spread
        expected_offset = model.intercept_[0] - expected_weights @ centre - plo
        fusion = fit_fusion(tar, non, plo=plo, regularisation=regularisation)
        np.testing.assert_allclose(fusion.weights, expected_weights, rtol=1e-6)
        assert fusion.offset == pytest.approx(expected_offset, rel=1e-6)


def test_regularised_fusion_of_all_four_beats_each_single_system_on_eval(cm_systems):
    """The issue's claim, on real data: the four ASVspoof 2019 CM systems fused on dev (regularised, since together
    they separate dev) give a lower eval Cllr and EER than each system alone, affine-calibrated on dev."""
    dev_tar, dev_non = cm_systems["dev"]
    eval_tar, eval_non = cm_systems["eval"]
    fusion = fit_fusion(dev_tar, dev_non, regularisation=1e-2)
    fused_cllr, fused_eer = lc.cllr(fusion(eval_tar), fusion(eval_non)), lc.eer(fusion(eval_tar), fusion(eval_non))
    for k in range(4):
        single = fit_affine(dev_tar[:, k], dev_non[:, k])
        assert fused_cllr < lc.cllr(single(eval_tar[:, k]), single(eval_non[:, k])), k
        assert fused_eer < lc.eer(eval_tar[:, k], eval_non[:, k]), k


def test_fusion_refuses_linearly_separable_systems(cm_systems):
    """All four CM systems are linearly separable on dev (an LP finds a separating hyperplane), so the objective
    has no minimum (it tends to 0 as the weights grow); the docstring promises a ValueError."""
    tar, non = cm_systems["dev"]
    assert linearly_separable(tar, non)
    # no single system is: in 1-D, separable means the class ranges do not overlap
    assert all(tar[:, k].min() <= non[:, k].max() and non[:, k].min() <= tar[:, k].max() for k in range(4))
    with pytest.raises(ValueError):
        fit_fusion(tar, non)


def test_fusion_refuses_separable_synthetic_systems():
    """Two systems that each overlap but whose difference separates the classes."""
    rng = np.random.default_rng(5)
    s_tar, s_non = rng.normal(0, 1, 300), rng.normal(0, 1, 400)
    tar = np.c_[s_tar, s_tar - 0.5 - rng.exponential(1, 300)]
    non = np.c_[s_non, s_non + 0.5 + rng.exponential(1, 400)]
    assert linearly_separable(tar, non)
    with pytest.raises(ValueError):
        fit_fusion(tar, non)


# ----- 13. bad input -----------------------------------------------------------------------------------------------


def test_separable_single_system_is_refused_with_a_readable_message():
    with pytest.raises(ValueError, match="overlap") as error:
        fit_affine([2.0, 3.0, 4.5], [-1.0, 0.0, 1.0])
    message = str(error.value)
    assert message[0].isupper() and " " in message and "Traceback" not in message and "ndarray" not in message
    with pytest.raises(ValueError, match="overlap"):  # targets all below the non-targets: also separable
        fit_affine([-3.0, -2.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="overlap"):
        fit_fusion(np.array([[2.0], [3.0]]), np.array([[0.0], [1.0]]))


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("side", ["target", "non-target"])
@pytest.mark.parametrize("fit", [fit_affine, fit_cmlg, fit_pav], ids=["affine", "cmlg", "pav"])
def test_non_finite_scores_are_refused(fit, side, bad):
    tar, non = [1.0, 2.0, 0.5, 3.0], [0.0, 1.5, -1.0, 0.7]
    if side == "target":
        tar = tar + [bad]
    else:
        non = non + [bad]
    with pytest.raises(ValueError):
        fit(tar, non)


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_non_finite_fusion_scores_are_refused(bad):
    tar = np.array([[1.0, 2.0], [0.5, 3.0], [2.0, bad]])
    non = np.array([[0.0, 1.5], [-1.0, 0.7], [1.2, 0.1]])
    with pytest.raises(ValueError):
        fit_fusion(tar, non)
    with pytest.raises(ValueError):
        fit_fusion(non, tar)


def test_mismatched_system_counts_are_refused():
    with pytest.raises(ValueError, match="system"):
        fit_fusion(np.ones((3, 2)) + np.arange(3)[:, None], np.zeros((4, 3)) + np.arange(4)[:, None])
    with pytest.raises(ValueError, match="system"):
        fit_fusion([np.arange(3.0), np.arange(3.0)], [np.arange(4.0)])


def test_empty_classes_are_refused():
    with pytest.raises(ValueError):
        fit_affine([], [0.0, 1.0])
    with pytest.raises(ValueError):
        fit_pav([1.0, 2.0], [])


def test_public_api_exports_calibration_and_rules():
    """DESIGN.md's public API: lc.BetaRule, lc.objective, lc.threshold_weighting, lc.fit_affine, lc.fit_cmlg,
    lc.fit_pav (and fit_fusion) are reachable from the package."""
    for name in ("BetaRule", "objective", "threshold_weighting", "fit_affine", "fit_cmlg", "fit_pav", "fit_fusion"):
        assert hasattr(lc, name), name


# ----- 14. warm starts (start=) --------------------------------------------------------------------------------------

ALL_RULES, ALL_IDS = [BetaRule.logarithmic(), *OTHER_RULES], ["logarithmic", *OTHER_IDS]


def count_passes(patch) -> list:
    """Record each pass of the objective over the data (a value, or a gradient and Hessian)."""
    passes = []
    for name in ("value", "derivatives"):
        method = getattr(calibration.FusionObjective, name)
        patch.setattr(calibration.FusionObjective, name,
                      lambda self, phi, method=method, name=name: passes.append(name) or method(self, phi))
    return passes


@pytest.mark.parametrize("rule", ALL_RULES, ids=ALL_IDS)
def test_a_start_at_a_neighbouring_prior_gives_the_fit_from_scratch(asv_dev, rule):
    """From the same rule's or logistic regression's fit at the neighbouring weighting, the fit is the one from
    scratch: a convex rule (alpha, beta <= 1) has one minimum, the others still search from logistic regression's."""
    tar, non = asv_dev
    cold = fit_affine(tar, non, rule, plo=-3.0)
    for start in (fit_affine(tar, non, rule, plo=-2.5), fit_affine(tar, non, plo=-2.5)):
        warm = fit_affine(tar, non, rule, plo=-3.0, start=start)
        assert warm.scale == pytest.approx(cold.scale, rel=1e-9)
        assert warm.offset == pytest.approx(cold.offset, rel=1e-9)


@pytest.mark.parametrize("rule", [BetaRule.logarithmic(), BetaRule.boosting()], ids=["logarithmic", "boosting"])
def test_a_start_saves_most_passes_of_a_convex_fit(asv_dev, rule):
    tar, non = asv_dev
    start = fit_affine(tar, non, rule, plo=-2.5)
    with pytest.MonkeyPatch.context() as patch:
        passes = count_passes(patch)
        fit_affine(tar, non, rule, plo=-3.0)
        cold = len(passes)
        fit_affine(tar, non, rule, plo=-3.0, start=start)
        warm = len(passes) - cold
    assert warm <= 5 and warm <= cold / 3, (warm, cold)


@pytest.mark.parametrize("start", [Affine(500.0, -9000.0), Affine(-2.0, 1.0), Affine(0.0, 0.0)],
                         ids=["step-like", "reversed", "zero"])
@pytest.mark.parametrize("rule", [BetaRule.logarithmic(), BetaRule.brier()], ids=["logarithmic", "Brier"])
def test_a_far_start_does_not_change_the_fit(asv_dev, rule, start):
    """Newton steps from a start far from the optimum (a plateau, the wrong sign) do not converge: the fit is then
    made from scratch, never left where a crawling search stopped."""
    tar, non = asv_dev
    cold, warm = fit_affine(tar, non, rule, plo=-3.0), fit_affine(tar, non, rule, plo=-3.0, start=start)
    assert warm.scale == pytest.approx(cold.scale, rel=1e-9)
    assert warm.offset == pytest.approx(cold.offset, rel=1e-9)


@pytest.mark.parametrize("rule", ["logarithmic", "Brier"])
def test_a_start_on_large_data_gives_the_fit_from_scratch(large_trials, large_fits, rule):
    tar, non = large_trials
    start = fit_affine(tar, non, plo=-0.5)
    warm = fit_affine(tar, non, BetaRule.logarithmic() if rule == "logarithmic" else BetaRule.brier(), plo=-1.0,
                      start=start)
    assert warm.scale == pytest.approx(large_fits[rule, "subsampled"].scale, rel=1e-9)
    assert warm.offset == pytest.approx(large_fits[rule, "subsampled"].offset, rel=1e-9)


def test_a_start_on_huge_scores_gives_the_fit_from_scratch(synthetic):
    """Scores beyond 1e100 are fitted on scaled copies: the start is scaled with them."""
    tar, non = (scores * 1e120 for scores in synthetic)
    cold = fit_affine(tar, non, plo=-1.0)
    warm = fit_affine(tar, non, plo=-1.0, start=fit_affine(tar, non, plo=-0.5))
    assert warm.scale == pytest.approx(cold.scale, rel=1e-9)
    assert warm.offset == pytest.approx(cold.offset, rel=1e-9)


@pytest.mark.parametrize("columns, regularisation", [([1, 2, 3], 0.0), ([0, 1, 2, 3], 1e-2)])
def test_fusion_from_a_start_equals_the_fusion_from_scratch(cm_systems, columns, regularisation):
    tar, non = (scores[:, columns] for scores in cm_systems["dev"])
    cold = fit_fusion(tar, non, plo=-2.0, regularisation=regularisation)
    start = fit_fusion(tar, non, plo=-1.5, regularisation=regularisation)
    warm = fit_fusion(tar, non, plo=-2.0, regularisation=regularisation, start=start)
    np.testing.assert_allclose(warm.weights, cold.weights, rtol=1e-9)
    assert warm.offset == pytest.approx(cold.offset, rel=1e-9)


def test_a_start_of_the_wrong_shape_is_refused(cm_systems):
    tar, non = cm_systems["dev"]
    with pytest.raises(ValueError, match="start must be a finite fusion of 3 system"):
        fit_fusion(tar[:, 1:], non[:, 1:], start=Fusion(weights=np.ones(2), offset=0.0))
    with pytest.raises(ValueError, match="start must be a finite fusion of 1 system"):
        fit_affine(tar[:, 1], non[:, 1], start=Affine(np.nan, 0.0))
