"""Tests of llrcore.io: every format read back exactly, every bad file refused with a LoadError naming the file,
the line and the offending value.

Example files live in tests/data/formats/ (made by hand); the real ASVspoof 2019 LA ASV scores in
tests/data/asvspoof2019_la/ (see its SOURCE.txt). Other files are written into ``tmp_path`` by the tests; for a key
covering part of a score file the expected trials, counts and first lines are computed from the sets of (model, test)
pairs the test wrote, not by the reader.
"""
from __future__ import annotations

import gzip
import io
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llrcore as lc
from llrcore.data.trials import Trials
from llrcore.io import LoadError, read_trials, write_trials
from paths import DATA

FORMATS = DATA / "formats"
ASVSPOOF = DATA / "asvspoof2019_la"


def named(data: bytes | str, name: str = "scores.txt") -> io.BytesIO:
    """An in-memory upload, like Streamlit's UploadedFile (a BytesIO with a .name)."""
    buffer = io.BytesIO(data.encode() if isinstance(data, str) else data)
    buffer.name = name
    return buffer


def load_error(data: bytes | str, name: str = "scores.txt", **kwargs) -> LoadError:
    with pytest.raises(LoadError) as info:
        read_trials(named(data, name), **kwargs)
    return info.value


def assert_same(a: Trials, b: Trials) -> None:
    np.testing.assert_array_equal(a.tar, b.tar)
    np.testing.assert_array_equal(a.non, b.non)
    np.testing.assert_array_equal(a.spoof, b.spoof)


@pytest.fixture
def trials() -> Trials:
    rng = np.random.default_rng(7)
    tar = np.concatenate([rng.normal(2, 1.5, 300), [np.inf, 1e-300, -0.0, 123456789.123456789]])
    non = np.concatenate([rng.normal(-2, 1.5, 700), [-np.inf, 5e-324, 1e300]])
    return Trials(tar, non, name="toy", spoof=rng.normal(0, 3, 50))


# ------------------------------------------------------------------------------------------------------------------
# the example files


def test_public_api_is_exported():
    assert lc.read_trials is read_trials and lc.write_trials is write_trials and lc.LoadError is LoadError
    assert issubclass(LoadError, ValueError)
    assert lc.LoadWarning is lc.io.LoadWarning and issubclass(lc.LoadWarning, UserWarning)


def test_two_column_csv_with_header_and_label_spellings():
    t = read_trials(FORMATS / "two_column.csv")
    assert t.name == "two_column"
    np.testing.assert_array_equal(t.tar, [2.31, 1.05, 0.8])
    np.testing.assert_array_equal(t.non, [-0.47, -3.2, -1.9])
    assert t.spoof.size == 0


def test_label_first_tab_separated_without_header():
    t = read_trials(FORMATS / "two_column_label_first.tsv")
    np.testing.assert_array_equal(t.tar, [4.5, 3.0])
    np.testing.assert_array_equal(t.non, [-2.25, -0.5, -7.125])


@pytest.mark.parametrize("data", [b"1 0.0\n0 0.0\n0 0.0\n", b"0.0 1\n0.0 0\n0.0 0\n", b"\n0 0.0\n1 0.0\n0 0.0\n"])
def test_0_1_labels_beside_scores_that_also_read_as_labels(data):
    """Scores of 0.0 read as labels too ('0.0' is a non-target label): the labels are the column with both classes
    (hypothesis found the label-first file whose every score is 0.0 read with its scores taken for labels)."""
    t = read_trials(named(data, "x.txt"))
    assert (t.tar.size, t.non.size) == (1, 2)


def test_comments_blank_lines_and_indentation():
    t = read_trials(FORMATS / "two_column_commented.txt")
    np.testing.assert_array_equal(t.tar, [1.5, 0.25, 1e-3])
    np.testing.assert_array_equal(t.non, [-2.0, -0.75, -np.inf])


def test_kaldi_scores_joined_with_key_in_another_order():
    t = read_trials(FORMATS / "kaldi_scores.txt", key=FORMATS / "kaldi_key.txt")
    assert t.name == "kaldi_scores"
    np.testing.assert_array_equal(t.tar, [4.21, 3.10])
    np.testing.assert_array_equal(t.non, [-1.25, -2.50, -0.75, -4.00])
    explicit = read_trials(FORMATS / "kaldi_scores.txt", "bosaris", key=FORMATS / "kaldi_key.txt")
    assert_same(t, explicit)


def test_kaldi_one_file_form_matches_the_two_file_form():
    one = read_trials(FORMATS / "kaldi_one_file.txt")
    two = read_trials(FORMATS / "kaldi_scores.txt", key=FORMATS / "kaldi_key.txt")
    assert_same(one, two)
    assert_same(one, read_trials(FORMATS / "kaldi_one_file.txt", format="kaldi"))


def test_repeated_ids_are_fine_in_a_table_with_a_header():
    t = read_trials(named("gender model score label\nf A 1.5 target\nf A -1 nontarget\nm B 2 target\n"))
    assert t.tar.tolist() == [1.5, 2.0] and t.non.tolist() == [-1.0]
    t = read_trials(named("model test score label\nm1 t1 1.5 target\nm1 t2 -1 nontarget\n"), format="kaldi")
    assert t.tar.tolist() == [1.5]


