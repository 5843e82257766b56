"""Every pair of a set of embeddings scored and counted in blocks: the metrics of n (n - 1) / 2 trials that nobody
writes to a file (``lc.score_embeddings``).

A block is a run of rows ``i`` of the embeddings against every later row ``j > i`` (or a run of a given trial list of
index pairs): its scores are one matrix product of unit vectors (``x_i . x_j / (|x_i| |x_j|)`` for ``"cosine"``), a
pair is a target trial when both embeddings have the same label, and the block is counted per unique score (a sort)
and dropped. The blocks' counts merge exactly (:func:`llrcore.binary.counts.merge_tables`), on the threads of this
machine (``engine="numpy"``, the blocks' matrix products and sorts in parallel, merged in their order by a
:class:`~llrcore.scale.accumulator.ScoreAccumulator`) or on a Dask cluster (``engine="dask"``, the embeddings sent to
each worker once, the counts merged in a tree of tasks). No score matrix is ever held whole; what is held is the
table of counts, as long as the number of unique scores: about one row per pair for continuous scores.

With ``bins=B`` the scores are counted in ``B`` equal bins over the metric's range instead, a table of at most ``B``
rows whatever the number of pairs. The operating points at the bins' edges are exact, so EER and minDCF are bounded:
the table with each bin's trials at one score gives an upper bound (its operating points are a subset of the true
ones), and the table with each bin's non-targets put below its targets a lower bound (every true operating point
inside a bin is dominated by that bin's optimistic corner, and the ROCCH and the minimum cost are monotone in the
points). :class:`BinnedScores` holds both.

References: N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection", Computer Speech
and Language 20, 2006 (metrics from counts; the ROCCH); T. Fawcett, "An introduction to ROC analysis", Pattern
Recognition Letters 27, 2006 (the convex hull dominates the points beneath it).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._choices import EMBEDDING_METRICS
from ..binary.counts import CountedScores, merge_tables
from ..binary.metrics import eer, min_dcf
from ..parallel import ordered_map, thread_count
from .accumulator import ScoreAccumulator

__all__ = ["BinnedScores", "METRICS", "score_embeddings"]

#: How two embeddings are compared.
METRICS = EMBEDDING_METRICS
#: Where the blocks run.
ENGINES = ("numpy", "dask")
#: Scores computed at once in a block (32 MB of float64).
BLOCK_SCORES = 1 << 22


@dataclass(frozen=True)
class BinnedScores:
    """Trials counted in equal bins of score, with the bounds the bins put on EER and minDCF.

    Attributes
    ----------
    counts : CountedScores
        Each bin's trials at the bin's centre: its EER and minDCF are upper bounds of the trials' own.
    optimistic : CountedScores
        Each bin's non-targets a quarter bin below its centre and its targets a quarter bin above: its EER and
        minDCF are lower bounds.
    edges : ndarray of float
        The ``bins + 1`` edges of the bins.
    """

    counts: CountedScores
    optimistic: CountedScores
    edges: np.ndarray

    def eer_bounds(self) -> tuple[float, float]:
        """The ROCCH-EER of the trials lies in ``[low, high]`` (module notes)."""
        return eer(self.optimistic), eer(self.counts)

    def min_dcf_bounds(self, *, p_target: float = 0.01, c_miss: float = 1.0, c_fa: float = 1.0) -> tuple[float, float]:
        """minDCF of the trials at an operating point lies in ``[low, high]``.

        Parameters
        ----------
        p_target : float
            The prior of a target trial (keyword-only, with `c_miss` and `c_fa`, as :func:`~llrcore.min_dcf`).
        c_miss, c_fa : float
            The costs of a miss and of a false alarm.

        Returns
        -------
        tuple of float
            ``(low, high)``.
        """
        return tuple(float(min_dcf(table, p_target=p_target, c_miss=c_miss, c_fa=c_fa))  # type: ignore[return-value]
                     for table in (self.optimistic, self.counts))

    def sentence(self, *, p_target: float = 0.01) -> str:
        """The bounds in words, with the bins that set them."""
        (eer_low, eer_high), (dcf_low, dcf_high) = self.eer_bounds(), self.min_dcf_bounds(p_target=p_target)
        return (f"EER between {eer_low:.4%} and {eer_high:.4%}, minDCF at P_target = {p_target:g} between "
                f"{dcf_low:.4f} and {dcf_high:.4f}: {self.counts.n_tar + self.counts.n_non:,} trials counted in "
                f"{self.edges.size - 1:,} bins of width {self.edges[1] - self.edges[0]:.3g}.")

    def to_frame(self) -> pd.DataFrame:
        """One row per bin holding trials: ``low``, ``high`` (its edges), ``targets``, ``non-targets``."""
        at = np.searchsorted(self.edges, self.counts.unique) - 1
        return pd.DataFrame({"low": self.edges[at], "high": self.edges[at + 1], "targets": self.counts.tar_counts,
                             "non-targets": self.counts.non_counts})

    def __repr__(self) -> str:
        return (f"BinnedScores({self.counts.n_tar:,} targets, {self.counts.n_non:,} non-targets, "
                f"{self.edges.size - 1:,} bins)")


def score_embeddings(embeddings: ArrayLike, labels: ArrayLike, *, metric: str = "cosine", engine: str = "numpy",
                     client: object = None, trials: ArrayLike | None = None, bins: int | None = None,
                     threads: int | None = None) -> CountedScores | BinnedScores:
    """Every pair of embeddings (or the given trials) scored in blocks and counted per unique score.

    Parameters
    ----------
    embeddings : array_like of float, shape (n, d)
        One embedding per row (e.g. ``numpy.load("emb.npy")``). They are held in memory as float64 (unit vectors for
        the cosine), ``n d`` numbers: small beside the ``n (n - 1) / 2`` scores, which never are.
    labels : array_like, shape (n,)
        The speaker (class) of each embedding: a pair of the same label is a target trial, else a non-target.
    metric : {"cosine", "dot"}
        The score of a pair: the cosine of the angle between the two embeddings, or their dot product.
    engine : {"numpy", "dask"}
        ``"numpy"`` scores the blocks on the threads of this machine; ``"dask"`` on the workers of a Dask cluster
        (``pip install "llrcore[dask]"``). No count depends on it.
    client : distributed.Client or str, optional
        With ``engine="dask"``: the cluster's client or its scheduler's address; by default a LocalCluster.
    trials : array_like of int, shape (m, 2), optional
        The pairs ``(i, j)`` of row indices to score; by default every pair ``i < j``.
    bins : int, optional
        Count the scores in this many equal bins over the metric's range (``[-1, 1]`` for the cosine, ``[-r, r]``
        with ``r`` the largest squared norm for the dot product) instead of exactly: memory of ``bins`` rows, and
        EER and minDCF known within the bounds :class:`BinnedScores` states. For 10^10 pairs and more.
    threads : int, optional
        Threads of the numpy engine (default: every core). No count depends on it.

    Returns
    -------
    CountedScores or BinnedScores
        The exact counts of the float64 scores (every metric takes them); with `bins`, a :class:`BinnedScores` whose
        ``sentence()`` gives the bounds on EER and minDCF.

    Raises
    ------
    ValueError
        A sentence naming the problem: embeddings that are not a 2-D array of numbers, a row of norm 0 for the
        cosine, a label count that is not the row count, a trial index outside the rows, one class only.

    Examples
    --------
    >>> score_embeddings([[1, 0], [3, 4], [0, 1], [0, -2]], ["x", "x", "y", "y"]).to_frame()
       score  targets  non-targets
    0   -1.0        1            0
    1   -0.8        0            1
    2    0.0        0            2
    3    0.6        1            0
    4    0.8        0            1
    """
    if metric not in METRICS or engine not in ENGINES:
        raise ValueError(f"Unknown metric {metric!r} or engine {engine!r}: metric is one of {', '.join(METRICS)}, "
                         f"engine one of {', '.join(ENGINES)}.")
    vectors = _vectors(embeddings, metric)
    codes = _codes(labels, vectors.shape[0])
    pairs = None if trials is None else _trials(trials, vectors.shape[0])
    edges = None if bins is None else _edges(bins, vectors, metric)
    blocks = _blocks(vectors.shape[0], pairs)
    count = functools.partial(_block_table, edges=edges)
    shared = {"vectors": vectors, "codes": codes} | ({} if pairs is None else {"pairs": pairs})
    if engine == "dask":
        from .dask_counts import count_on_cluster

        table, _ = count_on_cluster(_noted(count), blocks, [_block_name(block, pairs) for block in blocks],
                                    client=client, shared=shared)
    else:
        accumulator = ScoreAccumulator()
        for block_table in ordered_map(lambda block: count(block, **shared), blocks, thread_count(threads)):
            accumulator.add_counts(*block_table)
        frame = accumulator.to_frame()
        table = (frame["score"].to_numpy(), frame["targets"].to_numpy(), frame["non-targets"].to_numpy())
    return _result(table, edges)


def _noted(count):
    """A block's count as :func:`~llrcore.scale.dask_counts.count_on_cluster` takes it (a table and no notes)."""
    return functools.partial(_with_no_notes, count)


