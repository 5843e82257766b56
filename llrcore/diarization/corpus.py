"""Several recordings at once: cluster every similarity matrix of a corpus and score the lot, per recording and
overall, with DER and its parts, JER, purity and coverage.

Every number is computed on the same annotations, with an explicit UEM per recording, in one of two conventions
(``convention``, :data:`~llrcore.diarization.scoring.CONVENTIONS`): ``"md-eval"`` (default) gives md-eval's DER and
dscore's JER, ``"pyannote"`` pyannote.metrics' DER and JER.

- DER with its parts, missed speech, false alarm and speaker confusion, in seconds and in percent of the scored
  reference speech (:func:`~llrcore.diarization.scoring.der_components`: md-eval merges each speaker's own
  overlapping turns, pyannote.metrics counts each);
- JER (the DIHARD II definition): for each reference speaker ``(FA + MISS) / TOTAL`` over the union of its speech
  and that of the system speaker paired with it (1 when none is), averaged over the reference speakers. md-eval
  convention: dscore's (:func:`~llrcore.diarization.jer.jer_components`: 10 ms frames of the whole UEM, no collar,
  overlap scored, the pairing that minimises the JERs); pyannote convention: ``JaccardErrorRate`` (collar and
  overlap as for the DER, the speakers paired as for the DER, most time in common);
- purity and coverage (``DiarizationPurity``, ``DiarizationCoverage``, time-weighted): the share of the hypothesis
  (reference) speech in the largest reference speaker (system cluster) of each cluster (speaker). pyannote.metrics
  (4.x) computes these two on the whole annotations, without UEM, collar or overlap removal: hypothesis speech in a
  pause of the reference (a window bridging it) counts as impure even where the DER's collar forgives it.

The TOTAL row accumulates the components over recordings as pyannote.metrics' ``report()`` does (seconds and
speaker counts summed, then divided), never a mean of percentages: a long recording weighs more in the DER, a
recording with more speakers more in the JER. The collar is given the md-eval/dscore way (seconds on each side of a
reference boundary); pyannote.metrics receives ``2 * collar``. :meth:`CorpusScores.by_speakers` pools the
recordings that have the same number of reference speakers.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data.similarity import TURN_COLUMNS, SimilarityMatrix
from .block_prior import BlockModelPrior, labelled_pair_moments
from .cluster import cluster_similarity
from .jer import jer_components
from .result import ClusteringResult
from .scoring import (as_pyannote, check_convention, check_turns, der_components, pyannote_components, recording_tables,
                      segments_to_turns)

__all__ = ["CorpusScores", "score_corpus", "cluster_recordings", "CORPUS_COLUMNS", "TOTAL"]

#: The columns of :meth:`CorpusScores.to_frame` (index ``uri``): counts, seconds and percentages.
CORPUS_COLUMNS = ("speakers", "found", "speech (s)", "DER %", "missed (s)", "missed %", "false alarm (s)",
                  "false alarm %", "confusion (s)", "confusion %", "JER %", "purity %", "coverage %")
#: The name of the row that accumulates every recording.
TOTAL = "TOTAL"
_COMPONENTS = ("speakers", "found", "speech", "missed", "false_alarm", "confusion", "jer_error", "jer_speakers",
               "purity_correct", "purity_total", "coverage_correct", "coverage_total")


def _percent(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else float("nan")


@dataclass(frozen=True)
class CorpusScores:
    """The scoring components of every recording (see :func:`score_corpus`) and the scoring settings.

    Attributes
    ----------
    components : pandas.DataFrame
        One row per recording (index ``uri``): ``speakers`` and ``found`` (reference and hypothesis speakers),
        ``speech``, ``missed``, ``false_alarm``, ``confusion`` (seconds of the DER), ``jer_error`` (sum of the
        per-speaker JERs) and ``jer_speakers``, ``purity_correct``/``purity_total`` and
        ``coverage_correct``/``coverage_total`` (seconds).
    collar : float
        Seconds on each side of each reference boundary not scored (md-eval convention).
    skip_overlap : bool
        Whether regions where reference speakers overlap were left out.
    convention : {"md-eval", "pyannote"}
        md-eval's DER and dscore's JER, or pyannote.metrics' (module docstring).
    """

    components: pd.DataFrame
    collar: float
    skip_overlap: bool
    convention: str = "md-eval"

    @property
    def total(self) -> pd.Series:
        """The components summed over recordings (what pyannote.metrics accumulates)."""
        return self.components.sum()

    @property
    def der(self) -> float:
        """The overall DER as a fraction: all errors over all scored speech."""
        t = self.total
        return _percent(t["missed"] + t["false_alarm"] + t["confusion"], t["speech"]) / 100.0

    @property
    def jer(self) -> float:
        """The overall JER as a fraction: the mean over every reference speaker of every recording."""
        t = self.total
        return float(t["jer_error"] / t["jer_speakers"]) if t["jer_speakers"] > 0 else 1.0

    @property
    def right_counts(self) -> int:
        """How many recordings have as many speakers found as the reference has."""
        rows = self.components
        return int((rows["found"] == rows["speakers"]).sum())

    @property
    def count_error(self) -> int:
        """The speaker-count error over the corpus: ``sum_r |found_r - speakers_r|`` over the recordings (one speaker
        too many in one recording and one too few in another make 2, where the totals differ by 0)."""
        rows = self.components
        return int((rows["found"] - rows["speakers"]).abs().sum())

    def by_speakers(self) -> pd.DataFrame:
        """The recordings grouped by their number of reference speakers, each group pooled as the TOTAL row is.

        Returns
        -------
        pandas.DataFrame
            Index ``reference speakers`` (ascending); columns ``recordings``, ``speech (s)``, ``DER %`` (the group's
            errors over its scored speech) and ``JER %`` (the mean over the group's reference speakers).
        """
        groups = self.components.groupby(self.components["speakers"].astype(int))
        sums = groups.sum()
        errors = sums["missed"] + sums["false_alarm"] + sums["confusion"]
        frame = pd.DataFrame({
            "recordings": groups.size(),
            "speech (s)": sums["speech"],
            "DER %": [_percent(e, s) for e, s in zip(errors, sums["speech"])],
            "JER %": [_percent(e, n) if n > 0 else 100.0 for e, n in zip(sums["jer_error"], sums["jer_speakers"])],
        })
        frame.index.name = "reference speakers"
        return frame

    def to_frame(self, total: bool = True) -> pd.DataFrame:
        """:data:`CORPUS_COLUMNS`, one row per recording (index ``uri``) and, with `total`, the row ``TOTAL``."""
        rows = self.components.copy()
        if total:
            rows.loc[TOTAL] = self.total
        frame = pd.DataFrame(index=rows.index)
        frame.index.name = "uri"
        frame["speakers"] = rows["speakers"].astype(int)
        frame["found"] = rows["found"].astype(int)
        frame["speech (s)"] = rows["speech"]
        errors = rows["missed"] + rows["false_alarm"] + rows["confusion"]
        frame["DER %"] = [_percent(e, s) for e, s in zip(errors, rows["speech"])]
        for name, column in (("missed", "missed"), ("false alarm", "false_alarm"), ("confusion", "confusion")):
            frame[f"{name} (s)"] = rows[column]
            frame[f"{name} %"] = [_percent(p, s) for p, s in zip(rows[column], rows["speech"])]
        frame["JER %"] = [_percent(e, n) if n > 0 else 100.0 for e, n in zip(rows["jer_error"], rows["jer_speakers"])]
        frame["purity %"] = [_percent(c, t) for c, t in zip(rows["purity_correct"], rows["purity_total"])]
        frame["coverage %"] = [_percent(c, t) for c, t in zip(rows["coverage_correct"], rows["coverage_total"])]
        return frame


def _turn_table(turns) -> pd.DataFrame:
    """One table of turns from a table, a mapping ``uri -> table``, or tables / similarity matrices (their
    reference turns)."""
    if isinstance(turns, pd.DataFrame):
        return turns
    items = turns.values() if isinstance(turns, Mapping) else turns
    tables = []
    for item in items:
        if isinstance(item, SimilarityMatrix):
            if item.reference_turns is None:
                raise ValueError(f"The recording {item.uri!r} has no reference turns (an RTTM) to score against.")
            item = item.reference_turns
        tables.append(item)
    if not tables:
        raise ValueError("There are no recordings to score.")
    return pd.concat(tables, ignore_index=True)


def score_corpus(references: pd.DataFrame | Mapping[str, pd.DataFrame] | Iterable[pd.DataFrame | SimilarityMatrix],
                 hypotheses: pd.DataFrame | Mapping[str, pd.DataFrame] | Iterable[pd.DataFrame], *,
                 uems: pd.DataFrame | None = None, collar: float = 0.25, skip_overlap: bool = True,
                 convention: str = "md-eval") -> CorpusScores:
    """DER with its parts, JER, purity and coverage of every recording of a corpus, and of the corpus.

    Parameters
    ----------
    references, hypotheses : pandas.DataFrame, Mapping or iterable
        Speaker turns (columns ``uri, start, end, speaker``, as :func:`~llrcore.read_rttm` and
        :func:`cluster_recordings` return them), several recordings mixed by ``uri``; or a mapping / list of such
        tables; references may also be the :class:`~llrcore.SimilarityMatrix` of each recording (its reference
        turns). Every reference recording is scored; one missing from the hypotheses is all missed speech.
    uems : pandas.DataFrame, optional
        Scored regions (columns ``uri, start, end``, :func:`~llrcore.read_uem`). Without one, each recording is
        scored from the earliest to the latest turn of reference and hypothesis together.
    collar : float
        Seconds removed on EACH side of every reference boundary (md-eval ``-c``, dscore ``--collar``).
    skip_overlap : bool
        Leave out regions where reference speakers overlap (md-eval ``-1``, dscore ``--ignore_overlaps``).
    convention : {"md-eval", "pyannote"}
        md-eval's DER (each speaker's own overlapping turns merged) and dscore's JER, or pyannote.metrics' DER and
        JER (module docstring).

    Returns
    -------
    CorpusScores
        ``.to_frame()``: one row per recording and a ``TOTAL`` row, columns :data:`CORPUS_COLUMNS`; ``.der`` and
        ``.jer`` the overall rates as fractions.
    """
    from pyannote.metrics.diarization import DiarizationCoverage, DiarizationPurity, JaccardErrorRate

    if collar < 0:
        raise ValueError(f"The collar must be zero or positive, not {collar}.")
    check_convention(convention)
    reference, hypothesis = _turn_table(references), _turn_table(hypotheses)
    check_turns(reference, "reference")
    check_turns(hypothesis, "hypothesis")
    settings = dict(collar=2.0 * collar, skip_overlap=skip_overlap)
    purity, coverage = DiarizationPurity(**settings), DiarizationCoverage(**settings)

    def jaccard(r, h, u):
        if convention == "md-eval":
            return jer_components(r, h, u)
        parts = JaccardErrorRate(**settings)(r, h, uem=u, detailed=True)
        return parts["speaker error"], parts["speaker count"]

    rows = {}
    for uri, *tables in recording_tables(reference, hypothesis, uems):
        r, h, u = as_pyannote(uri, *tables)  # built once, for pyannote's DER too
        d = (pyannote_components(r, h, u, collar=collar, skip_overlap=skip_overlap) if convention == "pyannote" else
             der_components(*tables, collar=collar, skip_overlap=skip_overlap, convention=convention, uri=uri))
        p = purity(r, h, uem=u, detailed=True)
        c = coverage(r, h, uem=u, detailed=True)
        rows[uri] = dict(zip(_COMPONENTS, (
            len(r.labels()), len(h.labels()), d["total"], d["missed"], d["false_alarm"], d["confusion"],
            *jaccard(r, h, u), p["correct"], p["total"], c["correct"], c["total"])))
    components = pd.DataFrame.from_dict(rows, orient="index", columns=list(_COMPONENTS)).astype(float)
    components.index.name = "uri"
    return CorpusScores(components, float(collar), bool(skip_overlap), convention)


def cluster_recordings(matrices: Iterable[SimilarityMatrix], method: str = "bayes", *,
                       prior_from_others: bool = False,
                       progress: Callable[[int, int, str], None] | None = None,
                       on_result: Callable[[str, ClusteringResult], None] | None = None,
                       **options: Any) -> pd.DataFrame:
    """Cluster every similarity matrix of a corpus and return the hypotheses as speaker turns.

    Parameters
    ----------
    matrices : iterable of SimilarityMatrix
        With segment times (the turns need them); recording names (``uri``) must differ.
    method : {"bayes", "ahc", "spectral", "nme-sc"}
        As :func:`~llrcore.cluster_similarity`; `options` (``n_clusters``, ``max_clusters``, ``prior``, ...) go to
        it.
    prior_from_others : bool
        Bayes: cluster each recording with the score model learnt from the references of all the others
        (:meth:`~llrcore.diarization.BlockModelPrior.from_recordings`, leave one out): what a model learnt from
        labelled recordings does on a recording it has not seen. Every recording needs a reference.
    progress : callable, optional
        Called as ``progress(done, total, uri)`` after each recording.
    on_result : callable, optional
        Called as ``on_result(uri, result)`` with each recording's :class:`ClusteringResult` (e.g. to read how sure
        its count is, ``result.options["count_sure"]``).

    Returns
    -------
    pandas.DataFrame
        Columns ``uri, channel, start, end, speaker``, the recordings one after the other (windows split at the
        middle of their overlaps, :func:`~llrcore.segments_to_turns`); :func:`~llrcore.write_rttm` writes it.
    """
    matrices = list(matrices)
    uris = [m.uri for m in matrices]
    repeated = sorted({u for u in uris if uris.count(u) > 1})
    if repeated:
        raise ValueError(f"Several recordings are named {', '.join(map(repr, repeated))}; each needs its own name.")
    if prior_from_others:
        _check_leave_one_out(matrices, method, options)
        moments = [labelled_pair_moments(matrix) for matrix in matrices]  # once: each prior pools the others'
    tables = []
    for done, matrix in enumerate(matrices, start=1):
        if matrix.start is None or matrix.end is None:  # (not has_times)
            raise ValueError(f"The recording {matrix.uri!r} has no segment times, so its speaker turns are unknown.")
        learnt: dict[str, Any] = \
            {"prior": learnt_from_others(moments, done - 1, matrix.uri)} if prior_from_others else {}
        result = cluster_similarity(matrix, method, **options, **learnt)
        tables.append(segments_to_turns(matrix.start, matrix.end, np.asarray(result.labels), uri=matrix.uri))
        if on_result is not None:
            on_result(matrix.uri, result)
        if progress is not None:
            progress(done, len(matrices), matrix.uri)
    if not tables:
        return pd.DataFrame({c: pd.Series(dtype=float if c in ("start", "end") else object) for c in TURN_COLUMNS})
    return pd.concat(tables, ignore_index=True)


def _check_leave_one_out(matrices: list, method: str, options: dict) -> None:
    if method != "bayes":
        raise ValueError(f"A score model learnt from the other recordings is for the Bayesian method, not {method}.")
    if "prior" in options:
        raise ValueError("Give either a prior or prior_from_others, not both.")
    if len(matrices) < 2:
        raise ValueError("A score model learnt from the other recordings needs at least two recordings.")
    unlabelled = [m.uri for m in matrices if m.reference is None]
    if unlabelled:
        raise ValueError(f"A score model learnt from the other recordings needs every reference; "
                         f"{', '.join(map(repr, unlabelled))} has none.")


def learnt_from_others(moments: list, index: int, uri: str, **strengths: float) -> BlockModelPrior:
    """The prior of the pair moments of every recording but the one at `index` (`strengths`: the ``mean_strength``,
    ``shape`` and ``concentration`` of :meth:`BlockModelPrior.from_pair_moments`)."""
    try:
        return BlockModelPrior.from_pair_moments(moments[:index] + moments[index + 1:], **strengths)
    except ValueError as err:
        raise ValueError(f"The score model for {uri!r}, learnt from the other recordings: {err}") from None
