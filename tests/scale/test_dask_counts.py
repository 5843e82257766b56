"""``lc.read_counts`` of many files, on this machine (DuckDB) and on a Dask cluster (``engine="dask"``): the counts of
the parts merged are those of the trials read whole, and every metric is the same float.

Independent references: the whole file read by ``lc.read_trials`` (which sorts the trials themselves and never sees a
count); the counts of the two halves added by ``CountedScores.__add__`` (tests/scale/test_merge_counts.py holds that
sum to ``lc.Trials``). Real data: the ASVspoof 2019 LA ASV evaluation scores of tests/data (SOURCE.txt there), cut
into Parquet files in ``tmp_path``, one of them with target trials only; the Kaldi score file and key of
tests/data/formats cut into three score files with their three keys. One LocalCluster of two workers (threads of
this process, tests/scale/conftest.py) serves the module.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from paths import DATA
from test_merge_counts import assert_metrics_of_trials, assert_same_table

distributed = pytest.importorskip("distributed")
pytest.importorskip("duckdb")

ASV_EVAL = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
KALDI_SCORES, KALDI_KEY = DATA / "formats" / "kaldi_scores.txt", DATA / "formats" / "kaldi_key.txt"
PARTS = 7


@pytest.fixture(scope="module")
def parquet_parts(tmp_path_factory) -> list:
    """The ASV evaluation trials (target, non-target and spoof) in 7 Parquet files of uneven sizes; sorted by label
    first, so the first file holds non-target trials only and the last target trials only."""
    folder = tmp_path_factory.mktemp("parts")
    trials = pd.read_csv(ASV_EVAL, sep=" ", header=None, names=["attack", "label", "score"])
    trials = trials.sort_values("label", kind="stable")
    cuts = np.sort(np.random.default_rng(44).choice(np.arange(1, len(trials)), PARTS - 1, replace=False))
    paths = []
    for number, rows in enumerate(np.split(np.arange(len(trials)), cuts)):
        paths.append(folder / f"part-{number}.parquet")
        trials.iloc[rows][["score", "label"]].to_parquet(paths[-1], index=False)
    assert set(pd.read_parquet(paths[0])["label"]) == {"nontarget"}
    return paths


def test_dask_and_duckdb_give_every_metric_of_the_trials_read_whole(client, parquet_parts):
    whole = lc.read_trials(ASV_EVAL)
    pattern = str(parquet_parts[0].parent / "part-*.parquet")
    on_cluster = lc.read_counts(pattern, engine="dask", client=client)
    here = lc.read_counts(parquet_parts)
    assert_same_table(on_cluster, here)
    assert_metrics_of_trials(on_cluster, whole)


def test_the_counts_of_two_halves_added_are_the_whole(client, tmp_path):
    trials = pd.read_csv(ASV_EVAL, sep=" ", header=None, names=["attack", "label", "score"])
    halves = [tmp_path / "even.parquet", tmp_path / "odd.parquet"]
    for start, path in enumerate(halves):  # every other trial: each half holds both classes
        trials.iloc[start::2][["score", "label"]].to_parquet(path, index=False)
    first, second = (lc.read_counts(path, engine="dask", client=client) for path in halves)
    whole = lc.read_counts(halves, engine="dask", client=client)
    assert_same_table(first + second, whole)
    assert_metrics_of_trials(whole, lc.read_trials(ASV_EVAL))


def test_score_files_with_their_keys_are_joined_file_by_file(client, tmp_path):
    scores = KALDI_SCORES.read_text().splitlines()
    key = KALDI_KEY.read_text().splitlines()
    score_paths, key_paths = [], []
    for number, rows in enumerate(([0, 1], [2, 3], [4, 5])):  # each score file's pairs in its own key
        pairs = {" ".join(scores[row].split()[:2]) for row in rows}
        score_paths.append(tmp_path / f"scores-{number}.txt")
        key_paths.append(tmp_path / f"key-{number}.txt")
        score_paths[-1].write_text("".join(scores[row] + "\n" for row in rows))
        key_paths[-1].write_text("".join(line + "\n" for line in key if " ".join(line.split()[:2]) in pairs))
    table = lc.read_counts(score_paths, key_paths, engine="dask", client=client)
    assert_metrics_of_trials(table, lc.read_trials(KALDI_SCORES, key=KALDI_KEY))
    assert_same_table(table, lc.read_counts(str(tmp_path / "scores-*.txt"), str(tmp_path / "key-*.txt")))


def test_a_part_without_a_score_column_is_named(client, parquet_parts, tmp_path):
    bad = tmp_path / "no-score.parquet"
    pd.DataFrame({"value": [1.0, 2.0], "label": ["target", "nontarget"]}).to_parquet(bad)
    with pytest.raises(lc.LoadError) as caught:
        lc.read_counts([*parquet_parts[:2], bad], engine="dask", client=client)
    assert caught.value.path == str(bad) and "score" in caught.value.reason


def test_a_label_of_neither_class_names_the_file_and_line(client, tmp_path):
    good, bad = tmp_path / "a.txt", tmp_path / "b.txt"
    good.write_text("1.5 target\n-0.5 nontarget\n")
    bad.write_text("0.5 target\n0.25 maybe\n")
    with pytest.raises(lc.LoadError) as caught:
        lc.read_counts([good, bad], engine="dask", client=client)
    assert (caught.value.path, caught.value.line) == (str(bad), 2)


def test_parts_of_one_class_together_need_both(client, parquet_parts):
    with pytest.raises(lc.LoadError, match="files have no target trials") as caught:
        lc.read_counts(parquet_parts[:1] * 2, engine="dask", client=client)
    assert caught.value.path.startswith(str(parquet_parts[0]))


def test_a_worker_that_died_names_its_part(client):
    from llrcore.scale.dask_counts import count_on_cluster

    with pytest.raises(ValueError, match=r"^b\.parquet: the worker counting this part failed \(KilledWorker"):
        count_on_cluster(_dies_on_b, ["a", "b", "c"], ["a.parquet", "b.parquet", "c.parquet"], client=client)


def _dies_on_b(part: str):
    """What the client sees of a part whose worker died (the scheduler gives up on the task: KilledWorker)."""
    if part == "b":
        raise distributed.KilledWorker(f"count-{part}", SimpleNamespace(address="tcp://10.0.0.7:40331"), 3)
    return (np.array([1.0]), np.array([1]), np.array([0])), []


def test_unpaired_keys_and_unknown_engines_are_sentences(parquet_parts):
    with pytest.raises(lc.LoadError, match="7 score files but 1 key:"):
        lc.read_counts(parquet_parts, KALDI_KEY)
    with pytest.raises(ValueError, match="Unknown engine 'spark'"):
        lc.read_counts(parquet_parts, engine="spark")
    with pytest.raises(lc.LoadError, match="no score file matches the pattern"):
        lc.read_counts(str(parquet_parts[0].parent / "none-*.parquet"))
