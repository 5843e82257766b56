"""Reading and writing diarization files: similarity matrices (.npy, .npz, CSV), segments, references, RTTM, UEM.

Every bad file must give a LoadError naming the file, the line where one applies, and the problem.
"""
from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.io.diarization import read_labels, similarity_keys
from paths import ASSETS

ES2005A = ASSETS / "ami_ES2005a"


@pytest.fixture
def matrix():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(5, 5))
    return np.round(a + a.T, 4)


def test_npy_npz_and_csv_give_the_same_matrix(tmp_path, matrix):
    np.save(tmp_path / "m.npy", matrix)
    np.savez(tmp_path / "m.npz", scores=matrix)
    (tmp_path / "m.csv").write_text("\n".join(",".join(f"{v:g}" for v in row) for row in matrix) + "\n")
    (tmp_path / "m.txt").write_text("\n".join(" ".join(f"{v:g}" for v in row) for row in matrix) + "\n")
    names = [f"seg{i}" for i in range(5)]
    (tmp_path / "named.tsv").write_text("\t" + "\t".join(names) + "\n" + "\n".join(
        name + "\t" + "\t".join(f"{v:g}" for v in row) for name, row in zip(names, matrix)) + "\n")
    for name in ("m.npy", "m.npz", "m.csv", "m.txt", "named.tsv"):
        loaded = lc.read_similarity(tmp_path / name)
        assert np.array_equal(loaded.scores, matrix), name
        assert loaded.start is None and loaded.reference is None
    with open(tmp_path / "m.csv", "rb") as handle:  # a file object (an upload) works like a path
        assert np.array_equal(lc.read_similarity(handle).scores, matrix)


def test_npz_with_times_reference_and_several_matrices(tmp_path, matrix):
    path = tmp_path / "meeting.npz"
    np.savez(path, S_llr=matrix, S_cos=matrix / 10, start=np.arange(5.0), end=np.arange(5.0) + 1.5,
             reference=np.array(list("AABBA")))
    assert similarity_keys(path) == ["S_llr", "S_cos"]
    loaded = lc.read_similarity(path)  # S_llr is a preferred name
    assert np.array_equal(loaded.scores, matrix)
    assert loaded.name == "meeting (S_llr)"
    assert loaded.end.tolist() == [1.5, 2.5, 3.5, 4.5, 5.5]
    assert loaded.reference.tolist() == list("AABBA")
    assert np.array_equal(lc.read_similarity(path, key="S_cos").scores, matrix / 10)
    np.savez(tmp_path / "two.npz", a=matrix, b=matrix)
    with pytest.raises(lc.LoadError, match=r"two.npz: .*several square matrices \(a, b\)"):
        lc.read_similarity(tmp_path / "two.npz")
    with pytest.raises(lc.LoadError, match="no array named 'c'"):
        lc.read_similarity(tmp_path / "two.npz", key="c")


def test_pickled_arrays_are_refused_never_loaded(tmp_path):
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}, None], dtype=object))  # np.save pickles objects
    with pytest.raises(lc.LoadError, match="objects.npy"):
        lc.read_similarity(tmp_path / "objects.npy")
    np.savez(tmp_path / "objects.npz", scores=np.array([[1, 2], [2, None]], dtype=object))
    with pytest.raises(lc.LoadError, match="pickled"):
        lc.read_similarity(tmp_path / "objects.npz", key="scores")


def test_nan_and_inf_are_refused_with_their_place(tmp_path, matrix):
    bad = matrix.copy()
    bad[2, 3] = np.nan
    np.save(tmp_path / "nan.npy", bad)
    with pytest.raises(lc.LoadError, match=r"nan.npy: 1 scores are NaN or infinite; the first, at row 3, column 4"):
        lc.read_similarity(tmp_path / "nan.npy")
    (tmp_path / "inf.csv").write_text("0,1\n1,inf\n")
    with pytest.raises(lc.LoadError, match="row 2, column 2, is infinite"):
        lc.read_similarity(tmp_path / "inf.csv")


