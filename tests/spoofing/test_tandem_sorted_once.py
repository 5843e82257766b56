"""A tandem's per-attack rows sort each class once and hand it on sorted: the same numbers as each row computed from
its trials in the order of the files.

Independent references: the ASVspoof 2019 LA evaluation scores (the organisers' ASV file and a CM's scores,
assets/), each attack's trials picked by hand with numpy from the files' ``attack`` column in file order, then
``lc.tdcf``, ``lc.eer``, ``lc.t_eer``, ``lc.a_dcf`` and ``lc.spoof_false_alarm_rate`` on them (the path the rows took
before, each function sorting its own copy): equal to the last bit; ``np.sort`` for the order of scores and
``np.unique`` for the distinct scores of sorted classes.
"""
from __future__ import annotations

import numpy as np
import pytest
from paths import ROOT

import llrcore as lc
from llrcore.data.checks import sorted_scores, unique_of_sorted

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"


@pytest.fixture(scope="module")
def evaluation():
    asv, cm = lc.read_trials(ASV), lc.read_trials(CM)["RawNet2-a"]
    return cm, asv, lc.evaluate_tandem(cm, asv)


def test_each_attack_row_is_its_file_order_trials_evaluated_from_scratch(evaluation):
    cm, asv, result = evaluation
    cm_attack = cm.metadata["attack"].to_numpy()[cm.tar.size:]
    asv_attack = asv.metadata["attack"].to_numpy()[asv.tar.size + asv.non.size:]
    table = lc.sasv_table(result).set_index("attack")
    assert len(result.attacks) == 13
    for row in result.attacks:
        spoof, asv_spoof = cm.non[cm_attack == row.attack], asv.spoof[asv_attack == row.attack]
        expected = lc.tdcf(cm.tar, spoof, asv.tar, asv.non, asv_spoof, asv_threshold=result.asv_threshold)
        assert row.tdcf.minimum == expected.minimum and row.tdcf.threshold == expected.threshold
        np.testing.assert_array_equal(row.tdcf.curve, expected.curve)
        np.testing.assert_array_equal(row.tdcf.thresholds, expected.thresholds)
        assert row.cm_eer == lc.eer(cm.tar, spoof) and row.spf_eer == lc.eer(asv.tar, asv_spoof)
        assert row.spoof_false_alarm == lc.spoof_false_alarm_rate(asv_spoof, result.asv_threshold)
        assert table.loc[row.attack, "t-EER %"] == 100 * lc.t_eer(cm.tar, spoof, asv.tar, asv.non, asv_spoof).value
        assert table.loc[row.attack, "min a-DCF (ASV)"] == lc.a_dcf(asv.tar, asv.non, asv_spoof).minimum


def test_the_rows_share_each_class_sorted_once(evaluation):
    cm, asv, result = evaluation
    first = result.attacks[0]
    np.testing.assert_array_equal(first.cm_trials.tar, np.sort(cm.tar))
    np.testing.assert_array_equal(first.asv_trials.non, np.sort(asv.non))
    for row in result.attacks:
        assert row.cm_trials.tar is first.cm_trials.tar and row.asv_trials.tar is first.asv_trials.tar
        assert all(np.all(np.diff(scores) >= 0) for scores in (row.cm_trials.non, row.asv_trials.spoof))


def test_sorted_scores_sorts_only_what_is_out_of_order():
    ascending = np.array([-np.inf, -1.0, 0.0, 0.0, 2.5, np.inf])
    assert sorted_scores(ascending, "scores") is ascending  # checked in one pass, not copied
    np.testing.assert_array_equal(sorted_scores([3, 1, 2], "scores"), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="The scores contain 1 missing values"):
        sorted_scores([1.0, np.nan], "scores")


@pytest.mark.parametrize("decimals", [None, 1])
def test_unique_of_sorted_classes_is_numpy_unique_of_them(decimals):
    rng = np.random.default_rng(3)
    classes = [np.sort(np.append(rng.normal(size=n), [np.inf, -np.inf][: n % 3])) for n in (50, 700, 31)]
    if decimals is not None:
        classes = [np.round(scores, decimals) for scores in classes]
    np.testing.assert_array_equal(unique_of_sorted(*classes), np.unique(np.concatenate(classes)))
