"""Write BOSARIS Scores, Key and Ndx ``.h5`` files (the layouts of :mod:`llrcore.io.bosaris_h5`), and rewrite the
scores of one with a transform (a calibration) for :func:`llrcore.io.rescore_file`."""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.trials import Trials
from ._source import Destination, _Source
from .bosaris_h5 import LAYOUTS, Layout, h5py_module, open_h5

__all__ = ["rescore_h5", "write_bosaris_key", "write_bosaris_ndx", "write_bosaris_scores"]


def write_bosaris_scores(path: Destination, trials: Trials, layout: str = "bosaris") -> None:
    """Write the scores of `trials` as a BOSARIS Scores ``.h5`` file.

    Parameters
    ----------
    path : str, os.PathLike or binary file-like
        Where to write.
    trials : Trials
        Target and non-target trials whose ``metadata`` has the columns ``model`` and ``test`` (a Kaldi/BOSARIS
        score file read with its key has them); each (model, test) pair once.
    layout : {"bosaris", "sidekit", "pybosaris"}
        The dataset names (module documentation). "bosaris" (the MATLAB toolkit's, also read by SIDEKIT's
        ``read_matlab`` and hyperion): ``ID/row_ids``, ``ID/column_ids`` (fixed-length UTF-8 byte strings, sorted),
        ``scores`` (float64, models x test segments, 0 where no trial), ``score_mask`` (uint8). "pybosaris" has no
        mask, so it needs a score for every model and test segment.

    Returns
    -------
    None
        The file is written (replaced if it exists).

    Raises
    ------
    ValueError
        When the trials have no ``model``/``test`` ids, a pair twice, spoof trials, or (``"pybosaris"``) a missing
        pair; or an unknown `layout`.
    """
    grid, lay = _Grid.of(trials), _layout_named(layout)
    scores = np.zeros(grid.shape)
    scores[grid.rows, grid.columns] = grid.scores
    datasets = {lay.scores: scores}
    if lay.score_mask is None:
        grid.refuse_gaps(lay)
    else:
        datasets[lay.score_mask] = grid.mask().astype(lay.mask_dtype)
    _write(path, grid, lay, datasets, "Scores")


def write_bosaris_key(path: Destination, trials: Trials, layout: str = "bosaris") -> None:
    """Write which trials of `trials` are target trials as a BOSARIS Key ``.h5`` file.

    The datasets: ``trial_mask`` (int8: 1 target, -1 non-target, 0 no trial) and ``file_format`` "2.0" in the
    "bosaris" layout, ``trial_mask`` in "sidekit", ``tar_mask`` and ``non_mask`` (bool) in "pybosaris"; ids as
    :func:`write_bosaris_scores`.

    Parameters
    ----------
    path, trials, layout
        As :func:`write_bosaris_scores`: where to write, the trials (with ``model`` and ``test`` ids), the dataset
        names; the scores are not written, only which trials are target trials.

    Returns
    -------
    None
        The Key file is written (replaced if it exists).

    Raises
    ------
    ValueError
        As :func:`write_bosaris_scores`.
    """
    grid, lay = _Grid.of(trials), _layout_named(layout)
    tar = np.zeros(grid.shape, bool)
    tar[grid.rows[:trials.tar.size], grid.columns[:trials.tar.size]] = True
    non = grid.mask() & ~tar
    datasets: dict[str, np.ndarray | np.bytes_]
    if len(lay.key_masks) == 2:
        datasets = dict(zip(lay.key_masks, (tar, non)))
    else:
        datasets = {"trial_mask": tar.astype(np.int8) - non.astype(np.int8)}
        if layout == "bosaris":
            datasets["file_format"] = np.bytes_(b"2.0")
    _write(path, grid, lay, datasets, "Key")


def write_bosaris_ndx(path: Destination, trials: Trials, layout: str = "bosaris") -> None:
    """Write the list of trials (without scores or labels) of `trials` as a BOSARIS Ndx ``.h5`` file.

    The dataset ``trial_mask`` (uint8 in "bosaris", int8 in "sidekit", bool in "pybosaris") with the ids as
    :func:`write_bosaris_scores`.

    Parameters
    ----------
    path, trials, layout
        As :func:`write_bosaris_scores`; only the (model, test) pairs of the trials are written, target and
        non-target alike.

    Returns
    -------
    None
        The Ndx file is written (replaced if it exists).

    Raises
    ------
    ValueError
        As :func:`write_bosaris_scores`.
    """
    grid, lay = _Grid.of(trials), _layout_named(layout)
    _write(path, grid, lay, {"trial_mask": grid.mask().astype(lay.mask_dtype)}, "Ndx")


