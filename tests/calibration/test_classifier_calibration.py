"""The ML community's calibration metrics and temperature scaling: lc.binned_ece, lc.fit_temperature, and
lc.read_multiclass(score_type="probability").

Independent references:
- scikit-learn's ``calibration_curve`` (its bins and per-bin means, uniform and quantile, on forecasts off the edges);
- exact arithmetic (``fractions.Fraction``) for the equal-width edges k/M and a hand ECE with forecasts on an edge;
- Guo et al.'s ECE loop written out here (``conf > lower & conf <= upper``), and hand values for a four-forecast case;
- the published ECE of Ferrer & Ramos (TMLR 2025, Table 2; psrcal's ECE, 15 equal-width bins, in percent) for the four
  real systems of tests/data/multiclass (PUBLISHED.txt there): CIFAR-10 3.9, IEMOCAP 6.3, AG News 18.4, SST-2 20.0
  (top label) and 27.3 (binary, class 1), and their cross-validated temperature scaling ("calt" CE);
- a direct minimisation of the NLL over log T with ``scipy.optimize.minimize_scalar`` for the temperature;
- the affine calibrations of the project (``lc.fit_multiclass_affine``, ``lc.fit_affine``) on sets symmetric in their
  classes, where their offsets vanish and their scale must be 1/T.
"""
import io
import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax, softmax
from sklearn.calibration import calibration_curve

import llrcore as lc
import paths

DATA = paths.DATA / "multiclass"
SYSTEMS = ["sst2_gpt2", "iemocap_wav2vec_pt", "agnews_gpt2", "cifar10_resnet-20"]


def _logits(name):
    return np.load(DATA / name / "scores.npy").astype(np.float64), np.load(DATA / name / "targets.npy")


# ----- binned ECE ----------------------------------------------------------------------------------------------------


def test_four_forecasts_by_hand():
    result = lc.binned_ece(np.array([0.1, 0.2, 0.8, 0.9]), [0, 1, 1, 1], bins=2)
    # bin (0, .5]: confidence .15, accuracy .5; bin (.5, 1]: .85 and 1
    assert result.ece == pytest.approx(0.5 * 0.35 + 0.5 * 0.15)
    assert result.mce == pytest.approx(0.35)
    assert result.table["count"].tolist() == [2, 2]
    assert result.target == "binary"


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("bins", [5, 15, 40])
def test_the_bins_are_scikit_learns_calibration_curve(strategy, bins):
    logits, labels = _logits("sst2_gpt2")
    p = softmax(logits, axis=1)[:, 1]
    prob_true, prob_pred = calibration_curve(labels, p, n_bins=bins, strategy=strategy)
    table = lc.binned_ece(p, labels, bins=bins, strategy=strategy).table
    assert np.allclose(table["accuracy"], prob_true) and np.allclose(table["confidence"], prob_pred)


@pytest.mark.parametrize("bins", range(1, 61))
def test_a_forecast_of_k_over_m_falls_in_bin_k(bins):
    """Bins ((k-1)/M, k/M] with k/M the double nearest to it (``float(Fraction(k, M))``, exact arithmetic rounded
    once), 0 in bin 1: the forecasts k/M give counts 2, 1, ..., 1 and bin k's mean forecast is k/M; one unit in the
    last place above k/M is in bin k+1. np.linspace's edges put 5/7 in bin 6 (M = 7) and 3/10 in bin 4 (M = 10)."""
    exact = [float(Fraction(k, bins)) for k in range(bins + 1)]
    table = lc.binned_ece(np.array(exact), np.ones(bins + 1, int), bins=bins).table
    assert table["count"].tolist() == [2] + [1] * (bins - 1)
    assert table["upper"].tolist() == exact[1:] and table["confidence"].tolist()[1:] == exact[2:]
    above = np.nextafter(exact[1:-1], 1.0)
    if bins > 1:
        table = lc.binned_ece(above, np.ones(above.size, int), bins=bins).table
        assert table["lower"].tolist() == exact[1:-1] and table["count"].tolist() == [1] * (bins - 1)


