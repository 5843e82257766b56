"""Metrics per condition, trials without a value shared by every condition, the rule of 30, equalised Cprimary.

Independent references: each condition's subset is selected directly with pandas from the caller's own table and
evaluated on its own; the rule of 30 is checked by counting errors at the EER by hand; the equalised cost is the
plain mean of each partition's Cprimary (NIST SRE16-21 plans: every partition weighs the same).
"""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from paths import ROOT



@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(21)
    n = 6000
    frame = pd.DataFrame({"label": rng.random(n) < 0.2, "gender": rng.choice(["f", "m"], n, p=[0.4, 0.6]),
                          "language": rng.choice(["en", "es", "zh"], n)})
    shift = frame.gender.map({"f": 0.5, "m": 0.0}) + frame.language.map({"en": 0.0, "es": -0.4, "zh": 0.3})
    frame["score"] = np.where(frame.label, 2.0, -1.0) + shift + rng.normal(0, 1.2, n)
    return frame


def trials_of(frame: pd.DataFrame, name="sys") -> lc.Trials:
    return lc.Trials.from_labels(frame.score, frame.label, name, metadata=frame.drop(columns=["score", "label"]))


def direct(frame: pd.DataFrame, op) -> lc.BinaryMetrics:
    return lc.evaluate(frame.score[frame.label].to_numpy(), frame.score[~frame.label].to_numpy(), p_target=op)


def test_each_condition_is_its_own_subset_and_pooled_is_all(table):
    op = lc.OperatingPoint(0.05, c_miss=2)
    result = lc.evaluate_by_condition(trials_of(table), "gender", p_target=op)
    assert [c.values for c in result.conditions] == [{"gender": "f"}, {"gender": "m"}]  # sorted by value
    for condition in result.conditions:
        expected = direct(table[table.gender == condition.values["gender"]], op)
        for metric in ("eer", "min_dcf", "act_dcf", "cllr", "min_cllr", "cprimary"):
            assert getattr(condition.metrics, metric) == pytest.approx(getattr(expected, metric), rel=1e-12)
    assert result.pooled.metrics.eer == pytest.approx(direct(table, op).eer, rel=1e-12)
    frame = result.to_frame(eer_percent=True)
    assert list(frame["gender"]) == [c.values["gender"] for c in result.conditions] + ["pooled"]
    assert frame["EER %"].iloc[-1] == pytest.approx(100 * direct(table, op).eer)


def test_crossed_conditions(table):
    result = lc.evaluate_by_condition(trials_of(table), ["gender", "language"])
    assert len(result.conditions) == 6
    for condition in result.conditions:
        values = condition.values
        chosen = table[(table.gender == values["gender"]) & (table.language == values["language"])]
        assert condition.metrics.n_tar == chosen.label.sum()
        assert condition.metrics.eer == pytest.approx(direct(chosen, lc.OperatingPoint(0.01)).eer, rel=1e-12)


def test_trials_without_a_value_join_every_condition():
    # As in an ASVspoof countermeasure protocol: bona fide trials (targets) have attack "-".
    rng = np.random.default_rng(4)
    attacks = np.array(["-"] * 300 + ["A01"] * 200 + ["A02"] * 200)
    label = attacks == "-"
    score = np.where(label, 1.0, np.where(attacks == "A01", -1.0, 0.5)) + rng.normal(size=attacks.size)
    frame = pd.DataFrame({"score": score, "label": label, "attack": attacks})
    result = lc.evaluate_by_condition(trials_of(frame), "attack")
    assert [c.values["attack"] for c in result.conditions] == ["A01", "A02"]
    for condition in result.conditions:
        chosen = frame[(frame.attack == condition.values["attack"]) | frame.label]
        assert condition.metrics.eer == direct(chosen, lc.OperatingPoint(0.01)).eer
        assert condition.metrics.n_tar == 300


def test_conditions_are_sorted_numbers_by_value():
    frame = pd.DataFrame({"score": [1.0, 0.0] * 3, "label": [True, False] * 3,
                          "duration": [10, 10, 8, 8, 120, 120]})
    assert [c.values["duration"] for c in lc.evaluate_by_condition(trials_of(frame), "duration").conditions] == \
        ["8", "10", "120"]


