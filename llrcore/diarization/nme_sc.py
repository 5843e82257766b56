"""NME-SC: spectral clustering auto-tuned by the normalised maximum eigengap (Park, Han, Kumar & Narayanan,
"Auto-tuning spectral clustering for speaker diarization using normalized maximum eigengap", IEEE Signal
Processing Letters 27, 2020, pp. 381-385; arXiv:2003.02405).

The algorithm
-------------
1. Affinity ``A``: the similarity matrix. NME-SC is built for cosine similarities; a matrix with values outside
   [-1, 1] (PLDA log-likelihood ratios) is mapped to (0, 1) by the logistic sigmoid first. Every later step uses
   only the order of the values within each row, so any increasing map gives the same result: the sigmoid is for
   the record (and the diagnostics), not a calibration.
2. For each p of a search list, p-neighbour binarisation: in every row the p largest entries become 1, the rest 0
   (the segment itself is always among them, as the diagonal of a cosine matrix is its largest entry; ties go to
   the lower index), then symmetrisation ``A_p = (B + B^T) / 2``.
3. Unnormalised Laplacian ``L_p = D_p - A_p`` (zero diagonal, ``D_p`` the row sums), eigenvalues
   ``lambda_1 <= ... <= lambda_N``; eigengaps ``e_k = lambda_{k+1} - lambda_k``; the number of speakers
   ``K_p = argmax_k e_k`` over ``min_clusters <= k <= max_clusters``; the normalised maximum eigengap
   ``g_p = e_{K_p} / lambda_N``.
4. The ratio ``r(p) = p / (N g_p)`` (paper: p / g_p with p a share of N) is minimised over the list: small p keeps
   the graph sparse and clean, a large normalised gap says the clusters are clear. If the graph of the chosen p is
   not connected, the smallest p of the list with a connected graph is taken instead (as the public code does).
5. K = ``K_p`` at the chosen p (or `n_clusters` when given); the K eigenvectors of ``L_p`` with the smallest
   eigenvalues, rows as points, k-means (k-means++ seeding, 10 restarts, fixed seed; all K clusters non-empty).
   Above `DENSE_LIMIT` segments this step works on the sparse ``L_p`` (``N p`` non-zeros): its p-neighbour sets
   come from a partition of each row instead of a full sort, and its smallest eigenpairs from Lanczos iterations
   (ARPACK's ``eigsh``, ``which='SA'``, tolerance machine precision) instead of a dense ``eigh``: the same
   eigenvalues to rounding and the same invariant subspace, hence the same k-means partition (k-means sees only
   distances between rows, which a change of sign or of basis of the subspace keeps), in a fraction of the time
   (N = 5,000: 0.5 s instead of 10 s; Lehoucq, Sorensen & Yang, "ARPACK Users' Guide", SIAM 1998). A graph that
   is not connected (a repeated zero eigenvalue, which a single Lanczos start vector may miss) and a run that does
   not converge take the dense path.

What was followed, and the differences
--------------------------------------
Checked against the paper and the authors' public code as carried on in NVIDIA NeMo
(``nemo/collections/asr/parts/utils/offline_clustering.py``, earlier ``nmesc_clustering.py``:
``getAffinityGraphMat``, ``getLaplacian``, ``estimateNumofSpeakers``, ``NMESC.getEigRatio``, ``getPvalueList``,
``subsampleAffinityMat``), whose defaults are used: p from ``linspace(1, floor(0.25 N), min(floor(0.25 N), 30))``
(at least 1..3 here, for short recordings; ``max_rp_threshold: 0.25`` of NeMo's configs, 0.15 in its code), K at
most 8 unless `max_clusters` is given (its configs' ``max_num_speakers``), the search on a matrix subsampled to at
most 512 rows (every r-th segment; p scaled back by r), and the spectral embedding without row normalisation.
Differences: the eigengap search honours `min_clusters` as well as `max_clusters` (NeMo: only a maximum; so K = 1 is
possible, unlike the Ng-Jordan-Weiss eigengap of :mod:`~llrcore.diarization.baselines`); NeMo's min-max scaling of
cosines is not done (it changes no row order); the "enhanced speaker count" with random anchor embeddings for short
recordings is left out (it needs the embeddings, not the matrix); k-means is
:func:`~llrcore.diarization.baselines.kmeans` (numpy), not scikit-learn's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from .baselines import kmeans, relabel_by_appearance

__all__ = ["MAX_SPEAKERS", "NMESCFit", "laplacian", "nme_affinity", "nme_sc", "p_neighbour_affinity", "search_list"]

#: Largest p searched, as a share of the segments (NeMo's ``max_rp_threshold`` in its diarization configs).
MAX_P_SHARE = 0.25
#: Default upper bound on K (NeMo's ``max_num_speakers`` in its current inference configs): with 20, the small
#: gaps at the bottom of the spectrum of sparse graphs of overlapping windows win (pyannote's sample: K = 16).
MAX_SPEAKERS = 8
#: At most this many values of p are tried (NeMo's ``sparse_search_volume``).
SEARCH_VOLUME = 30
#: The p search runs on a matrix subsampled to at most about this many rows (NeMo's ``nme_mat_size``).
SEARCH_SIZE = 512
#: Above this many segments the final decomposition is sparse (Lanczos); at or below it a dense ``eigh`` costs
#: little (N = 1,500: about 1 s on one core).
DENSE_LIMIT = 1500
_EPS = 1e-10


@dataclass(frozen=True)
class NMESCFit:
    """Outcome of :func:`nme_sc`.

    ``labels`` (numbered by first appearance); ``n_clusters``; ``p`` the neighbours kept per row on the full
    matrix; ``estimated_clusters`` the eigengap's K at that p (what is used unless `n_clusters` was given);
    ``search`` one row per p tried (on the subsampled matrix): ``p, clusters, normalised_gap, ratio``;
    ``eigenvalues`` the smallest eigenvalues of the chosen graph's Laplacian (ascending); ``uncapped_clusters``
    the K the same search finds with the bound `uncapped` instead of `max_clusters` (None if not asked).
    """

    labels: np.ndarray
    n_clusters: int
    p: int
    estimated_clusters: int
    search: pd.DataFrame
    eigenvalues: np.ndarray
    uncapped_clusters: int | None = None


def nme_affinity(scores) -> np.ndarray:
    """The affinity NME-SC works on: the scores if they lie in [-1, 1] (cosines), else ``sigmoid(scores)``."""
    scores = np.asarray(scores, dtype=np.float64)
    return scores.copy() if np.all(np.abs(scores) <= 1.0) else expit(scores)


def _row_order(affinity: np.ndarray) -> np.ndarray:
    """Columns of every row from the largest entry down; the diagonal first (the segment itself)."""
    ranked = affinity.copy()
    np.fill_diagonal(ranked, np.inf)
    return np.argsort(-ranked, axis=1, kind="stable")


def p_neighbour_affinity(affinity: np.ndarray, p: int, order: np.ndarray | None = None) -> np.ndarray:
    """``(B + B^T) / 2`` with ``B_ij = 1`` for the p largest entries ``j`` of row ``i`` (itself included)."""
    order = _row_order(affinity) if order is None else order
    n = affinity.shape[0]
    binary = np.zeros((n, n))
    binary[np.repeat(np.arange(n), p), order[:, :p].ravel()] = 1.0
    return 0.5 * (binary + binary.T)


def laplacian(graph: np.ndarray) -> np.ndarray:
    """Unnormalised graph Laplacian ``D - A`` of `graph` with its diagonal set to zero."""
    graph = graph.copy()
    np.fill_diagonal(graph, 0.0)
    return np.diag(np.abs(graph).sum(axis=1)) - graph


def search_list(n: int, max_share: float = MAX_P_SHARE, volume: int = SEARCH_VOLUME) -> np.ndarray:
    """The values of p tried on an n-row matrix: ``linspace(1, max_p, min(max_p, volume))`` as integers, unique."""
    max_p = min(max(int(n * max_share), 3), n)
    return np.unique(np.linspace(1, max_p, min(max_p, volume)).astype(np.int64))


def _eigengap(eigenvalues: np.ndarray, low: int, high: int) -> tuple[int, float]:
    """(K, normalised gap): K maximises ``lambda_{K+1} - lambda_K`` over low..high; the gap over ``lambda_N``."""
    gaps = np.diff(eigenvalues)
    high = min(high, gaps.size)
    low = min(low, high)
    k = low + int(np.argmax(gaps[low - 1:high]))
    return k, float(gaps[k - 1] / (eigenvalues[-1] + _EPS))


def nme_sc(scores, *, n_clusters: int | None = None, min_clusters: int = 1, max_clusters: int = MAX_SPEAKERS,
           seed: int = 0, max_share: float = MAX_P_SHARE, volume: int = SEARCH_VOLUME,
           search_size: int = SEARCH_SIZE, uncapped: int | None = None) -> NMESCFit:
    """Cluster segments by NME-SC (see the module docstring for the steps and the sources).

    Parameters
    ----------
    scores : ndarray, shape (N, N)
        Symmetric similarity matrix: cosines, or LLR-like scores (then mapped by a sigmoid, see
        :func:`nme_affinity`).
    n_clusters : int, optional
        Exact number of speakers: p is still chosen by the ratio, K is this.
    min_clusters, max_clusters : int
        Bounds on the eigengap's K.
    seed : int
        Of k-means.
    max_share, volume, search_size
        The p search (NeMo's defaults): largest p as a share of N, how many p, subsampled matrix size.
    uncapped : int, optional
        Also run the search (same eigenvalues, no extra decomposition) with this upper bound on K, to tell whether
        `max_clusters` binds: the result's ``uncapped_clusters``.
    """
    affinity = nme_affinity(scores)
    n = affinity.shape[0]
    if n == 1:
        return NMESCFit(np.zeros(1, dtype=np.int64), 1, 1, 1, pd.DataFrame(), np.zeros(1))
    high = min(int(max_clusters), n - 1)
    low = min(max(int(min_clusters), 1), high)
    step = max(1, int(n / search_size))
    sub = affinity[::step, ::step]
    order = _row_order(sub)
    rows: list[tuple] = []  # (p, clusters, normalised gap, ratio, connected), capped at max_clusters
    wide_rows: list[tuple] = []  # the same up to `uncapped`
    wide_high = min(int(uncapped), n - 1) if uncapped is not None else high
    for p in search_list(sub.shape[0], max_share, volume):
        graph = p_neighbour_affinity(sub, int(p), order)
        eigenvalues = scipy.linalg.eigvalsh(laplacian(graph))
        # sparse: scipy's checks of a dense graph cost more than its eigenvalues
        connected = connected_components(scipy.sparse.csr_array(graph), directed=False)[0] == 1
        for table, top in ((rows, high), (wide_rows, wide_high)):
            k, gap = _eigengap(eigenvalues, low, top)
            table.append((int(p), k, gap, (p / sub.shape[0]) / (gap + _EPS), connected))
    search, chosen = _choose_p(rows)
    uncapped_clusters = int(_choose_p(wide_rows)[1]["clusters"]) if uncapped is not None else None
    p = min(int(chosen["p"]) * step, n)
    estimated = int(chosen["clusters"])
    k = int(n_clusters) if n_clusters is not None else int(np.clip(estimated, min_clusters, max_clusters))
    n_eigen = min(max(k, high + 1), n)
    values, vectors = _smallest_eigenpairs(affinity, p, n_eigen)
    labels = np.zeros(n, dtype=np.int64) if k <= 1 else kmeans(vectors[:, :k], k, seed=seed)
    return NMESCFit(relabel_by_appearance(labels), k, p, estimated, search, values, uncapped_clusters)


def _choose_p(rows: list) -> tuple[pd.DataFrame, pd.Series]:
    """The search table and its chosen row: the smallest ratio, or the smallest connected p if that graph is not
    connected."""
    search = pd.DataFrame(rows, columns=["p", "clusters", "normalised_gap", "ratio", "connected"])
    # a label of this frame; pandas-stubs types idxmin's as any Hashable, which .loc does not take
    chosen = search.loc[search["ratio"].idxmin()]  # type: ignore[call-overload]
    if not chosen["connected"] and search["connected"].any():
        chosen = search[search["connected"]].iloc[0]
    return search, chosen


def _smallest_eigenpairs(affinity: np.ndarray, p: int, n_eigen: int) -> tuple[np.ndarray, np.ndarray]:
    """The `n_eigen` smallest eigenvalues (ascending) and eigenvectors of the Laplacian of the p-neighbour graph:
    dense ``eigh`` up to `DENSE_LIMIT` segments, else Lanczos on the sparse Laplacian (module docstring, step 5)."""
    n = affinity.shape[0]
    if n > DENSE_LIMIT and n_eigen < n - 1 and np.isfinite(affinity).all():  # NaN: as the dense path sorts it
        sparse = _sparse_laplacian(affinity, p)
        if connected_components(sparse, directed=False)[0] == 1:
            # a fixed start vector: the same answer on every run (ARPACK's own start is random)
            start = np.random.default_rng(0).standard_normal(n)
            try:
                values, vectors = scipy.sparse.linalg.eigsh(sparse, k=n_eigen, which="SA", v0=start,
                                                            ncv=min(n, max(4 * n_eigen, 40)))
            except scipy.sparse.linalg.ArpackNoConvergence:
                pass
            else:
                ascending = np.argsort(values)
                return values[ascending], vectors[:, ascending]
        return scipy.linalg.eigh(sparse.toarray(), subset_by_index=[0, n_eigen - 1])
    return scipy.linalg.eigh(laplacian(p_neighbour_affinity(affinity, p)), subset_by_index=[0, n_eigen - 1])


def _top_p_columns(affinity: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of the p largest entries of every row, the diagonal first and ties to the lower index: the
    sets of ``_row_order(affinity)[:, :p]``, found by a partition of each row (no full sort of N x N values)."""
    n = affinity.shape[0]
    ranked = affinity.copy()
    np.fill_diagonal(ranked, np.inf)
    if p >= n:
        return np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    threshold = np.partition(ranked, n - p, axis=1)[:, n - p, None]  # the p-th largest value of each row
    above = ranked > threshold
    tied = ranked == threshold
    # of the entries equal to the p-th largest, the first (lowest columns) that complete the p, as a stable sort does
    missing = p - above.sum(axis=1, keepdims=True)
    keep = above | (tied & (np.cumsum(tied, axis=1, dtype=np.int32) <= missing))
    rows, columns = np.nonzero(keep)
    return rows, columns


def _sparse_laplacian(affinity: np.ndarray, p: int) -> scipy.sparse.csr_array:
    """:func:`laplacian` of :func:`p_neighbour_affinity` as a sparse matrix (at most ``2 N p`` non-zeros)."""
    n = affinity.shape[0]
    rows, columns = _top_p_columns(affinity, p)
    off_diagonal = rows != columns
    binary = scipy.sparse.csr_array((np.full(int(off_diagonal.sum()), 0.5), (rows[off_diagonal],
                                                                          columns[off_diagonal])), shape=(n, n))
    graph = binary + binary.T
    return (scipy.sparse.diags_array(graph.sum(axis=1)) - graph).tocsr()
