"""Test-only reference: llrcore's own line-by-line rewriting of a text score file, as it was before the rewrite was
vectorised (issue 45), to compare the vectorised one with byte for byte.

Never imported by llrcore. Provenance: ``llrcore/io/rescore.py`` of this repository at commit d6bdbf7 (the constants,
``_plain``, ``_significant_digits``, ``_digits_to_tell_apart``, ``_written_digits``, ``_format_llr``,
``_check_digits`` and the class ``_Lines``, here ``Lines``), copied unchanged but for that name and these imports; one
Python step per line. :func:`rewrite` is what ``rescore_file`` returned for a text file.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import numpy as np

from llrcore.io._source import _Source, _text
from llrcore.io.text import SCORE_NAMES, detect_separator, is_number

#: A decimal of up to this many significant digits reads back as a float that writes back the same (C's DBL_DIG),
#: so different ones stay different; a score that needs more is written with all its digits (``repr``).
_EXACT_DIGITS = 15
_EXPONENT = re.compile(r"[\d.][eE]")


def _plain(token: str, decimal: str) -> str:
    """A number as written in the file, without quotes or spaces and with a decimal point."""
    token = token.strip(" \t").strip('"')
    return token.replace(",", ".") if decimal == "," else token


def _significant_digits(token: str) -> int:
    """Significant digits of a number as written: those of its mantissa, trailing zeros included (``-3.07561``: 6,
    ``2.50``: 3, ``0.0750``: 3, ``1e-3``: 1), the decimals of a zero (``0.000``: 3); 0 for ``inf`` and ``nan``."""
    try:
        value = Decimal(token)
    except InvalidOperation:
        return 0
    if not value.is_finite():
        return 0
    return len(value.as_tuple().digits) if value else max(1, -int(value.as_tuple().exponent))


def _digits_to_tell_apart(values: np.ndarray) -> np.ndarray:
    """For sorted, different, finite `values`: the fewest significant digits with which each, rounded, stays within
    half the gap to its nearest neighbour, so that no two become equal and none changes places.

    Rounding ``|v|`` in ``[10^e, 10^(e+1))`` to ``d`` significant digits moves it by at most ``10^(e-d+1) / 2``;
    that is below half the gap ``h`` when ``d > e + 1 - log10(2 h)``.
    """
    gaps = np.diff(values)
    half = np.minimum(np.r_[np.inf, gaps], np.r_[gaps, np.inf]) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = np.floor(np.floor(np.log10(np.abs(values))) + 1 - np.log10(2 * half)) + 1
    needed[values == 0] = 1  # zero is written exactly
    return np.clip(needed, 1, _EXACT_DIGITS + 1).astype(int)  # a lone value: -inf, one digit will do


def _written_digits(llrs: np.ndarray, tokens: list[str], digits) -> np.ndarray:
    """Significant digits to write each new score with (0: all of them, ``repr``); see :func:`rescore_file`."""
    if digits is None:
        return np.zeros(llrs.size, int)
    wanted = np.array([_significant_digits(t) for t in tokens]) if digits == "input" else np.full(llrs.size, digits)
    finite = np.isfinite(llrs)
    values, value_of_line = np.unique(llrs[finite], return_inverse=True)
    most = np.zeros(values.size, int)  # equal new scores are written alike, with the most digits any of them asks
    np.maximum.at(most, value_of_line, wanted[finite])
    per_value = np.maximum(most, _digits_to_tell_apart(values))
    out = np.zeros(llrs.size, int)  # inf and nan: repr writes them as the reader reads them
    out[finite] = np.where(per_value > _EXACT_DIGITS, 0, per_value)[value_of_line]
    return out


def _format_llr(value: float, digits: int, exponent: bool, decimal: str) -> str:
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


def _check_digits(digits) -> None:
    if digits is None or digits == "input":
        return
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 1:
        raise ValueError(f"digits is 'input' (as many significant digits as the score replaced), a number of "
                         f"significant digits of at least 1, or None (all the digits), not {digits!r}.")


class Lines:
    """The data lines of a text score file split into fields, keeping everything needed to write them back."""

    def __init__(self, src: _Source):
        self.src = src
        self.lines = _text(src).split("\n")
        self.data = [i for i, line in enumerate(self.lines) if line.strip(" \t") and
                     not line.lstrip(" \t").startswith("#")]
        if not self.data:
            raise src.error("the file holds no scores (only blank or comment lines).")
        self.sep, self.decimal = detect_separator([self.lines[i] for i in self.data[:50]])
        self.whitespace = self.sep not in ("\t", ";", ",", "|")

    def split(self, i: int) -> list[str]:
        """Fields of line `i` and the separators around them: ``pieces[0::2]`` fields, ``pieces[1::2]`` glue."""
        line = self.lines[i]
        if self.whitespace:
            pieces = re.split(r"([ \t]+)", line)
            return pieces
        return [p for field in line.split(self.sep) for p in (field, self.sep)][:-1]

    def score_column(self) -> tuple[int, bool]:
        """The index of the score field and whether the first data line is a header."""
        rows = [self.split(i)[0::2] for i in self.data]
        rows = [[f for f in row if f != ""] if self.whitespace else row for row in rows]
        width = len(rows[0])
        for i, row in zip(self.data, rows):
            if len(row) != width:
                raise self.src.error(f"this line has {len(row)} columns but line {self.data[0] + 1} has {width}; "
                                     "every line must have the same columns.", i + 1)
        header = not any(is_number(f.strip(" \t").strip('"'), self.decimal) for f in rows[0])
        body = rows[1:] if header else rows
        if not body:
            raise self.src.error("the file has a header line but no scores after it.", self.data[0] + 1)
        numeric = [j for j in range(width) if all(is_number(r[j].strip(" \t").strip('"'), self.decimal)
                                                   for r in body)]
        if header:
            named = [j for j in numeric if rows[0][j].strip(" \t").strip('"').lower() in SCORE_NAMES]
            if len(named) == 1:
                return named[0], header
        # a column of 0/1 labels is numeric too: it is not the score when another numeric column exists
        scores = [j for j in numeric if not all(r[j].strip(" \t").strip('"') in ("0", "1") for r in body)] \
            or numeric
        if not scores:
            raise self.src.error("no column holds only numbers, so there is no score to calibrate.",
                                 self.data[1 if header else 0] + 1)
        if len(scores) > 1 and header:
            listed = ", ".join(repr(rows[0][j].strip(" \t").strip('"')) for j in scores)
            raise self.src.error(f"the columns {listed} all hold numbers: calibrate writes one system's scores, so "
                                 "give a file with one score column (or name it 'score').", self.data[0] + 1)
        if len(scores) > 1:
            listed = ", ".join(str(j + 1) for j in scores)
            raise self.src.error(f"columns {listed} all hold numbers, so which one is the score is ambiguous; add a "
                                 "header line naming the score column 'score'.", self.data[0] + 1)
        return scores[0], header

    def rewritten(self, transform, digits) -> bytes:
        column, header = self.score_column()
        rows = self.data[1:] if header else self.data
        pieces = [self.split(i) for i in rows]
        positions = [self._position(p, column) for p in pieces]
        tokens = [_plain(p[k], self.decimal) for p, k in zip(pieces, positions)]
        scores = np.array([float(t) for t in tokens])
        if np.isnan(scores).any():
            row = int(np.argmax(np.isnan(scores)))
            raise self.src.error("the score is NaN; every trial needs a number.", rows[row] + 1)
        llrs = np.asarray(transform(scores), dtype=np.float64)
        lines = list(self.lines)
        for i, p, k, token, llr, d in zip(rows, pieces, positions, tokens, llrs, _written_digits(llrs, tokens, digits)):
            field = p[k]
            stripped = field.strip(" \t")
            new = _format_llr(llr, d, bool(_EXPONENT.search(token)), self.decimal)
            p[k] = field.replace(stripped, new, 1)  # keeps spaces around the number
            lines[i] = "".join(p)
        return "\n".join(lines).encode("utf-8")

    def _position(self, pieces: list[str], column: int) -> int:
        """Index in `pieces` of field number `column` (whitespace files may start with glue)."""
        fields = [k for k in range(0, len(pieces), 2) if not (self.whitespace and pieces[k] == "")]
        return fields[column]


def rewrite(path, transform, *, digits="input") -> bytes:
    """The bytes ``rescore_file(path, transform, digits=digits)`` wrote for the text file `path` at d6bdbf7."""
    _check_digits(digits)
    return Lines(_Source.open(path)).rewritten(transform, digits)
