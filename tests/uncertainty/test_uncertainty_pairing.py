"""The paired comparison pairs trials as fusion does: by ids that identify a trial, else by line order, and says how.

Independent references:
- pandas: the other system's scores put in the first system's trial order by ``DataFrame.merge`` on the ids; the
  paired bootstrap of the merged scores by line order must give the same replicates, bit for bit;
- design: a system compared with itself (in any line order) differs by exactly 0 in every replicate, so its
  interval is exactly (0, 0); ids that repeat identify no trial, so only line order can pair them;
- English: the verdict sentence reads "so the difference could be chance" (not "is could be").
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import llrcore as lc


def cm_table(seed: int = 1, n: int = 600) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.3
    return pd.DataFrame({"utt": [f"LA_E_{i:07d}" for i in range(n)], "label": label,
                         "a": np.where(label, 2.0, 0.0) + rng.normal(size=n),
                         "b": np.where(label, 2.5, 0.0) + rng.normal(size=n)})


def system(table: pd.DataFrame, column: str, ids=("utt",)) -> lc.Trials:
    return lc.Trials.from_labels(table[column].to_numpy(), table["label"].to_numpy(), column,
                                 metadata=table[list(ids)].reset_index(drop=True))


def test_the_same_trials_in_another_order_differ_by_exactly_zero_when_paired_by_utt():
    table = cm_table()
    shuffled = table.sample(frac=1, random_state=4)
    a, a_shuffled = system(table, "a"), system(shuffled, "a")
    comparison = lc.compare_systems(a, a_shuffled, n=60, seed=2)
    assert comparison.interval("eer") == (0.0, 0.0)
    assert (comparison.differences.to_numpy() == 0).all()
    assert comparison.paired_by == "utt"
    assert "(paired by utt)" in comparison.sentence("eer")
    assert comparison.to_frame()["paired_by"].eq("utt").all()


def test_pairing_by_utt_equals_merging_the_files_with_pandas():
    table = cm_table(seed=3)
    shuffled = table.sample(frac=1, random_state=5)
    merged = table[["utt", "label", "a"]].merge(shuffled[["utt", "b"]], on="utt")  # B in A's order, by pandas
    by_ids = lc.compare_systems(system(table, "a"), system(shuffled, "b"), n=40, seed=6)
    by_hand = lc.compare_systems(lc.Trials.from_labels(merged.a, merged.label, "a"),
                                 lc.Trials.from_labels(merged.b, merged.label, "b"), n=40, seed=6)
    np.testing.assert_array_equal(by_ids.differences.to_numpy(), by_hand.differences.to_numpy())
    assert by_hand.paired_by == "line order"


def test_model_and_test_pair_as_one_id_and_trial_ids_pair_too():
    table = cm_table(seed=7)
    table["model"] = [f"m{i % 20}" for i in range(len(table))]
    table["test"] = [f"t{i // 20}" for i in range(len(table))]  # (model, test) unique, neither alone
    table["trial"] = table["utt"]
    shuffled = table.sample(frac=1, random_state=8)
    pair = lc.compare_systems(system(table, "a", ("model", "test")), system(shuffled, "a", ("model", "test")), n=20)
    assert pair.paired_by == "model and test" and pair.interval("cllr") == (0.0, 0.0)
    trial = lc.compare_systems(system(table, "a", ("trial",)), system(shuffled, "a", ("trial",)), n=20)
    assert trial.paired_by == "trial" and trial.interval("eer") == (0.0, 0.0)


@pytest.mark.parametrize("ids, paired_by", [
    (("model",), "line order"),                      # a model id alone is no trial id
    (("test",), "line order"),                       # nor a test id that repeats
    (("model", "test"), "line order (the model and test ids repeat, in the same order in both)"),
])
def test_identical_trials_whose_ids_do_not_identify_a_trial_pair_by_line_order(ids, paired_by):
    table = cm_table(seed=9, n=120)
    table["model"] = [f"m{i % 6}" for i in range(len(table))]
    table["test"] = [f"t{i % 40}" for i in range(len(table))]
    table.loc[5, ["model", "test"]] = table.loc[4, ["model", "test"]].to_numpy()  # one (model, test) pair twice
    trials = system(table, "a", ids)
    comparison = lc.compare_systems(trials, trials, n=30, seed=1)
    assert (comparison.differences.to_numpy() == 0).all()
    assert comparison.paired_by == paired_by
    aligned = lc.align_systems({"x": trials, "y": trials})  # fusion pairs the same way: the same code
    assert not aligned.by_ids and np.array_equal(aligned.tar[:, 0], aligned.tar[:, 1])


def test_ids_that_repeat_in_another_order_are_refused_with_how_to_pair():
    table = cm_table(seed=11, n=80)
    table["model"] = "m0"
    table["test"] = [f"t{i % 40}" for i in range(len(table))]  # every (model, test) twice: 40 repeats
    trials = system(table, "a", ("model", "test"))
    reordered = system(table.iloc[::-1], "a", ("model", "test"))
    message = (r"a has 40 trials with the same model and test as another \(e\.g\. model m0, test t\d+\), so its "
               r"trials cannot be paired by their ids, and the two lists are not in the same order to pair them line "
               r"by line: give every trial an id of its own \(a trial column\) or list the trials in the same order "
               r"in both files\.$")
    with pytest.raises(ValueError, match=message):
        lc.compare_systems(trials, reordered, n=10)
    with pytest.raises(ValueError, match=message):
        lc.align_systems({"a": trials, "b": reordered})


def test_missing_trials_are_said_with_an_example_id():
    table = cm_table(seed=12, n=100)
    with pytest.raises(ValueError, match=r"a and b were not scored on the same trials: 1 of the 100 trials of a are "
                       r"missing from b \(e\.g\. utt LA_E_0000000\)\. Compare systems scored on the same trial list\."):
        lc.compare_systems(system(table, "a"), system(table.iloc[1:], "b"), n=10)


def test_the_verdict_is_english_and_the_repr_is_short():
    rng = np.random.default_rng(13)
    a = lc.Trials(rng.normal(2, 1, 300), rng.normal(0, 1, 2000), name="A")
    b = lc.Trials(a.tar + rng.normal(0, 0.05, 300), a.non + rng.normal(0, 0.05, 2000), name="B")
    comparison = lc.compare_systems(a, b, n=200, seed=1)
    low, high = comparison.interval("cllr")
    assert low < 0 < high
    assert comparison.sentence("cllr").endswith("so the difference could be chance.")
    assert "is could be" not in comparison.sentence("cllr")
    for result in (comparison, lc.bootstrap(a, n=200, seed=1), lc.bootstrap(a, n=200, seed=1).det_band):
        text = repr(result)
        assert len(text) < 300 and "array" not in text and "\n" not in text, text
    assert "200 replicates" in repr(comparison) and "paired by line order" in repr(comparison)
