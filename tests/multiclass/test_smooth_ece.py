"""Tests of ``lc.smooth_ece`` and ``lc.smooth_ece_at`` (:mod:`llrcore.multiclass.smooth`).

Independent reference: relplot's own ``smECE``, ``smECE_sigma``, its kernel smoother and its KDE (Apple's
github.com/apple/ml-calibration, version 1.0.3), vendored test-only in ``tests/reference/relplot_smece.py`` (Apple's
licence and provenance there). Random sets of several sizes and seeds, and the real GPT-2 outputs on SST-2 and
AG News of tests/data/multiclass (SOURCE.txt there). The bootstrap band is checked against replicates rebuilt here
from llrcore's documented draws (``default_rng(seed).integers(0, N, N)`` per replicate) fed to relplot's code, and to
1e-12 against the interval and band printed by llrcore 5eece28, which smoothed the replicates one at a time.
"""
from __future__ import annotations

import numpy as np
import paths
import pytest
from reference import vendored
from scipy.special import softmax

import llrcore as lc

relplot = vendored("relplot_smece")
DATA = paths.DATA / "multiclass"


def top_label(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(probability matrix, labels, and the top label's (confidence, correct)) of a real classifier."""
    p = softmax(np.load(DATA / name / "scores.npy"), axis=1)
    labels = np.load(DATA / name / "targets.npy")
    return p, labels, np.stack([p.max(axis=1), (p.argmax(axis=1) == labels).astype(float)])


@pytest.mark.parametrize("size", [3, 40, 700, 20_000])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_relplot_smece_on_random_sets(size, seed):
    rng = np.random.default_rng(seed)
    f = rng.beta(0.7, 0.7, size) if seed == 2 else rng.random(size)
    y = (rng.random(size) < f ** (1 + seed)).astype(float)  # miscalibrated by a power, calibrated for seed 0
    result = lc.smooth_ece(f, y, n=0)
    value, sigma = relplot.smECE(f, y, return_width=True)
    assert result.smece == pytest.approx(value, abs=1e-6)
    assert result.sigma == sigma  # the same halvings, decided the same way
    assert result.interval is None and "lower" not in result.curve


@pytest.mark.parametrize("sigma", [0.003, 0.05, 0.2, 1.0])
def test_equals_relplot_at_a_fixed_width(sigma):
    rng = np.random.default_rng(5)
    f = rng.random(500)
    y = (rng.random(500) < 0.8 * f).astype(float)
    assert lc.smooth_ece_at(f, y, sigma) == pytest.approx(relplot.smECE_sigma(f, y, sigma), abs=1e-9)


@pytest.mark.parametrize("name", ["sst2_gpt2", "agnews_gpt2"])
def test_equals_relplot_on_real_llm_outputs(name):
    p, labels, (f, y) = top_label(name)
    result = lc.smooth_ece(p, labels, n=0)
    value, sigma = relplot.smECE(f, y, return_width=True)
    assert result.smece == pytest.approx(value, abs=1e-6)
    assert result.sigma == sigma
    mesh, curve = relplot.reliability_curve(f, y, sigma)
    np.testing.assert_allclose(result.curve["forecast"], mesh)
    np.testing.assert_allclose(result.curve["recalibrated"], curve, atol=1e-9)
    np.testing.assert_allclose(result.curve["density"], relplot.density(f, sigma), atol=1e-9)


def test_a_class_against_the_rest_and_binary_input():
    p, labels, _ = top_label("agnews_gpt2")
    f, y = p[:, 2], (labels == 2).astype(float)
    assert lc.smooth_ece(p, labels, target=2, n=0).smece == pytest.approx(relplot.smECE(f, y), abs=1e-6)
    binary = lc.smooth_ece(f, y, n=0)
    assert binary.target == "binary" and binary.smece == pytest.approx(relplot.smECE(f, y), abs=1e-6)


def test_bootstrap_band_repeats_relplot_on_the_documented_draws():
    """Replicate i draws ``rng.integers(0, N, N)`` (llrcore.uncertainty.draws): relplot's smECE on that resample, and
    its curve at the full data's width, give the interval's and the band's quantiles."""
    p, labels, (f, y) = top_label("sst2_gpt2")
    f, y, p, labels = f[:300], y[:300], p[:300], labels[:300]
    n, level = 40, 0.9
    result = lc.smooth_ece(p, labels, n=n, level=level, seed=3)
    rng = np.random.default_rng(3)
    values, curves = [], []
    for _ in range(n):
        i = rng.integers(0, f.size, f.size)
        values.append(relplot.smECE(f[i], y[i]))
        curves.append(relplot.reliability_curve(f[i], y[i], result.sigma)[1])
    np.testing.assert_allclose(result.interval, np.quantile(values, [0.05, 0.95]), atol=1e-6)
    lower, upper = np.quantile(curves, [0.05, 0.95], axis=0)
    np.testing.assert_allclose(result.curve["lower"], lower, atol=1e-6)
    np.testing.assert_allclose(result.curve["upper"], upper, atol=1e-6)
    assert result.interval[0] <= result.smece <= result.interval[1]
    assert result.to_frame() is result.curve
    assert "Smooth ECE" in result.sentence() and "90 % bootstrap interval" in result.sentence()


@pytest.mark.parametrize("forecasts, n, seed, interval, lower, upper", [
    ("sst2_gpt2", 50, 1, (0.17240511534316633, 0.20662616457083002), (60, 0.0320946343112199),
     (150, 0.5737319844648768)),
    # 50,000 forecasts: the replicates come in batches of 40, and widths below 0.01 each have a grid size of their own
    ("calibrated", 60, 4, (0.00851665900946145, 0.012230420149856383), (100, 0.4827006630857243),
     (100, 0.5283345858274954)),
])
def test_batched_replicates_keep_the_numbers_of_one_at_a_time(forecasts, n, seed, interval, lower, upper):
    """The interval and band of llrcore 5eece28, which smoothed the replicates one at a time (values printed there
    with ``repr``): smoothing them together in 2-D arrays repeats each one's arithmetic."""
    if forecasts == "calibrated":
        rng = np.random.default_rng(11)
        p = rng.random(50_000)
        labels = (rng.random(p.size) < p).astype(int)
    else:
        p, labels, _ = top_label(forecasts)
    result = lc.smooth_ece(p, labels, n=n, seed=seed)
    np.testing.assert_allclose(result.interval, interval, rtol=0, atol=1e-12)
    assert result.curve["lower"][lower[0]] == pytest.approx(lower[1], abs=1e-12)
    assert result.curve["upper"][upper[0]] == pytest.approx(upper[1], abs=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda: lc.smooth_ece([0.2, 1.3], [0, 1]), "between 0 and 1"),
    (lambda: lc.smooth_ece([0.2, 0.3], [0, 1, 1]), "one row per trial"),
    (lambda: lc.smooth_ece([0.2, 0.3], [0, 1], n=-1), "at least 0"),
    (lambda: lc.smooth_ece([0.2, 0.3], [0, 1], level=95), "between 0 and 1"),
    (lambda: lc.smooth_ece_at([0.2, 0.3], [0, 1], 0.0), "positive"),
])
def test_bad_input_is_one_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()
