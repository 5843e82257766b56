"""The fast paths of the Kaldi/BOSARIS join (issue 30's speed goal): one 64-bit number per (model, test) pair, computed
piece by piece; each file's numbers sorted once with their rows (for its repeats and for the join); the two files
merged, and every candidate match checked on the ids themselves, without a copy of the score file's ids.

Independent references: plain Python (``==`` on ``str``, dictionaries of the pairs, ``sorted``, the ids' numbers
recomputed with Python integers from ``str.encode``), numpy's ``lexsort``, pyarrow's own ``combine_chunks``; the hash
is made to collide on purpose (every pair, a few pairs, the high bits only) so that only the ids can decide, and the
answers are compared with those of the plain dictionary. The memory paths are checked by what numpy's page switch and
pyarrow's system pool report of themselves.
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


# ----- memory: few rows taken without joining the chunks, ordinary pages, the system's allocator ---------------------
def test_a_few_rows_are_taken_chunk_by_chunk_in_their_order_without_joining_the_chunks(monkeypatch):
    rng = np.random.default_rng(31)
    values = [WORDS[i] for i in rng.integers(0, len(WORDS), 2000)]
    strings = _chunked(values, [1, 2, 500, 501, 1999])
    # pyarrow.compute.take of a column of chunks joins them first (a copy of the whole column): never called here
    take = ids.pc.take

    def take_of_one_array(data, *args, **kwargs):
        if isinstance(data, pa.ChunkedArray) and data.num_chunks > 1:
            pytest.fail("the chunks were joined")
        return take(data, *args, **kwargs)

    monkeypatch.setattr(ids.pc, "take", take_of_one_array)
    rows = np.array([1999, 0, 500, 500, 1, 1234, 3, 1999, 2, 501])  # unsorted, repeated, at every chunk's edge
    assert ids.take_strings(strings, rows).to_pylist() == [values[i] for i in rows]
    assert ids.take_strings(strings, np.zeros(0, np.int64)).to_pylist() == []
    rows_b = rng.integers(0, 2000, 40)
    got = same_pairs(strings, strings, rows, strings, _chunked(values, [1000]), rows_b[:rows.size])
    assert got.tolist() == [values[i] == values[j] for i, j in zip(rows, rows_b[:rows.size])]


def test_many_rows_are_taken_as_pyarrow_takes_them():
    values = [WORDS[i] for i in np.random.default_rng(32).integers(0, len(WORDS), 100)]
    rows = np.random.default_rng(33).integers(0, 100, 300)
    assert ids.take_strings(_chunked(values, [10, 60]), rows).to_pylist() == [values[i] for i in rows]


def _numpy_uses_2mib_pages() -> bool:
    switch = np._core.multiarray._set_madvise_hugepage  # returns the setting it replaces
    state = switch(False)
    switch(state)
    return state


def test_small_pages_turns_numpys_2mib_pages_off_until_the_last_overlapping_block_ends():
    from contextlib import ExitStack

    from llrcore.memory import small_pages

    switch = np._core.multiarray._set_madvise_hugepage
    before = switch(True)
    try:
        first, second = ExitStack(), ExitStack()
        first.enter_context(small_pages())
        second.enter_context(small_pages())  # as a second thread of a server would
        assert not _numpy_uses_2mib_pages()
        first.close()
        assert not _numpy_uses_2mib_pages()  # the other block still runs
        second.close()
        assert _numpy_uses_2mib_pages()
        switch(False)  # a process that turned them off keeps them off
        with small_pages():
            pass
        assert not _numpy_uses_2mib_pages()
    finally:
        switch(before)


def test_reading_runs_on_small_pages_and_the_sort_on_numpys_own_setting(tmp_path, monkeypatch):
    # the sort keeps numpy's 2 MiB pages: in a process that sorts again and again (bench_binary's best of three) they
    # are cheaper, where the reader's arrays are made once per file
    from llrcore.binary import rates

    switch = np._core.multiarray._set_madvise_hugepage
    before = switch(True)
    try:
        path = tmp_path / "scores.txt"
        path.write_text("".join(f"m{i} t{i} {i / 7:.3f} {'target' if i % 4 else 'nontarget'}\n" for i in range(40)))
        seen = []
        trials = lc.read_trials(path, progress=lambda done, n: seen.append(_numpy_uses_2mib_pages()))
        init = rates.SortedScores.__init__

        def recording(self, *args, **kwargs):
            seen.append(_numpy_uses_2mib_pages())
            init(self, *args, **kwargs)

        monkeypatch.setattr(rates.SortedScores, "__init__", recording)
        assert lc.eer(trials) == lc.eer(trials.tar.copy(), trials.non.copy())
        assert seen[:3] == [False, True, True] and _numpy_uses_2mib_pages()
    finally:
        switch(before)


def test_the_fast_reader_takes_its_arrow_memory_from_the_system_allocator():
    from llrcore.io.fast import read_table

    pool = pa.system_memory_pool()
    held = pool.bytes_allocated()
    frame = read_table(b"".join(b"spk%d utt_%d %d.5\n" % (i, i, i) for i in range(20_000)), r"\s+", ".", 3, [], [2],
                       [0, 1])
    assert frame is not None and pool.bytes_allocated() - held > 20_000 * 8  # the ids and the scores at least


@pytest.mark.parametrize("in_order", [True, False])
def test_many_pairs_are_compared_piece_by_piece_as_python_compares_them(monkeypatch, in_order):
    monkeypatch.setattr(ids, "_COMPARED", 7)  # pieces of 7 pairs, across every chunk's edge
    rng = np.random.default_rng(34)
    models_a, tests_a = ([WORDS[i] for i in rng.integers(0, 4, 60)] for _ in range(2))
    models_b, tests_b = ([WORDS[i] for i in rng.integers(0, 4, 50)] for _ in range(2))
    rows_a = None if in_order else rng.integers(0, 60, 60)
    rows_b = rng.integers(0, 50, 60)
    got = same_pairs(_chunked(models_a, [5, 33]), _chunked(tests_a, [1]), rows_a, _chunked(models_b, [9, 10]),
                     _chunked(tests_b, [49]), rows_b)
    first = range(60) if in_order else rows_a
    expected = [models_a[i] == models_b[j] and tests_a[i] == tests_b[j] for i, j in zip(first, rows_b)]
    assert got.tolist() == expected and 0 < sum(expected) < 60


# ----- labels dictionary-encoded by the CSV reader, chunk by chunk ------------------------------------------------
def test_each_chunks_own_dictionary_is_mapped_into_one_numbering_in_order_of_first_appearance():
    from llrcore.io.fast import categorical_of

    chunks = [["nontarget", "target", "nontarget"], [], ["target", "spoof", "nontarget"], ["spoof"]]
    column = pa.chunked_array([pa.array(words, pa.string()).dictionary_encode() for words in chunks],
                              pa.dictionary(pa.int32(), pa.string()))
    values = categorical_of(column)
    flat = [word for words in chunks for word in words]
    assert list(values.astype(str)) == flat
    assert list(values.categories) == ["nontarget", "target", "spoof"]  # as the whole column first gives them


def test_a_large_file_has_its_labels_dictionary_encoded_as_it_is_parsed_and_read_right(tmp_path, monkeypatch):
    from llrcore.io import fast

    renumbered = []
    one_numbering = fast._one_numbering
    monkeypatch.setattr(fast, "_one_numbering", lambda array: renumbered.append(array.num_chunks) or
                        one_numbering(array))
    rng = np.random.default_rng(35)
    n = 120_000  # about 3 MB: several blocks of pyarrow's reader, whose dictionaries start with either label
    labels = rng.random(n) < 0.3
    labels[:1000] = False
    labels[n // 2:n // 2 + 40_000] = True
    scores = rng.normal(size=n).round(4)
    path = tmp_path / "scores.txt"
    path.write_text("".join(f"m{i % 97} t{i} {s} {'target' if t else 'nontarget'}\n"
                            for i, (s, t) in enumerate(zip(scores, labels))))
    trials = lc.read_trials(path)
    assert renumbered and renumbered[0] > 1
    np.testing.assert_array_equal(trials.tar, scores[labels])
    np.testing.assert_array_equal(trials.non, scores[~labels])


# ----- the ids' numbers: a plain Python reference, and ids of one length hashed from a strided view ---------------
_M64 = (1 << 64) - 1


def _python_string_hash(text: str) -> int:
    """The state of one id as ids._string_hash defines it, in Python integers: its length times K1, then each 8-byte
    little-endian word (the last one of its own bytes only) xor-ed in, times K2, xor-shifted by 29."""
    data = text.encode()
    h = (len(data) * 0x9E3779B97F4A7C15) & _M64
    for w in range(0, len(data), 8):
        h ^= int.from_bytes(data[w:w + 8], "little")
        h = (h * 0xBF58476D1CE4E5B9) & _M64
        h ^= h >> 29
    return h


@pytest.mark.parametrize("words", [[f"utt{i:07d}" for i in range(50)], [f"id{i:05d}" for i in range(9)],
                                   ["abcdefgh", "ijklmnop"], ["é€" * 3, "𝄞é" * 3]])
def test_ids_of_one_length_are_hashed_from_a_view_as_python_computes_it(monkeypatch, words):
    strings = pa.array(words, pa.string())[1:]  # an offset: a slice, as the pieces are
    monkeypatch.setattr(ids.np, "flatnonzero", lambda *args: pytest.fail("rows picked for ids of one length"))
    assert ids._string_hash(strings).tolist() == [_python_string_hash(w) for w in words[1:]]


def test_ids_of_many_lengths_are_hashed_as_python_computes_it():
    words = WORDS + [f"utt{i}" for i in range(0, 3000, 7)]
    assert ids._string_hash(pa.array(words, pa.string())).tolist() == [_python_string_hash(w) for w in words]


def test_a_column_of_chunks_is_joined_into_one_array_as_arrow_joins_it():
    values = [WORDS[i] for i in np.random.default_rng(36).integers(0, len(WORDS), 400)]
    column = _chunked(values, [0, 3, 3, 200, 399])  # empty chunks, a chunk of one
    sliced = column.slice(5, 390)  # chunks that start at an offset in their buffers
    for strings, expected in ((column, values), (sliced, values[5:395]), (_chunked([], []), [])):
        joined = ids._one_array(strings)
        joined.validate(full=True)
        assert joined.to_pylist() == expected and joined.equals(strings.combine_chunks())
    with_missing = pa.chunked_array([pa.array(["a", None]), pa.array(["b"])])
    assert ids._one_array(with_missing).to_pylist() == ["a", None, "b"]


@pytest.mark.parametrize("width", [1, 3, 4, 7, 8, 10, 16, 17])
def test_ids_of_one_length_are_compared_8_bytes_at_a_time_as_python_compares_them(monkeypatch, width):
    rng = np.random.default_rng(width)
    alphabet = ["a", "b", "é"] if width % 2 == 0 else ["a", "b"]  # 2-byte characters in the even widths

    def word() -> str:
        text = ""
        while len(text.encode()) < width:
            letter = alphabet[rng.integers(len(alphabet))]
            text += letter if len((text + letter).encode()) <= width else "c"
        return text

    pool = sorted({word() for _ in range(60)})
    a_words = [pool[i] for i in rng.integers(0, len(pool), 300)]
    b_words = [pool[i] for i in rng.integers(0, len(pool), 120)]
    rows = rng.integers(0, 120, 300)
    rows[-1] = 119  # the last id of b, read 8 bytes at a time
    a = _chunked(a_words, [1, 2, 150, 299]).slice(0, 300)
    expected = [x == b_words[j] for x, j in zip(a_words, rows)]
    for b in (_chunked(b_words, [60]), _chunked(b_words, [0, 1, 118]).slice(0, 120)):
        same = np.ones(300, bool)
        assert ids._same_width_equal(a, b, rows, same)
        assert same.tolist() == expected and 0 < sum(expected) < 300
    monkeypatch.setattr(ids, "_COMPARED", 50)
    got = same_pairs(a, a, None, _chunked(b_words, [7]), _chunked(b_words, []), rows)
    assert got.tolist() == expected


def test_ids_of_several_lengths_are_left_to_arrow():
    a, b = _chunked(["ab", "cd", "efg"], [1]), _chunked(["ab", "cd"], [])
    assert not ids._same_width_equal(a, b, np.array([0, 1, 1]), np.ones(3, bool))
    assert not ids._same_width_equal(b, _chunked(["abc", "def"], [1]), np.array([0, 1]), np.ones(2, bool))
    assert not ids._same_width_equal(b, _chunked(["ab", "cde"], [1]), np.array([0, 1]), np.ones(2, bool))
