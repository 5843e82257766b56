"""BOSARIS Scores, Key and Ndx objects stored as HDF5 (``.h5``/``.hdf5``) files: read, written, and joined into Trials.

The BOSARIS toolkit (MATLAB), SIDEKIT's ``bosaris`` module, hyperion and PyBOSARIS keep a trial list as two id lists
and matrices with one row per model and one column per test segment; entry ``[i, j]`` is the trial of model ``i``
and test segment ``j``. A Scores file and its Key file are joined on the (model, test) pair exactly as a text score
file and its key (:func:`~llrcore.io.kaldi.join_with_key`); either of the two may also be a text file.

Layouts (checked against the sources below; every variant is read)
-------------------------------------------------------------------

=================  ===================================  ============================  =============================
                   BOSARIS toolkit (MATLAB), hyperion   SIDEKIT ``bosaris``           PyBOSARIS
=================  ===================================  ============================  =============================
model ids          ``ID/row_ids``                       ``modelset``                  ``model_names``
test segment ids   ``ID/column_ids``                    ``segset``                    ``test_names``
Scores matrix      ``scores`` (float64)                 ``scores`` (float64)          ``score_mat`` (float64)
Scores mask        ``score_mask`` (uint8, 1 = trial)    ``score_mask`` (int8)         none: every entry is a trial
Key                ``trial_mask`` (int8: 1 target,      ``trial_mask`` (int8, same)   ``tar_mask``, ``non_mask``
                   -1 non-target, 0 none), and                                        (bool)
                   ``file_format`` = "2.0"; before
                   2.0 ``target_mask``, ``nontarget_mask``
Ndx                ``trial_mask`` (uint8, 1 = trial)    ``trial_mask`` (int8)         ``trial_mask`` (bool)
=================  ===================================  ============================  =============================

Ids are strings: fixed-length byte strings (``numpy.astype('S')``, as SIDEKIT, hyperion and PyBOSARIS write them) or
variable-length strings (MATLAB's ``hdf5write`` of a cell array; SIDEKIT's older writer used variable-length
Fortran strings), decoded as UTF-8 with surrounding spaces removed; a list stored as an ``(n, 1)`` or ``(1, n)``
array is read as a list. Matrices are ``models x test segments`` as h5py (C order) sees them: MATLAB writes with
``hdf5write(..., 'V71Dimensions', true)``, which keeps its ``(models, segments)`` shape, and SIDEKIT's
``read_matlab`` reads them without transposing. A matrix of the transposed shape is refused with a sentence saying so
(a square one cannot be told apart). A mask holds 0 or 1 (a Key's ``trial_mask`` -1, 0 or 1); a score marked as a
trial must not be NaN (``+-inf`` is kept, as everywhere in llrcore). Sources checked:

- BOSARIS toolkit 1.06 (MATLAB), as vendored in ``nesl/asvspoof2019`` at commit ``fb5f837``,
  ``baseline/tDCF_v1/bosaris_toolkit.1.06/bosaris_toolkit/classes/``: ``@Scores/save_hdf5.m``, ``@Scores/read_hdf5.m``,
  ``@Key/save_hdf5.m``, ``@Key/read_hdf5.m`` (the pre-2.0 ``target_mask``/``nontarget_mask``), ``@Ndx/save_hdf5.m``,
  ``@Ndx/read_hdf5.m``;
- SIDEKIT ``sidekit/bosaris/scores.py`` and ``ndx.py`` in ``Anwarvic/Speaker-Recognition`` at ``070fe15``
  (``Scores.write``: ``modelset``, ``segset``, ``score_mask``, ``scores``; ``Scores.write_matlab``/``read_matlab``:
  the toolkit's names) and ``sidekit/bosaris/key.py`` in ``deep-privacy/sidekit`` at ``748163d``;
- PyBOSARIS ``pybosaris/io/hdf5_io.py`` in ``wa3dbk/PyBOSARIS`` at ``5fe621d`` (``save_scores_hdf5`` writes no
  mask, its Scores are all valid when loaded; attributes ``type`` and ``version``);
- hyperion's ``TrialScores``/``TrialKey``/``TrialNdx.save_h5`` (``hyperion-ml/hyperion``), the toolkit's names.

Order: the trials of a file are read in row-major order (model by model in the order of the model ids, each model's
test segments in the order of the test ids); the writers list the ids sorted, as the toolkit and SIDEKIT do when they
build these objects from text lists. Positions in messages count rows and columns from 1.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._source import Source, _Source
from .kaldi import TrialList
from .labels import NONTARGET, TARGET

__all__ = ["HDF5_SIGNATURE", "LAYOUTS", "Layout", "h5py_module", "is_hdf5", "open_h5", "read_bosaris_key",
           "read_bosaris_ndx", "read_bosaris_scores", "read_h5_trial_list", "refuse_scores_without_key"]

#: The first 8 bytes of every HDF5 file (without a user block).
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_SUFFIXES = (".h5", ".hdf5")


@dataclass(frozen=True)
class Layout:
    """The dataset names (and mask types) of one family of writers."""

    models: str
    tests: str
    scores: str
    score_mask: str | None  # None: no mask, every entry is a trial
    key_masks: tuple[str, ...]  # ("trial_mask",) holding 1/-1/0, or a target and a non-target mask
    mask_dtype: str  # of score masks and Ndx trial masks
    toolkit: str


#: The layouts written by :func:`write_bosaris_scores` and friends (``layout=``) and read by the readers.
LAYOUTS = {
    "bosaris": Layout("ID/row_ids", "ID/column_ids", "scores", "score_mask", ("trial_mask",), "uint8",
                       "the BOSARIS toolkit"),
    "sidekit": Layout("modelset", "segset", "scores", "score_mask", ("trial_mask",), "int8", "SIDEKIT"),
    "pybosaris": Layout("model_names", "test_names", "score_mat", None, ("tar_mask", "non_mask"), "bool",
                         "PyBOSARIS"),
}
_OLD_KEY_MASKS = ("target_mask", "nontarget_mask")  # BOSARIS keys before file format 2.0


def h5py_module():
    import h5py  # imported when an HDF5 file is met: `import llrcore` stays quick

    return h5py


# --------------------------------------------------------------------------------------------------------------
# public readers


def read_bosaris_scores(source: Source) -> pd.DataFrame:
    """Read a BOSARIS Scores ``.h5`` file (any layout of the module documentation).

    Parameters
    ----------
    source : str, os.PathLike or binary file-like
        The file.

    Returns
    -------
    DataFrame
        Columns ``model``, ``test`` (categoricals) and ``score`` (float64): one row per entry of the score mask
        (every entry when the file has no mask), in row-major order.

    Raises
    ------
    LoadError
        Naming the file and the dataset (and the row and column): not HDF5, a dataset missing, a mask of the wrong
        shape, ids that are not text or appear twice, a NaN score marked as a trial.
    """
    return _frame(_read_matrix(_Source.open(source), "scores"), "score")


def read_bosaris_key(source: Source) -> pd.DataFrame:
    """Read a BOSARIS Key ``.h5`` file (any layout of the module documentation).

    Parameters
    ----------
    source : str, os.PathLike or binary file-like
        The Key file.

    Returns
    -------
    DataFrame
        Columns ``model``, ``test`` (categoricals) and ``target`` (True for a target trial, False for a non-target
        trial), one row per trial of the key, in row-major order.

    Raises
    ------
    LoadError
        As :func:`read_bosaris_scores`, naming the file and the dataset.
    """
    matrix = _read_matrix(_Source.open(source), "key")
    return _frame(matrix, "target", matrix.values == TARGET)


def read_bosaris_ndx(source: Source) -> pd.DataFrame:
    """Read a BOSARIS Ndx ``.h5`` file: a list of trials without scores or labels.

    A Key file is read as its Ndx, as the toolkit's ``Key.to_ndx`` does.

    Parameters
    ----------
    source : str, os.PathLike or binary file-like
        The Ndx (or Key) file.

    Returns
    -------
    DataFrame
        Columns ``model`` and ``test`` (categoricals), one row per trial, in row-major order.

    Raises
    ------
    LoadError
        Naming the file: not HDF5, no trial mask, ids that are not text (as :func:`read_bosaris_scores`).
    """
    return _frame(_read_matrix(_Source.open(source), "ndx"))


def _frame(matrix: _Matrix, column: str | None = None, values=None) -> pd.DataFrame:
    frame = pd.DataFrame({"model": matrix.id_column(matrix.models, matrix.rows),
                          "test": matrix.id_column(matrix.tests, matrix.columns)})
    if column is not None:
        frame[column] = matrix.values if values is None else values
    return frame


# --------------------------------------------------------------------------------------------------------------
# what read_trials uses


def is_hdf5(src: _Source) -> bool:
    """True for an input that starts with the HDF5 signature or is named ``.h5``/``.hdf5``."""
    return src.data[:8] == HDF5_SIGNATURE or src.suffix in _SUFFIXES


def read_h5_trial_list(src: _Source, is_key: bool) -> TrialList:
    """The trials of a Scores (or, `is_key`, a Key) ``.h5`` file as a :class:`~llrcore.io.kaldi.TrialList`, for
    :func:`~llrcore.io.kaldi.join_with_key`."""
    return _read_matrix(src, "key" if is_key else "scores").trial_list()


def refuse_scores_without_key(src: _Source):
    """The LoadError for a BOSARIS ``.h5`` file read without a key: ``needs_key`` for a Scores file, else a sentence
    saying what the file is."""
    with open_h5(src) as f:
        kind, contents = _kind(f), _contents(f)
    if kind == "scores":
        raise src.error("a BOSARIS Scores file holds the scores of the trials but not which are target trials: it "
                        "needs its key (a BOSARIS Key .h5 file, or a text key 'model test target|nontarget').",
                        needs_key=True)
    if kind == "key":
        raise src.error("this is a BOSARIS Key file (which trials are target trials), not a score file; give it as "
                        "the key of its Scores file.")
    if "trial_mask" in contents:
        raise src.error("this is a BOSARIS Ndx file (a list of trials, without scores or labels), not a score file.")
    raise src.error(f"this HDF5 file holds no BOSARIS score matrix ('scores' or 'score_mat'). {contents}")


# --------------------------------------------------------------------------------------------------------------
# reading


@dataclass(frozen=True, eq=False)
class _Matrix:
    """The trials of one file: the model and test ids, each trial's row and column, and its score or label code."""

    src: _Source
    models: np.ndarray  # str objects, one per row
    tests: np.ndarray  # str objects, one per column
    rows: np.ndarray
    columns: np.ndarray
    values: np.ndarray | None
    where: str  # "the dataset 'scores'": what rows and columns refer to

    @staticmethod
    def id_column(ids: np.ndarray, codes: np.ndarray) -> pd.Categorical:
        used = np.unique(codes)  # the ids of the trials only, in file order
        renumber = np.zeros(len(ids), np.int64)
        renumber[used] = np.arange(used.size)
        return pd.Categorical.from_codes(renumber[codes], categories=pd.Index(ids[used], dtype=object))

    def place(self, i: int) -> str:
        return f"at row {int(self.rows[i]) + 1}, column {int(self.columns[i]) + 1} of {self.where}"

    def trial_list(self) -> TrialList:
        models = pd.Series(self.id_column(self.models, self.rows))
        tests = pd.Series(self.id_column(self.tests, self.columns))
        assert self.values is not None  # (only an Ndx file has none, and no trial list)
        return TrialList(self.src, models, tests, self.values, np.arange(1, self.rows.size + 1), "trial", self.place)


