"""Tests of quality-measure calibration and fusion (:mod:`llrcore.calibration.quality`, ``fit_affine(trials,
quality=...)``, ``fit_fusion(..., quality=...)``, ``fuse(..., quality=...)``) against independent references.

References used (no expected value below is an output of llrcore itself):

- scikit-learn ``LogisticRegression`` without penalty on the features ``[score, quality columns]`` (and their
  products, BOSARIS's bilinear term), sample weights ``P/N_tar`` and ``(1-P)/N_non`` (``offset = intercept - tau``),
  via ``weighted_logistic_regression`` of test_calibration.py: DESIGN.md's reference for the logarithmic rule;
- ``scipy.optimize.minimize`` (BFGS) on the prior-weighted objective of the boosting rule written out here with
  numpy: ``C(q|H1) = sqrt((1 - q)/q) = exp(-x/2)``, ``C(q|H2) = exp(x/2)``, ``x = llr + tau`` (a constant factor of
  the rule does not move the optimum);
- a synthetic population generated here whose exact LLR is known in closed form: calibrated Gaussian LLRs
  (``N(+-mu, 2 mu)``) shifted by ``gamma * duration``, so ``llr = score - gamma * duration`` exactly; its Cllr is
  written out with numpy (Brümmer & du Preez 2006);
- the real NIST BSSR1 face scores (assets/nist_bssr1/SOURCE.txt): matcher C's scores with matcher G's score of the
  same trial as a numeric metadata column, read with pandas;
- the command line's calibrated file read back against the library's LLRs of the same trials (``--digits all``:
  every digit of the float);
- WeSpeaker's ``reorder_values`` (``wespeaker/bin/score_calibration.py``): min, max, max - min, max / min, by hand.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.special import expit, logit
from test_calibration import weighted_logistic_regression

import llrcore as lc
from llrcore.cli import main
from paths import ASSETS

BSSR1 = ASSETS / "nist_bssr1" / "bssr1_face.tsv.gz"


def cllr(tar_llr, non_llr) -> float:
    """Cllr in bits, written out (Brümmer & du Preez 2006)."""
    return float((np.logaddexp(0, -tar_llr).mean() + np.logaddexp(0, non_llr).mean()) / (2 * np.log(2)))


def shifted_population(n: int, seed: int, gamma: float = 0.6, mu: float = 2.0) -> tuple[lc.Trials, np.ndarray]:
    """Trials whose score is a calibrated Gaussian LLR plus ``gamma * duration`` (duration independent of the class,
    so it shifts both score distributions alike): the exact LLR is ``score - gamma * duration``. Returns the trials
    (metadata ``duration`` and ``snr``, the latter pure noise) and the exact LLRs in their order."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.25
    true_llr = np.where(labels, rng.normal(mu, np.sqrt(2 * mu), n), rng.normal(-mu, np.sqrt(2 * mu), n))
    duration = rng.uniform(2.0, 20.0, n)
    scores = true_llr + gamma * duration
    metadata = pd.DataFrame({"duration": duration, "snr": rng.normal(10, 3, n), "gender": rng.choice(["f", "m"], n)})
    trials = lc.Trials.from_labels(scores, labels, metadata=metadata)
    order = np.concatenate([np.flatnonzero(labels), np.flatnonzero(~labels)])
    return trials, true_llr[order]


@pytest.fixture(scope="module")
def population():
    return shifted_population(4000, seed=1)


def features(trials: lc.Trials, columns, products=()) -> tuple[np.ndarray, np.ndarray]:
    """The feature matrices [score, columns, products] of the targets and the non-targets, built with pandas."""
    frame = trials.metadata
    q = np.column_stack([frame[c].to_numpy(float) for c in columns]
                        + [frame[a].to_numpy(float) * frame[b].to_numpy(float) for a, b in products])
    n_tar = trials.tar.size
    return (np.column_stack([trials.tar, q[:n_tar]]),
            np.column_stack([trials.non, q[n_tar:n_tar + trials.non.size]]))


# ----- the fit against its references ----------------------------------------------------------------------------------


@pytest.mark.parametrize("plo", [0.0, logit(0.1), 2.0])
def test_logarithmic_rule_is_sklearns_weighted_logistic_regression(population, plo):
    trials, _ = population
    cal = lc.fit_quality_affine(trials, ["duration", "snr"], plo=plo)
    weights, offset = weighted_logistic_regression(*features(trials, ["duration", "snr"]), plo)
    assert cal.features == ("score", "duration", "snr")
    np.testing.assert_allclose(cal.weights, weights, rtol=1e-6, atol=1e-8)
    assert cal.offset == pytest.approx(offset, rel=1e-6, abs=1e-8)


