"""The fast (pyarrow) path of the text readers gives exactly what the file says.

Independent references: every file here is also parsed with plain Python (``str.split`` and ``float``, which rounds
correctly) and joined with a ``dict`` on the (model, test) pair; the scores, their order (targets then non-targets,
each in file order) and the ids must be equal to the last bit. Irregular files (runs of spaces, tabs, indentation,
comments, a bad value) must read as their regular twin or give the careful path's sentence naming the line.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import llrcore as lc


def _score_text(rng: np.random.Generator, n: int) -> list[str]:
    """Scores as people's files write them: 17 significant digits, 6 decimals, exponents, signs."""
    values = rng.normal(0, 5, n)
    forms = [repr(float(v)) for v in values]
    for i in range(0, n, 7):
        forms[i] = f"{values[i]:.6f}"
    for i in range(3, n, 11):
        forms[i] = f"{values[i]:.15e}"
    for i in range(5, n, 13):
        forms[i] = f"+{abs(values[i]):.17g}"
    return forms


def _kaldi_files(tmp_path, n: int = 30_000, seed: int = 7):
    """A score file, and its key in shuffled order covering most of its pairs plus pairs it lacks."""
    rng = np.random.default_rng(seed)
    models = [f"spk{m:04d}" for m in rng.integers(0, 500, n)]
    tests = [f"utt_{t:06d}.wav" for t in rng.permutation(n)]
    scores = _score_text(rng, n)
    labels = np.where(rng.random(n) < 0.15, "target", "nontarget")
    (tmp_path / "s.scores").write_text("".join(f"{m} {t} {s}\n" for m, t, s in zip(models, tests, scores)))
    keep = rng.random(n) < 0.9
    key_lines = [f"{m} {t} {lab}\n" for m, t, lab, k in zip(models, tests, labels, keep) if k]
    key_lines += [f"spk9999 extra_{i} nontarget\n" for i in range(50)]
    (tmp_path / "s.key").write_text("".join(key_lines[i] for i in rng.permutation(len(key_lines))))
    return tmp_path / "s.scores", tmp_path / "s.key"


def _plain_join(scores_path, key_path):
    """Targets, non-targets and their ids, by str.split, float and a dict: the reference."""
    key = {}
    for line in key_path.read_text().splitlines():
        m, t, lab = line.split()
        key[(m, t)] = lab == "target"
    rows = []
    for line in scores_path.read_text().splitlines():
        m, t, s = line.split()
        if (m, t) in key:
            rows.append((key[(m, t)], float(s), m, t))
    tar = [r for r in rows if r[0]]
    non = [r for r in rows if not r[0]]
    return (np.array([r[1] for r in tar]), np.array([r[1] for r in non]),
            [r[2] for r in tar + non], [r[3] for r in tar + non])


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def test_kaldi_scores_joined_with_a_shuffled_key_are_the_plain_join(tmp_path):
    scores, key = _kaldi_files(tmp_path)
    with pytest.warns(lc.LoadWarning):
        trials = lc.read_trials(scores, key=key)
    tar, non, models, tests = _plain_join(scores, key)
    assert _same_bits(trials.tar, tar) and _same_bits(trials.non, non)
    assert trials.metadata["model"].astype(str).tolist() == models
    assert trials.metadata["test"].astype(str).tolist() == tests
    assert isinstance(trials.metadata["test"].dtype, pd.CategoricalDtype)  # ids as codes, not Python strings


def test_four_column_file_is_the_plain_parse(tmp_path):
    rng = np.random.default_rng(3)
    n = 25_000
    scores = _score_text(rng, n)
    labels = np.where(rng.random(n) < 0.2, "target", "nontarget")
    lines = [f"m{i % 97} t{i} {s} {lab}\n" for i, (s, lab) in enumerate(zip(scores, labels))]
    path = tmp_path / "four.txt"
    path.write_text("".join(lines))
    trials = lc.read_trials(path)
    fields = [line.split() for line in lines]
    tar = np.array([float(f[2]) for f in fields if f[3] == "target"])
    non = np.array([float(f[2]) for f in fields if f[3] == "nontarget"])
    assert _same_bits(trials.tar, tar) and _same_bits(trials.non, non)
    ordered = [f for f in fields if f[3] == "target"] + [f for f in fields if f[3] == "nontarget"]
    assert trials.metadata["test"].astype(str).tolist() == [f[1] for f in ordered]
    # what the analyses read from the metadata works on these codes
    assert len(lc.evaluate_by_condition(trials, "model").to_frame()) == 98  # 97 models and the pooled row
    assert len(trials.where(model="m5")) == sum(f[0] == "m5" for f in fields)
    assert lc.bootstrap(trials, n=5, group_by="model", seed=1).interval("eer") is not None


