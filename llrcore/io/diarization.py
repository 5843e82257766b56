"""Read and write the files of diarization from a similarity matrix: matrices, segments, RTTM, UEM, labels.

Formats
-------
**Similarity matrix** (:func:`read_similarity`), N x N scores between the speech segments of one recording:

- NumPy ``.npy`` (one square array) or ``.npz`` (pickled arrays are refused, never unpickled). An ``.npz`` may
  hold several matrices (choose one with ``key=``; :func:`similarity_keys` lists them) and the segment times as
  arrays ``start`` and ``end`` (seconds) and reference labels as ``reference`` (strings)::

      np.savez("meeting.npz", S_llr=S, start=start, end=end)

- CSV / TSV / whitespace-separated text: N rows of N numbers; an optional header line of segment names and an
  optional first column of names are recognised (and ignored).

**Segment times** (``segments=``): a Kaldi ``segments`` file ``<segment-id> <recording-id> <start> <end>``, or a
table with the times in two columns (``start end``, header optional).

**Reference** (``reference=``): an RTTM file (then each segment's speaker is the one with the most time in it, and
the turns are kept for the DER), or one speaker label per line (optionally ``<segment-id> <label>``), in the order
of the matrix.

**RTTM** (:func:`read_rttm`, :func:`write_rttm`): ``SPEAKER <uri> <channel> <start> <duration> <NA> <NA>
<speaker> <NA> <NA>``; other line types (``SPKR-INFO``, ...) and ``;;`` comments are skipped.
**UEM** (:func:`read_uem`): ``<uri> <channel> <start> <end>``, the scored regions.

Every problem is a :class:`~llrcore.io.LoadError` naming the file, the line and the problem.
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.similarity import SimilarityMatrix, labels_from_turns
from ._source import Destination, Source, _load_numpy, _npz_array, _Source, _text

__all__ = ["read_similarity", "similarity_keys", "read_segments", "read_rttm", "rttm_text", "write_rttm",
           "read_uem", "read_labels"]

#: Names tried, in order, when an .npz holds several square matrices and no ``key`` is given.
_PREFERRED_KEYS = ("scores", "similarity", "S", "llr", "S_llr")
_TIME_KEYS = ("start", "end")
_REFERENCE_KEYS = ("reference", "labels", "speakers")
_SEPARATORS = {",": ",", "\t": "\t", ";": ";"}


# ----- text helpers ------------------------------------------------------------------------------------------------


def _open(source) -> _Source:
    """The bytes of a path or file-like (or a source already opened by another reader of this module)."""
    return source if isinstance(source, _Source) else _Source.open(source)


def _lines(src: _Source) -> list[tuple[int, list[str]]]:
    """(1-based line number, whitespace-split fields) of every line that is not blank or a comment."""
    text = _text(src)
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith((";;", "#")):
            continue
        rows.append((number, stripped.split()))
    return rows


def _number(src: _Source, text: str, line: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise src.error(f"the {what} {text!r} is not a number.", line) from None
    if not np.isfinite(value):
        raise src.error(f"the {what} {text!r} is not a finite number.", line)
    return value


# ----- similarity matrices -----------------------------------------------------------------------------------------


def _square_keys(src: _Source, archive) -> list[str]:
    keys = []
    for key in archive.files:
        try:
            array = archive[key]
        except ValueError:
            continue
        if array.ndim == 2 and array.shape[0] == array.shape[1] and array.dtype.kind in "fiub":
            keys.append(key)
    return keys


def similarity_keys(source: Source) -> list[str]:
    """Names of the square numeric matrices in an ``.npz`` file (empty for any other file).

    Parameters
    ----------
    source : path or file-like
        The file; an ``.npz`` archive is recognised by its bytes, not its name.

    Returns
    -------
    list of str
        The archive's arrays that are square 2-D matrices of numbers (one of them is chosen with
        ``read_similarity(..., key=)``), in archive order; empty when the file is no ``.npz``.

    Raises
    ------
    LoadError
        The file cannot be opened or the archive cannot be read.
    """
    src = _open(source)
    if src.data[:2] != b"PK":
        return []
    with _load_numpy(src) as archive:
        return _square_keys(src, archive)


def _matrix_from_numpy(src: _Source, key: str | None) -> tuple[np.ndarray, dict]:
    """The matrix (and times/labels found beside it) of a .npy or .npz file."""
    loaded = _load_numpy(src)
    if isinstance(loaded, np.ndarray):
        if key is not None:
            raise src.error(f"a .npy file holds one array; there is no array named {key!r} to choose.")
        if loaded.dtype.kind == "O":
            raise src.error("the array holds Python objects (pickled data); save plain numbers.")
        return loaded, {}
    with loaded as archive:
        found = list(archive.files)
        if key is None:
            square = _square_keys(src, archive)
            if not square:
                listed = ", ".join(f"{k!r}" for k in found) or "none"
                raise src.error(f"the archive holds no square matrix of numbers (arrays: {listed}).")
            preferred = [k for k in _PREFERRED_KEYS if k in square]
            if len(square) == 1:
                key = square[0]
            elif preferred:
                key = preferred[0]
            else:
                raise src.error(f"the archive holds several square matrices ({', '.join(square)}) and none of the names "
                                f"{', '.join(repr(k) for k in _PREFERRED_KEYS)}; keep one, or name the one to use so.")
        elif key not in found:
            raise src.error(f"the archive has no array named {key!r} (it holds {', '.join(found)}).")
        matrix = _npz_array(src, archive, key)
        extras: dict[str, np.ndarray | str] = {}
        for name in _TIME_KEYS:
            if name in found:
                extras[name] = np.asarray(_npz_array(src, archive, name), dtype=np.float64).reshape(-1)
        for name in _REFERENCE_KEYS:
            if name in found:
                labels = _npz_array(src, archive, name)
                extras["reference"] = labels.astype(str).reshape(-1)
                break
        extras["key"] = key
        return matrix, extras


_NUMERIC = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|infinity|nan)$", re.IGNORECASE)


def _matrix_from_text(src: _Source) -> np.ndarray:
    text = _text(src)
    lines = [(i, line) for i, line in enumerate(text.split("\n"), start=1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise src.error("the file is empty: a similarity matrix needs N lines of N numbers.")
    first = lines[0][1]
    separator = next((sep for sep in _SEPARATORS if sep in first), None)

    def split(line: str) -> list[str]:
        return [f.strip() for f in (line.split(separator) if separator else line.split())]

    rows = [(i, split(line)) for i, line in lines]
    top = rows[0][1]
    header = any(not _NUMERIC.match(f) for f in top[1:]) or (len(top) == 1 and not _NUMERIC.match(top[0]))
    if header:
        rows = rows[1:]
    if not rows:
        raise src.error("the file has a header line but no rows of numbers.")
    names_column = any(not _NUMERIC.match(fields[0]) for _, fields in rows)
    if names_column:
        rows = [(i, fields[1:]) for i, fields in rows]
    n = len(rows)
    values = np.empty((n, n))
    for r, (line, fields) in enumerate(rows):
        if len(fields) != n:
            raise src.error(f"this row has {len(fields)} values but the matrix has {n} rows; a similarity matrix "
                            "must be square (N rows of N numbers).", line)
        try:
            values[r] = np.array(fields, dtype=np.float64)
        except ValueError:
            bad = next(c for c, f in enumerate(fields) if not _NUMERIC.match(f))
            raise src.error(f"the value {fields[bad]!r} in column {bad + 1} is not a number.", line) from None
    return values


def read_segments(source: Source) -> pd.DataFrame:
    """Segment times: a Kaldi ``segments`` file or a two-column ``start end`` table (header optional).

    A Kaldi line is ``<segment-id> <recording-id> <start> <end>``; a table has the times in two columns (split at
    commas, semicolons, tabs or spaces), found by a header naming ``start`` and ``end`` when there is one. Blank
    lines and comments (``;;``, ``#``) are skipped.

    Parameters
    ----------
    source : path or file-like
        The segments file.

    Returns
    -------
    pandas.DataFrame
        Columns ``segment``, ``uri``, ``start``, ``end`` (seconds; the ids empty when the file has none), one row
        per segment in file order.

    Raises
    ------
    LoadError
        Empty file, a line of neither form, a time that is no finite number, or a segment that ends before it
        starts (file and line named).
    """
    return _segments(_open(source))


def _segments(src: _Source) -> pd.DataFrame:
    rows = _lines(src)
    if not rows:
        raise src.error("the file is empty: segment times are needed.")
    separator_split = [(i, [f for f in re.split(r"[,;\t ]+", " ".join(fields)) if f]) for i, fields in rows]
    if len(separator_split[0][1]) >= 2 and not all(_NUMERIC.match(f) for f in separator_split[0][1][-2:]):
        header = [f.lower() for f in separator_split[0][1]]
        separator_split = separator_split[1:]
        where = (header.index("start"), header.index("end")) if {"start", "end"} <= set(header) else None
    else:
        where = None
    records = []
    for line, fields in separator_split:
        if where is not None:
            if len(fields) <= max(where):
                raise src.error("this line has fewer columns than the header.", line)
            start_text, end_text, segment, uri = fields[where[0]], fields[where[1]], "", ""
        elif len(fields) == 4:  # Kaldi: <segment-id> <recording-id> <start> <end>
            segment, uri, start_text, end_text = fields
        elif len(fields) == 2:
            segment, uri, (start_text, end_text) = "", "", fields
        else:
            raise src.error(f"expected a Kaldi segments line '<segment-id> <recording-id> <start> <end>' or two "
                            f"columns 'start end', found {len(fields)} fields.", line)
        start = _number(src, start_text, line, "start time")
        end = _number(src, end_text, line, "end time")
        if end < start:
            raise src.error(f"the segment ends ({end:g} s) before it starts ({start:g} s).", line)
        records.append((segment, uri, start, end))
    return pd.DataFrame(records, columns=["segment", "uri", "start", "end"])


def read_labels(source: Source) -> np.ndarray:
    """One speaker label per line (or ``<segment-id> <label>``: the last field is the label), in file order.

    Parameters
    ----------
    source : path or file-like
        The labels file; blank lines and comments (``;;``, ``#``) are skipped.

    Returns
    -------
    numpy.ndarray of str
        The labels, one per segment, in file order.

    Raises
    ------
    LoadError
        The file cannot be opened or holds no label.
    """
    return _labels(_open(source))


def _labels(src: _Source) -> np.ndarray:
    rows = _lines(src)
    if not rows:
        raise src.error("the file is empty: one speaker label per segment is needed.")
    return np.array([fields[-1] for _, fields in rows], dtype=str)


def _is_rttm(src: _Source) -> bool:
    if src.suffix == ".rttm":
        return True
    head = src.data[:4096].lstrip(b"\xef\xbb\xbf").lstrip()
    return head[:8].upper() in (b"SPEAKER ", b"SPEAKER\t") or head.upper().startswith(b"SPKR-INFO")


def read_similarity(source: Source, *, key: str | None = None, segments: Source | None = None,
                    reference: Source | None = None, name: str | None = None, uri: str | None = None
                    ) -> SimilarityMatrix:
    """Read a similarity matrix, optionally with segment times and a reference.

    Parameters
    ----------
    source : path or file-like
        ``.npy``, ``.npz`` or a text table (CSV, TSV, whitespace), see the module docstring.
    key : str, optional
        Which matrix of an ``.npz`` holding several.
    segments : path or file-like, optional
        Segment times (Kaldi ``segments`` or ``start end`` columns); default the ``start``/``end`` arrays of an
        ``.npz``, if any.
    reference : path or file-like, optional
        An RTTM (turns kept; per-segment speakers by majority overlap, which needs times) or one label per line.
    name, uri : str, optional
        Display name (default the file's stem, with the key) and recording name (default from the segments file
        or the RTTM, else the stem).

    Returns
    -------
    llrcore.SimilarityMatrix
        Asymmetric matrices are symmetrised as ``(S + S.T) / 2`` with a warning (also in ``.notes``).

    Raises
    ------
    LoadError
        Unreadable file, not square, NaN or infinite values (row and column named), counts that do not match.
    """

    src = _open(source)
    if src.data[:6] == b"\x93NUMPY" or src.data[:2] == b"PK":
        matrix, extras = _matrix_from_numpy(src, key)
    else:
        if key is not None:
            raise src.error(f"an array name ({key!r}) only applies to .npz archives.")
        matrix, extras = _matrix_from_text(src), {}
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise src.error(f"the matrix has shape {matrix.shape}; a similarity matrix is square (N x N).")
    if matrix.dtype.kind not in "fiub":
        raise src.error(f"the matrix holds {matrix.dtype} values, not numbers.")
    n = matrix.shape[0]
    if n == 0:
        raise src.error("the matrix is empty.")
    bad = ~np.isfinite(matrix)
    if bad.any():
        row, column = (int(v) + 1 for v in np.unravel_index(int(np.argmax(bad)), matrix.shape))
        kind = "NaN (a missing score)" if np.isnan(matrix[row - 1, column - 1]) else "infinite"
        raise src.error(f"{int(bad.sum()):,} scores are NaN or infinite; the first, at row {row}, column {column}, "
                        f"is {kind}. Every pair of segments needs a finite score.")

    start, end = extras.get("start"), extras.get("end")
    recording = uri
    if segments is not None:
        seg_src = _Source.open(segments)
        table = _segments(seg_src)
        if len(table) != n:
            raise seg_src.error(f"the file gives {len(table)} segments but the matrix has {n}.")
        start, end = table["start"].to_numpy(), table["end"].to_numpy()
        if recording is None and table["uri"].iloc[0]:
            recording = str(table["uri"].iloc[0])
    elif start is not None and (start.size != n or end is None or end.size != n):
        raise src.error(f"the arrays 'start' and 'end' must both hold one time per segment ({n}).")

    labels, turns = extras.get("reference"), None
    if labels is not None and labels.size != n:
        raise src.error(f"the array of reference labels has {labels.size} entries but the matrix has {n} rows.")
    if reference is not None:
        ref_src = _Source.open(reference)
        if _is_rttm(ref_src):
            turns = _rttm(ref_src)
            if recording is None:
                recording = str(turns["uri"].iloc[0])
            if start is None:
                raise ref_src.error("an RTTM reference needs the segment times (a segments file, or arrays 'start' "
                                    "and 'end' in the .npz) to find each segment's speaker.")
            labels = labels_from_turns(start, end, turns)
        else:
            labels = _labels(ref_src)
            if labels.size != n:
                raise ref_src.error(f"the file gives {labels.size} labels but the matrix has {n} segments.")

    stem = src.stem or "matrix"
    display = name if name is not None else (f"{stem} ({extras['key']})" if "key" in extras else stem)
    try:
        return SimilarityMatrix(matrix, start=start, end=end, reference=labels, reference_turns=turns,
                                uri=recording or stem, name=display)
    except ValueError as err:  # times that do not fit (e.g. end before start): name the file
        raise src.error(str(err)) from None


# ----- RTTM and UEM ------------------------------------------------------------------------------------------------


def read_rttm(source: Source) -> pd.DataFrame:
    """Speaker turns of an RTTM file.

    A ``SPEAKER`` line is ``SPEAKER <uri> <channel> <start> <duration> <NA> <NA> <speaker> ...``; other line
    types (``SPKR-INFO``, ...) and comments (``;;``, ``#``) are skipped.

    Parameters
    ----------
    source : path or file-like
        The RTTM file.

    Returns
    -------
    pandas.DataFrame
        Columns ``uri, channel, start, end, speaker`` (times in seconds, ``end = start + duration``), in file
        order; only ``SPEAKER`` lines.

    Raises
    ------
    LoadError
        A ``SPEAKER`` line with fewer than 8 fields, a time that is no finite number, a negative duration, or no
        ``SPEAKER`` line at all (file and line named).
    """
    return _rttm(_open(source))


def _rttm(src: _Source) -> pd.DataFrame:
    records = []
    for line, fields in _lines(src):
        if fields[0].upper() != "SPEAKER":
            continue
        if len(fields) < 8:
            raise src.error(f"an RTTM SPEAKER line needs at least 8 fields ('SPEAKER <file> <channel> <start> "
                            f"<duration> <NA> <NA> <speaker> ...'), found {len(fields)}.", line)
        start = _number(src, fields[3], line, "start time")
        duration = _number(src, fields[4], line, "duration")
        if duration < 0:
            raise src.error(f"the duration {duration:g} is negative.", line)
        records.append((fields[1], fields[2], start, start + duration, fields[7]))
    if not records:
        raise src.error("the file holds no SPEAKER lines: this is not an RTTM file, or it is empty.")
    return pd.DataFrame(records, columns=["uri", "channel", "start", "end", "speaker"])


def rttm_text(turns: pd.DataFrame) -> str:
    """RTTM lines of speaker turns (columns ``uri, start, end, speaker``; ``channel`` optional, default 1).

    Parameters
    ----------
    turns : pandas.DataFrame
        The turns, one per row: ``uri``, ``start`` and ``end`` (seconds), ``speaker``, optionally ``channel``.

    Returns
    -------
    str
        One ``SPEAKER <uri> <channel> <start> <duration> <NA> <NA> <speaker> <NA> <NA>`` line per turn, in row
        order, times to the millisecond (``%.3f``), each line ending in a newline.
    """
    channel = turns["channel"] if "channel" in turns else pd.Series("1", index=turns.index)
    lines = [
        f"SPEAKER {uri} {ch} {start:.3f} {end - start:.3f} <NA> <NA> {speaker} <NA> <NA>\n"
        for uri, ch, start, end, speaker in zip(turns["uri"], channel, turns["start"].astype(float),
                                                turns["end"].astype(float), turns["speaker"])
    ]
    return "".join(lines)


def write_rttm(path: Destination, turns: pd.DataFrame) -> None:
    """Write speaker turns as an RTTM file (a path or a writable text/binary file object).

    Parameters
    ----------
    path : path or file-like
        Where to write: a path (written as UTF-8, replacing the file), a text file object, or a binary one (given
        UTF-8 bytes).
    turns : pandas.DataFrame
        The turns, as :func:`rttm_text` takes them (``uri, start, end, speaker``; ``channel`` optional).

    Returns
    -------
    None
        The lines of :func:`rttm_text` are written.
    """
    text = rttm_text(turns)
    if isinstance(path, (str, os.PathLike)):
        Path(path).write_text(text, encoding="utf-8")
    elif isinstance(path, io.TextIOBase):
        path.write(text)
    else:
        path.write(text.encode("utf-8"))


def read_uem(source: Source) -> pd.DataFrame:
    """Scored regions of a UEM file ``<uri> <channel> <start> <end>``: columns ``uri, channel, start, end``.

    Parameters
    ----------
    source : path or file-like
        The UEM file; blank lines and comments (``;;``, ``#``) are skipped.

    Returns
    -------
    pandas.DataFrame
        Columns ``uri, channel, start, end`` (seconds), one row per scored region, in file order.

    Raises
    ------
    LoadError
        A line without exactly 4 fields, a time that is no finite number, a region that ends before it starts, or
        no region at all (file and line named).
    """
    src = _open(source)
    records = []
    for line, fields in _lines(src):
        if len(fields) != 4:
            raise src.error(f"a UEM line is '<file> <channel> <start> <end>', found {len(fields)} fields.", line)
        start = _number(src, fields[2], line, "start time")
        end = _number(src, fields[3], line, "end time")
        if end < start:
            raise src.error(f"the region ends ({end:g} s) before it starts ({start:g} s).", line)
        records.append((fields[0], fields[1], start, end))
    if not records:
        raise src.error("the file holds no scored region.")
    return pd.DataFrame(records, columns=["uri", "channel", "start", "end"])

