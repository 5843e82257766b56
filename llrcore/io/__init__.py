"""Readers and writers for the file formats of the workbench; every problem is a :class:`LoadError`, and a part of a
file left out (trials of a score file that are not in its key) is a :class:`LoadWarning`.

- :mod:`~llrcore.io.trials` — binary trials: two-column, multi-system, BOSARIS/Kaldi, ASVspoof, Parquet, npz,
  BOSARIS HDF5
  (:func:`read_trials` detects the format; :mod:`~llrcore.io.kaldi` joins a score file with its key,
  :mod:`~llrcore.io.columnar` reads Parquet and npz, :mod:`~llrcore.io.labels` knows the label words, and
  :mod:`~llrcore.io.text` is the text-table parser every text reader shares, :mod:`~llrcore.io.fast` its pyarrow
  path for regular files; :mod:`~llrcore.io.metadata` keeps
  the other columns as ``Trials.metadata`` and joins a metadata table with the trials).
- :mod:`~llrcore.io.class_files` — same-source and different-source LRs in two files, one value per line
  (:func:`read_class_files`, natural-log or log10 LRs), the form forensic LR systems write.
- :mod:`~llrcore.io.bosaris_h5` — BOSARIS Scores, Key and Ndx ``.h5`` files (BOSARIS toolkit, SIDEKIT, PyBOSARIS):
  read, written, and joined into binary trials by :func:`read_trials` (format ``"bosaris-h5"``).
- :mod:`~llrcore.io.multiclass` — multiclass score matrices with labels: tables, npz/npy, Parquet.
- :mod:`~llrcore.io.diarization` — similarity matrices, Kaldi segments, per-segment labels, RTTM and UEM.
- :mod:`~llrcore.io.rescore` — a score file rewritten with new scores (e.g. calibrated), in its own format
  (:mod:`~llrcore.io.rescore_text` rewrites a text file's bytes with numpy, :mod:`~llrcore.io.significant` writes
  the new scores with the digits asked, a column at a time).
"""
from ._source import LoadError, LoadWarning
from .bosaris_h5 import read_bosaris_key, read_bosaris_ndx, read_bosaris_scores
from .class_files import read_class_files
from .bosaris_h5_write import write_bosaris_key, write_bosaris_ndx, write_bosaris_scores
from .diarization import (
    read_labels,
    read_rttm,
    read_segments,
    read_similarity,
    read_uem,
    rttm_text,
    similarity_keys,
    write_rttm,
)
from .multiclass import MULTICLASS_FORMATS, read_multiclass
from .rescore import rescore_file
from .trials import FORMATS, read_trials
from .writers import write_trials

__all__ = [
    "LoadError",
    "LoadWarning",
    "FORMATS",
    "read_trials",
    "read_class_files",
    "write_trials",
    "rescore_file",
    "read_bosaris_scores",
    "read_bosaris_key",
    "read_bosaris_ndx",
    "write_bosaris_scores",
    "write_bosaris_key",
    "write_bosaris_ndx",
    "MULTICLASS_FORMATS",
    "read_multiclass",
    "read_similarity",
    "similarity_keys",
    "read_segments",
    "read_labels",
    "read_rttm",
    "rttm_text",
    "write_rttm",
    "read_uem",
]
