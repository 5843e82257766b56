"""Tests of llrcore.teaching.gaussian: calibrated Gaussian LLRs against numerical integration written out here.

References used (no expected value below is an output of llrcore itself):

- ``scipy.stats.norm`` (pdf, cdf) and ``scipy.integrate.quad`` over the LLR axis for the EER, the DET rates, the
  density moments and Cllr (integrated in x, not in the standardised variable llrcore uses);
- the APE identity ``Cllr = (1 / (2 ln 2)) int Pe(plo) dplo`` (Brümmer & du Preez 2006) with Pe from norm.cdf;
- Monte Carlo samples of N(+-mu, 2 mu), scored with ``lc.cllr`` (loose, statistical tolerance);
- the CMLG closed form of van Leeuwen & Brümmer (2013) written out with numpy means and variances;
- the slides' claim that ``1 - (2 EER - 1)^2`` is within about 0.02 of the exact Cllr for EER from 1 % to 49 %.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import llrcore as lc
from llrcore.teaching import gaussian

MUS = [0.01, 0.1, 0.5, 1.0, 3.0, 8.0, 15.0, 25.0]


def reference_cllr(mu: float) -> float:
    """(1/ln 2) int N(x | mu, 2 mu) log(1 + e^-x) dx on the LLR axis, split at 0 where the softplus bends."""
    sd = np.sqrt(2 * mu)
    norm = 1 / (sd * math.sqrt(2 * math.pi))

    def integrand(x):  # the normal density written out (scipy.stats is slow per point)
        softplus = -x + math.log1p(math.exp(x)) if x < 0 else math.log1p(math.exp(-x))
        return norm * math.exp(-((x - mu) ** 2) / (2 * sd * sd)) * softplus

    pieces = [(-np.inf, mu - 12 * sd), (mu - 12 * sd, 0.0), (0.0, mu + 12 * sd), (mu + 12 * sd, np.inf)]
    total = 0.0
    for a, b in pieces:
        if a < b:
            total += integrate.quad(integrand, a, b, epsabs=0, epsrel=1e-12, limit=400)[0]
    return total / np.log(2)


# ----- conversions ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mu", MUS)
def test_eer_is_the_miss_rate_at_threshold_zero_by_integration(mu):
    sd = np.sqrt(2 * mu)
    miss = integrate.quad(lambda x: stats.norm.pdf(x, mu, sd), -np.inf, 0.0, epsabs=0, epsrel=1e-12)[0]
    false_alarm = integrate.quad(lambda x: stats.norm.pdf(x, -mu, sd), 0.0, np.inf, epsabs=0, epsrel=1e-12)[0]
    assert miss == pytest.approx(false_alarm, rel=1e-9)  # threshold 0 is the equal-error point
    assert lc.eer_from_mu(mu) == pytest.approx(miss, rel=1e-9)
    assert lc.eer_from_mu(mu) == pytest.approx(stats.norm.cdf(-np.sqrt(mu / 2)), rel=1e-12)


@pytest.mark.parametrize("eer", [1e-4, 0.001, 0.01, 0.1, 0.25, 0.49, 0.5])
def test_mu_from_eer_inverts_and_matches_the_closed_form(eer):
    mu = lc.mu_from_eer(eer)
    assert mu == pytest.approx(2 * stats.norm.ppf(eer) ** 2, rel=1e-12, abs=1e-15)
    assert lc.eer_from_mu(mu) == pytest.approx(eer, rel=1e-12)


def test_dprime_is_the_distance_of_the_means_in_standard_deviations():
    for mu in MUS:
        d = (mu - (-mu)) / np.sqrt(2 * mu)  # (m1 - m0) / sigma
        assert lc.dprime_from_mu(mu) == pytest.approx(d, rel=1e-14)
        assert lc.mu_from_dprime(d) == pytest.approx(mu, rel=1e-13)
        # EER = Phi(-d'/2): the two means sit d'/2 standard deviations either side of 0
        assert lc.eer_from_mu(mu) == pytest.approx(stats.norm.cdf(-d / 2), rel=1e-12)


def test_conversions_work_on_arrays_and_refuse_bad_values():
    eers = np.array([0.01, 0.1, 0.3])
    np.testing.assert_allclose(lc.eer_from_mu(lc.mu_from_eer(eers)), eers, rtol=1e-12)
    assert lc.eer_from_mu(0.0) == 0.5
    for bad in (0.0, -0.1, 0.6, np.nan):
        with pytest.raises(ValueError, match="EER"):
            lc.mu_from_eer(bad)
    with pytest.raises(ValueError):
        lc.eer_from_mu(-1.0)
    with pytest.raises(ValueError):
        lc.mu_from_dprime(-0.5)


# ----- densities: the LLR of the LLR is the LLR --------------------------------------------------------------


@pytest.mark.parametrize("mu", MUS)
def test_density_ratio_is_e_to_the_llr(mu):
    l = np.linspace(-30, 30, 121)
    tar = lc.gaussian_llr_density(l, mu, True)
    non = lc.gaussian_llr_density(l, mu, False)
    np.testing.assert_allclose(tar, stats.norm.pdf(l, mu, np.sqrt(2 * mu)), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(non, stats.norm.pdf(l, -mu, np.sqrt(2 * mu)), rtol=1e-12, atol=1e-300)
    # in logs, so that the far tails (where the densities underflow) are checked too
    log_ratio = lc.gaussian_llr_density(l, mu, True, log=True) - lc.gaussian_llr_density(l, mu, False, log=True)
    np.testing.assert_allclose(log_ratio, l, rtol=1e-11, atol=1e-11)
    finite = non > 1e-250
    np.testing.assert_allclose(tar[finite] / non[finite], np.exp(l[finite]), rtol=1e-10)


def test_densities_integrate_to_one_with_mean_mu_and_variance_2mu():
    mu = 3.0
    for target, mean in ((True, mu), (False, -mu)):
        def f(x, k):
            return x**k * lc.gaussian_llr_density(x, mu, target)

        moments = [integrate.quad(f, -np.inf, np.inf, args=(k,), epsabs=1e-13)[0] for k in range(3)]
        assert moments[0] == pytest.approx(1.0, abs=1e-10)
        assert moments[1] == pytest.approx(mean, abs=1e-9)
        assert moments[2] - moments[1] ** 2 == pytest.approx(2 * mu, rel=1e-9)


def test_density_needs_a_positive_mu():
    with pytest.raises(ValueError):
        lc.gaussian_llr_density(0.0, 0.0, True)


# ----- DET -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mu", [0.2, 2.0, 10.0])
def test_det_is_the_straight_line_derived_from_the_densities(mu):
    sd = np.sqrt(2 * mu)
    thresholds = np.linspace(-mu - 2 * sd, mu + 2 * sd, 9)
    pfa = np.array([integrate.quad(lambda x: stats.norm.pdf(x, -mu, sd), t, np.inf, epsabs=0, epsrel=1e-12)[0]
                    for t in thresholds])
    pmiss = np.array([integrate.quad(lambda x: stats.norm.pdf(x, mu, sd), -np.inf, t, epsabs=0, epsrel=1e-12)[0]
                      for t in thresholds])
    got_pfa, got_pmiss = lc.gaussian_det(mu, pfa)
    np.testing.assert_array_equal(got_pfa, pfa)
    np.testing.assert_allclose(got_pmiss, pmiss, rtol=1e-8)
    # slope -1 on probit axes, offset -d' = -sqrt(2 mu)
    np.testing.assert_allclose(stats.norm.ppf(pmiss) + stats.norm.ppf(pfa), -np.sqrt(2 * mu), rtol=1e-7)


def test_det_crosses_the_diagonal_at_the_eer():
    mu = 4.0
    pfa, pmiss = lc.gaussian_det(mu)
    assert pfa.size == 401 and np.all(np.diff(pfa) > 0) and np.all(np.diff(pmiss) < 0)
    eer = lc.eer_from_mu(mu)
    _, at_eer = lc.gaussian_det(mu, [eer])
    assert at_eer[0] == pytest.approx(eer, rel=1e-12)


# ----- Cllr ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mu", MUS)
def test_cllr_by_quadrature_matches_an_independent_integral(mu):
    assert lc.gaussian_cllr(mu) == pytest.approx(reference_cllr(mu), rel=1e-10)


@pytest.mark.parametrize("mu", [0.01, 0.5, 2.0, 5.0, 10.0, 20.0])
def test_gauss_hermite_agrees_with_adaptive_quadrature(mu):
    exact = lc.gaussian_cllr(mu, method="quad")
    # the softplus bends on a scale of 1 while the Gaussian is sqrt(2 mu) wide: more nodes for larger mu
    assert lc.gaussian_cllr(mu, method="hermite", nodes=256) == pytest.approx(exact, rel=1e-7)
    if mu <= 5:
        assert lc.gaussian_cllr(mu, method="hermite", nodes=128) == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("mu", [0.5, 3.0, 12.0])
def test_cllr_is_the_area_under_the_ape_curve(mu):
    """Cllr = 1/(2 ln 2) int Pe(plo) dplo with Pe written out with norm.cdf."""
    sd = np.sqrt(2 * mu)

    def bayes_error(plo):
        p = stats.logistic.cdf(plo)
        return p * stats.norm.cdf(-plo, mu, sd) + (1 - p) * stats.norm.sf(-plo, -mu, sd)

    area = integrate.quad(bayes_error, -np.inf, np.inf, epsabs=0, epsrel=1e-11, limit=400)[0]
    assert lc.gaussian_cllr(mu) == pytest.approx(area / (2 * np.log(2)), rel=1e-8)
    # and the closed-form Bayes error of the library peaks at the EER, at plo = 0
    plo = np.linspace(-8, 8, 161)
    np.testing.assert_allclose(lc.gaussian_bayes_error(mu, plo), bayes_error(plo), rtol=1e-10, atol=1e-300)
    assert lc.gaussian_bayes_error(mu, 0.0) == pytest.approx(lc.eer_from_mu(mu), rel=1e-12)
    assert np.max(lc.gaussian_bayes_error(mu, plo)) == pytest.approx(lc.eer_from_mu(mu), rel=1e-12)


def test_cllr_of_samples_agrees_loosely():
    """Monte Carlo: the empirical Cllr (lc.cllr, both classes) of 400k samples per class."""
    rng = np.random.default_rng(2013)
    for mu in (1.0, 6.0):
        sd = np.sqrt(2 * mu)
        tar, non = rng.normal(mu, sd, 400_000), rng.normal(-mu, sd, 400_000)
        sample = np.logaddexp(0, -tar) / np.log(2)
        tolerance = 4 * sample.std() / np.sqrt(sample.size) * 2  # both halves vary; generous
        assert lc.cllr(tar, non) == pytest.approx(lc.gaussian_cllr(mu), abs=tolerance)


def test_cllr_limits_and_arrays():
    assert lc.gaussian_cllr(0.0) == 1.0
    assert lc.gaussian_cllr(np.inf) == 0.0
    values = lc.gaussian_cllr(np.array([0.1, 1.0, 10.0]))
    assert values.shape == (3,) and np.all(np.diff(values) < 0) and np.all((values > 0) & (values < 1))
    with pytest.raises(ValueError):
        lc.gaussian_cllr(-1.0)
    with pytest.raises(ValueError):
        lc.gaussian_cllr(1.0, method="simpson")


def test_cllr_curve_against_eer():
    eer, cllr = lc.gaussian_cllr_curve()
    assert eer[0] == 0 and eer[-1] == 0.5 and cllr[0] == 0 and cllr[-1] == 1.0
    assert np.all(np.diff(eer) > 0) and np.all(np.diff(cllr) > 0)
    assert eer[1] == pytest.approx(1e-5) and np.sum(eer < 0.01) > 60  # small EERs for a log axis
    assert not cllr.flags.writeable
    for value in (1e-4, 0.05, 0.25, 0.45):
        i = int(np.argmin(np.abs(eer - value)))
        assert eer[i] == pytest.approx(value, rel=1e-12)
        assert cllr[i] == pytest.approx(reference_cllr(2 * stats.norm.ppf(value) ** 2), rel=1e-9)
    some, values = lc.gaussian_cllr_curve([0.05, 0.25])
    np.testing.assert_allclose(values, [cllr[np.argmin(np.abs(eer - v))] for v in some], rtol=1e-12)


# ----- the approximation 1 - (2 EER - 1)^2 -------------------------------------------------------------------


def test_approximation_is_within_about_0_02_bits_for_eer_from_1_to_49_percent():
    """The slides: "Cllr ~ 1 - (2 EER - 1)^2", within about 0.02 for EER from 1 % to 49 %.

    Checked on a 0.5 % grid with the independent integral: the largest difference is 0.0208 bits (at EER near
    19.5 %), so the claim holds as stated, "about" 0.02 (it rounds to 0.02), though not as a strict bound.
    """
    eers = np.round(np.arange(0.010, 0.4901, 0.005), 4)
    exact = np.array([reference_cllr(2 * stats.norm.ppf(e) ** 2) for e in eers])
    approx = lc.cllr_eer_approximation(eers)
    np.testing.assert_allclose(approx, 1 - (2 * eers - 1) ** 2, rtol=0, atol=1e-15)
    difference = approx - exact
    worst = float(np.max(np.abs(difference)))
    assert round(worst, 2) == 0.02
    assert 0.0205 < worst < 0.0210
    assert 0.19 < eers[np.argmax(np.abs(difference))] < 0.20
    assert np.all(difference > 0)  # over this range the approximation always overestimates
    # exact at both ends
    assert lc.cllr_eer_approximation(0.5) == 1.0 and lc.cllr_eer_approximation(0.0) == 0.0


# ----- a real system against the ideal ---------------------------------------------------------------------------


def test_gaussian_comparison_follows_the_cmlg_closed_form(asvspoof_eval):
    tar, non = asvspoof_eval["target"], asvspoof_eval["nontarget"]
    result = lc.gaussian_comparison(lc.Trials(tar, non, name="ASV eval"))
    m_e, m_d, v = tar.mean(), non.mean(), 0.5 * tar.var() + 0.5 * non.var()
    a = (m_e - m_d) / v
    assert result.calibration.scale == pytest.approx(a, rel=1e-12)
    assert result.calibration.offset == pytest.approx(-a * (m_e + m_d) / 2, rel=1e-12)
    assert result.mu == pytest.approx((m_e - m_d) ** 2 / (2 * v), rel=1e-10)
    # the calibrated LLRs have means +-mu and (pooled) variance 2 mu
    cal = result.calibrated
    assert cal.tar.mean() == pytest.approx(result.mu, rel=1e-10)
    assert cal.non.mean() == pytest.approx(-result.mu, rel=1e-10)
    assert 0.5 * cal.tar.var() + 0.5 * cal.non.var() == pytest.approx(2 * result.mu, rel=1e-10)
    assert result.eer == pytest.approx(lc.eer(tar, non), rel=1e-12)  # an increasing affine map keeps the DET
    assert result.cllr == pytest.approx(lc.cllr(a * tar - a * (m_e + m_d) / 2, a * non - a * (m_e + m_d) / 2))
    assert result.gaussian_eer == pytest.approx(stats.norm.cdf(-np.sqrt(result.mu / 2)), rel=1e-12)
    assert result.gaussian_cllr_at_eer == pytest.approx(reference_cllr(2 * stats.norm.ppf(result.eer) ** 2), rel=1e-9)
    assert result.min_cllr <= result.cllr
    assert "ASV eval" in result.sentence() and f"{result.cllr:.3f}" in result.sentence()


def test_gaussian_comparison_of_ideal_data_is_close_to_the_ideal():
    rng = np.random.default_rng(7)
    mu = 4.0
    scores = lc.Trials(3 * rng.normal(mu, np.sqrt(2 * mu), 100_000) + 2,
                       3 * rng.normal(-mu, np.sqrt(2 * mu), 100_000) + 2, name="ideal")
    result = lc.gaussian_comparison(scores)
    assert result.mu == pytest.approx(mu, rel=0.02)
    assert result.cllr == pytest.approx(result.gaussian_cllr_at_eer, abs=0.005)
    assert result.cllr == pytest.approx(lc.gaussian_cllr(mu), abs=0.005)
    assert result.min_cllr == pytest.approx(result.cllr, abs=0.005)


def test_gaussian_comparison_refuses_infinite_scores():
    with pytest.raises(ValueError, match="finite"):
        lc.gaussian_comparison(lc.Trials([1.0, np.inf], [0.0, -1.0]))


def test_module_names_are_exported():
    for name in gaussian.__all__:
        assert getattr(lc, name) is getattr(gaussian, name)