def test_asvspoof_example_keeps_spoof_apart():
    t = read_trials(FORMATS / "asvspoof.txt")
    np.testing.assert_array_equal(t.tar, [18.20527, 12.5])
    np.testing.assert_array_equal(t.non, [-3.75, -1.25, 0.5])
    np.testing.assert_array_equal(t.spoof, [2.25, -0.125, 7.0])
    assert_same(t, read_trials(FORMATS / "asvspoof.txt", format="asvspoof"))


def test_multi_system_columns_give_a_dict():
    systems = read_trials(FORMATS / "multi_system.tsv")
    assert list(systems) == ["sysA", "sysB"]
    assert systems["sysA"].name == "sysA"
    np.testing.assert_array_equal(systems["sysA"].tar, [2.5, 0.75])
    np.testing.assert_array_equal(systems["sysB"].non, [-0.5, 0.25])


def test_system_column_gives_a_dict():
    systems = read_trials(FORMATS / "long_systems.tsv")
    assert list(systems) == ["sysA", "sysB"]
    np.testing.assert_array_equal(systems["sysB"].tar, [1.75])
    np.testing.assert_array_equal(systems["sysB"].non, [-0.5, 0.25])


def test_single_system_in_a_system_column_gives_trials():
    t = read_trials(named("system score label\nonly 1 target\nonly 2 non\n"))
    assert isinstance(t, Trials) and t.name == "only"
    assert read_trials(named("system score label\nonly 1 target\nonly 2 non\n"), name="mine").name == "mine"


# ------------------------------------------------------------------------------------------------------------------
# the real ASVspoof 2019 LA files


@pytest.mark.parametrize("part, counts", [("dev", (1484, 5768, 22296)), ("eval", (5370, 33327, 63882))])
def test_asvspoof2019_la_real_files(part, counts):
    path = ASVSPOOF / f"ASVspoof2019.LA.asv.{part}.gi.trl.scores.txt"
    t = read_trials(path)
    assert (t.tar.size, t.non.size, t.spoof.size) == counts
    assert t.scores.size == counts[0] + counts[1]  # the spoof trials are not among the binary trials
    reference = pd.read_csv(path, sep=r"\s+", header=None, names=["source", "kind", "score"])
    for kind, values in (("target", t.tar), ("nontarget", t.non), ("spoof", t.spoof)):
        np.testing.assert_array_equal(values, reference.loc[reference["kind"] == kind, "score"].to_numpy())
    assert_same(t, read_trials(path, format="asvspoof"))


def test_gzip_text_is_decompressed():
    t = read_trials(DATA / "rocanalysis_ru2009" / "ru.2009.table.gz")  # R table, 11 quoted columns
    assert t.name == "ru.2009" and (t.tar.size, t.non.size) == (15252, 9600)


# ------------------------------------------------------------------------------------------------------------------
# round trips


def test_write_two_column_round_trip(tmp_path, trials):
    path = tmp_path / "out.txt"
    write_trials(path, trials)
    assert path.read_text().splitlines()[0] == "score label"
    back = read_trials(path)
    assert back.name == "out"
    assert_same(back, trials)


def test_write_npz_round_trip(tmp_path, trials):
    path = tmp_path / "out.npz"
    write_trials(path, trials, format="npz")
    assert_same(read_trials(path), trials)
    without_suffix = tmp_path / "scores_file"
    write_trials(without_suffix, Trials([1.0], [0.0]), format="npz")
    assert_same(read_trials(without_suffix), Trials([1.0], [0.0]))  # detected from the content


def test_write_several_systems_round_trip(tmp_path, trials):
    other = Trials(trials.tar[:10] + 1, trials.non[:20] - 1)
    path = tmp_path / "systems.tsv"
    write_trials(path, {"sys A": trials, "B": other})
    back = read_trials(path)
    assert list(back) == ["sys A", "B"]
    assert_same(back["sys A"], trials)
    assert_same(back["B"], other)


def test_write_to_a_file_object_and_read_from_it(trials):
    buffer = io.BytesIO()
    write_trials(buffer, trials)
    buffer.name = "upload.txt"
    assert_same(read_trials(buffer), trials)
    assert_same(read_trials(buffer), trials)  # read again: the buffer is rewound


def test_write_refuses_bad_requests(tmp_path, trials):
    with pytest.raises(ValueError):
        write_trials(tmp_path / "x.npz", {"a": trials}, format="npz")
    with pytest.raises(ValueError):
        write_trials(tmp_path / "x.parquet", trials, format="parquet")
    with pytest.raises(ValueError):
        write_trials(tmp_path / "x.txt", {"bad\tname": trials})


@pytest.mark.parametrize("sep", [",", "\t", " ", ";"])
@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("label_first", [True, False])
def test_pandas_written_text_round_trip(tmp_path, sep, header, label_first):
    rng = np.random.default_rng(1)
    scores = rng.normal(size=500)
    is_target = rng.random(500) < 0.3
    frame = pd.DataFrame({"score": scores, "label": np.where(is_target, "target", "nontarget")})
    if label_first:
        frame = frame[["label", "score"]]
    path = tmp_path / "pandas.csv"
    frame.to_csv(path, sep=sep, header=header, index=False)
    t = read_trials(path)
    np.testing.assert_array_equal(t.tar, scores[is_target])
    np.testing.assert_array_equal(t.non, scores[~is_target])


