"""Tests of :mod:`llrcore.calibration.fusion` (pairing trials, ``fuse``) against independent references.

References used (no expected value below is an output of llrcore itself):

- ``scipy.optimize.minimize`` (BFGS with the exact gradient) on the prior-weighted objective written out here with
  numpy from the closed forms of DESIGN.md — logarithmic ``-ln q``, Brier ``3 (1 - q)^2``, boosting
  ``(2/pi) sqrt((1 - q)/q)`` and their mirrors, ``q = sigmoid(llr + tau)``, plus the penalty
  ``lambda/2 sum_k (w_k sigma_k)^2`` of the documented regularisation (sigma_k: the standard deviation of system k's
  pooled development scores);
- scikit-learn ``LogisticRegression`` without penalty, sample weights ``P/N_tar`` and ``(1-P)/N_non``
  (``offset = intercept - tau``), via ``weighted_logistic_regression`` of test_calibration.py;
- the real ASVspoof 2019 LA countermeasure scores of the four systems (assets/asvspoof2019_la_cm/SOURCE.txt) read
  with pandas, trials paired by hand from the ``utt`` column; Cllr written out with numpy (Brümmer & du Preez 2006).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.special import expit, logit

import llrcore as lc
from test_calibration import weighted_logistic_regression
import paths

ASSETS = paths.ASSETS / "asvspoof2019_la_cm"
SYSTEMS = ("LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c")
RAWNETS = SYSTEMS[1:]  # together they do not separate the dev trials: a finite unregularised optimum


def cm_path(part: str) -> Path:
    return ASSETS / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz"


@pytest.fixture(scope="module")
def cm_tables() -> dict[str, pd.DataFrame]:
    tables = {part: pd.read_csv(cm_path(part), sep="\t") for part in ("dev", "eval")}
    assert [len(t) for t in tables.values()] == [24844, 71237]  # SOURCE.txt
    return tables


@pytest.fixture(scope="module")
def cm_trials() -> dict[str, dict[str, lc.Trials]]:
    return {part: lc.read_trials(cm_path(part)) for part in ("dev", "eval")}


def matrices(table: pd.DataFrame, systems) -> tuple[np.ndarray, np.ndarray]:
    bona_fide = table["key"].eq("bonafide").to_numpy()
    scores = table[list(systems)].to_numpy(float)
    return scores[bona_fide], scores[~bona_fide]


# ----- the objective, written out independently --------------------------------------------------------------------


def _costs(rule: tuple[float, float], x: np.ndarray, target: bool) -> tuple[np.ndarray, np.ndarray]:
    """C(q|H1) (target) or C(q|H2) and its derivative in the log-odds x, closed forms of DESIGN.md."""
    sign = 1.0 if target else -1.0  # C(q|H2)(x) = C(q|H1)(-x) for these symmetric rules
    z = sign * x
    if rule == (1, 1):
        return np.logaddexp(0.0, -z), -sign * expit(-z)
    if rule == (2, 2):
        q = expit(z)
        return 3 * (1 - q) ** 2, -sign * 6 * (1 - q) ** 2 * q
    if rule == (0.5, 0.5):
        value = 2 / np.pi * np.exp(-z / 2)
        return value, -sign * value / 2
    raise ValueError(rule)


def scipy_fusion(tar, non, rule, tau, regularisation=0.0, start=None):
    """(weights, offset) minimising E by BFGS, in standardised coordinates for conditioning."""
    pooled = np.vstack([tar, non])
    mean, spread = pooled.mean(axis=0), pooled.std(axis=0)
    zt, zn = (tar - mean) / spread, (non - mean) / spread
    p = expit(tau)

    def objective(theta):
        v, c = theta[:-1], theta[-1]
        value, gradient = regularisation / 2 * v @ v, np.append(regularisation * v, 0.0)
        for z, weight, target in ((zt, p / len(zt), True), (zn, (1 - p) / len(zn), False)):
            cost, slope = _costs(rule, z @ v + c + tau, target)
            value += weight * cost.sum()
            gradient += weight * np.append(slope @ z, slope.sum())
        return value, gradient

    theta0 = np.zeros(tar.shape[1] + 1) if start is None else np.append(start[0] * spread,
                                                                        start[1] + start[0] @ mean)
    found = optimize.minimize(objective, theta0, jac=True, method="BFGS", options={"gtol": 1e-11, "maxiter": 10_000})
    v, c = found.x[:-1], found.x[-1]
    return v / spread, c - (v / spread) @ mean


CASES = [  # (rule, P of the prior weighting, systems, regularisation)
    ((1, 1), 0.5, RAWNETS, 0.0),
    ((1, 1), 0.1, RAWNETS, 0.0),
    ((2, 2), 0.5, RAWNETS, 0.0),
    ((2, 2), 0.1, RAWNETS, 0.0),
    ((0.5, 0.5), 0.5, RAWNETS, 0.0),
    ((0.5, 0.5), 0.1, RAWNETS, 0.0),
    ((1, 1), 0.5, SYSTEMS, 1e-3),
    ((1, 1), 0.1, SYSTEMS, 1e-2),
]


@pytest.mark.parametrize("rule, p, systems, regularisation", CASES)
def test_fusion_weights_equal_scipys_minimiser_of_the_same_objective(cm_tables, cm_trials, rule, p, systems,
                                                                     regularisation):
    tau = float(logit(p))
    tar, non = matrices(cm_tables["dev"], systems)
    # Brier's objective is not convex: both searches start from logistic regression's optimum, as the library does
    start = None if rule != (2, 2) else scipy_fusion(tar, non, (1, 1), tau, regularisation)
    weights, offset = scipy_fusion(tar, non, rule, tau, regularisation, start)
    result = lc.fuse({name: cm_trials["dev"][name] for name in systems}, rule=lc.BetaRule(*rule), plo=tau,
                     regularisation=regularisation)
    np.testing.assert_allclose(result.fusion.weights, weights, rtol=1e-5, atol=1e-7)
    assert result.fusion.offset == pytest.approx(offset, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("p", [0.5, 0.05])
def test_logarithmic_fusion_equals_prior_weighted_logistic_regression(cm_tables, cm_trials, p):
    tau = float(logit(p))
    tar, non = matrices(cm_tables["dev"], RAWNETS)
    weights, offset = weighted_logistic_regression(tar, non, tau)
    result = lc.fuse({name: cm_trials["dev"][name] for name in RAWNETS}, plo=tau)
    np.testing.assert_allclose(result.fusion.weights, weights, rtol=1e-6)
    assert result.fusion.offset == pytest.approx(offset, rel=1e-6)


def test_each_system_calibrated_alone_is_its_own_logistic_regression(cm_tables, cm_trials):
    result = lc.fuse({name: cm_trials["dev"][name] for name in RAWNETS})
    for name in RAWNETS:
        tar, non = matrices(cm_tables["dev"], [name])
        (scale,), offset = weighted_logistic_regression(tar, non, 0.0)
        assert result.calibrations[name].scale == pytest.approx(scale, rel=1e-6)
        assert result.calibrations[name].offset == pytest.approx(offset, rel=1e-6)


# ----- pairing trials -----------------------------------------------------------------------------------------------


def system_from(table: pd.DataFrame, name: str) -> lc.Trials:
    """One system as Trials built by hand (not by the reader): bona fide = target, ``utt`` as metadata."""
    return lc.Trials.from_labels(table[name].to_numpy(float), table["key"].eq("bonafide").to_numpy(), name=name,
                                 metadata=table[["utt"]].reset_index(drop=True))


def test_a_multi_system_file_is_aligned_by_its_utterance_ids(cm_tables, cm_trials):
    aligned = lc.align_systems(cm_trials["dev"])
    assert aligned.id_columns == ("utt",) and aligned.names == SYSTEMS
    tar, non = matrices(cm_tables["dev"], SYSTEMS)
    np.testing.assert_array_equal(aligned.tar, tar)
    np.testing.assert_array_equal(aligned.non, non)


def test_shuffled_trials_are_paired_by_id_and_give_the_same_fusion(cm_tables):
    table = cm_tables["dev"]
    shuffled = table.sample(frac=1.0, random_state=3)
    in_order = {name: system_from(table, name) for name in RAWNETS}
    mixed = {name: system_from(shuffled if name == "RawNet2-b" else table, name) for name in RAWNETS}
    a, b = lc.fuse(in_order), lc.fuse(mixed)
    np.testing.assert_allclose(b.fusion.weights, a.fusion.weights, rtol=1e-9)
    assert b.fusion.offset == pytest.approx(a.fusion.offset, rel=1e-9)
    np.testing.assert_array_equal(lc.align_systems(mixed).tar, lc.align_systems(in_order).tar)


def test_a_missing_trial_is_refused_naming_the_systems_the_count_and_an_example(cm_tables):
    table = cm_tables["dev"]
    dropped = table.drop(index=[5, 17000])
    systems = {"RawNet2-a": system_from(table, "RawNet2-a"), "RawNet2-b": system_from(dropped, "RawNet2-b")}
    with pytest.raises(ValueError) as error:
        lc.fuse(systems)
    example = table.loc[5, "utt"]
    assert str(error.value) == (
        f"RawNet2-a and RawNet2-b were not scored on the same trials: 2 of the 24,844 trials of RawNet2-a are missing "
        f"from RawNet2-b (e.g. utt {example}). Fusion needs every system's score for every trial: give files of the "
        "same trials.")


def test_a_trial_labelled_differently_is_refused(cm_tables):
    table = cm_tables["dev"]
    relabelled = table.copy()
    relabelled.loc[0, "key"] = "spoof"  # the first trial is bona fide
    systems = [system_from(table, "RawNet2-a"), system_from(relabelled, "RawNet2-b")]
    with pytest.raises(ValueError, match=rf"RawNet2-a and RawNet2-b label 1 of the same trials differently \(e\.g\. "
                       rf"utt {table.loc[0, 'utt']} is a target trial in RawNet2-a and a non-target trial in "
                       r"RawNet2-b\): the systems must be scored against the same key\."):
        lc.align_systems(systems)


def test_a_repeated_id_is_refused(cm_tables):
    table = cm_tables["dev"]
    repeated = table.copy()
    repeated.loc[1, "utt"] = repeated.loc[0, "utt"]
    with pytest.raises(ValueError, match=r"RawNet2-b has 1 trials with the same utt as another"):
        lc.align_systems([system_from(table, "RawNet2-a"), system_from(repeated, "RawNet2-b")])


def test_files_without_ids_are_paired_by_line_order_and_need_equal_counts(cm_tables):
    tar, non = matrices(cm_tables["dev"], RAWNETS)
    a, b = lc.Trials(tar[:, 0], non[:, 0], name="a"), lc.Trials(tar[:, 1], non[:, 1], name="b")
    aligned = lc.align_systems([a, b])
    assert aligned.id_columns == () and not aligned.by_ids
    np.testing.assert_array_equal(aligned.non, non[:, :2])
    short = lc.Trials(tar[:, 1], non[:-3, 1], name="b")
    with pytest.raises(ValueError) as error:
        lc.align_systems([a, short])
    assert str(error.value) == (
        "a and b cannot be paired trial by trial: a and b have no trial ids, so their trials are paired by line "
        "order, which needs as many trials of each class, but a has 2,548 target and 22,296 non-target trials and b "
        "has 2,548 target and 22,293 non-target.")


def test_fusion_needs_two_systems_and_one_evaluation_system_per_development_system(cm_trials):
    with pytest.raises(ValueError, match="Fusion needs two or more systems"):
        lc.fuse({"RawNet2-a": cm_trials["dev"]["RawNet2-a"]})
    with pytest.raises(ValueError, match="trained on 3 development systems but applied to 2 evaluation systems"):
        lc.fuse({n: cm_trials["dev"][n] for n in RAWNETS}, [cm_trials["eval"][n] for n in RAWNETS[:2]])


def test_evaluation_systems_of_other_names_are_matched_by_position(cm_trials):
    dev = {n: cm_trials["dev"][n] for n in RAWNETS}
    by_name = lc.fuse(dev, cm_trials["eval"] | {})  # same names, in another mapping: by name
    renamed = lc.fuse(dev, [lc.Trials(cm_trials["eval"][n].tar, cm_trials["eval"][n].non, name=f"eval {n}")
                            for n in RAWNETS])
    np.testing.assert_array_equal(renamed.fused_eval.tar, by_name.fused_eval.tar)


# ----- the real-data claim ----------------------------------------------------------------------------------------


def cllr_bits(tar_llr, non_llr) -> float:
    return (np.logaddexp(0, -tar_llr).mean() + np.logaddexp(0, non_llr).mean()) / (2 * np.log(2))


@pytest.mark.parametrize("regularisation, beats", [(1e-3, True), (1e-2, False)])
def test_the_four_countermeasures_fused_against_the_best_one_calibrated_alone(cm_tables, cm_trials, regularisation,
                                                                              beats):
    """The demo of the Fusion page (regularisation 1e-3): the fusion trained on dev beats the best single system
    calibrated alone on eval by Cllr. With ten times more regularisation (the singles shrink as well) it does not."""
    result = lc.fuse(cm_trials["dev"], cm_trials["eval"], regularisation=regularisation)
    tar, non = matrices(cm_tables["eval"], SYSTEMS)
    fused_tar = tar @ result.fusion.weights + result.fusion.offset
    fused_non = non @ result.fusion.weights + result.fusion.offset
    np.testing.assert_allclose(result.fused_eval.tar, fused_tar, rtol=1e-12)
    fusion_cllr = cllr_bits(fused_tar, fused_non)
    singles = {name: cllr_bits(result.calibrations[name](tar[:, k]), result.calibrations[name](non[:, k]))
               for k, name in enumerate(SYSTEMS)}
    best = min(singles, key=singles.get)
    assert result.best_single == best == "RawNet2-a"
    assert result.beats_best_single is beats and bool(fusion_cllr < singles[best]) is beats
    verb = "beats" if beats else "does not beat"
    assert result.sentence().startswith(f"On Cllr (every operating point at once), the fusion {verb} the best single "
                                       f"system, {best}, calibrated alone: {fusion_cllr:.3f} vs {singles[best]:.3f} "
                                       "bits on the evaluation trials. At the operating point (P_target = 0.01)")
    table = result.to_frame()
    assert list(table.index) == ["fusion", *SYSTEMS]
    assert table.loc["fusion", "Cllr"] == pytest.approx(fusion_cllr, rel=1e-10)
    assert table.loc["fusion", "EER %"] < table.loc["LFCC-GMM", "EER %"]  # the best single EER


def test_without_evaluation_trials_the_comparison_is_on_the_development_trials(cm_trials):
    result = lc.fuse({n: cm_trials["dev"][n] for n in RAWNETS})
    assert result.judged_on == "development" and result.fused is result.fused_dev
    assert ("on the development trials it was trained on (no evaluation trials: an optimistic comparison). At the "
            "operating point") in result.sentence()


def test_verdict_is_the_sentence_for_one_release_with_a_warning_naming_it(cm_trials):
    result = lc.fuse({n: cm_trials["dev"][n] for n in RAWNETS})
    with pytest.warns(FutureWarning, match=r"FusionResult.sentence\(\)"):
        assert result.verdict() == result.sentence()


def test_the_fused_scores_table_is_read_back_by_read_trials(cm_trials, tmp_path):
    result = lc.fuse(cm_trials["dev"], cm_trials["eval"], regularisation=1e-3)
    path = tmp_path / "fused.tsv"
    result.scores_frame().to_csv(path, sep="\t", index=False)
    back = lc.read_trials(path)
    np.testing.assert_array_equal(back.tar, result.fused_eval.tar)
    np.testing.assert_array_equal(back.non, result.fused_eval.non)
    assert list(back.metadata["utt"]) == list(result.fused_eval.metadata["utt"])
    weights = result.weights_frame()
    assert list(weights["system"]) == list(SYSTEMS)
    np.testing.assert_array_equal(weights["weight"], result.fusion.weights)
