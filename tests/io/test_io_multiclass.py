"""read_multiclass: text tables, .npz, .npy pairs, Parquet; score types; every bad file is a clear LoadError."""
from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
import paths
from paths import ROOT

DATA = paths.DATA / "multiclass"
ASSETS = ROOT / "assets" / "multiclass"
NAMES = ["eng", "hin", "man"]


@pytest.fixture
def trials():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, 60)
    labels[:3] = [0, 1, 2]
    llrs = np.round(2 * np.eye(3)[labels] + rng.normal(0, 1, (60, 3)), 4)
    return llrs, labels


def table_text(llrs, labels, sep=",", header=True, label_names=True, ids=False):
    lines = []
    if header:
        lines.append(sep.join((["utt"] if ids else []) + NAMES + ["label"]))
    for i, (row, k) in enumerate(zip(llrs, labels)):
        fields = ([f"u{i:03d}"] if ids else []) + [f"{v:.4f}" for v in row] + [NAMES[k] if label_names else str(k)]
        lines.append(sep.join(fields))
    return "\n".join(lines) + "\n"


def check(scores, llrs, labels, classes=tuple(NAMES)):
    np.testing.assert_allclose(scores.llrs, llrs, atol=1e-12)
    np.testing.assert_array_equal(scores.labels, labels)
    assert scores.classes == tuple(classes)


@pytest.mark.parametrize("sep", [",", "\t", ";", " "])
def test_table_with_header_and_class_name_labels(tmp_path, trials, sep):
    path = tmp_path / "lre.csv"
    path.write_text(table_text(*trials, sep=sep))
    scores = lc.read_multiclass(path)
    check(scores, *trials)
    assert scores.name == "lre"


def test_table_with_ids_label_column_first_and_class_numbers(tmp_path, trials):
    llrs, labels = trials
    frame = pd.DataFrame(llrs, columns=NAMES)
    frame.insert(0, "class", labels)
    frame.insert(0, "segment", [f"s{i}" for i in range(labels.size)])
    path = tmp_path / "scores.tsv"
    frame.to_csv(path, sep="\t", index=False, float_format="%.4f")
    check(lc.read_multiclass(path), llrs, labels)


def test_table_without_header_has_numbered_classes_and_accepts_names(tmp_path, trials):
    path = tmp_path / "plain.txt"
    path.write_text("# a comment\n\n" + table_text(*trials, sep=" ", header=False, label_names=False))
    check(lc.read_multiclass(path), *trials, classes=("0", "1", "2"))
    check(lc.read_multiclass(path, classes=NAMES), *trials)


def test_label_column_by_name_or_position(tmp_path, trials):
    llrs, labels = trials
    frame = pd.DataFrame(llrs, columns=NAMES)
    frame.insert(1, "truth_id", labels)
    path = tmp_path / "odd.csv"
    frame.to_csv(path, index=False)
    check(lc.read_multiclass(path, label_column="truth_id"), llrs, labels)
    check(lc.read_multiclass(path, label_column=1), llrs, labels)
    with pytest.raises(lc.LoadError, match="no column named 'nope'"):
        lc.read_multiclass(path, label_column="nope")


def test_gzip_and_file_like_upload(tmp_path, trials):
    data = gzip.compress(table_text(*trials).encode())
    path = tmp_path / "lre.csv.gz"
    path.write_bytes(data)
    check(lc.read_multiclass(path), *trials)
    upload = io.BytesIO(table_text(*trials).encode())
    upload.name = "uploaded lre.csv"
    scores = lc.read_multiclass(upload)
    check(scores, *trials)
    assert scores.name == "uploaded lre"


def test_npz_with_class_names_and_npy_pair(tmp_path, trials):
    llrs, labels = trials
    path = tmp_path / "lre.npz"
    np.savez(path, scores=llrs, labels=labels, classes=np.array(NAMES))
    check(lc.read_multiclass(path), llrs, labels)
    np.save(tmp_path / "scores.npy", llrs.astype(np.float32))
    np.save(tmp_path / "targets.npy", labels)
    (tmp_path / "labels.txt").write_text("\n".join(NAMES[k] for k in labels) + "\n")
    check(lc.read_multiclass(tmp_path / "scores.npy", labels=tmp_path / "targets.npy"), llrs.astype(np.float32),
          labels, classes=("0", "1", "2"))
    check(lc.read_multiclass(tmp_path / "scores.npy", labels=tmp_path / "labels.txt", classes=NAMES),
          llrs.astype(np.float32), labels)
    check(lc.read_multiclass(tmp_path / "scores.npy", labels=labels, classes=NAMES), llrs.astype(np.float32), labels)


def test_parquet(tmp_path, trials):
    llrs, labels = trials
    frame = pd.DataFrame(llrs, columns=NAMES).assign(label=[NAMES[k] for k in labels])
    path = tmp_path / "lre.parquet"
    frame.to_parquet(path)
    check(lc.read_multiclass(path), llrs, labels)