def test_numpy_savetxt_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    scores, labels = rng.normal(size=200), rng.random(200) < 0.5
    np.savetxt(tmp_path / "np.txt", np.column_stack([scores, labels]), fmt=["%.17g", "%d"])
    t = read_trials(tmp_path / "np.txt")
    np.testing.assert_array_equal(t.tar, scores[labels])
    np.testing.assert_array_equal(t.non, scores[~labels])


def test_parquet_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    scores, labels = rng.normal(size=300), rng.random(300) < 0.4
    path = tmp_path / "scores.parquet"
    pd.DataFrame({"Score": scores, "LABEL": np.where(labels, "target", "nontarget")}).to_parquet(path)
    t = read_trials(path)
    assert t.name == "scores"
    np.testing.assert_array_equal(t.tar, scores[labels])
    np.testing.assert_array_equal(t.non, scores[~labels])
    # boolean labels, the 'llr' name, and an upload without a telling name (detected from the magic bytes)
    pd.DataFrame({"llr": scores, "target": labels}).to_parquet(path)
    t = read_trials(named(path.read_bytes(), "upload.bin"))
    np.testing.assert_array_equal(t.tar, scores[labels])


def test_parquet_several_systems(tmp_path):
    labels = np.array([1, 0, 1, 0, 0])
    path = tmp_path / "wide.parquet"
    pd.DataFrame({"a": [1.0, 2, 3, 4, 5], "b": [5.0, 4, 3, 2, 1], "class": labels}).to_parquet(path)
    systems = read_trials(path)
    assert list(systems) == ["a", "b"]
    np.testing.assert_array_equal(systems["b"].tar, [5.0, 3.0])
    long = tmp_path / "long.parquet"
    pd.DataFrame({"System": ["x", "x", "y", "y"], "scores": [1.0, 2, 3, 4],
                  "labels": ["tar", "non", "TARGET", "nontarget"]}).to_parquet(long)
    systems = read_trials(long)
    assert list(systems) == ["x", "y"] and systems["y"].tar.tolist() == [3.0]


def test_npz_written_by_numpy(tmp_path):
    path = tmp_path / "s.npz"
    np.savez(path, tar=np.array([1.0, 2.0]), non=np.array([-1, 0, 3], dtype=np.int32), spoof=np.array([9.0]))
    t = read_trials(path)
    np.testing.assert_array_equal(t.non, [-1.0, 0.0, 3.0])
    np.testing.assert_array_equal(t.spoof, [9.0])
    np.savez_compressed(path, tar=np.array([1.0]), non=np.array([0.0]))
    assert read_trials(path).tar.tolist() == [1.0]


def test_kaldi_join_of_a_larger_shuffled_key(tmp_path):
    rng = np.random.default_rng(4)
    models = np.repeat([f"spk{i:03d}" for i in range(40)], 50)
    tests = np.tile([f"utt{j:04d}" for j in range(50)], 40)
    scores = rng.normal(size=models.size)
    labels = rng.random(models.size) < 0.1
    pd.DataFrame({"m": models, "t": tests, "s": scores}).to_csv(tmp_path / "scores", sep=" ", header=False,
                                                                 index=False)
    order = rng.permutation(models.size)
    pd.DataFrame({"m": models[order], "t": tests[order],
                  "k": np.where(labels[order], "target", "nontarget")}).to_csv(tmp_path / "trials", sep=" ",
                                                                               header=False, index=False)
    t = read_trials(tmp_path / "scores", key=tmp_path / "trials")
    np.testing.assert_array_equal(t.tar, scores[labels])
    np.testing.assert_array_equal(t.non, scores[~labels])


# ------------------------------------------------------------------------------------------------------------------
# label spellings, headers and text encodings

SPELLINGS = [("target", "nontarget"), ("tar", "non"), ("1", "0"), ("true", "false"), ("genuine", "impostor"),
             ("same", "different"), ("target", "non-target"), ("target", "non_target")]


@pytest.mark.parametrize("yes, no", SPELLINGS)
@pytest.mark.parametrize("case", [str.lower, str.upper, str.title])
def test_label_spellings(yes, no, case):
    t = read_trials(named(f"0.5 {case(yes)}\n-1.5 {case(no)}\n2 {case(yes)}\n"))
    assert t.tar.tolist() == [0.5, 2.0] and t.non.tolist() == [-1.5]


@pytest.mark.parametrize("header, score_first", [("score label", True), ("label score", False),
                                                  ("LLR Class", True), ("scores labels", True),
                                                  ("key llr", False), ("Target Score", False)])
def test_header_names(header, score_first):
    rows = ["0.5 target", "-1 nontarget"] if score_first else ["target 0.5", "nontarget -1"]
    t = read_trials(named("\n".join([header, *rows]) + "\n"))
    assert t.tar.tolist() == [0.5] and t.non.tolist() == [-1.0]


def test_header_is_optional_and_counted_in_line_numbers():
    with_header = load_error("score label\n0.5 target\nxyz nontarget\n")
    without = load_error("0.5 target\nxyz nontarget\n")
    assert with_header.line == 3 and without.line == 2


