"""CORP reliability (lc.corp): the PAV-recalibrated forecast, the decomposition S = MCB - DSC + UNC, the bands.

Independent references:
- scikit-learn's ``IsotonicRegression`` (which also pools equal forecasts) for the recalibrated curve;
- hand-computed values for a five-forecast case (PAV by hand, the Brier and log scores by hand);
- the closed forms of the uncertainty term (``ybar (1 - ybar)`` for Brier, the binary entropy in bits for log);
- binomial quantiles (``scipy.stats.binom``) for the consistency band of a two-valued forecast, where PAV never
  pools under the hypothesis of calibration and the band is that of a binomial proportion;
- the real classifier outputs of tests/data/multiclass (SST-2 GPT-2, CIFAR-10 ResNet-20; see their SOURCE.txt).
"""

import numpy as np
import pytest
from scipy.special import softmax
from scipy.stats import binom
from sklearn.isotonic import IsotonicRegression

import llrcore as lc
from llrcore.multiclass.corp import binary_forecasts
import paths

DATA = paths.DATA / "multiclass"


def _real(name):
    z = np.load(DATA / name / "scores.npy").astype(np.float64)
    return softmax(z, axis=1), np.load(DATA / name / "targets.npy")


def test_the_five_forecast_case_by_hand():
    p = np.array([0.1, 0.3, 0.3, 0.6, 0.8])
    y = np.array([0, 1, 0, 0, 1])
    # PAV by hand: means per forecast 0, 1/2 (two), 0, 1; the violation (1/2, 0) pools to 1/3
    result = lc.corp(p, y, "brier", n=0)
    assert result.curve["recalibrated"].tolist() == pytest.approx([0, 1 / 3, 1 / 3, 1])
    assert result.curve["count"].tolist() == [1, 2, 1, 1]
    assert result.score == pytest.approx(0.99 / 5)
    assert result.unc == pytest.approx(0.4 * 0.6)
    assert result.mcb == pytest.approx(0.99 / 5 - 2 / 15)
    assert result.dsc == pytest.approx(0.24 - 2 / 15)
    log = lc.corp(p, y, "log", n=0)
    by_hand = -(np.log2(0.9) + np.log2(0.3) + np.log2(0.7) + np.log2(0.4) + np.log2(0.8)) / 5
    recal = -(np.log2(1 / 3) + 2 * np.log2(2 / 3)) / 5  # one 1 and two 0s at 1/3; the 0 and the 1 that came true cost nothing
    assert log.score == pytest.approx(by_hand)
    assert log.mcb == pytest.approx(by_hand - recal)
    assert log.unc == pytest.approx(-(0.4 * np.log2(0.4) + 0.6 * np.log2(0.6)))


@pytest.mark.parametrize("target", ["top-label", 1])
def test_the_curve_is_scikit_learns_isotonic_regression(target):
    probabilities, labels = _real("sst2_gpt2")
    p, y = binary_forecasts(probabilities, labels, target)
    p = np.round(p, 3)  # ties on purpose: every block of equal forecasts must stay whole
    expected = IsotonicRegression(increasing=True).fit(p, y).predict(np.unique(p))
    curve = lc.corp(p, y, n=0).curve
    assert np.allclose(curve["forecast"], np.unique(p))
    assert np.allclose(curve["recalibrated"], expected, atol=1e-12)


