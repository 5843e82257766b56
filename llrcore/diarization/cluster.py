"""One call for every clustering method: :func:`cluster_similarity` and its :class:`ClusteringResult`."""
from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._choices import CLUSTERING_METHODS as METHODS
from .._deprecation import OldSpellingWarning
from ..data.similarity import SimilarityMatrix, as_similarity
from .baselines import (
    ahc_labels,
    default_min_cluster_size,
    eigengap_clusters,
    relabel_by_appearance,
    spectral_embedding,
    spectral_labels,
)
from .block_prior import PRESET_ALIASES, PRESETS, PRIOR_STRENGTH, BlockModelPrior, prior_for_scores, score_kind
from .chain import loop_probability, median_shift
from .gaussians import GaussianFit, ScoreMixture, fit_score_mixture
from .model import EFFECTIVE_SCORES, MEAN_TURN, MIN_SPEECH, Progress, fit_block_model, window_seconds
from .nme_sc import MAX_SPEAKERS as NME_MAX_SPEAKERS
from .nme_sc import nme_sc
from .result import ClusteringResult
from .scoring import optimal_mapping

__all__ = [
    "DEFAULT_MAX_CLUSTERS",
    "EIGENGAP_FLOOR_KINDS",
    "SHARE_WITHOUT_TIMES",
    "METHODS",
    "ClusteringResult",
    "block_gaussians",
    "block_mean_matrix",
    "cluster_similarity",
    "cluster_summary",
    "count_confidence",
    "eigengap_floor_count",
    "eigengap_ratio",
]

#: ``prior=`` this: the block model's prior from a two-Gaussian fit of the recording's own scores (the default before
#: the prior by the kind of scores; :func:`cluster_similarity`).
OWN_FIT = "recording"
#: Without times, a segment is taken as an x-vector window that overlaps five others (1.5 s every 0.25 s, as
#: AMI ES2005a's 1.44 s every 0.24 s): its share of the evidence per independent segment.
SHARE_WITHOUT_TIMES = 1.0 / 6.0
#: Default upper bound on the number of speakers (the eigen-decomposition and the DP truncation use it).
DEFAULT_MAX_CLUSTERS = 20
#: The Bayesian model's over-clustered AHC start has at least this many clusters (within the bounds), not only
#: twice the eigengap estimate: a run only loses clusters, and the eigengap can say 2 where there are 9 (the
#: development corpus's plda_k09_balanced, where every start then ended at 6 or fewer, far below the bound of the
#: true partition). On that corpus with a prior learnt on the other fold: right K 17/24 and 20/20 (mean DER 14.7 %
#: and 3.4 %), against 15/24 and 18/20 (15.0 % and 4.9 %) with 2 K + 2 alone; its own prior and ES2005a unchanged.
OVER_CLUSTERED = 20
#: The default call on cosines keeps at least as many speakers as NME-SC's eigengap count
#: (:func:`eigengap_floor_count`). The block model's one between-speaker Gaussian makes the closest voices of a
#: conversation cheaper merged: on the development corpus's cosine conversations of 5 or more speakers its bound
#: prefers the merged partition to the true one by 150 to 360 nats (started from the truth, it merges too), and a
#: Gaussian per pair of speakers, with or without a shared precision, instead splits off the windows that straddle a
#: change of speaker (2 speakers found as 3) and splits AMI ES2005a (5 to 7 of 4). The eigengap of NME-SC's graph
#: counts voices from the order of each row's scores and does not share that bias, but fails alone (6 speakers as 1,
#: 9 as 2). Development corpus, right K and mean DER of the
#: default call on its cosines: Bayesian model alone 13/24 (20.2 %), NME-SC alone 15/24 (13.0 %), the Bayesian model
#: with the floor 16/24 (13.0 %); the floor from the normalised spectral eigengap instead 12/24 (18.3 %). Not on LLRs:
#: there the model finds 18 of the 20 PLDA matrices alone and NME-SC finds 5 speakers on ES2005a.
EIGENGAP_FLOOR_KINDS = ("cosine",)


