"""The diarization development corpus (tests/data/diarization_corpus): every file reads with the library, the
index agrees with the files, the matrices are what they claim, the reference explains the scores, and every
speaker can be counted (it speaks at least 10 s and, in the cosine recordings, is distinct to the embedder).

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
from paths import ROOT

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


def _labels(matrix, turns) -> np.ndarray:
    """The reference speaker at each window's centre ("" in a pause)."""
    centre = 0.5 * (matrix.start + matrix.end)
    labels = np.full(centre.size, "", dtype=object)
    for t0, t1, speaker in zip(turns["start"].to_numpy(), turns["end"].to_numpy(), turns["speaker"]):
        labels[(centre >= t0) & (centre < t1)] = speaker
    return labels


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
    labels = _labels(matrix, turns)
    i, j = np.triu_indices(labels.size, 1)
    known = (labels[i] != "") & (labels[j] != "")
    same = labels[i] == labels[j]
    within, between = S[i[known & same], j[known & same]], S[i[known & ~same], j[known & ~same]]
    assert within.size and between.size
    assert within.mean() > between.mean()


MIN_SPEECH = 10.0  # s: the tools' speaking floor


@pytest.mark.parametrize("kind, row", RECORDINGS, ids=[f"{k}-{r['recording']}" for k, r in RECORDINGS])
def test_every_speaker_speaks_at_least_ten_seconds(kind, row):
    """A speaker with a few seconds of speech cannot be counted: every speaker has >= 10 s of turns in the RTTM."""
    _, turns, _ = _load(kind, row["recording"])
    speaking = (turns["end"] - turns["start"]).groupby(turns["speaker"]).sum()
    assert speaking.min() >= MIN_SPEECH, speaking.sort_values().head(3).to_dict()


#: Recordings where a pair of speakers is known not to be distinct to the embedder. synth20_k10 (ten speakers, one
#: dominant): its quiet speakers' turns are 1-3 s, so almost all their windows straddle a turn change, and spk02
#: (fi+Alicia -p 56) and spk08 (cs+f3 -p 59) come out at a between-speaker mean of 0.65 against within means of
#: 0.64 and 0.74. Strict: the test fails when the corpus no longer has the problem, and this list goes.
NOT_DISTINCT = {"synth20_k10"}
COSINE_MULTI = [pytest.param(row, id=row["recording"], marks=[pytest.mark.xfail(
                    strict=True, reason="a pair of voices not distinct to the embedder (see NOT_DISTINCT)")]
                    if row["recording"] in NOT_DISTINCT else [])
                for kind, row in RECORDINGS if kind == "cosine" and int(row["K"]) > 1]


@pytest.mark.parametrize("row", COSINE_MULTI)
def test_every_pair_of_cosine_speakers_is_distinct_to_the_embedder(row):
    """Each pair's mean between-speaker cosine is below both speakers' own within-speaker means (window labels at the
    centres, as above): no two voices of a recording are one speaker to Resemblyzer."""
    matrix, turns, raw = _load("cosine", row["recording"])
    S = raw["scores"].astype(np.float64)
    labels = _labels(matrix, turns)
    speakers = sorted(set(labels) - {""})
    assert len(speakers) == int(row["K"])
    members = {s: np.flatnonzero(labels == s) for s in speakers}
    within = {s: S[np.ix_(m, m)][np.triu_indices(m.size, 1)].mean() for s, m in members.items()}
    for a_index, a in enumerate(speakers):
        for b in speakers[a_index + 1:]:
            between = S[np.ix_(members[a], members[b])].mean()
            assert between < min(within[a], within[b]), (a, b, between, within[a], within[b])


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