def test_a_forecast_on_an_edge_moves_the_ece_by_its_bin():
    """M = 7, forecasts 5/7, 5/7, 3/4 with outcomes 1, 1, 0. Bin 5 = (4/7, 5/7] holds the two 5/7: gap 1 - 5/7 = 2/7;
    bin 6 = (5/7, 6/7] holds 3/4: gap 3/4. ECE = (2/3)(2/7) + (1/3)(3/4) = 4/21 + 1/4 = 37/84 (0.4405; with
    np.linspace's edge 5/7 falls in bin 6 too and the ECE would be |2/3 - (10/7 + 3/4)/3| = 5/84)."""
    result = lc.binned_ece(np.array([5 / 7, 5 / 7, 0.75]), [1, 1, 0], bins=7)
    assert result.ece == pytest.approx(float(Fraction(37, 84)), rel=1e-15)
    assert result.table["count"].tolist() == [2, 1]


def _guo_ece(confidence, correct, bins):
    """Guo et al.'s loop: equal-width bins closed on the right."""
    edges = np.linspace(0, 1, bins + 1)
    total, gaps = 0.0, []
    for lower, upper in itertools.pairwise(edges):
        inside = (confidence > lower) & (confidence <= upper)
        if inside.any():
            gap = abs(correct[inside].mean() - confidence[inside].mean())
            total += inside.mean() * gap
            gaps.append(gap)
    return total, max(gaps)


@pytest.mark.parametrize("name, published", [("cifar10_resnet-20", 3.9), ("iemocap_wav2vec_pt", 6.3),
                                             ("agnews_gpt2", 18.4), ("sst2_gpt2", 20.0)])
def test_the_top_label_ece_is_guo_s_and_the_published_one(name, published):
    logits, labels = _logits(name)
    probabilities = softmax(logits, axis=1)
    result = lc.binned_ece(probabilities, labels)
    ece, mce = _guo_ece(probabilities.max(axis=1), (probabilities.argmax(axis=1) == labels).astype(float), 15)
    assert result.ece == pytest.approx(ece, abs=1e-12) and result.mce == pytest.approx(mce, abs=1e-12)
    assert round(100 * result.ece, 1) == published


def test_the_binary_ece_of_sst2_is_the_published_one():
    logits, labels = _logits("sst2_gpt2")
    assert round(100 * lc.binned_ece(softmax(logits, axis=1)[:, 1], labels).ece, 1) == 27.3


def test_classwise_ece_is_the_mean_over_classes():
    logits, labels = _logits("iemocap_wav2vec_pt")
    probabilities = softmax(logits, axis=1)
    result = lc.binned_ece(probabilities, labels, bins=10, classwise=True)
    each = [_guo_ece(probabilities[:, k], (labels == k).astype(float), 10) for k in range(4)]
    assert result.ece == pytest.approx(np.mean([e for e, _ in each]))
    assert result.mce == pytest.approx(max(m for _, m in each))
    assert result.target == "classwise" and set(result.table["target"]) == {0, 1, 2, 3}


def test_the_ece_moves_with_the_bins_and_corp_does_not_ask_for_any():
    logits, labels = _logits("sst2_gpt2")
    p = softmax(logits, axis=1)[:, 1]
    values = {bins: lc.binned_ece(p, labels, bins=bins).ece for bins in (5, 10, 15, 30)}
    assert max(values.values()) - min(values.values()) > 0.01  # more than a point of ECE from the bins alone
    assert "bins" in lc.binned_ece(p, labels).sentence() and "PAV" in lc.binned_ece(p, labels).sentence()
    with pytest.raises(ValueError, match="strategy"):
        lc.binned_ece(p, labels, strategy="kmeans")
    with pytest.raises(ValueError, match="bins"):
        lc.binned_ece(p, labels, bins=0)


# ----- temperature scaling -------------------------------------------------------------------------------------------


def _direct_temperature(logits, labels):
    def nll(log_t):
        return -np.mean(log_softmax(logits / np.exp(log_t), axis=1)[np.arange(labels.size), labels])
    found = minimize_scalar(nll, bounds=(-5, 5), method="bounded", options={"xatol": 1e-10})
    return np.exp(found.x), found.fun


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_temperature_is_the_direct_minimum_of_the_nll(name):
    logits, labels = _logits(name)
    fitted = lc.fit_temperature(logits, labels)
    temperature, lowest = _direct_temperature(logits, labels)
    assert fitted.temperature == pytest.approx(temperature, rel=1e-6)
    assert fitted.nll_after <= lowest + 1e-12
    assert fitted.nll_after < fitted.nll_before


