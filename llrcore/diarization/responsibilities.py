"""Responsibility matrices of the Bayesian block model and the moves the fit makes on them between runs.

A responsibility matrix ``R`` (N x T) holds in row i the probabilities ``q(z_i = k)`` of segment i's speaker, one
column per cluster, columns ordered by expected size (largest first: the stick-breaking order of
:mod:`llrcore.diarization.model`). Here: responsibilities from hard labels (:func:`one_hot`), the clusters that are
some segment's most probable one (:func:`occupied`, :func:`has_empty_cluster`, :func:`compact`), two clusters merged
(:func:`merge_columns`), one split by spectral bisection (:func:`split_least_coherent`) and the hard partition they
give (:func:`hard_partition`). The variational iteration (:mod:`llrcore.diarization.variational`) and its driver
(:func:`llrcore.diarization.model.fit_block_model`) use them; no N^2 work except the bisection of one cluster.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["one_hot", "occupied", "has_empty_cluster", "compact", "merge_columns", "split_least_coherent",
           "bisect", "hard_partition"]


def one_hot(labels: np.ndarray, smoothing: float = 0.05) -> np.ndarray:
    """Responsibilities from hard labels, clusters ordered by size (largest first: the stick-breaking order)."""
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    k = order.size
    R = np.full((labels.size, k), smoothing / k if k > 1 else 0.0)
    R[np.arange(labels.size), rank[inverse]] += 1.0 - (smoothing if k > 1 else 0.0)
    return R


def occupied(R: np.ndarray) -> np.ndarray:
    """Columns that are the most probable cluster of at least one segment."""
    return np.unique(np.argmax(R, axis=1))


def has_empty_cluster(R: np.ndarray) -> bool:
    """Whether a cluster has emptied: expected size below half a segment, and no segment's most probable cluster."""
    empty = R.sum(axis=0) < 0.5
    if not empty.any():
        return False
    empty[occupied(R)] = False
    return bool(empty.any())


def compact(R: np.ndarray) -> np.ndarray:
    """Responsibilities restricted to the occupied clusters (renormalised), ordered by expected size."""
    R = R[:, occupied(R)]
    R = R / R.sum(axis=1, keepdims=True)
    return R[:, np.argsort(-R.sum(axis=0), kind="stable")]


def merge_columns(A: np.ndarray, l: int, m: int) -> np.ndarray:
    """Columns l and m of A (or entries, for a vector) added into one; the others in their order."""
    merged = np.delete(A, m, axis=-1)
    merged[..., l if l < m else l - 1] += A[..., m]
    return merged


def split_least_coherent(D: np.ndarray, R: np.ndarray, bisections: dict | None = None) -> np.ndarray:
    """One cluster more: the hard cluster whose bisection gains most is split in two (a new column of R).

    Each cluster (of the most probable assignments) with two segments or more is bisected by :func:`bisect`. The
    responsibilities of the chosen cluster's column are shared out between the halves, so rows still sum to one;
    columns are reordered by expected size (the stick-breaking order). `bisections`: a memo of :func:`bisect` by
    member set, kept by the caller for one `D` (a fit splits the same clusters again on every re-seed and run).
    """
    hard = np.argmax(R, axis=1)
    best: tuple[float, int | None, np.ndarray | None] = (-np.inf, None, None)  # gain, cluster, second half
    for c in range(R.shape[1]):
        members = np.flatnonzero(hard == c)
        if members.size < 2:
            continue
        key = members.tobytes()
        found = bisections.get(key) if bisections is not None else None
        if found is None:
            found = bisect(D, members)
            if bisections is not None:
                bisections[key] = found
        gain, b = found
        if gain > best[0] or best[1] is None:
            best = (gain, c, b)
    _, split, b = best
    assert split is not None and b is not None, "no cluster of two segments or more to bisect"
    moved = np.zeros(R.shape[0], dtype=bool)
    moved[b] = True
    R = np.column_stack([R, np.where(moved, R[:, split], 0.0)])
    R[moved, split] = 0.0
    return R[:, np.argsort(-R.sum(axis=0), kind="stable")]


def bisect(D: np.ndarray, members: np.ndarray) -> tuple[float, np.ndarray]:
    """The spectral bisection of one cluster and its gain: (gain, the members of the second half).

    The cluster is cut by the sign of the leading eigenvector of its centred block of scores (the two halves score
    high within and low across), at the median of that vector when the sign does not split it. The gain is
    ``n_a n_b / n * (mean score within the halves - mean score across)``, Ward-like: a large cluster merging two
    voices gains most.
    """
    m = members.size
    block = D[np.ix_(members, members)].astype(np.float64)  # zero diagonal
    centred = block - block.sum() / (m * (m - 1))
    np.fill_diagonal(centred, 0.0)
    vector = scipy.linalg.eigh(centred, subset_by_index=[m - 1, m - 1])[1][:, 0]
    side = vector > 0
    if side.all() or not side.any():
        side = vector > np.median(vector)
    if side.all() or not side.any():  # nothing tells them apart: halves in order
        side = np.arange(m) < m // 2
    a, b = members[side], members[~side]
    within = (block[np.ix_(side, side)].sum() + block[np.ix_(~side, ~side)].sum()) / max(
        a.size * (a.size - 1) + b.size * (b.size - 1), 1)
    return float(a.size * b.size / m * (within - block[np.ix_(side, ~side)].mean())), b


def hard_partition(R: np.ndarray) -> tuple:
    """The hard partition of responsibilities, labels numbered by first appearance (to recognise duplicates)."""
    hard = np.argmax(R, axis=1)
    _, first, inverse = np.unique(hard, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first)] = np.arange(first.size)
    return tuple(rank[inverse.reshape(-1)].tolist())