def test_log_posteriors_and_logits_become_llrs(tmp_path):
    scores = np.load(DATA / "iemocap_wav2vec_pt" / "scores.npy").astype(np.float64)
    labels = np.load(DATA / "iemocap_wav2vec_pt" / "targets.npy")
    prior = np.bincount(labels) / labels.size
    read = lc.read_multiclass(DATA / "iemocap_wav2vec_pt" / "scores.npy", labels=labels, score_type="log-posterior",
                              training_prior="empirical")
    np.testing.assert_allclose(read.llrs, scores - np.log(prior))
    cifar = lc.read_multiclass(DATA / "cifar10_resnet-20" / "scores.npy",
                               labels=DATA / "cifar10_resnet-20" / "targets.npy", score_type="logit")
    np.testing.assert_allclose(cifar.llrs, np.load(DATA / "cifar10_resnet-20" / "scores.npy"))
    # CIFAR-10 logits are not normalised: calling them log-posteriors is refused with the trial's row
    with pytest.raises(lc.LoadError, match=r"not log-posteriors.*row 0 of the score matrix"):
        lc.read_multiclass(DATA / "cifar10_resnet-20" / "scores.npy",
                           labels=DATA / "cifar10_resnet-20" / "targets.npy", score_type="log-posterior")
    probabilities = tmp_path / "p.csv"
    probabilities.write_text("a,b,label\n0.2,0.8,b\n0.6,0.4,a\n")
    with pytest.raises(lc.LoadError, match="line 2: these look like probabilities"):
        lc.read_multiclass(probabilities, score_type="log-posterior")


def test_demo_assets_load_with_their_published_counts():
    iemocap = lc.read_multiclass(ASSETS / "iemocap_wav2vec_pt" / "scores.npy",
                                 labels=ASSETS / "iemocap_wav2vec_pt" / "targets.npy", score_type="log-posterior")
    assert iemocap.llrs.shape == (5473, 4) and iemocap.counts.tolist() == [1103, 1611, 1684, 1075]
    cifar = lc.read_multiclass(ASSETS / "cifar10_resnet-20" / "scores.npy",
                               labels=ASSETS / "cifar10_resnet-20" / "targets.npy", score_type="logit")
    assert cifar.llrs.shape == (10_000, 10) and cifar.counts.tolist() == [1000] * 10


@pytest.mark.parametrize("text, problem", [
    ("eng,hin,label\n0.1,0.2,eng\n0.1,oops,hin\n", "line 3: the 'hin' score 'oops' is not a number"),
    ("eng,hin,label\n0.1,0.2,eng\n0.1,,hin\n", "line 3: the 'hin' score is missing"),
    ("eng,hin,label\n0.1,0.2,eng\n0.3,0.2,fra\n", "line 3: the label 'fra' is neither a class name (eng, hin)"),
    ("0.1 0.2 0\n0.3 0.4 2\n", "line 2: the label '2' is neither a class name (0, 1) nor a class number 0 to 1 "
                               "(class numbers count from 0)"),
    ("eng,hin,label\n", "the file has a header line but no trials"),
    ("", "the file is empty"),
    ("eng,label\n0.1,eng\n", "at least 2 score columns"),
    ("eng,hin,label\n0.1,0.2,eng\n0.1,0.2\n", "line 3: this line has 2 columns but line 2 has 3"),
    ("eng,hin,label\n0.1,inf,eng\n0.1,0.2,hin\n", "line 2: a score is +inf"),
    ("eng,hin,label\n0.1,0.2,eng\n0.3,0.4,eng\n", "there are no trials of class 'hin'"),
    ("eng,eng,label\n0.1,0.2,eng\n0.3,0.4,eng\n", "the class name 'eng' is used twice"),
])
def test_bad_tables_are_explained(tmp_path, text, problem):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(lc.LoadError) as error:
        lc.read_multiclass(path)
    assert str(error.value).startswith("bad.csv")
    assert problem in str(error.value)


def test_bad_numpy_files_are_explained(tmp_path, trials):
    llrs, labels = trials
    np.save(tmp_path / "scores.npy", llrs)
    with pytest.raises(lc.LoadError, match="give the labels too"):
        lc.read_multiclass(tmp_path / "scores.npy")
    with pytest.raises(lc.LoadError, match="scores.npy: there are 60 rows of scores but 59 labels"):
        lc.read_multiclass(tmp_path / "scores.npy", labels=labels[:-1])
    np.savez(tmp_path / "objects.npz", scores=llrs, labels=np.array([object()] * 60, dtype=object))
    with pytest.raises(lc.LoadError, match="pickled data"):
        lc.read_multiclass(tmp_path / "objects.npz")
    np.savez(tmp_path / "nolabels.npz", scores=llrs)
    with pytest.raises(lc.LoadError, match="needs the labels in an array named 'labels'"):
        lc.read_multiclass(tmp_path / "nolabels.npz")
    np.savez(tmp_path / "flat.npz", scores=llrs[:, 0], labels=labels)
    with pytest.raises(lc.LoadError, match=r"has shape \(60,\); a \(trials x classes\) matrix"):
        lc.read_multiclass(tmp_path / "flat.npz")
    bad = llrs.copy()
    bad[7, 1] = np.nan
    np.savez(tmp_path / "nan.npz", scores=bad, labels=labels)
    with pytest.raises(lc.LoadError, match=r"missing \(NaN\).*row 7 of the score matrix"):
        lc.read_multiclass(tmp_path / "nan.npz")
    (tmp_path / "broken.npz").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(lc.LoadError, match="not a readable .npz"):
        lc.read_multiclass(tmp_path / "broken.npz")
    table = tmp_path / "t.csv"
    table.write_text(table_text(llrs, labels))
    with pytest.raises(lc.LoadError, match="own label column"):
        lc.read_multiclass(table, labels=labels)
    with pytest.raises(lc.LoadError, match="does not exist"):
        lc.read_multiclass(tmp_path / "missing.csv")
    with pytest.raises(lc.LoadError, match="score type 'cosine' is not known"):
        lc.read_multiclass(table, score_type="cosine")