def open_h5(src: _Source):
    """The HDF5 file `src` open for reading, or a LoadError saying it is not one or is damaged."""
    if src.data[:8] != HDF5_SIGNATURE:
        raise src.error("this is not an HDF5 file (it does not start with the HDF5 signature); a BOSARIS .h5 file is "
                        "written by the BOSARIS toolkit, SIDEKIT or PyBOSARIS. A text score file should not be "
                        "named .h5.")
    try:
        return h5py_module().File(io.BytesIO(src.data), "r")
    except Exception as exc:  # h5py raises OSError and others for damaged files
        raise src.error(f"the HDF5 file cannot be read ({exc}); is it complete?") from None


def _kind(f) -> str:
    """What a BOSARIS file holds: "scores", "key" or "ndx" (judged by its datasets)."""
    if "scores" in f or "score_mat" in f:
        return "scores"
    if any(name in f for name in ("tar_mask", *_OLD_KEY_MASKS)) or "file_format" in f:
        return "key"
    mask = f.get("trial_mask")
    if isinstance(mask, h5py_module().Dataset) and mask.dtype.kind in "if" and mask.size and (mask[()] < 0).any():
        return "key"
    return "ndx"


def _read_matrix(src: _Source, kind: str) -> _Matrix:
    """The trials of a Scores, Key or Ndx file (`kind`), checked."""
    with open_h5(src) as f:
        layout = _layout(src, f)
        models = _ids(src, f, layout.models, "model")
        tests = _ids(src, f, layout.tests, "test segment")
        checked = _Checked(src, f, layout, models, tests)
        if kind == "scores":
            values, mask, where = checked.scores()
        elif kind == "key":
            values, where = checked.key()
            mask = values != 0
        else:
            mask, where = checked.ndx()
            values = None
    rows, columns = np.nonzero(mask)
    if values is not None:
        values = values[rows, columns]
        if kind == "key":
            values = np.where(values > 0, TARGET, NONTARGET).astype(np.int8)
    return _Matrix(src, models, tests, rows, columns, values, where)


