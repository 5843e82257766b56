"""A text score file rewritten with new scores (:func:`~llrcore.io.rescore_file`): every line kept byte for byte
but for its score, which is written in the file's decimal mark with the precision of the score it replaces.

All at once with numpy over the file's bytes (tens of millions of lines in seconds): the lines and fields are found
as byte offsets, the score tokens parsed, their significant digits counted, the new scores written by
:func:`~llrcore.io.significant.format_column` and spliced in. Fields, separators and the score column are those of
a line-by-line reading: whitespace-separated fields are runs of characters other than spaces and tabs; other
separators split each line at every one (empty fields too); a field's spaces and tabs around the number are kept.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation

import numpy as np

from ._source import _Source, _text_bytes
from .significant import format_column
from .text import SCORE_NAMES, data_lines, detect_separator, is_number

__all__ = ["rewrite_text"]

#: A decimal of up to this many significant digits reads back as a float that writes back the same (C's DBL_DIG),
#: so different ones stay different; a score that needs more is written with all its digits (``repr``).
_EXACT_DIGITS = 15
_ROWS = 1 << 16  # lines spliced at a time (their temporaries stay in the processor's cache)
_SPACE, _TAB, _QUOTE = ord(" "), ord("\t"), ord('"')


def rewrite_text(src: _Source, transform, digits) -> bytes:
    """The bytes of text score file `src` with each score ``s`` replaced by ``transform(s)``; see
    :func:`~llrcore.io.rescore_file` for `digits`."""
    fields = _Fields(src, np.frombuffer(_text_bytes(src), np.uint8))
    column, header = fields.score_column()
    start, end = fields.bounds(column, header)
    tokens, lengths = fields.values(column, header)
    if fields.decimal == ",":
        tokens[tokens == ord(",")] = ord(".")
    scores = _parsed(tokens, lengths)
    if np.isnan(scores).any():
        raise src.error("the score is NaN; every trial needs a number.",
                        int(fields.lines[int(header) + int(np.argmax(np.isnan(scores)))]) + 1)
    llrs = np.asarray(transform(scores), dtype=np.float64)
    text, lengths = format_column(llrs, _written_digits(llrs, tokens, digits), _has_exponent(tokens))
    if fields.decimal == ",":
        text[text == ord(".")] = ord(",")
    return _splice(fields.arr, start, end, text, lengths)


class _Fields:
    """The data lines of a text score file and where their fields lie (byte offsets)."""

    def __init__(self, src: _Source, arr: np.ndarray):
        self.src, self.arr = src, arr
        self._columns: dict[tuple[int, bool], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        starts, ends, data = data_lines(arr)
        self.lines = np.flatnonzero(data)  # line index (from 0) of each data line
        if not self.lines.size:
            raise src.error("the file holds no scores (only blank or comment lines).")
        self.starts, self.ends = starts[self.lines], ends[self.lines]
        self.sep, self.decimal = detect_separator([self.text(i) for i in range(min(50, self.lines.size))])
        self.whitespace = self.sep not in ("\t", ";", ",", "|")
        blocks = range(0, self.lines.size, _ROWS)
        self.counts = np.concatenate([self._fields(slice(at, at + _ROWS))[2] for at in blocks])

    def text(self, row: int) -> str:
        return bytes(self.arr[self.starts[row]:self.ends[row]]).decode("utf-8")

    def _fields(self, rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the data lines `rows` (consecutive): the offsets where fields or separators lie in their bytes, the
        index of each line's first among them and its number of fields. Whitespace-separated: the start and end of
        every field (a run of characters other than spaces and tabs), ``(2, k)``; else every separator, ``(1, k)``."""
        low = self.starts[rows.start]
        part = self.arr[low:self.ends[min(rows.stop, self.lines.size) - 1]]
        if self.whitespace:
            gap = np.ones(part.size + 2, bool)  # gap[k]: byte k - 1 is a space, tab or line end (or lies outside)
            np.equal(part, _SPACE, out=gap[1:-1])
            gap[1:-1] |= (part == _TAB) | (part == ord("\n"))
            marks = np.stack([np.flatnonzero(gap[:-1] & ~gap[1:]), np.flatnonzero(~gap[:-1] & gap[1:])]) + low
        else:
            marks = np.flatnonzero(part == ord(self.sep))[None] + low
        first = np.searchsorted(marks[0], self.starts[rows])
        return marks, first, np.searchsorted(marks[0], self.ends[rows]) - first + (not self.whitespace)

    def field(self, j: int, rows: slice) -> tuple[np.ndarray, np.ndarray]:
        """Start and end offsets of field `j` of the data lines `rows` (each of which has more than `j` fields), a
        block of lines at a time."""
        bounds = [self._field(j, slice(at, min(at + _ROWS, rows.stop or self.lines.size)))
                  for at in range(rows.start, rows.stop or self.lines.size, _ROWS)]
        return np.concatenate([start for start, _ in bounds]), np.concatenate([end for _, end in bounds])

    def _field(self, j: int, rows: slice) -> tuple[np.ndarray, np.ndarray]:
        marks, first, counts = self._fields(rows)
        if self.whitespace:
            return marks[0, first + j], marks[1, first + j]
        separators = marks[0]
        start = self.starts[rows] if j == 0 else separators[first + j - 1] + 1
        end = np.where(counts - 1 == j, self.ends[rows], separators[np.minimum(first + j, separators.size - 1)])
        return start, end

    def bounds(self, j: int, header: bool) -> tuple[np.ndarray, np.ndarray]:
        """Offsets of the number in field `j` of every line below the header: the field without the spaces and tabs
        around it (the part a new score replaces)."""
        return self._column(j, header)[:2]

    def _row(self, row: int) -> list[str]:
        """The fields of data line `row`, without the spaces, tabs and quotes around them."""
        bounds = [self.field(j, slice(row, row + 1)) for j in range(int(self.counts[row]))]
        return [bytes(self.arr[start[0]:end[0]]).decode("utf-8").strip(" \t").strip('"') for start, end in bounds]

    def score_column(self) -> tuple[int, bool]:
        """The index of the score field and whether the first data line is a header."""
        width = int(self.counts[0])
        uneven = np.flatnonzero(self.counts != width)
        if uneven.size:
            row = int(uneven[0])
            raise self.src.error(f"this line has {self.counts[row]} columns but line {self.lines[0] + 1} has {width}; "
                                 "every line must have the same columns.", int(self.lines[row]) + 1)
        first = self._row(0)
        header = not any(is_number(f, self.decimal) for f in first)
        if header and self.lines.size == 1:
            raise self.src.error("the file has a header line but no scores after it.", int(self.lines[0]) + 1)
        body = self._row(int(header))
        numeric = [j for j in range(width) if is_number(body[j], self.decimal) and self._all_numbers(j, header)]
        if header:
            named = [j for j in numeric if first[j].lower() in SCORE_NAMES]
            if len(named) == 1:
                return named[0], header
        # a column of 0/1 labels is numeric too: it is not the score when another numeric column exists
        scores = [j for j in numeric if not self._all_labels(j, header)] or numeric
        if not scores:
            raise self.src.error("no column holds only numbers, so there is no score to calibrate.",
                                 int(self.lines[int(header)]) + 1)
        where = int(self.lines[0]) + 1
        if len(scores) > 1 and header:
            listed = ", ".join(repr(first[j]) for j in scores)
            raise self.src.error(f"the columns {listed} all hold numbers: calibrate writes one system's scores, so "
                                 "give a file with one score column (or name it 'score').", where)
        if len(scores) > 1:
            listed = ", ".join(str(j + 1) for j in scores)
            raise self.src.error(f"columns {listed} all hold numbers, so which one is the score is ambiguous; add a "
                                 "header line naming the score column 'score'.", where)
        return scores[0], header

    def values(self, j: int, header: bool) -> tuple[np.ndarray, np.ndarray]:
        """Field `j` below the header without spaces, tabs and quotes around it, as a matrix of bytes, and the length
        of each."""
        return self._column(j, header)[2:]

    def _column(self, j: int, header: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`bounds` and :meth:`values` of field `j`, found once (the score column is read to be chosen, then
        parsed and replaced)."""
        if (j, header) not in self._columns:
            start, end = _strip(self.arr, *self.field(j, slice(int(header), None)), (_SPACE, _TAB))
            number_start, number_end = _strip(self.arr, start, end, (_QUOTE,))
            self._columns[j, header] = (start, end, _gather(self.arr, number_start, number_end),
                                        number_end - number_start)
        return self._columns[j, header]

    def _all_numbers(self, j: int, header: bool) -> bool:
        """Whether field `j` holds a number on every line below the header (:func:`~llrcore.io.text.is_number`)."""
        tokens, _ = self.values(j, header)
        odd = np.flatnonzero(~_plain_numbers(tokens, ord(self.decimal)))  # inf, nan, or not numbers
        return all(is_number(bytes(tokens[i]).rstrip(b"\0").decode("utf-8"), self.decimal) for i in odd)

    def _all_labels(self, j: int, header: bool) -> bool:
        return bool(np.isin(_strings(self.values(j, header)[0]), [b"0", b"1"]).all())


def _strip(arr: np.ndarray, start: np.ndarray, end: np.ndarray, chars) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of each ``arr[start:end]`` without the bytes `chars` at either end (``str.strip``)."""
    start, end = start.copy(), end.copy()
    for offsets, step, at in ((start, 1, 0), (end, -1, -1)):
        active = np.flatnonzero(start < end)
        while active.size:
            active = active[np.isin(arr[offsets[active] + at], chars)]
            offsets[active] += step
            active = active[start[active] < end[active]]
    return start, end


def _gather(arr: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The bytes ``arr[start[i]:end[i]]`` as row `i` of a matrix, padded with zero bytes."""
    lengths = end - start
    width = max(1, int(lengths.max(initial=0)))
    out = np.zeros((start.size, width), np.uint8)
    places = np.arange(width)
    for at in range(0, start.size, _ROWS):
        rows = slice(at, at + _ROWS)
        inside = places < lengths[rows, None]
        out[rows][inside] = arr[(start[rows, None] + places)[inside]]
    return out


def _strings(matrix: np.ndarray) -> np.ndarray:
    """The rows of a byte matrix as a numpy bytes array (no copy; trailing zero bytes are not part of a string)."""
    return np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").ravel()


def _parsed(tokens: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The numbers written in the rows of a byte matrix (of `lengths` bytes each), parsed by Arrow: correctly
    rounded (fast_float), as Python's ``float`` parses them, and as fast as the file's bytes are read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets = np.r_[0, np.cumsum(lengths)]
    text = tokens[np.arange(tokens.shape[1]) < lengths[:, None]]
    strings = pa.Array.from_buffers(pa.large_string(), lengths.size, [None, pa.py_buffer(offsets),
                                                                        pa.py_buffer(text)])
    return pc.cast(strings, pa.float64()).to_numpy(zero_copy_only=False)


#: States of a reading of ``[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?`` (the numbers of is_number but inf and nan),
#: by the kind of byte read next: sign, digit, decimal mark, e or E, padding (zero byte), other.
_NUMBER_STATES = np.array([
    # sign digit mark  e  pad other
    [1, 2, 5, 9, 0, 9],  # 0 start
    [9, 2, 5, 9, 1, 9],  # 1 after the sign
    [9, 2, 3, 6, 2, 9],  # 2 integer digits (a number)
    [9, 4, 9, 6, 3, 9],  # 3 mark after digits (a number)
    [9, 4, 9, 6, 4, 9],  # 4 decimals (a number)
    [9, 4, 9, 9, 5, 9],  # 5 mark without digits before it
    [7, 8, 9, 9, 6, 9],  # 6 after e
    [9, 8, 9, 9, 7, 9],  # 7 exponent sign
    [9, 8, 9, 9, 8, 9],  # 8 exponent digits (a number)
    [9, 9, 9, 9, 9, 9],  # 9 not a number
], np.uint8)


def _plain_numbers(tokens: np.ndarray, mark: int) -> np.ndarray:
    """Which rows of a byte matrix are numbers written with digits (the rest: inf, nan, or not numbers)."""
    kind = np.full(256, 5, np.uint8)
    kind[[ord("+"), ord("-")]], kind[ord("0"):ord("9") + 1], kind[mark] = 0, 1, 2
    kind[[ord("e"), ord("E")]], kind[0] = 3, 4
    state = np.zeros(tokens.shape[0], np.uint8)
    for j in range(tokens.shape[1]):
        state = _NUMBER_STATES[state, kind[tokens[:, j]]]
    return np.isin(state, (2, 3, 4, 8))


def _has_exponent(tokens: np.ndarray) -> np.ndarray:
    """Which tokens are written with an exponent (an ``e`` or ``E`` after a digit or the point)."""
    before = ((tokens >= ord("0")) & (tokens <= ord("9")) | (tokens == ord(".")))[:, :-1]
    return (((tokens[:, 1:] == ord("e")) | (tokens[:, 1:] == ord("E"))) & before).any(axis=1)


def _significant_digits(tokens: np.ndarray) -> np.ndarray:
    """Significant digits of numbers as written (rows of bytes, decimal point ``.``): those of the mantissa,
    trailing zeros included (``-3.07561``: 6, ``2.50``: 3, ``0.0750``: 3, ``1e-3``: 1), the decimals of a zero
    (``0.000``: 3); 0 for ``inf`` and ``nan``. As ``decimal.Decimal`` counts them (a zero with an exponent is left
    to it: ``0e-3`` has 3), a block of rows at a time."""
    blocks = [_significant_block(tokens[at:at + _ROWS]) for at in range(0, tokens.shape[0], _ROWS)]
    return np.concatenate(blocks or [np.zeros(0, np.int64)])


def _significant_block(tokens: np.ndarray) -> np.ndarray:
    places = np.arange(tokens.shape[1])

    def first(mask):  # the place of the first true in each row (the width where none)
        return np.where(mask.any(axis=1), mask.argmax(axis=1), tokens.shape[1])[:, None]

    exponent = first((tokens == ord("e")) | (tokens == ord("E")))
    digit = (tokens >= ord("0")) & (tokens <= ord("9")) & (places < exponent)
    significant = (digit & (places >= first(digit & (tokens != ord("0"))))).sum(axis=1)
    zero = np.flatnonzero((significant == 0) & digit.any(axis=1))
    significant[zero] = np.maximum(1, (digit & (places > first(tokens == ord(".")))).sum(axis=1)[zero])
    for i in zero[exponent[zero, 0] < tokens.shape[1]]:
        significant[i] = max(1, -int(Decimal(bytes(tokens[i]).rstrip(b"\0").decode()).as_tuple().exponent))
    return significant


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


def _written_digits(llrs: np.ndarray, tokens: np.ndarray, digits) -> np.ndarray:
    """Significant digits to write each new score with (0: all of them, ``repr``); see
    :func:`~llrcore.io.rescore_file`."""
    if digits is None:
        return np.zeros(llrs.size, int)
    wanted = _significant_digits(tokens) if digits == "input" else np.full(llrs.size, digits)
    out = np.zeros(llrs.size, int)  # inf and nan: repr writes them as the reader reads them
    finite = np.flatnonzero(np.isfinite(llrs))
    if not finite.size:
        return out
    order = finite[np.argsort(llrs[finite])]
    ranked = llrs[order]
    firsts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])  # where each different new score starts
    most = np.maximum.reduceat(wanted[order], firsts)  # equal new scores are written alike, with the most digits asked
    per_value = np.maximum(most, _digits_to_tell_apart(ranked[firsts]))
    out[order] = np.repeat(np.where(per_value > _EXACT_DIGITS, 0, per_value), np.diff(np.r_[firsts, order.size]))
    return out


def _splice(arr: np.ndarray, start: np.ndarray, end: np.ndarray, text: np.ndarray, lengths: np.ndarray) -> bytes:
    """`arr` with each ``arr[start[i]:end[i]]`` replaced by the first ``lengths[i]`` bytes of ``text[i]``, a block of
    rows at a time (the bytes from one block's first score to the next's)."""
    added = np.r_[0, np.cumsum(lengths - (end - start))]  # bytes added before each score, and in all
    out = np.empty(arr.size + int(added[-1]), np.uint8)
    first = np.arange(0, start.size, _ROWS)
    cuts = np.r_[0, start[first[1:]], arr.size]
    for row, low, high in zip(first, cuts[:-1], cuts[1:]):
        rows = slice(row, row + _ROWS)
        below = added[min(row + _ROWS, start.size)]
        _splice_block(out[low + added[row]:high + below], arr[low:high], start[rows] - low, end[rows] - low,
                      text[rows], lengths[rows])
    return out.tobytes()


def _splice_block(out: np.ndarray, arr: np.ndarray, start, end, text, lengths) -> None:
    placed = start + np.r_[0, np.cumsum(lengths - (end - start))[:-1]]  # where each new score starts in `out`
    new = _spans(out.size, placed, lengths)
    out[~new] = arr[~_spans(arr.size, start, end - start)]
    out[new] = text[np.arange(text.shape[1]) < lengths[:, None]]


def _spans(size: int, start: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A mask of `size` bytes, true at ``start[i] + k`` for ``k < lengths[i]``."""
    mask = np.zeros(size, bool)
    before = np.cumsum(lengths) - lengths  # cells of the rows before each row
    mask[np.repeat(start - before, lengths) + np.arange(int(lengths.sum()))] = True
    return mask
