"""The fast paths of the Kaldi/BOSARIS join (issue 30's speed goal): one 64-bit number per (model, test) pair, computed
piece by piece; each file's numbers sorted once with their rows (for its repeats and for the join); the two files
merged, and every candidate match checked on the ids themselves, without a copy of the score file's ids.

Independent references: plain Python (``==`` on ``str``, dictionaries of the pairs, ``sorted``), numpy's
``lexsort``; the hash is made to collide on purpose (every pair, a few pairs, the high bits only) so that only the
ids can decide, and the answers are compared with those of the plain dictionary.
"""
from __future__ import annotations

import warnings
from itertools import pairwise

import numpy as np
import pyarrow as pa
import pytest

import llrcore as lc
from llrcore.io import ids, kaldi
from llrcore.io.ids import equal_neighbours, pair_hash, same_pairs, sorted_with_rows

WORDS = ["", "a", "é", "€", "𝄞", "ab", "abcdefgh", "abcdefghi", "abcdefgh\u00e9", "abcdefgh€", "id01234", "x" * 17,
         "x" * 16, "utt_0000001", "utt_00000010", "spk é 𝄞"]


def _chunked(values, cuts):
    bounds = [0, *cuts, len(values)]
    return pa.chunked_array([pa.array(values[a:b], pa.string()) for a, b in pairwise(bounds)], pa.string())


def test_same_pairs_compares_every_byte_of_multibyte_empty_and_prefix_ids():
    # ids of equal prefix and different lengths, empty ids, 2-, 3- and 4-byte UTF-8 characters across 8-byte words
    rng = np.random.default_rng(30)
    models_a = [WORDS[i] for i in rng.integers(0, len(WORDS), 300)]
    tests_a = [WORDS[i] for i in rng.integers(0, len(WORDS), 300)]
    models_b = [WORDS[i] for i in rng.integers(0, len(WORDS), 200)]
    tests_b = [WORDS[i] for i in rng.integers(0, len(WORDS), 200)]
    rows_a, rows_b = rng.integers(0, 300, 1000), rng.integers(0, 200, 1000)
    got = same_pairs(_chunked(models_a, [7, 150]), _chunked(tests_a, [299]), rows_a,
                     _chunked(models_b, [1, 2, 3]), _chunked(tests_b, []), rows_b)
    expected = [models_a[i] == models_b[j] and tests_a[i] == tests_b[j] for i, j in zip(rows_a, rows_b)]
    assert got.tolist() == expected and 0 < sum(expected) < len(expected)


def test_same_pairs_without_rows_takes_the_first_list_in_order():
    models = ["m1", "m2", "m€", ""]
    tests = ["t", "tt", "t𝄞", "x"]
    other_models = ["m1", "m2", "m€", "", "m1"]
    other_tests = ["tt", "tt", "t𝄞", "x", "t"]
    rows_b = np.array([4, 1, 2, 3])
    got = same_pairs(_chunked(models, [1]), _chunked(tests, []), None, _chunked(other_models, []),
                     _chunked(other_tests, [2]), rows_b)
    assert got.tolist() == [True, True, True, True]
    assert same_pairs(_chunked(models, []), _chunked(tests, []), None, _chunked(other_models, []),
                      _chunked(other_tests, []), np.array([0, 0, 0, 0])).tolist() == [False, False, False, False]


def test_a_pairs_number_is_the_same_whatever_the_pieces_and_the_chunks(monkeypatch):
    rng = np.random.default_rng(7)
    models = [WORDS[i] for i in rng.integers(0, len(WORDS), 500)]
    tests = [WORDS[i] + str(i % 40) for i in rng.integers(0, len(WORDS), 500)]
    reference = pair_hash(_chunked(models, []), _chunked(tests, []))
    monkeypatch.setattr(ids, "_PIECE", 7)  # pieces cut within the chunks, and chunks that differ between the columns
    pieces = pair_hash(_chunked(models, [3, 250, 251]), _chunked(tests, [100, 499]))
    np.testing.assert_array_equal(pieces, reference)
    by_pair = {}
    for pair, number in zip(zip(models, tests), reference.tolist()):
        assert by_pair.setdefault(pair, number) == number  # equal pairs, equal numbers
    assert len(set(by_pair.values())) == len(by_pair)  # different pairs, different numbers (here)


