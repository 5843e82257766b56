"""``CountedScores`` merge exactly: ``a + b``, ``sum(parts)`` and ``CountedScores.merge(parts)`` give the counts of the
trials of all the parts, and every metric of the merged table is that of the concatenated trials, to the last bit.

Independent references: the concatenated trials themselves, through ``lc.Trials`` (which sorts the trials and never
sees a count); counts written out by hand in the tests; random parts drawn by hypothesis (ties across parts, ``-0.0``
and ``0.0``, ``±inf``); real data, the ASVspoof 2019 LA ASV evaluation scores of ``assets/`` (SOURCE.txt there) cut
into 7 parts, counted by hand with ``np.unique`` and by DuckDB (``lc.read_counts`` of 7 files), merged, against the
whole file read by ``lc.read_trials``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llrcore as lc
from paths import ASSETS

ASV_EVAL = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
PRIORS = np.array([0.5, 0.1, 0.01, 0.001])


def counted(tar, non, name: str = "") -> lc.CountedScores:
    """The counts per unique score of the trials, counted by hand: ``np.unique`` of each class put at its place among
    the scores of either (``-0.0`` read as ``0.0``, as the library reads it)."""
    tar, non = np.asarray(tar, dtype=float) + 0.0, np.asarray(non, dtype=float) + 0.0
    unique = np.unique(np.concatenate([tar, non]))
    return lc.CountedScores(unique, _count(unique, tar), _count(unique, non), name=name)


def _count(unique, scores):
    values, counts = np.unique(scores, return_counts=True)
    out = np.zeros(unique.size, dtype=np.int64)
    out[np.searchsorted(unique, values)] = counts
    return out


def same(a, b) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def assert_same_table(a: lc.CountedScores, b: lc.CountedScores) -> None:
    for column in ("unique", "tar_counts", "non_counts"):
        assert np.array_equal(getattr(a, column), getattr(b, column)), column
    assert a.tar_counts.dtype == a.non_counts.dtype == np.int64


def assert_metrics_of_trials(merged: lc.CountedScores, trials: lc.Trials) -> None:
    """EER, minDCF, actDCF, Cllr, minCllr, Cprimary and both DETs of the merged counts equal those of the trials."""
    assert (merged.n_tar, merged.n_non) == (trials.tar.size, trials.non.size)
    assert same(lc.eer(merged), lc.eer(trials))
    assert same(lc.min_dcf(merged, p_target=PRIORS), lc.min_dcf(trials, p_target=PRIORS))
    assert same(lc.act_dcf(merged, p_target=PRIORS), lc.act_dcf(trials, p_target=PRIORS))
    assert same(lc.cllr(merged), lc.cllr(trials))
    assert same(lc.min_cllr(merged), lc.min_cllr(trials))
    assert same(lc.cprimary(merged), lc.cprimary(trials))
    for rocch in (False, True):
        for mine, theirs in zip(lc.det_curve(merged, rocch=rocch), lc.det_curve(trials, rocch=rocch)):
            assert same(mine, theirs)


# ----- by hand ----------------------------------------------------------------------------------------------------


def test_two_tables_add_their_counts_by_hand():
    # a: 0.0 (1 tar), 1.0 (2 non);  b: 1.0 (1 tar, 1 non), 3.0 (1 tar)
    a = lc.CountedScores([0.0, 1.0], [1, 0], [0, 2])
    b = lc.CountedScores([1.0, 3.0], [1, 1], [1, 0])
    merged = a + b
    # union of the scores 0, 1, 3; at 1.0: targets 0 + 1 = 1, non-targets 2 + 1 = 3
    assert merged.unique.tolist() == [0.0, 1.0, 3.0]
    assert merged.tar_counts.tolist() == [1, 1, 1]
    assert merged.non_counts.tolist() == [0, 3, 0]
    assert_metrics_of_trials(merged, lc.Trials([0.0, 1.0, 3.0], [1.0, 1.0, 1.0]))


def test_minus_zero_and_zero_are_one_score_and_empty_rows_leave():
    a = lc.CountedScores([-0.0, 2.0, 5.0], [1, 0, 0], [0, 1, 0])  # -0.0 is read as 0.0; 5.0 holds no trial
    b = lc.CountedScores([0.0, 1.0], [0, 1], [1, 1])
    merged = a + b
    assert merged.unique.tolist() == [0.0, 1.0, 2.0] and not np.signbit(merged.unique).any()
    assert merged.tar_counts.tolist() == [1, 1, 0] and merged.non_counts.tolist() == [1, 1, 1]
    assert_metrics_of_trials(merged, lc.Trials([-0.0, 1.0], [0.0, 1.0, 2.0]))


def test_counts_past_two_to_the_31_and_32_stay_exact():
    n = 3_000_000_000  # each part alone passes 2^31; merged they pass 2^32
    a = lc.CountedScores([0.0, 1.0], [0, n], [n, 0])
    b = lc.CountedScores([0.5, 1.0], [n, n], [n, 0])
    merged = sum([a, b])
    assert merged.tar_counts.tolist() == [0, n, 2 * n] and merged.non_counts.tolist() == [n, n, 0]
    assert (merged.n_tar, merged.n_non) == (3 * n, 2 * n) == (9_000_000_000, 6_000_000_000)
    # the same table with every count divided by n: each rate is a quotient k n / (m n), the same float as k / m
    small = lc.CountedScores([0.0, 0.5, 1.0], [0, 1, 2], [1, 1, 0])
    assert lc.eer(merged) == lc.eer(small)
    assert (lc.min_dcf(merged, p_target=PRIORS) == lc.min_dcf(small, p_target=PRIORS)).all()
    assert (lc.act_dcf(merged, p_target=PRIORS) == lc.act_dcf(small, p_target=PRIORS)).all()
    for mine, theirs in zip(lc.det_curve(merged), lc.det_curve(small)):
        assert np.array_equal(mine, theirs)


def test_sum_starts_from_zero_and_names_follow_the_parts():
    a = lc.CountedScores([0.0, 1.0], [1, 0], [0, 1], name="sys")
    b = lc.CountedScores([2.0, 3.0], [1, 0], [0, 1], name="sys")
    assert (0 + a) is a
    assert sum([a, b]).name == "sys"
    assert (a + lc.CountedScores([0.0, 1.0], [1, 0], [0, 1], name="other")).name == ""
    assert lc.CountedScores.merge([a, b], name="both").name == "both"
    with pytest.raises(TypeError):
        a + 1.0
    with pytest.raises(ValueError, match="one or more CountedScores"):
        lc.CountedScores.merge([])


# ----- random parts -------------------------------------------------------------------------------------------------

#: A few values, so that parts share scores (ties across parts), with the signed zeros and the infinities.
SCORES = st.one_of(st.sampled_from([-np.inf, -1.5, -0.0, 0.0, 0.25, 2.0, np.inf]),
                   st.floats(-30, 30, allow_nan=False, width=32))
PART = st.tuples(st.lists(SCORES, min_size=1, max_size=20), st.lists(SCORES, min_size=1, max_size=20))


@settings(max_examples=150, deadline=None)
@given(st.lists(PART, min_size=3, max_size=6))
def test_merging_is_exact_associative_commutative_and_gives_the_trials_metrics(parts):
    tables = [counted(tar, non) for tar, non in parts]
    a, b, c = tables[:3]
    assert_same_table(a + b, b + a)
    assert_same_table((a + b) + c, a + (b + c))
    whole = sum(tables)
    assert_same_table(whole, lc.CountedScores.merge(tables[::-1]))
    assert_same_table(whole, counted(np.concatenate([tar for tar, _ in parts]),
                                     np.concatenate([non for _, non in parts])))
    trials = lc.Trials(np.concatenate([tar for tar, _ in parts]), np.concatenate([non for _, non in parts]))
    assert_metrics_of_trials(whole, trials)


# ----- real data ----------------------------------------------------------------------------------------------------


def test_asvspoof_eval_in_seven_parts_counted_by_hand():
    whole = lc.read_trials(ASV_EVAL)
    rng = np.random.default_rng(7)
    tar_parts = np.array_split(rng.permutation(whole.tar), 7)
    non_parts = np.array_split(rng.permutation(whole.non), 7)
    parts = [counted(tar, non) for tar, non in zip(tar_parts, non_parts)]
    merged = sum(parts)
    assert_metrics_of_trials(merged, whole)
    assert lc.evaluate(merged, p_target=0.01, name="x") == lc.evaluate(whole, p_target=0.01, name="x")


def test_asvspoof_eval_in_seven_files_read_by_duckdb(tmp_path):
    pytest.importorskip("duckdb")
    lines = np.array(ASV_EVAL.read_text().splitlines(keepends=True))  # the file lists the classes in turn: shuffle
    paths = [tmp_path / f"part{number}.txt" for number in range(7)]
    for path, part in zip(paths, np.array_split(np.random.default_rng(7).permutation(lines), 7)):
        path.write_text("".join(part))
    merged = lc.CountedScores.merge([lc.read_counts(path) for path in paths])
    assert_metrics_of_trials(merged, lc.read_trials(ASV_EVAL))
