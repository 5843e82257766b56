"""Numbers written with a given number of significant digits, a whole column at once: the text that
:func:`~llrcore.io.rescore_file` puts in place of each score.

Each number is written as :func:`format_llr` writes it, byte for byte: ``format(value, f".{d-1}e")`` (the float's
exact binary value rounded half-even to ``d`` significant digits), positional unless it should keep an exponent.
The column is rounded with numpy: for ``d <= 15`` and ``|e| <= 22`` (``e`` the decimal exponent) the scaled value
``s = |v| 10^(d-1-e)`` is one correctly rounded product or quotient by an exact power of ten, so
``|s - |v| 10^(d-1-e)| <= ulp(s) / 2`` and ``round(s)`` is the exact value's rounding unless ``s`` lies within that
of a half-integer. Those few numbers, and the ones written with all their digits (``repr``), are written by Python.
"""
from __future__ import annotations

from decimal import Decimal

import numpy as np

__all__ = ["format_column", "format_llr"]

_POW10 = 10.0 ** np.arange(23)  # every power of ten up to 10^22 is a float64 exactly
_POW10_INT = 10 ** np.arange(16, dtype=np.int64)
_ROWS = 1 << 16  # numbers formatted at a time (their temporaries stay in the processor's cache)
#: Mantissas of up to this many digits are rounded with numpy (below 2^53, and exact for numpy's integers).
_MOST_DIGITS = 15
#: Positional numbers with more zeros than this after the point (``0.000...0123``) are written by Python.
_MOST_ZEROS = 20


def format_llr(value: float, digits: int, exponent: bool, decimal: str) -> str:
    """`value` with `digits` significant digits, trailing zeros kept (0: all its digits), with the file's decimal
    mark. Positional like ``-2.53781``, unless the score it replaced had an exponent or the last digit kept lies
    left of the units (5000 to 1 digit is ``5e+03``: ``5000`` would claim 4)."""
    if digits == 0 or not np.isfinite(value):
        text = repr(float(value))
    else:
        text = format(float(value), f".{digits - 1}e")  # correctly rounded from the float's exact value
        if not exponent and int(text.split("e")[1]) < digits:
            text = format(Decimal(text), "f")
    return text.replace(".", ",") if decimal == "," else text


