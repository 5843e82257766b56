"""Tests of :mod:`llrcore.calibration.analysis` against independent references.

References (no expected value below is an output of llrcore):

- scikit-learn ``LogisticRegression`` without penalty, prior-weighted (weights ``P/N_tar``, ``(1-P)/N_non``): the
  affine calibration by the logarithmic rule (DESIGN.md);
- Cllr, actual DCF and Cprimary written out with numpy from their definitions (DESIGN.md), and a stratified
  bootstrap of the evaluation trials for the sampling noise;
- Ferrer & Ramos (TMLR 2025), table 2, FVCAUS XvPLDA: after cross-validated affine calibration the cross-entropy
  divided by the prior entropy is 0.008 (raw: Cllr 0.1256 bits, assets/fvcaus_plda/SOURCE.txt);
- the CMLG closed form of DESIGN.md (van Leeuwen & Brümmer 2013) in numpy;
- the degenerate fits a user reported (ASVspoof 2019 LA dev to eval, P = 0.01, rules (3, 0.5) and (4, 1): scales in
  the hundreds, evaluation Cllr in the hundreds of bits), Cllr by its formula and the CMLG scale by its closed form;
- the mode of the logarithmic rule's weighting, ``-tau/2`` exactly (the derivative of
  ``log sigmoid(t + tau) + log sigmoid(-t)`` vanishes there), and a numpy argmax / root of the derivative of the
  weighting formula of DESIGN.md for the other rules.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, special
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

import llrcore as lc
from llrcore.calibration.analysis import calibrate_and_evaluate, calibration_label
from llrcore.calibration.sweep import DEFAULT_PLO_GRID, NAMED_RULES, sweep_prior_weighting
from llrcore.calibration.weighting import weighting_mode
from paths import ROOT

FVC = ROOT / "assets" / "fvcaus_plda" / "fvcaus_plda.npz"
LOGIT_001 = float(np.log(0.01) - np.log(0.99))


# ----- independent references ------------------------------------------------------------------------------------


def numpy_cllr(tar_llr, non_llr) -> float:
    return float((np.logaddexp(0, -tar_llr).mean() + np.logaddexp(0, non_llr).mean()) / (2 * np.log(2)))


def numpy_act_dcf(tar_llr, non_llr, p_target, c_miss=1.0, c_fa=1.0) -> float:
    threshold = -(np.log(p_target / (1 - p_target)) + np.log(c_miss / c_fa))
    p_miss, p_fa = np.mean(tar_llr < threshold), np.mean(non_llr >= threshold)
    cost = p_target * c_miss * p_miss + (1 - p_target) * c_fa * p_fa
    return float(cost / min(p_target * c_miss, (1 - p_target) * c_fa))


def numpy_cprimary(tar_llr, non_llr) -> float:
    return (numpy_act_dcf(tar_llr, non_llr, 0.01) + numpy_act_dcf(tar_llr, non_llr, 0.001)) / 2


def sklearn_affine(tar, non, plo) -> tuple[float, float]:
    """Prior-weighted logistic regression: (scale, offset) with offset = intercept - plo."""
    x = np.concatenate([tar, non])[:, None]
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    p = expit(plo)
    weights = np.r_[np.full(tar.size, p / tar.size), np.full(non.size, (1 - p) / non.size)] * y.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-12, max_iter=10_000)
        model.fit(x, y, sample_weight=weights)
    return float(model.coef_[0, 0]), float(model.intercept_[0]) - plo


def weighting_formula(alpha, beta, tau, t):
    """DESIGN.md: w(t + tau) Omega_tau(t), w(t) = sigmoid(t)^a sigmoid(-t)^b / B(a, b), not normalised."""
    w = expit(t + tau) ** alpha * expit(-t - tau) ** beta / special.beta(alpha, beta)
    return w * expit(-tau) * (1 + np.exp(t + tau)) / (1 + np.exp(t))


@pytest.fixture(scope="module")
def asv(asvspoof_dev, asvspoof_eval):
    dev = lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"], name="dev", spoof=asvspoof_dev["spoof"])
    evaluation = lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"], name="eval",
                           spoof=asvspoof_eval["spoof"])
    return dev, evaluation


@pytest.fixture(scope="module")
def fvc():
    arrays = np.load(FVC, allow_pickle=False)
    return lc.Trials(arrays["tar"], arrays["non"], name="FVC")


# ----- calibrate_and_evaluate -------------------------------------------------------------------------------------


def test_logarithmic_dev_to_eval_is_prior_weighted_logistic_regression(asv):
    dev, evaluation = asv
    result = calibrate_and_evaluate(dev, evaluation, "affine", lc.BetaRule.logarithmic(), plo=LOGIT_001)
    scale, offset = sklearn_affine(dev.tar, dev.non, LOGIT_001)
    np.testing.assert_allclose(result.calibrated.tar, scale * evaluation.tar + offset, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(result.calibrated.non, scale * evaluation.non + offset, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(result.calibrated.spoof, scale * evaluation.spoof + offset, rtol=1e-6, atol=1e-6)
    assert result.calibrator.scale == pytest.approx(scale, rel=1e-6)
    assert result.raw is evaluation and not result.cross_validated
    assert result.calibrated.name == "eval · calibrated (logarithmic, P=0.01)"
    # the metrics are those of the numpy definitions
    assert result.after.cllr == pytest.approx(numpy_cllr(result.calibrated.tar, result.calibrated.non), rel=1e-12)
    assert result.before.cllr == pytest.approx(numpy_cllr(evaluation.tar, evaluation.non), rel=1e-12)
    assert result.after.act_dcf == pytest.approx(numpy_act_dcf(result.calibrated.tar, result.calibrated.non, 0.01))
    assert result.after.cprimary == pytest.approx(numpy_cprimary(result.calibrated.tar, result.calibrated.non))


def test_calibration_gain_on_asvspoof_is_far_above_sampling_noise_and_keeps_the_eer(asv):
    dev, evaluation = asv
    result = calibrate_and_evaluate(dev, evaluation, "affine", lc.BetaRule.logarithmic(), plo=LOGIT_001)
    raw_tar, raw_non = evaluation.tar, evaluation.non
    cal_tar, cal_non = result.calibrated.tar, result.calibrated.non
    # paired, stratified bootstrap of the evaluation trials: the gain divided by its standard error
    rng = np.random.default_rng(1)
    gains = {"cllr": [], "act_dcf": []}
    for _ in range(200):
        i, j = rng.integers(0, raw_tar.size, raw_tar.size), rng.integers(0, raw_non.size, raw_non.size)
        gains["cllr"].append(numpy_cllr(raw_tar[i], raw_non[j]) - numpy_cllr(cal_tar[i], cal_non[j]))
        gains["act_dcf"].append(numpy_act_dcf(raw_tar[i], raw_non[j], 0.01) - numpy_act_dcf(cal_tar[i], cal_non[j],
                                                                                              0.01))
    cllr_gain = result.before.cllr - result.after.cllr
    dcf_gain = result.before.act_dcf - result.after.act_dcf
    assert cllr_gain > 10 * np.std(gains["cllr"]) and cllr_gain > 0.15
    assert dcf_gain > 5 * np.std(gains["act_dcf"]) and dcf_gain > 0.1
    # affine with a positive scale is monotone: the ranking, hence the EER and every minimum, does not move
    assert result.calibrator.scale > 0
    assert result.after.eer == result.before.eer
    assert result.after.min_cllr == pytest.approx(result.before.min_cllr, rel=1e-12)
    # and the calibrated system is close to its floor
    assert result.after.cllr - result.after.min_cllr < 0.02


def test_fvc_cross_validation_removes_the_calibration_loss(fvc):
    result = calibrate_and_evaluate(fvc, None, "affine", lc.BetaRule.logarithmic(), plo=0.0, folds=5)
    assert result.cross_validated and result.folds == 5 and result.raw is fvc
    assert result.before.cllr == pytest.approx(0.1256, abs=5e-5)  # SOURCE.txt
    assert result.before.calibration_loss_percent > 97
    assert result.after.cllr < 0.005
    removed = (result.before.cllr - result.after.cllr) / (result.before.cllr - result.before.min_cllr)
    assert removed > 0.98  # of the calibration loss (98 % of Cllr)
    assert result.calibrated.name == "FVC · calibrated (logarithmic, P=0.5, 5-fold CV)"


def test_fvc_cross_validated_cross_entropy_matches_ferrer_and_ramos(fvc):
    """Unweighted logistic regression = prior weighting at the empirical prior; CE / H(prior) = 0.008 (table 2)."""
    prior = fvc.tar.size / len(fvc)
    plo = float(np.log(prior / (1 - prior)))
    result = calibrate_and_evaluate(fvc, None, "affine", lc.BetaRule.logarithmic(), plo=plo, folds=5, seed=0)
    tar, non = result.calibrated.tar + plo, result.calibrated.non + plo  # posterior log-odds at the empirical prior
    cross_entropy = (np.logaddexp(0, -tar).sum() + np.logaddexp(0, non).sum()) / len(fvc)
    entropy = -(prior * np.log(prior) + (1 - prior) * np.log(1 - prior))
    assert round(cross_entropy / entropy, 3) == 0.008


def test_cross_validation_cannot_find_information_in_noise():
    """Scores without information about the class: honestly judged, no calibration beats 1 bit (no information).
    PAV trained and judged on the same trials does (it fits the noise); under cross-validation it must not."""
    rng = np.random.default_rng(3)
    noise = lc.Trials(rng.normal(0, 1, 200), rng.normal(0, 1, 2000), name="noise")
    for method in ("pav", "cmlg", "affine"):
        in_sample = calibrate_and_evaluate(noise, noise, method)
        honest = calibrate_and_evaluate(noise, None, method, folds=5)
        assert honest.after.cllr > 1.0, method
        assert in_sample.after.cllr < honest.after.cllr, method
    assert calibrate_and_evaluate(noise, noise, "pav").after.cllr < 0.999  # fitted the noise


def test_cmlg_and_pav_methods(asv):
    dev, evaluation = asv
    result = calibrate_and_evaluate(dev, evaluation, "cmlg", cmlg_alpha=0.25)
    variance = 0.75 * dev.non.var() + 0.25 * dev.tar.var()
    scale = (dev.tar.mean() - dev.non.mean()) / variance
    offset = -scale * (dev.tar.mean() + dev.non.mean()) / 2
    np.testing.assert_allclose(result.calibrated.tar, scale * evaluation.tar + offset, rtol=1e-10)
    assert result.label == "calibrated (CMLG)" and result.rule is None and result.plo is None
    pav = calibrate_and_evaluate(dev, evaluation, "pav")
    assert pav.label == "calibrated (PAV)"
    order = np.argsort(evaluation.tar)
    assert np.all(np.diff(pav.calibrated.tar[order]) >= 0)  # monotone
    assert np.all(np.isfinite(pav.calibrated.tar)) and np.all(np.isfinite(pav.calibrated.non))
    assert pav.after.cllr < pav.before.cllr


def test_bad_method_and_labels():
    trials = lc.Trials([1.0, 2.0, 0.5], [0.0, -1.0, 1.5])
    with pytest.raises(ValueError, match="method"):
        calibrate_and_evaluate(trials, trials, "isotonic")
    assert calibration_label("affine", rule=lc.BetaRule.brier(), plo=LOGIT_001) == "calibrated (Brier, P=0.01)"
    assert calibration_label("affine", rule=lc.BetaRule(3, 1.5), plo=0.0, folds=10) == "calibrated (Beta(3, 1.5), P=0.5, 10-fold CV)"
    assert calibration_label("pav", folds=5) == "calibrated (PAV, 5-fold CV)"


def test_separable_training_scores_give_a_sentence():
    trials = lc.Trials([2.0, 3.0, 4.0], [-1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="do not overlap"):
        calibrate_and_evaluate(trials, trials, "affine")


# ----- sweep_prior_weighting --------------------------------------------------------------------------------------


def test_sweep_costs_are_the_cprimary_of_the_calibrated_eval_llrs(asv):
    dev, evaluation = asv
    calls = []
    grid = np.array([-7.0, -4.5, -2.0, 0.0])
    sweep = sweep_prior_weighting(dev, evaluation, NAMED_RULES, grid, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(k, 16) for k in range(1, 17)]
    assert list(sweep.frame["rule"]) == [r.name for r in NAMED_RULES for _ in grid]
    assert sweep.cost_name == "Cprimary" and not sweep.cross_validated
    for row in sweep.frame.itertuples():
        affine = lc.fit_affine(dev.tar, dev.non, lc.BetaRule(row.alpha, row.beta), plo=row.plo)
        tar_llr, non_llr = affine(evaluation.tar), affine(evaluation.non)
        assert row.cost == pytest.approx(lc.cprimary(tar_llr, non_llr), rel=1e-12), row
        assert row.cost == pytest.approx(numpy_cprimary(tar_llr, non_llr), rel=1e-12), row
        assert row.cllr == pytest.approx(numpy_cllr(tar_llr, non_llr), rel=1e-9), row
        assert row.p_weight == pytest.approx(expit(row.plo))
    assert sweep.raw_cost == pytest.approx(numpy_cprimary(evaluation.tar, evaluation.non))
    assert sweep.min_cost == pytest.approx(lc.cprimary(evaluation.tar, evaluation.non, minimum=True))
    assert sweep.min_cost <= sweep.frame["cost"].min() + 1e-12  # no calibration beats the oracle
    assert sweep.best["cost"] == sweep.frame["cost"].min()
    # every calibration is much better than the raw scores (Cprimary 0.99)
    assert sweep.frame["cost"].max() < 0.5 * sweep.raw_cost


def test_sweep_with_the_users_dcf_and_cross_validation():
    rng = np.random.default_rng(5)
    trials = lc.Trials(rng.normal(3, 1.5, 300) * 2 + 1, rng.normal(-3, 1.5, 3000) * 2 + 1, name="synthetic")
    rules = [lc.BetaRule.logarithmic(), lc.BetaRule(3, 1.5)]
    sweep = sweep_prior_weighting(trials, None, rules, [-3.0, 0.0], p_target=0.05, c_miss=2.0, folds=3, seed=4)
    assert sweep.cross_validated and sweep.cost_name == "actDCF (P=0.05, Cmiss=2, Cfa=1)"
    assert list(sweep.frame["rule"]) == ["logarithmic", "logarithmic", "Beta(3, 1.5)", "Beta(3, 1.5)"]
    for row in sweep.frame.itertuples():
        tar_llr, non_llr = lc.cross_calibrate(trials.tar, trials.non, lc.fit_affine, folds=3, seed=4,
                                              rule=lc.BetaRule(row.alpha, row.beta), plo=row.plo)
        assert row.cost == pytest.approx(numpy_act_dcf(tar_llr, non_llr, 0.05, c_miss=2.0), rel=1e-12)


def test_cross_validated_sweep_equals_independent_fits_from_scratch(asv):
    """The sweep starts each fit from a nearby one; at every rule and a few weightings its row is that of independent
    fits from scratch, ``cross_calibrate(..., fit_affine)``. At tau = -8 Brier and the asymmetric rule give
    near-step-function calibrations (Cllr ~480 bits) in a valley so flat that the fit stops rather than converges,
    and where it stops depends on its start at the 1e-9 level: hence the Cllr tolerance."""
    dev, _ = asv
    grid = DEFAULT_PLO_GRID[::2]
    sweep = sweep_prior_weighting(dev, None, NAMED_RULES, grid)
    checked = sweep.frame[sweep.frame["plo"].isin([-8.0, -4.0, 0.0])]
    assert len(checked) == 3 * len(NAMED_RULES)
    for row in checked.itertuples():
        tar_llr, non_llr = lc.cross_calibrate(dev.tar, dev.non, lc.fit_affine, folds=5, seed=0,
                                              rule=lc.BetaRule(row.alpha, row.beta), plo=row.plo)
        assert row.cost == pytest.approx(numpy_cprimary(tar_llr, non_llr), rel=1e-12), row
        assert row.cllr == pytest.approx(numpy_cllr(tar_llr, non_llr), rel=1e-8), row


def test_sweep_refuses_empty_input(asv):
    dev, evaluation = asv
    with pytest.raises(ValueError, match="rule"):
        sweep_prior_weighting(dev, evaluation, [], [0.0])
    with pytest.raises(ValueError, match="finite"):
        sweep_prior_weighting(dev, evaluation, NAMED_RULES[:1], [np.nan])
    assert DEFAULT_PLO_GRID[0] == -8 and DEFAULT_PLO_GRID[-1] == 0 and DEFAULT_PLO_GRID.size == 17


# ----- weighting_mode ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tau", [-8.0, -4.0, -1.0, 0.0, 3.0])
def test_logarithmic_mode_is_minus_half_tau(tau):
    assert weighting_mode(lc.BetaRule.logarithmic(), tau) == pytest.approx(-tau / 2, abs=1e-5)


@pytest.mark.parametrize("tau", [-6.0, -4.0, 2.0])
def test_boosting_mode_does_not_move(tau):
    assert weighting_mode(lc.BetaRule.boosting(), tau) == pytest.approx(0.0, abs=1e-5)


def test_brier_mode_at_minus_four_is_a_root_of_the_derivative():
    """d/dt log[sigmoid(t+tau)^2 sigmoid(-t-tau) sigmoid(-t)] = 2 sigmoid(-t-tau) - sigmoid(t+tau) - sigmoid(t)."""
    tau = -4.0
    root = optimize.brentq(lambda t: 2 * expit(-t - tau) - expit(t + tau) - expit(t), 0.0, 8.0, xtol=1e-12)
    mode = weighting_mode(lc.BetaRule.brier(), tau)
    assert mode == pytest.approx(root, abs=1e-5)
    assert 3.0 < mode < 4.0  # "close to -tau", further than the logarithmic rule's -tau/2 = 2


@pytest.mark.parametrize("alpha, beta, tau", [(2, 2, -4.0), (2, 1, -4.6), (0.5, 0.5, -3.0), (3, 1.5, -2.0)])
def test_mode_matches_a_numpy_argmax_of_the_formula(alpha, beta, tau):
    t = np.arange(-20, 20, 1e-4)
    expected = t[np.argmax(weighting_formula(alpha, beta, tau, t))]
    assert weighting_mode(lc.BetaRule(alpha, beta), tau) == pytest.approx(expected, abs=2e-4)


# ----- degenerate fits said in words ---------------------------------------------------------------------------------

ASV = ROOT / "assets" / "asvspoof2019_la"


@pytest.fixture(scope="module")
def asv_dev_eval():
    return (lc.read_trials(ASV / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"),
            lc.read_trials(ASV / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"))


def cmlg_scale(tar, non, alpha=0.5):
    return (tar.mean() - non.mean()) / ((1 - alpha) * non.var() + alpha * tar.var())


def cllr_formula(tar, non):
    return (np.mean(np.logaddexp(0, -tar)) + np.mean(np.logaddexp(0, non))) / (2 * np.log(2))


@pytest.mark.parametrize("alpha, beta", [(3.0, 0.5), (4.0, 1.0)])
def test_the_users_degenerate_fits_are_named_with_their_numbers(asv_dev_eval, alpha, beta):
    dev, ev = asv_dev_eval
    result = calibrate_and_evaluate(dev, ev, "affine", lc.BetaRule(alpha, beta), plo=LOGIT_001)
    scale = result.calibrator.scale
    assert scale > 100 * cmlg_scale(dev.tar, dev.non)  # a near-step: the report's "scale ≈ 300"
    train_cllr = cllr_formula(result.calibrator(dev.tar), result.calibrator(dev.non))
    eval_cllr = cllr_formula(result.calibrated.tar, result.calibrated.non)
    assert eval_cllr > 100
    assert result.degenerate
    step, train, evaluation, tail = result.problems
    assert "step function" in step and f"{scale / cmlg_scale(dev.tar, dev.non):.0f} times" in step
    assert f"Cllr {train_cllr:.3g} bits" in train and "training" in train
    assert f"Cllr is {eval_cllr:.3g} bits" in evaluation
    assert f"at most {(alpha + beta - 1) / (alpha - 1):.3g}" in tail  # B(alpha-1, beta) / B(alpha, beta)
    # kept, not replaced: the numbers are those of the fit
    assert result.after.cllr == pytest.approx(eval_cllr, rel=1e-12)


@pytest.mark.parametrize("rule", NAMED_RULES, ids=lambda rule: rule.name)
@pytest.mark.parametrize("p_weight", [0.5, 0.01])
def test_sound_fits_have_no_problems(asv_dev_eval, rule, p_weight):
    dev, ev = asv_dev_eval
    result = calibrate_and_evaluate(dev, ev, "affine", rule, plo=float(np.log(p_weight / (1 - p_weight))))
    assert result.problems == ()


@pytest.mark.parametrize("method", ["cmlg", "pav"])
def test_other_methods_are_judged_by_cllr_only(asv_dev_eval, method):
    dev, ev = asv_dev_eval
    assert calibrate_and_evaluate(dev, ev, method).problems == ()
    shifted = lc.Trials(ev.tar - 60, ev.non - 60, name="shifted")  # calibrated on dev, used where scores moved
    problems = calibrate_and_evaluate(dev, shifted, method).problems
    assert len(problems) == 1 and "evaluation trials" in problems[0]