def test_asymmetric_matrix_is_symmetrised_with_a_warning(tmp_path, matrix):
    skewed = matrix.copy()
    skewed[0, 1] += 1.0
    np.save(tmp_path / "skew.npy", skewed)
    with pytest.warns(UserWarning, match="not symmetric"):
        loaded = lc.read_similarity(tmp_path / "skew.npy")
    assert loaded.scores[0, 1] == loaded.scores[1, 0] == pytest.approx(matrix[0, 1] + 0.5)
    assert loaded.notes and "symmetric" in loaded.notes[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lc.read_similarity(ES2005A / "ES2005a_similarity.npz")  # float32 round-off is not asymmetry


@pytest.mark.parametrize("text, problem", [
    ("1,2,3\n4,5,6\n", "line 1: this row has 3 values but the matrix has 2 rows"),
    ("1,2\n3,x\n", "line 2: the value 'x' in column 2 is not a number"),
    ("", "the file is empty"),
    ("a,b\n", "a header line but no rows"),
])
def test_bad_text_matrices(tmp_path, text, problem):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(lc.LoadError, match=problem):
        lc.read_similarity(path)


def test_segments_kaldi_and_two_columns(tmp_path, matrix):
    np.save(tmp_path / "m.npy", matrix)
    kaldi = "".join(f"rec_{i:04d} rec {0.24 * i:.2f} {0.24 * i + 1.44:.2f}\n" for i in range(5))
    (tmp_path / "segments").write_text(kaldi)
    loaded = lc.read_similarity(tmp_path / "m.npy", segments=tmp_path / "segments")
    assert loaded.start.tolist() == pytest.approx([0.0, 0.24, 0.48, 0.72, 0.96])
    assert loaded.uri == "rec"
    (tmp_path / "times.csv").write_text("start,end\n" + "".join(f"{i},{i + 1.5}\n" for i in range(5)))
    assert lc.read_similarity(tmp_path / "m.npy", segments=tmp_path / "times.csv").end[-1] == 5.5
    table = lc.read_segments(tmp_path / "segments")
    assert list(table.columns) == ["segment", "uri", "start", "end"] and table["segment"].iloc[0] == "rec_0000"
    (tmp_path / "short").write_text(kaldi.split("\n", 1)[1])
    with pytest.raises(lc.LoadError, match="short: the file gives 4 segments but the matrix has 5"):
        lc.read_similarity(tmp_path / "m.npy", segments=tmp_path / "short")
    (tmp_path / "backwards").write_text("a r 2.0 1.0\n")
    with pytest.raises(lc.LoadError, match="line 1: the segment ends"):
        lc.read_segments(tmp_path / "backwards")


def test_reference_from_rttm_or_labels(tmp_path, matrix):
    np.savez(tmp_path / "m.npz", scores=matrix, start=np.arange(5.0), end=np.arange(5.0) + 1.0)
    (tmp_path / "ref.rttm").write_text(
        ";; a comment\nSPKR-INFO rec 1 <NA> <NA> <NA> unknown A <NA>\n"
        "SPEAKER rec 1 0.00 2.00 <NA> <NA> A <NA> <NA>\nSPEAKER rec 1 2.00 3.00 <NA> <NA> B <NA> <NA>\n")
    loaded = lc.read_similarity(tmp_path / "m.npz", reference=tmp_path / "ref.rttm")
    assert loaded.reference.tolist() == ["A", "A", "B", "B", "B"]
    assert loaded.uri == "rec" and len(loaded.reference_turns) == 2
    (tmp_path / "labels.txt").write_text("s1 A\ns2 A\ns3 B\ns4 B\ns5 C\n")
    assert lc.read_similarity(tmp_path / "m.npz", reference=tmp_path / "labels.txt").n_reference_speakers == 3
    assert read_labels(io.BytesIO(b"x\ny\n")).tolist() == ["x", "y"]
    np.save(tmp_path / "plain.npy", matrix)
    with pytest.raises(lc.LoadError, match="ref.rttm: an RTTM reference needs the segment times"):
        lc.read_similarity(tmp_path / "plain.npy", reference=tmp_path / "ref.rttm")
    (tmp_path / "few.txt").write_text("A\nB\n")
    with pytest.raises(lc.LoadError, match="few.txt: the file gives 2 labels but the matrix has 5"):
        lc.read_similarity(tmp_path / "m.npz", reference=tmp_path / "few.txt")


def test_rttm_round_trip_and_errors(tmp_path):
    turns = pd.DataFrame({"uri": ["m", "m"], "channel": ["1", "1"], "start": [0.0, 1.25], "end": [1.25, 3.5],
                          "speaker": ["spk0", "spk1"]})
    lc.write_rttm(tmp_path / "out.rttm", turns)
    assert (tmp_path / "out.rttm").read_text().splitlines()[1] == \
        "SPEAKER m 1 1.250 2.250 <NA> <NA> spk1 <NA> <NA>"
    back = lc.read_rttm(tmp_path / "out.rttm")
    pd.testing.assert_frame_equal(back, turns)
    buffer = io.StringIO()
    lc.write_rttm(buffer, turns)
    assert buffer.getvalue() == (tmp_path / "out.rttm").read_text()
    (tmp_path / "bad.rttm").write_text("SPEAKER m 1 0.0 1.0 <NA> <NA> a <NA> <NA>\nSPEAKER m 1 x 1.0 <NA> <NA> b\n")
    with pytest.raises(lc.LoadError, match="bad.rttm, line 2: the start time 'x' is not a number"):
        lc.read_rttm(tmp_path / "bad.rttm")
    (tmp_path / "neg.rttm").write_text("SPEAKER m 1 0.0 -1.0 <NA> <NA> a <NA> <NA>\n")
    with pytest.raises(lc.LoadError, match="line 1: the duration -1 is negative"):
        lc.read_rttm(tmp_path / "neg.rttm")
    (tmp_path / "none.rttm").write_text("hello\n")
    with pytest.raises(lc.LoadError, match="no SPEAKER lines"):
        lc.read_rttm(tmp_path / "none.rttm")


def test_uem(tmp_path):
    (tmp_path / "a.uem").write_text("m 1 0.000 10.5\nn 1 2 3\n")
    uem = lc.read_uem(tmp_path / "a.uem")
    assert uem.to_dict("list") == {"uri": ["m", "n"], "channel": ["1", "1"], "start": [0.0, 2.0], "end": [10.5, 3.0]}
    (tmp_path / "b.uem").write_text("m 1 0.0\n")
    with pytest.raises(lc.LoadError, match="b.uem, line 1: a UEM line is"):
        lc.read_uem(tmp_path / "b.uem")


def test_es2005a_demo_file():
    loaded = lc.read_similarity(ES2005A / "ES2005a_similarity.npz", reference=ES2005A / "ES2005a.rttm")
    assert loaded.n_segments == 1025 and loaded.uri == "ES2005a"
    assert loaded.scores.dtype == np.float64 and not loaded.scores.flags.writeable
    assert loaded.start[:3].tolist() == [0.0, 0.24, 0.48] and loaded.end[0] == 1.44  # SOURCE.txt: 1.44 s windows
    assert sorted(set(loaded.reference)) == ["FEE019", "MEE017", "MEE018", "MEO020"]
    assert len(loaded.reference_turns) == 91  # SOURCE.txt: reference RTTM, 91 lines