def _with_no_notes(count, block, **shared) -> tuple:
    return count(block, **shared), []


def _vectors(embeddings, metric: str) -> np.ndarray:
    """The rows as float64, divided by their norms for the cosine, or a sentence."""
    try:
        vectors = np.asarray(embeddings, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("The embeddings must be numbers.") from None
    if vectors.ndim != 2 or vectors.shape[0] < 2:
        raise ValueError(f"The embeddings must be a 2-D array of two rows or more (one embedding per row), not of "
                         f"shape {vectors.shape}.")
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        raise ValueError(f"Row {int(np.argmin(finite))} of the embeddings (from 0) holds NaN or infinity.")
    if metric == "dot":
        return vectors
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError(f"Row {int(np.argmax(norms == 0))} of the embeddings (from 0) is all zeros: it has no "
                         "cosine with any other.")
    return vectors / norms


def _codes(labels, rows: int) -> np.ndarray:
    labels = np.asarray(labels).ravel()
    if labels.size != rows:
        raise ValueError(f"{rows} embeddings but {labels.size} labels: give one label per embedding.")
    return np.unique(labels, return_inverse=True)[1].ravel()


def _trials(trials, rows: int) -> np.ndarray:
    pairs = np.asarray(trials)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.dtype.kind not in "iu" or pairs.shape[0] == 0:
        raise ValueError("trials must be pairs of row indices: an integer array of shape (m, 2), m at least 1.")
    outside = (pairs < 0) | (pairs >= rows)
    if outside.any():
        at = int(np.argmax(outside.any(axis=1)))
        raise ValueError(f"Trial {at} (from 0), {tuple(pairs[at].tolist())}, names a row outside the {rows} "
                         "embeddings.")
    return pairs


def _edges(bins: int, vectors: np.ndarray, metric: str) -> np.ndarray:
    if not (isinstance(bins, (int, np.integer)) and not isinstance(bins, bool) and bins >= 1):
        raise ValueError(f"bins must be a whole number, 1 or more, not {bins!r}.")
    reach = 1.0 if metric == "cosine" else float(np.max(np.einsum("ij,ij->i", vectors, vectors)))
    # embeddings all zero: every dot product is 0, which [-1, 1] holds (a range of width 0 would divide by zero)
    return np.linspace(-(reach or 1.0), reach or 1.0, int(bins) + 1)


def _blocks(rows: int, pairs: np.ndarray | None) -> list[tuple[int, int]]:
    """Runs ``(start, stop)`` of rows (every pair) or of trials, each of about :data:`BLOCK_SCORES` scores."""
    if pairs is not None:
        return [(start, min(start + BLOCK_SCORES, len(pairs))) for start in range(0, len(pairs), BLOCK_SCORES)]
    step = max(1, BLOCK_SCORES // rows)
    return [(start, min(start + step, rows)) for start in range(0, rows - 1, step)]


def _block_name(block: tuple[int, int], pairs) -> str:
    return f"{'trials' if pairs is not None else 'rows'} {block[0]} to {block[1] - 1} of the embeddings"


def _block_table(block: tuple[int, int], *, vectors: np.ndarray, codes: np.ndarray,
                 pairs: np.ndarray | None = None, edges: np.ndarray | None = None) -> tuple:
    """A block's trials counted per unique score (or per bin, the bin's index as its score)."""
    start, stop = block
    if pairs is None:  # rows start..stop-1 against every later row
        products = vectors[start:stop] @ vectors[start:].T
        later = np.arange(start, vectors.shape[0]) > np.arange(start, stop)[:, None]
        scores = products[later]
        same = (codes[start:stop, None] == codes[None, start:])[later]
    else:
        first, second = pairs[start:stop, 0], pairs[start:stop, 1]
        scores = np.einsum("ij,ij->i", vectors[first], vectors[second])
        same = codes[first] == codes[second]
    if edges is not None:
        return _binned_table(scores, same, edges)
    tar, tar_counts = np.unique(scores[same], return_counts=True)
    non, non_counts = np.unique(scores[~same], return_counts=True)
    return merge_tables([(tar, tar_counts, np.zeros_like(tar_counts)), (non, np.zeros_like(non_counts), non_counts)])


def _binned_table(scores: np.ndarray, same: np.ndarray, edges: np.ndarray) -> tuple:
    """A block's trials counted per bin (the bin's index, from 0, as its score): bin ``k`` holds the scores with
    ``floor((score - edges[0]) / width) = k``, a monotone function of the score, so each bin is a run of the sorted
    scores (what the bounds need); the outer bins also hold what rounding carries past the ends."""
    bins = edges.size - 1
    index = np.floor((scores - edges[0]) / (edges[1] - edges[0]))
    index = np.clip(index, 0, bins - 1).astype(np.int64)
    tar_counts = np.bincount(index[same], minlength=bins)
    non_counts = np.bincount(index[~same], minlength=bins)
    held = np.flatnonzero(tar_counts + non_counts)
    return held.astype(np.float64), tar_counts[held], non_counts[held]


def _result(table: tuple, edges: np.ndarray | None) -> CountedScores | BinnedScores:
    unique, tar_counts, non_counts = table
    for total, what in ((tar_counts.sum(), "target"), (non_counts.sum(), "non-target")):
        if total == 0:
            raise ValueError(f"No pair is a {what} trial: metrics need pairs of the same label and of different ones.")
    if edges is None:
        return CountedScores(unique, tar_counts, non_counts)
    index = unique.astype(np.int64)
    left, width = edges[index], edges[1] - edges[0]
    optimistic = merge_tables([(left + width / 4, np.zeros_like(non_counts), non_counts),
                               (left + 3 * width / 4, tar_counts, np.zeros_like(tar_counts))])
    return BinnedScores(CountedScores(left + width / 2, tar_counts, non_counts), CountedScores(*optimistic), edges)
