"""The suite's own speed: each test process runs BLAS, and each xdist worker llrcore's pools, on one thread.

pytest-xdist runs one worker per CPU; OpenBLAS starts one thread per CPU in each worker, so the workers' BLAS threads
outnumbered the cores and spun waiting for each other (the diarization tests ran 5-10x slower). ``tests/conftest.py``
sets ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS`` to 1 before numpy loads (a value the user
set is kept).

Independent reference: threadpoolctl's report of the thread pools of the BLAS and OpenMP libraries loaded in this
process (numpy's and scipy's OpenBLAS, scikit-learn's OpenMP), read from the libraries themselves.
"""
from __future__ import annotations

import os

import pytest

VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def test_each_test_process_runs_blas_and_openmp_on_the_threads_set_before_numpy_loaded():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import numpy  # noqa: F401  (numpy's OpenBLAS)
    import scipy.linalg  # noqa: F401  (scipy's own OpenBLAS)
    import sklearn.cluster  # noqa: F401  (OpenMP)

    assert all(os.environ.get(name) for name in VARIABLES), {name: os.environ.get(name) for name in VARIABLES}
    expected = int(os.environ["OPENBLAS_NUM_THREADS"])  # 1, unless the user chose otherwise before running pytest
    pools = threadpoolctl.threadpool_info()
    assert {pool["user_api"] for pool in pools} >= {"blas", "openmp"}
    assert [pool["num_threads"] for pool in pools] == [expected] * len(pools), pools


def test_each_xdist_worker_runs_llrcore_on_one_thread():
    """llrcore's own pools follow ``LLRCORE_THREADS``, which tests/conftest.py sets to 1 in every xdist worker (a
    value the user set is kept); without xdist every CPU is used. Reference: llrcore.thread_count's documented rule."""
    import llrcore as lc

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("not an xdist worker: the suite keeps every CPU")
    assert lc.thread_count() == int(os.environ["LLRCORE_THREADS"])