def format_column(values: np.ndarray, digits: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``format_llr(values[i], digits[i], exponent[i], ".")`` for every `i`, as ASCII bytes.

    Returns
    -------
    text : numpy.ndarray of uint8, shape (n, width)
        Row ``i`` holds the text of ``values[i]``, padded with zero bytes.
    lengths : numpy.ndarray of int64
        The length of each row's text.
    """
    values, digits, exponent = np.asarray(values, np.float64), np.asarray(digits, np.int64), np.asarray(exponent, bool)
    starts = range(0, values.size, _ROWS)
    blocks = [_format_block(values[at:at + _ROWS], digits[at:at + _ROWS], exponent[at:at + _ROWS]) for at in starts]
    text = np.zeros((values.size, max((block.shape[1] for block, _ in blocks), default=1)), np.uint8)
    for at, (block, _) in zip(starts, blocks):
        text[at:at + block.shape[0], :block.shape[1]] = block
    return text, np.concatenate([lengths for _, lengths in blocks] or [np.zeros(0, np.int64)])


def _format_block(values: np.ndarray, digits: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`format_column` of a block of rows (small enough for its temporaries to stay in the cache)."""
    rounded = np.flatnonzero((digits > 0) & (digits <= _MOST_DIGITS) & np.isfinite(values))
    d = digits[rounded]
    with np.errstate(all="ignore"):  # where numpy cannot be sure, or overflows, format_llr writes the number
        mantissa, power, ok = _rounded(np.abs(values[rounded]), d)
    positional = ~exponent[rounded] & (power < d)
    ok &= np.where(positional, -power <= _MOST_ZEROS, np.abs(power) < 100)  # two exponent digits
    fast, fast_lengths = _compose(np.signbit(values[rounded][ok]), mantissa[ok], power[ok], d[ok], positional[ok])
    by_python = np.ones(values.size, bool)
    by_python[rounded[ok]] = False
    slow, slow_lengths = _by_python(values, digits, exponent, np.flatnonzero(by_python))
    text = np.zeros((values.size, max(fast.shape[1], slow.shape[1])), np.uint8)
    text[rounded[ok], :fast.shape[1]] = fast
    text[by_python, :slow.shape[1]] = slow
    lengths = np.zeros(values.size, np.int64)
    lengths[rounded[ok]], lengths[by_python] = fast_lengths, slow_lengths
    return text, lengths


def _by_python(values, digits, exponent, rows) -> tuple[np.ndarray, np.ndarray]:
    """The text of `rows` by :func:`format_llr` (``repr``, a C loop, for those written with all their digits)."""
    every = (digits[rows] == 0) | ~np.isfinite(values[rows])
    texts = np.empty(rows.size, object)
    texts[every] = list(map(repr, values[rows[every]].tolist()))
    rest = rows[~every]
    texts[~every] = [format_llr(v, d, e, ".") for v, d, e in
                     zip(values[rest].tolist(), digits[rest].tolist(), exponent[rest].tolist())]
    array = texts.astype("S") if rows.size else np.zeros(0, "S1")
    return array.view(np.uint8).reshape(rows.size, array.dtype.itemsize), np.char.str_len(array)


def _scaled(a: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a 10^shift``, one rounding (exact powers of ten), and where that holds (``|shift| <= 22``)."""
    power = _POW10[np.minimum(np.abs(shift), 22)]
    return np.where(shift >= 0, a * power, a / power), np.abs(shift) <= 22


def _rounded(a: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``a >= 0`` and ``1 <= d <= 15``: the integer ``m`` of `d` digits and the exponent ``e`` with
    ``a ~ m 10^(e-d+1)``, rounded half-even from the exact value of `a` (``m = 0``, ``e = 0`` for zero), and where
    that rounding is certain (elsewhere :func:`format_llr` decides)."""
    zero = a == 0
    power = np.floor(np.log10(np.where(zero, 1.0, a))).astype(np.int64)
    scaled, _ = _scaled(a, d - 1 - power)
    power += (scaled >= _POW10[d]).astype(np.int64) - (scaled < _POW10[d - 1])  # log10 is off near powers of ten
    scaled, ok = _scaled(a, d - 1 - power)
    ok &= (scaled >= _POW10[d - 1]) & (scaled < _POW10[d])
    whole = np.floor(scaled)
    fraction = scaled - whole
    ok &= np.abs(fraction - 0.5) > 2 * np.spacing(scaled)  # the exact value is on the same side of the half
    mantissa = np.where(ok, whole + (fraction > 0.5), 0).astype(np.int64)
    carry = mantissa == _POW10_INT[d]  # 9.9996 to 4 digits is 1.000e+01
    mantissa[carry] //= 10
    power += carry
    mantissa[zero], power[zero], ok[zero] = 0, 0, True
    return mantissa, power, ok


def _compose(negative, mantissa, power, d, positional) -> tuple[np.ndarray, np.ndarray]:
    """ASCII text of ``-? m 10^(e-d+1)``: positional (``0.00123``, ``12.3``, ``500``) or ``1.23e-03``, as Python's
    ``format`` and ``Decimal``'s ``"f"`` write it."""
    zeros = np.where(positional & (power < 0), -power, 0)  # "0.00" before the digits of 0.00123
    places = zeros + d
    point = np.where(positional & (power >= 0), power + 1, 1)  # digits before the decimal point
    has_point = point < places
    lengths = negative + places + has_point + np.where(positional, 0, 4)
    width = int(lengths.max(initial=1))
    text = np.zeros(mantissa.size * width, np.uint8)
    at = np.arange(mantissa.size) * width + negative  # where each number's text starts, after its sign
    text[at[negative] - 1] = ord("-")
    text[(at + point)[has_point]] = ord(".")
    for i in range(int(zeros.max(initial=0))):
        rows = zeros > i
        text[(at + i + (i >= point))[rows]] = ord("0")
    rest = mantissa.copy()
    for k in range(int(d.max(initial=0))):  # the digit of 10^k in the mantissa, from the last
        i = places - 1 - k  # its place among the digits written
        rows = d > k
        text[(at + i + (has_point & (i >= point)))[rows]] = (ord("0") + rest % 10)[rows]
        rest //= 10
    exp = ~positional
    e, at = power[exp], (at + places + has_point)[exp]
    text[at] = ord("e")
    text[at + 1] = np.where(e < 0, ord("-"), ord("+"))
    text[at + 2] = ord("0") + np.abs(e) // 10
    text[at + 3] = ord("0") + np.abs(e) % 10
    return text.reshape(mantissa.size, width), lengths
