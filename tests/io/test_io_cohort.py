"""Cohort score files (``model cohort score``): ``lc.read_cohort_scores``.

Independent references: pandas' own whitespace parser (``pandas.read_csv(sep=r"\\s+")``) pivoted with
``DataFrame.pivot`` for the matrix; hand-written bad files whose faulty line is known.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from paths import ASSETS

DATA = ASSETS / "normalization_demo"  # the demo data, also the tests'


@pytest.mark.parametrize("name", ["enrol_cohort.txt", "test_cohort.txt"])
def test_sample_equals_pandas_pivot(name):
    cohort = lc.read_cohort_scores(DATA / name)
    frame = pd.read_csv(DATA / name, sep=r"\s+", header=None, names=["id", "cohort", "score"])
    matrix = frame.pivot(index="id", columns="cohort", values="score")
    np.testing.assert_array_equal(cohort.scores, matrix.loc[cohort.ids, cohort.cohort].to_numpy())
    assert list(cohort.ids) == list(pd.unique(frame["id"]))
    assert cohort.name == name


def test_header_comments_tabs_and_runs_of_blanks_read_alike():
    plain = "m1 c1 0.5\nm1 c2 -0.25\nm2 c1 1e-3\nm2 c2 2\n"
    messy = "model\tcohort\tscore\n# a comment\n\nm1   c1\t0.5\n  m1 c2 -0.25\nm2 c1 1e-3 \nm2\tc2\t2\n"
    a, b = lc.read_cohort_scores(io.StringIO(plain)), lc.read_cohort_scores(io.BytesIO(messy.encode()))
    np.testing.assert_array_equal(a.scores, [[0.5, -0.25], [0.001, 2.0]])
    np.testing.assert_array_equal(a.scores, b.scores)
    assert list(b.ids) == ["m1", "m2"] and list(b.cohort) == ["c1", "c2"]


@pytest.mark.parametrize("text, line, reason", [
    ("m1 c1 0.5\nm1 c2\n", 2, "has 2 fields; a cohort score file has 3"),
    ("m1 c1 0.5\nm1 c2 abc\n", 2, "the score 'abc' is not a number"),
    ("m1 c1 0.5\nm1 c2 nan\n", 2, "the score 'nan' is not a number"),
    ("m1 c1 0.5\nm1 c2 0.1\nm2 c1 0.3\nm2 c2 0.4\nm1 c2 0.9\n", 5, "m1 / c2 is scored twice"),
    ("id cohort score\nm1 c1 0.5\nm1 c2 0.1\nm1 c1 0.3\n", 4, "m1 / c1 is scored twice"),
    ("m1 c1 0.5\nm1 c2 0.1\nm2 c1 0.3\n", None, "m2 has 1 cohort scores but the cohort has 2 recordings"),
    ("", None, "holds no scores; a cohort score file has 3"),
])
def test_bad_files_name_the_file_and_line(tmp_path, text, line, reason):
    path = tmp_path / "cohort.txt"
    path.write_text(text)
    with pytest.raises(lc.LoadError) as info:
        lc.read_cohort_scores(path)
    assert info.value.path == str(path) and info.value.line == line
    assert reason in info.value.reason
    assert str(info.value).startswith("cohort.txt")
