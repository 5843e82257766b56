"""The out-of-core path (``lc.read_counts``: DuckDB counts trials per unique score; ``CountedScores`` answers every
metric from the counts) gives the numbers of the in-memory path, to the last bit.

Independent references: the in-memory reader and engine (``lc.read_trials`` and the metrics of the Trials it returns,
which sort the trials themselves and never see a count), and DuckDB (a separate SQL engine: parsing, label join, key
join and GROUP BY all happen there, in chunks, spilling to disk under a small ``memory_limit``). Real data: the ASVspoof
2019 LA ASV scores and the FVC-AUS PLDA scores shipped in ``assets/`` (see their SOURCE.txt). Cllr is compared with
``==`` too: :func:`llrcore.binary.counts.repeated_sum` sums the costs in numpy's pairwise order, which the test of it
holds against ``np.sum`` of the repeated values.
"""
from __future__ import annotations

import gzip
import re
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

duckdb = pytest.importorskip("duckdb")

import llrcore as lc
from llrcore.binary import counts as counts_module
from paths import ASSETS

ASV = sorted((ASSETS / "asvspoof2019_la").glob("*.scores.txt"))
PRIORS = np.array([0.5, 0.1, 0.01, 0.001])


def assert_identical(trials, counted):
    """Every metric of the Trials read in memory equals that of the counts, with ==."""
    assert (counted.n_tar, counted.n_non) == (lc.evaluate(trials).n_tar, lc.evaluate(trials).n_non)
    assert lc.eer(counted) == lc.eer(trials)
    assert (lc.min_dcf(counted, p_target=PRIORS) == lc.min_dcf(trials, p_target=PRIORS)).all()
    assert (lc.act_dcf(counted, p_target=PRIORS) == lc.act_dcf(trials, p_target=PRIORS)).all()
    assert lc.cllr(counted) == lc.cllr(trials)
    assert lc.min_cllr(counted) == lc.min_cllr(trials)
    for rocch in (False, True):
        for mine, theirs in zip(lc.det_curve(counted, rocch=rocch), lc.det_curve(trials, rocch=rocch)):
            assert np.array_equal(mine, theirs)
    assert lc.evaluate(counted, p_target=0.01, name="x") == lc.evaluate(trials, p_target=0.01, name="x")
    rates, theirs = lc.bayes_error_rates(counted), lc.bayes_error_rates(trials)
    assert np.array_equal(rates.actual, theirs.actual) and np.array_equal(rates.minimum, theirs.minimum)


