"""Tests of :mod:`llrcore.forensic`: Tippett curves, ECE, ELUB bounds, devPAV, Cllr_cal and the ENFSI verbal scale.

Independent references:

- direct counts with numpy (``np.mean(tar >= x)``, ``np.mean(tar < 0)``) for the Tippett curves and the rates of
  misleading evidence, ties included;
- the ECE formula of Ramos & González-Rodríguez written out with numpy/scipy (``-log2 sigmoid``), lir's
  ``calculate_ece`` (in LRs and prior log10-odds) with lir's ``IsotonicCalibrator`` for the PAV curve, ``lc.cllr``
  (ECE at prior odds 1) and affine fits at each prior (no monotone transform beats the PAV);
- the minimum of the ECE over monotone transforms at each prior, found without llrcore: scikit-learn's
  ``IsotonicRegression`` of the labels with the prior's weights ``P/N_tar`` and ``(1-P)/N_non`` (its posteriors
  scored), and scipy's L-BFGS-B over every non-decreasing map of the distinct LLRs (``c + cumsum(d)``, ``d >= 0``);
- the NFI's ``lir`` 1.3: ``lir.algorithms.bayeserror.elub`` and ``ELUBBounder`` for the ELUB bounds (to the last
  digit), ``calculate_expected_utility`` on a fine grid for the grid-free bounds, ``lir.metrics.devpav.devpav`` and
  ``lir.metrics.cllr_cal`` for devPAV and Cllr_cal, lir's own test cases (AlcoholBreathAnalyser of Vergeer et al.
  2016, its published bounds 0.1122018 and 79.4328235) and the three places devPAV departs from lir on purpose;
- the bands of the ENFSI guideline (2015) as stated in LRs.

Real data: the cartridge-case log10 LRs of lir's test suite (``tests/data/lir_cartridge_case_llrs``, read with numpy)
and the FVC-AUS demo (``assets/fvcaus_plda``, read with ``lc.read_trials``); synthetic Gaussian LLRs besides, and
synthetic files of log10 LRs written with 1, 2 or 3 decimals or full precision, as forensic score files are (values
on lir's 0.01 grid of thresholds, ties), read back with ``lc.read_class_files(..., scale="log10")``.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from lir.algorithms.bayeserror import ELUBBounder, calculate_expected_utility, elub
from lir.algorithms.isotonic_regression import IsotonicCalibrator
from lir.data.datasets.alcohol_breath_analyser import AlcoholBreathAnalyser
from lir.data.models import LLRData
from lir.metrics import cllr as lir_cllr
from lir.metrics import cllr_cal as lir_cllr_cal
from lir.metrics import cllr_min as lir_cllr_min
from lir.metrics.devpav import devpav as lir_devpav
from lir.plotting.expected_calibration_error import calculate_ece
from scipy import optimize
from scipy.special import expit
from sklearn.isotonic import IsotonicRegression

import llrcore as lc
from llrcore.forensic import VERBAL_BANDS, verbal_scale_table
from paths import ROOT

CARTRIDGE = ROOT / "tests" / "data" / "lir_cartridge_case_llrs"
LN10 = np.log(10.0)


def load_cartridge_log10() -> tuple[np.ndarray, np.ndarray]:
    """Same-source (KM) and different-source (KNM) log10 LRs, one value per line."""
    return np.loadtxt(CARTRIDGE / "LLR_KM.csv"), np.loadtxt(CARTRIDGE / "LLR_KNM.csv")


@pytest.fixture(scope="module")
def cartridge() -> lc.Trials:
    km, knm = load_cartridge_log10()
    assert (km.size, knm.size) == (188, 477)
    return lc.Trials(lc.from_log10(km), lc.from_log10(knm), name="cartridge cases")


@pytest.fixture(scope="module")
def fvcaus() -> lc.Trials:
    trials = lc.read_trials(ROOT / "assets" / "fvcaus_plda" / "fvcaus_plda.npz")
    assert (trials.tar.size, trials.non.size) == (1964, 112108)  # SOURCE.txt
    return trials


def gaussian_sets():
    """Calibrated Gaussian LLRs (means +-mu, variance 2 mu) and over-confident ones (scaled by 3), several sizes."""
    rng = np.random.default_rng(7)
    sets = []
    for mu, n_tar, n_non, scale in ((2.0, 300, 300, 1.0), (4.0, 100, 1000, 1.0), (1.0, 500, 200, 3.0),
                                    (6.0, 50, 2000, 0.5)):
        tar = rng.normal(mu, np.sqrt(2 * mu), n_tar) * scale
        non = rng.normal(-mu, np.sqrt(2 * mu), n_non) * scale
        sets.append(lc.Trials(tar, non, name=f"mu={mu}, scale={scale}"))
    return sets


def alcohol_sets():
    """lir's AlcoholBreathAnalyser (Vergeer et al. 2016), well and ill calibrated, as natural-log Trials."""
    sets = []
    for ill in (False, True):
        data = AlcoholBreathAnalyser(ill_calibrated=ill).get_instances()
        log10, labels = np.asarray(data.llrs, dtype=float), np.asarray(data.labels)
        sets.append(lc.Trials(lc.from_log10(log10[labels == 1]), lc.from_log10(log10[labels == 0]),
                              name=f"alcohol ill={ill}"))
    return sets