def test_crlf_bom_trailing_blank_lines_and_spaces():
    text = "\ufeffscore , label\r\n  0.5 ,  target \r\n-1.25,nontarget\r\n\r\n\r\n   \r\n"
    t = read_trials(named(text.encode("utf-8"), "excel.csv"))
    assert t.tar.tolist() == [0.5] and t.non.tolist() == [-1.25]
    t = read_trials(named("0.5 target\r-1 non\r", "oldmac.txt"))  # lone CR line ends
    assert t.tar.tolist() == [0.5]


def test_utf16_with_byte_order_mark():
    t = read_trials(named("score\tlabel\n0.5\ttarget\n-1\tnontarget\n".encode("utf-16"), "unicode.txt"))
    assert t.tar.tolist() == [0.5] and t.non.tolist() == [-1.0]


def test_decimal_comma_with_semicolons():
    t = read_trials(named("score;label\n0,5;target\n-1,25;nontarget\n", "excel_de.csv"))
    assert t.tar.tolist() == [0.5] and t.non.tolist() == [-1.25]


def test_quoted_csv_fields():
    t = read_trials(named('"score","label"\n"0.5","target"\n-1,"non"\n', "r.csv"))
    assert t.tar.tolist() == [0.5] and t.non.tolist() == [-1.0]


def test_infinite_scores_are_kept():
    t = read_trials(named("inf target\n-Infinity nontarget\n1e400 target\n"))
    assert t.tar.tolist() == [np.inf, np.inf] and t.non.tolist() == [-np.inf]


def test_comments_and_blank_lines_in_a_large_file_keep_line_numbers_right():
    body = ["# header comment", "score label"]
    for i in range(30_000):
        body.append(f"{i / 7!r} {'target' if i % 3 == 0 else 'nontarget'}")
        if i % 2 == 0:
            body.append("")  # many blank lines: the vectorised path
        if i % 1000 == 0:
            body.append("   # indented comment")
    t = read_trials(named("\n".join(body)))
    assert len(t) == 30_000 and t.tar[1] == 3 / 7
    bad = body + ["", "# near the end", "12 targte", "13 target"]
    error = load_error("\n".join(bad))
    assert error.line == len(bad) - 1 and "'targte'" in str(error)
    few_blank = ["score label"] + [f"{i} {'tar' if i % 2 else 'non'}" for i in range(5000)] + ["", "x non"]
    assert load_error("\n".join(few_blank)).line == 5003


def test_file_like_inputs():
    t = read_trials(named(b"0.5 target\n-1 non\n", "upload.csv"))
    assert t.name == "upload"
    assert read_trials(io.StringIO("0.5 target\n-1 non\n")).tar.tolist() == [0.5]  # text mode, no name
    assert read_trials(io.BytesIO(b"0.5 target\n-1 non\n"), name="given").name == "given"
    error = load_error(b"", name="upload.csv")
    assert str(error).startswith("upload.csv: ")
    with pytest.raises(LoadError, match=r"^the input, line 1: "):
        read_trials(io.BytesIO(b"oops"))


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(LoadError, match="does not exist"):
        read_trials(tmp_path / "nothing.txt")
    with pytest.raises(LoadError, match="folder"):
        read_trials(tmp_path)


def test_bad_arguments_are_programming_errors(tmp_path):
    with pytest.raises(ValueError, match="Unknown format"):
        read_trials(FORMATS / "two_column.csv", format="excel")
    with pytest.raises(ValueError, match="key="):
        read_trials(FORMATS / "two_column.csv", format="two-column", key=FORMATS / "kaldi_key.txt")
    with pytest.raises(TypeError):
        read_trials(42)


# ------------------------------------------------------------------------------------------------------------------
# errors: file name, line and offending value in the message


def check(error: LoadError, *parts, line=None, name="scores.txt"):
    message = str(error)
    assert message.startswith(name), message
    assert error.path is not None and error.path.endswith(name)
    assert error.line == line, message
    if line is not None:
        assert f"line {line}:" in message, message
    for part in parts:
        assert part in message, message
    assert error.reason in message


def test_loaderror_attributes_and_pickling():
    error = LoadError("the score 'abc' is not a number.", "/data/scores.txt", 17)
    assert str(error) == "scores.txt, line 17: the score 'abc' is not a number."
    assert (error.path, error.line, error.reason) == ("/data/scores.txt", 17, "the score 'abc' is not a number.")
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error) and copy.line == 17