def _layout(src: _Source, f) -> Layout:
    """The layout whose id datasets the file has."""
    for layout in LAYOUTS.values():
        if layout.models in f or layout.tests in f:
            return layout
    pairs = "; ".join(f"'{lay.models}' and '{lay.tests}' ({lay.toolkit})" for lay in LAYOUTS.values())
    raise src.error(f"the model and test ids are missing: a BOSARIS .h5 file names its models and test segments in "
                    f"{pairs}. {_contents(f)}")


def _contents(f) -> str:
    names = []
    f.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py_module().Dataset) else None)
    shown = ", ".join(f"'{n}'" for n in names[:12]) + (", ..." if len(names) > 12 else "")
    return f"The file holds the datasets {shown}." if names else "The file holds no dataset."


def _dataset(src: _Source, f, name: str, needed: str):
    """The dataset `name`, or a LoadError saying it is missing (`needed`: what the file should then have)."""
    obj = f.get(name)
    if obj is None:
        raise src.error(f"the dataset '{name}' is missing: {needed}. {_contents(f)}")
    if not isinstance(obj, h5py_module().Dataset):
        raise src.error(f"'{name}' is a group of datasets, not a dataset: {needed}.")
    try:
        return obj, obj[()]
    except Exception as exc:
        raise src.error(f"the dataset '{name}' cannot be read ({type(exc).__name__}: {exc}).") from None


