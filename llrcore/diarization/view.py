"""The similarity matrix as a figure shows it: segments grouped by cluster, the colour range, the cluster blocks.

:func:`similarity_view` computes what :func:`~llrcore.plots.diarization.similarity_heatmap_figure` draws; its
:meth:`SimilarityView.to_frame` is the table a user downloads: the matrix in the drawn order, each row labelled
with its segment, cluster and reference speaker.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["SimilarityView", "cluster_order", "similarity_view"]


def cluster_order(labels: np.ndarray) -> np.ndarray:
    """Segment indices grouped by cluster (clusters in label order, segments in their original order within)."""
    return np.argsort(np.asarray(labels), kind="stable")


@dataclass(frozen=True, eq=False)
class SimilarityView:
    """A similarity matrix in the order it is drawn.

    Attributes
    ----------
    scores : ndarray (N, N)
        The matrix with rows and columns in the drawn order (``original[order][:, order]``).
    order : ndarray of int
        The segment drawn at each position.
    labels : ndarray of int or None
        The cluster of each segment (original order); None before any clustering.
    reference : ndarray of str or None
        The reference speaker of each segment (original order).
    colour_range : (float, float)
        The scores at the ends of the colour scale: the ``clip`` and ``1 - clip`` quantiles of the off-diagonal
        scores (a few huge self-similarities of overlapping windows would otherwise wash out the blocks).
    reordered : bool
        Whether the segments are grouped by cluster (else in time order).
    """

    scores: np.ndarray
    order: np.ndarray
    labels: np.ndarray | None
    reference: np.ndarray | None
    colour_range: tuple[float, float]
    reordered: bool

    @property
    def n_segments(self) -> int:
        return int(self.order.size)

    @property
    def n_clusters(self) -> int:
        """K of the labels (1 before any clustering)."""
        return 1 if self.labels is None else int(self.labels.max()) + 1

    @property
    def boundaries(self) -> np.ndarray:
        """The positions between the cluster blocks of a reordered matrix, with both outer edges: ``K + 1`` values
        from ``-0.5`` to ``N - 0.5`` (cell ``i`` spans ``i +- 0.5``)."""
        sizes = [self.n_segments] if self.labels is None else np.bincount(self.labels, minlength=self.n_clusters)
        return np.concatenate([[0], np.cumsum(sizes)]) - 0.5

    def to_frame(self) -> pd.DataFrame:
        """One row per segment in the drawn order: ``segment`` (its index in the input), ``cluster`` and
        ``reference`` when known, then its scores with every segment, one column per segment named by its index,
        in the same order."""
        frame = pd.DataFrame({"segment": self.order})
        for column, values in (("cluster", self.labels), ("reference", self.reference)):
            if values is not None:
                frame[column] = values[self.order]
        matrix = pd.DataFrame(self.scores, columns=[str(segment) for segment in self.order])
        return pd.concat([frame, matrix], axis=1)


def _colour_range(shown: np.ndarray, clip: float) -> tuple[float, float]:
    """The `clip` and ``1 - clip`` quantiles of the off-diagonal scores (the diagonal holds self-similarities)."""
    n = shown.shape[0]
    off = shown[~np.eye(n, dtype=bool)] if n > 1 else shown.ravel()
    lo, hi = np.quantile(off, [clip, 1 - clip]) if off.size else (0.0, 1.0)
    return (lo, lo + 1.0) if hi <= lo else (lo, hi)


def similarity_view(scores, labels=None, *, reference=None, reorder: bool = True, clip: float = 0.01
                    ) -> SimilarityView:
    """The matrix grouped by cluster (stable: time order within a cluster) and its colour range.

    Parameters
    ----------
    scores : array_like (N, N)
    labels : array_like of int (N,), optional
        Clusters 0..K-1; None: the matrix before any clustering, in time order.
    reference : array_like of str (N,), optional
    reorder : bool
        False keeps the time order even with clusters.
    clip : float
        Quantile of the off-diagonal scores at each end of the colour scale.
    """
    scores = np.asarray(scores, dtype=np.float64)
    labels = None if labels is None else np.asarray(labels)
    reordered = reorder and labels is not None
    order = cluster_order(labels) if reordered else np.arange(scores.shape[0])
    shown = scores[np.ix_(order, order)]
    reference = None if reference is None else np.asarray(reference).astype(str)
    return SimilarityView(shown, order, labels, reference, _colour_range(shown, clip), reordered)
