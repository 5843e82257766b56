"""Scoring a diarization: segment-level errors with the optimal speaker mapping, and the time-based DER.

Segment level (no times needed): the hypothesis clusters are mapped one-to-one onto the reference speakers so that
the most segments (or seconds, with weights) agree (Hungarian algorithm, ``scipy.optimize.linear_sum_assignment``);
the error is the share that disagrees. Purity (each cluster's largest reference speaker) and coverage (each
reference speaker's largest cluster) after Cover & Thomas / pyannote.metrics, and the speaker-count error.

Time level: the x-vector windows overlap (1.44 s every 0.24 s), so they are turned into speaker turns by splitting
every overlap of consecutive windows at its midpoint and joining consecutive pieces with the same label (as VBx
writes its RTTMs). The diarization error rate is computed with an explicit UEM (the scored region) for every
recording, in one of two conventions (:data:`CONVENTIONS`): md-eval's by a sweep over the turns' boundaries
(:mod:`llrcore.diarization.md_eval`), pyannote.metrics' by pyannote.metrics itself.

- ``"md-eval"`` (default; NIST md-eval-22, which dscore runs): the scored region is the UEM less a collar around
  every reference turn boundary as written and, with `skip_overlap`, less every stretch where two reference turns
  overlap; each speaker's own overlapping turns (reference or system) are then merged, so a speaker talks at most
  once at a time; the speakers are mapped on the whole UEM (Hungarian algorithm, most time in common).
- ``"pyannote"`` (``pyannote.metrics.DiarizationErrorRate``): the same region, but a speaker's overlapping turns
  count once each (system x on 0-10 s and again on 5-10 s against reference A on 0-10 s is 5 s of false alarm
  over 10 s, DER 0.5, where md-eval finds 0), and the speakers are mapped on the scored region only.

`collar` is given the md-eval/dscore way, seconds on each side of a reference boundary (``--collar 0.25``);
pyannote's own collar is the total width, so it receives ``2 * collar``.

References: NIST, md-eval-22.pl (RT-09 evaluation plan); N. Ryant, dscore (github.com/nryant/dscore); H. Bredin,
"pyannote.metrics", Interspeech 2017.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.optimize import linear_sum_assignment

from .._choices import DER_CONVENTIONS as CONVENTIONS
from ..data.records import one_row
from ..data.similarity import TURN_COLUMNS
from .md_eval import md_eval_components

__all__ = ["SegmentScores", "segment_scores", "optimal_mapping", "segments_to_turns",
           "DERResult", "diarization_error_rate", "der_components", "pyannote_components", "recordings",
           "recording_tables", "as_pyannote", "check_turns", "CONVENTIONS",
           "check_convention"]



# ----- segment level ---------------------------------------------------------------------------------------------


def _contingency(hypothesis, reference, weights=None):
    hyp_ids, hyp = np.unique(np.asarray(hypothesis), return_inverse=True)
    ref_ids, ref = np.unique(np.asarray(reference).astype(str), return_inverse=True)
    table = np.zeros((hyp_ids.size, ref_ids.size))
    np.add.at(table, (hyp.reshape(-1), ref.reshape(-1)), 1.0 if weights is None else np.asarray(weights, float))
    return table, hyp_ids, ref_ids


def optimal_mapping(hypothesis, reference, weights=None) -> dict:
    """One-to-one mapping hypothesis cluster -> reference speaker agreeing on the most segments (or weight).

    Clusters left over (more clusters than speakers) map to nothing and are absent from the dict.
    """
    table, hyp_ids, ref_ids = _contingency(hypothesis, reference, weights)
    rows, columns = linear_sum_assignment(table, maximize=True)
    return {hyp_ids[r].item(): str(ref_ids[c]) for r, c in zip(rows, columns)}


@dataclass(frozen=True)
class SegmentScores:
    """Segment-level scores of a clustering against per-segment reference speakers.

    Attributes
    ----------
    error : float
        Share of segments (or weight) whose cluster is not mapped to their reference speaker, with the optimal
        one-to-one mapping.
    purity, coverage : float
        ``sum_k max_j n_kj / N`` over clusters k, and ``sum_j max_k n_kj / N`` over reference speakers j.
    n_clusters, n_speakers : int
    speaker_count_error : int
        ``n_clusters - n_speakers`` (positive: too many clusters).
    mapping : dict
        Cluster -> reference speaker.
    """

    error: float
    purity: float
    coverage: float
    n_clusters: int
    n_speakers: int
    mapping: dict

    def to_frame(self) -> pd.DataFrame:
        """One row: ``error``, ``purity``, ``coverage`` (shares of the segments), ``n_clusters``, ``n_speakers``."""
        return one_row(self)

    @property
    def speaker_count_error(self) -> int:
        return self.n_clusters - self.n_speakers


def segment_scores(hypothesis: ArrayLike, reference: ArrayLike, weights: ArrayLike | None = None) -> SegmentScores:
    """Segment error (optimal mapping), purity, coverage and speaker counts of a clustering.

    Parameters
    ----------
    hypothesis : array_like, shape (N,)
        Cluster of each segment (any hashable labels).
    reference : array_like, shape (N,)
        Reference speaker of each segment.
    weights : array_like, shape (N,), optional
        Weight of each segment (e.g. its duration); default 1.

    Returns
    -------
    SegmentScores
        The segment error with the optimal one-to-one mapping of clusters to speakers (Hungarian algorithm), the
        purity and coverage (fractions of the segments or their weight), the numbers of clusters and speakers, and
        the mapping.

    Raises
    ------
    ValueError
        When the two label arrays differ in length or are empty.
    """
    hypothesis = np.asarray(hypothesis).reshape(-1)
    reference = np.asarray(reference).reshape(-1)
    if hypothesis.size != reference.size:
        raise ValueError(f"There are {hypothesis.size} hypothesis labels but {reference.size} reference labels.")
    if hypothesis.size == 0:
        raise ValueError("There are no segments to score.")
    table, hyp_ids, ref_ids = _contingency(hypothesis, reference, weights)
    total = table.sum()
    rows, columns = linear_sum_assignment(table, maximize=True)
    return SegmentScores(
        error=float(1.0 - table[rows, columns].sum() / total),
        purity=float(table.max(axis=1).sum() / total),
        coverage=float(table.max(axis=0).sum() / total),
        n_clusters=int(hyp_ids.size),
        n_speakers=int(ref_ids.size),
        mapping={hyp_ids[r].item(): str(ref_ids[c]) for r, c in zip(rows, columns)},
    )


# ----- windows to turns ------------------------------------------------------------------------------------------


def segments_to_turns(start: ArrayLike, end: ArrayLike, labels: ArrayLike, *, uri: str = "recording",
                      channel: str = "1") -> pd.DataFrame:
    """Speaker turns from labelled, possibly overlapping segments (sorted by start time).

    Every overlap of consecutive segments is split at its midpoint; consecutive pieces with the same label that
    touch are joined.

    Parameters
    ----------
    start, end : array_like, shape (N,)
        Start and end time of each segment (seconds).
    labels : array_like, shape (N,)
        Speaker (cluster) label of each segment.
    uri, channel : str
        The recording's name and channel, written on every turn.

    Returns
    -------
    pandas.DataFrame
        Columns ``uri, channel, start, end, speaker`` (times in seconds, speaker as str), one row per turn in time
        order; empty (with those columns) for no segment.

    Raises
    ------
    ValueError
        When `start`, `end` and `labels` differ in length.
    """
    start = np.asarray(start, dtype=np.float64).reshape(-1)
    end = np.asarray(end, dtype=np.float64).reshape(-1)
    labels = np.asarray(labels).reshape(-1)
    if not (start.size == end.size == labels.size):
        raise ValueError(f"There are {start.size} start times, {end.size} end times and {labels.size} labels.")
    if start.size == 0:
        return pd.DataFrame({c: pd.Series(dtype=float if c in ("start", "end") else object) for c in TURN_COLUMNS})
    order = np.argsort(start, kind="stable")
    start, end, labels = start[order], end[order], labels[order]
    piece_start, piece_end = start.copy(), end.copy()
    overlap = end[:-1] > start[1:]
    middle = 0.5 * (end[:-1] + start[1:])
    piece_end[:-1] = np.where(overlap, middle, end[:-1])
    piece_start[1:] = np.where(overlap, middle, start[1:])
    piece_start = np.maximum.accumulate(piece_start)  # a window inside its predecessor keeps no time twice
    keep = piece_end > piece_start
    piece_start, piece_end, labels = piece_start[keep], piece_end[keep], labels[keep]
    # a new turn starts where the label changes or the pieces do not touch
    new = np.ones(labels.size, dtype=bool)
    new[1:] = (labels[1:] != labels[:-1]) | (piece_start[1:] > piece_end[:-1] + 1e-9)
    first = np.flatnonzero(new)
    last = np.append(first[1:], labels.size) - 1
    return pd.DataFrame({
        "uri": uri, "channel": channel, "start": piece_start[first], "end": piece_end[last],
        "speaker": labels[first].astype(str),
    })


# ----- DER -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DERResult:
    """Diarization error rate, pooled over recordings (seconds summed, then divided), with its parts.

    Attributes
    ----------
    der : float
        ``(missed + false_alarm + confusion) / total``.
    missed, false_alarm, confusion, total : float
        Seconds of missed speech, false-alarm speech, speaker confusion and reference speech (scored regions).
    per_file : pandas.DataFrame
        The same per recording (index ``uri``).
    collar : float
        Seconds on each side of each reference boundary not scored (md-eval convention).
    skip_overlap : bool
        Whether regions where reference speakers overlap were left out.
    convention : {"md-eval", "pyannote"}
        Whose DER (:data:`CONVENTIONS`): a speaker's own overlapping turns merged (md-eval) or counted each.
    """

    der: float
    missed: float
    false_alarm: float
    confusion: float
    total: float
    per_file: pd.DataFrame
    collar: float
    skip_overlap: bool
    convention: str = "md-eval"

    def to_frame(self) -> pd.DataFrame:
        """One row per recording (index ``uri``), then ``all recordings``: ``DER`` (a fraction) and the seconds of
        missed speech, false-alarm speech, speaker confusion and scored reference speech."""
        pooled = pd.DataFrame([{"der": self.der, "missed": self.missed, "false_alarm": self.false_alarm,
                                "confusion": self.confusion, "total": self.total}], index=["all recordings"])
        return pd.concat([self.per_file, pooled]).rename_axis("uri").rename(columns=DER_COLUMNS)


#: :meth:`DERResult.to_frame`'s column names, with the units of the seconds.
DER_COLUMNS = {"der": "DER", "missed": "missed (s)", "false_alarm": "false alarm (s)", "confusion": "confusion (s)",
               "total": "scored speech (s)"}


def _annotation(turns: pd.DataFrame, uri: str):
    from pyannote.core import Annotation, Segment

    annotation = Annotation(uri=uri)
    for i, (t0, t1, speaker) in enumerate(turns[["start", "end", "speaker"]].itertuples(index=False)):
        if t1 > t0:
            annotation[Segment(float(t0), float(t1)), i] = str(speaker)
    return annotation


def _timeline(regions: pd.DataFrame, uri: str):
    from pyannote.core import Segment, Timeline

    return Timeline([Segment(float(a), float(b)) for a, b in regions[["start", "end"]].itertuples(index=False)
                     if b > a], uri=uri)


_NEEDED_COLUMNS = ("uri", "start", "end", "speaker")


def check_turns(turns: pd.DataFrame, what: str) -> None:
    """Refuse, in a sentence, speaker turns that lack a column or whose times are missing or reversed (pyannote would
    drop such a turn, or fail with a bare KeyError)."""
    missing = [c for c in _NEEDED_COLUMNS if c not in getattr(turns, "columns", ())]
    if missing:
        raise ValueError(f"The {what} has no column {', '.join(repr(c) for c in missing)}; speaker turns need the "
                         f"columns {', '.join(_NEEDED_COLUMNS)}.")
    times = turns[["start", "end"]].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(times).all(axis=1))
    if bad.size:
        row = turns.iloc[bad[0]]
        raise ValueError(f"{bad.size} turn(s) of the {what} have no valid start or end time (the first: speaker "
                         f"{row['speaker']!r} in recording {row['uri']!r}, start {row['start']}, end {row['end']}).")
    reversed_ = np.flatnonzero(times[:, 1] < times[:, 0])
    if reversed_.size:
        row = turns.iloc[reversed_[0]]
        raise ValueError(f"{reversed_.size} turn(s) of the {what} end before they start (the first: speaker "
                         f"{row['speaker']!r} in recording {row['uri']!r}, {row['start']} to {row['end']} s).")


def recording_tables(reference: pd.DataFrame, hypothesis: pd.DataFrame, uem: pd.DataFrame | None = None):
    """Per recording of the reference (``uri``, in order): ``(uri, reference, hypothesis, scored regions)``, each a
    table of its rows. Without a UEM a recording is scored from its first turn (reference or hypothesis) to its last;
    with one, a recording the UEM does not cover is a ValueError."""
    for uri in pd.unique(reference["uri"].astype(str)):
        ref = reference[reference["uri"].astype(str) == uri]
        hyp = hypothesis[hypothesis["uri"].astype(str) == uri]
        if uem is not None:
            regions = uem[uem["uri"].astype(str) == uri]
            if regions.empty:
                raise ValueError(f"The UEM has no scored region for the recording {uri!r}.")
        else:
            both = pd.concat([ref[["start", "end"]], hyp[["start", "end"]]])
            regions = pd.DataFrame({"start": [both["start"].min()], "end": [both["end"].max()]})
        yield uri, ref, hyp, regions


def as_pyannote(uri: str, reference: pd.DataFrame, hypothesis: pd.DataFrame, regions: pd.DataFrame):
    """One recording's tables (:func:`recording_tables`) as pyannote Annotations (one track per turn as written) and
    a Timeline."""
    return _annotation(reference, uri), _annotation(hypothesis, uri), _timeline(regions, uri)


def recordings(reference: pd.DataFrame, hypothesis: pd.DataFrame, uem: pd.DataFrame | None = None):
    """Per recording of the reference: ``(uri, reference, hypothesis, scored regions)`` as pyannote Annotations and
    a Timeline (:func:`recording_tables`, :func:`as_pyannote`)."""
    for uri, ref, hyp, regions in recording_tables(reference, hypothesis, uem):
        yield uri, *as_pyannote(uri, ref, hyp, regions)


def check_convention(convention: str) -> None:
    """Refuse, in a sentence, a convention that is not one of :data:`CONVENTIONS`."""
    if convention not in CONVENTIONS:
        raise ValueError(f"Unknown DER convention {convention!r}; choose one of {', '.join(CONVENTIONS)}.")


def der_components(reference: pd.DataFrame, hypothesis: pd.DataFrame, scored: pd.DataFrame, *, collar: float,
                   skip_overlap: bool, convention: str = "md-eval", uri: str = "") -> dict:
    """Seconds of scored reference speech and of each error of one recording, in `convention`.

    Parameters
    ----------
    reference, hypothesis : pandas.DataFrame
        The recording's turns as written (:func:`recording_tables`).
    scored : pandas.DataFrame
        The UEM of the recording (columns ``start, end``).
    collar : float
        Seconds on each side of every reference boundary (md-eval ``-c``).
    skip_overlap : bool
        Leave out the stretches where two reference turns overlap (md-eval ``-1``).
    convention : {"md-eval", "pyannote"}
        See the module docstring. md-eval: ``E = sum over the scored region of max(n_ref, n_sys) - n_correct``
        (missed ``max(0, n_ref - n_sys)``, false alarm ``max(0, n_sys - n_ref)``, confusion
        ``min(n_ref, n_sys) - n_correct``) with ``n`` the number of distinct speakers talking, after merging each
        speaker's turns (:func:`~llrcore.diarization.md_eval.md_eval_components`); pyannote: the same with ``n``
        the number of turns, by ``pyannote.metrics.DiarizationErrorRate`` itself.
    uri : str
        The recording's name (pyannote's objects carry it).

    Returns
    -------
    dict
        ``total, missed, false_alarm, confusion`` in seconds.
    """
    check_convention(convention)
    if convention == "md-eval":
        return md_eval_components(reference, hypothesis, scored[["start", "end"]].to_numpy(dtype=np.float64),
                                  collar=collar, skip_overlap=skip_overlap)
    return pyannote_components(*as_pyannote(uri, reference, hypothesis, scored), collar=collar,
                               skip_overlap=skip_overlap)


def pyannote_components(reference, hypothesis, uem, *, collar: float, skip_overlap: bool) -> dict:
    """:func:`der_components` in the "pyannote" convention, on one recording's pyannote objects
    (:func:`as_pyannote`): ``pyannote.metrics.DiarizationErrorRate`` (its collar is the total width, ``2 collar``)."""
    from pyannote.metrics.diarization import DiarizationErrorRate

    parts = DiarizationErrorRate(collar=2.0 * collar, skip_overlap=skip_overlap)(reference, hypothesis, uem=uem,
                                                                                detailed=True)
    return {"total": parts["total"], "missed": parts["missed detection"], "false_alarm": parts["false alarm"],
            "confusion": parts["confusion"]}


def diarization_error_rate(reference: pd.DataFrame, hypothesis: pd.DataFrame, *, uem: pd.DataFrame | None = None,
                           collar: float = 0.25, skip_overlap: bool = True,
                           convention: str = "md-eval") -> DERResult:
    """DER of hypothesis turns against reference turns, md-eval's or pyannote.metrics', pooled over recordings.

    Parameters
    ----------
    reference, hypothesis : pandas.DataFrame
        Speaker turns (columns ``uri, start, end, speaker``, as :func:`~llrcore.read_rttm` returns); several
        recordings may be mixed (by ``uri``). Every reference recording is scored; a recording missing from the
        hypothesis counts as all missed speech.
    uem : pandas.DataFrame, optional
        Scored regions (columns ``uri, start, end``, as :func:`~llrcore.read_uem` returns). Without one, each
        recording is scored from the earliest to the latest turn of reference and hypothesis together (what
        pyannote.metrics would approximate with a warning).
    collar : float
        Seconds removed on EACH side of every reference boundary (md-eval ``-c``, dscore ``--collar``): 0.25 is
        the usual "forgiving" setting. pyannote.metrics receives ``collar=2 * collar``.
    skip_overlap : bool
        Leave out regions where reference speakers overlap (md-eval ``-1``, dscore ``--ignore_overlaps``).
    convention : {"md-eval", "pyannote"}
        md-eval (and dscore) merge each speaker's own overlapping turns first; pyannote.metrics counts each turn
        (:func:`der_components`).

    Returns
    -------
    DERResult
        The pooled DER (errors over scored speech, a fraction) with its parts in seconds (missed, false alarm,
        confusion, total speech), a table per recording, and the conventions it was scored with.

    Raises
    ------
    ValueError
        If the convention is unknown, the reference has no turns, a table lacks a column, a turn has no (or a
        reversed) start or end time, or the collar is negative.
    """
    check_convention(convention)
    check_turns(reference, "reference")
    check_turns(hypothesis, "hypothesis")
    if reference.empty:
        raise ValueError("The reference has no speaker turns, so there is nothing to score the diarization against.")
    if collar < 0:
        raise ValueError(f"The collar must be zero or positive, not {collar}.")
    rows = []
    for uri, ref, hyp, scored in recording_tables(reference, hypothesis, uem):
        parts = der_components(ref, hyp, scored, collar=collar, skip_overlap=skip_overlap, convention=convention,
                               uri=uri)
        errors = parts["missed"] + parts["false_alarm"] + parts["confusion"]
        rows.append({"uri": uri, "der": errors / parts["total"] if parts["total"] > 0 else float("nan"), **parts})
    per_file = pd.DataFrame(rows).set_index("uri")[["der", "missed", "false_alarm", "confusion", "total"]]
    sums = per_file[["missed", "false_alarm", "confusion", "total"]].sum()
    error = sums["missed"] + sums["false_alarm"] + sums["confusion"]
    return DERResult(der=float(error / sums["total"]) if sums["total"] > 0 else float("nan"),
                     missed=float(sums["missed"]), false_alarm=float(sums["false_alarm"]),
                     confusion=float(sums["confusion"]), total=float(sums["total"]), per_file=per_file,
                     collar=float(collar), skip_overlap=bool(skip_overlap), convention=convention)
