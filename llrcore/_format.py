"""Numbers and short phrases written the same way by every front end, decided once: :func:`percent`,
:func:`format_errors` and :func:`errors_phrase` for errors per 100 trials, :func:`bits`, :func:`number` for any number
in a card or a box, :func:`with_interval`, :func:`listed`, :func:`interval_words`.

Private: a foundation every layer may use (the analyses write their sentences with it); the public face is
:mod:`llrcore.report` (``lc.report.number``, ``lc.report.percent``, ...) and, for the interval words,
:mod:`llrcore.uncertainty.intervals`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["INTERVAL_METHODS", "LARGEST_FIXED", "bits", "errors_phrase", "format_errors", "interval_words", "listed",
           "number", "percent", "with_interval"]


def percent(p: float) -> str:
    """A probability as a percentage, by one rule for every sentence, table and figure label: three significant
    digits, trailing zeros dropped.

    ``0.0253 -> '2.53 %'``, ``0.1 -> '10 %'``, ``0.001 -> '0.1 %'``, ``0.000975 -> '0.0975 %'``, ``0 -> '0 %'``,
    ``1 -> '100 %'``. Never in exponent notation (``1e-7 -> '0.00001 %'``), and a rate below 100 % never shows as
    ``'100 %'`` (``0.99999 -> '99.999 %'``): digits are added until it differs from 100.
    """
    value = 100.0 * float(p)
    if not np.isfinite(value):
        return f"{value} %"
    digits = 3
    text = np.format_float_positional(value, precision=digits, unique=False, fractional=False, trim="-")
    while float(text) == 100 and value != 100 and digits < 17:
        digits += 1
        text = np.format_float_positional(value, precision=digits, unique=False, fractional=False, trim="-")
    return f"{text} %"


def format_errors(x: float) -> str:
    """Errors per 100 trials in two significant digits, never in scientific notation: 0.3646 -> '0.36'."""
    if not np.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    return np.format_float_positional(float(x), precision=2, unique=False, fractional=False, trim="-")


def errors_phrase(x: float) -> str:
    """Errors per 100 trials with their noun: '0.36 errors', '1 error'."""
    text = format_errors(x)
    return f"{text} error" if text == "1" else f"{text} errors"


def with_interval(value: float, lower: float, upper: float, digits: int = 2) -> str:
    """A number with its confidence interval, as the app's tables and the report write it:
    ``with_interval(2.4312, 2.21, 2.674) -> '2.43 [2.21, 2.67]'`` (each by :func:`number`)."""
    return f"{number(value, digits)} [{number(lower, digits)}, {number(upper, digits)}]"


def listed(labels: list[str]) -> str:
    """Items in a sentence: ``'a'``, ``'a and b'``, ``'a, b and c'``."""
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


#: From this size on, :func:`number` writes exponent notation (a fixed-point 1e308 has 309 digits).
LARGEST_FIXED = 1e6


def number(x: float, decimals: int = 3, *, sign: bool = False) -> str:
    """A number for a card, a metric row or a sentence, in a box of about ten characters: `decimals` decimals, or
    three significant digits in exponent notation from :data:`LARGEST_FIXED` on; 'infinite' for an infinite one.

    ``number(0.25314) -> '0.253'``, ``number(2.4312, 2) -> '2.43'``, ``number(1.99e305) -> '1.99e+305'``,
    ``number(-123456789.0, 1) -> '-1.23e+08'``, ``number(0.0143, 4, sign=True) -> '+0.0143'``,
    ``number(float('inf')) -> 'infinite'``, ``number(float('-inf')) -> '-infinite'``, ``number(nan) -> 'NaN'``.
    """
    x = float(x)
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "-infinite" if x < 0 else f"{'+' if sign else ''}infinite"
    plus = "+" if sign else ""
    if abs(x) >= LARGEST_FIXED:
        return f"{x:{plus}.3g}"
    return f"{x:{plus}.{decimals}f}"


def bits(x: float) -> str:
    """A Cllr in bits, three decimals: 0.2531 -> '0.253'; '2.39e+305' for a huge one, 'infinite' for an infinite one
    (:func:`number`)."""
    return number(x, 3)


#: Interval methods of a bootstrap run -> their name in words.
INTERVAL_METHODS = {"bca": "BCa", "percentile": "percentile"}
#: Every interval's name in words, minDCF's out-of-bag bracket and smoothed bootstrap (of a BCa run) included.
_INTERVAL_WORDS = {**INTERVAL_METHODS, "bracket": "out-of-bag bracket", "smoothed": "smoothed basic"}


def interval_words(level: float, method: str) -> str:
    """``"95 % BCa bootstrap interval"``."""
    return f"{100 * level:g} % {_INTERVAL_WORDS[method]} bootstrap interval"