ERRORS = [
    # (content, line, parts of the message)
    ("", None, ["empty"]),
    ("\n\n   \n", None, ["empty"]),
    ("# only a comment\n\n", None, ["comment"]),
    ("score label\n", 1, ["header", "no trials"]),
    ("# comment\nscore label\n\n", 2, ["header", "no trials"]),
    ("0.5\n1.5\n", 1, ["one column"]),
    ("0.5 target\n-1 nontarget\n1.5 tar\nabc non\n", 4, ["'abc'", "not a number"]),
    ("score,label\n0.5,target\n,nontarget\n", 3, ["score is missing"]),
    ("0.5 target\n-1 nontarget\nnan non\n", 3, ["'nan'", "NaN"]),
    ("0.5 target\n-1 nontarget\n2 maybe\n", 3, ["'maybe'", "target/nontarget", "genuine/impostor"]),
    ("0.5 target\n1.5 tar\n", None, ["no non-target trials"]),
    ("0.5 nontarget\n1.5 non\n", None, ["no target trials"]),
    ("0.5 target\n-1 nontarget\n2 target extra\n", 3, ["3 columns", "line 1 has 2"]),
    ("0.5 target\n-1 nontarget\n2\n", 3, ["1 column", "line 1 has 2"]),
    ("score label\n0.5 target\n-1\n", 3, ["1 column"]),
    ("score label other\n0.5 target\n-1 non\n", 2, ["header"]),
    ("0.5 target\n-1 non\n\x00\x01\x02binary", 3, ["binary"]),
    (b"0.5 target\n-1 non\n\xff\xfe\xfa\n", 3, ["0xff", "UTF-8"]),
    ("score,label\n0.5,\"target\n-1,non\n", 2, ["quotation mark"]),
    ("m1 t1 0.5 target\nm1 t2 -1 nontarget\nm1 t1 2 target\n", 3, ["'m1 t1'", "first on line 1"]),
    ("1 2 3\n4 5 6\n", 1, ["no column of labels"]),
    ("m1 t1 0.5\nm1 t2 -1\n", 1, ["Kaldi/BOSARIS or VoxCeleb score file", "needs its key (trials) file",
                                  "'model test target|nontarget'", "VoxCeleb trial list '1 enrol test'"]),
    ("label sysA sysA\ntarget 1 2\nnon 3 4\n", 1, ["'sysA'"]),
    ("1 0.5 target\n2 -1 non\n", 1, ["ambiguous", "header"]),
]


@pytest.mark.parametrize("content, line, parts", ERRORS)
def test_errors_name_file_line_and_value(content, line, parts):
    check(load_error(content), *parts, line=line)


def test_errors_after_the_first_lines_are_found_by_the_bulk_reader():
    good = "".join(f"{i}.5 {'target' if i % 2 else 'nontarget'}\n" for i in range(200))
    for tail, parts in [("x1 target\n", ["'x1'"]), ("1 targett\n", ["'targett'"]), ("1\n", ["1 column"]),
                        ("1 target 2\n", ["3 columns"]), ("nan target\n", ["NaN"])]:
        check(load_error("# c\n" + good + tail), *parts, line=202)


def test_errors_for_explicit_formats():
    check(load_error("a b c\n", format="kaldi"), "4 columns", line=1)
    check(load_error("bonafide target 1 2\n", format="asvspoof"), "3 columns", line=1)
    check(load_error("bonafide target 1\nA01 spoof x\n", format="asvspoof"), "'x'", line=2)


def warning_messages(record) -> list[str]:
    """The LoadWarnings caught by ``pytest.warns``, as sentences; nothing else may have been warned."""
    assert all(issubclass(w.category, lc.LoadWarning) for w in record), [str(w.message) for w in record]
    return [str(w.message) for w in record]


def test_kaldi_pairs_missing_from_the_key_are_left_out_with_a_warning():
    scores = named("m1 t1 0.5\nm1 t2 -1\nm2 t1 2\nm2 t2 3\n", "scores.txt")
    key = named("m2 t1 target\nm1 t1 nontarget\n", "trials.txt")
    with pytest.warns(lc.LoadWarning) as record:
        t = read_trials(scores, key=key)
    assert (t.tar.tolist(), t.non.tolist()) == ([2.0], [0.5])
    assert warning_messages(record) == ["scores.txt: 2 of 4 scored trials are not in the key trials.txt and were left "
                                        "out; the first is 'm1 t2' on line 2."]


def test_kaldi_key_pairs_without_a_score_are_counted_with_a_warning():
    scores = named("m1 t1 0.5\nm1 t2 -1\n", "scores.txt")
    key = named("m1 t2 nontarget\nm9 t9 target\nm1 t1 target\n", "trials.txt")
    with pytest.warns(lc.LoadWarning) as record:
        t = read_trials(scores, key=key)
    assert (t.tar.tolist(), t.non.tolist()) == ([0.5], [-1.0])
    assert warning_messages(record) == ["trials.txt: 1 of the 3 trials of the key has no score in scores.txt "
                                        "(targets: 1 of 2, non-targets: 0 of 1): 'm9 t9' on line 2."]


def partial_key_files(tmp_path, scored_models: int, keyed_models: int, n_tests: int, extra_key_models: int = 0,
                      seed: int = 0):
    """A score file of models m0..m{scored_models-1} x tests, shuffled, and a key of models
    m0..m{keyed_models-1} (plus `extra_key_models` models with no score), model i's targets being tests j with
    j % 10 == i % 10. Returns the paths and what the join must give, computed from these sets."""
    rng = np.random.default_rng(seed)
    scored = [(f"m{i}", f"t{j}") for i in range(scored_models) for j in range(n_tests)]
    scored = [scored[k] for k in rng.permutation(len(scored))]
    score_of = {pair: float(np.round(rng.normal(), 6)) for pair in scored}
    keyed = [(f"m{i}", f"t{j}") for i in range(keyed_models + extra_key_models) for j in range(n_tests)]
    keyed = [keyed[k] for k in rng.permutation(len(keyed))]
    is_target = {(m, t): int(m[1:]) % 10 == int(t[1:]) % 10 for m, t in keyed}
    (tmp_path / "scores.txt").write_text("".join(f"{m} {t} {score_of[m, t]!r}\n" for m, t in scored))
    (tmp_path / "key.txt").write_text("".join(f"{m} {t} {'target' if is_target[m, t] else 'nontarget'}\n"
                                              for m, t in keyed))
    both = [pair for pair in scored if pair in is_target]
    expected = {
        "tar": sorted(score_of[p] for p in both if is_target[p]),
        "non": sorted(score_of[p] for p in both if not is_target[p]),
        "left_out": [(k + 1, pair) for k, pair in enumerate(scored) if pair not in is_target],
        "unscored": [(k + 1, pair, is_target[pair]) for k, pair in enumerate(keyed) if pair not in score_of],
        "key_targets": sum(is_target.values()),
        "key_size": len(keyed),
    }
    return tmp_path / "scores.txt", tmp_path / "key.txt", expected