@pytest.mark.parametrize("name, published_ce", [("cifar10_resnet-20", 0.101), ("iemocap_wav2vec_pt", 0.618),
                                                ("agnews_gpt2", 0.797), ("sst2_gpt2", 0.858)])
def test_temperature_scaling_lowers_nll_and_ece_on_the_real_outputs(name, published_ce):
    logits, labels = _logits(name)
    fitted = lc.fit_temperature(logits, labels)
    # the published "calt" CE is cross-validated; fitted on the test set itself it can only be a little lower
    prior = np.bincount(labels) / labels.size
    normalised = fitted.nll_after / -(prior @ np.log(prior))
    assert published_ce - 0.01 < normalised < published_ce + 0.0005
    calibrated = fitted(logits)
    assert np.allclose(calibrated.sum(axis=1), 1)
    assert np.allclose(fitted.log_probabilities(logits), log_softmax(logits / fitted.temperature, axis=1))
    assert lc.binned_ece(calibrated, labels).ece < lc.binned_ece(softmax(logits, axis=1), labels).ece


def _symmetric_set(n_classes, rng):
    """Logits and labels closed under every cyclic shift of the classes: the affine offsets must vanish."""
    labels = rng.integers(0, n_classes, 200)
    logits = rng.normal(size=(200, n_classes)) * 2
    logits[np.arange(200), labels] += 2.5
    shifts = [np.roll(logits, s, axis=1) for s in range(n_classes)]
    return np.vstack(shifts), np.concatenate([(labels + s) % n_classes for s in range(n_classes)])


def test_temperature_is_the_multiclass_affine_calibration_without_offsets():
    logits, labels = _symmetric_set(4, np.random.default_rng(0))
    affine = lc.fit_multiclass_affine(logits, labels, prior="empirical")
    assert np.allclose(affine.offsets, 0, atol=1e-8)
    fitted = lc.fit_temperature(logits, labels)
    assert fitted.scale == pytest.approx(affine.scale, rel=1e-7)


def test_binary_temperature_is_the_affine_calibration_of_the_logit_difference():
    logits, labels = _symmetric_set(2, np.random.default_rng(1))
    s = logits[:, 1] - logits[:, 0]
    affine = lc.fit_affine(s[labels == 1], s[labels == 0], plo=0.0)  # balanced: plo = logit(1/2) = 0
    assert affine.offset == pytest.approx(0, abs=1e-8)
    assert lc.fit_temperature(logits, labels).scale == pytest.approx(affine.scale, rel=1e-7)


