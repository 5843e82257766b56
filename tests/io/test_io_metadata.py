"""Tests of the metadata the readers keep (``Trials.metadata``), of ``read_trials(..., metadata=...)`` and of
countermeasure (bona fide / spoof) files.

Independent references:
- pandas reads every example file on its own (``pd.read_csv`` / ``pd.read_parquet`` with the separator written in
  the test), and the expected metadata is that table without its score, label and system columns, the rows put in
  the order of ``Trials`` (targets, non-targets, spoof trials, each in file order) by the test itself with the label
  words it wrote;
- a metadata join is checked against ``pd.merge`` of the same two tables;
- the ASVspoof 2019 LA CM demo (assets/asvspoof2019_la_cm/, see its SOURCE.txt): its counts are those of the ASVspoof
  2019 LA evaluation protocol (7,355 bona fide, 63,882 spoof, 13 attacks A07-A19, 4,914 trials each), and the EER of
  LFCC-GMM against each attack is computed from scikit-learn's ``roc_curve`` of the pandas-read columns (ROC convex
  hull, its crossing with P_miss = P_fa, as BOSARIS' rocch2eer does).

Example files live in tests/data/formats/ (made by hand, see its README.txt); bad metadata tables are written by the
tests.
"""
from __future__ import annotations

import dataclasses
import io

import numpy as np
import pandas as pd
import pytest
from scipy.spatial import ConvexHull
from sklearn.metrics import roc_curve

import llrcore as lc
from llrcore.io import LoadError, read_trials
from paths import ROOT

FORMATS = ROOT / "tests" / "data" / "formats"
CM_DEMO = ROOT / "assets" / "asvspoof2019_la_cm"
TARGET_WORDS = {"target", "tar", "bonafide"}
SPOOF_WORDS = {"spoof"}


def named(data: str | bytes, name: str) -> io.BytesIO:
    buffer = io.BytesIO(data.encode() if isinstance(data, str) else data)
    buffer.name = name
    return buffer


def in_trial_order(frame: pd.DataFrame, labels: pd.Series, cm: bool = False) -> pd.DataFrame:
    """Rows of `frame` as Trials orders them: targets, non-targets, spoof trials (spoof = non-target for a CM)."""
    words = labels.astype(str).str.lower()
    rank = np.where(words.isin(TARGET_WORDS), 0, np.where(words.isin(SPOOF_WORDS) & (not cm), 2, 1))
    return frame.iloc[np.argsort(rank, kind="stable")].reset_index(drop=True)


def assert_metadata(trials: lc.Trials, expected: pd.DataFrame) -> None:
    """Same columns in the same order, same values (as text), numbers as numbers and words as categoricals."""
    got = trials.metadata
    assert list(got.columns) == list(expected.columns)
    assert len(got) == trials.tar.size + trials.non.size + trials.spoof.size
    for column in expected.columns:
        if pd.api.types.is_numeric_dtype(expected[column]):
            assert pd.api.types.is_numeric_dtype(got[column]), column
            np.testing.assert_array_equal(got[column].to_numpy(), expected[column].to_numpy())
        else:
            assert isinstance(got[column].dtype, pd.CategoricalDtype), column
            assert got[column].astype(str).tolist() == expected[column].astype(str).tolist(), column


def check_scores(trials: lc.Trials, scores: pd.Series, labels: pd.Series, cm: bool = False) -> None:
    words = labels.astype(str).str.lower()
    np.testing.assert_array_equal(trials.tar, scores[words.isin(TARGET_WORDS)])
    if cm:
        np.testing.assert_array_equal(trials.non, scores[words.isin(SPOOF_WORDS)])
    else:
        np.testing.assert_array_equal(trials.spoof, scores[words.isin(SPOOF_WORDS)])


# ------------------------------------------------------------------------------------------------------------------
# every format keeps its columns


def test_csv_with_a_header_keeps_every_other_column_in_file_order():
    path = FORMATS / "conditions.csv"
    table = pd.read_csv(path)
    trials = read_trials(path)
    assert_metadata(trials, in_trial_order(table[["model", "test", "gender", "duration"]], table["label"]))
    check_scores(trials, table["score"], table["label"])
    assert trials.metadata["duration"].dtype.kind == "i"
    assert trials.conditions == ["model", "test", "gender", "duration"]


