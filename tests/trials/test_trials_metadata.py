"""Metadata riding with the trials: subsets and conditions.

Independent references: a subset's scores are compared with a direct boolean selection on the full table held by
pandas (the metadata and the scores in the caller's own order), not with anything the Trials computed.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import llrcore as lc


@pytest.fixture()
def table() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 400
    return pd.DataFrame({
        "score": rng.normal(size=n),
        "label": rng.random(n) < 0.3,
        "gender": rng.choice(["f", "m"], n),
        "duration": rng.choice([10, 30], n),
    })


def trials_of(table: pd.DataFrame) -> lc.Trials:
    return lc.Trials.from_labels(table["score"], table["label"], name="sys",
                                 metadata=table[["gender", "duration"]])


def test_metadata_follows_the_scores_targets_first(table):
    trials = trials_of(table)
    expected = pd.concat([table[table.label], table[~table.label]])
    np.testing.assert_array_equal(trials.scores, expected["score"])
    np.testing.assert_array_equal(trials.metadata["gender"], expected["gender"])
    assert trials.conditions == ["gender", "duration"]


@pytest.mark.parametrize("gender", ["f", "m"])
def test_where_equals_a_direct_selection(table, gender):
    subset = trials_of(table).where(gender=gender)
    chosen = table[table.gender == gender]
    np.testing.assert_array_equal(np.sort(subset.tar), np.sort(chosen.loc[chosen.label, "score"]))
    np.testing.assert_array_equal(np.sort(subset.non), np.sort(chosen.loc[~chosen.label, "score"]))
    assert (subset.metadata["gender"] == gender).all() and len(subset.metadata) == len(chosen)
    assert subset.name == f"sys (gender={gender})"


def test_where_compares_as_text_and_crosses_columns(table):
    subset = trials_of(table).where(gender="f", duration="10")
    chosen = table[(table.gender == "f") & (table.duration == 10)]
    assert len(subset) == len(chosen)


def test_where_names_a_missing_column(table):
    with pytest.raises(KeyError, match="no column 'language'.*gender, duration"):
        trials_of(table).where(language="en")


def test_a_subset_needs_both_classes(table):
    trials = trials_of(table)
    with pytest.raises(ValueError, match="No non-target trial"):
        trials.subset(trials.labels)


def test_metadata_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="3 rows but there are 2 trials"):
        lc.Trials([1.0], [0.0], metadata=pd.DataFrame({"g": ["a", "b", "c"]}))


def test_trials_without_metadata_have_empty_rows():
    trials = lc.Trials([1.0, 2.0], [0.0], spoof=[5.0])
    assert trials.metadata.shape == (4, 0) and trials.conditions == []


def test_spoof_rows_come_last_and_a_mask_over_scored_trials_keeps_them():
    meta = pd.DataFrame({"attack": ["-", "-", "-", "A1", "A2"]})
    trials = lc.Trials([1.0, 2.0], [0.0], spoof=[5.0, 6.0], metadata=meta)
    kept = trials.subset([True, False, True])
    np.testing.assert_array_equal(kept.spoof, [5.0, 6.0])
    assert list(kept.metadata["attack"]) == ["-", "-", "A1", "A2"]


def test_replace_keeps_the_metadata(table):
    trials = trials_of(table)
    renamed = dataclasses.replace(trials, name="other", tar=trials.tar + 1)
    assert renamed.metadata.equals(trials.metadata)


def test_where_keeps_the_trials_without_a_value_as_split_does():
    meta = pd.DataFrame({"attack": ["-", "-", "A1", "A2", "A1"]})
    trials = lc.Trials.from_labels([3.0, 2.0, 1.0, 0.0, 0.5], [True, True, False, False, False], metadata=meta)
    subset = trials.where(attack="A1")
    np.testing.assert_array_equal(np.sort(subset.tar), [2.0, 3.0])
    np.testing.assert_array_equal(np.sort(subset.non), [0.5, 1.0])
    split = dict((values["attack"], part) for values, part in trials.split("attack"))
    np.testing.assert_array_equal(np.sort(split["A1"].non), np.sort(subset.non))


@pytest.mark.parametrize("gender", ["f", "m"])
def test_the_files_order_of_the_classes_rides_with_the_trials(table, gender):
    """`file_labels` and `in_file_order` give back the caller's own order (the pandas table), whole and for a
    condition (`where`); a scaled copy (dataclasses.replace, as log10 files are read) keeps it; two arrays say none."""
    trials = trials_of(table)
    np.testing.assert_array_equal(trials.file_labels, table["label"])
    scores, labels = trials.in_file_order()
    np.testing.assert_array_equal(scores, table["score"])
    np.testing.assert_array_equal(labels, table["label"])
    chosen = table[table.gender == gender]
    scores, labels = trials.where(gender=gender).in_file_order()
    np.testing.assert_array_equal(scores, chosen["score"])
    np.testing.assert_array_equal(labels, chosen["label"])
    scaled = dataclasses.replace(trials, tar=2 * trials.tar, non=2 * trials.non)
    np.testing.assert_array_equal(scaled.in_file_order()[0], 2 * table["score"])
    plain = lc.Trials(trials.tar, trials.non)
    assert plain.file_labels is None
    np.testing.assert_array_equal(plain.in_file_order()[1], plain.labels)


def test_file_labels_that_do_not_fit_the_classes_are_refused():
    with pytest.raises(ValueError, match=r"file_labels must hold one label per target and non-target trial \(1 True"):
        lc.Trials([1.0], [0.0, 2.0], file_labels=[True, True, False])


def test_a_read_file_keeps_its_order(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("0.5 nontarget\n2.0 target\n-1 nontarget\n0.1 spoof\n1.5 target\n")
    trials = lc.read_trials(path)
    np.testing.assert_array_equal(trials.in_file_order()[0], [0.5, 2.0, -1.0, 1.5])  # spoof trials kept apart
    np.testing.assert_array_equal(trials.file_labels, [False, True, False, True])