def test_the_fast_path_reads_regular_files_without_pandas_parser(tmp_path, monkeypatch):
    """A regular file never reaches pandas' CSV parser (the slow path that built millions of Python strings)."""
    scores, key = _kaldi_files(tmp_path, n=2_000)

    def refuse(*args, **kwargs):
        raise AssertionError("pandas.read_csv was called for a regular file")

    monkeypatch.setattr(pd, "read_csv", refuse)
    with pytest.warns(lc.LoadWarning):
        lc.read_trials(scores, key=key)
    (tmp_path / "two.csv").write_text("score,label\n" + "".join(f"{i / 7},{'target' if i % 3 else 'non'}\n"
                                                                for i in range(1000)))
    assert lc.read_trials(tmp_path / "two.csv").tar.size == 666


@pytest.mark.parametrize("mangle", [
    lambda text: text.replace(" ", "  "),                          # runs of spaces
    lambda text: text.replace(" ", "\t", 3),                       # tabs mixed with spaces
    lambda text: text.replace("\n", "\n  ", 5),                    # indented lines
    lambda text: text.replace("\n", "\n# a comment\n\n", 4),       # comments and blank lines
    lambda text: text.replace("\n", " \n", 9),                     # spaces at the ends of lines
])
def test_irregular_whitespace_reads_as_the_regular_file(tmp_path, mangle):
    scores, key = _kaldi_files(tmp_path, n=3_000, seed=11)
    with pytest.warns(lc.LoadWarning):
        regular = lc.read_trials(scores, key=key)
    scores.write_text(mangle(scores.read_text()))
    with pytest.warns(lc.LoadWarning):
        irregular = lc.read_trials(scores, key=key)
    assert _same_bits(irregular.tar, regular.tar) and _same_bits(irregular.non, regular.non)
    assert irregular.metadata["test"].astype(str).tolist() == regular.metadata["test"].astype(str).tolist()


@pytest.mark.parametrize("bad, reason", [("abc", "the score 'abc' is not a number"),
                                          ("nan", "is missing (NaN)"),
                                          ("", "this line has 2 columns but line 1 has 3")])
def test_a_bad_line_far_down_is_named_by_the_careful_path(tmp_path, bad, reason):
    scores, key = _kaldi_files(tmp_path, n=20_000, seed=5)
    lines = scores.read_text().splitlines(keepends=True)
    m, t, _ = lines[17_344].split()
    lines[17_344] = f"{m} {t} {bad}\n".replace("  ", " ").replace(" \n", "\n")
    scores.write_text("".join(lines))
    with pytest.raises(lc.LoadError) as caught:
        lc.read_trials(scores, key=key)
    assert caught.value.line == 17_345
    assert reason in str(caught.value)


def test_repeated_pairs_are_one_sentence_with_counts(tmp_path):
    lines = [f"m{i % 5} t{i} {i / 10} {'target' if i % 2 else 'nontarget'}\n" for i in range(100)]
    lines += [lines[10], lines[20], lines[20]]
    (tmp_path / "dup.txt").write_text("".join(lines))
    with pytest.raises(lc.LoadError) as caught:
        lc.read_trials(tmp_path / "dup.txt")
    message = str(caught.value)
    assert caught.value.line == 101 and "first on line 11" in message
    assert "3 lines of 103 repeat a pair of an earlier line" in message
    assert message.count(".") <= 3 and "\n" not in message  # one sentence (the dots of 'dup.txt' and the end)


def test_key_and_scores_sharing_no_trial_is_one_sentence_with_counts(tmp_path):
    (tmp_path / "a.scores").write_text("".join(f"m{i} t{i} {i}\n" for i in range(40)))
    (tmp_path / "b.key").write_text("".join(f"x{i} y{i} target\n" for i in range(7)))
    with pytest.raises(lc.LoadError) as caught:
        lc.read_trials(tmp_path / "a.scores", key=tmp_path / "b.key")
    message = str(caught.value)
    assert "none of its 40 scored trials is in the key b.key" in message
    assert "'m0 t0' on line 1" in message and "'x0 y0' on line 1" in message


def test_decimal_comma_and_semicolons(tmp_path):
    values = ["1,5", "-2,25", "3,125e-3", "0,1"]
    text = "score;label\n" + "".join(f"{v};{'target' if i % 2 else 'nontarget'}\n" for i, v in enumerate(values))
    (tmp_path / "comma.csv").write_text(text)
    trials = lc.read_trials(tmp_path / "comma.csv")
    assert trials.tar.tolist() == [float("-2.25"), float("0.1")]
    assert trials.non.tolist() == [1.5, float("3.125e-3")]
