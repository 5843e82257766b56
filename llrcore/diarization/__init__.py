"""Speaker diarization from a similarity matrix: cluster segments given only their pairwise scores, and score it.

- :mod:`~llrcore.diarization.model` — the Bayesian Gaussian block model with a sticky-chain prior (Publication I
  of the thesis chapter ``papers/004``) and its fit from several starts; one run of its mean-field variational
  inference in :mod:`~llrcore.diarization.variational`, the moves on its responsibilities (merge, split, compact)
  in :mod:`~llrcore.diarization.responsibilities`, its prior and conjugate algebra in
  :mod:`~llrcore.diarization.block_prior`, the sticky chain in :mod:`~llrcore.diarization.chain`; a prior learnt
  from labelled recordings by :func:`fit_diarization_prior` (:mod:`~llrcore.diarization.learn`), its JSON file and
  leave-one-out report in :mod:`~llrcore.diarization.prior_file`.
- :mod:`~llrcore.diarization.baselines` — average-linkage AHC and spectral clustering.
- :mod:`~llrcore.diarization.nme_sc` — NME-SC, spectral clustering auto-tuned by the normalised maximum eigengap.
- :mod:`~llrcore.diarization.cluster` — :func:`cluster_similarity`, one call for all four methods; its
  :class:`ClusteringResult` is in :mod:`~llrcore.diarization.result`.
- :mod:`~llrcore.diarization.scoring` — segment error with the optimal mapping, purity, coverage, windows to turns,
  DER in md-eval's convention (a speaker's own overlapping turns merged) or pyannote.metrics';
  :mod:`~llrcore.diarization.jer` the JER as dscore computes it.
- :mod:`~llrcore.diarization.gaussians` — the two-Gaussian mixture of the scores, Gaussian fits.
- :mod:`~llrcore.diarization.compare` — :func:`compare_methods`, several clusterings of one matrix side by side.
- :mod:`~llrcore.diarization.corpus` — :func:`cluster_recordings` and :func:`score_corpus`: several recordings, DER,
  JER, purity and coverage per recording and in total.
- :mod:`~llrcore.diarization.system_scoring` — :func:`score_system`: any system's turns (RTTM) against a reference,
  DER, JER and speaker counts with the scoring conventions (whose DER, collar, overlap, region, average) explicit
  and stated;
  :mod:`~llrcore.diarization.bootstrap` their recording-level bootstrap intervals and :func:`compare_diarizers`.
- :mod:`~llrcore.diarization.view` — :func:`similarity_view`, the matrix grouped by cluster as a figure draws it.

The input, :class:`~llrcore.data.similarity.SimilarityMatrix`, is in the data layer (``llrcore/data/similarity.py``);
the readers (``read_similarity``, ``read_rttm``, ``write_rttm``, ...) are in :mod:`llrcore.io.diarization`, and
``llrcore`` gathers both: this package imports no reader.
"""
from ..data.similarity import TURN_COLUMNS, SimilarityMatrix, labels_from_turns
from .cluster import (
    DEFAULT_MAX_CLUSTERS,
    METHODS,
    block_gaussians,
    block_mean_matrix,
    cluster_similarity,
    cluster_summary,
)
from .compare import COMPARISON_COLUMNS, Advice, MethodComparison, compare_methods, method_to_trust
from .corpus import CORPUS_COLUMNS, TOTAL, CorpusScores, cluster_recordings, score_corpus
from .gaussians import GaussianFit, ScoreMixture, fit_score_mixture
from .result import ClusteringResult
from .block_prior import PRESET_ALIASES, PRESETS, PRIOR_STRENGTH, BlockModelPrior, crp_log_prior
from .learn import fit_diarization_prior
from .prior_file import LeaveOneOut, PriorSource
from .chain import loop_probability, sticky_chain
from .model import EFFECTIVE_SCORES, MEAN_TURN, MIN_SPEECH, Progress
from .view import SimilarityView, similarity_view
from .system_scoring import AVERAGES, COLLAR_CONVENTIONS, EXTENTS, ScoringConventions, SystemScores, score_system
from .bootstrap import DiarizationBootstrap, DiarizerComparison, bootstrap_diarization, compare_diarizers
from .scoring import (
    CONVENTIONS,
    DERResult,
    SegmentScores,
    diarization_error_rate,
    optimal_mapping,
    segment_scores,
    segments_to_turns,
)

__all__ = [
    "SimilarityMatrix", "TURN_COLUMNS", "cluster_similarity", "ClusteringResult", "METHODS", "DEFAULT_MAX_CLUSTERS",
    "EFFECTIVE_SCORES", "MEAN_TURN", "MIN_SPEECH", "loop_probability", "sticky_chain", "PRESETS", "PRIOR_STRENGTH",
    "PRESET_ALIASES", "BlockModelPrior", "fit_diarization_prior", "LeaveOneOut", "PriorSource", "Progress",
    "crp_log_prior", "block_gaussians",
    "block_mean_matrix", "cluster_summary", "GaussianFit", "ScoreMixture",
    "fit_score_mixture", "SegmentScores", "segment_scores", "optimal_mapping", "segments_to_turns",
    "labels_from_turns", "DERResult", "diarization_error_rate", "compare_methods", "MethodComparison",
    "Advice", "method_to_trust",
    "COMPARISON_COLUMNS", "SimilarityView", "similarity_view", "CORPUS_COLUMNS", "CorpusScores",
    "cluster_recordings", "score_corpus", "ScoringConventions", "SystemScores", "score_system",
    "DiarizationBootstrap", "DiarizerComparison", "bootstrap_diarization", "compare_diarizers",
    "CONVENTIONS", "COLLAR_CONVENTIONS", "EXTENTS", "AVERAGES", "TOTAL",
]
