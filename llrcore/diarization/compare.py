"""Several diarizations of one recording side by side: speakers found, DER and its parts, segment error, purity,
coverage and time, one row per method, as the Diarization page and the benchmark show them.

A method's output may be a :class:`~llrcore.diarization.result.ClusteringResult`, plain segment labels (any other
clustering of the same segments) or speaker turns (the RTTM of a full system such as VBx, which has no segment
labels). What cannot be scored for an output (the DER without segment times or reference turns, segment scores
without segment labels) is NaN.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.similarity import SimilarityMatrix
from .result import ClusteringResult
from .scoring import diarization_error_rate, segment_scores, segments_to_turns

__all__ = ["MethodComparison", "compare_methods", "COMPARISON_COLUMNS"]

#: The columns of :meth:`MethodComparison.to_frame`, after ``method``; rates are fractions, ``seconds`` wall time.
COMPARISON_COLUMNS = ("speakers", "DER", "missed", "false alarm", "confusion", "segment error", "purity",
                      "coverage", "seconds")


@dataclass(frozen=True)
class MethodComparison:
    """One row per method (see :func:`compare_methods`), and the scoring settings of the DER."""

    rows: tuple
    collar: float
    skip_overlap: bool

    def to_frame(self) -> pd.DataFrame:
        """Columns ``method`` and :data:`COMPARISON_COLUMNS`; NaN where a value does not apply."""
        return pd.DataFrame(list(self.rows), columns=["method", *COMPARISON_COLUMNS])


def _row(name: str, matrix: SimilarityMatrix, output, collar: float, skip_overlap: bool) -> dict:
    row = dict.fromkeys(COMPARISON_COLUMNS, np.nan)
    row["method"] = name
    if isinstance(output, pd.DataFrame):  # a full system's turns: no segment labels
        labels, turns = None, output
        row["speakers"] = float(output["speaker"].nunique())
    else:
        labels = output.labels if isinstance(output, ClusteringResult) else np.asarray(output)
        turns = segments_to_turns(matrix.start, matrix.end, labels, uri=matrix.uri) if matrix.has_times else None
        row["speakers"] = float(np.unique(labels).size)
        if isinstance(output, ClusteringResult):
            row["speakers"], row["seconds"] = float(output.n_clusters), output.seconds
    if turns is not None and matrix.reference_turns is not None:
        der = diarization_error_rate(matrix.reference_turns, turns, collar=collar, skip_overlap=skip_overlap)
        row.update({"DER": der.der, "missed": der.missed / der.total, "false alarm": der.false_alarm / der.total,
                    "confusion": der.confusion / der.total})
    if labels is not None and matrix.reference is not None:
        segment = segment_scores(labels, matrix.reference)
        row.update({"segment error": segment.error, "purity": segment.purity, "coverage": segment.coverage})
    return row


def compare_methods(matrix: SimilarityMatrix, outputs: Mapping, *, collar: float = 0.25,
                    skip_overlap: bool = True) -> MethodComparison:
    """Score several diarizations of `matrix` against its reference, one row per entry of `outputs`.

    Parameters
    ----------
    matrix : SimilarityMatrix
        With segment times and reference turns for the DER; with reference labels for the segment scores.
    outputs : Mapping[str, ClusteringResult | array_like | pandas.DataFrame]
        ``method name -> output``: a clustering result, the segment labels of any clustering, or speaker turns
        (columns ``uri, start, end, speaker``) of a full system.
    collar, skip_overlap
        Of the DER (:func:`~llrcore.diarization.scoring.diarization_error_rate`: seconds on each side of a
        reference boundary, md-eval convention; overlapped speech left out).

    Returns
    -------
    MethodComparison
        ``.to_frame()``: method, speakers, DER, missed, false alarm and confusion (shares of the scored reference
        speech), segment error, purity and coverage (segment level, best one-to-one mapping), seconds.
    """
    rows = tuple(_row(str(name), matrix, output, collar, skip_overlap) for name, output in outputs.items())
    return MethodComparison(rows, float(collar), bool(skip_overlap))