def _layout_named(layout: str) -> Layout:
    if layout not in LAYOUTS:
        raise ValueError(f"Unknown BOSARIS layout {layout!r}: use one of {', '.join(LAYOUTS)}.")
    return LAYOUTS[layout]


def _write(path, grid: _Grid, lay: Layout, datasets: dict, kind: str) -> None:
    with h5py_module().File(path, "w") as f:
        for name, ids in ((lay.models, grid.models), (lay.tests, grid.tests)):
            f.create_dataset(name, data=np.array([i.encode("utf-8") for i in ids], dtype="S"))
        for name, values in datasets.items():
            f.create_dataset(name, data=values, **({"compression": "gzip"} if np.ndim(values) else {}))
        if lay.toolkit == "PyBOSARIS":
            f.attrs["type"], f.attrs["version"] = kind, "1.0"


@dataclass(frozen=True, eq=False)
class _Grid:
    """Trials placed in a models x test segments matrix: sorted ids, and each trial's row and column (targets
    first, then non-targets, as in the Trials)."""

    models: np.ndarray
    tests: np.ndarray
    rows: np.ndarray
    columns: np.ndarray
    scores: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.models), len(self.tests)

    def mask(self) -> np.ndarray:
        mask = np.zeros(self.shape, bool)
        mask[self.rows, self.columns] = True
        return mask

    @classmethod
    def of(cls, trials: Trials) -> _Grid:
        if not isinstance(trials, Trials):
            raise ValueError("A BOSARIS file holds one system: pass one Trials.")
        if trials.spoof.size:
            raise ValueError(f"A BOSARIS file holds target and non-target trials; these trials also have "
                             f"{trials.spoof.size:,} spoof trials.")
        meta = trials.metadata
        if "model" not in meta.columns or "test" not in meta.columns:
            raise ValueError("A BOSARIS file needs the model and test ids of each trial: the columns 'model' and "
                             "'test' of Trials.metadata (a Kaldi/BOSARIS score file read with its key has them).")
        ids = [cls._id_codes(meta[column], column) for column in ("model", "test")]
        (models, rows), (tests, columns) = ids
        pairs = pd.Index(rows * max(len(tests), 1) + columns)
        if pairs.has_duplicates:
            i = int(np.argmax(pairs.duplicated()))
            raise ValueError(f"The trial of model {models[rows[i]]!r} and test {tests[columns[i]]!r} appears twice; "
                             "a BOSARIS file has one entry per (model, test) pair.")
        return cls(models, tests, rows, columns, np.concatenate([trials.tar, trials.non]))

    @staticmethod
    def _id_codes(column: pd.Series, name: str) -> tuple[np.ndarray, np.ndarray]:
        if column.isna().any():
            raise ValueError(f"Trial {int(np.argmax(column.isna().to_numpy())) + 1} has no {name} id.")
        text = column.astype(str).str.strip().to_numpy(dtype=object)
        codes, ids = pd.factorize(text, sort=True)
        return np.asarray(ids, dtype=object), codes.astype(np.int64)

    def refuse_gaps(self, lay: Layout) -> None:
        missing = ~self.mask()
        if missing.any():
            r, c = (int(k) for k in np.argwhere(missing)[0])
            raise ValueError(f"The {lay.toolkit} layout has no score mask, so every model needs a score for every "
                             f"test segment; model {self.models[r]!r} has none for test {self.tests[c]!r} "
                             f"({int(missing.sum()):,} pairs are missing). Use layout='bosaris'.")


def rescore_h5(src: _Source, transform) -> bytes:
    """The bytes of the BOSARIS Scores ``.h5`` file `src` with every score marked as a trial replaced by
    ``transform(score)``; the ids, the mask, the other datasets and the attributes are kept (the toolkit's, SIDEKIT's
    and PyBOSARIS's layouts alike: ``scores`` or ``score_mat``, with ``score_mask`` when the file has one)."""
    open_h5(src).close()  # a sentence for a file that is not HDF5 or is damaged
    buffer = io.BytesIO(src.data)
    with h5py_module().File(buffer, "r+") as f:
        name = next((n for n in ("scores", "score_mat") if n in f), None)
        if name is None:
            raise src.error("this HDF5 file holds no scores (no dataset 'scores' or 'score_mat'): only a BOSARIS "
                            "Scores file can be calibrated, not a Key or an Ndx.")
        scores = f[name][()].astype(np.float64)
        mask = f["score_mask"][()].astype(bool) if "score_mask" in f else np.ones(scores.shape, bool)
        scores[mask] = transform(scores[mask])
        f[name][...] = scores
    return buffer.getvalue()