def test_a_per_condition_key_reads_its_trials_and_counts_the_rest(tmp_path):
    # 100 models x 100 tests scored, the key covers 58 models: 4,200 of the 10,000 scored trials are left out
    scores, key, expected = partial_key_files(tmp_path, scored_models=100, keyed_models=58, n_tests=100)
    assert len(expected["left_out"]) == 4200
    with pytest.warns(lc.LoadWarning) as record:
        t = lc.read_trials(scores, key=key)
    assert sorted(t.tar.tolist()) == expected["tar"] and sorted(t.non.tolist()) == expected["non"]
    assert t.tar.size + t.non.size == 5800
    line, (m, test) = expected["left_out"][0]
    assert warning_messages(record) == [f"scores.txt: 4,200 of 10,000 scored trials are not in the key key.txt and "
                                        f"were left out; the first is '{m} {test}' on line {line}."]


def test_key_trials_without_a_score_are_counted_by_class_as_bosaris_does(tmp_path):
    # 30 models scored, the key has those and 5 more: 5 x 40 = 200 key trials without a score
    scores, key, expected = partial_key_files(tmp_path, scored_models=30, keyed_models=30, n_tests=40,
                                              extra_key_models=5)
    unscored = expected["unscored"]
    tar_missing = sum(tar for *_, tar in unscored)
    assert len(unscored) == 200 and tar_missing == 5 * 4  # each model's targets: 4 of the 40 tests
    with pytest.warns(lc.LoadWarning) as record:
        t = lc.read_trials(scores, key=key)
    assert (t.tar.size, t.non.size) == (30 * 4, 30 * 36)
    line, (m, test), _ = unscored[0]
    n_non = expected["key_size"] - expected["key_targets"]
    assert warning_messages(record) == [
        f"key.txt: 200 of the 1,400 trials of the key have no score in scores.txt (targets: {tar_missing} of "
        f"{expected['key_targets']}, non-targets: {200 - tar_missing:,} of {n_non:,}); the first is '{m} {test}' on "
        f"line {line}."]


def test_trials_missing_both_ways_give_two_warnings(tmp_path):
    # models m0..m19 scored, m0..m11 and m20..m22 keyed: 8 x 10 scored trials out, 3 x 10 key trials unscored
    scores, key, expected = partial_key_files(tmp_path, scored_models=20, keyed_models=12, n_tests=10)
    key.write_text(key.read_text() + "".join(f"m{i} t{j} nontarget\n" for i in range(20, 23) for j in range(10)))
    with pytest.warns(lc.LoadWarning) as record:
        t = lc.read_trials(scores, key=key)
    assert sorted(t.tar.tolist()) == expected["tar"] and sorted(t.non.tolist()) == expected["non"]
    first, second = warning_messages(record)
    assert first.startswith("scores.txt: 80 of 200 scored trials are not in the key key.txt and were left out;")
    assert second == ("key.txt: 30 of the 150 trials of the key have no score in scores.txt (targets: 0 of 12, "
                      "non-targets: 30 of 138); the first is 'm20 t0' on line 121.")


def test_the_warning_points_at_the_callers_line(tmp_path):
    scores, key, _ = partial_key_files(tmp_path, scored_models=3, keyed_models=2, n_tests=10)
    with pytest.warns(lc.LoadWarning) as record:
        lc.read_trials(scores, key=key)
    assert record[0].filename == __file__


def test_on_warning_collects_the_warnings_instead_of_warning(tmp_path):
    scores, key, _ = partial_key_files(tmp_path, scored_models=3, keyed_models=2, n_tests=10)
    collected = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may go through the warnings machinery
        t = lc.read_trials(scores, key=key, on_warning=collected.append)
    assert t.tar.size + t.non.size == 20
    assert [type(w) for w in collected] == [lc.LoadWarning]
    assert collected[0].path == str(scores) and str(collected[0]).startswith("scores.txt: 10 of 30 scored trials")


def test_a_key_with_no_trial_of_the_score_file_is_an_error():
    scores = named("m1 t1 0.5\nm1 t2 -1\n", "scores.txt")
    key = named("x1 y1 target\nx1 y2 nontarget\n", "trials.txt")
    error = pytest.raises(LoadError, read_trials, scores, key=key).value
    check(error, "none of its 2 scored trials is in the key trials.txt", "'m1 t1' on line 1", "'x1 y1' on line 1")


@pytest.mark.parametrize("key_text, missing", [("m1 t1 target\nm9 t9 nontarget\n", "non-target"),
                                               ("m1 t2 nontarget\nm9 t9 target\nm8 t8 target\n", "target")])
