"""Shared fixtures: the real score sets copied into ``tests/data/`` (see each folder's SOURCE.txt).

The loaders use pandas/numpy directly (not ``llrcore.io``) so that the metric tests do not depend on the reader
code, and the reference data is parsed by an independent path.
"""
from __future__ import annotations

import os
from pathlib import Path

# One BLAS thread per test process, set before numpy loads OpenBLAS (the browser tests' app servers inherit it).
# pytest-xdist runs one process per CPU, and OpenBLAS would start one thread per CPU in each of them: the threads of
# the processes compete for the same cores and spin while they wait, which made the diarization tests 10-20x slower
# under load (NME-SC on ES2005a for K = 1..8: 125 s, 6.6 s with one thread). No number depends on BLAS's threads
# (tests/test_threads.py checks it with BLAS on every CPU). A value set by the user is kept.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # after the thread settings above
import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"
EVALITA_PATH = DATA / "rocanalysis_ru2009" / "ru.2009.table.gz"
ASVSPOOF_DIR = DATA / "asvspoof2019_la"


def load_evalita() -> tuple[np.ndarray, np.ndarray]:
    """EVALITA-2009 trials from ROCAnalysis.jl's test suite: (target scores, non-target scores)."""
    table = pd.read_csv(EVALITA_PATH, sep="\t")
    is_target = table["target"].astype(bool).to_numpy()
    scores = table["score"].to_numpy(dtype=np.float64)
    return scores[is_target], scores[~is_target]


def load_asvspoof_asv(part: str) -> dict[str, np.ndarray]:
    """ASVspoof 2019 LA organisers' ASV scores for `part` ('dev' or 'eval'): dict target/nontarget/spoof -> scores."""
    path = ASVSPOOF_DIR / f"ASVspoof2019.LA.asv.{part}.gi.trl.scores.txt"
    table = pd.read_csv(path, sep=r"\s+", header=None, names=["source", "kind", "score"])
    return {kind: table.loc[table["kind"] == kind, "score"].to_numpy(dtype=np.float64)
            for kind in ("target", "nontarget", "spoof")}


@pytest.fixture(scope="session")
def evalita() -> tuple[np.ndarray, np.ndarray]:
    tar, non = load_evalita()
    assert tar.size == 15252 and non.size == 9600  # counts stated in SOURCE.txt
    return tar, non


@pytest.fixture(scope="session")
def asvspoof_dev() -> dict[str, np.ndarray]:
    scores = load_asvspoof_asv("dev")
    assert [scores[k].size for k in ("target", "nontarget", "spoof")] == [1484, 5768, 22296]  # SOURCE.txt
    return scores


@pytest.fixture(scope="session")
def asvspoof_eval() -> dict[str, np.ndarray]:
    scores = load_asvspoof_asv("eval")
    assert [scores[k].size for k in ("target", "nontarget", "spoof")] == [5370, 33327, 63882]  # SOURCE.txt
    return scores
