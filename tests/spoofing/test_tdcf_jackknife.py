"""The grouped jackknife of the min t-DCF's BCa interval, each block counted from the counts of all the trials: the
same acceleration and the same interval, to the last bit, as a jackknife from scratch.

Independent reference: the jackknife written plainly here, as :mod:`llrcore.uncertainty.draws` documents it: the
blocks of ``Draws(sizes, seed).jackknife()`` over the five sorted classes (bona fide, spoofed, target, non-target,
spoof), and for each block ``lc.tdcf`` run anew on the trials the block keeps (it sorts and counts again), with the
full data's ASV threshold; NaN where ``lc.tdcf`` refuses (a negative weight, no normaliser, a class left empty). The
acceleration is Efron & Tibshirani's grouped formula (``acceleration``), the interval ``bca_interval`` of the
replicates with it. Real data: the ASVspoof 2019 LA eval CMs of the demo (LFCC-GMM, RawNet2-a) in front of the
organisers' ASV, rows of ``lc.evaluate_tandem``; a hand-made set where blocks leave the t-DCF without meaning.
"""
from __future__ import annotations

import numpy as np
import pytest
from paths import ROOT

import llrcore as lc
from llrcore.uncertainty.draws import Draws
from llrcore.uncertainty.intervals import acceleration, bca_interval


@pytest.fixture(scope="module")
def evaluations():
    asv = lc.read_trials(ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    cms = lc.read_trials(ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz")
    return {name: lc.evaluate_tandem(cms[name], asv, name=name) for name in ("LFCC-GMM", "RawNet2-a")}


def jackknife_from_scratch(cm, asv, seed, threshold, formulation):
    """``lc.tdcf`` of the trials each block keeps, in the order of ``Draws.jackknife``, with the block's stratum."""
    classes = [np.sort(scores) for scores in (cm.tar, cm.non, asv.tar, asv.non, asv.spoof)]
    strata, values = [], []
    for stratum, weights in Draws([scores.size for scores in classes], seed).jackknife():
        kept = [scores[w > 0] for scores, w in zip(classes, weights)]
        try:
            values.append(lc.tdcf(*kept, formulation=formulation, asv_threshold=threshold).minimum)
        except ValueError:  # no meaning without the block (or a class left empty)
            values.append(np.nan)
        strata.append(stratum)
    return np.array(values), np.array(strata)


def assert_same_interval(cm, asv, seed, threshold, formulation, n=20):
    result = lc.bootstrap_tdcf(cm, asv, n, seed=seed, formulation=formulation, asv_threshold=threshold)
    accel = float(acceleration(*jackknife_from_scratch(cm, asv, seed, threshold, formulation)))
    assert result.acceleration == accel  # to the last bit
    assert (result.lower, result.upper) == bca_interval(result.replicates, result.minimum, accel, result.level)
    return result


@pytest.mark.parametrize(("name", "attack", "formulation"), [("LFCC-GMM", "A10", "revised"),
                                                              ("RawNet2-a", "A17", "legacy"),
                                                              ("LFCC-GMM", "pooled", "revised")])
def test_the_acceleration_and_interval_are_those_of_the_jackknife_from_scratch(evaluations, name, attack,
                                                                                formulation):
    evaluation = evaluations[name]
    row = next(row for row in evaluation.rows if row.attack == attack)
    result = assert_same_interval(row.cm_trials, row.asv_trials, 0, evaluation.asv_threshold, formulation)
    assert result.acceleration != 0 and result.lower < result.minimum < result.upper


def test_blocks_that_leave_the_tdcf_without_meaning_are_nan_in_the_jackknife():
    """Each class has at most 40 trials, so every block is one trial: without the one spoof the ASV accepts, legacy
    C2 = 0 (no normaliser); without the only spoof trial of the ASV or of the CM of the other sets, a class is
    empty."""
    bonafide = [1.0, 2.0, 3.0, 2.5]
    for cm_spoof, asv_spoof in (([0.0, 1.5, 0.7], [9.0, 0.5]), ([0.0, 1.5, 0.7], [9.0]), ([1.5], [9.0, 0.5])):
        cm = lc.Trials(bonafide, cm_spoof)
        asv = lc.Trials([5.0, 6.0, 7.0, 8.0], [0.0, 1.0, 2.0, 6.5], spoof=asv_spoof)
        values, _ = jackknife_from_scratch(cm, asv, 3, 4.5, "legacy")
        assert np.isnan(values).any() and not np.isnan(values).all()
        assert_same_interval(cm, asv, 3, 4.5, "legacy", n=50)