def block_gaussians(scores: np.ndarray, labels: np.ndarray):
    """Maximum-likelihood Gaussians of the pooled within-speaker scores and of every between-speaker block.

    Pairs i < j only (the diagonal is not a comparison). Returns (within GaussianFit, between means, variances,
    counts), the K x K matrices with a NaN diagonal.
    """
    labels = np.asarray(labels)
    k = int(labels.max()) + 1 if labels.size else 0
    onehot = np.eye(k)[labels]
    d = scores.copy()
    np.fill_diagonal(d, 0.0)
    n = onehot.sum(axis=0)
    pairs = np.outer(n, n) - onehot.T @ onehot
    sums = onehot.T @ (d @ onehot)
    squares = onehot.T @ ((d * d) @ onehot)
    w_pairs = 0.5 * np.trace(pairs)
    if w_pairs > 0:
        w_mean = 0.5 * np.trace(sums) / w_pairs
        within = GaussianFit(float(w_mean), float(max(0.5 * np.trace(squares) / w_pairs - w_mean**2, 0.0)),
                             float(w_pairs))
    else:
        within = GaussianFit(float("nan"), float("nan"), 0.0)
    off = ~np.eye(k, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(off & (pairs > 0), sums / pairs, np.nan)
        variances = np.where(off & (pairs > 0), np.maximum(squares / pairs - means**2, 0.0), np.nan)
    return within, means, variances, np.where(off, pairs, np.nan)


def block_mean_matrix(scores, labels) -> pd.DataFrame:
    """K x K table of the mean score of every block (rows and columns: clusters; diagonal: pairs inside a cluster,
    the diagonal of the matrix left out)."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels)
    k = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=k)
    onehot = np.eye(k)[labels]
    sums = onehot.T @ (scores - np.diag(np.diag(scores))) @ onehot
    pairs = np.outer(sizes, sizes) - np.diag(sizes)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(pairs > 0, sums / np.maximum(pairs, 1), np.nan)
    return pd.DataFrame(means, index=pd.RangeIndex(k, name="cluster"), columns=[str(c) for c in range(k)])


def cluster_summary(scores, result: ClusteringResult, *, reference=None, start=None, end=None) -> pd.DataFrame:
    """One row per cluster: its size, speech time, mean score inside it, its closest other cluster, and (with a
    reference) the reference speaker it is mapped to and the share of its segments that are that speaker's.

    Speech time (with `start`/`end`) is the time the cluster's segments own once overlaps of consecutive windows
    are split at their midpoints (the turns of :meth:`ClusteringResult.turns`).
    """
    labels = result.labels
    k = result.n_clusters
    sizes = np.bincount(labels, minlength=k)
    means = block_mean_matrix(scores, labels).to_numpy()
    table = pd.DataFrame({"cluster": np.arange(k), "segments": sizes})
    if start is not None and end is not None:
        turns = result.turns(start, end)
        seconds = (turns["end"] - turns["start"]).groupby(turns["speaker"].str[3:].astype(int)).sum()
        table["speech (s)"] = seconds.reindex(range(k), fill_value=0.0).to_numpy()
    table["mean score within"] = np.diag(means)
    if k > 1:
        between = np.where(np.eye(k, dtype=bool) | np.isnan(means), -np.inf, means)
        closest = np.argmax(between, axis=1)
        table["closest cluster"] = closest
        table["mean score with it"] = between[np.arange(k), closest]
    if reference is not None:
        reference = np.asarray(reference).astype(str)
        mapping = optimal_mapping(labels, reference)
        table["reference speaker"] = [mapping.get(c, "") for c in range(k)]
        table["agreement"] = [float(np.mean(reference[labels == c] == mapping[c])) if c in mapping else 0.0
                              for c in range(k)]
    return table


def _check_bounds(n: int, n_clusters, min_clusters, max_clusters) -> tuple[int, int]:
    if n_clusters is not None:
        n_clusters = int(n_clusters)
        if not 1 <= n_clusters <= n:
            raise ValueError(f"The number of speakers must be between 1 and the number of segments ({n}), "
                             f"not {n_clusters}.")
        return n_clusters, n_clusters
    low = max(int(min_clusters), 1)
    high = min(int(max_clusters) if max_clusters is not None else DEFAULT_MAX_CLUSTERS, n)
    if low > n:
        raise ValueError(f"At least {low} speakers were asked for, but there are only {n} segments.")
    if low > high:
        raise ValueError(f"The minimum number of speakers ({low}) is above the maximum ({high}).")
    return low, high


def cluster_similarity(S: SimilarityMatrix | ArrayLike, method: str = "bayes", *, n_clusters: int | None = None,
                       min_clusters: int = 1, max_clusters: int | None = None,
                       effective_scores: float = EFFECTIVE_SCORES, mean_turn: float = MEAN_TURN,
                       min_speech: float = MIN_SPEECH, concentration: float = 1.0,
                       prior_strength: float = PRIOR_STRENGTH, prior: BlockModelPrior | str | None = None,
                       threshold: float | None = None, min_cluster_size: int | None = None, eigengap_floor: bool = True,
                       seed: int = 0, progress: Callable[[Progress], object] | None = None) -> ClusteringResult:
    """Cluster speech segments given only the matrix of their pairwise scores.

    Parameters
    ----------
    S : SimilarityMatrix or array_like, shape (N, N)
        Scores (higher = more alike); symmetrised with a warning if needed; NaN and inf are refused.
    method : {"bayes", "ahc", "spectral", "nme-sc"}
        ``"bayes"``: a Gaussian block model (one pooled within-speaker Gaussian, one tied between-speaker Gaussian or,
        for segments without times, one per pair of speakers, Normal-Gamma priors, the score likelihood tempered by
        `effective_scores`) with speaker weights from a truncated Dirichlet-process stick-breaking prior and, for
        segments with times, a sticky Markov chain over the segments in time order (a new speaker pays per speaker
        change, loop probability from `mean_turn`; without times the segments are independent draws); mean-field
        variational inference (forward-backward for q(z)) from several initialisations (spectral with K around the
        eigengap estimate, AHC, over-clustered AHC, one speaker), with merge moves, and clusters below `min_speech` or
        whose own pairs score more like two speakers than one (by more than
        :data:`~llrcore.diarization.model.MIN_COHERENCE` nats per pair: scattered low-quality windows) merged, kept by
        the best evidence bound; on cosines with the default prior, at least NME-SC's count of speakers
        (`eigengap_floor`); see :mod:`llrcore.diarization.model`. ``"ahc"``: average linkage stopped at the crossing
        of the two Gaussians of the
        score mixture, clusters smaller than `min_cluster_size` dissolved. ``"spectral"``: normalised spectral
        clustering, K by eigengap (or given). ``"nme-sc"``: spectral clustering auto-tuned by the normalised maximum
        eigengap (Park et al. 2020; p-neighbour binarisation of each row, unnormalised Laplacian, p and K by the
        eigengap; LLR-like scores through a sigmoid first), see :mod:`llrcore.diarization.nme_sc`; at most 8 speakers
        unless `max_clusters` is given (NeMo's default; a warning says when the eigengap would choose more, and
        ``result.options["nme_uncapped_clusters"]`` how many); ``result.options`` holds the chosen ``p`` and the
        ``nme_search`` table.
    n_clusters : int, optional
        Exact number of speakers (then `min_clusters`/`max_clusters` are ignored): every method returns exactly
        this many non-empty clusters. AHC cuts the tree after its first N - K merges; spectral methods take K
        eigenvectors and k-means with K non-empty clusters; the block model keeps K clusters through the fit (an
        emptied cluster is re-seeded by splitting the cluster whose bisection gains most, see
        :func:`~llrcore.diarization.model.fit_block_model`). More speakers than segments is a ValueError.
    min_clusters, max_clusters : int
        Bounds on the number of speakers, honoured by every method; `max_clusters` defaults to
        :data:`DEFAULT_MAX_CLUSTERS` and is also the truncation of the Dirichlet process.
    effective_scores : float
        Bayes: evidence per independent segment. The score likelihood is tempered by ``effective_scores * f /
        (N - 1)``, where ``f = min(1, shift / length)`` for windows of median length `length` every `shift`
        seconds (overlapping windows share their audio) and ``f =`` :data:`SHARE_WITHOUT_TIMES` (1/6, x-vector
        windows) for a matrix without times: there, independent scores need ``effective_scores = 6 * e`` for
        ``e`` per segment.
    mean_turn : float
        Bayes, segments with times: seconds a speaker keeps the floor on average; the loop probability of the
        sticky chain over the segments in time order is ``exp(-shift / mean_turn)``
        (:mod:`llrcore.diarization.chain`). A matrix without times has no order: its segments are independent
        draws (the Dirichlet-process mixture).
    min_speech : float
        Bayes, segments with times: a speaker speaks at least this many seconds, counted as the time its turns
        hold (the union of the windows of each turn, an overlap with another speaker's window split at its
        midpoint, as in :meth:`ClusteringResult.turns`); a smaller cluster is merged into its best partner (a
        one-window outlier is not a speaker).
        Without times the smallest speaker is `min_cluster_size` segments.
    concentration : float
        Bayes: alpha of the Dirichlet process (the stick-breaking prior of the speaker weights), for the default
        prior and ``prior="recording"``.
    prior_strength : float
        Bayes, ``prior="recording"``: kappa0, the weight of the prior means of the Gaussians in (tempered) scores:
        how firmly within-speaker means are held above between-speaker means.
    prior : BlockModelPrior or str, optional
        Bayes: the prior of the within- and between-speaker Gaussians. Default: by the kind of scores
        (:func:`~llrcore.diarization.block_prior.prior_for_scores`): cosines (every score in [-1, 1]) get the
        ``"resemblyzer-1.5s-espeak"`` preset's means and variances, LLRs the ``"simulated-plda-1.5s"`` one's, held
        as loosely as the development corpus's recordings differ (kappa0 = 15, a0 = 25), so that another embedder's
        or PLDA's scale still moves them; ``result.options["prior_source"]`` names it, and ``count_probability``,
        ``eigengap_ratio``, ``count_sure`` and ``floor_met_by`` say how sure the count is (:func:`count_confidence`,
        :data:`FLOOR_MET_BY`; :meth:`ClusteringResult.sentence`). ``"recording"``: from a two-Gaussian fit of this
        recording's scores (with `concentration` and `prior_strength`). A name of
        :data:`~llrcore.diarization.block_prior.PRESETS` (``"resemblyzer-1.5s-espeak"``, ``"simulated-plda-1.5s"``;
        the former names of :data:`~llrcore.diarization.block_prior.PRESET_ALIASES` too, for this release, with a
        FutureWarning), held firmly, or a prior learnt from labelled recordings of the same embedder
        (:func:`~llrcore.fit_diarization_prior`, or read with ``BlockModelPrior.from_json``): it fixes what "same"
        and "different" speaker look like (docs/diarization.md).
    threshold : float, optional
        AHC: stop merging below this average score (default: from the score mixture).
    min_cluster_size : int, optional
        AHC: smaller clusters are dissolved; Bayes without times: the smallest speaker (default 2 % of the
        segments, at least 2).
    eigengap_floor : bool
        Bayes with the default prior, cosine scores and the number of speakers not given: keep at least as many
        speakers as NME-SC's eigengap count (within `max_clusters`; :data:`EIGENGAP_FLOOR_KINDS` says why);
        ``result.options["eigengap_floor"]`` holds it (None when not used). False: the block model's count alone.
    seed : int
        k-means seeding of spectral clustering and NME-SC.
    progress : callable, optional
        Bayes: called with a :class:`~llrcore.diarization.model.Progress` (run, iteration, bound, clusters)
        after every iteration of every run.

    Returns
    -------
    ClusteringResult

    Examples
    --------
    >>> S = lc.read_similarity("ES2005a_similarity.npz", key="S_llr")        # doctest: +SKIP
    >>> result = lc.cluster_similarity(S)                                     # doctest: +SKIP
    >>> result.n_clusters, result.n_clusters_posterior                        # doctest: +SKIP
    """
    began = time.perf_counter()
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    if isinstance(S, SimilarityMatrix):
        scores = np.asarray(S.scores)
    else:
        scores, note = as_similarity(S)
        if note:
            warnings.warn(note, UserWarning, stacklevel=2)
    n = scores.shape[0]
    low, high = _check_bounds(n, n_clusters, min_clusters, max_clusters)
    if min(effective_scores, concentration, prior_strength, mean_turn) <= 0 or min_speech < 0:
        raise ValueError("effective_scores, mean_turn, concentration and prior_strength must be positive and "
                         "min_speech not negative.")
    options: dict[str, Any] = dict(n_clusters=n_clusters, min_clusters=low, max_clusters=high,
                                   effective_scores=effective_scores, mean_turn=mean_turn, min_speech=min_speech,
                                   concentration=concentration, prior_strength=prior_strength, threshold=threshold,
                                   min_cluster_size=min_cluster_size, seed=seed, eigengap_floor=None,
                                   floor_met_by=None)

    if n == 1:
        mixture = ScoreMixture(0.5, GaussianFit(np.nan, np.nan), GaussianFit(np.nan, np.nan))
        labels = np.zeros(1, dtype=np.int64)
        within, means, variances, counts = block_gaussians(scores, labels)
        return ClusteringResult(method, labels, np.ones((1, 1)), within, means, variances, counts, mixture,
                                seconds=time.perf_counter() - began, options=options)

    mixture = fit_score_mixture(scores)
    extra: dict = {}
    if method == "nme-sc":
        nme_high = high if max_clusters is not None else min(high, max(low, NME_MAX_SPEAKERS))
        capped = nme_high < high and n_clusters is None
        fit = nme_sc(scores, n_clusters=n_clusters, min_clusters=low, max_clusters=nme_high, seed=seed,
                     uncapped=high if capped else None)
        labels = fit.labels
        if capped and fit.uncapped_clusters is not None and fit.uncapped_clusters > nme_high:
            warnings.warn(f"NME-SC looks for at most {nme_high} speakers by default (NeMo's default) and returns "
                          f"{fit.n_clusters}, but allowed up to {high} its eigengap would say "
                          f"{fit.uncapped_clusters} speakers: pass max_clusters={high} if the recording may have more "
                          f"than {nme_high}.", UserWarning, stacklevel=2)
            extra_options = {"nme_uncapped_clusters": fit.uncapped_clusters}
        else:
            extra_options = {}
        extra["eigenvalues"] = fit.eigenvalues
        options = {**options, "p": fit.p, "estimated_clusters": fit.estimated_clusters, "nme_search": fit.search,
                   **extra_options}
    elif method == "ahc":
        labels, used = ahc_labels(scores, mixture, threshold=threshold, n_clusters=n_clusters,
                                  min_clusters=low, max_clusters=high, min_cluster_size=min_cluster_size)
        extra["threshold"] = used
    else:
        floor_fit = None
        if method == "bayes" and eigengap_floor and n_clusters is None and prior is None:
            floor_fit = _eigengap_floor_fit(scores, low, high, seed)
            options["eigengap_floor"] = floor = None if floor_fit is None else floor_fit.n_clusters
            unfloored, low = low, max(low, floor or low)
        embedding = spectral_embedding(scores, mixture, min(high + 1, n))
        extra["eigenvalues"] = embedding.eigenvalues
        k_hat = n_clusters if n_clusters is not None else eigengap_clusters(embedding.eigenvalues, low, high)
        if method == "spectral":
            labels = spectral_labels(embedding, k_hat, seed=seed)
        else:
            inits = _initial_partitions(scores, mixture, embedding, k_hat, low, high, n_clusters,
                                        min_cluster_size, seed)
            prior, options["prior_source"] = _block_prior(prior, scores, mixture, concentration, prior_strength)
            timing = _chain_options(S, effective_scores, mean_turn, min_speech, min_cluster_size)
            result = fit_block_model(scores, inits, prior=prior, min_clusters=low, max_clusters=high,
                                     progress=progress, **timing)
            floor_ratio = None
            if floor_fit is not None and low > unfloored and result.n_clusters == low:
                floor_ratio = eigengap_ratio(floor_fit.eigenvalues, unfloored,
                                             max(unfloored, min(high, NME_MAX_SPEAKERS)))
                result = _floor_met_by_speakers(scores, result, floor_fit.labels, timing, lambda: fit_block_model(
                    scores, inits, prior=prior, min_clusters=unfloored, max_clusters=high, progress=progress,
                    **timing))
            options = {**options, **result.options}
            options.update(count_confidence(result.n_clusters_posterior, result.n_clusters, options["floor_met_by"],
                                            floor_ratio))
            return dataclasses.replace(result, mixture=mixture, eigenvalues=embedding.eigenvalues,
                                       seconds=time.perf_counter() - began, options=options)
    labels = relabel_by_appearance(labels)
    within, means, variances, counts = block_gaussians(scores, labels)
    return ClusteringResult(method, labels, np.eye(int(labels.max()) + 1)[labels], within, means, variances, counts,
                            mixture, seconds=time.perf_counter() - began, options=options, **extra)


def eigengap_floor_count(scores, low: int, high: int, seed: int = 0) -> int | None:
    """The fewest speakers the default call's block model keeps on these scores: NME-SC's count (Park et al. 2020,
    at most :data:`~llrcore.diarization.nme_sc.MAX_SPEAKERS` as NeMo's default, and within [`low`, `high`]) for
    scores of a kind in :data:`EIGENGAP_FLOOR_KINDS` (cosines), None for others."""
    fit = _eigengap_floor_fit(scores, low, high, seed)
    return None if fit is None else fit.n_clusters


#: The default call's count is sure (``result.options["count_sure"]``, :func:`count_confidence`) when the floor does
#: not bind and the posterior mass of the count is at least this, or when the floor binds, is met by the block
#: model's own speakers and NME-SC's largest eigengap is at least this many times its next largest. Chosen on the
#: development corpus's 24 cosine conversations only (round numbers): sure 11, of which 10 right; unsure 13, of
#: which 6 right (docs/diarization.md; the held-out corpus measured once there).
SURE_COUNT = 0.99
SURE_EIGENGAP_RATIO = 2.0
#: ``result.options["floor_met_by"]`` when the eigengap floor binds (the default call meets NME-SC's count): the block
#: model's partition, every cluster a speaker of at least `min_speech`; NME-SC's own partition, when the block model
#: met the floor with a crumb (a cluster below `min_speech`) and NME-SC's clusters all hold `min_speech`; or the floor
#: refused (the block model refitted without it) when both have crumbs. A floor met by a crumb is not a speaker: on
#: the development corpus the default call met it with crumbs of 1.4-3.8 s on six of its 24 cosine recordings.
FLOOR_MET_BY = ("block model", "NME-SC partition", "refused")


def _speaker_sizes(labels, timing: dict) -> np.ndarray:
    """Each cluster's speech in seconds (segments with times) or its number of segments."""
    weights = window_seconds(*timing["times"]) if "times" in timing else None
    return np.bincount(labels, weights=weights)


def _floor_met_by_speakers(scores, result: ClusteringResult, floor_labels, timing: dict, refit) -> ClusteringResult:
    """The default call's result when the eigengap floor binds: a partition whose clusters are all speakers
    (:data:`FLOOR_MET_BY`); `refit` fits the block model without the floor."""
    smallest = timing["min_cluster_size"]
    if _speaker_sizes(result.labels, timing).min() >= smallest:
        met_by = FLOOR_MET_BY[0]
    elif _speaker_sizes(floor_labels, timing).min() >= smallest:
        labels = relabel_by_appearance(floor_labels)
        within, means, variances, counts = block_gaussians(scores, labels)
        result = dataclasses.replace(result, labels=labels, responsibilities=np.eye(int(labels.max()) + 1)[labels],
                                     within=within, between_means=means, between_variances=variances,
                                     between_counts=counts, elbo=None)
        met_by = FLOOR_MET_BY[1]
    else:
        result, met_by = refit(), FLOOR_MET_BY[2]
    return dataclasses.replace(result, options={**result.options, "floor_met_by": met_by})


def eigengap_ratio(eigenvalues, low: int, high: int) -> float:
    """How clearly NME-SC's eigengap picks its count: the largest gap ``lambda_{k+1} - lambda_k`` over
    ``low <= k <= high`` divided by the next largest (inf when only one k is allowed)."""
    gaps = np.diff(np.asarray(eigenvalues, dtype=np.float64))
    window = np.sort(gaps[low - 1:min(high, gaps.size)])[::-1]
    return float(window[0] / window[1]) if window.size > 1 and window[1] > 0 else float("inf")


def count_confidence(posterior, n_clusters: int, floor_met_by: str | None, floor_ratio: float | None) -> dict:
    """How sure the default call's count is (``result.options``):

    ``count_probability``, the posterior mass of the chosen number of speakers (the runs' best bound per K,
    normalised; on the development corpus it is 1.00 on 22 of its 24 cosine recordings, right or wrong: the runs
    agree, which says little); ``eigengap_ratio``, when the floor binds (the count is NME-SC's), how clearly NME-SC's
    eigengap picks it (:func:`eigengap_ratio`); ``count_sure``: a binding floor met by the block model's own
    speakers with a ratio of at least :data:`SURE_EIGENGAP_RATIO`, else a posterior mass of at least
    :data:`SURE_COUNT`.
    """
    probability = float(posterior.get(n_clusters, 0.0)) if posterior is not None else float("nan")
    if floor_met_by is None:
        sure = probability >= SURE_COUNT
    else:
        sure = floor_met_by == FLOOR_MET_BY[0] and floor_ratio is not None and floor_ratio >= SURE_EIGENGAP_RATIO
    return {"count_probability": probability, "eigengap_ratio": floor_ratio, "count_sure": bool(sure)}


def _eigengap_floor_fit(scores, low: int, high: int, seed: int):
    """NME-SC's fit whose count is :func:`eigengap_floor_count`, or None."""
    if score_kind(scores) not in EIGENGAP_FLOOR_KINDS:
        return None
    return nme_sc(scores, min_clusters=low, max_clusters=max(low, min(high, NME_MAX_SPEAKERS)), seed=seed)


def _block_prior(prior, scores, mixture, concentration: float, prior_strength: float
                 ) -> tuple[BlockModelPrior, str]:
    """The block model's prior and where it came from: by the kind of scores (None), from the recording's own
    two-Gaussian fit (:data:`OWN_FIT`), a preset by name, or the prior given."""
    if prior is None:
        name, chosen = prior_for_scores(scores, concentration=concentration)
        return chosen, f"{name} (by the kind of scores)"
    if isinstance(prior, BlockModelPrior):
        source = prior.learnt_on
        return prior, "given" if source is None else f"given, learnt on {source.recordings} recordings"
    if prior == OWN_FIT:
        return BlockModelPrior.from_mixture(mixture, concentration=concentration,
                                            mean_strength=prior_strength), OWN_FIT
    name = PRESET_ALIASES.get(prior, prior)
    if name != prior:
        warnings.warn(f"The prior {prior!r} is now called {name!r}; the old name works in this release only.",
                      OldSpellingWarning, stacklevel=3)
    if name not in PRESETS:
        raise ValueError(f"Unknown prior {prior!r}; choose one of {', '.join([OWN_FIT, *PRESETS])}, or learn one "
                         "with lc.fit_diarization_prior.")
    return PRESETS[name], name


def _chain_options(S, effective_scores: float, mean_turn: float, min_speech: float, min_cluster_size) -> dict:
    """The block model's options that come from the segment times: evidence per (overlapping) segment, the loop
    probability of the chain and the smallest speaker in segments (see :func:`cluster_similarity`); without times,
    one between-speaker Gaussian per pair of speakers (no chain makes a speaker pay for its turns there, and one tied
    Gaussian merges a close pair: :mod:`llrcore.diarization.model`)."""
    if isinstance(S, SimilarityMatrix) and S.start is not None and S.end is not None and S.n_segments > 1:  # times
        shift = median_shift(S.start)
        length = float(np.median(S.end - S.start))
        share = min(1.0, shift / length) if length > 0 else 1.0
        return {"effective_scores": effective_scores * share, "loop": loop_probability(S.start, mean_turn),
                "min_cluster_size": min_speech, "times": (np.asarray(S.start), np.asarray(S.end))}
    n = int(np.asarray(S.scores if isinstance(S, SimilarityMatrix) else S).shape[0])
    size = default_min_cluster_size(n) if min_cluster_size is None else int(min_cluster_size)
    return {"effective_scores": effective_scores * SHARE_WITHOUT_TIMES, "loop": 0.0, "min_cluster_size": size,
            "pair_between": True}


def _initial_partitions(scores, mixture, embedding, k_hat, low, high, n_clusters, min_cluster_size, seed) -> dict:
    """Starting partitions of the block model: spectral around the eigengap K, AHC, over-clustered AHC (at least
    :data:`OVER_CLUSTERED` clusters, or 2 K + 2 for the eigengap's K, within the bounds), one speaker.

    The names say where each came from (they label the runs in the result).
    """
    n = scores.shape[0]
    inits: dict[str, np.ndarray] = {}
    if n_clusters is not None:
        ks = [n_clusters]
    else:
        ks = [k for k in range(k_hat - 1, k_hat + 3) if low <= k <= high]
    if 1 in ks or (n_clusters is None and low <= 1):
        inits["one speaker"] = np.zeros(n, dtype=np.int64)
    for k in ks:
        if k >= 2:
            inits[f"spectral K={k}"] = spectral_labels(embedding, k, seed=seed)
    if n_clusters is not None:
        if n_clusters >= 2:
            inits[f"AHC K={n_clusters}"] = ahc_labels(scores, mixture, n_clusters=n_clusters)[0]
        return inits
    ahc, _ = ahc_labels(scores, mixture, min_clusters=low, max_clusters=high, min_cluster_size=min_cluster_size)
    inits[f"AHC (threshold) K={int(ahc.max()) + 1}"] = ahc
    over = min(high, max(2 * k_hat + 2, low, OVER_CLUSTERED), n)
    if over >= 2:
        inits[f"AHC over-clustered K={over}"] = ahc_labels(scores, mixture, n_clusters=over)[0]
    return inits
