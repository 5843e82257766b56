"""Tests of lc.read_class_files: same-source and different-source LRs in two files, one value per line.

Independent reference: numpy's ``np.loadtxt`` of lir's cartridge-case files, turned into natural-log LLRs by
``lc.from_log10``; bad files are written into ``tmp_path`` by the tests, which know the line they spoiled.
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import llrcore as lc
from paths import ASSETS

CARTRIDGE = ASSETS / "lir_cartridge_case_llrs"
KM, KNM = CARTRIDGE / "LLR_KM.csv", CARTRIDGE / "LLR_KNM.csv"


def test_the_cartridge_cases_read_as_log10_equal_numpys_values_in_natural_log():
    cases = lc.read_class_files(KM, KNM, scale="log10")
    np.testing.assert_array_equal(cases.tar, lc.from_log10(np.loadtxt(KM)))
    np.testing.assert_array_equal(cases.non, lc.from_log10(np.loadtxt(KNM)))
    assert (cases.tar.size, cases.non.size) == (188, 477)
    assert cases.name == "LLR_KM"


def test_natural_log_is_the_default_and_the_values_are_kept_as_written():
    cases = lc.read_class_files(KM, KNM, name="cases")
    np.testing.assert_array_equal(cases.tar, np.loadtxt(KM))
    np.testing.assert_array_equal(cases.non, np.loadtxt(KNM))
    assert cases.name == "cases"


def test_the_cllr_of_the_log10_reading_is_lirs_natural_log_reading():
    by_hand = lc.Trials(lc.from_log10(np.loadtxt(KM)), lc.from_log10(np.loadtxt(KNM)))
    assert lc.cllr(lc.read_class_files(KM, KNM, scale="log10")) == lc.cllr(by_hand)


def test_uploads_file_like_objects_blank_lines_comments_and_a_column_name(tmp_path):
    same = io.BytesIO(b"# same source\nllr\n1.5\n\n2.5\n")
    same.name = "same.txt"
    different = io.BytesIO(b"-1\r\n-2\r\n")
    cases = lc.read_class_files(same, different)
    np.testing.assert_array_equal(cases.tar, [1.5, 2.5])
    np.testing.assert_array_equal(cases.non, [-1.0, -2.0])
    assert cases.name == "same"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, line, words", [
    ("1.0\n2.0\nabc\n", 3, "'abc' is not a number"),
    ("1.0\n\n2.0\nnan\n", 4, "missing"),
    ("1.0\n2.0 target\n", 2, "2 columns"),
])
def test_a_bad_line_is_a_load_error_naming_the_file_and_the_line(tmp_path, text, line, words):
    bad = _write(tmp_path, "bad_llrs.txt", text)
    with pytest.raises(lc.LoadError) as caught:
        lc.read_class_files(KM, bad)
    assert caught.value.line == line and Path(caught.value.path).name == "bad_llrs.txt"
    assert words in str(caught.value) and f"bad_llrs.txt, line {line}" in str(caught.value)
    assert "different-source" in str(caught.value)


def test_an_empty_file_is_a_load_error_naming_it(tmp_path):
    empty = _write(tmp_path, "empty.txt", "")
    with pytest.raises(lc.LoadError, match=r"empty\.txt: the file is empty"):
        lc.read_class_files(empty, KNM)
    comments = _write(tmp_path, "comments.txt", "# nothing here\n\n")
    with pytest.raises(lc.LoadError, match=r"comments\.txt: .*no trials"):
        lc.read_class_files(KM, comments)


def test_a_file_with_two_columns_is_refused_on_its_first_line(tmp_path):
    two = _write(tmp_path, "two_columns.csv", "1.2,target\n-0.3,nontarget\n")
    with pytest.raises(lc.LoadError) as caught:
        lc.read_class_files(two, KNM, scale="log10")
    assert caught.value.line == 1 and "2 columns" in caught.value.reason and "one value per line" in caught.value.reason


def test_a_header_without_values_and_an_unknown_scale(tmp_path):
    header = _write(tmp_path, "header.txt", "llr\n")
    with pytest.raises(lc.LoadError, match=r"header\.txt, line 1: .*header line but no same-source LRs"):
        lc.read_class_files(header, KNM)
    with pytest.raises(ValueError, match="log10"):
        lc.read_class_files(KM, KNM, scale="log2")


def test_a_missing_file_is_a_load_error():
    with pytest.raises(lc.LoadError, match="does not exist"):
        lc.read_class_files(CARTRIDGE / "nothing.csv", KNM)