def test_a_key_leaving_one_class_is_an_error(key_text, missing):
    scores = named("m1 t1 0.5\nm1 t2 -1\nm2 t2 3\n", "scores.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error, not a warning followed by an error
        error = pytest.raises(LoadError, read_trials, scores, key=named(key_text, "trials.txt")).value
    n_missing = key_text.count(f" {missing.replace('-', '')}\n")
    check(error, f"none of the {n_missing} {missing} trial", "of the key trials.txt has a score in this file",
          "1 of its 3 scored trials is in the key", "both target and non-target trials are needed")


def test_a_score_file_without_its_key_says_it_needs_one_in_any_front_ends_words():
    for error in (load_error("m1 t1 0.5\nm1 t2 -1\n"), load_error("m1 t1 0.5\n", format="kaldi")):
        assert error.needs_key, str(error)
        assert "key (trials) file" in error.reason and "=" not in error.reason
        assert pickle.loads(pickle.dumps(error)).needs_key
    for content in ("0.5\n1.5\n", "m1 t1 target\nm1 t2 nontarget\n", "1 0.5 target\n2 -1 non\n"):
        error = load_error(content)
        assert not error.needs_key and "=" not in error.reason, str(error)


def test_loadwarning_attributes_and_pickling():
    warning = lc.LoadWarning("3 of 9 scored trials are not in the key k.txt and were left out.", "/data/s.txt")
    assert isinstance(warning, UserWarning)
    assert str(warning) == "s.txt: 3 of 9 scored trials are not in the key k.txt and were left out."
    copy = pickle.loads(pickle.dumps(warning))
    assert (copy.path, copy.reason, str(copy)) == (warning.path, warning.reason, str(warning))


def test_kaldi_duplicates_and_bad_key_labels():
    scores = named("m1 t1 0.5\nm1 t2 -1\nm1 t1 2\n", "scores.txt")
    error = pytest.raises(LoadError, read_trials, scores, key=named("m1 t1 target\n", "k.txt")).value
    check(error, "'m1 t1'", "second time", line=3)
    scores = named("m1 t1 0.5\nm1 t2 -1\n", "scores.txt")
    key = named("m1 t1 target\nm1 t2 nontarget\nm1 t2 target\n", "k.txt")
    check(pytest.raises(LoadError, read_trials, scores, key=key).value, "'m1 t2'", line=3, name="k.txt")
    key = named("m1 t1 target\nm1 t2 nottarget\n", "k.txt")
    check(pytest.raises(LoadError, read_trials, scores, key=key).value, "'nottarget'", line=2, name="k.txt")
    key = named("m1 t1 target\nm1 t2\n", "k.txt")
    check(pytest.raises(LoadError, read_trials, scores, key=key).value, "3 columns", line=2, name="k.txt")


class _Marker:
    """Unpickling this would create a file: proof that a pickled npz is never unpickled."""

    path = ""

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickled_npz_is_refused_and_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"
    bomb = _Marker()
    bomb.path = str(marker)
    np.savez(tmp_path / "evil.npz", tar=np.array([bomb, 1.0], dtype=object), non=np.array([0.0]))
    error = pytest.raises(LoadError, read_trials, tmp_path / "evil.npz").value
    assert "evil.npz" in str(error) and "'tar'" in str(error) and "pickle" in str(error)
    assert not marker.exists()


@pytest.mark.parametrize("arrays, parts", [
    ({"tar": np.array([1.0])}, ["'tar' and 'non'", "'tar'"]),
    ({"tar": np.array(["a", "b"]), "non": np.array([0.0])}, ["'tar'", "not numbers"]),
    ({"tar": np.ones((2, 2)), "non": np.array([0.0])}, ["shape"]),
    ({"tar": np.array([1.0, np.nan]), "non": np.array([0.0])}, ["element 1", "NaN"]),
    ({"tar": np.array([]), "non": np.array([0.0])}, ["no target trials"]),
])
def test_bad_npz(tmp_path, arrays, parts):
    np.savez(tmp_path / "bad.npz", **arrays)
    check(pytest.raises(LoadError, read_trials, tmp_path / "bad.npz").value, *parts, name="bad.npz")


def test_damaged_binary_files(tmp_path):
    (tmp_path / "broken.npz").write_bytes(b"PK\x03\x04 not really a zip")
    check(pytest.raises(LoadError, read_trials, tmp_path / "broken.npz").value, ".npz", name="broken.npz")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not really parquet")
    check(pytest.raises(LoadError, read_trials, tmp_path / "broken.parquet").value, "Parquet",
          name="broken.parquet")
    np.save(tmp_path / "single.npy", np.ones(3))
    check(pytest.raises(LoadError, read_trials, tmp_path / "single.npy").value, "np.savez", name="single.npy")
    (tmp_path / "broken.txt.gz").write_bytes(gzip.compress(b"0.5 target\n")[:-6])
    check(pytest.raises(LoadError, read_trials, tmp_path / "broken.txt.gz").value, "gzip", name="broken.txt.gz")


def test_bad_parquet(tmp_path):
    path = tmp_path / "bad.parquet"
    pd.DataFrame({"score": [1.0, np.nan, 2.0], "label": ["target", "non", "non"]}).to_parquet(path)
    error = pytest.raises(LoadError, read_trials, path).value
    assert str(error).startswith("bad.parquet, row 2:") and "NaN" in str(error)
    pd.DataFrame({"score": [1.0, 0.5, 2.0], "label": ["target", "non", "perhaps"]}).to_parquet(path)
    assert "row 3" in str(pytest.raises(LoadError, read_trials, path).value)
    assert "'perhaps'" in str(pytest.raises(LoadError, read_trials, path).value)
    pd.DataFrame({"score": [1.0, 0.5], "what": ["target", "non"]}).to_parquet(path)
    assert "no label column" in str(pytest.raises(LoadError, read_trials, path).value)
    pd.DataFrame({"score": [1.0, 0.5], "label": [1, 1]}).to_parquet(path)
    assert "no non-target" in str(pytest.raises(LoadError, read_trials, path).value)
    pd.DataFrame({"score": ["1.0", "x"], "label": [1, 0]}).to_parquet(path)
    assert "'x'" in str(pytest.raises(LoadError, read_trials, path).value)


# ------------------------------------------------------------------------------------------------------------------
# property: nothing but LoadError, whatever the input

TOKENS = st.sampled_from(["0.5", "-1", "1e3", "nan", "inf", "-inf", "abc", "target", "nontarget", "tar", "non",
                          "1", "0", "TRUE", "spoof", "bonafide", "A01", "", "#", '"', "'", "score", "label",
                          "system", "llr", "é", "\x0b", "1,5", "1.2.3", "m1", "t1"])
SEPARATORS = st.sampled_from([" ", "  ", "\t", ",", ";", ", ", "|"])
LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r", "\n\n"])


@st.composite
def csvish(draw) -> bytes:
    sep, end = draw(SEPARATORS), draw(LINE_ENDS)
    lines = draw(st.lists(st.lists(TOKENS, min_size=0, max_size=5), min_size=0, max_size=12))
    text = end.join(sep.join(line) for line in lines) + draw(st.sampled_from(["", end]))
    prefix = draw(st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff\xfe"]))
    return prefix + text.encode("utf-8")


def _read_anything(data: bytes, name: str):
    try:
        result = read_trials(named(data, name))
    except LoadError as error:
        assert error.reason and str(error).startswith(name.rsplit("/", 1)[-1])
        return
    assert isinstance(result, (Trials, dict))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300), name=st.sampled_from(["x.txt", "x.csv", "x.npz", "x.parquet", "x.gz"]))