def _ids(src: _Source, f, name: str, what: str) -> np.ndarray:
    """The ids of the dataset `name` as an object array of str; LoadError for numbers, bad text, empty or twice."""
    dataset, values = _dataset(src, f, name, f"it lists the {what} ids")
    if h5py_module().check_string_dtype(dataset.dtype) is None:
        raise src.error(f"the dataset '{name}' holds {dataset.dtype} values, not text: the {what} ids must be "
                        "strings.")
    values = np.asarray(values, dtype=object)
    if values.ndim == 2 and 1 in values.shape:
        values = values.reshape(-1)
    if values.ndim != 1:
        raise src.error(f"the dataset '{name}' has the shape {values.shape}; the {what} ids are one list.")
    ids = np.empty(values.size, dtype=object)
    for i, value in enumerate(values):
        try:
            ids[i] = (value.decode("utf-8") if isinstance(value, bytes) else str(value)).strip()
        except UnicodeDecodeError:
            raise src.error(f"row {i + 1} of the dataset '{name}' is not UTF-8 text.") from None
        if not ids[i]:
            raise src.error(f"the {what} id in row {i + 1} of the dataset '{name}' is empty.")
    _refuse_twice(src, ids, name, what)
    return ids


def _refuse_twice(src: _Source, ids: np.ndarray, name: str, what: str) -> None:
    twice = pd.Index(ids).duplicated()
    if twice.any():
        second = int(np.argmax(twice))
        first = int(np.argmax(ids == ids[second]))
        raise src.error(f"the {what} id '{ids[second]}' appears twice in the dataset '{name}' (rows {first + 1} and "
                        f"{second + 1}); each {what} is listed once.")


