"""The diarization development corpus (tests/data/diarization_corpus): every file reads with the library, the
index agrees with the files, the matrices are what they claim, and the reference explains the scores.

Made by tools/make_diarization_corpus.py (espeak-ng conversations, Resemblyzer cosines) and
tools/simulate_plda_matrices.py (two-covariance PLDA LLRs); each folder's SOURCE.txt says how.
"""
from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import llrcore as lc

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "diarization_corpus"
PLDA = CORPUS / "plda"


def _index(folder: Path) -> list[dict]:
    with open(folder / "corpus.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


RECORDINGS = [("cosine", row) for row in _index(CORPUS)] + [("plda", row) for row in _index(PLDA)]


def _load(kind: str, name: str):
    folder = CORPUS if kind == "cosine" else PLDA
    matrix = lc.read_similarity(folder / f"{name}.npz", reference=folder / f"{name}.rttm")
    turns = lc.read_rttm(folder / f"{name}.rttm")
    with np.load(folder / f"{name}.npz", allow_pickle=False) as archive:
        raw = {key: archive[key] for key in archive.files}
    return matrix, turns, raw


def test_the_corpus_covers_every_k_twice_and_stays_small():
    for folder, at_least in ((CORPUS, 20), (PLDA, 20)):
        rows = _index(folder)
        assert len(rows) >= at_least
        ks = [int(r["K"]) for r in rows]
        assert all(ks.count(k) >= 2 for k in range(1, 11)), ks
        files = {p.name for p in folder.glob("*") if p.is_file()}
        assert files == ({f"{r['recording']}.npz" for r in rows} | {f"{r['recording']}.rttm" for r in rows}
                         | {"corpus.csv", "SOURCE.txt"})
    size = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert size < 15e6


@pytest.mark.parametrize("kind, row", RECORDINGS, ids=[f"{k}-{r['recording']}" for k, r in RECORDINGS])
def test_each_recording_reads_and_agrees_with_the_index(kind, row):
    name, k = row["recording"], int(row["K"])
    matrix, turns, raw = _load(kind, name)
    n = int(row["windows"])
    assert matrix.n_segments == n and raw["scores"].shape == (n, n) and raw["scores"].dtype == np.float32
    assert np.array_equal(matrix.scores, raw["scores"].astype(np.float64))
    assert np.array_equal(matrix.start, raw["start"]) and np.array_equal(matrix.end, raw["end"])
    assert set(turns["uri"]) == {name}
    assert turns["speaker"].nunique() == k == matrix.n_reference_speakers
    # durations: the index, the archive, the turns and the windows agree
    duration = float(row["duration"])
    assert float(raw["duration"]) == pytest.approx(duration, abs=1e-3)
    ends = turns["end"]
    assert 0.0 <= turns["start"].min() and ends.max() <= duration + 1e-3
    assert ends.max() >= duration - 1.0
    assert np.all(matrix.end > matrix.start) and matrix.end.max() <= duration + 1e-3
    assert np.all(np.diff(matrix.start) > 0)
    # speaking-time shares from the RTTM
    shares = [float(v) for v in row["shares"].split(";")]
    speaking = (ends - turns["start"]).groupby(turns["speaker"]).sum()
    speaking = speaking / speaking.sum()
    assert np.allclose(speaking.sort_index().to_numpy(), shares, atol=1e-3)

    S = raw["scores"].astype(np.float64)
    assert np.isfinite(S).all()
    assert np.array_equal(S, S.T)
    if kind == "cosine":
        assert np.array_equal(np.diag(S), np.ones(n))
        assert S.min() >= -1.0 - 1e-6 and S.max() <= 1.0 + 1e-6


@pytest.mark.parametrize("kind, row", [(k, r) for k, r in RECORDINGS if int(r["K"]) > 1],
                         ids=[f"{k}-{r['recording']}" for k, r in RECORDINGS if int(r["K"]) > 1])
def test_oracle_same_speaker_scores_are_higher_than_different_speaker_scores(kind, row):
    """Labels from the RTTM at each window's centre (windows whose centre is in a pause are left out)."""
    matrix, turns, raw = _load(kind, row["recording"])
    S = raw["scores"].astype(np.float64)
    centre = 0.5 * (matrix.start + matrix.end)
    ends = turns["end"].to_numpy()
    labels = np.full(centre.size, "", dtype=object)
    for t0, t1, speaker in zip(turns["start"].to_numpy(), ends, turns["speaker"]):
        labels[(centre >= t0) & (centre < t1)] = speaker
    i, j = np.triu_indices(centre.size, 1)
    known = (labels[i] != "") & (labels[j] != "")
    same = labels[i] == labels[j]
    within, between = S[i[known & same], j[known & same]], S[i[known & ~same], j[known & ~same]]
    assert within.size and between.size
    assert within.mean() > between.mean()


def test_the_plda_tool_scores_with_the_two_covariance_llr():
    path = ROOT / "tools" / "simulate_plda_matrices.py"
    spec = importlib.util.spec_from_file_location("simulate_plda_matrices", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    rng = np.random.default_rng(0)
    plda = tool.TwoCovariancePLDA(tool.random_covariance(rng, 5, 0.3, 3.0), tool.random_covariance(rng, 5, 0.5, 2.0))
    X = rng.normal(size=(4, 5)) * 1.5
    L = plda.matrix(X)
    for a in range(4):
        for b in range(4):
            assert L[a, b] == pytest.approx(plda.pair(X[a], X[b]), rel=1e-8, abs=1e-8)
