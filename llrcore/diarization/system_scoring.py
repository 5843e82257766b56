"""Score any diarization system's output (speaker turns, e.g. from its RTTM) against a reference, with every scoring
convention explicit, switchable and stated in the result.

The numbers come from :func:`~llrcore.diarization.corpus.score_corpus` (DER with its parts, JER, purity, coverage);
this module chooses whose DER, the scored regions, the collar and the average over recordings, and adds the
speaker-count accuracy. The conventions, with the tools that use them:

- whose DER (``convention``): ``"md-eval"`` (NIST md-eval, dscore) merges each speaker's own overlapping turns
  before scoring and takes dscore's JER (10 ms frames, no collar, overlap scored); ``"pyannote"``
  (pyannote.metrics) counts every turn, so a system that says "x" twice at once is a false alarm, and takes its JER.

- collar: ``"md-eval"`` (NIST md-eval ``-c``, dscore ``--collar``): `collar` seconds on EACH side of every reference
  boundary are not scored; ``"pyannote"`` (pyannote.metrics' ``collar``): `collar` is the TOTAL width, half on each
  side. The same number therefore forgives twice as much under md-eval as under pyannote.metrics.
- overlap: scored (pyannote.metrics' default) or skipped (md-eval ``-1``, dscore ``--ignore_overlaps``).
- scored region without a UEM: ``"both"`` from the first to the last turn of reference and system together (dscore's
  generated UEM), or ``"reference"`` from the first to the last reference turn (system speech outside it is not
  a false alarm).
- over recordings: ``"pooled"`` (md-eval, dscore's OVERALL row, pyannote.metrics' ``abs(metric)``): all errors over
  all scored speech, so long recordings weigh more; ``"mean"``: the mean of the per-recording rates, each
  recording weighing the same.

Two tools' numbers for the same files differ as soon as one of these differs — most often the collar (0.25 s
md-eval = 0.5 s pyannote.metrics), overlap, the region scored without a UEM, or a pooled against a mean DER.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._choices import COLLAR_CONVENTIONS
from .._choices import DER_AVERAGES as AVERAGES
from .._choices import DER_EXTENTS as EXTENTS
from .corpus import CorpusScores, _turn_table, score_corpus
from .scoring import CONVENTIONS, check_turns

__all__ = ["CONVENTIONS", "COLLAR_CONVENTIONS", "EXTENTS", "AVERAGES", "WHY_TOOLS_DIFFER", "ScoringConventions", "SystemScores",
           "score_system"]

#: The sentence a result carries on why two scoring tools give different numbers for the same files.
WHY_TOOLS_DIFFER = ("Two tools give different DERs for the same files when their conventions differ: md-eval and "
                    "dscore merge a speaker's own overlapping turns while pyannote.metrics counts each, md-eval and "
                    "dscore's collar is on each side of a reference boundary while pyannote.metrics' is the total "
                    "width (0.25 s there is 0.5 s here), pyannote.metrics scores overlapped speech by default and "
                    "md-eval with -1 does not, without a UEM the scored region is the reference's extent or that of "
                    "reference and system together, and a corpus DER is pooled over seconds (long recordings weigh "
                    "more) or a mean of per-recording DERs.")


@dataclass(frozen=True)
class ScoringConventions:
    """How a diarization is scored (see the module docstring for each choice and the tools that make it).

    Attributes
    ----------
    collar : float
        Seconds, read by `collar_convention`.
    collar_convention : {"md-eval", "pyannote"}
        ``"md-eval"``: `collar` on each side of a reference boundary; ``"pyannote"``: total width.
    skip_overlap : bool
        Leave out regions where reference speakers overlap.
    extent : {"both", "reference"}
        Without a UEM: scored from the first to the last turn of reference and system, or of the reference only.
    average : {"pooled", "mean"}
        Over recordings: all errors over all speech, or the mean of the per-recording rates.
    convention : {"md-eval", "pyannote"}
        Whose DER and JER: md-eval's and dscore's (each speaker's own overlapping turns merged), or
        pyannote.metrics' (each turn counted).
    """

    collar: float = 0.25
    collar_convention: str = "md-eval"
    skip_overlap: bool = True
    extent: str = "both"
    average: str = "pooled"
    convention: str = "md-eval"

    def __post_init__(self):
        for value, allowed, what in ((self.convention, CONVENTIONS, "DER convention"),
                                     (self.collar_convention, COLLAR_CONVENTIONS, "collar convention"),
                                     (self.extent, EXTENTS, "scored extent"), (self.average, AVERAGES, "average")):
            if value not in allowed:
                raise ValueError(f"Unknown {what} {value!r}; choose one of {', '.join(allowed)}.")
        if not np.isfinite(self.collar) or self.collar < 0:
            raise ValueError(f"The collar must be zero or positive, not {self.collar}.")

    @property
    def collar_each_side(self) -> float:
        """Seconds not scored on each side of a reference boundary (md-eval's ``-c``)."""
        return self.collar if self.collar_convention == "md-eval" else self.collar / 2.0

    def convention_sentence(self) -> str:
        """Whose DER and JER, in words."""
        if self.convention == "md-eval":
            return ("DER as md-eval and dscore compute it (each speaker's own overlapping turns merged first); JER as "
                    "dscore computes it (10 ms frames of the scored region, no collar, overlap scored).")
        return ("DER and JER as pyannote.metrics computes them (a speaker's own overlapping turns counted once "
                "each: the same speaker said twice at once is a false alarm).")

    def sentences(self, uem: bool = False) -> list[str]:
        """The conventions in words, one sentence each."""
        side = self.collar_each_side
        region = ("the regions of the UEM are scored" if uem else
                  "each recording is scored from the first to the last turn of "
                  + ("the reference" if self.extent == "reference" else "reference and system together"))
        return [(f"Collar: {side:g} s on each side of every reference boundary (md-eval {side:g}, "
                 f"pyannote.metrics collar={2 * side:g})."),
                "Overlapped speech: " + ("not scored." if self.skip_overlap else "scored."),
                f"Scored region: {region}.",
                "Over recordings: " + ("pooled (all errors over all scored speech; long recordings weigh more)."
                                       if self.average == "pooled" else
                                       "the mean of the per-recording rates (every recording weighs the same)."),
                self.convention_sentence()]


@dataclass(frozen=True)
class SystemScores:
    """A system's diarization scored against a reference (:func:`score_system`).

    ``der`` and ``jer`` are fractions, pooled or averaged over recordings as ``conventions.average`` says;
    ``count_accuracy`` the share of recordings where the system finds as many speakers as the reference has;
    ``corpus`` the pyannote.metrics components of every recording (its ``to_frame()`` has one row per recording
    and the pooled TOTAL row); ``sentences`` the conventions in words and :data:`WHY_TOOLS_DIFFER`.
    """

    corpus: CorpusScores
    conventions: ScoringConventions
    used_uem: bool

    @property
    def per_recording(self) -> pd.DataFrame:
        """One row per recording: speakers, found, DER %, its parts, JER %, purity %, coverage %."""
        return self.corpus.to_frame(total=False)

    @property
    def der(self) -> float:
        if self.conventions.average == "pooled":
            return self.corpus.der
        return float(self.per_recording["DER %"].mean() / 100.0)

    @property
    def jer(self) -> float:
        if self.conventions.average == "pooled":
            return self.corpus.jer
        return float(self.per_recording["JER %"].mean() / 100.0)

    @property
    def count_accuracy(self) -> float:
        return self.corpus.right_counts / len(self.corpus.components)

    @property
    def sentences(self) -> list[str]:
        return self.conventions.sentences(self.used_uem) + [WHY_TOOLS_DIFFER]

    def summary(self) -> pd.Series:
        """The headline numbers, in percent, and the recordings."""
        return pd.Series({"recordings": len(self.corpus.components), "DER %": 100.0 * self.der,
                          "JER %": 100.0 * self.jer, "right speaker count %": 100.0 * self.count_accuracy,
                          "speaker-count error": self.corpus.count_error})

    def by_speakers(self) -> pd.DataFrame:
        """Recordings, speech, DER % and JER % pooled by number of reference speakers
        (:meth:`~llrcore.diarization.corpus.CorpusScores.by_speakers`)."""
        return self.corpus.by_speakers()

    def to_frame(self) -> pd.DataFrame:
        """One row per recording and a last row (``TOTAL`` pooled, or ``MEAN``) with the rates of :attr:`der`."""
        if self.conventions.average == "pooled":
            return self.corpus.to_frame()
        frame = self.per_recording.astype(float)
        frame.loc["MEAN"] = frame.mean(numeric_only=True)
        return frame


def _reference_extent(reference: pd.DataFrame) -> pd.DataFrame:
    """One scored region per recording: from its first to its last reference turn."""
    times = reference.assign(uri=reference["uri"].astype(str)).groupby("uri", sort=False)
    return pd.DataFrame({"start": times["start"].min(), "end": times["end"].max()}).reset_index()


def score_system(reference: pd.DataFrame | Mapping[str, pd.DataFrame] | Iterable[pd.DataFrame],
                 system: pd.DataFrame | Mapping[str, pd.DataFrame] | Iterable[pd.DataFrame], *,
                 uem: pd.DataFrame | None = None, collar: float = 0.25, collar_convention: str = "md-eval",
                 skip_overlap: bool = True, extent: str = "both", average: str = "pooled", convention: str = "md-eval"
                 ) -> SystemScores:
    """Score any system's speaker turns against reference turns: DER, JER, speaker counts, conventions stated.

    Parameters
    ----------
    reference, system : pandas.DataFrame, Mapping or iterable
        Speaker turns (columns ``uri, start, end, speaker``, as :func:`~llrcore.read_rttm` returns them; several
        recordings mixed by ``uri``), or a mapping / list of such tables. Every reference recording is scored; one
        the system lacks is all missed speech.
    uem : pandas.DataFrame, optional
        Scored regions (``uri, start, end``, :func:`~llrcore.read_uem`); overrides `extent`.
    collar, collar_convention, skip_overlap, extent, average, convention
        The conventions, see :class:`ScoringConventions`.

    Returns
    -------
    SystemScores
    """
    conventions = ScoringConventions(float(collar), collar_convention, bool(skip_overlap), extent, average, convention)
    reference, system = _turn_table(reference), _turn_table(system)
    check_turns(reference, "reference")
    if reference.empty:
        raise ValueError("The reference has no speaker turns, so there is nothing to score the system against.")
    regions = uem if uem is not None or extent == "both" else _reference_extent(reference)
    corpus = score_corpus(reference, system, uems=regions, collar=conventions.collar_each_side,
                          skip_overlap=conventions.skip_overlap, convention=convention)
    return SystemScores(corpus, conventions, uem is not None)
