"""What a file says of each trial besides its score and label, and a metadata table joined with the trials.

Readers keep every column that is neither a score, the label nor a system name as a column of
``Trials.metadata`` (:func:`tidy`: words as categoricals, numbers as numbers). A metadata table
(``read_trials(..., metadata="trials_meta.csv")``: CSV, TSV, whitespace separated text with a header line, or Parquet)
adds columns: it is joined on the id columns ``model`` and/or ``test`` that it shares with the trials, or, when it
has neither, matched with the trials row by row (the trials in file order). Every problem is a
:class:`~llrcore.io.LoadError` naming the file, the line and the column.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd

from ._source import LoadError, _scan_lines, _Source, _text_bytes
from .text import TextFile, clean_name, is_number

__all__ = ["ID_COLUMNS", "MetadataTable", "attach", "take_rows", "tidy", "unique_names"]

#: The id columns a metadata table is joined on, in this order.
ID_COLUMNS = ("model", "test")
_MAX_LINE = 100_000  # characters; a metadata row may have many columns


def tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns (object or string) as categoricals, other columns unchanged; a fresh 0..n-1 index."""
    columns = {}
    for column in frame.columns:
        values = frame[column]
        if not isinstance(values.dtype, pd.CategoricalDtype) and \
                (values.dtype == object or pd.api.types.is_string_dtype(values.dtype)):
            try:
                values = values.astype("category")
            except TypeError:  # unhashable values (lists in a Parquet column): their text
                values = values.astype(str).astype("category")
        columns[column] = values.reset_index(drop=True)
    return pd.DataFrame(columns, index=pd.RangeIndex(len(frame)))


