"""Tests of ``lc.ece_conventions`` (:mod:`llrcore.multiclass.ece_conventions`): the binned ECE as each tool computes it.

Independent references:

- scikit-learn's own ``sklearn.calibration.calibration_curve`` (its per-bin means; the counts by the one line of its
  code that bins, ``np.searchsorted(bins[1:-1], y_prob)``);
- netcal's ``ECE`` (``netcal/metrics/Miscalibration.py``), vendored test-only in ``tests/reference/netcal_ece.py``
  (Apache-2.0, provenance there);
- torchmetrics' ``binary_calibration_error`` / ``multiclass_calibration_error``, vendored test-only (torch made numpy
  float32) in ``tests/reference/torchmetrics_calibration_error.py`` (Apache-2.0, provenance there);
- Guo et al.'s definition by hand (exact fractions) on small cases, and ``lc.binned_ece`` on the top label.

Real data: the four classifiers of tests/data/multiclass (CIFAR-10, IEMOCAP, AG News, SST-2; PUBLISHED.txt there).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.calibration import calibration_curve

import llrcore as lc
from reference import vendored
import paths
from paths import ROOT

DATA = paths.DATA / "multiclass"
SYSTEMS = ["sst2_gpt2", "iemocap_wav2vec_pt", "agnews_gpt2", "cifar10_resnet-20"]
ROWS = ["guo", "sklearn", "netcal", "torchmetrics"]


NETCAL = vendored("netcal_ece")
TORCHMETRICS = vendored("torchmetrics_calibration_error")


def _real(name, binary):
    probabilities = softmax(np.load(DATA / name / "scores.npy").astype(np.float64), axis=1)
    labels = np.load(DATA / name / "targets.npy")
    return (probabilities[:, 1], labels) if binary else (probabilities, labels)


def _on_the_edges(seed, n_classes):
    """Forecasts on the grid k/M of several M (10, 7, 30, 15 share edges with other M), and exact 1.0."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    m = int(rng.choice([5, 7, 10, 15, 30]))
    top = rng.integers(0, m + 1, n) / m
    if n_classes == 1:
        return top, (rng.random(n) < top).astype(int)
    # the top class gets k/M (at least 1/K), the rest share what is left
    top = np.maximum(top, 1 / n_classes)
    rest = rng.dirichlet(np.ones(n_classes - 1), n) * (1 - top)[:, None]
    labels = rng.integers(0, n_classes, n)
    first = rng.integers(0, n_classes, n)
    matrix = np.insert(rest, 0, top, axis=1)
    matrix = np.array([np.roll(row, k) for row, k in zip(matrix, first)])
    return matrix, labels


def _table(probabilities, labels, bins):
    return dict(zip(ROWS, lc.ece_conventions(probabilities, labels, bins)["ECE"]))


def _sklearn_ece(probabilities, labels, bins):
    p = probabilities if probabilities.ndim == 1 else probabilities[:, 1]
    y = (labels == 1).astype(int)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=bins)
    count = np.bincount(np.searchsorted(np.linspace(0.0, 1.0, bins + 1)[1:-1], p), minlength=bins)
    return float(np.sum(count[count > 0] * np.abs(prob_true - prob_pred)) / p.size)


def _torchmetrics_ece(probabilities, labels, bins):
    if probabilities.ndim == 1:
        return TORCHMETRICS.binary_calibration_error(probabilities, labels, bins)
    return TORCHMETRICS.multiclass_calibration_error(probabilities, labels, bins)


def _cases():
    for name in SYSTEMS:
        for binary in (True, False):
            if binary and name != "sst2_gpt2":
                continue
            yield f"{name}-{'binary' if binary else 'matrix'}", lambda n=name, b=binary: _real(n, b)
    for seed in range(12):
        yield f"edges-{seed}", lambda s=seed: _on_the_edges(s, (1, 2, 3, 5)[s % 4])


CASES = dict(_cases())


@pytest.fixture(params=list(CASES))
def case(request):
    return CASES[request.param]()