def test_whitespace_text_with_comments_and_blank_lines():
    path = FORMATS / "conditions_whitespace.txt"
    table = pd.read_csv(path, sep=r"\s+", comment="#", skip_blank_lines=True)
    trials = read_trials(path)
    assert_metadata(trials, in_trial_order(table[["model", "test", "language", "snr"]], table["label"]))
    assert trials.metadata["snr"].dtype.kind == "f"


@pytest.mark.parametrize("file, columns, long", [
    ("multi_system_conditions.tsv", ["gender", "channel"], False),  # one score column per system
    ("long_systems_conditions.tsv", ["model", "test", "language"], True),  # a system column
])
def test_several_systems_keep_the_other_columns(file, columns, long):
    table = pd.read_csv(FORMATS / file, sep="\t")
    systems = read_trials(FORMATS / file)
    assert list(systems) == ["sysA", "sysB"]
    for system, trials in systems.items():
        rows = table[table["system"] == system].reset_index(drop=True) if long else table
        assert_metadata(trials, in_trial_order(rows[columns], rows["label"]))
        check_scores(trials, rows["score" if long else system], rows["label"])


def test_a_single_system_in_a_long_table_keeps_its_metadata_under_its_new_name():
    text = "system\tscore\tlabel\tgender\nA\t1.5\ttarget\tf\nA\t-1\tnontarget\tm\nA\t2\ttarget\tm\n"
    trials = read_trials(named(text, "one.tsv"), name="mine")
    assert trials.name == "mine"
    assert trials.metadata["gender"].tolist() == ["f", "m", "m"]


@pytest.mark.parametrize("wide", [False, True])
def test_parquet_keeps_its_columns_and_their_types(tmp_path, wide):
    rng = np.random.default_rng(1)
    n = 200
    table = pd.DataFrame({"model": [f"spk{i % 7}" for i in range(n)], "test": [f"utt{i}" for i in range(n)],
                          "label": np.where(rng.random(n) < 0.3, "target", "nontarget"),
                          "score": rng.normal(size=n), "age": rng.integers(20, 70, n),
                          "snr": rng.normal(10, 3, n), "tel": rng.random(n) < 0.5})
    columns = ["model", "test", "age", "snr", "tel"]
    if wide:  # without a 'score' column every column of numbers is a system's scores
        table = table.drop(columns=["age", "snr"]).rename(columns={"score": "sysA"}).assign(sysB=rng.normal(size=n))
        columns = ["model", "test", "tel"]
    path = tmp_path / "scores.parquet"
    table.to_parquet(path)
    reference = pd.read_parquet(path)
    result = read_trials(path)
    systems = result if wide else {"scores": result}
    for system, trials in systems.items():
        assert_metadata(trials, in_trial_order(reference[columns], reference["label"]))
        check_scores(trials, reference["score" if not wide else system], reference["label"])
        assert trials.metadata["tel"].dtype == bool
        if not wide:
            assert trials.metadata["age"].dtype.kind == "i" and trials.metadata["snr"].dtype.kind == "f"


def test_parquet_long_table_with_a_system_column(tmp_path):
    table = pd.DataFrame({"system": ["a", "b", "a", "b", "a", "b"], "score": [1.0, 2.0, -1.0, -2.0, 0.5, 0.0],
                          "label": ["target", "target", "nontarget", "nontarget", "nontarget", "target"],
                          "gender": ["f", "f", "m", "m", "f", "m"]})
    table.to_parquet(tmp_path / "long.parquet")
    systems = read_trials(tmp_path / "long.parquet")
    for system, trials in systems.items():
        rows = table[table["system"] == system].reset_index(drop=True)
        assert_metadata(trials, in_trial_order(rows[["gender"]], rows["label"]))


def test_kaldi_score_file_and_key_give_model_and_test_in_trial_order():
    scores = pd.read_csv(FORMATS / "kaldi_scores.txt", sep=" ", header=None, names=["model", "test", "score"])
    key = pd.read_csv(FORMATS / "kaldi_key.txt", sep=" ", header=None, names=["model", "test", "label"])
    joined = scores.merge(key, on=["model", "test"])  # in the score file's order
    trials = read_trials(FORMATS / "kaldi_scores.txt", key=FORMATS / "kaldi_key.txt")
    assert_metadata(trials, in_trial_order(joined[["model", "test"]], joined["label"]))
    check_scores(trials, joined["score"], joined["label"])


