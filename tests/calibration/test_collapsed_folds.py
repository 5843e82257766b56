"""A calibration whose cross-validation folds collapsed is flagged, in the cross-validated calibration, Bayes
decisions' cross-calibration and the sweep of prior weightings, which never chooses a collapsed fit.

Independent references: the fold that holds the far target (only the fits that train on it can collapse) and a
collapse measured directly (the fold's calibrated LLRs of the ordinary scores all within 1e-6 nats of one another).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.calibration.analysis import calibrate_and_evaluate
from llrcore.calibration.sweep import RuleSweep, sweep_prior_weighting
from llrcore.calibration.folds import Folds
from synthetic import FAR, ordinary, quiet


@pytest.fixture(scope="module")
def trials():
    tar, non = ordinary()
    return lc.Trials(tar, non, name="A")


@pytest.fixture(scope="module")
def wrong_side():
    """A target at -1e308: every affine fit that trains on it collapses (the true optimum there)."""
    tar, non = ordinary()
    return lc.Trials(np.append(tar, -FAR), non, name="far")


def test_cross_validated_calibration_carries_the_folds_that_collapsed(wrong_side):
    result = quiet(calibrate_and_evaluate, wrong_side, folds=5, seed=0)
    split = Folds.split(wrong_side.tar.size, wrong_side.non.size, 5, seed=0)
    holder = next(k for k, (tar_test, _) in enumerate(split.test, start=1) if tar_test[-1])  # the far target's fold
    assert result.collapsed_folds == tuple(k for k in range(1, 6) if k != holder)
    # each of them is a collapse, measured directly: the fold's LLRs of the ordinary scores are all about equal
    for k, (tar_test, non_test) in enumerate(split.test, start=1):
        tar = result.calibrated.tar[tar_test & (np.abs(wrong_side.tar) < 1e300)]
        llrs = np.r_[tar, result.calibrated.non[non_test]]
        assert (np.ptp(llrs) < 1e-6) == (k != holder)
    assert result.collapsed and result.failure.startswith(
        f"the calibration trained on all the trials collapsed, and in folds "
        f"{', '.join(str(k) for k in result.collapsed_folds[:-1])} and {result.collapsed_folds[-1]} of 5 — ")
    assert not quiet(calibrate_and_evaluate, lc.Trials(*ordinary())).collapsed


def test_a_fold_that_collapses_is_flagged_even_when_the_fit_on_all_trials_is_fine(wrong_side):
    result = quiet(calibrate_and_evaluate, wrong_side)
    flagged = dataclasses.replace(result, calibrator=lc.fit_affine(*ordinary()))
    assert flagged.collapsed and flagged.failure.startswith("the calibration collapsed in folds ")


def test_bayes_decisions_cross_calibration_refuses_collapsed_folds(wrong_side):
    with pytest.raises(ValueError, match=r"The calibration collapsed in folds .* of 5"):
        quiet(lc.cross_calibrated, wrong_side)
    assert lc.cross_calibrated(lc.Trials(*ordinary(), name="B")).name == "B (calibrated)"


def test_sweep_marks_collapsed_fits_and_never_chooses_one(wrong_side, trials):
    sweep = quiet(sweep_prior_weighting, wrong_side, None, [lc.BetaRule.logarithmic()], [-2.0, 0.0])
    assert sweep.frame["collapsed"].all()
    with pytest.raises(ValueError, match="collapsed"):
        sweep.best
    plain = sweep_prior_weighting(trials, None, [lc.BetaRule.logarithmic()], [-2.0, 0.0])
    assert not plain.frame["collapsed"].any()
    frame = pd.DataFrame({"rule": ["a", "b"], "plo": [0.0, -1.0], "cost": [0.1, 0.5], "cllr": [0.2, 0.3],
                          "collapsed": [True, False]})
    assert RuleSweep(frame, "Cprimary", 1.0, 0.0, (0.01,), 1.0, 1.0, True).best["rule"] == "b"
