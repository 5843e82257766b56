"""``llrcore evaluate --scheduler`` and ``llrcore embeddings``: the numbers are the library's, bad input is one line.

Independent references: the whole score file read by ``lc.read_trials`` and evaluated by ``lc.evaluate`` (the
files given to the command are its parts, written here as Parquet); the brute-force cosines of every pair of the
embeddings (numpy's Gram matrix of the unit vectors), evaluated by ``lc.eer`` and ``lc.min_dcf``. A scheduler's
address is that of a LocalCluster of threads of this process.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from paths import DATA

distributed = pytest.importorskip("distributed")
pytest.importorskip("duckdb")

ASV_EVAL = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def parts(tmp_path) -> list[str]:
    trials = pd.read_csv(ASV_EVAL, sep=" ", header=None, names=["attack", "label", "score"])
    paths = []
    for number, rows in enumerate(np.array_split(np.arange(len(trials)), 3)):
        paths.append(str(tmp_path / f"part-{number}.parquet"))
        trials.iloc[rows][["score", "label"]].to_parquet(paths[-1], index=False)
    return paths


@pytest.fixture
def embedding_files(tmp_path):
    rng = np.random.default_rng(44)
    labels = rng.integers(0, 30, 600)
    vectors = rng.normal(size=(30, 16))[labels] + rng.normal(size=(600, 16))
    np.save(tmp_path / "emb.npy", vectors)
    (tmp_path / "labels.txt").write_text("".join(f"spk{label}\n" for label in labels))
    return tmp_path / "emb.npy", tmp_path / "labels.txt", vectors, labels


def test_evaluate_on_a_scheduler_gives_the_numbers_of_the_whole_file(scheduler, parts, capsys):
    assert main(["evaluate", "--scheduler", scheduler, *parts, "--p-target", "0.05", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()
    whole = lc.evaluate(lc.read_trials(ASV_EVAL), p_target=0.05)
    assert (row["targets"], row["non-targets"]) == (whole.n_tar, whole.n_non)
    assert row["EER %"] == 100 * whole.eer
    assert (row["minDCF"], row["actDCF"], row["Cllr"], row["minCllr"]) == (
        whole.min_dcf, whole.act_dcf, whole.cllr, whole.min_cllr)


def test_evaluate_on_a_scheduler_refuses_what_counts_cannot_give(scheduler, parts, capsys):
    assert main(["evaluate", "--scheduler", scheduler, *parts, "--by", "attack"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "leave out --by" in error


def test_embeddings_gives_the_brute_force_metrics(embedding_files, capsys):
    path, labels_path, vectors, labels = embedding_files
    assert main(["embeddings", str(path), str(labels_path), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    first, second = np.triu_indices(len(unit), 1)
    same = labels[first] == labels[second]
    cosines = np.einsum("ij,ij->i", unit[first], unit[second])
    assert (row["targets"], row["non-targets"]) == (same.sum(), (~same).sum())
    assert row["EER %"] == 100 * lc.eer(cosines[same], cosines[~same])
    assert row["minDCF"] == lc.min_dcf(cosines[same], cosines[~same], p_target=0.01)


def test_embeddings_on_a_scheduler_and_in_bins(embedding_files, scheduler, capsys):
    path, labels_path, _, _ = embedding_files
    assert main(["embeddings", str(path), str(labels_path), "--json"]) == 0
    here = capsys.readouterr().out
    assert main(["embeddings", str(path), str(labels_path), "--json", "--scheduler", scheduler]) == 0
    assert capsys.readouterr().out == here
    exact = json.loads(here)
    assert main(["embeddings", str(path), str(labels_path), "--bins", "200", "--json"]) == 0
    bounds = json.loads(capsys.readouterr().out)
    (row,) = exact.values()
    assert bounds["EER % low"] <= row["EER %"] <= bounds["EER % high"]
    assert bounds["minDCF low"] <= row["minDCF"] <= bounds["minDCF high"]
    assert main(["embeddings", str(path), str(labels_path), "--bins", "200"]) == 0
    assert "counted in 200 bins of width 0.01" in capsys.readouterr().out


@pytest.mark.parametrize("change, message", [
    ("labels", "600 embeddings but 599 labels"),
    ("npy", "not a NumPy .npy file"),
    ("blank", "labels.txt, line 2: no label"),
])
def test_embeddings_bad_input_is_one_line(embedding_files, capsys, change, message):
    path, labels_path, _, _ = embedding_files
    lines = labels_path.read_text().splitlines()
    if change == "labels":
        labels_path.write_text("\n".join(lines[:-1]) + "\n")
    elif change == "npy":
        path.write_text("not an array\n")
    else:
        labels_path.write_text("\n".join([lines[0], "", *lines[2:]]) + "\n")
    assert main(["embeddings", str(path), str(labels_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error
