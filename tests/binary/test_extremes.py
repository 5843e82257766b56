"""Numerical extremes: every metric is defined (finite, or inf where the theory says) and never NaN.

Cases: +-inf and +-1e300 LLRs, the largest floats, all scores tied, a single trial per class, 1e8-to-1 class
imbalance. Warnings are errors here, so a silent overflow or 0 * inf fails the test too.
"""
import warnings

import numpy as np
import pytest

import llrcore as lc

pytestmark = pytest.mark.filterwarnings("error")
BIGGEST = np.finfo(float).max

CASES = {
    "infinite LLRs": ([np.inf, 1.0, -np.inf], [-np.inf, 0.0, np.inf]),
    "1e300 LLRs": ([1e300, -1e300, 3.0], [1e300, -1e300, -2.0]),
    "largest floats": ([BIGGEST, -BIGGEST], [0.0]),
    "all tied": ([1.0] * 5, [1.0] * 7),
    "one trial each": ([2.0], [-1.0]),
    "one trial each, reversed": ([-1.0], [2.0]),
    "certain and right": ([np.inf] * 3, [-np.inf] * 3),
}
PRIORS = np.array([-np.inf, -1e3, -30.0, 0.0, 30.0, 1e3, np.inf])


@pytest.mark.parametrize("case", CASES)
def test_every_metric_is_defined(case):
    tar, non = CASES[case]
    metrics = lc.evaluate(tar, non, p_target=0.01, c_miss=10)
    for field in ("eer", "min_dcf", "act_dcf", "cllr", "min_cllr", "cprimary", "min_cprimary"):
        assert not np.isnan(getattr(metrics, field)), field
    assert 0 <= metrics.eer <= 0.5 and 0 <= metrics.min_cllr <= 1
    assert 0 <= metrics.calibration_loss_percent <= 100
    rates = lc.bayes_error_rates(tar, non, plo=PRIORS, c_miss=3.0)
    for values in (rates.actual, rates.minimum, rates.default, rates.trapezium, rates.normalised_actual,
                   rates.normalised_minimum):
        assert np.isfinite(values).all()
    assert (rates.minimum <= rates.actual + 1e-300).all()
    for llrs in lc.pav_llrs(tar, non):
        assert not np.isnan(llrs).any()
    assert np.isfinite(np.concatenate(lc.det_curve(tar, non))).all()
    assert np.isfinite(np.concatenate(lc.det_curve(tar, non, rocch=True))).all()


def test_infinite_llr_on_the_wrong_side_costs_infinitely_many_bits():
    """Cllr: a target with LLR -inf is certain and wrong: -log2 P(target) = inf (and it must not be NaN)."""
    assert lc.cllr([-np.inf, 1.0], [0.0]) == np.inf
    assert lc.cllr([1.0], [np.inf]) == np.inf
    assert lc.cllr([np.inf], [-np.inf]) == 0.0


def test_all_tied_scores_carry_no_information():
    """All scores equal: the ROC is the diagonal (EER 1/2), PAV gives LLR 0 everywhere (minCllr exactly 1 bit)."""
    tar, non = CASES["all tied"]
    assert lc.eer(tar, non) == 0.5
    assert lc.min_cllr(tar, non) == 1.0
    assert all((llrs == 0).all() for llrs in lc.pav_llrs(tar, non))


def test_extreme_class_imbalance():
    """1e7 non-targets per target as scores, 1e10 as counts per score (past 2^31 of one class): rates stay exact
    fractions, and the two give the same numbers (the same proportions at every threshold)."""
    values = np.linspace(-3, 1, 5)  # five distinct non-target scores, as many trials each
    as_scores = lc.Trials(np.array([0.5]), np.repeat(values, 2_000_000))  # sorted once for every metric below
    unique = np.sort(np.append(values, 0.5))
    as_counts = lc.CountedScores(unique, (unique == 0.5).astype(np.int64), np.where(unique == 0.5, 0, 2_000_000_000))
    metrics = {}
    for name, trials in (("scores", as_scores), ("counts", as_counts)):
        # The target is above 4 of the 5 non-target values: the hull runs from (Pfa 0.2, Pmiss 0) to (0, 1), i.e.
        # Pfa = 0.2 - 0.2 s and Pmiss = s, equal at s = 1/6.
        assert lc.eer(trials) == pytest.approx(1 / 6, abs=1e-12), name
        assert lc.act_dcf(trials, p_target=1e-6) >= 0
        metrics[name] = np.array([lc.min_cllr(trials), lc.cllr(trials)])
        assert np.isfinite(metrics[name]).all(), name
    np.testing.assert_allclose(metrics["counts"], metrics["scores"], rtol=1e-12)


@pytest.mark.parametrize("case", [c for c in CASES if "LLRs" in c or "largest" in c or "tied" in c])
def test_calibration_never_returns_nan(case):
    tar, non = (np.asarray(values, float) for values in CASES[case])
    finite_tar, finite_non = tar[np.isfinite(tar)], non[np.isfinite(non)]
    for fit in (lc.fit_affine, lc.fit_pav):
        try:
            with warnings.catch_warnings():  # far scores on the wrong side collapse the fit: flagged and warned
                warnings.filterwarnings("ignore", "The calibration collapsed", RuntimeWarning)
                calibrator = fit(finite_tar, finite_non)
        except ValueError as error:  # a refusal must say why, in words
            assert len(str(error)) > 20
            continue
        assert not np.isnan(calibrator(np.concatenate([finite_tar, finite_non]))).any()


def test_calibration_refuses_infinite_scores_with_a_message():
    with pytest.raises(ValueError, match="infinite"):
        lc.fit_affine([np.inf, 1.0], [0.0, 2.0])


def test_huge_scores_calibrate_like_their_scaled_copies():
    """Scores near 1e280 are fitted on scaled copies: the same calibration as the unscaled scores, scaled."""
    rng = np.random.default_rng(0)
    tar, non = rng.normal(2, 1, 500), rng.normal(0, 1, 500)
    small, huge = lc.fit_affine(tar, non), lc.fit_affine(tar * 1e280, non * 1e280)
    assert huge.scale * 1e280 == pytest.approx(small.scale, rel=1e-12)
    assert huge.offset == pytest.approx(small.offset, rel=1e-12)


def test_data_objects_compare_and_hash_by_identity():
    """They hold arrays: the generated field-wise == would raise 'truth value of an array is ambiguous'."""
    first, second = lc.Trials([1.0], [0.0]), lc.Trials([1.0], [0.0])
    assert first == first and first != second
    assert len({first, second}) == 2
    matrix = lc.SimilarityMatrix(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert matrix == matrix and len({matrix}) == 1
