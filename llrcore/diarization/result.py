"""The result of clustering a similarity matrix, the same for every method (the block model and the baselines)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .gaussians import GaussianFit, ScoreMixture
from .scoring import segments_to_turns

__all__ = ["ClusteringResult"]


@dataclass(frozen=True)
class ClusteringResult:
    """Outcome of :func:`cluster_similarity`, the same for every method.

    Attributes
    ----------
    method : str
        ``"bayes"``, ``"ahc"``, ``"spectral"`` or ``"nme-sc"``.
    labels : ndarray of int, shape (N,)
        Speaker of each segment, numbered 0..K-1 in order of first appearance.
    responsibilities : ndarray, shape (N, K)
        Posterior ``q(z_i = k)`` of the block model; one-hot for the baselines.
    within : GaussianFit
        Gaussian of the within-speaker scores (block model: posterior mean; baselines: fitted to the clusters).
    between_means, between_variances, between_counts : ndarray, shape (K, K)
        Gaussian of the scores between every pair of clusters (NaN diagonal); counts are numbers of pairs.
    mixture : ScoreMixture or None
        Two-Gaussian fit of all scores (no labels): the AHC threshold, spectral affinities and Bayes prior.
    elbo : float or None
        Evidence lower bound of the block model.
    trace, runs : pandas.DataFrame or None
        Block model: the bound at every iteration of every run, and one row per initialisation.
    n_clusters_posterior : pandas.Series or None
        Block model: approximate posterior probability of each number of speakers reached by some run.
    threshold : float or None
        AHC: the score threshold of the cut.
    eigenvalues : ndarray or None
        Spectral (and Bayes, whose initialisations use it): top eigenvalues of the normalised affinity; NME-SC:
        the smallest eigenvalues of the Laplacian of its p-neighbour graph.
    seconds : float
        Wall time of the call.
    options : dict
        The options the method ran with (Bayes: also ``beta``, the tempering factor, and ``prior``, the
        :class:`~llrcore.diarization.block_prior.BlockModelPrior`).
    """

    method: str
    labels: np.ndarray
    responsibilities: np.ndarray
    within: GaussianFit
    between_means: np.ndarray
    between_variances: np.ndarray
    between_counts: np.ndarray
    mixture: ScoreMixture | None = None
    elbo: float | None = None
    trace: pd.DataFrame | None = None
    runs: pd.DataFrame | None = None
    n_clusters_posterior: pd.Series | None = None
    threshold: float | None = None
    eigenvalues: np.ndarray | None = None
    seconds: float = 0.0
    options: dict = field(default_factory=dict)

    @property
    def n_clusters(self) -> int:
        return int(self.responsibilities.shape[1])

    @property
    def cluster_sizes(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=self.n_clusters)

    @property
    def between(self) -> GaussianFit | None:
        """All between-speaker blocks pooled into one Gaussian (moments of the mixture of the block Gaussians)."""
        upper = np.triu_indices(self.n_clusters, 1)
        counts = self.between_counts[upper]
        if counts.size == 0 or counts.sum() <= 0:
            return None
        weights = counts / counts.sum()
        means, variances = self.between_means[upper], self.between_variances[upper]
        mean = float(weights @ means)
        return GaussianFit(mean, float(weights @ (variances + (means - mean) ** 2)), float(counts.sum()))

    def sentence(self) -> str:
        """What was found in one sentence; for the block model also which prior it used, how sure its count is
        (``options["count_probability"]``, ``options["count_sure"]``), how a binding floor was met, and, when unsure,
        the advice to learn a prior from a few labelled recordings (:func:`~llrcore.fit_diarization_prior`)."""
        plural = "" if self.n_clusters == 1 else "s"
        text = f"{self.n_clusters} speaker{plural} found by {self.method}"
        options = self.options
        if self.method != "bayes" or "count_probability" not in options:
            return text + "."
        text += (f" (prior: {options.get('prior_source')}); posterior mass of this count "
                 f"{options['count_probability']:.2f}")
        if options.get("eigengap_ratio") is not None:
            text += (f", the count is NME-SC's (the fewest kept), its largest eigengap {options['eigengap_ratio']:.1f} "
                     "times the next")
        met_by = options.get("floor_met_by")
        if met_by == "NME-SC partition":
            text += ("; the block model met NME-SC's count with a crumb (a cluster below min_speech), so the "
                     "partition is NME-SC's")
        elif met_by == "refused":
            text += ("; NME-SC's count could only be met with crumbs (clusters below min_speech), so it was not "
                     "kept as the fewest speakers")
        if options.get("count_sure"):
            return text + "."
        if "(by the kind of scores)" not in str(options.get("prior_source")):  # a prior was chosen: no advice
            return text + ". The count is unsure."
        return (text + ". The count is unsure: learn a prior from a few labelled recordings of the same embedder "
                "(lc.fit_diarization_prior, llrcore diarize --learn, or the Diarization page).")

    def to_frame(self, start=None, end=None) -> pd.DataFrame:
        """The labels as a table: one row per segment, ``segment`` (its row of the matrix), ``start`` and ``end`` in
        seconds when the times are given, and its ``cluster`` (0..K-1, numbered by first appearance)."""
        frame = pd.DataFrame({"segment": np.arange(self.labels.size)})
        if (start is None) != (end is None):
            raise ValueError("Give both start and end, or neither.")
        if start is not None:
            start, end = np.asarray(start), np.asarray(end)
            if start.shape != self.labels.shape or end.shape != self.labels.shape:
                raise ValueError(f"The times need one start and one end per segment ({self.labels.size}); got "
                                 f"{start.size} and {end.size}.")
            frame["start"], frame["end"] = start, end
        frame["cluster"] = self.labels
        return frame

    def turns(self, start, end, uri: str = "recording") -> pd.DataFrame:
        """Speaker turns (overlaps of consecutive windows split at their midpoint); speakers named ``spk<k>``."""
        names = np.array([f"spk{k}" for k in range(self.n_clusters)])
        return segments_to_turns(start, end, names[self.labels], uri=uri)
