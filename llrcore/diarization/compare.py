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
from typing import Any

import numpy as np
import pandas as pd

from ..data.similarity import SimilarityMatrix
from .block_prior import score_kind
from .result import ClusteringResult
from .scoring import diarization_error_rate, segment_scores, segments_to_turns

__all__ = ["Advice", "MethodComparison", "compare_methods", "method_to_trust", "COMPARISON_COLUMNS"]

#: The columns of :meth:`MethodComparison.to_frame`, after ``method``; rates are fractions, ``seconds`` wall time.
COMPARISON_COLUMNS = ("speakers", "DER", "missed", "false alarm", "confusion", "segment error", "purity",
                      "coverage", "seconds")


@dataclass(frozen=True)
class MethodComparison:
    """One row per method (see :func:`compare_methods`), and the scoring settings of the DER."""

    rows: tuple
    collar: float
    skip_overlap: bool
    convention: str = "md-eval"

    def to_frame(self) -> pd.DataFrame:
        """Columns ``method`` and :data:`COMPARISON_COLUMNS`; NaN where a value does not apply."""
        return pd.DataFrame(list(self.rows), columns=["method", *COMPARISON_COLUMNS])


def _row(name: str, matrix: SimilarityMatrix, output, scoring: dict) -> dict:
    row: dict[str, Any] = dict.fromkeys(COMPARISON_COLUMNS, np.nan)
    row["method"] = name
    turns: pd.DataFrame | None
    if isinstance(output, pd.DataFrame):  # a full system's turns: no segment labels
        labels, turns = None, output
        row["speakers"] = float(output["speaker"].nunique())
    else:
        labels = output.labels if isinstance(output, ClusteringResult) else np.asarray(output)
        turns = segments_to_turns(matrix.start, matrix.end, labels, uri=matrix.uri) \
            if matrix.start is not None and matrix.end is not None else None  # (has_times)
        row["speakers"] = float(np.unique(labels).size)
        if isinstance(output, ClusteringResult):
            row["speakers"], row["seconds"] = float(output.n_clusters), output.seconds
    if turns is not None and matrix.reference_turns is not None:
        der = diarization_error_rate(matrix.reference_turns, turns, **scoring)
        row.update({"DER": der.der, "missed": der.missed / der.total, "false alarm": der.false_alarm / der.total,
                    "confusion": der.confusion / der.total})
    if labels is not None and matrix.reference is not None:
        segment = segment_scores(labels, matrix.reference)
        row.update({"segment error": segment.error, "purity": segment.purity, "coverage": segment.coverage})
    return row


def compare_methods(matrix: SimilarityMatrix, outputs: Mapping, *, collar: float = 0.25,
                    skip_overlap: bool = True, convention: str = "md-eval") -> MethodComparison:
    """Score several diarizations of `matrix` against its reference, one row per entry of `outputs`.

    Parameters
    ----------
    matrix : SimilarityMatrix
        With segment times and reference turns for the DER; with reference labels for the segment scores.
    outputs : Mapping[str, ClusteringResult | array_like | pandas.DataFrame]
        ``method name -> output``: a clustering result, the segment labels of any clustering, or speaker turns
        (columns ``uri, start, end, speaker``) of a full system.
    collar, skip_overlap, convention
        Of the DER (:func:`~llrcore.diarization.scoring.diarization_error_rate`: seconds on each side of a
        reference boundary, md-eval convention; overlapped speech left out; md-eval's DER, or pyannote.metrics').

    Returns
    -------
    MethodComparison
        ``.to_frame()``: method, speakers, DER, missed, false alarm and confusion (shares of the scored reference
        speech), segment error, purity and coverage (segment level, best one-to-one mapping), seconds.
    """
    scoring = dict(collar=collar, skip_overlap=skip_overlap, convention=convention)
    rows = tuple(_row(str(name), matrix, output, scoring) for name, output in outputs.items())
    return MethodComparison(rows, float(collar), bool(skip_overlap), convention)


@dataclass(frozen=True)
class Advice:
    """Which method's answer to trust on a recording (``method``: a row name of the comparison, or a key of
    :data:`~llrcore.diarization.cluster.METHODS` through `names`) and why, in one sentence (``reason``)."""

    method: str
    reason: str