def test_the_rule_of_30_flags_conditions_by_their_errors_at_the_eer(table):
    small = pd.concat([table, pd.DataFrame({"score": [3.0, 2.5, -1.0, 0.0, 2.9], "label": [True, True, False,
                                            False, False], "gender": "x", "language": "en"})])
    result = lc.evaluate_by_condition(trials_of(small), "gender")
    for condition in result.rows:
        eer, n_tar, n_non = condition.metrics.eer, condition.metrics.n_tar, condition.metrics.n_non
        assert condition.too_few_errors == (min(eer * n_tar, eer * n_non) < 30)
    flagged = [c.label for c in result.rows if c.too_few_errors]
    assert flagged == ["gender=x"]
    assert result.notes() == ["By the rule of 30, the error rates of gender=x are not known to within ±30 %: it has "
                              "fewer than 30 misses or false alarms at its EER."]
    assert result.to_frame()["too few errors"].tolist()[-2:] == [True, False]


def test_a_condition_with_one_class_is_said_not_dropped(table):
    extra = pd.DataFrame({"score": [1.0, 2.0], "label": [True, True], "gender": "y", "language": "en"})
    result = lc.evaluate_by_condition(trials_of(pd.concat([table, extra])), "gender")
    lonely = result.conditions[-1]
    assert lonely.values == {"gender": "y"} and lonely.metrics is None
    assert "only one class" in lonely.note()
    assert result.notes()[0] == "No metric for gender=y: only one class of trials."
    assert np.isnan(result.to_frame()["EER"].iloc[-2])


def test_equalised_cprimary_is_the_mean_over_partitions(table):
    trials = trials_of(table)
    parts = [table[table.gender == g] for g in ("f", "m")]
    expected = np.mean([lc.cprimary(p.score[p.label].to_numpy(), p.score[~p.label].to_numpy(),
                                    p_target=(0.01, 0.005)) for p in parts])
    assert lc.cprimary(trials, p_target="SRE16", partition_by="gender") == pytest.approx(expected, rel=1e-12)


def brute_force_equalised_minimum(parts: list[pd.DataFrame], p_targets) -> float:
    """NIST's minimum: one threshold for all partitions, their miss and false-alarm rates averaged; every score
    tried as the threshold (and +inf)."""
    thresholds = np.append(np.unique(np.concatenate([p.score for p in parts])), np.inf)
    pmiss = np.mean([np.searchsorted(np.sort(p.score[p.label]), thresholds) / p.label.sum() for p in parts], axis=0)
    pfa = np.mean([1 - np.searchsorted(np.sort(p.score[~p.label]), thresholds) / (~p.label).sum() for p in parts],
                  axis=0)
    return np.mean([np.min(pmiss + (1 - p) / p * pfa) for p in p_targets])


def test_equalised_minimum_uses_one_threshold_for_all_partitions(table):
    trials = trials_of(table)
    parts = [table[(table.gender == g) & (table.language == lang)] for g in ("f", "m") for lang in ("en", "es", "zh")]
    expected = brute_force_equalised_minimum(parts, (0.01, 0.05))
    assert lc.cprimary(trials, p_target="SRE21", partition_by=["gender", "language"], minimum=True) == \
        pytest.approx(expected, rel=1e-10)


def test_primary_costs_by_evaluation_name():
    assert lc.prior.primary_p_targets("SRE'12") == (0.01, 0.001)
    assert lc.prior.primary_p_targets("sre18 vast") == (0.05,)
    with pytest.raises(ValueError, match="No primary cost is known for 'SRE99'"):
        lc.cprimary([1.0], [0.0], p_target="SRE99")


def test_condition_intervals_enter_the_table(table):
    result = lc.evaluate_by_condition(trials_of(table), "gender")
    seen = []
    intervals = result.bootstrap(n=20, seed=1, progress=lambda done, total: seen.append((done, total)))
    assert set(intervals) == {"gender=f", "gender=m", "pooled"} and seen[-1] == (60, 60)
    frame = result.to_frame(intervals=intervals)
    assert (frame["EER lower"] <= frame["EER"]).all() and (frame["EER"] <= frame["EER upper"]).all()


