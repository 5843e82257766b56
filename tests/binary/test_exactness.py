"""The binary engine at the extremes: each number against its exact value.

References: ``fractions.Fraction`` for rates and costs that are ratios of counts (exact rationals, rounded once to
float); ``mpmath`` at 50 digits for Cllr of huge LLRs and for the log-odds of extreme priors; for affine calibration
of badly scaled scores, the fit of the same scores centred and scaled by hand, transformed back. Each test failed
before the fix it comes with (issue "The binary engine: exact at the extremes").
"""
from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.prior import logit

mp.mp.dps = 50


@pytest.fixture(scope="module")
def one_in_ten_million():
    n = 10_000_001
    non = np.zeros(n)
    non[:3] = 10.0
    return np.full(5, 10.0), non, n


def test_small_false_alarm_rates_keep_their_digits(one_in_ten_million):
    tar, non, n = one_in_ten_million
    assert lc.det_curve(tar, non)[0][1] == float(Fraction(3, n))
    assert lc.det_curve(tar, non, rocch=True)[0][1] == float(Fraction(3, n))
    p = Fraction(1, 10_000)
    exact = float((1 - p) * Fraction(3, n) / p)  # 0.0029996997000300
    for value in (lc.min_dcf(tar, non, p_target=1e-4), lc.act_dcf(tar, non, p_target=1e-4)):
        assert value == pytest.approx(exact, rel=4e-16)
    rates = lc.bayes_error_rates(tar, non, plo=[float(logit(1e-4))])
    assert rates.normalised_actual[0] == pytest.approx(exact, rel=4e-16)
    assert rates.normalised_minimum[0] == pytest.approx(exact, rel=4e-16)
    table = lc.SortedScores(tar, non)
    assert table.false_alarm_rate(5.0) == float(Fraction(3, n))


def _softplus_bits(x) -> mp.mpf:
    return mp.log(1 + mp.exp(mp.mpf(x))) / mp.log(2)


@pytest.mark.parametrize("tar, non", [([0.0], [1.7e308, 0.0]), ([0.0] * 3, [1e306] * 1000)],
                         ids=["one huge LLR", "a huge sum"])
def test_cllr_of_huge_finite_llrs_is_finite_and_exact(tar, non):
    exact = (mp.fsum(_softplus_bits(-x) for x in tar) / len(tar)
             + mp.fsum(_softplus_bits(x) for x in non) / len(non)) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lc.cllr(tar, non) == pytest.approx(float(exact), rel=1e-15)


def test_cllr_is_still_infinite_when_it_exceeds_the_largest_float():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lc.cllr([-1.7e308], [1.7e308]) == np.inf
        assert lc.cllr([-np.inf], [0.0]) == np.inf


@pytest.fixture(scope="module")
def normal_scores():
    r = np.random.default_rng(0)
    return r.normal(1, 1, 200), r.normal(-1, 1, 300)


@pytest.mark.parametrize("centre, spread", [(0.0, 1e-13), (1e5, 1e-6), (0.0, 1e-160), (-3e7, 1e-2)],
                         ids=["tiny spread", "large offset", "below 1e-154", "offset of 3e9 spreads"])
def test_affine_fit_of_badly_scaled_scores_reaches_the_optimum(normal_scores, centre, spread):
    t, n = normal_scores
    tar, non = centre + spread * t, centre + spread * n
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = lc.fit_affine(tar, non)
    # Reference: the fit on the scores as given (after their rounding), centred and scaled exactly by hand.
    reference = lc.fit_affine((tar - centre) / spread, (non - centre) / spread)
    assert fit.converged
    assert fit.scale * spread == pytest.approx(reference.scale, rel=1e-9)
    # LLRs as scale * score + offset: the two terms cancel, each rounded at its own size.
    rounding = 4e-16 * abs(centre * fit.scale)
    assert fit(tar) == pytest.approx(reference((tar - centre) / spread), abs=1e-9 + rounding)
    if centre == 0.0:
        assert reference.scale == pytest.approx(lc.fit_affine(t, n).scale, rel=1e-9)  # 1.99849, not 2.0515


def test_a_fit_that_cannot_converge_says_so(normal_scores):
    t, n = normal_scores
    with pytest.warns(RuntimeWarning, match="did not reach the optimum"):
        fit = lc.fit_affine(t, n, plo=600)
    assert not fit.converged
    assert lc.fit_affine(t, n).converged


@pytest.mark.parametrize("plo, words", [(800, "no weight"), (-800, "no weight"), (np.nan, "not NaN"),
                                        (np.inf, "finite"), ([0.0, 1.0], "one number")])
def test_fit_affine_refuses_a_useless_prior_weighting(normal_scores, plo, words):
    with pytest.raises(ValueError, match=words) as caught:
        lc.fit_affine(*normal_scores, plo=plo)
    assert "prior weighting plo" in str(caught.value)