def test_fit_affine_with_quality_still_answers_for_one_release_with_a_warning_naming_the_new_function(population):
    trials, _ = population
    with pytest.warns(FutureWarning, match=r"fit_quality_affine\(trials, quality\)") as caught:
        old = lc.fit_affine(trials, quality=["duration"], plo=1.0)
    assert caught[0].filename == __file__
    new = lc.fit_quality_affine(trials, ["duration"], plo=1.0)
    np.testing.assert_array_equal(old.weights, new.weights)
    assert old.offset == new.offset


def test_bilinear_term_is_logistic_regression_on_the_products(population):
    trials, _ = population
    trials = lc.Trials(trials.tar, trials.non, metadata=trials.metadata.assign(
        test_dur=trials.metadata["duration"] * 0.5 + 1.0))
    cal = lc.fit_quality_affine(trials, ["duration"], bilinear=[("duration", "test_dur")], plo=-1.0)
    weights, offset = weighted_logistic_regression(
        *features(trials, ["duration"], [("duration", "test_dur")]), -1.0)
    assert cal.features == ("score", "duration", "duration × test_dur")
    np.testing.assert_allclose(cal.weights, weights, rtol=1e-6, atol=1e-8)
    assert cal.offset == pytest.approx(offset, rel=1e-6, abs=1e-8)


def test_boosting_rule_is_the_direct_minimum_of_its_objective(population):
    trials, _ = population
    plo = 0.5
    x_tar, x_non = features(trials, ["duration"])
    p = expit(plo)

    def objective(theta):
        w, b = theta[:-1], theta[-1]
        return (p * np.exp(-(x_tar @ w + b + plo) / 2).mean() + (1 - p) * np.exp((x_non @ w + b + plo) / 2).mean())

    start, start_b = weighted_logistic_regression(x_tar, x_non, plo)
    found = optimize.minimize(objective, np.append(start, start_b), method="BFGS", options={"gtol": 1e-12})
    cal = lc.fit_quality_affine(trials, "duration", rule=lc.BetaRule.boosting(), plo=plo)
    np.testing.assert_allclose(np.append(cal.weights, cal.offset), found.x, rtol=1e-6, atol=1e-6)


def test_fit_fusion_takes_quality_matrices_as_more_columns(population):
    trials, _ = population
    x_tar, x_non = features(trials, ["duration", "snr"])
    with_quality = lc.fit_fusion(trials.tar, trials.non, plo=0.3, quality=(x_tar[:, 1:], x_non[:, 1:]))
    weights, offset = weighted_logistic_regression(x_tar, x_non, 0.3)
    np.testing.assert_allclose(with_quality.weights, weights, rtol=1e-6, atol=1e-8)
    assert with_quality.offset == pytest.approx(offset, rel=1e-6, abs=1e-8)


# ----- what it is for: trials whose quality shifts their scores ---------------------------------------------------------


def test_quality_recovers_the_exact_llr_and_beats_plain_affine_on_held_out_trials(population):
    train, _ = population
    test, true_llr = shifted_population(20000, seed=2)
    cal = lc.fit_quality_affine(train, ["duration"])
    plain = lc.fit_affine(train)
    # the generating model: llr = 1 * score - 0.6 * duration + 0
    np.testing.assert_allclose(cal.weights, [1.0, -0.6], atol=0.08)
    calibrated = cal(test)
    assert isinstance(calibrated, lc.Trials) and len(calibrated.metadata) == len(test)
    n_tar = test.tar.size
    oracle = cllr(true_llr[:n_tar], true_llr[n_tar:])
    ours = cllr(calibrated.tar, calibrated.non)
    affine = cllr(plain(test.tar), plain(test.non))
    assert ours < oracle + 0.01  # as good as the exact LLR, up to training noise
    assert ours < affine - 0.1  # and far better than calibrating the score alone
    comparison = cal.compare(plain, test, p_target=0.01)
    table = comparison.to_frame()
    assert list(table.index) == ["raw scores", "affine", "affine + duration"]
    assert table.loc["affine + duration", "Cllr"] == pytest.approx(ours, rel=1e-9)
    assert table.loc["affine", "Cllr"] == pytest.approx(affine, rel=1e-9)


def test_calibrated_llrs_are_the_formula_applied_to_each_trial(population):
    trials, _ = population
    cal = lc.fit_quality_affine(trials, ["duration", "snr"])
    out = cal(trials)
    frame = trials.metadata
    expected = (cal.weights[0] * np.concatenate([trials.tar, trials.non]) + cal.weights[1] * frame["duration"]
                + cal.weights[2] * frame["snr"] + cal.offset)
    np.testing.assert_allclose(np.concatenate([out.tar, out.non]), expected, rtol=1e-12, atol=1e-12)
    table = cal.weights_frame()
    assert list(table["feature"]) == ["score", "duration", "snr"]
    spread = np.concatenate([np.concatenate([trials.tar, trials.non])[:, None], frame[["duration", "snr"]]],
                            axis=1).std(axis=0)
    np.testing.assert_allclose(table["weight × spread"], cal.weights * spread, rtol=1e-12)


