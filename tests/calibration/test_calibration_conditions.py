"""Calibration per condition (``fit_affine_by_condition(trials, by)``, ``calibrate_by_condition``) against independent
references: each condition's calibration is ``fit_affine`` of that condition's trials selected with pandas; applying
it is each condition's Affine applied by hand to that condition's scores; the metrics are those of the calibrated
subsets; and where conditions shift the scores differently, one calibration per condition beats the pooled one on
Cllr in the shifted conditions of an unseen evaluation set.
"""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.calibration.conditions import NOT_IN_TRAINING, OWN
from paths import ASSETS

CM = ASSETS / "asvspoof2019_la_cm"
SHIFTS = {"f": 0.0, "m": 3.0, "x": -2.0}  # score shift of each gender's trials (f unshifted)


def shifted_trials(seed: int, n_tar: int = 600, n_non: int = 3000, name: str = "") -> lc.Trials:
    """Gaussian scores whose conditions are shifted and scaled differently: a pooled calibration is wrong in each."""
    rng = np.random.default_rng(seed)
    frames = []
    for gender, shift in SHIFTS.items():
        scale = 1.0 + shift / 6
        frames.append(pd.DataFrame({"score": np.r_[rng.normal(2, 1, n_tar), rng.normal(-2, 1, n_non)] * scale + shift,
                                    "target": np.r_[np.ones(n_tar, bool), np.zeros(n_non, bool)],
                                    "gender": gender, "session": rng.integers(0, 4, n_tar + n_non)}))
    table = pd.concat(frames, ignore_index=True)
    return lc.Trials.from_labels(table.score, table.target, name=name, metadata=table[["gender", "session"]])


@pytest.fixture(scope="module")
def train():
    return shifted_trials(1, name="dev")


@pytest.fixture(scope="module")
def test():
    return shifted_trials(2, n_tar=400, n_non=2000, name="eval")


def frame_of(trials: lc.Trials) -> pd.DataFrame:
    """The trials as one table (score, target, metadata), as a user would hold them in pandas."""
    return trials.metadata.assign(score=trials.scores, target=trials.labels)


# ----- training and applying ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule, plo", [(None, 0.0), (lc.BetaRule.brier(), -2.0)])
def test_each_condition_is_fit_affine_of_its_trials_selected_with_pandas(train, rule, plo):
    calibration = lc.fit_affine_by_condition(train, "gender", rule=rule, plo=plo)
    assert isinstance(calibration, lc.ConditionalCalibration)
    table = frame_of(train)
    for gender in SHIFTS:
        rows = table[table.gender == gender]
        expected = lc.fit_affine(rows.score[rows.target].to_numpy(), rows.score[~rows.target].to_numpy(), rule, plo=plo)
        assert calibration.calibrator({"gender": gender}) == expected
        assert calibration.counts[(gender,)] == (rows.target.sum(), (~rows.target).sum())
    assert calibration.pooled == lc.fit_affine(train.tar, train.non, rule, plo=plo)


def test_fit_affine_with_by_still_answers_for_one_release_with_a_warning_naming_the_new_function(train):
    with pytest.warns(FutureWarning, match=r"fit_affine_by_condition\(trials, by\)") as caught:
        old = lc.fit_affine(train, by="gender", plo=-1.0)
    assert caught[0].filename == __file__
    new = lc.fit_affine_by_condition(train, "gender", plo=-1.0)
    assert old.calibrators == new.calibrators and old.pooled == new.pooled


def test_applying_equals_each_conditions_affine_by_hand_and_keeps_the_metadata(train, test):
    calibration = lc.fit_affine_by_condition(train, "gender")
    calibrated = calibration(test)
    table = frame_of(test)
    expected = np.empty(len(table))
    for gender in SHIFTS:
        rows = (table.gender == gender).to_numpy()
        affine = calibration.calibrators[(gender,)]
        expected[rows] = affine.scale * table.score[rows].to_numpy() + affine.offset
    np.testing.assert_array_equal(calibrated.scores, expected)
    pd.testing.assert_frame_equal(calibrated.metadata, test.metadata)
    assert calibrated.name == test.name


def test_trials_without_a_value_or_of_an_unseen_condition_get_the_pooled_calibration(train, test):
    calibration = lc.fit_affine_by_condition(train, "gender")
    metadata = test.metadata.copy()
    metadata["gender"] = metadata["gender"].astype(str)
    metadata.loc[:9, "gender"] = "-"  # no value
    metadata.loc[10:19, "gender"] = "u"  # a value never seen in training
    odd = lc.Trials(test.tar, test.non, metadata=metadata)
    llr = calibration(odd).scores
    np.testing.assert_array_equal(llr[:20], calibration.pooled(odd.scores[:20]))
    assert not calibration.has_own("u") and calibration.has_own("m")
    assert calibration.calibrator("u") is calibration.pooled