def test_random_bytes_raise_only_loaderror(data, name):
    _read_anything(data, name)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=csvish())
def test_random_csvish_text_raises_only_loaderror(data):
    _read_anything(data, "x.csv")


@st.composite
def well_formed(draw):
    """A valid two-column file in a random dress: separator, header, line ends, comments, blank lines, padding."""
    n = draw(st.integers(2, 60))
    scores = draw(st.lists(st.floats(allow_nan=False, width=64), min_size=n, max_size=n))
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n).filter(lambda ls: any(ls) and not all(ls)))
    yes, no = draw(st.sampled_from(SPELLINGS))
    sep = draw(st.sampled_from([" ", "\t", ",", ";", " \t "]))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    label_first = draw(st.booleans())
    lines = [draw(st.sampled_from(["", "# comment", "score" + sep + "label" if not label_first else
                                   "label" + sep + "score"]))]
    for score, label in zip(scores, labels):
        fields = [repr(score), yes if label else no]
        line = sep.join(fields[::-1] if label_first else fields)
        pad = draw(st.sampled_from(["", " ", "  "])) if sep != "\t" else ""
        lines.append(pad + line + pad)
        lines.extend(draw(st.sampled_from([[], [""], ["# note"], ["  # indented note", ""]])))
    return (end.join(lines) + end).encode(), np.array(scores), np.array(labels)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=well_formed())
def test_well_formed_text_reads_back_exactly(case):
    data, scores, labels = case
    t = read_trials(named(data, "x.txt"))
    np.testing.assert_array_equal(t.tar, scores[labels])
    np.testing.assert_array_equal(t.non, scores[~labels])


@pytest.mark.parametrize("name", ["two_column.csv", "two_column_commented.txt", "two_column_label_first.tsv",
                                  "kaldi_one_file.txt", "asvspoof.txt"])
def test_rescore_file_reads_back_as_the_transformed_scores(tmp_path, name):
    source = FORMATS / name
    original = lc.read_trials(source)
    rewritten = tmp_path / name
    rewritten.write_bytes(lc.rescore_file(source, lambda scores: 3.0 - 2.0 * scores, digits=None))
    back = lc.read_trials(rewritten)
    for part in ("tar", "non", "spoof"):
        before, after = getattr(original, part), getattr(back, part)
        if before is None:
            assert after is None
        else:
            np.testing.assert_array_equal(after, 3.0 - 2.0 * before)


def test_rescore_file_npz_keeps_its_arrays(tmp_path):
    source = tmp_path / "scores.npz"
    np.savez(source, tar=np.array([1.5, 2.0]), non=np.array([-1.0, 0.25, 0.0]))
    with np.load(io.BytesIO(lc.rescore_file(source, np.negative)), allow_pickle=False) as after:
        np.testing.assert_array_equal(after["tar"], [-1.5, -2.0])
        np.testing.assert_array_equal(after["non"], [1.0, -0.25, -0.0])
