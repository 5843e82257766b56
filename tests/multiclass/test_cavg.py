"""Cavg and the LRE 2017 primary cost (llrcore/multiclass/cavg.py) against independent references.

Independent references:

- a hand-made set of six trials of three classes whose detection decisions are worked out by hand (the detection
  LLRs of eq. 9 of Brümmer & van Leeuwen, 2006, are written in the comments) and whose Cavg is counted here term by
  term from the formula of the NIST LRE plans;
- a second implementation written here with plain loops over target and non-target languages, detection LLRs from
  ``scipy.special.logsumexp``, on the two real demo sets (assets/multiclass/), read as the app reads them;
- a brute-force minimum: that loop implementation at every distinct detection LLR as the shared threshold;
- Bayes decision theory: for LLRs computed from the true class densities (perfectly calibrated), the Bayes threshold
  is the best one, so minCavg and Cavg nearly agree; and a minimum is never above the actual cost.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp

import llrcore as lc
from paths import ROOT

DEMOS = {  # folder: (score type, training prior, classes), as app_pages/_demos.py reads them
    "iemocap_wav2vec_pt": ("log-posterior", "empirical", ("anger", "happiness", "neutral", "sadness")),
    "cifar10_resnet-20": ("logit", "flat", ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse",
                                            "ship", "truck")),
}


def demo(folder: str) -> lc.MulticlassScores:
    score_type, training_prior, classes = DEMOS[folder]
    path = ROOT / "assets" / "multiclass" / folder
    return lc.read_multiclass(path / "scores.npy", labels=path / "targets.npy", score_type=score_type,
                              training_prior=training_prior, classes=classes)


# ----- the hand-made set ---------------------------------------------------------------------------------------------

# Detection LLR of target T (flat prior over the 2 others): l_T - log((exp(l_a) + exp(l_b)) / 2).
HAND_LLRS = np.array([
    [2.0, 0.0, 0.0],   # class 0; det = (2, -1.43, -1.43)          -> accepted as {0} at threshold 0
    [0.0, 0.0, 0.0],   # class 0; det = (0, 0, 0): ties accepted   -> {0, 1, 2}
    [0.0, 3.0, 0.0],   # class 1; det = (-2.35, 3, -2.35)          -> {1}
    [0.0, 1.0, 1.0],   # class 1; det = (-1, 0.38, 0.38)           -> {1, 2}
    [-1.0, 0.0, 1.0],  # class 2; det = (-1.81, -0.43, 1.38)       -> {2}
    [2.0, 0.0, 0.0],   # class 2; det = (2, -1.43, -1.43)          -> {0}
])
HAND_LABELS = np.array([0, 0, 1, 1, 2, 2])
HAND_ACCEPTED_AT_HALF = [{0}, {0, 1, 2}, {1}, {1, 2}, {2}, {0}]
# At P_target = 0.1 the threshold is log 9 = 2.197: only trial 2 (det 3 for class 1) is accepted.
HAND_ACCEPTED_AT_TENTH = [set(), set(), {1}, set(), set(), set()]


def hand_scores() -> lc.MulticlassScores:
    return lc.MulticlassScores(HAND_LLRS, HAND_LABELS, classes=("a", "b", "c"))


def test_hand_made_decisions_are_the_ones_worked_out_by_hand():
    scores = hand_scores()
    for p_target, expected in ((0.5, HAND_ACCEPTED_AT_HALF), (0.1, HAND_ACCEPTED_AT_TENTH)):
        for target in range(3):
            prior = np.full(3, (1 - p_target) / 2)  # P_target for the target, the rest shared by the others
            prior[target] = p_target
            accepted = lc.detection_decisions(scores, target, prior)  # eq. 10: P(target | x) >= 1/2
            assert [bool(a) for a in accepted] == [target in row for row in expected]


def test_cavg_on_the_hand_made_set_by_counting():
    # P_target = 0.5, C_miss = C_fa = 1. Two trials per class.
    #   target a: P_miss = 0/2; P_fa(a, b) = 0/2, P_fa(a, c) = 1/2 (trial 5)
    #   target b: P_miss = 0/2; P_fa(b, a) = 1/2 (trial 1), P_fa(b, c) = 0/2
    #   target c: P_miss = 1/2 (trial 5); P_fa(c, a) = 1/2 (trial 1), P_fa(c, b) = 1/2 (trial 3)
    # LRE 2011/2015 form: (1/3) [ (0.5*0 + 0.25*(0 + 0.5)) + (0.5*0 + 0.25*(0.5 + 0)) + (0.5*0.5 + 0.25*(0.5 + 0.5)) ]
    by_hand = (1 / 3) * ((0.5 * 0 + 0.25 * 0.5) + (0.5 * 0 + 0.25 * 0.5) + (0.5 * 0.5 + 0.25 * 1.0))
    assert by_hand == pytest.approx(0.25)
    scores = hand_scores()
    assert lc.cavg(scores, normalised=False) == pytest.approx(by_hand, abs=1e-15)
    assert lc.cavg(scores) == pytest.approx(by_hand / 0.5, abs=1e-15)  # LRE 2017: divided by C_miss P_target
    # P_target = 0.1 (beta = 9): every trial rejected but trial 2, so no false alarm;
    # P_miss = 2/2, 1/2, 2/2 -> normalised Cavg = (1 + 0.5 + 1) / 3
    assert lc.cavg(scores, p_target=0.1) == pytest.approx(2.5 / 3, abs=1e-15)
    assert lc.cavg(scores, p_target=0.1, normalised=False) == pytest.approx(0.1 * 2.5 / 3, abs=1e-15)
    assert lc.lre_cprimary(scores) == pytest.approx((0.5 + 2.5 / 3) / 2, abs=1e-15)
    # the same with a bare matrix and labels
    assert lc.cavg(HAND_LLRS, labels=HAND_LABELS) == lc.cavg(scores)


def test_costs_move_the_threshold():
    # C_miss = 9, C_fa = 1 at P_target 0.5 gives threshold -log 9: every detection LLR above -2.197 is accepted.
    scores = hand_scores()
    det = np.column_stack([lc.detection_llrs(scores, t) for t in range(3)])
    accepted = det >= -math.log(9)
    assert lc.cavg(scores, c_miss=9, c_fa=1) == pytest.approx(loop_cavg(HAND_LLRS, HAND_LABELS, 0.5, 9, 1),
                                                              abs=1e-15)
    assert accepted.sum() > sum(len(row) for row in HAND_ACCEPTED_AT_HALF)


# ----- a second implementation ---------------------------------------------------------------------------------------


def loop_detection_llrs(llrs: np.ndarray, target: int) -> np.ndarray:
    others = [i for i in range(llrs.shape[1]) if i != target]
    return llrs[:, target] - (logsumexp(llrs[:, others], axis=1) - np.log(len(others)))


def loop_cavg(llrs, labels, p_target, c_miss=1.0, c_fa=1.0, threshold=None, normalised=True) -> float:
    """Cavg with plain loops over target and non-target languages (NIST LRE plans)."""
    n = llrs.shape[1]
    if threshold is None:
        threshold = np.log(c_fa * (1 - p_target) / (c_miss * p_target))
    total = 0.0
    for target in range(n):
        det = loop_detection_llrs(llrs, target)
        p_miss = np.mean(det[labels == target] < threshold)
        cost = c_miss * p_target * p_miss
        for non_target in range(n):
            if non_target != target:
                p_fa = np.mean(det[labels == non_target] >= threshold)
                cost += c_fa * (1 - p_target) / (n - 1) * p_fa
        total += cost
    cavg = total / n
    return cavg / (c_miss * p_target) if normalised else cavg


def brute_min_cavg(llrs, labels, p_target) -> float:
    det = np.concatenate([loop_detection_llrs(llrs, t) for t in range(llrs.shape[1])])
    candidates = np.append(np.unique(det), np.inf)
    return min(loop_cavg(llrs, labels, p_target, threshold=t) for t in candidates)


@pytest.mark.parametrize("folder", list(DEMOS))
@pytest.mark.parametrize("p_target", [0.5, 0.1, 0.8])
def test_cavg_equals_a_second_implementation_on_the_demo_sets(folder, p_target):
    scores = demo(folder)
    llrs, labels = scores.llrs, scores.labels
    assert lc.cavg(scores, p_target=p_target) == pytest.approx(loop_cavg(llrs, labels, p_target), abs=1e-12)
    assert lc.cavg(scores, p_target=p_target, normalised=False) == pytest.approx(
        loop_cavg(llrs, labels, p_target, normalised=False), abs=1e-12)
    assert lc.cavg(scores, p_target=p_target, c_miss=2, c_fa=3) == pytest.approx(
        loop_cavg(llrs, labels, p_target, 2, 3), abs=1e-12)


@pytest.mark.parametrize("folder", list(DEMOS))
def test_cprimary_and_table_agree_with_the_loops(folder):
    scores = demo(folder)
    expected = (loop_cavg(scores.llrs, scores.labels, 0.5) + loop_cavg(scores.llrs, scores.labels, 0.1)) / 2
    assert lc.lre_cprimary(scores) == pytest.approx(expected, abs=1e-12)
    calibrated = lc.fit_multiclass_affine(scores)(scores.llrs)
    table = lc.cavg_table(scores, calibrated)
    assert list(table.index) == ["raw", "calibrated"]
    assert table.loc["raw", "cavg"] == pytest.approx(loop_cavg(scores.llrs, scores.labels, 0.5), abs=1e-12)
    assert table.loc["calibrated", "cavg"] == pytest.approx(loop_cavg(calibrated, scores.labels, 0.5), abs=1e-12)
    assert table.loc["raw", "min_cavg"] == lc.cavg(scores, minimum=True)
    assert table.loc["raw", "cprimary"] == lc.lre_cprimary(scores)
    assert table.loc["raw", "min_cprimary"] == lc.lre_cprimary(scores, minimum=True)
    assert (table["min_cavg"] <= table["cavg"]).all() and (table["min_cprimary"] <= table["cprimary"]).all()


# ----- the minimum ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p_target", [0.5, 0.1])
def test_minimum_equals_brute_force_over_every_threshold(p_target):
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 3, 90)
    llrs = np.round(1.5 * np.eye(3)[labels] + rng.normal(0, 1, (90, 3)), 1)  # rounded: ties in the detection LLRs
    scores = lc.MulticlassScores(llrs, labels)
    assert lc.cavg(scores, p_target=p_target, minimum=True) == pytest.approx(brute_min_cavg(llrs, labels, p_target),
                                                                    abs=1e-12)
    assert lc.cavg(HAND_LLRS, p_target=p_target, labels=HAND_LABELS, minimum=True) == pytest.approx(
        brute_min_cavg(HAND_LLRS, HAND_LABELS, p_target), abs=1e-12)


@pytest.mark.parametrize("folder", list(DEMOS))
@pytest.mark.parametrize("p_target", [0.5, 0.1, 0.9])
def test_minimum_is_never_above_the_actual_cost(folder, p_target):
    scores = demo(folder)
    assert lc.cavg(scores, p_target=p_target, minimum=True) <= lc.cavg(scores, p_target=p_target)
    assert lc.lre_cprimary(scores, minimum=True) <= lc.lre_cprimary(scores)


def test_perfectly_calibrated_llrs_have_minimum_close_to_actual():
    # LLRs from the true class densities: x ~ N(mu_c, I) in 2-D, l_i = log N(x; mu_i, I) (up to a constant)
    rng = np.random.default_rng(7)
    means = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
    labels = rng.integers(0, 4, 40_000)
    x = means[labels] + rng.normal(size=(labels.size, 2))
    llrs = -0.5 * ((x[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    scores = lc.MulticlassScores(llrs, labels)
    for p_target in (0.5, 0.1):
        actual, minimum = lc.cavg(scores, p_target=p_target), lc.cavg(scores, p_target=p_target, minimum=True)
        assert minimum <= actual < minimum + 0.01
    # badly scaled (over-confident) LLRs of the same trials lose much more at the Bayes threshold
    assert (lc.cavg(4 * llrs, p_target=0.1, labels=labels)
            - lc.cavg(4 * llrs, p_target=0.1, labels=labels, minimum=True)) > 0.02


def test_a_useless_system_costs_one_when_normalised():
    labels = np.repeat(np.arange(4), 5)
    flat = np.zeros((20, 4))  # every detection LLR is 0: accepted at P_target 0.5, rejected at 0.1
    assert lc.cavg(flat, p_target=0.5, labels=labels) == pytest.approx(1.0)  # every non-target accepted: beta * 1
    assert lc.cavg(flat, p_target=0.1, labels=labels) == pytest.approx(1.0)  # every target missed
    assert lc.cavg(flat, p_target=0.1, labels=labels, minimum=True) == pytest.approx(1.0)


# ----- argument errors -----------------------------------------------------------------------------------------------


def sentence(message: str) -> bool:
    return message[:1].isupper() and message.rstrip().endswith(".")


@pytest.mark.parametrize("kwargs, words", [
    ({"p_target": 0.0}, "strictly between 0 and 1"),
    ({"p_target": 1.0}, "strictly between 0 and 1"),
    ({"p_target": 1.5}, "strictly between 0 and 1"),
    ({"p_target": float("nan")}, "finite"),
    ({"p_target": "half"}, "must be a number"),
    ({"c_miss": -1}, "must be positive"),
    ({"c_fa": 0}, "must be positive"),
    ({"c_fa": True}, "must be a number"),
])
def test_bad_arguments_are_refused_with_a_sentence(kwargs, words):
    with pytest.raises(ValueError) as error:
        lc.cavg(hand_scores(), **kwargs)
    assert words in str(error.value) and sentence(str(error.value))


def test_bad_data_is_refused_with_a_sentence():
    for call in (lambda: lc.cavg(HAND_LLRS),  # no labels
                 lambda: lc.cavg(HAND_LLRS, labels=[0, 0, 1, 1, 1, 1]),  # class 2 has no trial
                 lambda: lc.lre_cprimary(HAND_LLRS, labels=[0, 0, 1])):  # too few labels
        with pytest.raises(ValueError) as error:
            call()
        assert sentence(str(error.value)), str(error.value)
