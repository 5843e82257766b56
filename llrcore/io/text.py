"""The text-table parser every reader of score files shares: one file's first data lines (to detect its layout:
separator, decimal mark, header) and the rest read in one pass: by pyarrow's CSV reader when the file is regular
(:mod:`~llrcore.io.fast`), else, or when that finds a problem, by pandas' C parser, with every problem a
:class:`~llrcore.io.LoadError` that names the file and the line.

Used by :mod:`~llrcore.io.trials` (binary trials), :mod:`~llrcore.io.multiclass` (score matrices) and
:mod:`~llrcore.io.rescore` (a score file rewritten in its own layout).
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._source import FileBytes, LoadError, _Source, has_skippable_lines
from .fast import read_table

__all__ = [
    "NAN_WORDS",
    "SCORE_NAMES",
    "WHITESPACE",
    "TextFile",
    "clean_name",
    "columns_phrase",
    "data_lines",
    "detect_separator",
    "drop_blank_and_comments",
    "is_number",
]

#: Header names of a score column.
SCORE_NAMES = {"score", "scores", "llr", "llrs"}
#: How a missing value is written.
NAN_WORDS = {"nan", "-nan", "+nan", "na", "n/a", "null", "none", ""}
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)
_NUMBER_COMMA = re.compile(r"[+-]?(?:(?:\d+,?\d*|,\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)
SAMPLE_LINES = 50
Lines = np.ndarray | range  # the line number of each row read (a range when the rows are consecutive lines)
WHITESPACE = r"\s+"


class TextFile:
    """One text file: the first data lines (to detect the layout), and the rest read by pyarrow or pandas.

    Data lines are the lines that are neither blank nor comments (first non-blank character ``#``).
    """

    def __init__(self, src: _Source, data: FileBytes, skippable: bool | None = True):
        self.src = src
        self.data = data
        # whether some line after the first is blank, a comment or indented; None: not known yet, looked for only
        # when the fast parser does not take the file as it is (a pass over every line end costs a tenth of parsing)
        self._skippable = skippable
        self._newlines: np.ndarray | None = None
        # (line number, start offset, end offset, text) of the first data lines
        self.sample: list[tuple[int, int, int, str]] = []
        pos, lineno, n = 0, 0, len(data)
        while pos < n and len(self.sample) < SAMPLE_LINES:
            end = data.find(b"\n", pos)
            if end < 0:
                end = n
            lineno += 1
            stripped = data[pos:end].strip(b" \t")
            if stripped and not stripped.startswith(b"#"):
                self.sample.append((lineno, pos, end, data[pos:end].decode("utf-8")))
            pos = end + 1
        if not self.sample:
            raise src.error("the file is empty." if not bytes(data).strip() else  # (a mapped file has no strip)
                            "the file holds only comment or blank lines, no trials.")
        self.sep, self.decimal = detect_separator([text for *_, text in self.sample])
        self.rows = [self.split(text) for *_, text in self.sample]

    def forget_bytes(self) -> None:
        """Let go of the file's bytes (its own and its source's) once every value is read and checked: messages
        that follow name lines by number and need no text; the memory goes to the hashes and sorts that follow."""
        self.data = b""
        self.src.forget_bytes()

    @property
    def skippable(self) -> bool:
        if self._skippable is None:
            self._skippable = has_skippable_lines(self.data)
        return self._skippable

    # -- tokenising single lines (sample and error messages); pandas reads the bulk -----------------------------
    def split(self, text: str) -> list[str]:
        if self.sep == WHITESPACE:  # pandas' C parser splits on spaces and tabs only
            return re.split(r"[ \t]+", text.strip(" \t"))
        try:
            fields = next(csv.reader([text], delimiter=self.sep, skipinitialspace=True), [])
        except csv.Error:
            fields = text.split(self.sep)
        return [f.strip(" \t") for f in fields]

    def mixed_separators(self) -> tuple[str, int] | None:
        """Where two of the first data lines separate their columns differently (the reason their numbers of columns
        differ), the sentence that names the mix and the second line's number, else None: ``("line 1 separates its
        columns with commas but line 2 with spaces; use one separator in the whole file.", 2)``. Tabs and spaces
        are one separator in a file of neither commas, semicolons nor bars."""
        (first, *_, text), *others = self.sample
        used = separator_name(text)
        for lineno, *_, other in others:
            this = separator_name(other)
            if this != used and not (self.sep == WHITESPACE and {used, this} <= {"tabs", "spaces"}):
                return (f"line {first} separates its columns with {used} but line {lineno} with {this}; use one "
                        "separator in the whole file."), lineno
        return None

    def line_text(self, lineno: int) -> str:
        nl = self._newlines
        if nl is None:
            nl = self._newlines = np.flatnonzero(np.frombuffer(self.data, np.uint8) == 10)
        start = 0 if lineno <= 1 else int(nl[lineno - 2]) + 1
        end = int(nl[lineno - 1]) if lineno - 1 < nl.size else len(self.data)
        return self.data[start:end].decode("utf-8", "replace")

    def check_width(self, lineno: int, ncols: int, reference: int) -> None:
        """LoadError if line `lineno` does not have `ncols` columns (like line `reference`)."""
        width = len(self.split(self.line_text(lineno)))
        if width != ncols:
            raise self.src.error(f"this line has {columns_phrase(width)} but line {reference} has {ncols}; every line "
                                 "must have the same columns.", lineno)

    # -- the bulk -------------------------------------------------------------------------------------------------
    def read(self, first: int, ncols: int, categorical: Sequence[int], reference: int, numbers: Sequence[int] = (),
             strings: Sequence[int] = (), labels: Sequence[int] = ()) -> tuple[pd.DataFrame, Lines]:
        """Read the data lines from sample line `first` on; return the table and each row's line number
        (an array, or a ``range`` when the rows are consecutive lines).

        Columns `categorical` are read as categoricals, columns `numbers` (scores), when they can be, as float64,
        columns `strings` (ids) as Arrow strings by pyarrow, as categoricals by pandas; columns `labels` (among
        `categorical`: a few words on every line) are dictionary-encoded by pyarrow as it parses them.
        A regular file is parsed by pyarrow (:func:`~llrcore.io.fast.read_table`); any other, or one with a problem,
        by pandas, whose errors are turned into messages naming the line.
        """
        lineno0, start = self.sample[first][0], self.sample[first][1]
        end = len(self.data)
        while end > start and self.data[end - 1] in b" \t\n":  # trailing blanks, without copying the whole file
            end -= 1
        unknown = self._skippable is None and ncols >= 2
        if (self._skippable is False or unknown) and not self._spaced_separator():
            # with lines not looked at yet, a blank, comment or indented line makes the fast parser give up (a
            # column too few, an empty field, a first word starting with '#'): then they are looked at.
            # The whole file, when the rows are all of it: no copy (pyarrow ignores one final line end)
            whole = start == 0 and self.data[end:] in (b"", b"\n")
            frame = read_table(self.data if whole else self.data[start:end], self.sep, self.decimal, ncols,
                               categorical, list(numbers), list(strings), comments=unknown, labels=list(labels))
            if frame is not None:
                return frame, range(lineno0, lineno0 + len(frame))
        body = self.data[start:end]
        lines: Lines | None
        if self.skippable:  # a blank, comment or indented line: find the data lines one by one
            body, lines = drop_blank_and_comments(body, lineno0)
        elif body.find(b'"') >= 0:  # quoted fields may span lines: count the lines to check the rows against
            lines = range(lineno0, lineno0 + body.count(b"\n") + 1)
        else:  # every line is one row: their numbers follow from the row count, nothing to count here
            lines = None
        # low_memory=False: one pass, instead of chunks whose categories pandas must re-code and concatenate
        options: dict[str, Any] = dict(sep=self.sep, header=None, engine="c", na_filter=False,
                                       decimal=self.decimal, dtype={j: "category" for j in (*categorical, *strings)},
                                       low_memory=False)
        if self.sep == WHITESPACE:
            options["quoting"] = csv.QUOTE_NONE
        elif self._spaced_separator():
            # it doubles pandas' parsing time, so only where the file has spaces after its separators; elsewhere
            # an odd padded field still reads right (labels and scores are stripped when converted)
            options["skipinitialspace"] = True
        if self.skippable and lines is not None and not options.get("skipinitialspace"):
            frame = read_table(body, self.sep, self.decimal, ncols, categorical, list(numbers), list(strings),
                               labels=list(labels))
            if frame is not None and len(frame) == len(lines):
                return frame, lines
        try:
            frame = pd.read_csv(io.BytesIO(body), **options)
            if lines is None:
                lines = range(lineno0, lineno0 + len(frame))
        except pd.errors.ParserError as exc:
            if lines is None:
                lines = range(lineno0, lineno0 + body.count(b"\n") + 1)
            message = str(exc)
            found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
            if found:
                row = int(found.group(2)) - 1
                lineno = int(lines[row]) if 0 <= row < len(lines) else None
                if lineno is not None:
                    self.check_width(lineno, ncols, reference)
                raise self.src.error(f"this line has {columns_phrase(int(found.group(3)))} but line {reference} has "
                                     f"{ncols}; every line must have the same columns.", lineno) from None
            if "inside string" in message:
                raise self._quote_error(lines) from None
            raise self.src.error(f"the file cannot be read as a table ({message.strip()}).") from None
        except (ValueError, OverflowError) as exc:
            raise self.src.error(f"the file cannot be read as a table ({exc}).") from None
        if len(frame) != len(lines):
            raise self._quote_error(lines)
        if frame.shape[1] != ncols:
            # the first row read sets the width; it can only differ from the sample if quoting changed it
            self.check_width(int(lines[0]), ncols, reference)
            raise self.src.error(f"the lines have {columns_phrase(frame.shape[1])} but line {reference} has {ncols}.")
        return frame, lines

    def _spaced_separator(self) -> bool:
        """Whether the sample has spaces after its separators (then pandas must skip them: skipinitialspace)."""
        return self.sep != WHITESPACE and any(self.sep + blank in text for *_, text in self.sample
                                              for blank in (" ", "\t"))

    def _quote_error(self, lines: Lines) -> LoadError:
        for lineno in lines:
            if self.line_text(int(lineno)).count('"') % 2:
                return self.src.error('a quotation mark (") opened on this line is never closed.', int(lineno))
        return self.src.error('the quotation marks (") in the file do not pair up.')

    # -- converting columns ------------------------------------------------------------------------------------------
    def scores(self, column: pd.Series, lines: Lines, ncols: int, reference: int, what: str = "score") \
            -> np.ndarray:
        if column.dtype.kind in "fiub":
            values = column.to_numpy(dtype=np.float64)
        else:
            text = column.astype(str).str.strip(" \t")
            if self.decimal == ",":
                text = text.str.replace(",", ".", regex=False)
            values = np.asarray(pd.to_numeric(text, errors="coerce"), dtype=np.float64)
        bad = np.isnan(values)
        if bad.any():
            row = int(np.argmax(bad))
            lineno = int(lines[row])
            self.check_width(lineno, ncols, reference)
            raw = str(column.iloc[row]).strip()
            if raw.lower() in NAN_WORDS:
                problem = f"the {what} is missing (empty)." if not raw else f"the {what} {raw!r} is missing (NaN)."
                raise self.src.error(problem + " Every trial needs a number.", lineno)
            raise self.src.error(f"the {what} {raw!r} is not a number.", lineno)
        return values



def columns_phrase(n: int) -> str:
    return "1 column" if n == 1 else f"{n} columns"


#: The separators a line may use, in the order :func:`detect_separator` tries them, with their names in a sentence.
SEPARATOR_NAMES = {"\t": "tabs", ";": "semicolons", ",": "commas", "|": "vertical bars"}


def separator_name(line: str) -> str:
    """How one line separates its columns, in words ("tabs", "commas", ... or "spaces"), by the order of
    :func:`detect_separator`."""
    return next((name for sep, name in SEPARATOR_NAMES.items() if sep in line.strip(" \t")), "spaces")


def detect_separator(lines: list[str]) -> tuple[str, str]:
    """The field separator used by every sample line (tab, comma, semicolon) or whitespace, and the decimal mark."""
    for sep in ("\t", ";", ",", "|"):  # ";" first: its files use "," as the decimal mark
        if all(sep in line for line in lines):
            decimal = "."
            if sep == ";" and any(re.search(r"\d,\d", line) for line in lines) and \
                    not any(re.search(r"\d\.\d", line) for line in lines):
                decimal = ","
            return sep, decimal
    return WHITESPACE, "."


def data_lines(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start and end offsets of the lines of text `arr` (bytes as ``uint8``, lines ended by ``\\n``, the end excluded)
    and which are data lines: neither blank nor comments (first character that is not a space or a tab ``#``)."""
    newlines = np.flatnonzero(arr == 10)
    starts = np.concatenate([[0], newlines + 1])
    ends = np.concatenate([newlines, [arr.size]])
    first = starts.copy()  # first character that is not a space or a tab
    active = np.flatnonzero(first < ends)
    while active.size:
        ch = arr[first[active]]
        active = active[(ch == 32) | (ch == 9)]
        first[active] += 1
        active = active[first[active] < ends[active]]
    blank = first >= ends
    keep = ~blank
    keep[~blank] = arr[first[~blank]] != ord("#")
    return starts, ends, keep


def drop_blank_and_comments(body: bytes, lineno0: int) -> tuple[bytes, np.ndarray]:
    """Remove blank and comment lines (vectorised); return the remaining bytes and their line numbers."""
    arr = np.frombuffer(body, np.uint8)
    starts, ends, keep = data_lines(arr)
    lines = lineno0 + np.flatnonzero(keep)
    dropped = np.flatnonzero(~keep)
    if dropped.size == 0:
        return body, lines
    if dropped.size < 10_000:  # join the runs of kept lines
        pieces, pos = [], 0
        for i in dropped:
            pieces.append(body[pos:starts[i]])
            pos = ends[i] + 1
        pieces.append(body[pos:])
        return b"".join(pieces), lines
    lengths = ends - starts + 1
    lengths[-1] -= 1  # the last line has no line end (the body was stripped)
    return arr[np.repeat(keep, lengths)].tobytes(), lines


def is_number(token: str, decimal: str = ".") -> bool:
    return bool((_NUMBER_COMMA if decimal == "," else _NUMBER).fullmatch(token))


def clean_name(token: str) -> str:
    return token.strip().strip('"').strip("'").strip()