def test_kaldi_key_covering_part_of_the_scores_keeps_the_ids_of_the_trials_read(tmp_path):
    rng = np.random.default_rng(5)
    pairs = pd.DataFrame({"model": [f"m{i // 40}" for i in range(2000)], "test": [f"t{i % 40}" for i in range(2000)]})
    scores = pairs.assign(score=rng.normal(size=len(pairs)).round(6))
    key = pairs.sample(frac=0.5, random_state=3).assign(label=lambda d: np.where(rng.random(len(d)) < 0.2,
                                                                                 "target", "nontarget"))
    scores.to_csv(tmp_path / "scores.txt", sep=" ", header=False, index=False)
    key.to_csv(tmp_path / "key.txt", sep=" ", header=False, index=False)
    with pytest.warns(lc.LoadWarning):
        trials = read_trials(tmp_path / "scores.txt", key=tmp_path / "key.txt")
    joined = scores.merge(key, on=["model", "test"])
    assert_metadata(trials, in_trial_order(joined[["model", "test"]], joined["label"]))
    assert set(trials.metadata["model"].cat.categories) == set(joined["model"])  # no id of a trial left out


def test_kaldi_one_file_form_names_its_ids_model_and_test():
    table = pd.read_csv(FORMATS / "kaldi_one_file.txt", sep=" ", header=None,
                        names=["model", "test", "score", "label"])
    trials = read_trials(FORMATS / "kaldi_one_file.txt")
    assert_metadata(trials, in_trial_order(table[["model", "test"]], table["label"]))


@pytest.mark.parametrize("fmt", ["auto", "asvspoof"])
def test_asvspoof_asv_file_keeps_its_first_column_as_attack(fmt):
    table = pd.read_csv(FORMATS / "asvspoof.txt", sep=" ", header=None, names=["attack", "label", "score"])
    trials = read_trials(FORMATS / "asvspoof.txt", format=fmt)
    assert_metadata(trials, in_trial_order(table[["attack"]], table["label"]))
    check_scores(trials, table["score"], table["label"])
    spoof_attacks = trials.metadata["attack"].iloc[trials.tar.size + trials.non.size:].to_numpy()
    np.testing.assert_array_equal(trials.spoof[spoof_attacks == "A01"], table["score"][table["attack"] == "A01"])


def test_header_less_extra_columns_are_numbered():
    trials = read_trials(named("trial1 2.5 target\ntrial2 -1 nontarget\n", "s.txt"))
    assert trials.conditions == ["column1"]


def test_duplicated_or_empty_header_names_are_made_unique():
    text = "id,id,,score,label\na,b,c,1,target\nd,e,f,-1,nontarget\n"
    assert read_trials(named(text, "s.csv")).conditions == ["id", "id_2", "column3"]


# ------------------------------------------------------------------------------------------------------------------
# countermeasure files: bona fide against spoof


def test_cm_score_file_reads_bona_fide_as_targets_and_spoof_as_non_targets():
    path = FORMATS / "asvspoof_cm.txt"
    table = pd.read_csv(path, sep=" ", header=None, names=["utt", "attack", "key", "score"], keep_default_na=False)
    trials = read_trials(path)
    assert trials.spoof.size == 0
    check_scores(trials, table["score"], table["key"], cm=True)
    assert_metadata(trials, in_trial_order(table[["utt", "attack"]], table["key"], cm=True))
    assert set(trials.metadata["attack"][: trials.tar.size]) == {"-"}


def test_cm_file_with_a_speaker_column():
    path = FORMATS / "asvspoof_cm_speaker.txt"
    table = pd.read_csv(path, sep=" ", header=None, names=["speaker", "utt", "attack", "key", "score"],
                        keep_default_na=False)
    trials = read_trials(path)
    assert_metadata(trials, in_trial_order(table[["speaker", "utt", "attack"]], table["key"], cm=True))


@pytest.mark.parametrize("word", ["bonafide", "Bona-Fide", "BONAFIDE"])
def test_bona_fide_spellings(word):
    trials = read_trials(named(f"score,label\n1.5,{word}\n-2,spoof\n0.5,spoof\n", "cm.csv"))
    assert trials.tar.tolist() == [1.5] and trials.non.tolist() == [-2, 0.5]