def test_temperature_errors_are_sentences():
    with pytest.raises(ValueError, match="separate the classes perfectly"):
        lc.fit_temperature(np.array([[2.0, 0], [0, 2.0]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="no better than chance"):
        lc.fit_temperature(np.array([[2.0, 0], [0, 2.0]]), np.array([1, 0]))
    with pytest.raises(ValueError, match="labels must be class numbers"):
        lc.fit_temperature(np.zeros((2, 2)), np.array([0, 2]))


# ----- reading classifier outputs ------------------------------------------------------------------------------------


def test_probabilities_are_read_from_a_table_and_an_npz():
    logits, labels = _logits("iemocap_wav2vec_pt")
    probabilities = softmax(logits, axis=1)
    table = pd.DataFrame(probabilities, columns=["anger", "happiness", "neutral", "sadness"]).assign(label=labels)
    buffer = io.BytesIO(table.to_csv(index=False).encode())
    read = lc.read_multiclass(buffer, score_type="probability")
    assert np.allclose(softmax(read.llrs, axis=1), probabilities) and np.array_equal(read.labels, labels)
    archive = io.BytesIO()
    np.savez(archive, probabilities=probabilities, targets=labels)
    archive.seek(0)
    assert np.allclose(softmax(lc.read_multiclass(archive, score_type="probabilities").llrs, axis=1), probabilities)
    bad = table.copy()
    bad.iloc[2, 1] = 1.5
    with pytest.raises(lc.LoadError, match="line 4: these are not probabilities"):
        lc.read_multiclass(io.BytesIO(bad.to_csv(index=False).encode()), score_type="probability")


# ----- the page's analysis and figures -------------------------------------------------------------------------------


def test_the_page_analysis_judges_raw_and_scaled_outputs_alike():
    logits, labels = _logits("cifar10_resnet-20")
    result = lc.classifier_calibration(logits, labels, n=20)
    temperature, lowest = _direct_temperature(logits, labels)
    frame = result.to_frame().set_index("version")
    assert frame.loc["scaled", "temperature"] == pytest.approx(temperature, rel=1e-6)
    assert frame.loc["scaled", "nll"] == pytest.approx(lowest, rel=1e-9)
    scaled = softmax(logits / temperature, axis=1)
    ece, _ = _guo_ece(scaled.max(axis=1), (scaled.argmax(axis=1) == labels).astype(float), 15)
    assert frame.loc["scaled", "ece"] == pytest.approx(ece, abs=1e-6)
    assert frame.loc["raw", "ece"] == pytest.approx(0.039, abs=0.0005)  # published 3.9 %
    assert frame.loc["scaled", "MCB"] < frame.loc["raw", "MCB"]
    assert result.accuracy == pytest.approx(1 - 0.074, abs=0.0005)  # published 1-ACC 0.074
    percent = result.to_frame(percent=True).set_index("version")  # the page's table: the cards' unit
    assert "ece" not in percent and round(percent.loc["raw", "ECE %"], 2) == 3.90
    assert percent["MCE %"].tolist() == [100 * v for v in frame["mce"]]


def test_the_reliability_figures_draw_the_results():
    from llrcore.plots import reliability

    logits, labels = _logits("sst2_gpt2")
    result = lc.classifier_calibration(logits, labels, target=1, n=20)
    corp_figure = reliability.corp_figure(result.corp)
    steps = [t for t in corp_figure.data if t.name and t.name.startswith("raw")]
    assert np.allclose(steps[0].y, result.corp["raw"].curve["recalibrated"])
    assert any("consistency band" in (t.name or "") for t in corp_figure.data)
    bars = reliability.decomposition_figure(result.corp).data
    assert [t.name.split()[0] for t in bars] == ["MCB", "DSC", "UNC"]
    assert np.allclose(bars[0].y, [result.corp["raw"].mcb, result.corp["scaled"].mcb])
    binned = reliability.binned_figure(result.binned).data
    assert np.allclose(binned[1].x, result.binned["raw"].table["confidence"])


def test_the_page_analysis_adds_the_smooth_ece_the_binned_errors_and_aurc():
    """Each version's smooth ECE, binned errors and risk-coverage are the standalone functions' on its probabilities
    (the top label's confidence ranks them), and the tables carry them in the cards' unit."""
    logits, labels = _logits("agnews_gpt2")
    result = lc.classifier_calibration(logits, labels, strategy="quantile", bins=10, n=20)
    t = result.temperature.temperature
    for version, probabilities in (("raw", softmax(logits, axis=1)), ("scaled", softmax(logits / t, axis=1))):
        alone = lc.calibration_errors(probabilities, labels, binning="equal-mass", bins=10)
        assert result.errors[version].ece == alone.ece and result.errors[version].rms_ce == alone.rms_ce
        assert result.smooth[version].smece == lc.smooth_ece(probabilities, labels, n=0).smece
        ranked = lc.aurc(probabilities.max(axis=1), probabilities.argmax(axis=1) == labels)
        assert result.selective[version].aurc == ranked.aurc and result.selective[version].e_aurc == ranked.e_aurc
    percent = result.to_frame(percent=True).set_index("version")
    assert percent.loc["raw", "smECE %"] == 100 * result.smooth["raw"].smece
    assert percent.loc["scaled", "E-AURC %"] == 100 * result.selective["scaled"].e_aurc
    errors = result.errors_frame(percent=True)
    assert list(errors.columns) == ["measure", "raw %", "scaled %", "binning", "definition"]
    assert errors["raw %"].tolist() == [100 * getattr(result.errors["raw"], k) for k in ("ece", "ace", "mce", "rms_ce")]
    assert set(errors["binning"]) == {"10 equal-mass bins"}


def test_the_smooth_and_risk_coverage_figures_draw_the_results():
    from llrcore.plots import reliability, selective

    logits, labels = _logits("sst2_gpt2")
    result = lc.classifier_calibration(logits, labels, n=20)
    smooth = reliability.smooth_figure(result.smooth)
    raw = next(t for t in smooth.data if (t.name or "").startswith("raw"))
    curve = result.smooth["raw"].curve
    dense = curve["density"] >= reliability.SPARSE * curve["density"].max()
    np.testing.assert_allclose(np.asarray(raw.y, dtype=float)[dense], curve["recalibrated"][dense])
    assert np.isnan(np.asarray(raw.y, dtype=float)[~dense]).all()
    assert "smooth ECE 19.08 %" in raw.name and any("bootstrap band" in (t.name or "") for t in smooth.data)
    assert smooth.layout.xaxis.title.text == "forecast probability" and smooth.layout.title.text
    risk = selective.risk_coverage_figure(result.selective)
    lines = {t.name.split(":")[0]: t for t in risk.data}
    assert set(lines) == {"ideal ranking", "accepting everything", "raw", "scaled"}
    curve = result.selective["raw"].curve
    assert_on_the_steps(lines["raw"], curve["coverage"].to_numpy(), curve["risk"].to_numpy())
    assert (lines["raw"].x[0], lines["raw"].y[0]) == (0, 100 * curve["risk"].iloc[0])
    assert (lines["raw"].x[-1], lines["raw"].y[-1]) == (100, 100 * curve["risk"].iloc[-1])
    assert f"AURC {100 * result.selective['raw'].aurc:.2f} %" in lines["raw"].name
    assert "%" in risk.layout.xaxis.title.text and "%" in risk.layout.yaxis.title.text


def assert_on_the_steps(trace, coverage: np.ndarray, risk: np.ndarray) -> None:
    """Every point drawn (in percent) is a corner of the step curve: at the coverage ``C_b`` a block ends at (or 0),
    the risk of the block ending there or of the next, which spans ``(C_b, C_{b+1}]``."""
    bounds = np.r_[0.0, coverage]
    x, y = np.asarray(trace.x, dtype=float) / 100, np.asarray(trace.y, dtype=float) / 100
    b = np.clip(np.searchsorted(bounds, x - 1e-12), 0, coverage.size)
    np.testing.assert_allclose(bounds[b], x, rtol=0, atol=1e-12)
    ending, starting = risk[np.maximum(b - 1, 0)], risk[np.minimum(b, risk.size - 1)]
    assert np.all(np.isclose(y, ending, rtol=0, atol=1e-12) | np.isclose(y, starting, rtol=0, atol=1e-12))


def test_the_risk_coverage_figure_of_many_predictions_is_decimated_on_its_steps():
    """100,000 predictions of distinct confidences make 100,000 steps: each drawn curve keeps at most 2,000 points
    (DESIGN.md: plot data decimated in plot space), every one a corner of the true curve: ``(i/N, risk(i))`` or
    ``((i-1)/N, risk(i))`` with ``risk(i)`` the error rate of the ``i`` most confident, computed here by a cumulative
    sum; the ideal curve's points are on ``max(0, i - N_c) / i``."""
    from llrcore.plots import selective

    rng = np.random.default_rng(47)
    confidence = rng.random(100_000)
    correct = rng.random(100_000) < confidence
    errors = np.cumsum(~correct[np.argsort(-confidence)])
    i = np.arange(1, 100_001)
    risk = errors / i
    traces = {t.name.split(":")[0]: t for t in selective.risk_coverage_figure(
        {"raw": lc.aurc(confidence, correct)}).data}
    drawn, ideal = traces["raw"], traces["ideal ranking"]
    assert len(drawn.x) <= 2_000 and len(ideal.x) <= 2_000
    assert_on_the_steps(drawn, i / 100_000, risk)
    n_right = int(correct.sum())
    k = np.rint(np.asarray(ideal.x) / 100 * 100_000)[1:]
    np.testing.assert_allclose(np.asarray(ideal.y)[1:] / 100, np.maximum(0, k - n_right) / k, atol=1e-12)
