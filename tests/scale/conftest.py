"""The Dask cluster of the tests of tests/scale/: a LocalCluster of two workers of one thread each, threads of this
process (``processes=False``: no process to start, and DuckDB and numpy release the GIL), one per test module."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as running:
        yield running