def test_cm_parquet(tmp_path):
    pd.DataFrame({"score": [1.0, -1.0, 0.0], "key": ["bonafide", "spoof", "spoof"],
                  "attack": ["-", "A07", "A08"]}).to_parquet(tmp_path / "cm.parquet")
    trials = read_trials(tmp_path / "cm.parquet")
    assert trials.tar.tolist() == [1.0] and trials.non.tolist() == [-1.0, 0.0]
    assert trials.metadata["attack"].tolist() == ["-", "A07", "A08"]


def test_bona_fide_mixed_with_target_labels_is_an_error_naming_its_line():
    with pytest.raises(LoadError) as info:
        read_trials(named("score label\n1 target\n-1 nontarget\n# x\n2 bonafide\n", "mixed.txt"))
    assert info.value.line == 5 and "bonafide" in str(info.value) and "mixed.txt, line 5" in str(info.value)


def test_bona_fide_without_spoof_is_an_error():
    with pytest.raises(LoadError, match="bona fide trials but no spoof"):
        read_trials(named("score label\n1 bonafide\n2 bonafide\n", "cm.txt"))


# ------------------------------------------------------------------------------------------------------------------
# a metadata table joined with the trials


def test_metadata_joined_on_the_model():
    scores = pd.read_csv(FORMATS / "kaldi_scores.txt", sep=" ", header=None, names=["model", "test", "score"])
    key = pd.read_csv(FORMATS / "kaldi_key.txt", sep=" ", header=None, names=["model", "test", "label"])
    models = pd.read_csv(FORMATS / "kaldi_meta_models.csv")
    joined = scores.merge(key, on=["model", "test"]).merge(models, on="model", how="left")
    trials = read_trials(FORMATS / "kaldi_scores.txt", key=FORMATS / "kaldi_key.txt",
                         metadata=FORMATS / "kaldi_meta_models.csv")
    assert_metadata(trials, in_trial_order(joined[["model", "test", "gender", "age"]], joined["label"]))
    women = trials.where(gender="f")
    assert set(women.metadata["model"]) == {"spk001"}


def test_metadata_joined_on_model_and_test():
    scores = pd.read_csv(FORMATS / "kaldi_one_file.txt", sep=" ", header=None,
                         names=["model", "test", "score", "label"])
    pairs = pd.read_csv(FORMATS / "kaldi_meta_trials.tsv", sep="\t")
    joined = scores.merge(pairs, on=["model", "test"], how="left")
    trials = read_trials(FORMATS / "kaldi_one_file.txt", metadata=FORMATS / "kaldi_meta_trials.tsv")
    assert_metadata(trials, in_trial_order(joined[["model", "test", "channel"]], joined["label"]))


def test_metadata_joined_on_the_test_of_a_csv_and_given_as_a_buffer():
    table = pd.read_csv(FORMATS / "conditions.csv")
    tests = pd.DataFrame({"test": ["utt_004", "utt_003", "utt_002", "utt_001"], "room": ["a", "b", "a", "c"]})
    joined = table.merge(tests, on="test", how="left")
    trials = read_trials(FORMATS / "conditions.csv", metadata=named(tests.to_csv(index=False), "rooms.csv"))
    assert_metadata(trials, in_trial_order(joined[["model", "test", "gender", "duration", "room"]], table["label"]))


def test_metadata_matched_row_by_row_when_it_has_no_id_column():
    scores = pd.read_csv(FORMATS / "two_column.csv")
    rows = pd.read_csv(FORMATS / "two_column_rows.csv")
    trials = read_trials(FORMATS / "two_column.csv", metadata=FORMATS / "two_column_rows.csv")
    words = scores["label"].str.lower().map({"target": "target", "tar": "target"}).fillna("nontarget")
    assert_metadata(trials, in_trial_order(rows, words))


def test_metadata_table_in_parquet_and_joined_with_a_long_table(tmp_path):
    pd.DataFrame({"model": ["spk2", "spk1"], "gender": ["m", "f"]}).to_parquet(tmp_path / "models.parquet")
    systems = read_trials(FORMATS / "long_systems_conditions.tsv", metadata=tmp_path / "models.parquet")
    for trials in systems.values():
        expected = trials.metadata["model"].map({"spk1": "f", "spk2": "m"}).astype(str).tolist()
        assert trials.metadata["gender"].astype(str).tolist() == expected
        assert trials.conditions == ["model", "test", "language", "gender"]


