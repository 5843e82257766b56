""":func:`fit_diarization_prior`: the block model's prior learnt from a few labelled recordings of one embedder, with
what it was learnt on and its leave-one-out report (what it does on a recording it has not seen)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import pandas as pd

from .._version import __version__
from ..data.similarity import SimilarityMatrix
from .block_prior import LEARNT_SHAPE, LEARNT_STRENGTH, BlockModelPrior, labelled_pair_moments
from .corpus import cluster_recordings, learnt_from_others, score_corpus
from .prior_file import LeaveOneOut, PriorSource

__all__ = ["fit_diarization_prior"]


def fit_diarization_prior(recordings: Iterable[SimilarityMatrix], *, embedder: str | None = None,
                          windows: str | None = None, data: str | None = None, leave_one_out: bool = True,
                          mean_strength: float = LEARNT_STRENGTH, shape: float = LEARNT_SHAPE,
                          concentration: float = 1.0,
                          progress: Callable[[int, int, str], None] | None = None) -> BlockModelPrior:
    """Learn the block model's prior from labelled recordings of one embedder, for
    ``cluster_similarity(S, prior=...)`` on new recordings of that embedder.

    The within-speaker (between-speaker) Gaussian of the prior has the mean and variance of all the recordings'
    same-speaker (different-speaker) pairs ``i < j``, segments labelled by their reference, held with the weight of
    `mean_strength` (kappa0) and `shape` (a0) tempered scores
    (:meth:`~llrcore.diarization.BlockModelPrior.from_recordings`): it fixes what "same" and "different" speaker
    look like for this embedder, as a diarization system is tuned on a few labelled recordings of its domain (VBx
    tunes its PLDA and its hyper-parameters on a development set; Landini et al., "Bayesian HMM clustering of
    x-vector sequences (VBx) in speaker diarization", Computer Speech & Language 71, 2022).

    Parameters
    ----------
    recordings : iterable of SimilarityMatrix
        Labelled recordings (each with a reference, as :func:`~llrcore.read_corpus` reads a folder of ``.npz`` +
        ``.rttm``), at least one with two speakers or more; with segment times for the leave-one-out report.
    embedder, windows, data : str, optional
        How the scores were made and where the recordings come from, kept in the prior (``learnt_on``) and its file.
    leave_one_out : bool
        Also cluster each recording with the prior learnt on the others (two recordings at least) and score it
        (md-eval DER, collar 0.25 s, overlap not scored): ``prior.report``.
    mean_strength, shape, concentration : float
        kappa0, a0 and the Dirichlet-process alpha of the prior.
    progress : callable, optional
        Called as ``progress(done, total, uri)`` after each recording of the leave-one-out report.

    Returns
    -------
    BlockModelPrior
        With ``learnt_on`` (:class:`~llrcore.diarization.prior_file.PriorSource`) and ``report``
        (:class:`~llrcore.diarization.prior_file.LeaveOneOut`, ``.to_frame()``, ``.sentence()``, or None);
        ``to_json()`` writes it, ``BlockModelPrior.from_json`` reads it back.

    Examples
    --------
    >>> labelled = lc.read_corpus("my_labelled_recordings/")                  # doctest: +SKIP
    >>> prior = lc.fit_diarization_prior(labelled, embedder="ECAPA", windows="1.5 s every 0.75 s")  # doctest: +SKIP
    >>> print(prior.report.sentence())                                         # doctest: +SKIP
    >>> lc.cluster_similarity(new_recording, prior=prior).n_clusters           # doctest: +SKIP
    """
    matrices = list(recordings)
    if not matrices:
        raise ValueError("A prior is learnt from labelled recordings; none were given.")
    moments = [labelled_pair_moments(matrix) for matrix in matrices]
    strengths = dict(mean_strength=mean_strength, shape=shape, concentration=concentration)
    prior = BlockModelPrior.from_pair_moments(moments, **strengths)
    report = None
    if leave_one_out and len(matrices) >= 2:
        hypotheses = []
        for done, matrix in enumerate(matrices, start=1):  # each with the prior of the others, as strong as this one
            others = learnt_from_others(moments, done - 1, matrix.uri, **strengths)
            hypotheses.append(cluster_recordings([matrix], "bayes", prior=others))
            if progress is not None:
                progress(done, len(matrices), matrix.uri)
        frame = score_corpus(matrices, hypotheses).to_frame(total=False)
        report = LeaveOneOut(pd.DataFrame({"speakers": frame["speakers"], "found": frame["found"],
                                           "DER %": frame["DER %"]}))
    source = PriorSource(len(matrices), tuple(str(m.uri) for m in matrices), embedder, windows, data, __version__,
                         report)
    return replace(prior, learnt_on=source)
