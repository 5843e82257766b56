"""Rewrite a score file with new scores, keeping everything else: what ``llrcore calibrate`` writes.

A text file keeps every line (comments, header, trial ids, labels, order) with only its score field replaced,
written in the file's own decimal mark and with the precision of the score it replaces (:func:`rescore_file`);
an llrcore ``.npz`` file keeps its arrays ``tar``, ``non`` and ``spoof``; a Parquet file keeps its columns and
rows. The score column is found as the reader finds it.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

import numpy as np

from ..data.trials import Trials
from ._source import Source, _Source, _text
from .bosaris_h5 import is_hdf5
from .bosaris_h5_write import rescore_h5
from .text import SCORE_NAMES, detect_separator, is_number
from .trials import read_trials
from .writers import write_trials

__all__ = ["rescore_file"]


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


class _Lines:
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


def _rescore_npz(path, transform) -> bytes:
    """An llrcore ``.npz`` score file (arrays ``tar``, ``non``, optionally ``spoof``) with every array transformed."""
    trials = read_trials(path, format="npz")
    assert isinstance(trials, Trials)  # (an .npz file holds one system)
    buffer = io.BytesIO()
    write_trials(buffer, Trials(transform(trials.tar), transform(trials.non), spoof=transform(trials.spoof)),
                 format="npz")
    return buffer.getvalue()


def _rescore_parquet(src: _Source, transform) -> bytes:
    import pandas as pd

    try:
        frame = pd.read_parquet(io.BytesIO(src.data))
    except Exception as exc:  # pyarrow raises many kinds for damaged files
        raise src.error(f"the file is not a readable Parquet file ({type(exc).__name__}: {exc}).") from None
    named = [c for c in frame.columns if str(c).lower() in SCORE_NAMES]
    if len(named) != 1:
        columns = ", ".join(repr(str(c)) for c in frame.columns)
        raise src.error(f"rescoring needs exactly one score column named score, scores or llr; the columns are "
                        f"{columns}.")
    scores = pd.to_numeric(frame[named[0]], errors="coerce").to_numpy(dtype=np.float64)
    if np.isnan(scores).any():
        raise src.error(f"the score in column {str(named[0])!r} is missing or not a number.",
                        int(np.argmax(np.isnan(scores))) + 1, unit="row")
    frame[named[0]] = transform(scores)
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def rescore_file(path: Source, transform: Callable[[np.ndarray], np.ndarray], *, digits: str | int | None = "input"
                 ) -> bytes:
    """The bytes of score file `path` with every score replaced by ``transform(score)``, in the file's format.

    `transform` maps an array of scores to an array of new scores, e.g. a fitted calibration's ``calibrator``.

    Text files keep every line (comments, header, ids, labels, order) and only their score field changes; ``.npz``
    score files keep their arrays ``tar``, ``non`` and ``spoof`` in order; Parquet files keep their columns; a BOSARIS
    Scores ``.h5`` keeps its ids, mask and other datasets (:func:`~llrcore.io.bosaris_h5_write.rescore_h5`). Labels
    are not needed in text and Parquet files.

    Parameters
    ----------
    path : str, os.PathLike or file-like
        The score file: text (Kaldi, BOSARIS, columns), ``.npz``, Parquet or a BOSARIS Scores ``.h5``, told apart by
        the name's suffix or the first bytes.
    transform : callable
        Array of scores -> array of new scores, in the same order.
    digits : "input", int or None
        Significant digits of each new score in a text file. ``"input"`` (default): as many as the score it
        replaces had, line by line, trailing zeros included (``-3.07561`` has 6, ``2.50`` has 3, the decimals of a
        zero count: ``0.000`` has 3), so a file written with 6 digits comes back with 6; an int: that many on every
        line; None: all the digits of the float (``repr``, which reads back exactly). Either way a new score gets
        more digits where fewer would make two different new scores equal or swap their order (all of them past
        15 significant digits), so the file ranks the trials exactly as the new scores do: the EER, minimum DCF
        and DET of the file are those of the new scores. A score written with an exponent (``1.5e-3``) is
        replaced by one with an exponent. ``.npz`` and Parquet files always hold the full float64 values.

    Returns
    -------
    bytes
        The whole rescored file, in the input's format (to write to disk or offer as a download).

    Raises
    ------
    LoadError
        When the file cannot be read or its score column cannot be told apart.
    ValueError
        When `digits` is none of the above.
    """
    _check_digits(digits)
    src = _Source.open(path)
    if src.suffix == ".npz" or src.data[:4] == b"PK\x03\x04":
        return _rescore_npz(path, transform)
    if src.suffix == ".parquet" or src.data[:4] == b"PAR1":
        return _rescore_parquet(src, transform)
    if is_hdf5(src):
        return rescore_h5(src, transform)
    return _Lines(src).rewritten(transform, digits)
