"""Scores of +-1e308 among ordinary ones (issue 28): calibration fits that are right or flagged, never silently
collapsed; a report, Bayes decision histograms, the Gaussian explorer, a forensic validation and a fusion that still
work.

Independent references:

- scikit-learn's ``LogisticRegression`` (no penalty) with sample weights ``P / N_tar`` and ``(1 - P) / N_non``
  (Brümmer & Doddington's prior-weighted logistic regression, ``offset = intercept - plo``) on the same trials with the
  far scores replaced by +-1e6 (on the right side both cost exactly nothing at the optimum);
- the exact objective and its gradient evaluated in 60-digit arithmetic with mpmath, on the true +-1e308 scores
  (``ln(1 + e^x)`` needs no care there), to show that a fit is stationary, or that a collapsed fit is indeed better than
  an ordinary one;
- a rule whose wrong-side cost is bounded (Brier's): scipy's Nelder-Mead on the objective written out with costs by
  quadrature of the Beta weighting;
- ``lc.eer``/``lc.min_cllr`` of the raw scores (monotone calibrations do not change them), and counts by hand.
"""
from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import minimize
from scipy.special import betaln, expit
from sklearn.linear_model import LogisticRegression

import llrcore as lc
from llrcore.teaching.decisions import decision_histograms
from synthetic import FAR, ordinary



def sklearn_fit(tar, non, plo):
    """Prior-weighted logistic regression by scikit-learn: (scale, offset)."""
    x = np.r_[tar, non][:, None]
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    p = expit(plo)
    weights = np.r_[np.full(tar.size, p / tar.size), np.full(non.size, (1 - p) / non.size)] * y.size
    model = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=10_000)
    model.fit(x, y, sample_weight=weights)
    return float(model.coef_[0, 0]), float(model.intercept_[0]) - plo


def exact_objective(tar, non, scale, offset, plo):
    """The prior-weighted logistic objective and its gradient in (scale, offset), in 60-digit arithmetic."""
    mpmath.mp.dps = 60
    p = mpmath.mpf(1) / (1 + mpmath.e ** (-plo))
    a, b, tau = mpmath.mpf(scale), mpmath.mpf(offset), mpmath.mpf(plo)
    value, d_a, d_b = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
    for scores, weight, sign in ((tar, p / len(tar), -1), (non, (1 - p) / len(non), 1)):
        for s in scores:
            x = sign * (a * mpmath.mpf(s) + b + tau)  # the cost is ln(1 + e^x)
            value += weight * mpmath.log1p(mpmath.e ** x)
            slope = weight * sign / (1 + mpmath.e ** (-x))
            d_a += slope * mpmath.mpf(s)
            d_b += slope
    return value, d_a, d_b


@pytest.mark.parametrize("plo", [0.0, -2.0])
def test_far_scores_on_the_right_side_leave_the_fit_as_logistic_regression_finds_it(plo):
    """A target at +1e308 and a non-target at -1e308 cost nothing at any sensible calibration; the fit used to scale
    every score by 1e308 (the ordinary ones became subnormal) and return a scale of 3e-307."""
    tar, non = ordinary()
    tar, non = np.append(tar, FAR), np.append(non, -FAR)
    fit = lc.fit_affine(tar, non, plo=plo)
    reference = sklearn_fit(np.where(tar == FAR, 1e6, tar), np.where(non == -FAR, -1e6, non), plo)
    assert (fit.scale, fit.offset) == pytest.approx(reference, rel=1e-6)
    assert not fit.collapsed and fit.failure == ""
    value, d_a, d_b = exact_objective(tar, non, fit.scale, fit.offset, plo)  # stationary with the true 1e308
    assert abs(d_a) < 1e-9 * value and abs(d_b) < 1e-9 * value


