"""How many digits `lc.rescore_file` writes: those of the score each new score replaces, more where fewer would tie or
reorder two trials, or what `digits=` asks.

Independent references: the decimal module's count of significant digits and its half-even rounding of the exact
binary value of each new score, computed here; the ranks of the exact new scores (numpy).
"""
import io
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np
import pytest

import llrcore as lc

# one score per line, of many precisions, far enough apart that their own digits keep the new scores apart
MIXED = ["-3.07561", "2.50", "0.0750", "18.20527", "1.5", "-12", "100.0", "7.000001", "-0.5", "42.42"]


def scale_and_shift(scores):
    return 0.37 * scores + 0.123456789


def _file(lines, name="scores.txt") -> io.BytesIO:
    buffer = io.BytesIO(("\n".join(lines) + "\n").encode())
    buffer.name = name
    return buffer


def _significant(token: str) -> int:
    return len(Decimal(token).as_tuple().digits)


def _rounded(value: float, digits: int) -> Decimal:
    """The exact binary value of `value` rounded half-even to `digits` significant digits."""
    exact = Decimal(float(value))
    return exact.quantize(Decimal(1).scaleb(exact.adjusted() - digits + 1), rounding=ROUND_HALF_EVEN)


def _written_scores(data: bytes, column: int = 0, separator=None) -> list[str]:
    return [line.split(separator)[column] for line in data.decode().splitlines()]


def _rescored(scores, transform=scale_and_shift, **options) -> list[str]:
    lines = [f"{score} {'target' if i % 2 else 'nontarget'}" for i, score in enumerate(scores)]
    return _written_scores(lc.rescore_file(_file(lines), transform, **options))


def test_each_new_score_has_the_significant_digits_of_the_score_it_replaces():
    written = _rescored(MIXED)
    assert [_significant(w) for w in written] == [_significant(s) for s in MIXED]  # 6, 3, 3, 7, 2, 2, 4, 7, 1, 4


def test_each_new_score_is_the_exact_one_rounded_to_those_digits():
    written = _rescored(MIXED)
    exact = scale_and_shift(np.array([float(s) for s in MIXED]))
    for token, value, score in zip(written, exact, MIXED):
        assert Decimal(token) == _rounded(value, _significant(score)), (score, token)


def test_scores_read_back_within_half_a_unit_of_their_last_digit():
    data = lc.rescore_file(_file([f"{s} {'target' if i % 2 else 'nontarget'}" for i, s in enumerate(MIXED)]),
                           scale_and_shift)
    back = lc.read_trials(_file(data.decode().splitlines()))
    exact = scale_and_shift(np.array([float(s) for s in MIXED]))
    digits = np.array([_significant(s) for s in MIXED])
    unit = 10.0 ** (np.floor(np.log10(np.abs(exact))) - digits + 1)
    for got, want, half in ((back.non, exact[0::2], unit[0::2] / 2), (back.tar, exact[1::2], unit[1::2] / 2)):
        assert np.all(np.abs(got - want) <= half * (1 + 1e-12))


def test_trailing_zeros_count_and_equal_scores_stay_equal():
    """2.5 and 2.50 are the same score: both new scores get the 3 digits of the more precise one."""
    written = _rescored(["2.5", "2.50", "-1"], lambda s: s / 3)
    assert written[0] == written[1] == "0.833"


def test_a_zero_keeps_its_decimals():
    assert _rescored(["0.000", "5.1"], lambda s: s + 1 / 3)[0] == "0.333"


def test_scores_written_with_an_exponent_keep_one():
    assert _rescored(["1.5e-3", "-2.0E+1"], lambda s: 2 * s) == ["3.0e-03", "-4.0e+01"]


def test_a_new_score_too_large_for_its_digits_is_written_with_an_exponent():
    """5003 to the 1 digit of "5" is 5e+03; "5000" would claim 4 digits."""
    assert _rescored(["5", "-7"], lambda s: 1000 * s + 3) == ["5e+03", "-7e+03"]


def test_a_decimal_comma_file_keeps_its_comma():
    data = lc.rescore_file(_file(["score;label", "2,50;target", "-1,25;nontarget"], "scores.csv"), lambda s: s / 3)
    assert data.decode().splitlines() == ["score;label", "0,833;target", "-0,417;nontarget"]


def test_new_scores_that_the_input_digits_would_tie_get_the_digits_that_keep_them_apart():
    """1001.01 and 1001.02 (from 1.01 and 1.02) are the same to 3 digits; the file must still rank the trials as
    the new scores do: same order, same ties, no new ones."""
    scores = ["1.01", "1.02", "1.02", "1.03", "-1000.5", "1.015"]
    written = _rescored(scores, lambda s: s + 1000)
    back = np.array([float(w) for w in written])
    exact = np.array([float(s) for s in scores]) + 1000
    assert np.array_equal(np.unique(back, return_inverse=True)[1], np.unique(exact, return_inverse=True)[1])
    assert written[1] == written[2]
    assert written[4] == "-0.50000"  # its nearest neighbour is 1001 away: the 5 digits of -1000.5 are enough
    assert all(Decimal(w) == _rounded(v, _significant(w)) for w, v in zip(written, exact))


def test_digits_none_writes_every_digit():
    written = _rescored(MIXED, digits=None)
    exact = scale_and_shift(np.array([float(s) for s in MIXED]))
    assert [float(w) for w in written] == list(exact)


def test_digits_as_a_number_applies_to_every_line():
    written = _rescored(MIXED, digits=4)
    exact = scale_and_shift(np.array([float(s) for s in MIXED]))
    assert all(Decimal(w) == _rounded(v, 4) and _significant(w) == 4 for w, v in zip(written, exact))


@pytest.mark.parametrize("digits", [0, -3, 2.5, "all", True])
def test_other_digits_are_refused_in_a_sentence(digits):
    with pytest.raises(ValueError, match="significant digits"):
        lc.rescore_file(_file(["1.5 target", "-1.5 nontarget"]), np.negative, digits=digits)


def test_npz_files_keep_full_float64_whatever_the_digits(tmp_path):
    source = tmp_path / "scores.npz"
    tar, non = np.array([1.0 / 3.0, 2.5]), np.array([-np.pi, 0.1])
    np.savez(source, tar=tar, non=non)
    with np.load(io.BytesIO(lc.rescore_file(source, scale_and_shift, digits=2)), allow_pickle=False) as after:
        np.testing.assert_array_equal(after["tar"], scale_and_shift(tar))
        np.testing.assert_array_equal(after["non"], scale_and_shift(non))
