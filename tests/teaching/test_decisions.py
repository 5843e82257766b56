"""Tests of llrcore.teaching.decisions: the "out of 100" numbers, the sentence, and fixed false-alarm thresholding.

References used (no expected value below is an output of llrcore itself unless the point is agreement with it):

- errors counted trial by trial with numpy (``tar < t``, ``non >= t``) at the Bayes threshold ``-plo_eff``;
- the minimum expected cost by brute force over every score as a threshold (the minimum of a linear cost over the
  step DET equals the minimum over the ROC convex hull);
- the trapezium ``min(P C_miss, (1-P) C_fa, EER (P C_miss + (1-P) C_fa))`` and default ``min(P C_miss, (1-P) C_fa)``
  written out (Brümmer, Ferrer & Swart 2021, eqs. 17 and 25);
- the library's ``lc.bayes_error_rates``: the brief requires the page's numbers to be exactly 100 times these;
- scikit-learn's unpenalised logistic regression for the development-set calibration of the Bayes decisions;
- real scores: the ASVspoof 2019 LA organisers' ASV dev and eval scores (tests/data/asvspoof2019_la/SOURCE.txt).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import llrcore as lc
from llrcore.teaching import decisions
from llrcore.teaching.decisions import per_100

OPERATING_POINTS = [(0.01, 1.0, 1.0), (0.001, 1.0, 1.0), (0.5, 1.0, 1.0), (0.9, 1.0, 1.0), (0.01, 10.0, 1.0),
                    (0.2, 1.0, 5.0)]


def counted(tar, non, p, c_miss, c_fa):
    """Actual and brute-force minimum expected cost, counting trials."""
    t = -(np.log(p / (1 - p)) + np.log(c_miss / c_fa))
    actual = p * c_miss * np.mean(tar < t) + (1 - p) * c_fa * np.mean(non >= t)
    thresholds = np.concatenate([np.unique(np.concatenate([tar, non])), [np.inf]])
    pmiss = (tar[None, :] < thresholds[:, None]).mean(axis=1)
    pfa = (non[None, :] >= thresholds[:, None]).mean(axis=1)
    costs = p * c_miss * pmiss + (1 - p) * c_fa * pfa
    return actual, costs.min(), np.mean(tar < t), np.mean(non >= t)


@pytest.fixture(scope="module")
def small():
    """A few thousand LLRs, shifted so that they are somewhat miscalibrated, with ties."""
    rng = np.random.default_rng(11)
    tar = np.round(rng.normal(2.5, 2.2, 900) + 1.0, 2)
    non = np.round(rng.normal(-2.5, 2.2, 2600) + 1.0, 2)
    return lc.Trials(tar, non, name="small")


@pytest.mark.parametrize("p, c_miss, c_fa", OPERATING_POINTS)
def test_out_of_100_numbers_are_100_times_the_library_bayes_error_rates(small, p, c_miss, c_fa):
    summary = lc.bayes_decisions(small, p_target=p, c_miss=c_miss, c_fa=c_fa)
    rates = lc.bayes_error_rates(small.tar, small.non, plo=[np.log(p) - np.log1p(-p)], c_miss=c_miss, c_fa=c_fa)
    n = summary.per_100()
    assert n["actual"] == 100 * rates.actual[0]
    assert n["minimum"] == 100 * rates.minimum[0]
    assert n["trapezium"] == 100 * rates.trapezium[0]
    assert n["default"] == 100 * rates.default[0]


@pytest.mark.parametrize("p, c_miss, c_fa", OPERATING_POINTS)
def test_decisions_against_errors_counted_trial_by_trial(small, p, c_miss, c_fa):
    summary = lc.bayes_decisions(small, p_target=p, c_miss=c_miss, c_fa=c_fa)
    actual, minimum, miss, fa = counted(small.tar, small.non, p, c_miss, c_fa)
    assert summary.actual == pytest.approx(actual, rel=1e-12, abs=1e-15)
    assert summary.minimum == pytest.approx(minimum, rel=1e-12, abs=1e-15)
    assert (summary.miss_rate, summary.false_alarm_rate) == pytest.approx((miss, fa), rel=1e-12, abs=1e-15)
    assert summary.default == pytest.approx(min(p * c_miss, (1 - p) * c_fa), rel=1e-12)
    eer = lc.eer(small.tar, small.non)
    assert summary.trapezium == pytest.approx(min(p * c_miss, (1 - p) * c_fa, eer * (p * c_miss + (1 - p) * c_fa)),
                                              rel=1e-12)
    assert summary.threshold == pytest.approx(-(np.log(p / (1 - p)) + np.log(c_miss / c_fa)), rel=1e-12)
    # the best threshold in hindsight gives the minimum rates
    t = summary.min_threshold
    assert np.mean(small.tar < t) == pytest.approx(summary.min_miss_rate, abs=1e-15)
    assert np.mean(small.non >= t) == pytest.approx(summary.min_false_alarm_rate, abs=1e-15)
    n = summary.per_100()
    assert n["misses"] * c_miss + n["false alarms"] * c_fa == pytest.approx(100 * actual, rel=1e-12, abs=1e-12)
    assert n["min misses"] * c_miss + n["min false alarms"] * c_fa == pytest.approx(100 * minimum, rel=1e-12,
                                                                                  abs=1e-12)
    assert summary.misses == round(miss * small.tar.size) and summary.false_alarms == round(fa * small.non.size)


def test_the_sentence_gives_the_four_numbers(asvspoof_eval):
    tar, non = asvspoof_eval["target"], asvspoof_eval["nontarget"]
    summary = lc.bayes_decisions(lc.Trials(tar, non), p_target=0.01)
    t = np.log(99)
    actual = 0.01 * np.mean(tar < t) + 0.99 * np.mean(non >= t)
    eer = lc.eer(tar, non)
    expected = (
        f"Out of 100 trials at P(target) = 1 %, this system makes about {per_100(100 * actual)} errors; with perfect "
        f"calibration it would make {per_100(100 * summary.minimum)}; the bound from its EER is "
        f"{per_100(100 * min(0.01, eer))}; without the system (rejecting every trial), 1.0."
    )
    assert summary.sentence() == expected
    assert per_100(100 * actual) == "0.36"  # 1 % x 9.72 % misses + 99 % x 0.270 % false alarms


def test_sentence_wording():
    summary = lc.bayes_decisions(lc.Trials([3.0, 4.0, 5.0, -1.0], [-3.0, -2.0, 0.5, 1.0]), p_target=0.01, c_miss=10,
                                 c_fa=1)
    text = summary.sentence()
    assert "a miss costing 10 and a false alarm 1" in text and "cost about" in text
    # LLRs far too high for the non-targets: worse than deciding without the system
    bad = lc.bayes_decisions(lc.Trials([9.0, 10.0, 11.0], [8.0, 9.5, 12.0, 7.0]), p_target=0.01)
    assert bad.actual > bad.default
    assert "worse than not using it" in bad.sentence()
    assert "accepting every trial" in lc.bayes_decisions(lc.Trials([1.0], [0.0]), p_target=0.9).sentence()
    decided = lc.bayes_decisions(lc.Trials([1.0, 2.0], [0.0, -1.0]), p_target=0.01).decisions_sentence()
    assert decided.startswith("It accepts a trial when its LLR is at least +4.60. Of 100 trials, 1 is a target")
    in_log10 = lc.bayes_decisions(lc.Trials([1.0, 2.0], [0.0, -1.0]), p_target=0.01).decisions_sentence(units="log10")
    assert in_log10.startswith(f"It accepts a trial when its log10 LR is at least {np.log10(99):+.2f}. Of 100")


def test_per_100_rounding():
    assert [per_100(v) for v in (33.33, 3.333, 0.3717, 0.001234, 9.99999, 0.0, 100.0)] == \
        ["33", "3.3", "0.37", "0.0012", "10", "0", "100"]


def test_table_of_decisions_adds_up(small):
    summary = lc.bayes_decisions(small, p_target=0.2)
    table = summary.table()
    assert list(table.index) == ["target", "non-target"] and list(table.columns) == ["accepted", "rejected"]
    np.testing.assert_allclose(table.sum(axis=1), [20.0, 80.0], rtol=1e-12)
    assert table.loc["target", "rejected"] == pytest.approx(20 * np.mean(small.tar < -np.log(0.25)), rel=1e-12)


def test_bad_operating_points_are_refused(small):
    for p in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="P\\(target\\)"):
            lc.bayes_decisions(small, p_target=p)
    with pytest.raises(ValueError, match="costs"):
        lc.bayes_decisions(small, p_target=0.1, c_miss=0.0)
    with pytest.raises(TypeError, match="Trials"):
        lc.bayes_decisions(small.tar, p_target=0.1)


# ----- direct score thresholding -----------------------------------------------------------------------------------


def test_threshold_for_a_false_alarm_rate_small_cases():
    non = np.arange(1.0, 11.0)
    assert lc.score_threshold_for_false_alarm_rate(non, 0.2) == 8.5  # 9 and 10 accepted: 20 %
    assert lc.score_threshold_for_false_alarm_rate(non[::-1], 0.25) == 8.5  # floor(2.5) = 2, unsorted input
    assert lc.score_threshold_for_false_alarm_rate(non, 0.05) == np.nextafter(10.0, np.inf)  # none accepted
    # ties straddling the gap: fewer accepted than allowed, never more
    tied = np.array([1.0, 2.0, 3.0, 3.0, 3.0])
    t = lc.score_threshold_for_false_alarm_rate(tied, 0.4)
    assert np.mean(tied >= t) == 0.0
    for bad in (0.0, 1.0, 2.0):
        with pytest.raises(ValueError):
            lc.score_threshold_for_false_alarm_rate(non, bad)


@pytest.mark.parametrize("target", [0.001, 0.01, 0.0123, 0.1])
def test_threshold_accepts_as_many_non_targets_as_allowed(asvspoof_dev, target):
    non = asvspoof_dev["nontarget"]
    t = lc.score_threshold_for_false_alarm_rate(non, target)
    accepted = int(np.sum(non >= t))
    assert accepted <= np.floor(target * non.size)
    below = np.max(non[non < t])  # accepting the next score down would exceed the rate
    assert np.sum(non >= below) > np.floor(target * non.size)


def logistic_calibration(tar, non):
    """Prior-weighted (P = 1/2) logistic regression with scikit-learn: (scale, offset)."""
    x = np.concatenate([tar, non])[:, None]
    y = np.concatenate([np.ones(tar.size), np.zeros(non.size)])
    weights = np.concatenate([np.full(tar.size, 0.5 / tar.size), np.full(non.size, 0.5 / non.size)]) * y.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-12, max_iter=10_000)
        model.fit(x, y, sample_weight=weights)
    return float(model.coef_[0, 0]), float(model.intercept_[0])


def test_fixed_false_alarm_threshold_on_asvspoof(asvspoof_dev, asvspoof_eval):
    dev = lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"], name="dev")
    ev = lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"], name="eval")
    plo = np.linspace(-8, 8, 33)
    analysis = lc.fixed_false_alarm_threshold(dev, ev, 0.01, plo)
    t = analysis.threshold
    assert np.mean(dev.non >= t) <= 0.01
    assert analysis.dev_false_alarm_rate == pytest.approx(np.mean(dev.non >= t), rel=1e-14)
    assert analysis.dev_miss_rate == pytest.approx(np.mean(dev.tar < t), rel=1e-14)
    assert analysis.eval_false_alarm_rate == pytest.approx(np.mean(ev.non >= t), rel=1e-14)
    assert analysis.eval_miss_rate == pytest.approx(np.mean(ev.tar < t), rel=1e-14)
    assert analysis.eval_false_alarm_rate != pytest.approx(0.01, abs=1e-3)  # not the rate fixed on dev
    p = 1 / (1 + np.exp(-plo))
    np.testing.assert_allclose(analysis.fixed, p * np.mean(ev.tar < t) + (1 - p) * np.mean(ev.non >= t), rtol=1e-14)
    np.testing.assert_allclose(analysis.fixed_dev, p * np.mean(dev.tar < t) + (1 - p) * np.mean(dev.non >= t),
                               rtol=1e-14)
    # Bayes decisions with scikit-learn's calibration trained on dev, counted on eval
    scale, offset = logistic_calibration(dev.tar, dev.non)
    assert analysis.calibration.scale == pytest.approx(scale, rel=1e-6)
    for i in range(0, plo.size, 4):
        llr_tar, llr_non = scale * ev.tar + offset, scale * ev.non + offset
        expected = p[i] * np.mean(llr_tar < -plo[i]) + (1 - p[i]) * np.mean(llr_non >= -plo[i])
        assert analysis.bayes[i] == pytest.approx(expected, abs=2 / ev.non.size)  # a trial may sit on the line
    # the best threshold in hindsight is never beaten, by either way of deciding
    assert np.all(analysis.fixed >= analysis.minimum - 1e-15)
    assert np.all(analysis.bayes >= analysis.minimum - 1e-15)
    # the implied prior: there the Bayes threshold of the calibrated scores is the fixed score threshold
    assert scale * t + offset == pytest.approx(-analysis.implied_plo, rel=1e-6)
    assert analysis.implied_p_target == pytest.approx(1 / (1 + np.exp(-analysis.implied_plo)), rel=1e-12)
    at = analysis.at(0.01)
    assert at["fixed"] == pytest.approx(0.01 * np.mean(ev.tar < t) + 0.99 * np.mean(ev.non >= t), rel=1e-14)
    text = analysis.sentence(0.01)
    assert text.startswith("Fixing the false-alarm rate at 1 % on the development data")
    assert f"{per_100(100 * at['fixed'])} errors per 100" in text


def test_fixed_threshold_with_costs_and_without_calibration(small):
    other = lc.Trials(small.tar + 0.7, small.non + 0.7, name="shifted")
    analysis = lc.fixed_false_alarm_threshold(small, other, 0.05, c_miss=10, c_fa=1, fit=None)
    assert analysis.calibration is None
    assert analysis.implied_plo == -analysis.threshold
    assert analysis.implied_p_target == pytest.approx(1 / (1 + np.exp(analysis.threshold + np.log(10))), rel=1e-12)
    rates = lc.bayes_error_rates(other, plo=analysis.plo, c_miss=10, c_fa=1)
    np.testing.assert_array_equal(analysis.bayes, rates.actual)
    np.testing.assert_array_equal(analysis.minimum, rates.minimum)
    assert "it costs" in analysis.sentence(0.1)
    with pytest.raises(ValueError):
        lc.fixed_false_alarm_threshold(small, other, 0.05, c_fa=-1)


def test_cross_calibrated_improves_a_miscalibrated_system():
    rng = np.random.default_rng(3)
    mu = 3.0
    llr_tar, llr_non = rng.normal(mu, np.sqrt(2 * mu), 3000), rng.normal(-mu, np.sqrt(2 * mu), 9000)
    raw = lc.Trials(4 * llr_tar + 6, 4 * llr_non + 6, name="raw")
    calibrated = lc.cross_calibrated(raw)
    assert calibrated.name == "raw (calibrated)"
    tar, non = lc.cross_calibrate(raw.tar, raw.non)
    np.testing.assert_array_equal(calibrated.tar, tar)
    np.testing.assert_array_equal(calibrated.non, non)
    assert lc.cllr(calibrated) < 0.5 * lc.cllr(raw)
    assert lc.cllr(calibrated) == pytest.approx(lc.gaussian_cllr(mu), abs=0.02)



@pytest.mark.parametrize("fit, folds, seed", [(lc.fit_pav, 3, 7), (lc.fit_cmlg, 4, 1), (lc.fit_affine, 2, 11)])
def test_cross_calibrated_is_cross_calibrate(fit, folds, seed):
    """One cross-calibration (issue 42): the page's calibrated copy holds exactly ``cross_calibrate``'s LLRs, and a
    fold whose fit collapsed is refused by the same check with the same sentence."""
    rng = np.random.default_rng(seed)
    raw = lc.Trials(rng.normal(2.0, 1.5, 400), rng.normal(-1.0, 2.0, 1200), name="raw")
    calibrated = lc.cross_calibrated(raw, fit=fit, folds=folds, seed=seed)
    tar, non = lc.cross_calibrate(raw.tar, raw.non, fit, folds=folds, seed=seed)
    np.testing.assert_array_equal(calibrated.tar, tar)
    np.testing.assert_array_equal(calibrated.non, non)
    far = lc.Trials(np.append(raw.tar, -1e308), raw.non)  # every affine fit that trains on it collapses
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The calibration collapsed", RuntimeWarning)
        with pytest.raises(ValueError) as refused:
            lc.cross_calibrate(far.tar, far.non, refuse_collapsed=True, seed=seed)
        with pytest.raises(ValueError, match="The calibration collapsed in folds ") as page:
            lc.cross_calibrated(far, seed=seed)
        lc.cross_calibrate(far.tar, far.non, seed=seed)  # by default the collapsed folds' LLRs are returned
    assert str(page.value) == str(refused.value)

def test_module_names_are_exported():
    for name in decisions.__all__:
        assert getattr(lc, name) is getattr(decisions, name)


@pytest.mark.parametrize("p, c_miss, c_fa", OPERATING_POINTS)
def test_an_operating_point_gives_the_decisions_of_its_numbers(small, p, c_miss, c_fa):
    """llrcore.prior's rule: a function that takes p_target, c_miss, c_fa takes an OperatingPoint too; the
    reference is the same call with the loose numbers, counted trial by trial above."""
    op = lc.OperatingPoint(p, c_miss, c_fa)
    assert lc.bayes_decisions(small, p_target=op) == lc.bayes_decisions(small, p_target=p, c_miss=c_miss, c_fa=c_fa)
    by_point = decisions.decision_histograms(small, p_target=op)
    by_numbers = decisions.decision_histograms(small, p_target=p, c_miss=c_miss, c_fa=c_fa)
    assert by_point.summary == by_numbers.summary
    assert np.array_equal(by_point.edges, by_numbers.edges)
    with pytest.raises(ValueError, match="not both"):
        lc.bayes_decisions(small, p_target=lc.OperatingPoint(p, 2.0, 3.0), c_miss=5.0, c_fa=1.0)