def test_spoof_trials_are_calibrated_by_their_condition():
    metadata = pd.DataFrame({"attack": ["-"] * 3 + ["A01", "A02"] * 2 + ["A01", "A02"]})
    trials = lc.Trials([3.0, 2.5, 2.0], [-1.0, 2.2, -1.5, 0.4], spoof=[1.0, -3.0], metadata=metadata)
    calibration = lc.ConditionalCalibration(by=("attack",), calibrators={("A01",): lc.Affine(2.0, 1.0)},
                                            pooled=lc.Affine(1.0, 0.0))
    calibrated = calibration(trials)
    np.testing.assert_array_equal(calibrated.tar, [3.0, 2.5, 2.0])  # no attack: pooled
    np.testing.assert_array_equal(calibrated.non, [-1.0, 2.2, -2.0, 0.4])  # A01 by 2s + 1, A02 pooled
    np.testing.assert_array_equal(calibrated.spoof, [3.0, -3.0])


def test_crossed_columns_give_one_calibration_per_combination(train):
    calibration = lc.fit_affine_by_condition(train, ["gender", "session"])
    table = frame_of(train)
    rows = table[(table.gender == "m") & (table.session == 2)]
    expected = lc.fit_affine(rows.score[rows.target].to_numpy(), rows.score[~rows.target].to_numpy())
    assert calibration.calibrator({"gender": "m", "session": 2}) == expected
    assert len(calibration.calibrators) == 3 * 4


def test_a_condition_that_cannot_be_trained_is_recorded_and_served_by_the_pooled_calibration():
    metadata = pd.DataFrame({"gender": ["f", "f", "m", "m", "f", "f", "m", "m"]})
    trials = lc.Trials([1.0, 0.0, 5.0, 6.0], [0.5, -1.0, 1.0, 2.0], metadata=metadata)  # m: separated
    calibration = lc.fit_affine_by_condition(trials, "gender")
    assert calibration.has_own("f") and not calibration.has_own("m")
    assert "do not overlap" in calibration.untrained[("m",)]
    frame = calibration.to_frame()
    assert list(frame.gender) == ["f", "m", "pooled"]
    assert list(frame["own calibration"]) == [True, False, True]
    assert frame.loc[1, "scale"] == calibration.pooled.scale
    assert list(frame.targets) == [2, 2, 4]


def test_the_old_call_forms_of_fit_affine_are_unchanged(train):
    rule = lc.BetaRule.boosting()
    assert lc.fit_affine(train.tar, train.non, rule, plo=-1.0) == lc.fit_affine(train.tar, train.non, rule=rule, plo=-1.0)
    assert lc.fit_affine(train, rule=rule, plo=-1.0) == lc.fit_affine(train.tar, train.non, rule, plo=-1.0)
    with pytest.raises(TypeError, match="by name"):
        lc.fit_affine(train, rule)
    with pytest.raises(TypeError, match="one Trials with metadata"):
        lc.fit_affine(train.tar, train.non, by="gender")
    with pytest.raises(KeyError, match="no column 'language'"):
        lc.fit_affine_by_condition(train, "language")


# ----- judged on the evaluation set -------------------------------------------------------------------------------------


def test_per_condition_beats_pooled_on_cllr_in_the_shifted_conditions(train, test):
    result = lc.calibrate_by_condition(train, test, "gender", p_target=0.1)
    frame = result.to_frame().set_index("gender")
    for gender in ("m", "x"):  # shifted and scaled: the pooled calibration is wrong for them
        assert frame.loc[gender, "Cllr per condition"] < 0.9 * frame.loc[gender, "Cllr pooled"]
    assert frame.loc["pooled", "Cllr per condition"] < frame.loc["pooled", "Cllr pooled"]
    assert list(frame.calibration) == [OWN] * 3 + ["by condition"]