@pytest.mark.parametrize("name", ["sst2_gpt2", "cifar10_resnet-20"])
@pytest.mark.parametrize("score", ["brier", "log"])
def test_the_decomposition_is_exact_and_its_terms_are_the_scores_of_the_three_forecasts(name, score):
    probabilities, labels = _real(name)
    result = lc.corp(probabilities, labels, score, n=0)
    assert result.score == pytest.approx(result.mcb - result.dsc + result.unc, abs=1e-12)
    p = probabilities.max(axis=1)
    y = (probabilities.argmax(axis=1) == labels).astype(float)
    r = IsotonicRegression(increasing=True, y_min=0, y_max=1).fit(p, y).predict(p)
    ybar = y.mean()

    def mean_score(f):
        if score == "brier":
            return np.mean((f - y) ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return -np.mean(np.where(y == 1, np.log2(f), np.log2(1 - f)))

    assert result.score == pytest.approx(mean_score(p))
    assert result.mcb == pytest.approx(mean_score(p) - mean_score(r), abs=1e-12)
    assert result.dsc == pytest.approx(mean_score(np.full_like(p, ybar)) - mean_score(r), abs=1e-12)
    closed_form = ybar * (1 - ybar) if score == "brier" else -(ybar * np.log2(ybar) + (1 - ybar) * np.log2(1 - ybar))
    assert result.unc == pytest.approx(closed_form)
    assert result.mcb >= 0 and result.dsc >= 0


def test_one_curve_serves_every_score_and_the_brier_decomposes_on_every_class():
    probabilities, labels = _real("cifar10_resnet-20")
    brier, log = (lc.corp(probabilities, labels, s, target=3, n=0) for s in ("brier", "log"))
    assert np.array_equal(brier.curve["recalibrated"], log.curve["recalibrated"])
    table = lc.corp_per_class(probabilities, labels)
    assert table["target"].tolist()[:2] == ["top-label", "0"] and len(table) == 11
    one = lc.corp(probabilities[:, 3], (labels == 3).astype(int), n=0)
    assert table.loc[4, "MCB"] == pytest.approx(one.mcb) and table.loc[4, "UNC"] == pytest.approx(0.1 * 0.9)
    assert np.allclose(table["mean_score"], table["MCB"] - table["DSC"] + table["UNC"])


def test_the_band_of_a_two_valued_forecast_is_the_binomial_band():
    p = np.repeat([0.2, 0.7], 400)
    result = lc.corp(p, np.zeros(p.size, int), n=4000, level=0.9, seed=3)
    bands = result.bands.set_index("forecast")
    for value in (0.2, 0.7):
        lower, upper = binom.ppf([0.05, 0.95], 400, value) / 400
        assert bands.loc[value, "lower"] == pytest.approx(lower, abs=1.5 / 400)
        assert bands.loc[value, "upper"] == pytest.approx(upper, abs=1.5 / 400)


def test_the_band_is_seeded_and_holds_a_calibrated_forecast():
    rng = np.random.default_rng(7)
    p = rng.beta(2, 2, 3000)
    y = (rng.random(p.size) < p).astype(int)
    a, b = (lc.corp(p, y, n=200, seed=1) for _ in range(2))
    assert a.bands.equals(b.bands)
    assert not a.bands.equals(lc.corp(p, y, n=200, seed=2).bands)
    band = a.bands.merge(a.curve[["forecast", "recalibrated"]], on="forecast")
    inside = (band["recalibrated"] >= band["lower"] - 1e-12) & (band["recalibrated"] <= band["upper"] + 1e-12)
    assert inside.mean() > 0.8  # pointwise 90 % bands: most of a calibrated forecaster's curve lies inside
    assert (band["lower"] <= band["forecast"] + 0.05).all() and (band["upper"] >= band["forecast"] - 0.05).all()


def test_a_miscalibrated_forecast_leaves_its_band():
    rng = np.random.default_rng(8)
    truth = rng.beta(2, 2, 3000)
    y = (rng.random(truth.size) < truth).astype(int)
    overconfident = 1 / (1 + np.exp(-3 * np.log(truth / (1 - truth))))
    band = lc.corp(overconfident, y, n=200).curve.dropna()
    outside = (band["recalibrated"] < band["lower"]) | (band["recalibrated"] > band["upper"])
    assert outside.mean() > 0.3


def test_result_and_errors():
    result = lc.corp(np.array([0.2, 0.4, 0.9]), [0, 1, 1], n=10)
    assert result.target == "binary" and list(result.to_frame().columns) == ["target", "score", "mean_score", "MCB",
                                                                              "DSC", "UNC"]
    assert "miscalibration" in result.sentence()
    with pytest.raises(ValueError, match="between 0 and 1"):
        lc.corp(np.array([0.2, 1.4]), [0, 1])
    with pytest.raises(ValueError, match="add up to 1"):
        lc.corp(np.array([[0.2, 0.4], [0.5, 0.5]]), [0, 1])
    with pytest.raises(ValueError, match="score must be"):
        lc.corp(np.array([0.2, 0.4]), [0, 1], "spherical")
    with pytest.raises(ValueError, match="class numbers from 0 to 1"):
        lc.corp(np.array([0.2, 0.4]), [0, 2])
