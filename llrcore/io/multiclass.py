"""Read multiclass score files: one score column per class and the true class of each trial.

:func:`read_multiclass` returns a :class:`~llrcore.data.multiclass.MulticlassScores`; every problem with a file is a
:class:`LoadError` naming the file, the line (or array element) and the problem in a sentence.

Formats (``format="auto"`` recognises them)
------------------------------------------

1. **Text table** (CSV, TSV, ``;`` or whitespace separated): one column per class and one label column. With a
   header line the class columns are named by their classes and the label column is the one named ``label``
   (also ``labels``, ``class``, ``truth``, ``true_class``, ``key``, ``y``), else the last column; columns named
   ``id``, ``trial``, ``utt``, ``segment``, ``file`` or ``index`` are ignored::

       utt,english,hindi,mandarin,label
       u001,2.1,-0.3,-1.7,english

   Labels are class names (of the header) or class numbers ``0..N-1``. Without a header the label column is the
   last one, labels are class numbers and the classes are named ``0..N-1`` (or by ``classes=``).
2. **NumPy** ``.npz``: a 2-D array ``scores`` (also ``llrs``, ``logits``, ``log_posteriors``, ``probabilities``
   with ``score_type="probability"``), integer ``labels``
   (also ``targets``, ``y``) and optionally ``classes`` (strings). Pickled (object) arrays are never loaded::

       np.savez("lre.npz", scores=scores, labels=labels, classes=np.array(["eng", "hin", "man"]))

3. **NumPy** ``.npy`` pair: a 2-D score matrix, with the labels given as ``labels=`` (an array, a ``.npy``
   file or a text file with one label per line), e.g. the expected_cost data::

       lc.read_multiclass("scores.npy", labels="targets.npy", score_type="logit")

4. **Parquet**: like a text table with a header.

Scores may be LLRs (``score_type="llr"``), logits, log-posteriors or probabilities (``"logit"``, ``"log-posterior"``,
``"probability"``: a classifier's softmax output, rows adding to 1, read as the log-posteriors ``log p``), which
become LLRs by removing the log of the classifier's training prior (``training_prior``, flat by default; see
:func:`~llrcore.data.multiclass.scores_to_llrs`). Log-posteriors are checked: each row's probabilities must add to 1.
"""
from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data.multiclass import MulticlassScores, row_logsumexp, score_type_of, scores_to_llrs
from ._source import LoadError, Source, _load_numpy, _npz_array, _Source, _text, _text_bytes
from .text import TextFile, clean_name, is_number

__all__ = ["MULTICLASS_FORMATS", "read_multiclass"]

#: The values ``format=`` accepts in :func:`read_multiclass`.
MULTICLASS_FORMATS = ("auto", "text", "npz", "npy", "parquet")
_LABEL_NAMES = ("label", "labels", "class", "truth", "true_class", "key", "y", "target", "targets")
_ID_NAMES = {"id", "ids", "trial", "trial_id", "utt", "utterance", "utt_id", "segment", "segment_id", "file",
             "filename", "path", "index"}
_NPZ_SCORES = ("scores", "llrs", "llr", "logits", "log_posteriors", "logpost", "probabilities", "probs")
_NPZ_LABELS = ("labels", "targets", "target", "label", "y")
_NPZ_CLASSES = ("classes", "class_names", "names")
_PROBABILITY_NAMES = ("probability", "probabilities", "prob", "probs", "posterior", "posteriors")
_LOG_POSTERIOR_TOLERANCE = 0.01  # |log sum p| per row: float32 log-posteriors add to 1 within ~1e-6


