"""Rewrite a score file with new scores, keeping everything else: what ``llrcore calibrate`` writes.

A text file keeps every line (comments, header, trial ids, labels, order) with only its score field replaced,
written with all its digits and the file's own decimal mark; an llrcore ``.npz`` file keeps its arrays ``tar``,
``non`` and ``spoof``; a Parquet file keeps its columns and rows. The score column is found as the reader finds it.
"""
from __future__ import annotations

import io
import re

import numpy as np

from ..data import Trials
from ._source import _Source, _text_bytes
from .trials import _SCORE_NAMES, _detect_separator, _is_number, read_trials, write_trials

__all__ = ["rescore_file"]


def _format_llr(value: float, decimal: str) -> str:
    """All the digits of a float (``repr`` round-trips exactly), with the file's decimal mark."""
    text = repr(float(value))
    return text.replace(".", ",") if decimal == "," else text


def _number(token: str, decimal: str) -> float:
    token = token.strip(" \t").strip('"')
    return float(token.replace(",", ".") if decimal == "," else token)


class _Lines:
    """The data lines of a text score file split into fields, keeping everything needed to write them back."""

    def __init__(self, src: _Source):
        self.src = src
        self.lines = _text_bytes(src).decode("utf-8").split("\n")
        self.data = [i for i, line in enumerate(self.lines) if line.strip(" \t") and
                     not line.lstrip(" \t").startswith("#")]
        if not self.data:
            raise src.error("the file holds no scores (only blank or comment lines).")
        self.sep, self.decimal = _detect_separator([self.lines[i] for i in self.data[:50]])
        self.whitespace = self.sep not in ("\t", ";", ",", "|")

    def split(self, i: int) -> tuple[list[str], list[str]]:
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
        header = not any(_is_number(f.strip(" \t").strip('"'), self.decimal) for f in rows[0])
        body = rows[1:] if header else rows
        if not body:
            raise self.src.error("the file has a header line but no scores after it.", self.data[0] + 1)
        numeric = [j for j in range(width) if all(_is_number(r[j].strip(" \t").strip('"'), self.decimal)
                                                   for r in body)]
        if header:
            named = [j for j in numeric if rows[0][j].strip(" \t").strip('"').lower() in _SCORE_NAMES]
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

    def rewritten(self, transform) -> bytes:
        column, header = self.score_column()
        rows = self.data[1:] if header else self.data
        pieces = [self.split(i) for i in rows]
        positions = [self._position(p, column) for p in pieces]
        scores = np.array([_number(p[k], self.decimal) for p, k in zip(pieces, positions)])
        if np.isnan(scores).any():
            row = int(np.argmax(np.isnan(scores)))
            raise self.src.error("the score is NaN; every trial needs a number.", rows[row] + 1)
        lines = list(self.lines)
        for i, p, k, llr in zip(rows, pieces, positions, transform(scores)):
            field = p[k]
            stripped = field.strip(" \t")
            p[k] = field.replace(stripped, _format_llr(llr, self.decimal), 1)  # keeps spaces around the number
            lines[i] = "".join(p)
        return "\n".join(lines).encode("utf-8")

    def _position(self, pieces: list[str], column: int) -> int:
        """Index in `pieces` of field number `column` (whitespace files may start with glue)."""
        fields = [k for k in range(0, len(pieces), 2) if not (self.whitespace and pieces[k] == "")]
        return fields[column]


def _rescore_npz(path, transform) -> bytes:
    """An llrcore ``.npz`` score file (arrays ``tar``, ``non``, optionally ``spoof``) with every array transformed."""
    trials = read_trials(path, format="npz")
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
    named = [c for c in frame.columns if str(c).lower() in _SCORE_NAMES]
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


def rescore_file(path, transform) -> bytes:
    """The bytes of score file `path` with every score replaced by ``transform(score)``, in the file's format.

    `transform` maps an array of scores to an array of new scores, e.g. a fitted calibration's ``calibrator``.

    Text files keep every line (comments, header, ids, labels, order) and only their score field changes, written
    with all its digits; ``.npz`` score files keep their arrays ``tar``, ``non`` and ``spoof`` in order; Parquet
    files keep their columns. Labels are not needed in text and Parquet files.

    Raises
    ------
    LoadError
        When the file cannot be read or its score column cannot be told apart.
    """
    src = _Source.open(path)
    if src.suffix == ".npz" or src.data[:4] == b"PK\x03\x04":
        return _rescore_npz(path, transform)
    if src.suffix == ".parquet" or src.data[:4] == b"PAR1":
        return _rescore_parquet(src, transform)
    return _Lines(src).rewritten(transform)