def test_real_bssr1_face_scores_with_the_other_matcher_as_a_quality_column():
    table = pd.read_csv(BSSR1, sep="\t")
    table = table[table["face-C"] > -1]  # -1 is the matcher's failure sentinel (SOURCE.txt)
    labels = (table["label"] == "genuine").to_numpy()
    trials = lc.Trials.from_labels(table["face-C"].to_numpy(), labels,
                                   metadata=table[["face-G"]].reset_index(drop=True))
    cal = lc.fit_quality_affine(trials, ["face-G"], plo=logit(0.01))
    tar = table.loc[labels, ["face-C", "face-G"]].to_numpy()
    non = table.loc[~labels, ["face-C", "face-G"]].to_numpy()
    weights, offset = weighted_logistic_regression(tar, non, logit(0.01))
    np.testing.assert_allclose(cal.weights, weights, rtol=1e-6)
    assert cal.offset == pytest.approx(offset, rel=1e-6)
    assert not cal.collapsed


def test_fuse_with_quality_uses_the_first_systems_metadata(population):
    trials, _ = population
    rng = np.random.default_rng(5)
    other = lc.Trials(trials.tar + rng.normal(0, 2, trials.tar.size), trials.non + rng.normal(0, 2, trials.non.size),
                      name="B", metadata=trials.metadata)
    first = lc.Trials(trials.tar, trials.non, name="A", metadata=trials.metadata)
    result = lc.fuse({"A": first, "B": other}, quality=["duration"], plo=0.0)
    x_tar, x_non = features(trials, ["duration"])
    weights, offset = weighted_logistic_regression(
        np.column_stack([x_tar[:, 0], other.tar, x_tar[:, 1]]), np.column_stack([x_non[:, 0], other.non, x_non[:, 1]]),
        0.0)
    np.testing.assert_allclose(result.fusion.weights, weights, rtol=1e-6, atol=1e-8)
    assert list(result.weights_frame()["system"]) == ["A", "B", "duration"]
    expected = weights[0] * trials.tar + weights[1] * other.tar + weights[2] * x_tar[:, 1] + offset
    np.testing.assert_allclose(result.fused.tar, expected, rtol=1e-6, atol=1e-6)
    plain = lc.fuse({"A": first, "B": other}, plo=0.0)
    assert result.metrics["fusion"].cllr < plain.metrics["fusion"].cllr - 0.1


def test_pair_quality_is_wespeakers_reorder_values():
    trials = lc.Trials([1.0, 2.0], [0.0], metadata=pd.DataFrame({"d1": [3.0, 8.0, 5.0], "d2": [6.0, 2.0, 5.0]}))
    out = lc.pair_quality(trials, "d1", "d2", name="dur")
    frame = out.metadata
    assert frame["dur_min"].tolist() == [3.0, 2.0, 5.0]
    assert frame["dur_max"].tolist() == [6.0, 8.0, 5.0]
    assert frame["dur_diff"].tolist() == [3.0, 6.0, 0.0]
    assert frame["dur_ratio"].tolist() == [2.0, 4.0, 1.0]


def test_numeric_columns_are_those_that_can_be_quality_measures(population):
    trials, _ = population
    assert lc.numeric_columns(trials) == ["duration", "snr"]


