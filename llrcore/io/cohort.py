"""Cohort score files: ``model cohort score`` (or ``test cohort score``), one line per pair, whitespace-separated,
string ids — the scores of each enrolment model (test segment) against the cohort that score normalisation takes its
statistics from (:func:`llrcore.normalize_scores`).

:func:`read_cohort_scores` parses a regular file with pyarrow's CSV reader (``pyarrow.csv.read_csv``, as
:mod:`~llrcore.io.fast` does) and anything else line by line, so that every problem is a
:class:`~llrcore.io.LoadError` naming the file and the line. Blank lines, ``#`` comments and a header line (a third
field that is not a number, e.g. ``model cohort score``) are skipped.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.cohort import CohortProblem, CohortScores
from ._source import Source, _Source, _text_bytes

__all__ = ["read_cohort_scores", "read_score_pairs"]

_COLUMNS = "id, cohort id, score"


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _header_lines(data: bytes) -> int:
    """1 when the first line names the columns (its third field is not a number), else 0."""
    first = data.split(b"\n", 1)[0].split()
    return int(len(first) == 3 and not _is_number(first[2].decode("utf-8")))


def _fast(data: bytes, skip: int) -> pd.DataFrame | None:
    """The table through pyarrow, or None when the file is not plainly regular (the careful path then says why)."""
    if b"\t" in data and b" " in data or data.startswith(b"#") or b"\n#" in data:
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None
    names = ["id", "cohort", "score"]
    try:
        table = pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=skip),
            parse_options=pcsv.ParseOptions(delimiter="\t" if b"\t" in data else " ", quote_char=False,
                                            ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(column_types={"id": pa.string(), "cohort": pa.string(),
                                                              "score": pa.float64()},
                                                null_values=[], strings_can_be_null=False))
    except (pa.ArrowException, ValueError, OSError):
        return None
    frame = table.to_pandas()
    if frame.empty or np.isnan(frame["score"].to_numpy()).any() or (frame["id"].str.len() == 0).any() \
            or (frame["cohort"].str.len() == 0).any():
        return None  # runs of blanks split into empty fields: the careful path splits on any whitespace
    return frame


def _careful(src: _Source, data: bytes, skip: int, what: str = f"a cohort score file has 3 ({_COLUMNS})") \
        -> tuple[pd.DataFrame, np.ndarray]:
    """The table read line by line, and the 1-based line of each row; LoadError at the first bad line."""
    rows, lines = [], []
    for number, line in enumerate(data.decode("utf-8").split("\n"), start=1):
        fields = line.split()
        if number <= skip or not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 3:
            raise src.error(f"this line has {len(fields)} fields; {what}, separated by spaces or tabs.", number)
        if not _is_number(fields[2]) or fields[2].lower().lstrip("+-") == "nan":
            raise src.error(f"the score {fields[2]!r} is not a number.", number)
        rows.append((fields[0], fields[1], float(fields[2])))
        lines.append(number)
    if not rows:
        raise src.error(f"the file holds no scores; {what}.")
    return pd.DataFrame(rows, columns=["id", "cohort", "score"]), np.asarray(lines)


def _table(source, what: str = f"a cohort score file has 3 ({_COLUMNS})"):
    """The source, its text, header lines, its table (id, cohort, score) and the line of each row (None from the
    fast path)."""
    src = _Source.open(source)
    data = bytes(_text_bytes(src))  # (read, not mapped: bytes already, no copy)
    skip = _header_lines(data)
    frame, lines = _fast(data, skip), None
    if frame is None:
        frame, lines = _careful(src, data, skip, what)
    src.forget_bytes()
    return src, data, skip, frame, lines


def read_score_pairs(source) -> pd.DataFrame:
    """A ``model test score`` file (Kaldi/BOSARIS trial scores, without labels) in file order: columns ``model``,
    ``test``, ``score``; read as cohort files are, LoadError with the file and the line.

    What ``llrcore normalize`` needs to write normalised scores line by line in the file's own format.
    """
    frame = _table(source, "a score file to normalise has 3 (model, test, score)")[3]
    return frame.set_axis(["model", "test", "score"], axis=1)


def read_cohort_scores(source: Source, name: str | None = None) -> CohortScores:
    """Read a cohort score file: ``model cohort score`` (or ``test cohort score``) per line.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        Plain text (gzip accepted), fields separated by spaces or tabs, every id scored against every cohort
        recording exactly once.
    name : str, optional
        Of the result (default: the file's name), used in messages.

    Returns
    -------
    CohortScores
        The dense matrix ``ids x cohort`` (ids and cohort ids in the order they first appear).

    Raises
    ------
    LoadError
        Naming the file and the line: a line without 3 fields, a score that is not a number, a pair scored twice;
        naming the id when one has fewer cohort scores than the cohort has recordings.
    """
    src, data, skip, frame, lines = _table(source)
    try:
        return CohortScores.from_frame(frame, name=src.name if name is None else name)
    except CohortProblem as problem:
        if problem.row is not None and lines is None:
            lines = _careful(src, data, skip)[1]
        raise src.error(problem.reason, None if problem.row is None else lines[problem.row]) from None