def read_multiclass(source: Source, *, labels: ArrayLike | Source | None = None, score_type: str = "llr",
                    training_prior: str | ArrayLike | None = None, classes: Sequence[str] | None = None,
                    label_column: str | int | None = None, name: str | None = None, format: str = "auto"
                    ) -> MulticlassScores:
    """Read multiclass trials: a score matrix (trials x classes) and the true class of each trial.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        The score file (see the module documentation for the formats); ``.gz`` is decompressed.
    labels : array_like, str, os.PathLike or file-like, optional
        The labels of a ``.npy`` score matrix (or of a ``.npz`` without a label array): an array of class
        numbers, a ``.npy`` file, or a text file with one label per line.
    score_type : {"llr", "logit", "log-posterior", "probability"}
        What the scores are; logits, log-posteriors and probabilities are turned into LLRs with `training_prior`.
    training_prior : None, "flat", "empirical" or array_like
        The prior the classifier was trained with (flat by default); ``"empirical"``: the class frequencies of
        this file.
    classes : sequence of str, optional
        Class names, overriding those of the file.
    label_column : str or int, optional
        The label column of a table (name or 0-based position) when it is neither named as above nor last.
    name : str, optional
        The system's name; by default the file's stem.
    format : {"auto", "text", "npz", "npy", "parquet"}

    Returns
    -------
    MulticlassScores

    Raises
    ------
    LoadError
        With the file, the line (or array element) and the problem.
    """
    src = _Source.open(source)
    fmt = _detect(src) if format == "auto" else format
    if fmt not in MULTICLASS_FORMATS[1:]:
        raise ValueError(f"format must be one of {', '.join(MULTICLASS_FORMATS)}, not {format!r}.")
    if fmt == "npz":
        matrix, label_values, names, where = _read_npz(src, labels)
    elif fmt == "npy":
        matrix, names, where = _read_npy(src), None, _element_rows
        if labels is None:
            raise src.error("a .npy file holds only the score matrix; give the labels too (a file of one label per row), "
                            "or save both in one .npz archive, with arrays named 'scores' and 'labels'.")
        label_values = _labels_from(labels, src)
    else:
        if labels is not None:
            raise src.error("this file has its own label column; separate labels are only read for .npy and .npz score files.")
        matrix, label_values, names, where = _read_table(src, fmt, label_column)
    if classes is not None:
        names = [str(c) for c in classes]
        if len(names) != matrix.shape[1]:
            raise src.error(f"{len(names)} class names were given but the file has {matrix.shape[1]} score columns.")
    names = names or [str(i) for i in range(matrix.shape[1])]
    label_index = _label_indices(src, label_values, names, where)
    return _multiclass_scores(src, matrix, label_index, names, where, score_type, training_prior,
                              src.stem if name is None else name)


def _detect(src: _Source) -> str:
    head = src.data[:8]
    if src.suffix == ".npz" or head[:4] == b"PK\x03\x04":
        return "npz"
    if src.suffix == ".npy" or head[:6] == b"\x93NUMPY":
        return "npy"
    if src.suffix in (".parquet", ".pq") or head[:4] == b"PAR1":
        return "parquet"
    return "text"


def _element_rows(row: int) -> dict:
    """Where trial `row` of an array is, for messages (no line numbers in binary files)."""
    return {"reason_suffix": f" (row {row} of the score matrix, counting from 0)"}


# ----- text and Parquet tables ---------------------------------------------------------------------------------------


def _header_row(rows, number) -> bool:
    """A first line is a header when it holds no number, or a word where the next line has a number."""
    first = rows[0]
    if not any(number(token) for token in first):
        return True
    return len(rows) > 1 and any(not number(a) and number(b) for a, b in zip(first, rows[1]))


def _column_layout(src: _Source, names: list[str], label_column, header: bool) -> tuple[int, list[int]]:
    """(label column, class columns) of a table with these column names."""
    lowered = [n.strip().lower() for n in names]
    if label_column is not None:
        if isinstance(label_column, (int, np.integer)) and not isinstance(label_column, bool):
            if not -len(names) <= label_column < len(names):
                raise src.error(f"label_column={label_column} but the table has {len(names)} columns.")
            label = int(label_column) % len(names)
        elif str(label_column).strip().lower() in lowered:
            label = lowered.index(str(label_column).strip().lower())
        else:
            raise src.error(f"there is no column named {label_column!r}; the columns are {', '.join(names)}.")
    else:
        label = next((lowered.index(n) for n in _LABEL_NAMES if header and n in lowered), len(names) - 1)
    columns = [j for j in range(len(names)) if j != label and not (header and lowered[j] in _ID_NAMES)]
    if len(columns) < 2:
        raise src.error(f"a multiclass score file needs at least 2 score columns (one per class) and a label "
                        f"column; this one has {len(columns)} score column{'s' if len(columns) != 1 else ''}.")
    return label, columns


