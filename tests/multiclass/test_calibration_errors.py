"""Tests of ``lc.calibration_errors`` (:mod:`llrcore.multiclass.errors`): ECE, ACE, MCE and RMS-CE with the binning
named.

Independent references: the four definitions (Naeini et al. 2015, Guo et al. 2017, Nixon et al. 2019, Hendrycks et
al. 2019) computed by hand in exact fractions on small sets shown in the tests, and a plain loop over the bins
written here (bins assigned one forecast at a time; equal-mass edges as scikit-learn's ``calibration_curve`` places
them, ``np.percentile(p, np.linspace(0, 1, M + 1) * 100)``) on the real GPT-2 outputs
on AG News of tests/data/multiclass (SOURCE.txt there).
"""
from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import paths
import pytest
from scipy.special import softmax

import llrcore as lc

DATA = paths.DATA / "multiclass"


def test_hand_computed_equal_width():
    """p = 0.1, 0.2, 0.3, 0.9 with outcomes 0, 1, 1, 1 in 2 bins: (0, 1/2] holds 3 forecasts, mean 1/5, mean outcome
    2/3, gap 7/15; (1/2, 1] holds 0.9 with outcome 1, gap 1/10.
    ECE = 3/4 * 7/15 + 1/4 * 1/10 = 3/8; ACE = (7/15 + 1/10) / 2 = 17/60; MCE = 7/15;
    RMS-CE = sqrt(3/4 * 49/225 + 1/4 * 1/100) = sqrt(199/1200)."""
    errors = lc.calibration_errors([0.1, 0.2, 0.3, 0.9], [0, 1, 1, 1], bins=2)
    assert errors.ece == pytest.approx(float(F(3, 8)), abs=1e-15)
    assert errors.ace == pytest.approx(float(F(17, 60)), abs=1e-15)
    assert errors.mce == pytest.approx(float(F(7, 15)), abs=1e-15)
    assert errors.rms_ce == pytest.approx(np.sqrt(float(F(199, 1200))), abs=1e-15)
    assert errors.binning == "equal-width" and errors.binning_name == "2 equal-width bins"
    frame = errors.to_frame(percent=True)
    assert list(frame["measure"]) == ["ECE", "ACE", "MCE", "RMS-CE"]
    assert frame["value %"].iloc[0] == pytest.approx(37.5)
    assert set(frame["binning"]) == {"2 equal-width bins"}


def test_empty_bins_are_left_out_and_named():
    """Forecasts 0.05 and 0.95 in 10 equal-width bins: 8 bins are empty. Only the two others count: gaps
    0 - 0.05 and 1 - 0.95, so ACE = 0.05 (an empty bin counted as a zero gap would give 0.01)."""
    errors = lc.calibration_errors([0.05, 0.95], [0, 1], bins=10)
    assert len(errors.table) == 2
    assert errors.ace == pytest.approx(0.05)
    assert errors.binning_name == "10 equal-width bins, 2 non-empty"
    assert "2 non-empty" in errors.sentence()


def test_hand_computed_equal_mass():
    """Six forecasts in 3 equal-mass bins hold two each: (0.1, 0.2) with outcomes (0, 0), (0.4, 0.6) with (1, 0),
    (0.7, 0.8) with (1, 1): gaps -0.15, 0, 0.25; ECE = (0.15 + 0 + 0.25) / 3 = 0.4/3 = ACE; MCE 0.25;
    RMS-CE = sqrt((0.0225 + 0.0625) / 3)."""
    errors = lc.calibration_errors([0.1, 0.2, 0.4, 0.6, 0.7, 0.8], [0, 0, 1, 0, 1, 1], binning="equal-mass", bins=3)
    assert list(errors.table["count"]) == [2, 2, 2]
    assert errors.ece == pytest.approx(0.4 / 3) and errors.ace == pytest.approx(0.4 / 3)
    assert errors.mce == pytest.approx(0.25)
    assert errors.rms_ce == pytest.approx(np.sqrt(0.085 / 3))


def loop_errors(p: np.ndarray, y: np.ndarray, edges: np.ndarray) -> tuple[float, float, float, float]:
    """The four definitions with one forecast placed at a time in its right-closed bin (the first includes 0)."""
    bins: dict[int, list[tuple[float, float]]] = {}
    for forecast, outcome in zip(p, y):
        b = next(k for k in range(len(edges) - 1) if forecast <= edges[k + 1] or k == len(edges) - 2)
        bins.setdefault(b, []).append((forecast, outcome))
    gaps = np.array([np.mean([o for _, o in v]) - np.mean([f for f, _ in v]) for v in bins.values()])
    share = np.array([len(v) for v in bins.values()]) / len(p)
    return (float(np.sum(share * np.abs(gaps))), float(np.mean(np.abs(gaps))), float(np.max(np.abs(gaps))),
            float(np.sqrt(np.sum(share * gaps ** 2))))


@pytest.mark.parametrize("binning", ["equal-width", "equal-mass"])
def test_real_llm_outputs_against_a_plain_loop(binning):
    probabilities = softmax(np.load(DATA / "agnews_gpt2" / "scores.npy").astype(np.float64), axis=1)
    labels = np.load(DATA / "agnews_gpt2" / "targets.npy")
    p, y = probabilities.max(axis=1), (probabilities.argmax(axis=1) == labels).astype(float)
    edges = np.arange(16) / 15 if binning == "equal-width" else np.percentile(p, np.linspace(0, 1, 16) * 100)
    errors = lc.calibration_errors(probabilities, labels, binning=binning)
    np.testing.assert_allclose([errors.ece, errors.ace, errors.mce, errors.rms_ce], loop_errors(p, y, edges),
                               rtol=1e-12)
    assert errors.ece == lc.binned_ece(probabilities, labels, 15, "uniform" if binning == "equal-width"
                                       else "quantile").ece


def test_bad_binning_is_one_sentence():
    with pytest.raises(ValueError, match="binning must be one of equal-width, equal-mass"):
        lc.calibration_errors([0.2, 0.7], [0, 1], binning="uniform")