#: Without a reference, the method with the lowest mean DER on the development corpus (tests/data/diarization_corpus,
#: bench/RESULTS.md) for each kind of score: Resemblyzer cosines and two-covariance PLDA LLRs. On the cosines it is a
#: near tie since the Bayesian default keeps NME-SC's count as its floor (NME-SC 13.00 %, the Bayesian model 13.04 %;
#: it was 20.2 % alone). The held-out corpus (tests/data/diarization_heldout: other seeds, voices and PLDA parameters),
#: measured once with each default: NME-SC 13.7 % against the Bayesian model's 12.3 % on its cosines (17.5 % without
#: the floor), the Bayesian model 8.4 % against NME-SC's 11.2 % on its PLDA LLRs; the choice was not changed on it.
CORPUS_BEST = {"cosine": "nme-sc", "llr": "bayes"}


def looks_like_cosines(scores) -> bool:
    """Whether every score lies in [-1, 1] (to :data:`~llrcore.diarization.block_prior.COSINE_SLACK`): cosine
    similarities, not LLRs (:func:`~llrcore.diarization.block_prior.score_kind`)."""
    return score_kind(scores) == "cosine"


def _measured(frame: pd.DataFrame) -> Advice | None:
    """The clustering with the lowest DER (ties: the lower segment error), else the lowest segment error; None
    when nothing was scored."""
    for column, tie_break in (("DER", "segment error"), ("segment error", "DER")):
        scored = frame.dropna(subset=[column]).sort_values([column, tie_break], kind="stable")
        if not len(scored):
            continue
        best, value = scored.iloc[0], scored.iloc[0][column]
        tied = [str(m) for m in scored.loc[scored[column] == value, "method"] if m != best.method]
        others = ", ".join(f"{row.method} {100 * row[column]:.1f} %" for _, row in scored.iloc[1:].iterrows())
        reason = f"It has the lowest {column} on this recording against its reference: {100 * value:.1f} %"
        if tied:
            reason += (f", shared with {', '.join(tied)}; of those, its {tie_break} is the lowest "
                       f"({100 * best[tie_break]:.1f} %)")
        return Advice(str(best.method), reason + (f" ({others})." if others else "."))
    return None


def method_to_trust(scores, comparison: MethodComparison, *, names: Mapping | None = None) -> Advice:
    """The method whose answer to trust on this recording, and why.

    With a reference, the measured answer: the method with the lowest DER in `comparison` (a tie goes to the lower
    segment error), else the lowest segment error; a full system's RTTM in the table (no segment labels, no time) is
    left out, it is not a method of this page. Without one, the development corpus's: NME-SC had the lowest mean
    DER on its cosine similarities (the Bayesian model merges voices the embedder holds close) and the Bayesian
    model on its PLDA LLRs (:data:`CORPUS_BEST`; :func:`looks_like_cosines` tells them apart).

    Parameters
    ----------
    scores : array_like (N, N)
    comparison : MethodComparison
        Of the methods run on `scores` (:func:`compare_methods`).
    names : Mapping, optional
        Method key (``"nme-sc"``) -> the name shown for it, for the advice without a reference.

    Returns
    -------
    Advice
        ``method`` (a row of `comparison`, or the shown name of a method key) and ``reason``, one sentence.
    """
    frame = comparison.to_frame()
    measured = _measured(frame[frame["segment error"].notna() | frame["seconds"].notna()])
    if measured is not None:
        return measured
    kind = score_kind(scores)
    method = CORPUS_BEST[kind]
    described = "cosine similarities (every score in [-1, 1])" if kind == "cosine" else "LLRs (scores beyond [-1, 1])"
    caveat = (" The Bayesian model merges voices the embedder holds close, and finds too few speakers when there are "
              "many." if kind == "cosine" else "")
    return Advice(str((names or {}).get(method, method)),
                  f"No reference to measure against. These look like {described}: on the development corpus "
                  f"(synthetic recordings, docs/diarization.md) it had the lowest mean DER on such scores.{caveat}")