def lir_xy(trials: lc.Trials) -> tuple[np.ndarray, np.ndarray]:
    """lir's input: log10 LLRs of all trials and labels (1 = H1), fresh arrays (lir's elub clips its input in place)."""
    return (np.concatenate([lc.to_log10(trials.tar), lc.to_log10(trials.non)]),
            np.concatenate([np.ones(trials.tar.size), np.zeros(trials.non.size)]))


def real_and_synthetic(cartridge, fvcaus):
    return [cartridge, fvcaus, *alcohol_sets(), *gaussian_sets()]


# ----- units -------------------------------------------------------------------------------------------------------


def test_log10_conversion_both_ways():
    assert lc.to_log10(np.log(1000.0)) == pytest.approx(3.0, rel=1e-15)
    assert lc.from_log10(2.0) == pytest.approx(np.log(100.0), rel=1e-15)
    values = np.linspace(-5, 5, 101)
    np.testing.assert_allclose(lc.to_log10(lc.from_log10(values)), values, rtol=2e-16, atol=1e-15)
    assert isinstance(lc.to_log10(1.0), float) and lc.to_log10(np.ones(3)).shape == (3,)


# ----- Tippett -----------------------------------------------------------------------------------------------------


def test_tippett_proportions_are_a_direct_count_with_ties():
    tar = np.array([-1.0, 0.0, 0.0, 0.5, 0.5, 0.5, 2.0, np.inf])
    non = np.array([-np.inf, -3.0, -1.0, -1.0, 0.0, 0.5, 1.0])
    result = lc.tippett(tar, non, name="ties")
    expected_values = np.unique(np.concatenate([tar, non]))
    np.testing.assert_array_equal(result.llr, expected_values)
    np.testing.assert_array_equal(result.same_source, [np.mean(tar >= v) for v in expected_values])
    np.testing.assert_array_equal(result.different_source, [np.mean(non >= v) for v in expected_values])
    # ties at 0: an LR of exactly 1 is misleading for neither class
    assert result.misleading_same_source == np.mean(tar < 0) == 1 / 8
    assert result.misleading_different_source == np.mean(non > 0) == 2 / 7
    frame = result.to_frame()
    assert list(frame.columns) == ["llr", "log10_lr", "same_source", "different_source"]
    np.testing.assert_array_equal(frame["log10_lr"], expected_values / LN10)
    table = result.misleading_frame()
    assert table["misleading"].tolist() == [1, 2] and table["trials"].tolist() == [8, 7]


