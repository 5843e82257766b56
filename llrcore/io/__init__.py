"""Readers and writers for the file formats of the workbench; every problem is a :class:`LoadError`.

- :mod:`~llrcore.io.trials` — binary trials: two-column, multi-system, BOSARIS/Kaldi, ASVspoof, Parquet, npz.
"""
from ._source import LoadError
from .trials import FORMATS, read_trials, write_trials
from .multiclass import MULTICLASS_FORMATS, read_multiclass
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

__all__ = ["LoadError", "read_trials", "write_trials", "FORMATS"]