def test_a_far_score_on_the_wrong_side_collapses_the_fit_which_warns_and_is_flagged():
    """A target at -1e308: the exact optimum shrinks the scale to ~1e-306 (every ordinary trial gets the same LLR);
    it is returned flagged, with a warning, never as a silent calibration."""
    tar, non = ordinary()
    tar, non = np.append(tar, -FAR), np.append(non, FAR)
    with pytest.warns(RuntimeWarning, match="The calibration collapsed"):
        fit = lc.fit_affine(tar, non)
    assert fit.collapsed and "same LLR" in fit.failure and "1e+308" in fit.failure
    assert abs(fit.scale) * np.ptp(np.r_[ordinary()[0], ordinary()[1]]) < 1e-6
    # The collapse is the honest optimum: the exact objective is lower there than at the ordinary trials' own fit.
    usual = lc.fit_affine(*ordinary())
    assert exact_objective(tar, non, fit.scale, fit.offset, 0.0)[0] < exact_objective(tar, non, usual.scale,
                                                                                     usual.offset, 0.0)[0]


@pytest.mark.parametrize("rule", [lc.BetaRule.brier(), lc.BetaRule(2.0, 1.0)])
def test_a_rule_whose_wrong_side_cost_is_bounded_fits_the_ordinary_trials(rule):
    """A target at -1e308 under a rule whose target cost is bounded (alpha > 1): the far target costs the bound at
    any ordinary fit, a constant, so the fit of all the trials is that of the others with their weights P / N_tar of
    all the trials; no collapse. Reference: scipy's Nelder-Mead on that objective written out in the test, the
    canonical costs by quadrature of the Beta weighting (w(t) (1 + e^-t) from x to infinity, and the mirror)."""
    tar, non = ordinary()
    far_tar = np.append(tar, -FAR)

    def cost(x, target):
        a, b = rule.alpha, rule.beta
        w = lambda t: expit(t) ** a * expit(-t) ** b / np.exp(betaln(a, b))
        if target:
            return quad(lambda t: w(t) * (1 + np.exp(-t)), x, np.inf)[0]
        return quad(lambda t: w(t) * (1 + np.exp(t)), -np.inf, x)[0]

    grid = np.linspace(-40, 40, 4001)  # the costs are smooth: interpolate them on a fine grid of log-odds
    tar_cost = np.array([cost(x, True) for x in grid])
    non_cost = np.array([cost(x, False) for x in grid])

    def objective(theta):
        scale, offset = theta
        return (0.5 * np.interp(scale * tar + offset, grid, tar_cost).sum() / far_tar.size
                + 0.5 * np.interp(scale * non + offset, grid, non_cost).sum() / non.size)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fit = lc.fit_affine(far_tar, non, rule)
    assert not fit.collapsed
    best = minimize(objective, [fit.scale * 0.9, fit.offset + 0.1], method="Nelder-Mead",
                    options=dict(xatol=1e-9, fatol=1e-14, maxiter=4000)).x
    assert fit.scale == pytest.approx(best[0], rel=1e-3) and fit.offset == pytest.approx(best[1], abs=1e-3)


def test_cmlg_and_fusion_collapse_is_flagged_too():
    tar, non = ordinary()
    tar, non = np.append(tar, [FAR, -FAR]), non
    with pytest.warns(RuntimeWarning, match="collapsed"):
        assert lc.fit_cmlg(tar, non).collapsed
    with pytest.warns(RuntimeWarning, match="collapsed"):
        fusion = lc.fit_fusion(np.c_[tar, tar + 1.0], np.c_[non, non - 1.0], regularisation=1e-3)
    assert fusion.collapsed


def test_ordinary_fits_are_not_flagged():
    """Weak scores (EER near 50 %) give a small scale but no collapse; nothing warns (warnings are errors here)."""
    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weak = lc.fit_affine(rng.normal(0.05, 1, 500), rng.normal(0, 1, 500))
        strong = lc.fit_affine(*ordinary())
        gaussian = lc.fit_cmlg(*ordinary())
    assert not (weak.collapsed or strong.collapsed or gaussian.collapsed)


