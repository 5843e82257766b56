"""NME-SC's sparse path for long recordings: the same p-neighbour graph, eigenvalues and clusters as the dense one.

Above ``DENSE_LIMIT`` segments :func:`llrcore.diarization.nme_sc.nme_sc` finds each row's p neighbours by a partition
and the Laplacian's smallest eigenpairs by Lanczos (ARPACK) on a sparse matrix, instead of a full sort and a dense
``eigh``. Independent references: the p-neighbour sets by a stable ``numpy.argsort`` of each row written here; the
Laplacian ``D - A`` built densely here; ``numpy.linalg.eigvalsh`` of it; and the dense path itself (LAPACK ``eigh``,
what NME-SC used before) on real matrices: cosine and PLDA recordings of ``tests/data/diarization_corpus``, AMI
ES2005a and pyannote's sample — identical labels (numbered by first appearance, so the same partition), the same K
and p, the same eigenvalues to rounding. (All 46 real matrices of the repository, each with the default bounds,
n_clusters 2 and 4 and max_clusters 12, gave identical labels when the sparse path came in; a few stand for them
here, to keep the suite short.)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse.linalg

from llrcore.diarization import nme_sc as module
from paths import ROOT

CORPUS = ROOT / "tests" / "data" / "diarization_corpus"
REAL = [CORPUS / "synth15_k08.npz", CORPUS / "synth24_k09.npz", CORPUS / "plda" / "plda_k06_unbalanced.npz",
        CORPUS / "plda" / "plda_k10_unbalanced.npz", ROOT / "assets" / "ami_ES2005a" / "ES2005a_similarity.npz",
        ROOT / "assets" / "pyannote_sample" / "sample_similarity.npz"]


def load_matrix(path: Path) -> np.ndarray:
    with np.load(path) as archive:
        return next(archive[name] for name in archive.files if archive[name].ndim == 2)


def stable_neighbours(affinity: np.ndarray, p: int) -> np.ndarray:
    """B_ij = 1 for the first p columns of row i in a stable sort from the largest down, the diagonal first."""
    n = affinity.shape[0]
    binary = np.zeros((n, n))
    for i in range(n):
        row = affinity[i].astype(np.float64)
        row[i] = np.inf
        binary[i, np.argsort(-row, kind="stable")[:p]] = 1.0
    return binary


def dense_laplacian(binary: np.ndarray) -> np.ndarray:
    graph = (binary + binary.T) / 2
    np.fill_diagonal(graph, 0.0)
    return np.diag(graph.sum(axis=1)) - graph


def speakers_matrix(n: int, speakers: int, seed: int) -> np.ndarray:
    """LLR-like scores of an hour-like recording (the Diarization page's 5,000-window test, smaller): turns of
    unequal speakers, per-segment offsets, noise."""
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(np.full(speakers, 3.0))
    labels = np.repeat(rng.choice(speakers, size=n, p=shares), rng.integers(4, 22, size=n))[:n]
    between = rng.uniform(-30, -15, (speakers, speakers))
    means = np.where(np.eye(speakers, dtype=bool), 8.0, (between + between.T) / 2)
    offsets = rng.normal(0, 2, n)
    scores = np.triu(rng.normal(0, 6, (n, n)), 1)
    return scores + scores.T + means[labels][:, labels] + offsets[:, None] + offsets[None, :]


def both_paths(monkeypatch, scores, **options):
    """(sparse fit, dense fit) of the same matrix."""
    monkeypatch.setattr(module, "DENSE_LIMIT", 0)
    sparse = module.nme_sc(scores, **options)
    monkeypatch.setattr(module, "DENSE_LIMIT", 10**9)
    return sparse, module.nme_sc(scores, **options)


@pytest.mark.parametrize("p", [1, 2, 5, 17, 39, 40])
def test_neighbours_are_the_stable_sort_s_even_with_ties(p):
    rng = np.random.default_rng(p)
    affinity = np.round(rng.uniform(0, 1, (40, 40)), 1)  # ten distinct values: ties in every row
    affinity = (affinity + affinity.T) / 2
    rows, columns = module._top_p_columns(affinity, p)
    binary = np.zeros((40, 40))
    binary[rows, columns] = 1.0
    np.testing.assert_array_equal(binary, stable_neighbours(affinity, p))


@pytest.mark.parametrize("p", [1, 3, 12])
def test_sparse_laplacian_is_d_minus_a_of_the_p_neighbour_graph(p):
    affinity = np.round(np.random.default_rng(7).uniform(-1, 1, (60, 60)), 2)
    affinity = (affinity + affinity.T) / 2
    expected = dense_laplacian(stable_neighbours(affinity, p))
    np.testing.assert_array_equal(module._sparse_laplacian(affinity, p).toarray(), expected)


@pytest.mark.parametrize("path", REAL, ids=lambda path: path.stem)
def test_every_real_recording_gets_the_dense_path_s_clusters(monkeypatch, path):
    sparse, dense = both_paths(monkeypatch, load_matrix(path))
    assert (sparse.n_clusters, sparse.p, sparse.estimated_clusters) == (dense.n_clusters, dense.p,
                                                                        dense.estimated_clusters)
    np.testing.assert_array_equal(sparse.labels, dense.labels)
    # eigenvalues of a Laplacian whose entries are halves and ones: rounding only
    np.testing.assert_allclose(sparse.eigenvalues, dense.eigenvalues, rtol=0, atol=1e-9 * dense.eigenvalues[-1])


def test_a_long_recording_takes_the_sparse_path_and_finds_the_same_clusters(monkeypatch):
    """Above DENSE_LIMIT (lowered to 1,000 here, to keep the test short): no dense eigendecomposition of the full
    Laplacian is made (only the p search's, of the 550-row subsample), and the clusters and eigenvalues equal the
    dense path's, K estimated or given."""
    scores = speakers_matrix(1100, 4, seed=11)
    monkeypatch.setattr(module, "DENSE_LIMIT", 1000)
    eigh = scipy.linalg.eigh

    def small_only(matrix, *args, **kwargs):
        assert matrix.shape[0] <= module.SEARCH_SIZE * 2, "a dense eigh of the full Laplacian"
        return eigh(matrix, *args, **kwargs)

    monkeypatch.setattr(scipy.linalg, "eigh", small_only)
    fits = [module.nme_sc(scores, n_clusters=k, volume=10) for k in (None, 3)]  # 10 p tried, not 30: shorter
    monkeypatch.setattr(scipy.linalg, "eigh", eigh)
    monkeypatch.setattr(module, "DENSE_LIMIT", 10**9)
    for fit, k in zip(fits, (None, 3)):
        dense = module.nme_sc(scores, n_clusters=k, volume=10)
        assert fit.n_clusters == dense.n_clusters == (k or 4)
        np.testing.assert_array_equal(fit.labels, dense.labels)
        np.testing.assert_allclose(fit.eigenvalues, dense.eigenvalues, rtol=0, atol=1e-9 * dense.eigenvalues[-1])


def test_a_disconnected_graph_and_a_lanczos_run_that_does_not_converge_take_the_dense_path(monkeypatch):
    """Two speakers who never resemble each other and p = 10 neighbours: two components, so the zero eigenvalue is
    double (one Lanczos start vector may find it once); and ARPACK giving up: both fall back to the dense eigh."""
    rng = np.random.default_rng(3)
    labels = np.repeat([0, 1], [30, 25])
    scores = np.where(labels[:, None] == labels[None, :], rng.uniform(0.6, 0.9, (55, 55)), -0.5)
    scores = (scores + scores.T) / 2
    np.fill_diagonal(scores, 1.0)
    monkeypatch.setattr(module, "DENSE_LIMIT", 0)
    values, _ = module._smallest_eigenpairs(module.nme_affinity(scores), 10, 4)
    np.testing.assert_allclose(values[:2], 0.0, atol=1e-12)
    assert values[2] > 1e-3

    def gives_up(*args, **kwargs):
        raise scipy.sparse.linalg.ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((55, 0)))

    monkeypatch.setattr(scipy.sparse.linalg, "eigsh", gives_up)
    scores = speakers_matrix(300, 3, seed=2)
    fallen_back, dense = both_paths(monkeypatch, scores)
    np.testing.assert_array_equal(fallen_back.labels, dense.labels)
    np.testing.assert_array_equal(fallen_back.eigenvalues, dense.eigenvalues)
