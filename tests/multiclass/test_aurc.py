"""Tests of ``lc.aurc`` (:mod:`llrcore.multiclass.selective`): the risk-coverage curve, AURC and E-AURC.

Independent references: the definition (Geifman et al. 2019) written here from scratch, one coverage at a time
(for each ``i`` of ``N``, accept every prediction at least as confident as the ``i``-th most confident, so ties are
accepted together, and average the risks), a small example computed by hand, Geifman et al.'s closed form for the
ideal ranking in the limit, and the real GPT-2 outputs on SST-2 of tests/data/multiclass (SOURCE.txt there).
"""
from __future__ import annotations

import numpy as np
import paths
import pytest
from scipy.special import softmax

import llrcore as lc


def aurc_by_definition(confidence: np.ndarray, correct: np.ndarray) -> float:
    n = confidence.size
    kth = np.sort(confidence)[::-1]
    risks = []
    for i in range(1, n + 1):
        accepted = confidence >= kth[i - 1]  # the i-th most confident and every prediction tied with it
        risks.append(np.mean(~correct[accepted]))
    return float(np.mean(risks))


def test_hand_computed_example_with_a_tie():
    """Confidences 0.9 (right), 0.8 (wrong), 0.8 (right), 0.6 (wrong). Coverage 1/4: risk 0; 2/4 and 3/4 both accept
    the tied pair: risk 1/3; 4/4: risk 2/4. AURC = (0 + 1/3 + 1/3 + 1/2) / 4 = 7/24. The ideal ranking (2 right
    first): risks 0, 0, 1/3, 1/2, AURC* = 5/24; E-AURC = 2/24."""
    result = lc.aurc([0.9, 0.8, 0.8, 0.6], [True, False, True, False])
    assert result.aurc == pytest.approx(7 / 24, abs=1e-15)
    assert result.ideal_aurc == pytest.approx(5 / 24, abs=1e-15)
    assert result.e_aurc == pytest.approx(2 / 24, abs=1e-15)
    assert result.error_rate == 0.5
    assert list(result.curve["accepted"]) == [1, 3, 4]
    np.testing.assert_allclose(result.curve["risk"], [0, 1 / 3, 1 / 2])
    np.testing.assert_allclose(result.ideal_curve()["risk"], [0, 0, 1 / 3, 1 / 2])
    assert result.to_frame() is result.curve and "E-AURC 8.33 %" in result.sentence()


def test_ties_are_never_split_whatever_the_input_order():
    """A tied block of one right and one wrong prediction after a right one: listing the wrong one first or last
    changes nothing; coverages 2/3 and 3/3 both accept the block, risk 1/3: AURC = (0 + 1/3 + 1/3) / 3."""
    a = lc.aurc([0.5, 0.5, 0.9], [False, True, True])
    b = lc.aurc([0.5, 0.5, 0.9], [True, False, True])
    assert a.aurc == b.aurc == pytest.approx((0 + 1 / 3 + 1 / 3) / 3)


@pytest.mark.parametrize("seed", range(4))
def test_equals_the_definition_on_random_sets_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = 300
    confidence = np.round(rng.random(n), 1 + seed % 2)  # few distinct values: many ties
    correct = rng.random(n) < 0.3 + 0.6 * confidence
    result = lc.aurc(confidence, correct)
    assert result.aurc == pytest.approx(aurc_by_definition(confidence, correct), abs=1e-12)
    ideal = np.arange(n, 0, -1), np.arange(n) < correct.sum()  # distinct confidences, every right one first
    assert result.ideal_aurc == pytest.approx(aurc_by_definition(*ideal), abs=1e-12)


def test_real_llm_outputs_and_geifmans_limit():
    scores = np.load(paths.DATA / "multiclass" / "sst2_gpt2" / "scores.npy")
    labels = np.load(paths.DATA / "multiclass" / "sst2_gpt2" / "targets.npy")
    p = softmax(scores, axis=1)
    confidence, correct = p.max(axis=1), p.argmax(axis=1) == labels
    result = lc.aurc(confidence, correct)
    assert result.aurc == pytest.approx(aurc_by_definition(confidence, correct), abs=1e-12)
    r = result.error_rate
    assert r == pytest.approx(np.mean(~correct))
    assert result.ideal_aurc == pytest.approx(r + (1 - r) * np.log(1 - r), abs=1e-3)  # large-N limit
    assert 0 < result.e_aurc < result.aurc


@pytest.mark.parametrize("confidence, correct, message", [
    ([0.2, 0.3], [1], "as many"),
    ([0.2, np.nan], [1, 0], "finite"),
    ([0.2, 0.3], [1, 2], "True/False"),
])
def test_bad_input_is_one_sentence(confidence, correct, message):
    with pytest.raises(ValueError, match=message):
        lc.aurc(confidence, correct)