@pytest.mark.parametrize("bins", [7, 10, 15])
def test_sklearn_row_is_calibration_curve(case, bins):
    probabilities, labels = case
    assert _table(probabilities, labels, bins)["sklearn"] == pytest.approx(
        _sklearn_ece(probabilities, labels, bins), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("bins", [7, 10, 15])
def test_netcal_row_is_netcal(case, bins):
    probabilities, labels = case
    assert _table(probabilities, labels, bins)["netcal"] == pytest.approx(
        NETCAL.ece(probabilities, labels, bins), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("bins", [7, 10, 15])
def test_torchmetrics_row_is_torchmetrics(case, bins):
    """Same bins; torchmetrics sums in float32, so the values agree to float32's precision."""
    probabilities, labels = case
    assert _table(probabilities, labels, bins)["torchmetrics"] == pytest.approx(
        _torchmetrics_ece(probabilities, labels, bins), rel=2e-6, abs=1e-7)


@pytest.mark.parametrize("bins", [7, 10, 15])
def test_guo_row_is_the_top_label_binned_ece(case, bins):
    probabilities, labels = case
    matrix = probabilities if probabilities.ndim == 2 else np.column_stack([1 - probabilities, probabilities])
    assert _table(probabilities, labels, bins)["guo"] == lc.binned_ece(matrix, labels, bins=bins).ece


def test_hand_example():
    """p(class 1) = 0.3, 0.3, 0.7, 1.0 with labels 1, 0, 1, 1 and M = 5.

    Guo (top label): confidences 0.7, 0.7, 0.7, 1.0, right 0, 1, 1, 1: bin (0.6, 0.8] has accuracy 2/3 against
    0.7 (gap 1/30, weight 3/4), bin (0.8, 1] is exact: ECE 1/40. Class 1 (scikit-learn, netcal): bin (0.2, 0.4]
    accuracy 1/2 against 0.3 (gap 1/5, weight 1/2), bin (0.6, 0.8] 1 against 0.7 (gap 3/10, weight 1/4): 7/40.
    torchmetrics bins class 1 too (1.0 alone in its extra bin, exact): 7/40 to float32's precision."""
    table = _table(np.array([0.3, 0.3, 0.7, 1.0]), np.array([1, 0, 1, 1]), 5)
    assert table["guo"] == pytest.approx(float(Fraction(1, 40)), rel=1e-12)
    assert table["sklearn"] == pytest.approx(float(Fraction(7, 40)), rel=1e-12)
    assert table["netcal"] == pytest.approx(float(Fraction(7, 40)), rel=1e-12)
    assert table["torchmetrics"] == pytest.approx(float(Fraction(7, 40)), rel=1e-6)


def test_torchmetrics_puts_a_confidence_of_one_in_a_bin_of_its_own():
    """p(class 1) = 1.0, 1.0, 0.95 with labels 1, 0, 1 and M = 10. The others put all three in (0.9, 1] (netcal: 1.0
    clipped to 1 - eps, in [0.9, 1)): accuracy 2/3 against 59/60, ECE 19/60. torchmetrics: 0.95 alone in [0.9, 1)
    (gap 1/20, weight 1/3), the two 1.0 in bin 11 (accuracy 1/2, gap 1/2, weight 2/3): 1/60 + 1/3 = 21/60."""
    table = _table(np.array([1.0, 1.0, 0.95]), np.array([1, 0, 1]), 10)
    assert table["sklearn"] == pytest.approx(19 / 60, rel=1e-12)
    assert table["netcal"] == pytest.approx(19 / 60, rel=1e-12)
    assert table["torchmetrics"] == pytest.approx(21 / 60, rel=1e-6)
    assert TORCHMETRICS.binary_calibration_error([1.0, 1.0, 0.95], [1, 0, 1], 10) == pytest.approx(21 / 60, rel=1e-6)


def test_frame_percent_and_bad_input():
    probabilities, labels = _real("cifar10_resnet-20", False)
    frame = lc.ece_conventions(probabilities, labels, percent=True)
    assert list(frame.columns) == ["convention", "ECE %", "why"] and len(frame) == 4
    assert frame["ECE %"].iloc[0] == pytest.approx(100 * lc.binned_ece(probabilities, labels).ece, rel=1e-15)
    assert all(why.endswith(".") and why.count(". ") == 0 for why in frame["why"])  # one sentence each
    with pytest.raises(ValueError, match="between 0 and 1"):
        lc.ece_conventions([0.2, 1.5], [0, 1])
    with pytest.raises(ValueError, match="bins"):
        lc.ece_conventions([0.2, 0.5], [0, 1], bins=0)


def test_a_classifier_read_as_logits_is_its_softmax():
    """What the Classifier page passes: the outputs read as logits; the table is that of softmax(logits)."""
    folder = DATA / "cifar10_resnet-20"
    scores = lc.read_multiclass(folder / "scores.npy", labels=folder / "targets.npy", score_type="logit")
    probabilities, labels = _real("cifar10_resnet-20", False)
    assert lc.ece_conventions(scores, bins=10)["ECE"].tolist() == pytest.approx(
        lc.ece_conventions(probabilities, labels, 10)["ECE"].tolist(), rel=1e-12)
    with pytest.raises(ValueError, match="labels"):
        lc.ece_conventions(probabilities)


def test_docs_worked_example_is_the_library():
    """docs/conventions.md, section ECE: the worked example's ECE % (arithmetic shown there) is the library's."""
    import re

    doc = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    section = doc[doc.index("## ECE"):]
    printed = re.findall(r"^\| (.+?) \| (\d+\.\d{2}) \|$", section, flags=re.MULTILINE)
    table = lc.ece_conventions([0.3, 0.3, 0.7, 0.9, 1.0], [1, 0, 1, 1, 0], bins=5, percent=True)
    assert printed == [(name, f"{value:.2f}") for name, value in zip(table["convention"], table["ECE %"])]
    assert [float(v) for _, v in printed] == [20.0, 32.0, 32.0, 36.0]  # 0.20, 0.32, 0.32, 0.36 by hand