def test_sorted_with_rows_is_an_argsort_by_the_high_bits_then_the_row(monkeypatch):
    monkeypatch.setattr(ids, "_BLOCK", 64)  # several blocks
    rng = np.random.default_rng(3)
    numbers = rng.integers(0, 2**64, 1000, dtype=np.uint64)
    numbers[::7] = numbers[3]  # equal numbers: their rows in order
    bits = 1000 .bit_length() + 1
    packed = sorted_with_rows(numbers.copy(), bits)  # in place
    high = numbers >> np.uint64(bits)
    order = np.lexsort((np.arange(1000), high))
    np.testing.assert_array_equal(packed >> np.uint64(bits), high[order])
    np.testing.assert_array_equal((packed & np.uint64((1 << bits) - 1)) >> np.uint64(1), order)
    same = equal_neighbours(packed, bits)
    expected = [int(a) >> bits == int(b) >> bits for a, b in pairwise(packed)]
    assert same.tolist() == expected


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _read_both(tmp_path, scored, keyed, labels):
    scores = _write(tmp_path / "scores.txt", [f"{m} {t} {0.5 * i - 3:.2f}" for i, (m, t) in enumerate(scored)])
    key = _write(tmp_path / "key.txt", [f"{m} {t} {label}" for (m, t), label in zip(keyed, labels)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lc.LoadWarning)
        return lc.read_trials(scores, key=key)


def _expected(scored, keyed, labels):
    label_of = dict(zip(keyed, labels))
    order = [i for i, p in enumerate(scored) if label_of.get(p) == "target"] + \
        [i for i, p in enumerate(scored) if label_of.get(p) == "nontarget"]
    return [0.5 * i - 3 for i in order], [scored[i] for i in order]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("numbers", ["real", "few", "some", "high bits"])
def test_the_join_equals_a_dictionary_of_the_pairs_whatever_the_numbers_and_the_sizes(tmp_path, monkeypatch, seed,
                                                                                        numbers):
    # files of very different sizes (the smaller one's rows move to the larger one's bits), ids of every kind, and
    # numbers that collide: few distinct ones (the exact numbering), one shared by a few pairs (a run whose pairs are
    # tried one by one), or numbers that differ only in the low bits the rows take (equal high bits)
    rng = np.random.default_rng(seed)
    pool = [(WORDS[i] or "m", f"{WORDS[j]}{k}") for i, j, k in
            zip(rng.integers(0, len(WORDS), 400), rng.integers(0, len(WORDS), 400), range(400))]
    pool = [(m.replace(" ", "_"), t.replace(" ", "_") or "t") for m, t in pool]
    pool = list(dict.fromkeys(pool))
    n_scored, n_keyed = (3, 300) if seed % 2 else (300, 5)
    scored = [pool[i] for i in rng.permutation(len(pool))[:n_scored]]
    keyed = [pool[i] for i in rng.permutation(len(pool))[:n_keyed]] + scored[:2]
    keyed = list(dict.fromkeys(keyed))
    labels = ["target" if i % 2 else "nontarget" for i in range(len(keyed))]
    if numbers != "real":
        real = pair_hash
        if numbers == "few":
            def fake(models, tests):
                return real(models, tests) % np.uint64(3 + seed)
        elif numbers == "some":  # a few pairs of each file share one of three numbers: three runs, all tried at once
            chosen = [t for _, t in scored[:4] + keyed[:4]]

            def fake(models, tests):
                values = real(models, tests)
                texts = np.array(tests.to_pylist(), object)
                picked = np.isin(texts, chosen)
                values[picked] = [(len(t) % 3 + 1) << 50 for t in texts[picked]]
                return values
        else:
            def fake(models, tests):
                return real(models, tests) & np.uint64(0xF00000000000000F)
        monkeypatch.setattr(kaldi, "pair_hash", fake)
    tar_non, pairs = _expected(scored, keyed, labels)
    try:
        trials = _read_both(tmp_path, scored, keyed, labels)
    except lc.LoadError as error:  # a key leaving one class out: the reference says so too
        label_of = dict(zip(keyed, labels))
        kept = {label_of[p] for p in scored if p in label_of}
        assert kept != {"target", "nontarget"}, error
        return
    np.testing.assert_allclose(np.concatenate([trials.tar, trials.non]), tar_non)
    assert list(zip(trials.metadata["model"].astype(str), trials.metadata["test"].astype(str))) == pairs


def test_runs_of_equal_high_bits_without_a_repeat_read_and_a_real_repeat_is_still_found(tmp_path, monkeypatch):
    real = pair_hash
    # 16 x 16 distinct numbers, many sharing their high bits: neighbours to look at, repeats only where ids repeat
    monkeypatch.setattr(kaldi, "pair_hash", lambda models, tests: real(models, tests) & np.uint64(0xF00000000000000F))
    pairs = [(f"m{i % 5}", f"t{i}") for i in range(40)]
    labels = ["target" if i % 4 == 0 else "nontarget" for i in range(40)]
    four = _write(tmp_path / "four.txt", [f"{m} {t} {i / 8:.3f} {label}"
                                          for i, ((m, t), label) in enumerate(zip(pairs, labels))])
    trials = lc.read_trials(four)
    assert (trials.tar.size, trials.non.size) == (10, 30)
    again = _write(tmp_path / "again.txt", [f"{m} {t} {i / 8:.3f} {label}" for i, ((m, t), label)
                                            in enumerate(zip(pairs + [pairs[17]], labels + ["target"]))])
    error = pytest.raises(lc.LoadError, lc.read_trials, again).value
    assert error.line == 41 and "'m2 t17' appears a second time (first on line 18)" in error.reason


def test_an_empty_string_is_found_from_the_offsets_in_every_chunk():
    from llrcore.io.fast import _has_empty

    words = ["ab", "c", "é€", "d", "xyz"]
    assert not _has_empty(_chunked(words, [1, 3]))
    for at in range(len(words)):  # an empty string at either end of a chunk, or alone in one
        with_empty = words[:at] + [""] + words[at:]
        assert _has_empty(_chunked(with_empty, [at, at + 1])) and _has_empty(_chunked(with_empty, []))
    sliced = pa.chunked_array([pa.array(["", "a", "b"]).slice(1), pa.array([], pa.string())])
    assert not _has_empty(sliced)  # the empty string sliced off is not in the column


def test_the_numbers_of_some_rows_are_those_of_all_rows():
    models, tests = ["a", "b€", "", "a"], ["1", "2", "3", "1"]
    trial_list = kaldi.TrialList(None, pa.chunked_array([pa.array(models)]), pa.chunked_array([pa.array(tests)]),
                                 np.zeros(4), np.arange(1, 5), spaced=False)
    every = trial_list.numbers()
    np.testing.assert_array_equal(trial_list.numbers(np.array([3, 1])), every[[3, 1]])
    assert every[0] == every[3] and len(set(every[:3].tolist())) == 3


@pytest.mark.parametrize("variant", ["plain", "crlf", "bom", "utf8", "gzip"])
def test_a_score_file_mapped_into_memory_reads_as_its_bytes(tmp_path, variant):
    import gzip

    lines = [f"spk{i % 3} utt_{i}{'é' if variant == 'utf8' else ''} {i / 4 - 1:.2f} {'target' if i % 3 else 'nontarget'}"
             for i in range(30)]
    text = "\r\n".join(lines) if variant == "crlf" else "\n".join(lines)
    data = ("\ufeff" if variant == "bom" else "").encode() + text.encode()
    path = tmp_path / ("scores.txt.gz" if variant == "gzip" else "scores.txt")
    path.write_bytes(gzip.compress(data) if variant == "gzip" else data)
    mapped = lc.read_trials(path)
    with open(path, "rb") as file:  # a file-like object is read into bytes, never mapped
        read = lc.read_trials(file)
    np.testing.assert_array_equal(mapped.tar, read.tar)
    np.testing.assert_array_equal(mapped.non, read.non)
    expected = [i / 4 - 1 for i in range(30) if i % 3]
    np.testing.assert_allclose(mapped.tar, expected)
    assert mapped.metadata["test"].astype(str).iloc[0] == f"utt_1{'é' if variant == 'utf8' else ''}"


def test_a_mapped_file_keeps_its_sentences_for_bad_bytes_and_empty_files(tmp_path):
    from llrcore.io._source import _mapped

    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert _mapped(str(empty)) == b""
    assert pytest.raises(lc.LoadError, lc.read_trials, empty).value.reason == "the file is empty."
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"m t 1.0 target\nm u 2.0 nontarget\nm v \x00 target\n")
    error = pytest.raises(lc.LoadError, lc.read_trials, binary).value
    assert error.line == 3 and "zero byte" in error.reason
    latin = tmp_path / "latin.txt"
    latin.write_bytes("m t 1.0 target\nm caf\u00e9 2.0 nontarget\n".encode("latin-1"))
    error = pytest.raises(lc.LoadError, lc.read_trials, latin).value
    assert error.line == 2 and "0xe9 is not UTF-8" in error.reason