@pytest.fixture
def extreme_trials() -> lc.Trials:
    tar, non = ordinary()
    return lc.Trials(np.append(tar, [FAR, -FAR]), non, name="extreme llrs")


def test_build_report_says_the_calibration_collapsed(extreme_trials):
    """It raised ZeroDivisionError (1 / fix.scale) in the summary's words on how the LLRs are off."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The calibration collapsed", RuntimeWarning)
        report = lc.build_report({"extreme llrs": extreme_trials})
    text = report.to_html() if hasattr(report, "to_html") else report.html
    assert "collapsed" in text and "astronomically far" in text
    assert "2.39e+305" in text  # Cllr in bits, written by number(): never 306 digits


def test_decision_histograms_bin_the_ordinary_scores(extreme_trials):
    """It raised "arange: cannot compute length" ((1e308 - (-1e308)) / bins overflows)."""
    result = decision_histograms(extreme_trials, p_target=0.01)
    ordinary_tar, ordinary_non = ordinary()
    edges = result.edges
    assert np.isfinite(edges).all() and 40 <= edges.size <= 200
    assert edges[0] <= min(ordinary_tar.min(), ordinary_non.min()) and edges[-1] >= max(ordinary_tar.max(),
                                                                                        ordinary_non.max())
    assert np.any(np.isclose(edges, result.summary.threshold, rtol=0, atol=1e-12))  # the threshold is an edge
    assert result.counts["target"].sum() == ordinary_tar.size  # the two far targets lie in no bin
    assert result.counts["non-target"].sum() == ordinary_non.size


def test_gaussian_comparison_of_a_collapsed_fit_keeps_the_data_numbers(extreme_trials):
    """The explorer said "EER of the data 50 %" (the EER of the collapsed LLRs, all equal)."""
    with pytest.warns(RuntimeWarning, match="collapsed"):
        result = lc.gaussian_comparison(extreme_trials)
    assert result.collapsed and "failed" in result.sentence()
    assert result.eer == lc.eer(extreme_trials) and result.min_cllr == lc.min_cllr(extreme_trials)


def test_forensic_validation_does_not_show_a_collapsed_calibration(extreme_trials):
    """"After calibration" said EER 40.1 % where the data's is 11.5 %: a collapsed fold is no calibration."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The calibration collapsed", RuntimeWarning)
        validation = lc.validate_lr_method(extreme_trials, calibrate="affine")
    assert validation.calibration_failure.startswith("the calibration collapsed in ")
    assert validation.after is None and not validation.calibrated
    assert "judged as given" in validation.calibration_words
    assert "after calibration" not in validation.to_frame().columns


def test_fusion_refuses_a_collapsed_fusion(extreme_trials):
    other = lc.Trials(extreme_trials.tar + 0.5, extreme_trials.non, name="other")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The calibration collapsed", RuntimeWarning)
        with pytest.raises(ValueError, match="collapsed"):
            lc.fuse({"a": extreme_trials, "b": other})


def test_fusion_with_far_scores_on_the_right_side_is_logistic_regression():
    """A target at +1e308 in one system, a non-target at -1e308 in the other: the fused LLRs overflow to the right
    infinity, which costs nothing, so the fusion is scikit-learn's with those scores at +-1e6."""
    from test_calibration import weighted_logistic_regression

    rng = np.random.default_rng(1)
    tar = np.c_[rng.normal(2, 1, 400), rng.normal(1, 1, 400)]
    non = np.c_[rng.normal(0, 1, 2000), rng.normal(0, 1, 2000)]
    tar[0, 0], non[5, 1] = FAR, -FAR
    fusion = lc.fit_fusion(tar, non, plo=-1.0)
    near_tar, near_non = tar.copy(), non.copy()
    near_tar[0, 0], near_non[5, 1] = 1e6, -1e6
    weights, offset = weighted_logistic_regression(near_tar, near_non, -1.0)
    assert not fusion.collapsed
    assert fusion.weights == pytest.approx(weights, rel=1e-6) and fusion.offset == pytest.approx(offset, rel=1e-6)
