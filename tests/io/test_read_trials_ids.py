"""Repeated (model, test) pairs and keys that miss trials, said in one sentence with counts (issue 30); the pairs
matched exactly whatever their 64-bit numbers do.

Independent references: the counts are made by hand in each test (``collections.Counter`` over the lines written,
set differences of the pairs); the exactness of the join is checked against a dictionary of the pairs built here
in plain Python, and against the same files read with a hash that makes every pair collide.
"""
from __future__ import annotations

import re
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import llrcore as lc


def _one_sentence(text: str) -> bool:
    """One sentence: a single full stop, question or exclamation mark that ends it (none followed by a capital)."""
    return text.endswith(".") and not re.search(r"[.?!]\s+[A-Z]", text) and "\n" not in text


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _kaldi(tmp_path, pairs, labels=None, name="scores.txt"):
    rows = [f"{m} {t} {0.5 * i - 3:.2f}" for i, (m, t) in enumerate(pairs)] if labels is None else \
        [f"{m} {t} {label}" for (m, t), label in zip(pairs, labels)]
    return _write(tmp_path / name, rows)


PAIRS = [(f"m{i % 4}", f"t{i}") for i in range(10)]
LABELS = ["target" if i % 3 == 0 else "nontarget" for i in range(10)]


def test_a_pair_scored_twice_is_one_sentence_counting_pairs_and_lines(tmp_path):
    pairs = PAIRS[:6] + [PAIRS[1], PAIRS[4], PAIRS[1]] + PAIRS[6:]  # 'm1 t1' three times, 'm0 t4' twice
    scores = _kaldi(tmp_path, pairs)
    key = _kaldi(tmp_path, PAIRS, LABELS, "key.txt")
    counts = Counter(pairs)
    repeated_pairs = sum(c > 1 for c in counts.values())  # 2
    repeating_lines = sum(c - 1 for c in counts.values())  # 3
    error = pytest.raises(lc.LoadError, lc.read_trials, scores, key=key).value
    message = str(error)
    assert message.startswith("scores.txt, line 7: ") and error.line == 7, message
    assert _one_sentence(error.reason), message
    assert "'m1 t1' appears a second time (first on line 2)" in message
    assert f"here {repeated_pairs} pairs appear more than once" in message
    assert f"{repeating_lines} lines of {len(pairs)} repeat a pair of an earlier line" in message


def test_a_pair_twice_in_the_key_names_the_key(tmp_path):
    scores = _kaldi(tmp_path, PAIRS)
    key = _kaldi(tmp_path, PAIRS + [PAIRS[3]], LABELS + ["target"], "key.txt")
    error = pytest.raises(lc.LoadError, lc.read_trials, scores, key=key).value
    assert str(error).startswith("key.txt, line 11: ") and _one_sentence(error.reason), str(error)
    assert "the key entry 'm3 t3' appears a second time (first on line 4)" in error.reason
    assert "here 1 pair appears more than once (1 line of 11 repeats a pair of an earlier line)" in error.reason


def test_a_four_column_file_with_a_repeated_pair(tmp_path):
    lines = [f"{m} {t} {i / 4:.2f} {label}" for i, ((m, t), label) in enumerate(zip(PAIRS, LABELS))]
    path = _write(tmp_path / "four.txt", lines + [lines[2].replace(" target", " nontarget")])
    error = pytest.raises(lc.LoadError, lc.read_trials, path).value
    assert error.line == 11 and _one_sentence(error.reason), str(error)
    assert "'m2 t2' appears a second time (first on line 3)" in error.reason and "1 line of 11 repeats" in error.reason


def test_a_key_sharing_no_trial_is_one_sentence_with_both_counts(tmp_path):
    scores = _kaldi(tmp_path, PAIRS[:7])
    key = _kaldi(tmp_path, [(f"x{i}", f"y{i}") for i in range(5)], LABELS[:5], "other.key")
    error = pytest.raises(lc.LoadError, lc.read_trials, scores, key=key).value
    assert str(error).startswith("scores.txt: ") and _one_sentence(error.reason), str(error)
    assert "none of its 7 scored trials is in the key other.key" in error.reason
    assert "none of the key's 5 trials is scored here" in error.reason
    assert "'m0 t0' on line 1" in error.reason and "'x0 y0' on line 1" in error.reason