class _Checked:
    """The matrices of one file, each checked against the shape its ids give."""

    def __init__(self, src: _Source, f, layout: Layout, models: np.ndarray, tests: np.ndarray):
        self.src, self.f, self.layout, self.models, self.tests = src, f, layout, models, tests
        self.shape = (len(models), len(tests))

    def matrix(self, name: str, needed: str, allowed: tuple[int, ...] | None) -> np.ndarray:
        """The 2-d dataset `name` of the ids' shape; with `allowed`, only those values."""
        dataset, values = _dataset(self.src, self.f, name, needed)
        if dataset.dtype.kind not in "biuf":
            raise self.src.error(f"the dataset '{name}' holds {dataset.dtype} values, not numbers.")
        values = np.asarray(values)
        if values.shape != self.shape:
            raise self.src.error(self._shape_sentence(name, values.shape))
        if allowed is not None:
            bad = ~np.isin(values, allowed)
            if bad.any():
                r, c = (int(k) for k in np.argwhere(bad)[0])
                meaning = ("1 (target), -1 (non-target) or 0 (no trial)" if -1 in allowed
                           else "0 (no trial) or 1 (a trial)")
                raise self.src.error(f"the dataset '{name}' holds {values[r, c].item()!r} at row {r + 1}, column "
                                     f"{c + 1}; a mask holds {meaning}.")
        return values

    def _shape_sentence(self, name: str, shape: tuple) -> str:
        (m, n), lay = self.shape, self.layout
        found = f"{shape[0]:,} rows and {shape[1]:,} columns" if len(shape) == 2 else \
            f"{len(shape)} dimension{'s' if len(shape) != 1 else ''} {tuple(shape)}"
        hint = " It is transposed (test segments x models)." if len(shape) == 2 and shape == (n, m) and m != n else ""
        return (f"the dataset '{name}' has {found}, but '{lay.models}' lists {m:,} models and '{lay.tests}' {n:,} "
                f"test segments: it needs {m:,} rows (one per model) and {n:,} columns (one per test segment).{hint}")

    def scores(self) -> tuple[np.ndarray, np.ndarray, str]:
        """The score matrix, the score mask and the dataset the positions refer to."""
        lay, f = self.layout, self.f
        name = next((n for n in ("scores", "score_mat") if n in f), lay.scores)
        masked = lay.score_mask is not None or "score_mask" in f
        needed = (f"a BOSARIS Scores file with its ids in '{lay.models}' and '{lay.tests}' has the matrices "
                  f"'{lay.scores}'" + (" and 'score_mask'" if masked else ""))
        scores = self.matrix(name, needed, None).astype(np.float64)
        mask = self.matrix("score_mask", needed, (0, 1)).astype(bool) if masked else np.ones(self.shape, bool)
        nan = np.isnan(scores) & mask
        if nan.any():
            r, c = (int(k) for k in np.argwhere(nan)[0])
            marked = "'score_mask' marks it as a trial" if masked else \
                "without a 'score_mask' every entry is a trial"
            raise self.src.error(f"the score at row {r + 1}, column {c + 1} of the dataset '{name}' (model "
                                 f"'{self.models[r]}', test '{self.tests[c]}') is NaN (not a number), yet {marked}; "
                                 f"{_count(int(nan.sum()), 'trial has', 'trials have')} no number.")
        self.refuse_empty(mask, "the dataset 'score_mask'")
        return scores, mask, f"the dataset '{name}'"

    def refuse_empty(self, mask: np.ndarray, where: str) -> None:
        """A LoadError when `mask` marks no trial."""
        if mask.size == 0:
            (m, n), lay = self.shape, self.layout
            raise self.src.error(f"there are no trials: '{lay.models}' lists {_count(m, 'model')} and '{lay.tests}' "
                                 f"{_count(n, 'test segment')}.")
        if not mask.any():
            raise self.src.error(f"there are no trials: every entry of {where} is 0.")

    def key(self) -> tuple[np.ndarray, str]:
        """The key as one matrix of 1 (target), -1 (non-target), 0 (no trial), and where positions refer to."""
        f = self.f
        pair = next((p for p in (("tar_mask", "non_mask"), _OLD_KEY_MASKS) if p[0] in f or p[1] in f), None)
        if pair is None:
            needed = ("a BOSARIS Key file has a 'trial_mask' (1 target, -1 non-target, 0 no trial), or "
                      "'tar_mask' and 'non_mask' (PyBOSARIS)")
            trial_mask = self.matrix("trial_mask", needed, (-1, 0, 1)).astype(np.int8)
            self.refuse_empty(trial_mask, "the dataset 'trial_mask'")
            if not (trial_mask < 0).any():
                raise self.src.error("the dataset 'trial_mask' holds no -1 (non-target trial): this is an Ndx, a list "
                                     "of trials without labels, or a Key without non-target trials; a key needs both.")
            return trial_mask, "the dataset 'trial_mask'"
        needed = f"a BOSARIS Key file with a '{pair[0]}' also has a '{pair[1]}'"
        tar, non = (self.matrix(name, needed, (0, 1)).astype(bool) for name in pair)
        self.refuse_empty(tar | non, f"'{pair[0]}' and '{pair[1]}'")
        both = tar & non
        if both.any():
            r, c = (int(k) for k in np.argwhere(both)[0])
            raise self.src.error(f"row {r + 1}, column {c + 1} is marked both in '{pair[0]}' and in '{pair[1]}': a "
                                 "trial is either a target or a non-target trial.")
        return tar.astype(np.int8) - non.astype(np.int8), f"the datasets '{pair[0]}' and '{pair[1]}'"

    def ndx(self) -> tuple[np.ndarray, str]:
        """The trial mask of an Ndx (or of a Key: its trials of either class)."""
        if "trial_mask" not in self.f and any(n in self.f for n in ("tar_mask", *_OLD_KEY_MASKS)):
            key, where = self.key()
            return key != 0, where
        needed = "a BOSARIS Ndx file has a 'trial_mask' (1 for a trial)"
        mask = self.matrix("trial_mask", needed, (-1, 0, 1)) != 0
        self.refuse_empty(mask, "the dataset 'trial_mask'")
        return mask, "the dataset 'trial_mask'"


def _count(n: int, one: str, several: str | None = None) -> str:
    """``1 model``, ``3 models``; ``1 trial has``, ``2 trials have`` with `several` given."""
    return f"{n:,} {one if n == 1 else several or one + 's'}"
