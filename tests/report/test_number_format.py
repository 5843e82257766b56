"""How a number is written in a box of the report, the app and the command line: a few significant digits, an
exponent for huge values (a Cllr of 2.39e+305, never 306 digits), words for infinities and NaN.

Independent reference: each text written out by hand.
"""
from __future__ import annotations

import pytest

from llrcore.report import bits, number, percent, with_interval


@pytest.mark.parametrize("value, decimals, sign, expected", [
    (0.25314, 3, False, "0.253"), (2.4312, 2, False, "2.43"), (1.99e305, 3, False, "1.99e+305"),
    (2.3885679484916614e305, 4, False, "2.39e+305"), (-123456789.0, 1, False, "-1.23e+08"),
    (999999.4, 1, False, "999999.4"), (1e6, 2, False, "1e+06"), (0.0143, 4, True, "+0.0143"),
    (-0.5, 3, True, "-0.500"), (float("inf"), 3, False, "infinite"), (float("-inf"), 3, False, "-infinite"),
    (float("nan"), 3, False, "NaN"),
])
def test_number_fits_its_box(value, decimals, sign, expected):
    assert number(value, decimals, sign=sign) == expected


def test_bits_and_intervals_use_number():
    assert bits(2.3885679484916614e305) == "2.39e+305" and bits(0.25314) == "0.253"
    assert bits(float("inf")) == "infinite"
    assert with_interval(2.4312, 2.21, 2.674) == "2.43 [2.21, 2.67]"
    assert with_interval(1.99e305, 0.5, 3e305, 4) == "1.99e+305 [0.5000, 3e+305]"
    assert percent(0.00127) == "0.127 %"  # the forensic metrics and its misleading-evidence table alike
