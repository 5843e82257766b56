"""The classic ways to cluster a similarity matrix, as baselines for the block model and as its initialisations.

- **AHC**: average-linkage agglomerative clustering (the workhorse of diarization, e.g. VBx's initialisation),
  stopped where the average score between two clusters falls below the threshold at which the two Gaussians of the
  score mixture cross; clusters smaller than a minimum size are dissolved into the clusters their segments score
  highest with on average.
- **Spectral**: Ng-Jordan-Weiss spectral clustering of the affinity ``p_within(s_ij)`` (the mixture's posterior
  probability that a pair is same-speaker): the top eigenvectors of ``D^-1/2 A D^-1/2``, rows normalised to unit
  length, k-means; the number of speakers from the largest gap between consecutive eigenvalues (eigengap).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.sparse.linalg import ArpackNoConvergence, eigsh
from scipy.spatial.distance import squareform

from .gaussians import ScoreMixture

__all__ = ["ahc_labels", "cut_tree_at",
           "SpectralEmbedding", "spectral_embedding", "spectral_labels", "eigengap_clusters",
           "kmeans", "default_min_cluster_size", "relabel_by_appearance"]

#: Below this many segments the spectral embedding uses a dense eigen-solver (ARPACK above).
_DENSE_EIGEN_LIMIT = 600


def relabel_by_appearance(labels) -> np.ndarray:
    """Labels renumbered 0, 1, ... in the order in which they first appear."""
    labels = np.asarray(labels)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inverse.reshape(-1)]


def default_min_cluster_size(n: int) -> int:
    """Clusters of AHC smaller than this (2 % of the segments, at least 2) are dissolved."""
    return max(2, int(np.ceil(0.02 * n)))


# ----- AHC -------------------------------------------------------------------------------------------------------


def _average_linkage(scores: np.ndarray) -> tuple[np.ndarray, float]:
    """Average-linkage tree of the distances ``max(S) - S``; returns (linkage matrix, max(S))."""
    top = float(scores.max())
    distance = top - scores
    np.fill_diagonal(distance, 0.0)
    return linkage(squareform(distance, checks=False), method="average"), top


def _dissolve_small(scores: np.ndarray, labels: np.ndarray, min_size: int) -> np.ndarray:
    """Move the segments of clusters smaller than `min_size` to the kept cluster with the highest mean score."""
    ids, counts = np.unique(labels, return_counts=True)
    kept = ids[counts >= min_size]
    if kept.size == 0:
        kept = ids[[np.argmax(counts)]]
    if kept.size == ids.size:
        return labels
    members = (labels[None, :] == kept[:, None]).astype(np.float64)  # (kept, N)
    mean_score = (scores @ members.T) / members.sum(axis=1)  # (N, kept); a segment's own score counts too, harmless
    moved = ~np.isin(labels, kept)
    labels = labels.copy()
    labels[moved] = kept[np.argmax(mean_score[moved], axis=1)]
    return labels


def cut_tree_at(tree: np.ndarray, k: int) -> np.ndarray:
    """Exactly `k` clusters from a linkage tree: the partition left after its first ``N - k`` merges.

    ``fcluster(..., criterion="maxclust")`` cuts at a height and returns fewer clusters when merges tie in height;
    this never does (as ``scipy.cluster.hierarchy.cut_tree``, in O(N)). Labels are the ids of the subtrees.
    """
    n = tree.shape[0] + 1
    parent = np.full(2 * n - 1, -1)
    for step in range(n - int(k)):
        parent[tree[step, :2].astype(np.int64)] = n + step
    top = np.arange(2 * n - 1)
    for node in range(2 * n - 2, -1, -1):  # a parent's id is above its children's: its top is known already
        if parent[node] >= 0:
            top[node] = top[parent[node]]
    return top[:n]


def ahc_labels(scores: np.ndarray, mixture: ScoreMixture, *, threshold: float | None = None,
               n_clusters: int | None = None, min_clusters: int = 1, max_clusters: int | None = None,
               min_cluster_size: int | None = None) -> tuple[np.ndarray, float]:
    """Average-linkage AHC; returns (labels numbered by first appearance, the score threshold used).

    Parameters
    ----------
    threshold : float, optional
        Merge while the average score between two clusters is at least this; default the crossing point of the
        two Gaussians of `mixture` (:attr:`ScoreMixture.threshold`).
    n_clusters : int, optional
        Cut the tree into exactly this many clusters instead (no threshold, nothing dissolved; :func:`cut_tree_at`).
    min_clusters, max_clusters : int
        Bounds on the number of clusters after dissolving small ones (the tree is cut at exactly the bound
        otherwise).
    min_cluster_size : int, optional
        Default :func:`default_min_cluster_size`.
    """
    n = scores.shape[0]
    if n == 1:
        return np.zeros(1, dtype=np.int64), float("nan")
    tree, top = _average_linkage(scores)
    if n_clusters is not None:
        return relabel_by_appearance(cut_tree_at(tree, n_clusters)), float("nan")
    threshold = mixture.threshold if threshold is None else float(threshold)
    labels = fcluster(tree, max(top - threshold, 0.0), criterion="distance")
    size = default_min_cluster_size(n) if min_cluster_size is None else int(min_cluster_size)
    labels = _dissolve_small(scores, labels, size)
    k = np.unique(labels).size
    if k < min_clusters or (max_clusters is not None and k > max_clusters):
        bound = min_clusters if k < min_clusters or max_clusters is None else max_clusters
        labels = cut_tree_at(tree, bound)
    return relabel_by_appearance(labels), threshold


# ----- spectral --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpectralEmbedding:
    """Top eigenvalues (descending) and eigenvectors of the normalised affinity ``D^-1/2 A D^-1/2``."""

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray


def spectral_embedding(scores: np.ndarray, mixture: ScoreMixture, n_eigen: int) -> SpectralEmbedding:
    """Eigen-decomposition behind spectral clustering, computed once for every K tried.

    The affinity is ``A_ij = p_within(s_ij)`` (zero diagonal); ``n_eigen`` eigenpairs with the largest eigenvalues of
    ``D^-1/2 A D^-1/2`` (dense LAPACK for small matrices, ARPACK's Lanczos iteration for large ones).
    """
    n = scores.shape[0]
    affinity = mixture.p_within(scores)
    np.fill_diagonal(affinity, 0.0)
    degree = affinity.sum(axis=1)
    inv_sqrt = 1.0 / np.sqrt(np.maximum(degree, 1e-300))
    normalised = affinity * inv_sqrt[:, None] * inv_sqrt[None, :]
    k = int(min(max(n_eigen, 1), n))
    if n <= _DENSE_EIGEN_LIMIT or k >= n - 1:
        values, vectors = scipy.linalg.eigh(normalised, subset_by_index=[n - k, n - 1])
    else:
        try:
            values, vectors = eigsh(normalised, k=k, which="LA", v0=np.sqrt(np.maximum(degree, 0)) + 1e-3,
                                    tol=1e-8)
        except ArpackNoConvergence:  # pragma: no cover - dense fallback, slower but always converges
            values, vectors = scipy.linalg.eigh(normalised, subset_by_index=[n - k, n - 1])
    order = np.argsort(-values)
    return SpectralEmbedding(values[order], vectors[:, order])


def eigengap_clusters(eigenvalues: np.ndarray, min_clusters: int = 1, max_clusters: int | None = None) -> int:
    """Number of clusters at the largest gap ``mu_k - mu_{k+1}`` between consecutive eigenvalues (descending).

    K = 1 is only returned when ``max_clusters == 1``: the first eigenvalue of a normalised affinity is always 1 and
    the gap after it says nothing about speakers (the eigengap rule cannot tell one speaker from several).
    """
    gaps = -np.diff(eigenvalues)
    min_clusters = max(min_clusters, 2 if max_clusters is None or max_clusters >= 2 else 1)
    if gaps.size == 0:
        return max(min_clusters, 1)
    k_values = np.arange(1, gaps.size + 1)
    allowed = (k_values >= min_clusters) & (k_values <= (max_clusters if max_clusters is not None else gaps.size))
    if not allowed.any():
        return int(np.clip(gaps.size, min_clusters, max_clusters or gaps.size))
    return int(k_values[allowed][np.argmax(gaps[allowed])])


def kmeans(points: np.ndarray, k: int, *, n_init: int = 10, max_iter: int = 300, seed: int = 0) -> np.ndarray:
    """Lloyd's k-means with k-means++ seeding, best of `n_init` starts (lowest inertia); labels in 0..k-1.

    All k clusters are non-empty (k <= number of points): a cluster still empty at the end (identical points) gets
    the point farthest from the centre of the largest cluster, one at a time.
    """
    n = points.shape[0]
    if k <= 1 or n <= 1:
        return np.zeros(n, dtype=np.int64)
    rng = np.random.default_rng(seed)
    sq = np.einsum("ij,ij->i", points, points)
    best_labels, best_inertia = None, np.inf
    for _ in range(n_init):
        picked = [points[rng.integers(n)]]
        closest = np.maximum(sq - 2 * points @ picked[0] + picked[0] @ picked[0], 0.0)
        for _ in range(1, k):
            total = closest.sum()
            pick = rng.choice(n, p=closest / total) if total > 0 else rng.integers(n)
            picked.append(points[pick])
            closest = np.minimum(closest, np.maximum(sq - 2 * points @ points[pick] + points[pick] @ points[pick], 0))
        centres = np.array(picked)
        labels = np.full(n, -1)
        for _ in range(max_iter):
            distance = sq[:, None] - 2 * points @ centres.T + np.einsum("ij,ij->i", centres, centres)[None, :]
            new = np.argmin(distance, axis=1)
            if np.array_equal(new, labels):
                break
            labels = new
            for c in range(k):
                members = labels == c
                if members.any():
                    centres[c] = points[members].mean(axis=0)
                else:  # an empty cluster restarts at the point farthest from its centre
                    far = int(np.argmax(distance[np.arange(n), labels]))
                    centres[c] = points[far]
        inertia = float(distance[np.arange(n), labels].sum())
        if inertia < best_inertia:
            best_labels, best_inertia = labels, inertia
    assert best_labels is not None  # (n_init >= 1 runs)
    return _fill_empty_clusters(points, best_labels, k)


def _fill_empty_clusters(points: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    labels = labels.copy()
    for c in range(k):
        if not np.any(labels == c):
            members = np.flatnonzero(labels == np.argmax(np.bincount(labels, minlength=k)))
            spread = np.sum((points[members] - points[members].mean(axis=0)) ** 2, axis=1)
            labels[members[np.argmax(spread)]] = c
    return labels


def spectral_labels(embedding: SpectralEmbedding, k: int, *, seed: int = 0) -> np.ndarray:
    """Ng-Jordan-Weiss: k-means on the first k eigenvectors with rows normalised; labels by first appearance."""
    if k <= 1:
        return np.zeros(embedding.eigenvectors.shape[0], dtype=np.int64)
    vectors = embedding.eigenvectors[:, :k]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    points = vectors / np.maximum(norms, 1e-300)
    return relabel_by_appearance(kmeans(points, k, seed=seed))
