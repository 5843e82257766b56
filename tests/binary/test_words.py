"""One verdict on "can these scores be used as likelihood ratios?", the same in the library, report, app and CLI.

Independent references: the thresholds as the documentation states them (Cllr of 1 bit is the cost of the neutral
LLR 0 at every prior, checked here from its definition; 10 % calibration loss), Cllr and minCllr computed by direct
formulas (``mean log2(1 + e^-l)``; PAV by scikit-learn's ``IsotonicRegression``) on real and synthetic scores.
"""
from __future__ import annotations


import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

import llrcore as lc
from paths import ASSETS



def cllr_by_formula(tar, non) -> float:
    return (np.mean(np.logaddexp(0, -tar)) + np.mean(np.logaddexp(0, non))) / (2 * np.log(2))


def min_cllr_by_sklearn(tar, non) -> float:
    """PAV posteriors at the flat prior, turned into LLRs by the training-set prior odds."""
    scores = np.concatenate([tar, non])
    labels = np.concatenate([np.ones(tar.size), np.zeros(non.size)])
    posterior = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit_transform(scores, labels)
    with np.errstate(divide="ignore"):
        llr = np.log(posterior) - np.log1p(-posterior) - np.log(tar.size / non.size)
    return cllr_by_formula(llr[: tar.size], llr[tar.size:])


@pytest.mark.parametrize("cllr, min_cllr, verdict", [
    (0.5, 0.45, "good"),                       # 10 % loss exactly: still good
    (0.5, 0.4499, "needs recalibration"),      # just above 10 %
    (0.999, 0.1, "needs recalibration"),
    (1.0, 0.1, "not usable as likelihood ratios"),  # no better than LLR 0
    (np.inf, 0.2, "not usable as likelihood ratios"),
    (0.0, 0.0, "good"),
])
def test_verdict_at_the_band_edges(cllr, min_cllr, verdict):
    assert lc.llr_verdict(cllr, min_cllr).verdict == verdict


def test_one_bit_is_what_the_neutral_llr_costs():
    zero = np.zeros(10)
    assert cllr_by_formula(zero, zero) == pytest.approx(lc.binary.verdict.USELESS_CLLR, rel=1e-15)
    assert lc.llr_verdict(lc.cllr(zero, zero), lc.min_cllr(zero, zero)).verdict == lc.VERDICTS[2]


def test_nan_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        lc.llr_verdict(np.nan, 0.1)


@pytest.mark.parametrize("path", ["asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt",
                                  "fvcaus_plda/fvcaus_plda.npz"])
def test_metrics_carry_the_verdict_of_their_cllr_and_min_cllr(path):
    trials = lc.read_trials(ASSETS / path)
    cllr, min_cllr = cllr_by_formula(trials.tar, trials.non), min_cllr_by_sklearn(trials.tar, trials.non)
    verdict = lc.evaluate(trials).llr_verdict
    assert verdict.cllr == pytest.approx(cllr, rel=1e-12)
    assert verdict.min_cllr == pytest.approx(min_cllr, rel=1e-9)
    assert verdict.calibration_loss_percent == pytest.approx(100 * (cllr - min_cllr) / cllr, rel=1e-9)
    assert verdict.verdict == "needs recalibration"  # 69 % and 98 % of their Cllr is calibration loss
    assert str(verdict).startswith("needs recalibration: ")


def test_thirty_percent_loss_gets_the_same_verdict_in_the_report():
    """The user's case: at 30 % calibration loss the Data page said "yes" and the report "needs recalibration"."""
    rng = np.random.default_rng(3)
    tar, non = rng.normal(2, 2, 3000), rng.normal(-2, 2, 30000)  # calibrated Gaussian LLRs, mu = 2
    scale = 2.5  # overconfident: a larger scale is a larger calibration loss
    trials = lc.Trials(scale * tar, scale * non, name="g")
    loss = lc.evaluate(trials).calibration_loss_percent
    assert 20 < loss < 40
    report = lc.build_report(trials, calibrate=False)
    assert report.summaries[0].verdict == lc.llr_verdict(lc.cllr(trials), lc.min_cllr(trials)).verdict
    assert report.summaries[0].verdict == "needs recalibration"
