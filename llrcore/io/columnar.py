"""Binary trials from columnar files: Parquet tables (one or several systems; the other columns are the trials'
metadata) and npz archives (``tar``, ``non``; no metadata but a table matched row by row)."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd

from ..data.trials import Trials
from ._source import FileBytes, _load_numpy, _npz_array, _Source
from .labels import ACCEPTED, NONTARGET, TARGET, label_codes, renamed, trials_from_codes
from .metadata import MetadataTable, attach, take_rows, tidy, unique_names
from .text import NAN_WORDS

__all__ = ["read_npz", "read_parquet"]


def read_parquet(src: _Source, name: str | None, table: MetadataTable | None = None) -> Trials | dict[str, Trials]:
    """A Parquet table: a score and a label column, or one score column per system, or a long table with a system
    column (then one Trials per system); every other column is metadata (text as categoricals)."""
    try:
        frame = _read_parquet_frame(src.data)
    except Exception as exc:  # pyarrow raises many kinds for damaged files
        raise src.error(f"the file is not a readable Parquet file ({type(exc).__name__}: {exc}).") from None
    if len(frame) == 0:
        raise src.error("the Parquet file has no rows.")
    lower = {str(c).lower(): c for c in reversed(list(frame.columns))}
    columns = ", ".join(repr(str(c)) for c in frame.columns)
    label = next((lower[n] for n in ("label", "labels", "target", "key", "class", "truth", "is_target")
                  if n in lower), None)
    if label is None:
        raise src.error(f"there is no label column (named label, labels, target, key or class); the columns are "
                        f"{columns}.")
    system = next((lower[n] for n in ("system", "systems", "sys") if n in lower), None)
    score = next((lower[n] for n in ("score", "scores", "llr", "llrs") if n in lower), None)
    labels = _parquet_labels(src, frame[label])
    if score is not None:
        score_columns = [score]
    else:
        score_columns = [c for c in frame.columns if c not in (label, system) and
                         (pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]))]
        if not score_columns:
            raise src.error(f"there is no score column (named score, scores or llr, or any column of numbers); the "
                            f"columns are {columns}.")
        if system is not None and len(score_columns) > 1:
            raise src.error("with a system column there must be one score column; name it 'score'.")
    values = {c: _parquet_scores(src, frame[c], str(c)) for c in score_columns}
    others = [c for c in frame.columns if c not in (label, system, *score_columns)]
    meta = tidy(frame[others])
    meta.columns = unique_names([str(c) for c in others])
    rows = range(1, len(frame) + 1)
    meta = attach(table, meta, src, rows, unit="row")
    if system is not None:
        systems = frame[system].astype(str)
        (column,) = score_columns
        result = {}
        for value in pd.unique(systems):
            mask = (systems == value).to_numpy()
            result[value] = trials_from_codes(src, values[column][mask], labels[mask], value, f"system {value!r}",
                                              take_rows(meta, np.flatnonzero(mask)), np.asarray(rows)[mask], "row")
        if len(result) == 1:
            (value, trials), = result.items()
            return renamed(trials, value if name is None else name)
        return result
    if len(score_columns) == 1:
        return trials_from_codes(src, values[score_columns[0]], labels, src.stem if name is None else name,
                                 metadata=meta, lines=rows, unit="row")
    return {str(c): trials_from_codes(src, values[c], labels, str(c), f"system {str(c)!r}", meta, rows, "row")
            for c in score_columns}


def _read_parquet_frame(data: FileBytes) -> pd.DataFrame:
    """The table, its text columns read as dictionaries (pandas categoricals) when pyarrow is there: cheaper than
    millions of Python strings."""
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pandas' other engine
        return pd.read_parquet(io.BytesIO(data))
    import pyarrow as pa

    schema = pq.read_schema(io.BytesIO(data))
    text = [field.name for field in schema if pa.types.is_string(field.type) or pa.types.is_large_string(field.type)]
    table = pq.read_table(io.BytesIO(data), read_dictionary=text or None)
    return table.to_pandas()


def _parquet_labels(src: _Source, column: pd.Series) -> np.ndarray:
    if pd.api.types.is_bool_dtype(column) and not column.isna().any():
        return np.where(column.to_numpy(dtype=bool), TARGET, NONTARGET).astype(np.int8)
    codes, _ = label_codes(column)
    bad = codes < 0
    if bad.any():
        row = int(np.argmax(bad))
        value = column.iloc[row]
        problem = "the label is missing" if pd.isna(value) else f"the label {str(value)!r} is not an accepted label"
        raise src.error(f"{problem}; accepted labels are {ACCEPTED}.", row + 1, unit="row")
    return codes


def _parquet_scores(src: _Source, column: pd.Series, what: str) -> np.ndarray:
    if not (pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)):
        converted = pd.to_numeric(column, errors="coerce")
        values = np.asarray(converted, dtype=np.float64)
    else:
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(values)
    if bad.any():
        row = int(np.argmax(bad))
        raw = column.iloc[row]
        if pd.isna(raw) or str(raw).strip().lower() in NAN_WORDS:
            raise src.error(f"the score in column {what!r} is missing (NaN).", row + 1, unit="row")
        raise src.error(f"the score {str(raw)!r} in column {what!r} is not a number.", row + 1, unit="row")
    return values


def read_npz(src: _Source, name: str, table: MetadataTable | None = None) -> Trials:
    """An npz archive with the arrays ``tar`` and ``non`` (and ``spoof`` if any), as ``np.savez`` writes them; a
    metadata `table` is matched with its trials row by row (``tar``, then ``non``, then ``spoof``)."""
    archive = _load_numpy(src, ".npz archive")
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise src.error("the file holds a single array; save the target and non-target scores together with "
                        "np.savez(path, tar=tar, non=non).")
    with archive:
        found = list(archive.files)
        if "tar" not in found or "non" not in found:
            listed = ", ".join(repr(f) for f in found) or "none"
            raise src.error(f"a .npz score file needs arrays named 'tar' and 'non' (and optionally 'spoof'); it "
                            f"holds {listed}.")
        arrays: dict[str, np.ndarray] = {}
        for what in ("tar", "non", "spoof"):
            if what not in found:
                continue
            array = _npz_array(src, archive, what)
            if array.dtype.kind not in "fiub":
                raise src.error(f"the array {what!r} holds {array.dtype} values, not numbers.")
            if array.ndim > 1:
                raise src.error(f"the array {what!r} has shape {array.shape}; a flat list of scores is needed.")
            array = array.reshape(-1).astype(np.float64)
            bad = np.isnan(array)
            if bad.any():
                raise src.error(f"element {int(np.argmax(bad))} (counting from 0) of the array {what!r} is NaN; "
                                "every trial needs a number.")
            arrays[what] = array
    for what, word in (("tar", "target"), ("non", "non-target")):
        if arrays[what].size == 0:
            raise src.error(f"the array {what!r} is empty: there are no {word} trials.")
    spoof = arrays.get("spoof", np.empty(0))
    metadata = None
    if table is not None:
        n = arrays["tar"].size + arrays["non"].size + spoof.size
        metadata = attach(table, pd.DataFrame(index=pd.RangeIndex(n)), src, range(1, n + 1), unit="trial")
    return Trials(arrays["tar"], arrays["non"], name=name, spoof=spoof, metadata=metadata)