def test_metadata_row_by_row_for_npz(tmp_path):
    np.savez(tmp_path / "s.npz", tar=[1.0, 2.0], non=[-1.0])
    trials = read_trials(tmp_path / "s.npz", metadata=named("quality\nhigh\nlow\nhigh\n", "q.txt"))
    assert trials.metadata["quality"].tolist() == ["high", "low", "high"]


def test_a_large_join_agrees_with_pandas_merge(tmp_path):
    rng = np.random.default_rng(11)
    n = 30_000
    scores = pd.DataFrame({"model": [f"m{i}" for i in rng.integers(0, 300, n)],
                           "test": [f"t{i}" for i in rng.integers(0, 2000, n)]}).drop_duplicates()
    scores = scores.assign(score=rng.normal(size=len(scores)).round(5),
                           label=np.where(rng.random(len(scores)) < 0.1, "target", "nontarget"))
    models = pd.DataFrame({"model": [f"m{i}" for i in rng.permutation(300)], "gender": rng.choice(["f", "m"], 300),
                           "height": rng.normal(170, 10, 300).round(1)})
    scores.to_csv(tmp_path / "scores.txt", sep=" ", header=False, index=False)
    models.to_csv(tmp_path / "models.csv", index=False)
    trials = read_trials(tmp_path / "scores.txt", metadata=tmp_path / "models.csv")
    joined = scores.merge(models, on="model", how="left")
    assert_metadata(trials, in_trial_order(joined[["model", "test", "gender", "height"]], joined["label"]))


# ------------------------------------------------------------------------------------------------------------------
# bad metadata: a LoadError naming the file, the line and the column


def bad(score_file, metadata_text: str, metadata_name: str = "meta.csv", **kwargs) -> LoadError:
    with pytest.raises(LoadError) as info:
        read_trials(score_file, metadata=named(metadata_text, metadata_name), **kwargs)
    return info.value


def test_a_trial_whose_id_is_not_in_the_metadata():
    error = bad(FORMATS / "kaldi_one_file.txt", "model,gender\nspk001,f\n")
    # spk002's first trial is line 4 of the score file
    assert error.path.endswith("kaldi_one_file.txt") and error.line == 4
    message = str(error)
    assert "kaldi_one_file.txt, line 4" in message and "meta.csv" in message and "'model'" in message
    assert "'spk002'" in message


def test_a_trial_whose_pair_is_not_in_the_metadata():
    error = bad(FORMATS / "kaldi_one_file.txt", "model test channel\nspk001 utt_0001 mic\nspk001 utt_0002 tel\n"
                "spk001 utt_0003 tel\nspk002 utt_0001 tel\nspk002 utt_0003 mic\n", "pairs.txt")
    assert error.line == 5 and "pairs.txt" in str(error) and "'test'" in str(error) and "'utt_0002'" in str(error)


def test_a_metadata_id_column_the_trials_lack():
    error = bad(FORMATS / "two_column.csv", "model,gender\nspk001,f\n")
    assert error.path == "meta.csv" and error.line == 1
    assert "'model'" in str(error) and "two_column.csv" in str(error) and "meta.csv, line 1" in str(error)


def test_an_id_twice_in_the_metadata():
    error = bad(FORMATS / "kaldi_one_file.txt", "model,gender\nspk001,f\n# a comment\nspk002,m\nspk001,m\n")
    assert error.path == "meta.csv" and error.line == 5
    assert "'spk001'" in str(error) and "line 2" in str(error) and "'model'" in str(error)


@pytest.mark.parametrize("rows, line, words", [(5, 6, "after 5 rows"), (7, 8, "row 7")])
def test_row_by_row_metadata_of_the_wrong_length(rows, line, words):
    text = "quality\n" + "".join(f"q{i}\n" for i in range(rows))  # two_column.csv has 6 trials
    error = bad(FORMATS / "two_column.csv", text)
    assert error.path == "meta.csv" and error.line == line and words in str(error)
    assert "'model' or 'test'" in str(error) and "two_column.csv has 6 trials" in str(error).replace("only ", "")


def test_a_metadata_column_repeating_one_of_the_score_file():
    error = bad(FORMATS / "conditions.csv", "test,gender\nutt_001,f\n")
    assert error.line == 1 and "'gender'" in str(error) and "conditions.csv" in str(error)


def test_a_metadata_table_with_only_a_header_or_ragged_rows():
    assert bad(FORMATS / "two_column.csv", "quality\n").line == 1
    error = bad(FORMATS / "two_column.csv", "a,b\n1,2\n3\n")
    assert error.line == 3 and "meta.csv, line 3" in str(error)