def take_rows(frame: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    """``frame.iloc[rows]`` with a fresh index, several times faster on millions of rows: the codes of a categorical
    column are taken with numpy (the indices are known to be valid), not by pandas' take with its checks."""
    columns = {}
    for column in frame.columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            columns[column] = pd.Categorical.from_codes(values.cat.codes.to_numpy()[rows], dtype=values.dtype,
                                                        validate=False)
        elif isinstance(values.array, np.ndarray) or type(values.array).__name__ == "NumpyExtensionArray":
            columns[column] = values.to_numpy()[rows]
        else:
            columns[column] = values.array.take(rows)
    return pd.DataFrame(columns, index=pd.RangeIndex(len(rows)), columns=frame.columns, copy=False)


def unique_names(names: list[str]) -> list[str]:
    """Column names made unique (a second ``id`` becomes ``id_2``) and never empty (``column3`` for column 3)."""
    result = []
    for j, name in enumerate(names):
        name = name or f"column{j + 1}"
        candidate, k = name, 2
        while candidate in result:
            candidate, k = f"{name}_{k}", k + 1
        result.append(candidate)
    return result


class MetadataTable:
    """A metadata table read from a file: its columns, and the line (or Parquet row) of each row for messages."""

    def __init__(self, src: _Source, frame: pd.DataFrame, lines, header_line: int | None, unit: str = "line"):
        self.src = src
        self.frame = frame
        self.lines = lines
        self.header_line = header_line
        self.unit = unit

    @classmethod
    def read(cls, source) -> "MetadataTable":
        """Read a metadata table from a path or file-like: Parquet, or text with a header line naming the columns."""
        src = _Source.open(source)
        if src.suffix in (".parquet", ".pq") or src.data[:4] == b"PAR1":
            try:
                frame = pd.read_parquet(io.BytesIO(src.data))
            except Exception as exc:  # pyarrow raises many kinds for damaged files
                raise src.error(f"the metadata file is not a readable Parquet file ({type(exc).__name__}: {exc}).") \
                    from None
            frame.columns = unique_names([str(c).strip() for c in frame.columns])
            return cls(src, tidy(frame), range(1, len(frame) + 1), None, "row")
        data = _text_bytes(src)
        _scan_lines(src, data, _MAX_LINE, "a metadata table")
        text = TextFile(src, data, skippable=None)  # skippable lines looked for when needed
        header, sample = text.rows[0], text.sample
        if len(sample) < 2:
            raise src.error("the metadata table has a header line but no rows after it; its first line names the "
                            "columns, each following line describes a trial, a model or a test.", sample[0][0])
        names = unique_names([clean_name(t) for t in header])
        ncols, reference = len(names), sample[1][0]
        for (lineno, *_), row in zip(sample[1:], text.rows[1:]):
            if len(row) != ncols:
                raise src.error(*(text.mixed_separators() or (
                                f"this line has {len(row)} columns but the header (line {sample[0][0]}) has {ncols}; "
                                "every line of a metadata table must have the same columns.", lineno)))
        # ids and words as categoricals; a column whose first values are all numbers is left to pandas (numbers)
        words = [j for j in range(ncols) if names[j] in ID_COLUMNS or
                 not all(is_number(row[j], text.decimal) for row in text.rows[1:])]
        frame, lines = text.read(1, ncols, words, reference)
        frame.columns = names
        return cls(src, tidy(frame), lines, sample[0][0])

    @property
    def keys(self) -> list[str]:
        """The id columns it is joined on (``model`` and/or ``test``); empty when it is matched row by row."""
        return [c for c in ID_COLUMNS if c in self.frame.columns]

    def line(self, row: int) -> int:
        return int(self.lines[row])

    def error(self, reason: str, row: int | None = None) -> LoadError:
        line = self.header_line if row is None else self.line(row)
        return self.src.error(reason, line, "line" if row is None else self.unit)


def attach(table: MetadataTable | None, frame: pd.DataFrame, src: _Source, lines=None, unit: str = "line",
           keep: np.ndarray | None = None) -> pd.DataFrame:
    """The trials' own metadata `frame` (one row per trial of the file `src`, in file order; `lines` gives each
    trial's line, or row) with the columns of `table` added, for the trials where `keep` is True (all by default).

    Joined on the id columns ``model``/``test`` of `table`, or row by row when it has neither.

    Raises
    ------
    LoadError
        Naming the file, the line and the column: a trial whose id is not in the table, an id column of the table
        that the trials lack, an id twice in the table, a column in both, rows and trials not as many.
    """
    if keep is not None:
        kept = np.flatnonzero(keep)
    if table is None:
        return frame if keep is None else take_rows(frame, kept)
    others = [c for c in table.frame.columns if c not in table.keys]
    both = [c for c in others if c in frame.columns]
    if both:
        raise table.error(f"the column {both[0]!r} is also a column of {src.name}; a metadata table may only add "
                          f"columns (or join on {' and '.join(map(repr, ID_COLUMNS))}): rename one of them.")
    if table.keys:
        absent = [c for c in table.keys if c not in frame.columns]
        if absent:
            has = ", ".join(map(repr, frame.columns)) or "none"
            raise table.error(f"the column {absent[0]!r} cannot be joined: {src.name} has no {absent[0]} ids (its "
                              f"columns besides the score and the label: {has}). Remove the column, or give a table "
                              "without 'model' and 'test' columns, matched with the trials row by row.")
        if keep is not None:
            frame, lines = take_rows(frame, kept), _take(lines, kept)
        rows = _join_rows(table, frame, src, lines, unit)
    else:
        n_rows, n_trials = len(table.frame), len(frame)
        if n_rows != n_trials:
            ids = " or ".join(map(repr, ID_COLUMNS))
            if n_rows > n_trials:
                raise table.error(f"this is row {n_trials + 1:,} of the metadata table, but {src.name} has only "
                                  f"{n_trials:,} trials; a table without a column {ids} is matched with the trials "
                                  "row by row, so it needs one row per trial.", n_trials)
            raise table.error(f"the metadata table ends here, after {n_rows:,} rows, but {src.name} has "
                              f"{n_trials:,} trials; a table without a column {ids} is matched with the trials row "
                              "by row, so it needs one row per trial.", n_rows - 1 if n_rows else None)
        rows = np.arange(n_rows)
        if keep is not None:
            frame, rows = take_rows(frame, kept), rows[kept]
    added = take_rows(table.frame[others], rows)
    return pd.concat([frame.reset_index(drop=True), added], axis=1) if len(frame.columns) else added


def _take(lines, rows: np.ndarray):
    return None if lines is None else np.asarray(lines)[rows]


def _codes(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes and the text of each code (spaces stripped): the ids compared as text."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(str).astype("category")
    return column.cat.codes.to_numpy().astype(np.int64), pd.Index(column.cat.categories.astype(str).str.strip())


def _join_rows(table: MetadataTable, frame: pd.DataFrame, src: _Source, lines, unit: str) -> np.ndarray:
    """The row of `table` of each trial of `frame`, joined on the table's id columns."""
    keys = table.keys
    trial_key = np.zeros(len(frame), np.int64)
    table_key = np.zeros(len(table.frame), np.int64)
    for column in keys:
        codes, names = _codes(frame[column])
        table_codes, table_names = _codes(table.frame[column])
        distinct, numbering = np.unique(np.asarray(table_names, dtype=object), return_inverse=True)
        table_codes = numbering.reshape(-1)[table_codes]
        found = pd.Index(distinct).get_indexer(names)
        width = len(distinct) + 1  # -1 (not in the table) becomes 0, the others 1..n
        trial_key = trial_key * width + (found[codes] + 1)
        table_key = table_key * width + (table_codes + 1)
    index = pd.Index(table_key)
    if not index.is_unique:
        duplicated = index.duplicated()
        second = int(np.argmax(duplicated))
        first = int(np.argmax(table_key == table_key[second]))
        ids = _describe(table.frame, keys, second)
        raise table.error(f"{ids} appears a second time (first on {table.unit} {table.line(first)}); each "
                          f"{' and '.join(keys)} may have one row in column{'s' if len(keys) > 1 else ''} "
                          f"{', '.join(map(repr, keys))}.", second)
    rows = index.get_indexer(pd.Index(trial_key))
    missing = rows < 0
    if missing.any():
        trial = int(np.argmax(missing))
        values = {c: str(frame[c].iloc[trial]).strip() for c in keys}
        absent = [c for c in keys if values[c] not in set(table.frame[c].astype(str).str.strip())]
        if absent:
            detail = "; ".join(f"its column {c!r} has no {values[c]!r}" for c in absent)
        else:
            detail = f"no row has both, in its columns {', '.join(map(repr, keys))}"
        count = int(missing.sum())
        raise src.error(f"the trial's {_describe(frame, keys, trial)} has no row in the metadata table "
                        f"{table.src.name}: {detail} ({count:,} of {len(frame):,} trials have no row).",
                        int(lines[trial]), unit)
    return rows


def _describe(frame: pd.DataFrame, keys: list[str], row: int) -> str:
    """``model 'spk01' and test 'utt_3'``."""
    return " and ".join(f"{c} {str(frame[c].iloc[row]).strip()!r}" for c in keys)