def test_a_key_missing_some_scored_trials_warns_in_one_sentence_per_file(tmp_path):
    scored = PAIRS
    keyed = PAIRS[2:] + [("m9", "t99"), ("m9", "t98")]
    keyed_labels = LABELS[2:] + ["target", "nontarget"]
    scores, key = _kaldi(tmp_path, scored), _kaldi(tmp_path, keyed, keyed_labels, "key.txt")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trials = lc.read_trials(scores, key=key)
    left_out = len(set(scored) - set(keyed))  # 2
    unscored = len(set(keyed) - set(scored))  # 2
    messages = [str(w.message) for w in caught if issubclass(w.category, lc.LoadWarning)]
    assert len(messages) == 2 and all(_one_sentence(m.split(": ", 1)[1]) for m in messages), messages
    assert messages[0].startswith(f"scores.txt: {left_out} of {len(scored)} scored trials are not in the key key.txt")
    assert messages[1].startswith(f"key.txt: {unscored} of the {len(keyed)} trials of the key have no score in "
                                  "scores.txt (targets: 1 of")
    assert len(trials) == len(set(scored) & set(keyed))


def _reference(scored, keyed, labels):
    """The trials a key selects, by a plain dictionary of pairs: targets then non-targets, in score-file order."""
    label_of = dict(zip(keyed, labels))
    kept = [(0.5 * i - 3, label_of[p]) for i, p in enumerate(scored) if p in label_of]
    return (np.round([s for s, l in kept if l == "target"], 2), np.round([s for s, l in kept if l == "nontarget"], 2))