def test_a_missing_metadata_file():
    with pytest.raises(LoadError, match="does not exist"):
        read_trials(FORMATS / "two_column.csv", metadata=FORMATS / "no_such_meta.csv")


# ------------------------------------------------------------------------------------------------------------------
# the ASVspoof 2019 LA countermeasure demo


def rocch_eer(tar: np.ndarray, non: np.ndarray) -> float:
    """EER of the ROC convex hull: scikit-learn's ROC points, their upper hull, its crossing with P_miss = P_fa."""
    labels = np.r_[np.ones(tar.size), np.zeros(non.size)]
    fpr, tpr, _ = roc_curve(labels, np.r_[tar, non], drop_intermediate=False)
    points = np.unique(np.c_[np.r_[fpr, 1.0], np.r_[tpr, 0.0]], axis=0)  # (1, 0) closes the hull from below
    hull = points[ConvexHull(points).vertices]
    upper = hull[hull[:, 1] >= hull[:, 0] - 1e-12]
    upper = upper[np.argsort(upper[:, 0])]
    eer = 0.0
    for (f1, t1), (f2, t2) in zip(upper[:-1], upper[1:]):
        m1, m2 = 1 - t1, 1 - t2
        # the line through (f1, m1), (f2, m2) crosses pmiss = pfa at x; keep it when on the segment
        denom = (f2 - f1) - (m2 - m1)
        if denom == 0:
            continue
        x = f1 + (m1 - f1) * (f2 - f1) / denom
        if min(f1, f2) - 1e-12 <= x <= max(f1, f2) + 1e-12:
            eer = max(eer, x)
    return eer


@pytest.fixture(scope="module")
def cm_eval():
    path = CM_DEMO / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
    return path, pd.read_csv(path, sep="\t", keep_default_na=False), read_trials(path)


def test_cm_demo_counts_attacks_and_columns(cm_eval):
    _, table, systems = cm_eval
    assert list(systems) == ["LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c"]
    for trials in systems.values():
        assert (trials.tar.size, trials.non.size, trials.spoof.size) == (7355, 63882, 0)
        assert trials.conditions == ["utt", "attack"]
        counts = trials.metadata["attack"].value_counts()
        assert counts["-"] == 7355 and sorted(set(counts.index) - {"-"}) == [f"A{i:02d}" for i in range(7, 20)]
        assert set(counts.drop("-")) == {4914}
        assert trials.metadata["utt"].nunique() == 71237
        assert set(trials.metadata["attack"].iloc[:7355]) == {"-"}  # bona fide first
    assert (table["attack"] == "-").sum() == 7355 and (table["key"] == "spoof").sum() == 63882


def test_cm_demo_per_attack_eer_of_lfcc_gmm_agrees_with_scikit_learn(cm_eval):
    _, table, systems = cm_eval
    trials = systems["LFCC-GMM"]
    bona = table.loc[table["key"] == "bonafide", "LFCC-GMM"].to_numpy()
    eers = {}
    for attack in [f"A{i:02d}" for i in range(7, 20)]:
        spoof = table.loc[table["attack"] == attack, "LFCC-GMM"].to_numpy()
        subset = trials.where(attack=["-", attack])
        eers[attack] = lc.eer(subset.tar, subset.non)
        assert eers[attack] == pytest.approx(rocch_eer(bona, spoof), abs=1e-9), attack
    assert lc.eer(trials.tar, trials.non) == pytest.approx(
        rocch_eer(bona, table.loc[table["key"] == "spoof", "LFCC-GMM"].to_numpy()), abs=1e-9)
    assert max(eers, key=eers.get) == "A17"  # the hardest attack for this baseline here


def test_cm_demo_dev_part():
    systems = read_trials(CM_DEMO / "ASVspoof2019.LA.cm.dev.scores.tsv.gz")
    trials = systems["LFCC-GMM"]
    assert (trials.tar.size, trials.non.size) == (2548, 22296)
    assert sorted(set(trials.metadata["attack"]) - {"-"}) == [f"A{i:02d}" for i in range(1, 7)]


def test_renaming_keeps_the_metadata(cm_eval):
    _, _, systems = cm_eval
    renamed = dataclasses.replace(systems["LFCC-GMM"], name="baseline")
    assert renamed.metadata is not None and renamed.conditions == ["utt", "attack"]
