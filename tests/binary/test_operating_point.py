"""``lc.OperatingPoint``: a prior and two costs in one object.

Independent references: the effective prior log-odds written out by hand from its definition
``log(P / (1 - P)) + log(C_miss / C_fa)`` (Brümmer & du Preez, CSL 2006) with the standard library's ``math``; the
NIST SRE 2008, 2010 and 2012 evaluation plans for the presets (SRE08: P_target 0.01, C_miss 10, C_fa 1; SRE10 core:
0.001, 1, 1; SRE12: 0.01 and 0.001 with unit costs).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import llrcore as lc


@pytest.mark.parametrize("p_target, c_miss, c_fa", [(0.01, 1, 1), (0.01, 10, 1), (1e-6, 1, 3), (0.5, 2, 7),
                                                    (0.999, 1, 1)])
def test_effective_prior_log_odds_and_threshold_follow_the_definition(p_target, c_miss, c_fa):
    op = lc.OperatingPoint(p_target, c_miss, c_fa)
    expected = math.log(p_target / (1 - p_target)) + math.log(c_miss / c_fa)
    assert op.plo_eff == pytest.approx(expected, rel=1e-13, abs=1e-15)
    assert op.plo == pytest.approx(math.log(p_target / (1 - p_target)), rel=1e-13, abs=1e-15)
    assert op.threshold == -op.plo_eff
    assert op.p_eff == pytest.approx(1 / (1 + math.exp(-expected)), rel=1e-13)


def test_nist_presets_are_the_evaluation_plans_operating_points():
    assert lc.OperatingPoint.sre08() == lc.OperatingPoint(0.01, 10, 1)
    assert lc.OperatingPoint.sre10() == lc.OperatingPoint(0.001, 1, 1)
    assert lc.OperatingPoint.sre12() == lc.OperatingPoint(0.01, 1, 1)
    assert lc.OperatingPoint.equal_error().plo_eff == 0.0


@pytest.mark.parametrize("p_target, c_miss, c_fa", [(0, 1, 1), (1, 1, 1), (-0.1, 1, 1), (float("nan"), 1, 1),
                                                    (0.01, 0, 1), (0.01, 1, -2), (0.01, float("inf"), 1),
                                                    ("abc", 1, 1)])
def test_impossible_operating_points_are_refused_with_a_sentence(p_target, c_miss, c_fa):
    with pytest.raises(ValueError, match=r"P_target|costs|must be a number"):
        lc.OperatingPoint(p_target, c_miss, c_fa)


def test_it_is_frozen_and_describes_itself():
    op = lc.OperatingPoint(0.01, c_miss=10)
    with pytest.raises(AttributeError):
        op.p_target = 0.5
    assert op.describe() == "P_target = 0.01, C_miss = 10, C_fa = 1"


def test_metrics_take_an_operating_point_in_place_of_the_loose_keywords():
    rng = np.random.default_rng(1)
    tar, non = rng.normal(2, 2, 500), rng.normal(-2, 2, 5000)
    op = lc.OperatingPoint(0.01, c_miss=10, c_fa=2)
    assert lc.min_dcf(tar, non, p_target=op) == lc.min_dcf(tar, non, p_target=0.01, c_miss=10, c_fa=2)
    assert lc.act_dcf(tar, non, p_target=op) == lc.act_dcf(tar, non, p_target=0.01, c_miss=10, c_fa=2)
    assert lc.effective_plo(op) == op.plo_eff
    by_op, loose = lc.evaluate(tar, non, p_target=op), lc.evaluate(tar, non, p_target=0.01, c_miss=10, c_fa=2)
    assert by_op == loose and by_op.operating_point == op
    with pytest.raises(ValueError, match="not both"):
        lc.min_dcf(tar, non, p_target=op, c_miss=3)


def test_an_operating_point_with_trials_brings_its_costs_and_scores_twice_are_refused():
    trials = lc.Trials(np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.5]))
    op = lc.OperatingPoint(0.2, c_miss=3)
    assert lc.act_dcf(trials, p_target=op) == lc.act_dcf(trials.tar, trials.non, p_target=0.2, c_miss=3)
    assert lc.min_dcf(trials, p_target=op) == lc.min_dcf(trials.tar, trials.non, p_target=0.2, c_miss=3)
    with pytest.raises(TypeError, match="holds both classes"):  # it used to ignore the second argument
        lc.min_dcf(trials, np.array([-1.0, 2.5]))  # scores (a number second is the prior since issue 28)