def test_a_collapsed_fit_is_flagged():
    rng = np.random.default_rng(3)
    tar, non = np.append(rng.normal(1, 1, 200), -1e308), rng.normal(-1, 1, 300)
    trials = lc.Trials(tar, non, metadata=pd.DataFrame({"snr": rng.normal(0, 1, 501)}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cal = lc.fit_quality_affine(trials, ["snr"])
    assert cal.collapsed and "same LLR" in cal.failure
    assert any("collapsed" in str(w.message) for w in caught)


# ----- bad input: one sentence naming what is wrong ----------------------------------------------------------------------


def test_a_missing_column_is_named(population):
    trials, _ = population
    with pytest.raises(ValueError, match=r"no metadata column 'length'.*duration, snr, gender"):
        lc.fit_quality_affine(trials, ["length"])


def test_a_text_column_is_named(population):
    trials, _ = population
    with pytest.raises(ValueError, match=r"'gender' is not numeric \(values such as '[fm]'\)"):
        lc.fit_quality_affine(trials, ["duration", "gender"])


def test_a_missing_value_is_refused(population):
    trials, _ = population
    duration = trials.metadata["duration"].copy()
    duration.iloc[7] = np.nan
    holed = lc.Trials(trials.tar, trials.non, metadata=trials.metadata.assign(duration=duration))
    with pytest.raises(ValueError, match=r"'duration' has no finite value for 1 trial\(s\) \(missing or infinite\)"):
        lc.fit_quality_affine(holed, ["duration"])


def test_applying_to_trials_without_the_column_names_it(population):
    trials, _ = population
    cal = lc.fit_quality_affine(trials, ["duration", "snr"])
    without = lc.Trials(trials.tar, trials.non, metadata=trials.metadata.drop(columns="snr"))
    with pytest.raises(ValueError, match="no metadata column 'snr'"):
        cal(without)


def test_arrays_by_and_start_are_refused_with_quality(population):
    trials, _ = population
    with pytest.raises(TypeError, match="give one Trials"):
        lc.fit_quality_affine(trials.tar, ["duration"])
    # the deprecated fit_affine(trials, quality=...) keeps its checks for its release
    with pytest.raises(TypeError, match="cannot be combined"), pytest.warns(FutureWarning):
        lc.fit_affine(trials, by="gender", quality=["duration"])
    with pytest.raises(TypeError, match="start calibration"), pytest.warns(FutureWarning):
        lc.fit_affine(trials, quality=["duration"], start=lc.fit_affine(trials))
    with pytest.raises(TypeError, match="list of column names"):
        lc.fit_quality_affine(trials, [3])


def test_quality_matrices_of_the_wrong_length_are_refused(population):
    trials, _ = population
    with pytest.raises(ValueError, match=r"target quality measures have 3 rows but there are [\d,]+ target trials"):
        lc.fit_fusion(trials.tar, trials.non, quality=(np.ones((3, 1)), np.ones((trials.non.size, 1))))
    with pytest.raises(TypeError, match="pair of matrices"):
        lc.fit_fusion(trials.tar, trials.non, quality=np.ones(3))


# ----- the command line ------------------------------------------------------------------------------------------------


def write_table(trials: lc.Trials, path: Path, shuffle_seed: int) -> Path:
    """`trials` as a whitespace file with a header ``model test score label duration snr``, lines shuffled (so the
    file's order is not the targets-first order of Trials)."""
    frame = trials.metadata[["duration", "snr"]].assign(
        model=[f"m{i}" for i in range(len(trials))], test=[f"t{i}" for i in range(len(trials))],
        score=np.concatenate([trials.tar, trials.non]),
        label=["target"] * trials.tar.size + ["nontarget"] * trials.non.size)
    frame = frame.sample(frac=1.0, random_state=shuffle_seed)[["model", "test", "score", "label", "duration", "snr"]]
    path.write_text(frame.to_string(index=False, float_format=lambda v: repr(float(v))) + "\n")
    return path


def test_cli_calibrates_with_quality_measures_line_by_line(population, tmp_path, capsys):
    train, _ = population
    test, _ = shifted_population(1000, seed=9)
    dev_path, eval_path = write_table(train, tmp_path / "dev.txt", 1), write_table(test, tmp_path / "eval.txt", 2)
    out = tmp_path / "calibrated.txt"
    assert main(["calibrate", str(dev_path), "--apply-to", str(eval_path), "--quality", "duration,snr",
                 "--digits", "all", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    dev, evaluation = lc.read_trials(dev_path), lc.read_trials(eval_path)
    cal = lc.fit_quality_affine(dev, ["duration", "snr"], plo=float(lc.effective_plo(0.5)))
    assert cal.formula(6) in said
    written, expected = lc.read_trials(out), cal(evaluation)
    np.testing.assert_allclose(written.tar, expected.tar, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(written.non, expected.non, rtol=1e-12, atol=1e-12)
    # by hand, line by line: the LLR of each written line is the formula of its own score and duration
    lines = pd.read_csv(eval_path, sep=r"\s+")
    back = pd.read_csv(out, sep=r"\s+")
    np.testing.assert_allclose(back["score"], cal.weights[0] * lines["score"] + cal.weights[1] * lines["duration"]
                               + cal.weights[2] * lines["snr"] + cal.offset, rtol=1e-12, atol=1e-12)


def test_cli_quality_errors_are_sentences(population, tmp_path, capsys):
    train, _ = population
    dev_path = write_table(train, tmp_path / "dev.txt", 1)
    out = str(tmp_path / "out.txt")
    assert main(["calibrate", str(dev_path), "--apply-to", str(dev_path), "--quality", "length", "-o", out]) != 0
    assert "no metadata column 'length'" in capsys.readouterr().err
    assert main(["calibrate", str(dev_path), "--apply-to", str(dev_path), "--quality", "duration", "--method", "pav",
                 "-o", out]) != 0
    assert "use --method affine" in capsys.readouterr().err