@pytest.mark.parametrize("collide", [False, "all", "some"])
def test_the_join_is_exact_even_when_pairs_share_their_number(tmp_path, monkeypatch, collide):
    rng = np.random.default_rng(30)
    scored = [(f"spk{rng.integers(40):03d}", f"utt_{i:05d}.wav") for i in range(600)]
    scored = list(dict.fromkeys(scored))
    keyed = [scored[i] for i in rng.permutation(len(scored))[:450]] + [("spk999", "utt_x")]
    labels = ["target" if rng.random() < 0.2 else "nontarget" for _ in keyed]
    if collide == "all":  # the number says nothing: only the ids themselves can tell the pairs apart
        monkeypatch.setattr("llrcore.io.kaldi.pair_hash", lambda models, tests: np.zeros(len(models), np.uint64))
    elif collide == "some":  # a few pairs share one number: a run of several equal numbers, each pair tried on the ids
        from llrcore.io.ids import pair_hash as real
        chosen = [t for _, t in scored[:5]] + [t for _, t in keyed[:5]] + ["utt_x"]

        def some(models, tests):
            numbers = real(models, tests)
            numbers[np.isin(np.array(tests.to_pylist(), object), chosen)] = 12345
            return numbers

        monkeypatch.setattr("llrcore.io.kaldi.pair_hash", some)
    scores, key = _kaldi(tmp_path, scored), _kaldi(tmp_path, keyed, labels, "key.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lc.LoadWarning)
        trials = lc.read_trials(scores, key=key)
    tar, non = _reference(scored, keyed, labels)
    np.testing.assert_array_equal(trials.tar, tar)
    np.testing.assert_array_equal(trials.non, non)
    label_of = dict(zip(keyed, labels))
    expected = [p for p in scored if label_of.get(p) == "target"] + [p for p in scored if label_of.get(p) == "nontarget"]
    got = list(zip(trials.metadata["model"].astype(str), trials.metadata["test"].astype(str)))
    assert got == expected


@pytest.mark.parametrize("collide", [False, True])
def test_repeats_are_found_exactly_when_numbers_collide(tmp_path, monkeypatch, collide):
    if collide:
        monkeypatch.setattr("llrcore.io.kaldi.pair_hash", lambda models, tests: np.zeros(len(models), np.uint64))
    pairs = PAIRS + [PAIRS[5]]
    key = _kaldi(tmp_path, PAIRS, LABELS, "key.txt")
    error = pytest.raises(lc.LoadError, lc.read_trials, _kaldi(tmp_path, pairs), key=key).value
    assert error.line == 11 and "'m1 t5' appears a second time (first on line 6)" in error.reason
    assert "here 1 pair appears more than once" in error.reason
    assert lc.read_trials(_kaldi(tmp_path, PAIRS, name="fine.txt"), key=key).tar.size == LABELS.count("target")


def test_metadata_ids_are_built_on_first_use_and_equal_the_files_ids(tmp_path):
    pairs = PAIRS
    path = _write(tmp_path / "four.txt", [f"{m} {t} {i:.1f} {label}" for i, ((m, t), label)
                                          in enumerate(zip(pairs, LABELS))])
    trials = lc.read_trials(path)
    assert "_metadata" in vars(trials) and not isinstance(vars(trials)["_metadata"], pd.DataFrame)  # not built yet
    frame = trials.metadata
    order = [i for i in range(10) if LABELS[i] == "target"] + [i for i in range(10) if LABELS[i] != "target"]
    assert list(frame["model"].astype(str)) == [pairs[i][0] for i in order]
    assert list(frame["test"].astype(str)) == [pairs[i][1] for i in order]
    assert str(frame["model"].dtype) == "category" and list(frame["model"].cat.categories) == ["m0", "m1", "m2", "m3"]
    assert trials.where(model="m1").tar.size + trials.where(model="m1").non.size == 3


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_comment_blank_and_indented_lines_read_as_before_and_bad_lines_keep_their_numbers(tmp_path, sep):
    rows = [sep.join((m, t, f"{i / 4:.2f}", label)) for i, ((m, t), label) in enumerate(zip(PAIRS, LABELS))]
    plain = lc.read_trials(_write(tmp_path / "plain.txt", rows))
    # a comment of exactly four words parses as a row: it must still be left out
    odd = rows[:3] + [sep.join(("#", "a", "1.0", "target")), ""] + rows[3:6] + ["  " + rows[6]] + rows[7:]
    read = lc.read_trials(_write(tmp_path / "odd.txt", odd))
    np.testing.assert_array_equal(read.tar, plain.tar)
    np.testing.assert_array_equal(read.non, plain.non)
    assert list(read.metadata["test"].astype(str)) == list(plain.metadata["test"].astype(str))
    bad = odd[:9] + [sep.join(("m9", "t9", "abc", "target"))] + odd[9:]
    error = pytest.raises(lc.LoadError, lc.read_trials, _write(tmp_path / "bad.txt", bad)).value
    assert error.line == 10 and "the score 'abc' is not a number" in error.reason


def test_ids_of_every_length_match_whatever_the_other_ids_of_their_file(tmp_path):
    # a pair's number may not depend on its neighbours: the score file has one very long id the key lacks, the key
    # one short id the score file lacks, so the two files' longest and shortest ids differ
    pairs = [(f"m{i % 3}", "t" * (1 + i % 17) + str(i)) for i in range(60)]
    scored = pairs + [("m0", "x" * 40)]
    keyed = pairs[::-1] + [("m", "y")]
    labels = ["target" if i % 4 == 0 else "nontarget" for i in range(len(keyed))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lc.LoadWarning)
        trials = lc.read_trials(_kaldi(tmp_path, scored), key=_kaldi(tmp_path, keyed, labels, "key.txt"))
    tar, non = _reference(scored, keyed, labels)
    np.testing.assert_array_equal(trials.tar, tar)
    np.testing.assert_array_equal(trials.non, non)
    assert len(trials) == len(pairs)


def test_a_pairs_numbers_do_not_depend_on_the_other_rows_or_the_chunks():
    pa = pytest.importorskip("pyarrow")
    from llrcore.io.ids import pair_hash

    rng = np.random.default_rng(7)
    letters = list("ab_é/.0123456789")
    words = ["".join(rng.choice(letters, rng.integers(0, 30))) for _ in range(200)]
    models, tests = words[:100], words[100:]
    cuts = np.sort(rng.choice(np.arange(1, 100), 6, replace=False)).tolist()

    def chunked(values):
        return pa.chunked_array([pa.array(values[a:b], pa.string()) for a, b in zip([0, *cuts], [*cuts, 100])])

    together = pair_hash(chunked(models), chunked(tests))
    other_cuts = pa.chunked_array([pa.array(tests[:3]), pa.array(tests[3:50]), pa.array(tests[50:])])
    np.testing.assert_array_equal(pair_hash(chunked(models), other_cuts), together)
    for i in range(100):  # each pair alone: the reference
        alone = pair_hash(pa.chunked_array([pa.array([models[i]])]), pa.chunked_array([pa.array([tests[i]])]))
        assert together[i] == alone[0]
    distinct = len(set(zip(models, tests)))
    assert len(set(together.tolist())) == distinct