def test_breaking_down_needs_a_trials_and_a_column(table):
    with pytest.raises(TypeError, match="one Trials"):
        lc.evaluate_by_condition(table.score.to_numpy(), "gender")
    with pytest.raises(KeyError, match="no column 'channel'"):
        lc.evaluate_by_condition(trials_of(table), "channel")


def test_evaluate_with_by_still_answers_for_one_release_with_a_warning_naming_the_new_function(table):
    trials = trials_of(table)
    with pytest.warns(FutureWarning, match=r"evaluate_by_condition\(trials, by=\.\.\.\)") as caught:
        old = lc.evaluate(trials, p_target=0.05, by="gender")
    assert caught[0].filename == __file__  # the warning points at the caller's line, not at llrcore
    pd.testing.assert_frame_equal(old.to_frame(), lc.evaluate_by_condition(trials, "gender", p_target=0.05).to_frame())
    with pytest.raises(TypeError, match="one Trials"), pytest.warns(FutureWarning):
        lc.evaluate(table.score.to_numpy(), table.score.to_numpy(), by="gender")


def test_the_primary_cost_of_a_named_evaluation_rides_through_evaluate_and_bootstrap(table):
    trials = trials_of(table)
    expected = lc.cprimary(trials, p_target=(0.01, 0.05))
    assert lc.evaluate(trials, primary="SRE21").cprimary == expected
    assert lc.evaluate_by_condition(trials, "gender", primary="SRE21").pooled.metrics.cprimary == expected
    assert lc.evaluate(trials).primary == (0.01, 0.001) and lc.evaluate(trials, primary="sre16").primary == (0.01, 0.005)
    result = lc.bootstrap(trials, n=5, primary="SRE21")
    assert result.estimate.cprimary == expected
    naive = lc.bootstrap(trials, n=5, primary=(0.01, 0.05))
    pd.testing.assert_frame_equal(result.replicates, naive.replicates)


def test_condition_columns_leave_out_identifiers_with_their_reason():
    """12 trials counted by hand: gender has 2 values (conditions); utt 12 of 12 (more than half the trials: one per
    trial); model 6 values for the 12 trials, exactly half, repeats (each model twice) but more than max_values=5;
    'note' has a value on no trial; the spoof trial's own utt value does not count (only scored trials make
    conditions)."""
    frame = pd.DataFrame({
        "score": np.arange(12.0), "label": [True, False] * 6,
        "gender": ["f", "m", "f", "m", "f", "m", "-", "m", "f", "m", "f", "m"],
        "utt": [f"u{i}" for i in range(12)], "model": [f"m{i // 2}" for i in range(12)], "note": [""] * 12})
    trials = trials_of(frame)
    assert lc.condition_columns(trials, max_values=6) == lc.ConditionColumns(
        ["gender", "model"], {"utt": "one value per trial or nearly", "note": "no value on any trial"})
    found = lc.condition_columns(trials, max_values=5)
    assert found.offered == ["gender"]
    assert found.left_out["model"] == "6 values, more than 5"
    assert found.note() == ("Not offered as conditions: utt (one value per trial or nearly), model (6 values, more "
                            "than 5) and note (no value on any trial); identifiers rather than conditions.")


def test_condition_columns_of_several_systems_offer_a_column_any_of_them_has_as_a_condition(table):
    """The demo countermeasure's 'utt' (one id per trial) and 'attack' (7 values over 24,844 trials) with a system
    whose 'utt' repeats (two values): 'utt' is a condition of the second, so it is offered."""
    cm = lc.read_trials(ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.dev.scores.tsv.gz")["LFCC-GMM"]
    assert lc.condition_columns(cm) == lc.ConditionColumns(["attack"], {"utt": "one value per trial or nearly"})
    assert lc.condition_columns(cm).note() == ("Not offered as conditions: utt (one value per trial or nearly); "
                                               "identifiers rather than conditions.")
    repeated = trials_of(table.assign(utt=np.where(table.label, "a", "b")))
    assert lc.condition_columns([cm, repeated]).offered == ["utt", "attack", "gender", "language"]
    assert lc.condition_columns([cm, repeated]).left_out == {}
    assert lc.condition_columns([]) == lc.ConditionColumns([], {})