def test_objective_and_bayes_error_rates_refuse_nan(normal_scores):
    with pytest.raises(ValueError, match="prior weighting plo must be a number, not NaN"):
        lc.objective(*normal_scores, lc.BetaRule.logarithmic(), plo=np.nan)
    with pytest.raises(ValueError, match="prior log-odds must be a number, not NaN"):
        lc.bayes_error_rates(*normal_scores, plo=[np.nan])
    with pytest.raises(ValueError, match="1 of the 2 are missing"):
        lc.bayes_error_rates(*normal_scores, plo=[0.0, np.nan])


def test_cprimary_needs_a_prior(normal_scores):
    with pytest.raises(ValueError, match="at least one P_target"):
        lc.cprimary(*normal_scores, p_target=[])


def test_forgotten_non_targets_are_named():
    with pytest.raises(ValueError, match="non-target scores are missing"):
        lc.eer([1.0, 2.0])
    with pytest.raises(ValueError, match="non-target LLRs are missing"):
        lc.cllr([1.0, 2.0])


def test_labels_as_text_are_read_not_cast():
    scores = np.array([1.0, 2.0, 3.0, 4.0])
    trials = lc.Trials.from_labels(scores, np.array(["1", "0", "0", "1"]))
    assert list(trials.tar) == [1.0, 4.0] and list(trials.non) == [2.0, 3.0]
    trials = lc.Trials.from_labels(scores, ["target", "nontarget", "Non-target", "TRUE"])
    assert list(trials.tar) == [1.0, 4.0]
    with pytest.raises(ValueError, match=r"label '' \(trial 4\) is neither target nor non-target"):
        lc.Trials.from_labels(scores, np.array(["1", "0", "0", ""]))
    with pytest.raises(ValueError, match="must be 1 .* or 0 .*not 2"):
        lc.Trials.from_labels(scores, [1, 0, 2, 0])


def _turns(rows):
    return pd.DataFrame(rows, columns=["uri", "channel", "start", "end", "speaker"])


def test_der_refuses_turns_without_times_or_columns():
    pytest.importorskip("pyannote.metrics")
    reference = _turns([("r", "1", 0.0, 5.0, "A"), ("r", "1", 5.0, 10.0, "B")])
    broken = _turns([("r", "1", 0.0, np.nan, "A"), ("r", "1", 5.0, 10.0, "B")])
    with pytest.raises(ValueError, match="turn.* of the hypothesis have no valid start or end time"):
        lc.diarization_error_rate(reference, broken)
    with pytest.raises(ValueError, match="turn.* of the reference have no valid start or end time"):
        lc.diarization_error_rate(broken, reference)
    with pytest.raises(ValueError, match="hypothesis has no column 'speaker'"):
        lc.diarization_error_rate(reference, reference.drop(columns="speaker"))
    with pytest.raises(ValueError, match="reference has no speaker turns"):
        lc.diarization_error_rate(reference.iloc[:0], reference)
    assert lc.diarization_error_rate(reference, reference, collar=0.0).der == 0.0


@pytest.mark.parametrize("metric", ["min_dcf", "act_dcf"])
def test_dcf_takes_an_array_of_priors(normal_scores, metric):
    function = getattr(lc, metric)
    priors = np.array([1e-4, 0.001, 0.01, 0.3, 0.5, 0.9])
    values = function(*normal_scores, p_target=priors)
    assert isinstance(values, np.ndarray) and values.shape == priors.shape
    np.testing.assert_array_equal(values, [function(*normal_scores, p_target=p) for p in priors])
    assert isinstance(function(*normal_scores, p_target=0.01), float)


EXTREME_PRIORS = [5e-324, 1e-300, 1e-17, 1e-9, 0.25, 0.5 - 1e-9, 0.5000001, 1 - 1e-9, 1 - 2**-52, 1 - 2**-53]


@pytest.mark.parametrize("p", EXTREME_PRIORS)
def test_effective_plo_is_correctly_rounded_at_extreme_priors(p):
    exact = float(mp.log(mp.mpf(p) / (1 - mp.mpf(p))))
    assert float(lc.effective_plo(p)) == exact


def test_effective_plo_is_within_an_ulp_everywhere():
    r = np.random.default_rng(3)
    p = np.concatenate([r.uniform(0, 1, 2000), r.uniform(0.45, 0.55, 2000), 10 ** r.uniform(-300, -1, 500)])
    exact = np.array([float(mp.log(mp.mpf(x) / (1 - mp.mpf(x)))) for x in p])
    assert np.all(np.abs(lc.effective_plo(p) - exact) <= np.spacing(np.abs(exact)))