def test_tippett_on_real_data(cartridge, fvcaus):
    km, knm = load_cartridge_log10()
    for trials, tar10, non10 in ((cartridge, km, knm), (fvcaus, fvcaus.tar / LN10, fvcaus.non / LN10)):
        result = lc.tippett(trials)
        assert result.name == trials.name
        grid = result.log10_lr[:: max(1, result.llr.size // 500)]
        idx = np.searchsorted(result.log10_lr, grid)
        # counted on the log10 values (the units of the source files), at the same points
        np.testing.assert_array_equal(result.same_source[idx],
                                      [np.mean(trials.tar >= v) for v in result.llr[idx]])
        np.testing.assert_allclose(result.different_source[idx], [np.mean(non10 >= v) for v in grid], atol=0.005)
        assert result.misleading_same_source == np.mean(tar10 < 0)
        assert result.misleading_different_source == np.mean(non10 > 0)
    assert lc.tippett(cartridge).n_misleading_same_source == 47  # count with awk: 47 of 188 KM values below 0


# ----- ECE ---------------------------------------------------------------------------------------------------------


def direct_ece(tar, non, plo):
    """ECE in bits written out: P mean(-log2 P(H1|l)) + (1 - P) mean(-log2 P(H2|l))."""
    p = expit(plo)
    return p * np.mean(-np.log2(expit(tar + plo))) + (1 - p) * np.mean(-np.log2(expit(-(non + plo))))


def test_ece_at_prior_odds_one_is_cllr(cartridge, fvcaus):
    for trials in (cartridge, fvcaus):
        expected = lc.cllr(trials.tar, trials.non)
        for value in (lc.ece(trials, plo=0.0), lc.ece(trials.tar, trials.non), lc.ece(trials.tar, trials.non, plo=0.0),
                      lc.ece_curve(trials).system[120], lc.ece_curve(trials).cllr):
            assert value == pytest.approx(expected, rel=1e-15, abs=0)
        curve = lc.ece_curve(trials)
        assert curve.prior_log10_odds[120] == 0.0
        assert curve.pav[120] == pytest.approx(lc.min_cllr(trials), rel=1e-15, abs=0)
        assert curve.cllr_cal == pytest.approx(lc.cllr(trials) - lc.min_cllr(trials), rel=1e-14)


def test_ece_is_the_formula_and_lirs(cartridge, fvcaus):
    priors10 = np.array([-2.5, -1.0, -0.3, 0.0, 0.7, 2.0])
    for trials in (cartridge, fvcaus, *gaussian_sets()):
        values = lc.ece(trials, plo=lc.from_log10(priors10))
        np.testing.assert_allclose(values, [direct_ece(trials.tar, trials.non, p) for p in lc.from_log10(priors10)],
                                   rtol=1e-12)
    # lir works with probabilities, 1 - P(H1|LR) for a different-source LR of 10^15 keeps one digit and one of 10^76
    # none (its ECE is inf there): compared where the LRs are moderate, on the Gaussian sets
    for trials in gaussian_sets():
        llr10, labels = lir_xy(trials)
        lir_values = calculate_ece(10.0**llr10, labels.astype(int), expit(lc.from_log10(priors10)))
        np.testing.assert_allclose(lc.ece(trials, plo=lc.from_log10(priors10)), lir_values, rtol=1e-8)


def test_ece_curve_pav_and_reference_against_lir():
    for trials in gaussian_sets():  # moderate LRs, where lir's probabilities keep their digits
        curve = lc.ece_curve(trials, plo=lc.from_log10(np.linspace(-3, 3, 25)))
        llr10, labels = lir_xy(trials)
        pav10 = IsotonicCalibrator().fit_transform(llr10, labels.astype(int))
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            lir_pav = calculate_ece(10.0**pav10, labels.astype(int), curve.p_target)
            lir_reference = calculate_ece(np.ones_like(llr10), labels.astype(int), curve.p_target)
        np.testing.assert_allclose(curve.pav, lir_pav, rtol=1e-9)
        np.testing.assert_allclose(curve.reference, lir_reference, rtol=1e-12)
        assert np.all(curve.pav <= curve.system + 1e-15)
        frame = curve.to_frame()
        assert list(frame.columns) == ["prior_log10_odds", "plo", "p_target", "ece", "ece_pav", "ece_reference"]


def test_pav_ece_is_below_every_affine_recalibration_at_every_prior(cartridge):
    """PAV optimality: at each prior, the affine calibration trained for that very prior (lc.fit_affine, whose
    objective is the ECE there up to ln 2) does not beat the PAV curve; nor do a few other monotone maps."""
    priors10 = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    curve = lc.ece_curve(cartridge, plo=lc.from_log10(priors10))
    for k, plo in enumerate(curve.plo):
        affine = lc.fit_affine(cartridge.tar, cartridge.non, plo=plo)
        assert curve.pav[k] <= lc.ece(affine(cartridge.tar), affine(cartridge.non), plo=plo) + 1e-12
        for transform in (np.tanh, lambda x: x / 3, lambda x: np.minimum(x, 3.0), np.cbrt):
            assert curve.pav[k] <= lc.ece(transform(cartridge.tar), transform(cartridge.non), plo=plo) + 1e-12


def isotonic_ece(trials: lc.Trials, plo: float) -> float:
    """The least ECE (bits) of any non-decreasing map of the LLRs at prior log-odds plo: scikit-learn's isotonic
    regression of the labels, weighted P/N_tar and (1-P)/N_non, gives the posteriors; tied LLRs share one value."""
    p = expit(plo)
    llrs = np.concatenate([trials.tar, trials.non])
    labels = np.r_[np.ones(trials.tar.size), np.zeros(trials.non.size)]
    weights = np.r_[np.full(trials.tar.size, p / trials.tar.size), np.full(trials.non.size, (1 - p) / trials.non.size)]
    posterior = IsotonicRegression().fit_transform(llrs, labels, sample_weight=weights)
    with np.errstate(divide="ignore"):
        return float(weights @ np.where(labels == 1, -np.log2(posterior), -np.log2(1 - posterior)))


def minimised_ece(trials: lc.Trials, plo: float) -> float:
    """The same minimum by scipy's L-BFGS-B: posterior log-odds ``g = c + cumsum(d)``, ``d >= 0``, over the distinct
    LLRs (every non-decreasing map), prior-weighted cross-entropy in bits with its exact gradient."""
    p = expit(plo)
    values, inverse = np.unique(np.concatenate([trials.tar, trials.non]), return_inverse=True)
    tar_weight = np.bincount(inverse[:trials.tar.size], minlength=values.size) * p / trials.tar.size
    non_weight = np.bincount(inverse[trials.tar.size:], minlength=values.size) * (1 - p) / trials.non.size

    def objective(theta):
        g = theta[0] + np.concatenate([[0.0], np.cumsum(theta[1:])])
        value = (tar_weight @ np.logaddexp(0, -g) + non_weight @ np.logaddexp(0, g)) / np.log(2)
        slope = (non_weight * expit(g) - tar_weight * expit(-g)) / np.log(2)
        from_k_on = np.cumsum(slope[::-1])[::-1]
        return value, np.concatenate([[slope.sum()], from_k_on[1:]])

    start = np.r_[0.0, np.full(values.size - 1, 0.01)]
    found = optimize.minimize(objective, start, jac=True, method="L-BFGS-B",
                              bounds=[(None, None)] + [(0, None)] * (values.size - 1),
                              options={"maxiter": 50_000, "maxfun": 100_000, "ftol": 1e-15, "gtol": 1e-12})
    return float(found.fun)


def tied_gaussian_set(n_tar: int, n_non: int, decimals: int, seed: int) -> lc.Trials:
    rng = np.random.default_rng(seed)
    return lc.Trials(np.round(rng.normal(1.5, 2.0, n_tar), decimals), np.round(rng.normal(-1.5, 2.0, n_non), decimals),
                     name=f"tied Gaussian {n_tar}/{n_non}")


def test_pav_ece_is_the_minimum_over_monotone_transforms_at_every_prior(cartridge):
    """PAV optimality (Brümmer & du Preez 2006): at each of the ECE plot's 241 priors the PAV curve is the least ECE
    of any monotone transform, as scikit-learn's prior-weighted isotonic regression finds it prior by prior."""
    for trials in (cartridge, *alcohol_sets(), tied_gaussian_set(150, 400, 1, seed=5)):
        curve = lc.ece_curve(trials)
        expected = [isotonic_ece(trials, plo) for plo in curve.plo]
        np.testing.assert_allclose(curve.pav, expected, rtol=1e-11, err_msg=trials.name)


def test_no_monotone_transform_found_by_scipy_beats_the_pav_ece():
    """A general-purpose minimiser over every non-decreasing map of the distinct LLRs reaches the PAV curve and never
    goes below it (ties among the LLRs included)."""
    trials = tied_gaussian_set(40, 100, 1, seed=11)
    curve = lc.ece_curve(trials, plo=lc.from_log10([-2.0, -1.0, 0.0, 1.0, 2.0]))
    for plo, pav in zip(curve.plo, curve.pav):
        found = minimised_ece(trials, plo)
        assert pav <= found + 1e-13
        assert found == pytest.approx(pav, rel=1e-7)


# ----- ELUB --------------------------------------------------------------------------------------------------------


def test_elub_bounds_are_lirs_to_the_last_digit(cartridge, fvcaus):
    for trials in real_and_synthetic(cartridge, fvcaus):
        llr10, labels = lir_xy(trials)
        expected = elub(llr10, labels, add_misleading=1)
        bounds = lc.elub_bounds(trials)
        assert (bounds.lower_log10, bounds.upper_log10) == expected, trials.name
        assert bounds.lower == pytest.approx(expected[0] * LN10, rel=1e-15)


def test_elub_bounds_of_the_papers_breath_analyser():
    """lir's test of Vergeer et al.'s example: LR bounds 0.1122018 and 79.4328235."""
    bounds = lc.elub_bounds(alcohol_sets()[1])
    np.testing.assert_almost_equal(10 ** np.array([bounds.lower_log10, bounds.upper_log10]),
                                   (0.1122018, 79.4328235))


def test_elub_bounds_of_lirs_small_cases():
    cases = [([0.01, 0.1, 1, 10, 100], [1, 1, 1, 0, 0]), ([0.01, 0.1, 1, 10, 100], [0, 0, 1, 1, 1]),
             ([0.01, 0.1, 1, 10, 100], [0, 0, 0, 1, 1]), ([np.inf, np.inf, np.inf, 0, 0, 0], [1, 1, 1, 0, 0, 0]),
             ([np.inf, 0], [1, 0]), ([1, 1], [1, 0]), (list(np.ones(10) * 10), [1] * 9 + [0]),
             ([10] * 10 + [1], [1] * 10 + [0]), ([1000] * 10 + [1.1], [1] * 10 + [0])]
    for lrs, labels in cases:
        with np.errstate(divide="ignore"):
            llr10 = np.log10(np.array(lrs, dtype=float))
        labels = np.array(labels, dtype=float)
        expected = elub(llr10.copy(), labels, add_misleading=1)
        bounds = lc.elub_bounds(lc.from_log10(llr10[labels == 1]), lc.from_log10(llr10[labels == 0]))
        assert (bounds.lower_log10, bounds.upper_log10) == expected, lrs


def expected_utility_ratio(trials, log10_threshold):
    """lir's neutral / system expected utility at thresholds (one misleading LR added to each class)."""
    llr10, labels = lir_xy(trials)
    thresholds = 10.0 ** np.atleast_1d(log10_threshold)
    with np.errstate(over="ignore"):
        lrs = 10.0**llr10
    chunk = max(1, 2_000_000 // lrs.size)  # lir builds a trials x thresholds matrix
    return np.concatenate([calculate_expected_utility(np.ones_like(lrs), labels, part)
                           / calculate_expected_utility(lrs, labels, part, add_misleading=1)
                           for part in np.array_split(thresholds, -(-thresholds.size // chunk))])


def between(bound: float, neutral: float, fine: float) -> np.ndarray:
    """log10 thresholds from `bound` towards `neutral` (LR = 1): steps of `fine` over the first 0.05, where the
    utility ratio comes down to 1, then of 0.01 (lir's own grid) where it stays well above."""
    step, span = np.sign(neutral - bound), abs(neutral - bound)
    return bound + step * np.concatenate([np.arange(0, min(0.05, span), fine), np.arange(0.05, span, 0.01)])


def test_grid_free_bounds_solve_the_definition(cartridge, fvcaus):
    """Between the grid-free bound and LR = 1 the system is never worse than neutral (lir's utilities every 1e-4 in
    the 0.05 next to each bound, 1e-3 for FVC-AUS, then every 0.01); just beyond the bound it is; lir's 0.01 grid puts
    its bounds less than a step closer to LR = 1."""
    for trials in (cartridge, fvcaus, *alcohol_sets(), *gaussian_sets()):
        exact = lc.elub_bounds(trials, step=None)
        grid = lc.elub_bounds(trials)
        fine = 1e-4 if len(trials) < 10_000 else 1e-3
        assert expected_utility_ratio(trials, between(exact.lower_log10 + 1e-9, 0, fine)).min() >= 1
        assert expected_utility_ratio(trials, between(exact.upper_log10 - 1e-9, 0, fine)).min() >= 1
        assert expected_utility_ratio(trials, exact.lower_log10 - 1e-9)[0] < 1
        assert expected_utility_ratio(trials, exact.upper_log10 + 1e-9)[0] < 1
        assert 0 <= grid.lower_log10 - exact.lower_log10 < 0.01 + 1e-12, trials.name
        assert 0 <= exact.upper_log10 - grid.upper_log10 < 0.01 + 1e-12, trials.name


def test_elub_bounded_calibration_stays_inside_and_leaves_the_inside_alone(cartridge):
    """A PAV calibration trained on half the cartridge cases, bounded by the ELUB bounds of its LLRs on the other
    half; the bounds are lir's ELUBBounder's on the same validation LLRs."""
    calibrator = lc.fit_pav(cartridge.tar[::2], cartridge.non[::2])
    validation = lc.Trials(cartridge.tar[1::2], cartridge.non[1::2])
    bounded = lc.elub_bounded(calibrator, validation)
    llrs = calibrator(np.concatenate([validation.tar, validation.non]))
    bounder = ELUBBounder().fit(LLRData(features=lc.to_log10(llrs), labels=np.concatenate(
        [np.ones(validation.tar.size), np.zeros(validation.non.size)])))
    assert (bounded.bounds.lower_log10, bounded.bounds.upper_log10) == (bounder.lower_llr_bound,
                                                                      bounder.upper_llr_bound)
    scores = np.linspace(-30, 200, 5001)
    out, raw = bounded(scores), calibrator(scores)
    assert out.min() >= bounded.bounds.lower and out.max() <= bounded.bounds.upper
    inside = (raw >= bounded.bounds.lower) & (raw <= bounded.bounds.upper)
    assert inside.any() and (~inside).any()
    np.testing.assert_array_equal(out[inside], raw[inside])
    np.testing.assert_array_equal(out[~inside], np.where(raw[~inside] < 0, bounded.bounds.lower,
                                                         bounded.bounds.upper))
    assert list(bounded.bounds.to_frame()["bound"]) == ["lower", "upper"]


def decimal_log10_files(folder: Path, seed: int, decimals: int | None) -> tuple[np.ndarray, np.ndarray, lc.Trials]:
    """A synthetic validation set as forensic files hold it: log10 LRs of Gaussian scores (any separation and class
    sizes, over- or under-confident), one per line with `decimals` decimals (None: full precision); the numbers
    in the files, and the Trials lc.read_class_files makes of them."""
    rng = np.random.default_rng(seed)
    mu, scale = rng.uniform(0.1, 4.0), rng.choice([0.3, 1.0, 3.0])
    n_tar, n_non = int(rng.integers(2, 200)), int(rng.integers(2, 800))
    classes = [rng.normal(sign * mu, np.sqrt(2 * mu), n) * scale / LN10 for sign, n in ((1, n_tar), (-1, n_non))]
    paths = [folder / f"{seed}_{which}.txt" for which in ("same", "different")]
    for values, path in zip(classes, paths):
        path.write_text("".join(f"{v:.{decimals}f}\n" if decimals is not None else f"{float(v)!r}\n" for v in values))
    tar10, non10 = (np.loadtxt(path, ndmin=1) for path in paths)
    return tar10, non10, lc.read_class_files(*paths, scale="log10")


@pytest.mark.parametrize("decimals", [1, 2, 3, None])
def test_elub_bounds_and_devpav_are_lirs_on_synthetic_files_of_log10_lrs(tmp_path, decimals):
    """Rounded log10 LRs sit exactly on lir's grid of thresholds, where its strict ``LR > t`` turns on the last bit:
    the bounds must still be lir's to the last digit (before the rounding to 12 decimals in llrcore, 17 of 300 sets
    of 2-decimal values came out one grid step off); devPAV and Cllr_cal agree as well."""
    for seed in range(60):
        tar10, non10, trials = decimal_log10_files(tmp_path, seed, decimals)
        llr10, labels = np.concatenate([tar10, non10]), np.r_[np.ones(tar10.size), np.zeros(non10.size)]
        bounds = lc.elub_bounds(trials)
        assert (bounds.lower_log10, bounds.upper_log10) == elub(llr10.copy(), labels, add_misleading=1), seed
        assert lc.devpav(trials) == pytest.approx(lir_devpav(llr10.copy(), labels), rel=1e-10), seed
        data = LLRData(features=llr10, labels=labels)
        assert lc.cllr_cal(trials) == pytest.approx(lir_cllr_cal(data), rel=1e-12, abs=1e-14), seed


# ----- devPAV and Cllr_cal -----------------------------------------------------------------------------------------


def test_devpav_and_cllr_cal_are_lirs(cartridge, fvcaus):
    for trials in real_and_synthetic(cartridge, fvcaus):
        llr10, labels = lir_xy(trials)
        assert lc.devpav(trials) == pytest.approx(lir_devpav(llr10, labels), rel=1e-10), trials.name
        data = LLRData(features=llr10, labels=labels)
        assert lc.cllr_cal(trials) == pytest.approx(lir_cllr_cal(data), rel=1e-12, abs=1e-14)
        assert lc.cllr(trials) == pytest.approx(lir_cllr(data), rel=1e-13)
        assert lc.min_cllr(trials) == pytest.approx(lir_cllr_min(data), rel=1e-12, abs=1e-15)


def test_devpav_of_lirs_unit_cases():
    with np.errstate(divide="ignore"):
        cases = [(np.ones(5), np.ones(5), 0.0),
                 (2 * np.ones(5), 2 * np.ones(5), np.log10(2)),
                 (np.array([5, 5, 5.0]), np.array([0.2, 0.2, 0.2, np.inf]), np.inf),
                 (np.array([5, 5, 5, 0.2]), np.array([5, 0.2, 0.2, 0.2]), (np.log10(5) - np.log10(3)) / 2),
                 (np.array([6, 5, 5, 0.2]), np.array([5, 0.2, 0.2, 0.1]), (np.log10(5) - np.log10(2)) / 2),
                 (np.array([0.1, 100]), np.array([0.01, 10]), 0.5)]
        for tar_lr, non_lr, expected in cases:
            assert lc.devpav(np.log(tar_lr), np.log(non_lr)) == pytest.approx(expected, rel=1e-12)
    assert np.isnan(lc.devpav([5.0, 6.0], [1.0, 2.0]))  # separated: the PAV is a vertical line


def test_devpav_departs_from_lir_where_lir_errs():
    """A PAV segment starting on the identity and rising above it: lir's _calcsurface counts its area negative.
    The exact area (a numerical integral of |y - x| along the polyline) is what llrcore gives. Also an infinite
    smallest LLR (lir: NaN) and an LR beyond the float range (lir: inf)."""
    tar10, non10 = np.array([-1, 0, 0.1, 0.1, 0.1]), np.array([-1, -1, -1, 0, 0.1])
    x, y = np.array([-1.0, 0.0, 0.1]), np.log10([1 / 3, 1.0, 3.0])  # PAV of the three distinct values
    fine = np.linspace(-1, 0.1, 2_200_001)
    area = np.trapezoid(np.abs(np.interp(fine, x, y) - fine), fine)
    ours = lc.devpav(lc.from_log10(tar10), lc.from_log10(non10))
    assert ours == pytest.approx(area / 1.1, rel=1e-9)
    second = 0.5 * 0.1 * (np.log10(3) - 0.1)  # the rising segment's area, a triangle
    lirs = lir_devpav(np.concatenate([tar10, non10]), np.r_[np.ones(5), np.zeros(5)])
    assert lirs == pytest.approx(ours - 2 * second / 1.1, rel=1e-9)
    # a smallest LLR of -inf with a finite PAV LLR, the top finite too: a horizontal line to -inf (lir: NaN)
    tar, non = np.array([-np.inf, 1.0, 2.0]), np.array([-np.inf, -1.0, 3.0])
    assert lc.devpav(tar, non) == np.inf
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        assert np.isnan(lir_devpav(np.concatenate([tar, non]) / LN10, np.r_[np.ones(3), np.zeros(3)]))
    # an LR of 10^-400 is 0 for lir (10 ** x underflows) and its devPAV inf; in log units it is an ordinary point
    tar10, non10 = np.array([-300.0, 0.5, 1.0, 2.0, 0.2]), np.array([-1.0, -2.0, 0.3, -0.5, 0.1])
    labels = np.r_[np.ones(5), np.zeros(5)]
    assert lc.devpav(lc.from_log10(tar10), lc.from_log10(non10)) == pytest.approx(
        lir_devpav(np.concatenate([tar10, non10]), labels), rel=1e-10)
    tar10[0] = -400.0
    assert np.isfinite(lc.devpav(lc.from_log10(tar10), lc.from_log10(non10)))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        assert lir_devpav(np.concatenate([tar10, non10]), labels) == np.inf


# ----- verbal scale ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("lr", "strength"), [
    (1.0000001, "weak"), (9.99, "weak"), (10, "moderate"), (99.9, "moderate"), (100, "moderately strong"),
    (999, "moderately strong"), (1000, "strong"), (9999, "strong"), (10_000, "very strong"),
    (999_999, "very strong"), (1_000_000, "extremely strong"), (1e12, "extremely strong"),
    (np.inf, "extremely strong"),
])
def test_verbal_scale_bands_and_edges_on_both_sides(lr, strength):
    assert lc.verbal_scale(np.log(lr)) == f"{strength} support for H1 rather than H2"
    assert lc.verbal_scale(-np.log(lr)) == f"{strength} support for H2 rather than H1"


def test_verbal_scale_edges_from_either_conversion_and_neutral():
    for k, strength in ((1, "moderate"), (2, "moderately strong"), (3, "strong"), (4, "very strong"),
                        (6, "extremely strong")):
        for llr in (lc.from_log10(float(k)), np.log(10.0**k), k * np.log(10)):
            assert lc.verbal_scale(llr).startswith(f"{strength} support for H1")
            assert lc.verbal_scale(-llr).startswith(f"{strength} support for H2")
        below = lc.from_log10(k * (1 - 1e-9))
        assert not lc.verbal_scale(below).startswith(f"{strength} ")
    assert lc.verbal_scale(0.0) == "the findings support neither proposition"
    assert lc.verbal_scale(-0.0) == "the findings support neither proposition"
    phrases = lc.verbal_scale(np.array([[0.0, np.log(20)], [-np.log(20), np.log(2e6)]]),
                              propositions=("the same source", "different sources"))
    assert phrases.shape == (2, 2)
    assert phrases[0, 1] == "moderate support for the same source rather than different sources"
    assert phrases[1, 0] == "moderate support for different sources rather than the same source"
    table = verbal_scale_table()
    assert table["support"].tolist() == [f"{b[2]} support" for b in VERBAL_BANDS]
    assert table["lr_from"].tolist() == [1, 10, 100, 1000, 10_000, 1_000_000]


# ----- bad input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("analysis", [lc.tippett, lc.ece, lc.elub_bounds, lc.devpav, lc.cllr_cal, lc.ece_curve])
def test_bad_input_is_a_sentence(analysis):
    with pytest.raises(ValueError, match="There are no non-target"):
        analysis([1.0, 2.0], [])
    with pytest.raises(ValueError, match=r"missing values \(NaN\)"):
        analysis([1.0, np.nan], [0.0])


def test_bad_options_are_sentences():
    trials = lc.Trials([1.0, 2.0], [-1.0, 0.5])
    with pytest.raises(ValueError, match="prior log-odds must be finite"):
        lc.ece(trials, plo=np.inf)
    with pytest.raises(ValueError, match="grid step"):
        lc.elub_bounds(trials, step=0)
    with pytest.raises(ValueError, match="add_misleading"):
        lc.elub_bounds(trials, add_misleading=-1)
    with pytest.raises(ValueError, match="missing"):
        lc.verbal_scale(np.nan)
