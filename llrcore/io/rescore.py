"""Rewrite a score file with new scores, keeping everything else: what ``llrcore calibrate`` writes.

A text file keeps every line (comments, header, trial ids, labels, order) with only its score field replaced,
written in the file's own decimal mark and with the precision of the score it replaces (:func:`rescore_file`);
an llrcore ``.npz`` file keeps its arrays ``tar``, ``non`` and ``spoof``; a Parquet file keeps its columns and
rows. The score column is found as the reader finds it.
"""
from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np

from ..data.trials import Trials
from ._source import Source, _Source
from .bosaris_h5 import is_hdf5
from .bosaris_h5_write import rescore_h5
from .rescore_text import rewrite_text
from .text import SCORE_NAMES
from .trials import read_trials
from .writers import write_trials

__all__ = ["rescore_file"]


def _check_digits(digits) -> None:
    if digits is None or digits == "input":
        return
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 1:
        raise ValueError(f"digits is 'input' (as many significant digits as the score replaced), a number of "
                         f"significant digits of at least 1, or None (all the digits), not {digits!r}.")


def _rescore_npz(path, transform) -> bytes:
    """An llrcore ``.npz`` score file (arrays ``tar``, ``non``, optionally ``spoof``) with every array transformed."""
    trials = read_trials(path, format="npz")
    assert isinstance(trials, Trials)  # (an .npz file holds one system)
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
    named = [c for c in frame.columns if str(c).lower() in SCORE_NAMES]
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


def rescore_file(path: Source, transform: Callable[[np.ndarray], np.ndarray], *, digits: str | int | None = "input"
                 ) -> bytes:
    """The bytes of score file `path` with every score replaced by ``transform(score)``, in the file's format.

    `transform` maps an array of scores to an array of new scores, e.g. a fitted calibration's ``calibrator``.

    Text files keep every line (comments, header, ids, labels, order) and only their score field changes; ``.npz``
    score files keep their arrays ``tar``, ``non`` and ``spoof`` in order; Parquet files keep their columns; a BOSARIS
    Scores ``.h5`` keeps its ids, mask and other datasets (:func:`~llrcore.io.bosaris_h5_write.rescore_h5`). Labels
    are not needed in text and Parquet files.

    Parameters
    ----------
    path : str, os.PathLike or file-like
        The score file: text (Kaldi, BOSARIS, columns), ``.npz``, Parquet or a BOSARIS Scores ``.h5``, told apart by
        the name's suffix or the first bytes.
    transform : callable
        Array of scores -> array of new scores, in the same order.
    digits : "input", int or None
        Significant digits of each new score in a text file. ``"input"`` (default): as many as the score it
        replaces had, line by line, trailing zeros included (``-3.07561`` has 6, ``2.50`` has 3, the decimals of a
        zero count: ``0.000`` has 3), so a file written with 6 digits comes back with 6; an int: that many on every
        line; None: all the digits of the float (``repr``, which reads back exactly). Either way a new score gets
        more digits where fewer would make two different new scores equal or swap their order (all of them past
        15 significant digits), so the file ranks the trials exactly as the new scores do: the EER, minimum DCF
        and DET of the file are those of the new scores. A score written with an exponent (``1.5e-3``) is
        replaced by one with an exponent. ``.npz`` and Parquet files always hold the full float64 values.

    Returns
    -------
    bytes
        The whole rescored file, in the input's format (to write to disk or offer as a download).

    Raises
    ------
    LoadError
        When the file cannot be read or its score column cannot be told apart.
    ValueError
        When `digits` is none of the above.
    """
    _check_digits(digits)
    src = _Source.open(path)
    if src.suffix == ".npz" or src.data[:4] == b"PK\x03\x04":
        return _rescore_npz(path, transform)
    if src.suffix == ".parquet" or src.data[:4] == b"PAR1":
        return _rescore_parquet(src, transform)
    if is_hdf5(src):
        return rescore_h5(src, transform)
    return rewrite_text(src, transform, digits)