def test_the_comparison_equals_metrics_of_the_subsets_calibrated_by_hand(train, test):
    op = lc.OperatingPoint(0.05, c_miss=2)
    result = lc.calibrate_by_condition(train, test, "gender", rule=lc.BetaRule.brier(), plo=-1.0, p_target=op)
    frame = result.to_frame(eer_percent=True).set_index("gender")
    table = frame_of(test)
    own = lc.fit_affine_by_condition(train, "gender", rule=lc.BetaRule.brier(), plo=-1.0)
    for gender in SHIFTS:
        rows = table[table.gender == gender]
        tar, non = rows.score[rows.target].to_numpy(), rows.score[~rows.target].to_numpy()
        for stage, calibrator in (("before", lc.Affine(1.0, 0.0)), ("pooled", own.pooled),
                                  ("per condition", own.calibrators[(gender,)])):
            assert frame.loc[gender, f"Cllr {stage}"] == pytest.approx(lc.cllr(calibrator(tar), calibrator(non)),
                                                                       rel=1e-12)
            assert frame.loc[gender, f"actDCF {stage}"] == pytest.approx(
                lc.act_dcf(calibrator(tar), calibrator(non), p_target=0.05, c_miss=2), rel=1e-12, abs=1e-15)
        assert frame.loc[gender, "EER %"] == pytest.approx(100 * lc.eer(tar, non), rel=1e-12)
        assert frame.loc[gender, "minCllr"] == pytest.approx(lc.min_cllr(tar, non), rel=1e-12)
        assert frame.loc[gender, ["targets", "non-targets"]].tolist() == [tar.size, non.size]
    everything = own(test)
    assert frame.loc["pooled", "Cllr per condition"] == pytest.approx(lc.cllr(everything.tar, everything.non))


def test_cross_validation_pooled_rows_equal_calibrate_and_evaluate(train):
    result = lc.calibrate_by_condition(train, None, "gender", folds=4, seed=3)
    reference = lc.calibrate_and_evaluate(train, None, folds=4, seed=3)
    assert result.folds == 4
    assert result.pooled.pooled.metrics.cllr == pytest.approx(reference.after.cllr, rel=1e-12)
    frame = result.to_frame().set_index("gender")
    for gender in ("m", "x"):
        assert frame.loc[gender, "Cllr per condition"] < frame.loc[gender, "Cllr pooled"]


def test_other_methods_calibrate_by_condition_too(train, test):
    result = lc.calibrate_by_condition(train, test, "gender", method="cmlg", cmlg_alpha=0.3)
    table = frame_of(train)
    rows = table[table.gender == "m"]
    assert result.calibration.calibrator("m") == lc.fit_cmlg(rows.score[rows.target], rows.score[~rows.target], 0.3)
    result = lc.calibrate_by_condition(train, test, "gender", method="pav")
    assert isinstance(result.calibration.pooled, lc.PAVCalibrator)
    assert "scale" not in result.calibration.to_frame().columns


# ----- the ASVspoof 2019 LA countermeasure demo, by attack ---------------------------------------------------------------


@pytest.fixture(scope="module")
def cm():
    return (lc.read_trials(CM / "ASVspoof2019.LA.cm.dev.scores.tsv.gz")["RawNet2-a"],
            lc.read_trials(CM / "ASVspoof2019.LA.cm.eval.scores.tsv.gz")["RawNet2-a"])


def test_cm_demo_per_attack_calibration_pairs_the_bona_fide_trials_with_each_attack(cm):
    dev, _ = cm
    calibration = lc.fit_affine_by_condition(dev, "attack")
    raw = pd.read_csv(CM / "ASVspoof2019.LA.cm.dev.scores.tsv.gz", sep="\t")
    bona_fide = raw.loc[raw.key == "bonafide", "RawNet2-a"].to_numpy()
    for attack in ("A01", "A06"):
        spoof = raw.loc[raw.attack == attack, "RawNet2-a"].to_numpy()
        assert calibration.calibrator(attack) == lc.fit_affine(bona_fide, spoof)


def test_cm_demo_evaluation_attacks_are_unseen_in_development_so_both_calibrations_agree(cm):
    """ASVspoof 2019 LA evaluates on attacks A07-A19, none of them in the development set (A01-A06): every
    evaluation attack is served by the pooled calibration, and says so."""
    dev, evaluation = cm
    result = lc.calibrate_by_condition(dev, evaluation, "attack")
    frame = result.to_frame()
    assert set(frame.calibration[:-1]) == {NOT_IN_TRAINING}
    np.testing.assert_array_equal(frame["Cllr per condition"], frame["Cllr pooled"])
    assert result.notes()[0].startswith("The pooled calibration serves attack=A07")


def test_cm_demo_cross_validated_per_attack_calibration_beats_pooled_on_most_attacks(cm):
    _, evaluation = cm
    frame = lc.calibrate_by_condition(evaluation, None, "attack").to_frame().set_index("attack")
    better = frame["Cllr per condition"] < frame["Cllr pooled"]
    assert better.all()