def _read_table(src: _Source, fmt: str, label_column):
    if fmt == "parquet":
        return _read_parquet(src, label_column)
    text = TextFile(src, _text_bytes(src))
    number = lambda token: is_number(token, text.decimal)
    header = _header_row(text.rows, number)
    first = 1 if header else 0
    if first >= len(text.sample):
        raise src.error("the file has a header line but no trials.")
    ncols = len(text.rows[first])
    names = [clean_name(token) for token in text.rows[0]] if header else [str(j) for j in range(ncols)]
    if header and len(names) != ncols:
        raise src.error(f"the header has {len(names)} columns but the first trial has {ncols}.", text.sample[1][0])
    label, columns = _column_layout(src, names, label_column, header)
    reference = text.sample[first][0]
    frame, lines = text.read(first, ncols, [label], reference)
    matrix = np.column_stack([
        text.scores(frame[j], lines, ncols, reference, what=f"{names[j]!r} score") for j in columns
    ])
    class_names = [names[j] for j in columns] if header else None

    def where(row: int) -> dict:
        text.check_width(int(lines[row]), ncols, reference)  # a short line is the problem, not its label
        return {"line": int(lines[row])}

    return matrix, frame[label], class_names, where


def _read_parquet(src: _Source, label_column):
    try:
        frame = pd.read_parquet(io.BytesIO(src.data))
    except Exception as exc:  # pyarrow raises many kinds for damaged files
        raise src.error(f"the file is not a readable Parquet file ({type(exc).__name__}: {exc}).") from None
    if frame.shape[0] == 0:
        raise src.error("the file holds no trials.")
    names = [str(c) for c in frame.columns]
    label, columns = _column_layout(src, names, label_column, header=True)
    scores = []
    for j in columns:
        values = pd.to_numeric(frame.iloc[:, j], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values)
        if bad.any():
            row = int(np.argmax(bad))
            raise src.error(f"the {names[j]!r} score {frame.iloc[row, j]!r} is not a number.", row + 1, unit="row")
        scores.append(values)
    return np.column_stack(scores), frame.iloc[:, label], [names[j] for j in columns], \
        lambda row: {"line": row + 1, "unit": "row"}


_CLASS_NAMES_HINT = " (and class names as a string array)"


# ----- NumPy ---------------------------------------------------------------------------------------------------------


def _score_matrix(src: _Source, array: np.ndarray, what: str) -> np.ndarray:
    if array.dtype.kind not in "fiu":
        raise src.error(f"the {what} holds {array.dtype} values, not numbers.")
    if array.ndim != 2:
        raise src.error(f"the {what} has shape {array.shape}; a (trials x classes) matrix is needed.")
    return array.astype(np.float64)


def _read_npz(src: _Source, labels):
    archive = _load_numpy(src, ".npz archive")
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise src.error("the file holds a single array, not an .npz archive of scores and labels.")
    with archive:
        found = list(archive.files)
        score_key = next((k for k in _NPZ_SCORES if k in found), None)
        label_key = next((k for k in _NPZ_LABELS if k in found), None)
        class_key = next((k for k in _NPZ_CLASSES if k in found), None)
        listed = ", ".join(repr(f) for f in found) or "none"
        if score_key is None:
            raise src.error(f"a multiclass .npz file needs a score matrix named 'scores' (or 'llrs', 'logits', "
                            f"'log_posteriors'); it holds {listed}.")
        matrix = _score_matrix(src, _npz_array(src, archive, score_key, _CLASS_NAMES_HINT), f"array {score_key!r}")
        if label_key is not None and labels is not None:
            raise src.error(f"the file has its own labels (array {label_key!r}); separate labels cannot be given as well.")
        if label_key is None and labels is None:
            raise src.error(f"a multiclass .npz file needs the labels in an array named 'labels' (or 'targets', "
                            f"'y'); it holds {listed}.")
        label_values = _npz_array(src, archive, label_key, _CLASS_NAMES_HINT) if label_key else _labels_from(labels, src)
        names = None
        if class_key is not None:
            class_array = _npz_array(src, archive, class_key, _CLASS_NAMES_HINT)
            if class_array.ndim != 1 or class_array.dtype.kind not in "USiu":
                raise src.error(f"the array {class_key!r} must be a flat list of class names.")
            names = [str(c) for c in class_array]
            if len(names) != matrix.shape[1]:
                raise src.error(f"the array {class_key!r} names {len(names)} classes but the score matrix has "
                                f"{matrix.shape[1]} columns.")
    return matrix, pd.Series(np.asarray(label_values).reshape(-1)), names, _element_rows


def _read_npy(src: _Source) -> np.ndarray:
    return _score_matrix(src, np.asarray(_load_numpy(src, ".npy array")), "score matrix")