def write_four_column(path: Path, n: int, seed: int = 0, key: Path | None = None, scores: Path | None = None):
    """A four-column file ``model test score label`` with many ties (scores rounded to 0.01), shuffled; with `key`
    and `scores`, also its Kaldi score file and key, each in its own order, and each with pairs the other lacks."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.2
    values = np.where(labels, rng.normal(2, 1.5, n), rng.normal(-1, 1.5, n)).round(2)
    frame = pd.DataFrame({"m": [f"spk{i % 97}" for i in range(n)], "t": [f"utt{i}" for i in range(n)],
                          "s": values, "l": np.where(labels, "target", "nontarget")})
    frame.sample(frac=1, random_state=seed).to_csv(path, sep=" ", header=False, index=False)
    if key is not None:
        frame.iloc[: n - 7, :3].sample(frac=1, random_state=1).to_csv(scores, sep=" ", header=False, index=False)
        frame.iloc[5:, [0, 1, 3]].sample(frac=1, random_state=2).to_csv(key, sep=" ", header=False, index=False)


@pytest.mark.parametrize("path", ASV, ids=lambda p: p.name)
def test_asvspoof_asv_scores_identical(path):
    counted = lc.read_counts(path)
    assert_identical(lc.read_trials(path), counted)


def test_fvcaus_text_and_parquet_identical(tmp_path):
    data = np.load(ASSETS / "fvcaus_plda" / "fvcaus_plda.npz")
    trials = lc.Trials(data["tar"], data["non"])
    frame = pd.DataFrame({"score": np.concatenate([data["tar"], data["non"]]),
                          "label": ["target"] * data["tar"].size + ["nontarget"] * data["non"].size})
    frame = frame.sample(frac=1, random_state=0)
    text, parquet = tmp_path / "fvcaus.txt", tmp_path / "fvcaus.parquet"
    with open(text, "w") as file:  # repr: the shortest text that reads back as the same float
        file.write("".join(f"{s!r},{label}\n" for s, label in zip(frame.score, frame.label)))
    frame.to_parquet(parquet)
    assert_identical(lc.read_trials(text), lc.read_counts(text))
    assert_identical(trials, lc.read_counts(text))
    assert_identical(trials, lc.read_counts(parquet))


def test_four_column_file_with_ties(tmp_path):
    path = tmp_path / "four.txt"
    write_four_column(path, 30_000)
    counted = lc.read_counts(path)
    assert counted.unique.size < 3_000  # ties: far fewer unique scores than trials
    assert_identical(lc.read_trials(path), counted)


def test_kaldi_scores_joined_to_shuffled_key(tmp_path):
    four, scores, key = tmp_path / "four.txt", tmp_path / "s.scores", tmp_path / "s.key"
    write_four_column(four, 20_000, key=key, scores=scores)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        trials = lc.read_trials(scores, key=key)
    mine = []
    counted = lc.read_counts(scores, key, on_warning=mine.append)
    assert_identical(trials, counted)
    # the trials in one file only: 5 scored trials not in the key, 7 key trials without a score, counted alike
    numbers = lambda w: re.findall(r"\d[\d,]*", str(w.message if hasattr(w, "message") else w))[:2]
    assert [numbers(w) for w in mine] == [numbers(w) for w in theirs] == [["5", "19,993"], ["7", "19,995"]]


def test_small_memory_one_thread_spills_and_gives_the_same_numbers(tmp_path):
    """DuckDB under a 48 MB limit on one thread: its aggregate of (model, test) pairs spills to `temp_directory`
    (seen there while it runs), and the numbers are those of its defaults and of the in-memory path."""
    four, scores, key = tmp_path / "four.txt", tmp_path / "s.scores", tmp_path / "s.key"
    write_four_column(four, 300_000, seed=3, key=key, scores=scores)
    spill = tmp_path / "spill"
    small = {"memory_limit": "48MB", "threads": 1, "temp_directory": str(spill), "on_warning": lambda w: None}
    seen, done = set(), threading.Event()

    def watch():
        while not done.is_set():
            seen.update(path.name for path in spill.glob("*storage*"))
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        counted = lc.read_counts(four, **small)
    finally:
        done.set()
        watcher.join()
    assert seen, "DuckDB did not spill: the test reads nothing in chunks"
    assert_identical(lc.read_counts(four), counted)
    assert_identical(lc.read_trials(four), counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_identical(lc.read_trials(scores, key=key), lc.read_counts(scores, key, **small))


def test_whitespace_runs_read_on_the_careful_path(tmp_path):
    path = tmp_path / "spaced.txt"
    path.write_text("# a comment\n1.5  target\n\n -0.0 nontarget\n0.0\ttarget\n2.25 nontarget \n0.5 nontarget\n")
    assert_identical(lc.read_trials(path), lc.read_counts(path))


def test_repeated_sum_is_numpys_sum(monkeypatch):
    rng = np.random.default_rng(5)
    for leaf in (128, 1000):
        monkeypatch.setattr(counts_module, "LEAF", leaf)
        for n, most in ((1, 4), (9, 4), (300, 4), (5_000, 4), (40_001, 4), (1, 300_000), (7, 300_000), (40, 9_000)):
            values = rng.exponential(size=n) * 10.0 ** rng.integers(-6, 6, n)
            counts = rng.integers(0, most, n)  # long runs of one value: summed once per value and length
            assert counts_module.repeated_sum(values, counts) == np.sum(np.repeat(values, counts)), (leaf, n, most)


@pytest.mark.parametrize("text, line, words", [
    ("1.0 target\n2.0 nontarget\nabc target\n", 3, "the score 'abc' is not a number"),
    ("1.0 target\n2.0 nontarget\nnan target\n", 3, "is missing (NaN)"),
    ("1.0 target\n# note\n2.0 maybe\n", 3, "the label 'maybe' is not one of the accepted labels"),
    ("a b 1.0 target\nc d 2.0 nontarget\na b 3.0 nontarget\n", 3, "the trial 'a b' appears a second time"),
    ("1.0 target\n2.0 nontarget\n3.0\n", 3, "this line has 1 column but line 1 has 2"),
    ("id1/a.wav id1/b.wav 0.7\nid1/a.wav id2/c.wav -0.2\n", 1, "or a VoxCeleb trial list '1 enrol test'"),
])
def test_bad_files_are_one_sentence_with_the_line(tmp_path, text, line, words):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(lc.LoadError) as error:
        lc.read_counts(path)
    assert error.value.line == line and words in str(error.value)
    assert str(error.value).startswith("bad.txt") and "\n" not in str(error.value)


def test_key_sharing_no_trial_and_one_class_and_missing_file(tmp_path):
    scores, key = tmp_path / "s.scores", tmp_path / "k.key"
    scores.write_text("a x 1.0\nb y 2.0\n")
    key.write_text("c z target\nd w nontarget\n")
    with pytest.raises(lc.LoadError, match=r"none of its 2 scored trials is in the key k\.key"):
        lc.read_counts(scores, key)
    key.write_text("a x target\nb y target\n")
    with pytest.raises(lc.LoadError, match="no non-target trials"):
        lc.read_counts(scores, key)
    with pytest.raises(lc.LoadError, match="does not exist"):
        lc.read_counts(tmp_path / "nothing.txt")
    with open(scores, "rb") as file, pytest.raises(TypeError, match="as a path"):
        lc.read_counts(file)


def test_a_bad_line_beyond_the_sample_is_found_by_duckdb(tmp_path):
    """Past the first 64 KB Python looks at, DuckDB's reader meets the line of another width; the careful path
    counts the widths and the scan names the line."""
    path = tmp_path / "long.txt"
    lines = [f"{i / 7:.6f} {'target' if i % 5 == 0 else 'nontarget'}" for i in range(8_000)]
    lines[7_000] += " extra"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(lc.LoadError, match="this line has 3 columns but line 1 has 2") as error:
        lc.read_counts(path)
    assert error.value.line == 7_001


def test_gzip_and_quoted_csv_and_header(tmp_path):
    gz = tmp_path / "asv.txt.gz"
    gz.write_bytes(gzip.compress(ASV[0].read_bytes()))
    assert_identical(lc.read_trials(ASV[0]), lc.read_counts(gz))
    csv = tmp_path / "quoted.csv"
    csv.write_text('id,label,score\n"a","target","2.5"\n"b","nontarget","-1"\n"c","nontarget","2.5"\n')
    assert_identical(lc.read_trials(csv), lc.read_counts(csv))


def test_a_blank_run_that_keeps_the_width_is_still_a_blank_run(tmp_path):
    """'m  t 1.0' splits into four fields on single spaces (one empty) but three on runs of blanks: the careful path
    reads the line as read_trials does (three columns in a four-column file)."""
    path = tmp_path / "k.txt"
    path.write_text("m1 t1 1.0 target\nm1 t2 0.5 nontarget\nm2  t3 2.0\n")
    with pytest.raises(lc.LoadError, match="this line has 3 columns but line 1 has 4") as error:
        lc.read_counts(path)
    assert error.value.line == 3


def test_unknown_format_and_parquet_without_label(tmp_path):
    with pytest.raises(ValueError, match="Unknown format 'excel'"):
        lc.read_counts(ASV[0], format="excel")
    path = tmp_path / "x.parquet"
    pd.DataFrame({"score": [1.0], "kind": ["target"]}).to_parquet(path)
    with pytest.raises(lc.LoadError, match="needs a score column .* and a label column"):
        lc.read_counts(path)