def _labels_from(labels, src: _Source) -> pd.Series:
    """Labels given separately: an array, a ``.npy`` file, or a text file with one label per line."""
    if isinstance(labels, (np.ndarray, list, tuple, pd.Series)):
        return pd.Series(np.asarray(labels).reshape(-1))
    label_src = _Source.open(labels)
    if label_src.data[:6] == b"\x93NUMPY":
        array = _load_numpy(label_src, ".npy array of labels")
        if array.ndim != 1:
            raise label_src.error(f"the labels have shape {array.shape}; a flat list of class numbers is needed.")
        return pd.Series(array)
    text = _text(label_src)
    values = [line.strip() for line in text.split("\n") if line.strip() and not line.strip().startswith("#")]
    if not values:
        raise label_src.error("the label file is empty.")
    return pd.Series(values)


# ----- labels and the final checks -----------------------------------------------------------------------------------


def _label_indices(src: _Source, values: pd.Series, names: list[str], where) -> np.ndarray:
    """Class index of every label: a class name, or a class number 0..N-1."""
    column = values if isinstance(values.dtype, pd.CategoricalDtype) else values.astype("category")
    categories = list(column.cat.categories)
    by_name = {name: i for i, name in enumerate(names)}
    lut = np.full(len(categories) + 1, -1, dtype=np.int64)
    for k, category in enumerate(categories):
        key = clean_name(str(category))
        if key in by_name:
            lut[k] = by_name[key]
        elif is_number(key) and float(key).is_integer() and 0 <= float(key) < len(names):
            lut[k] = int(float(key))
    index = lut[column.cat.codes.to_numpy()]
    bad = index < 0
    if bad.any():
        row = int(np.argmax(bad))
        raw = str(values.iloc[row]).strip()
        shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        problem = (f"the label {raw!r} is neither a class name ({shown}) nor a class number 0 to {len(names) - 1}"
                   + (" (class numbers count from 0)." if raw == str(len(names)) else "."))
        raise _error(src, problem, where(row))
    return index


def _error(src: _Source, problem: str, place: dict) -> LoadError:
    return src.error(problem + place.get("reason_suffix", ""), place.get("line"), place.get("unit", "line"))


def _multiclass_scores(src, matrix, labels, names, where, score_type, training_prior, name):
    if matrix.shape[0] != labels.size:
        raise src.error(f"there are {matrix.shape[0]} rows of scores but {labels.size} labels.")
    if matrix.shape[0] == 0:
        raise src.error("the file holds no trials.")
    for bad, problem in ((np.isnan(matrix).any(axis=1), "a score is missing (NaN); every class needs a score."),
                         (np.isposinf(matrix).any(axis=1), "a score is +inf; use a large finite number."),
                         (~np.isfinite(matrix).any(axis=1), "every score is -inf.")):
        if bad.any():
            raise _error(src, problem, where(int(np.argmax(bad))))
    if str(score_type).strip().lower() in _PROBABILITY_NAMES:
        matrix, score_type = _log_probabilities(src, matrix, where), "log-posterior"
    try:
        kind = score_type_of(score_type)
    except ValueError as exc:
        raise _as_load_error(src, exc) from None
    if kind == "log-posterior":
        total = row_logsumexp(matrix, np.zeros(matrix.shape[1]))
        bad = np.abs(total) > _LOG_POSTERIOR_TOLERANCE
        if bad.any():
            row = int(np.argmax(bad))
            looks_like_probabilities = matrix.min() >= 0 and np.allclose(matrix.sum(axis=1), 1, atol=1e-3)
            problem = ("these look like probabilities, not log-posteriors: take their logarithm first."
                       if looks_like_probabilities else
                       f"these are not log-posteriors: the probabilities exp(score) of this trial add up to "
                       f"{np.exp(total[row]):.4g}, not 1. Choose 'logit' for scores that are not normalised.")
            raise _error(src, problem, where(row))
    try:
        llrs = scores_to_llrs(matrix, score_type, training_prior, labels)
        return MulticlassScores(llrs, labels, tuple(names), name=name)
    except ValueError as exc:
        raise _as_load_error(src, exc) from None


def _log_probabilities(src: _Source, matrix: np.ndarray, where) -> np.ndarray:
    """``log p`` of a probability matrix, each row checked to lie in [0, 1] (a 0 becomes ``-inf``: a class ruled out)."""
    bad = ((matrix < 0) | (matrix > 1)).any(axis=1)
    if bad.any():
        raise _error(src, "these are not probabilities: a value is below 0 or above 1 (choose 'logit' for logits).",
                     where(int(np.argmax(bad))))
    with np.errstate(divide="ignore"):
        return np.log(matrix)


def _as_load_error(src: _Source, exc: ValueError) -> LoadError:
    """A data-layer check's sentence as this file's problem."""
    return src.error(str(exc)[:1].lower() + str(exc)[1:])
