"""The default call on cosines keeps at least NME-SC's count of speakers (issue 32: the closest voices merged).

Independent references: the reference RTTMs of the development corpus (the number of speakers each conversation was
synthesised with, tools/make_diarization_corpus.py); NME-SC run on its own (`method="nme-sc"`, Park et al. 2020, its
own tests compare it with NeMo's implementation); the definition of cosine scores (every score in [-1, 1]); the
bounds the caller gives.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.diarization.cluster import eigengap_floor_count
from paths import ROOT

DEV = ROOT / "tests" / "data" / "diarization_corpus"
AMI = ROOT / "assets" / "ami_ES2005a"


def _matrix(name: str):
    return lc.read_similarity(DEV / f"{name}.npz", reference=DEV / f"{name}.rttm")


@pytest.fixture(scope="module")
def synth13():
    """Seven synthetic voices: the block model alone merges the closest three into one speaker (4 found)."""
    return _matrix("synth13_k07")


def test_the_default_call_finds_the_seven_speakers_the_block_model_alone_merges_to_four(synth13):
    assert synth13.n_reference_speakers == 7
    alone = lc.cluster_similarity(synth13, eigengap_floor=False)
    assert alone.n_clusters == 4 and alone.options["eigengap_floor"] is None
    result = lc.cluster_similarity(synth13)
    assert result.n_clusters == 7
    assert result.options["eigengap_floor"] == lc.cluster_similarity(synth13, "nme-sc").n_clusters == 7


def test_the_floor_is_nme_sc_s_count_within_the_bounds_given(synth13):
    scores = np.asarray(synth13.scores)
    assert eigengap_floor_count(scores, 1, 20) == lc.cluster_similarity(synth13, "nme-sc").n_clusters
    capped = eigengap_floor_count(scores, 1, 3)
    assert 1 <= capped <= 3 and capped == lc.cluster_similarity(synth13, "nme-sc", max_clusters=3).n_clusters
    assert lc.cluster_similarity(synth13, max_clusters=3).n_clusters <= 3


def test_the_floor_is_only_for_cosines_with_the_default_prior_and_no_count_given(synth13):
    es2005a = lc.read_similarity(AMI / "ES2005a_similarity.npz", reference=AMI / "ES2005a.rttm")
    assert float(np.max(es2005a.scores)) > 1.0  # PLDA LLRs, not cosines
    assert eigengap_floor_count(np.asarray(es2005a.scores), 1, 20) is None
    assert lc.cluster_similarity(es2005a).options["eigengap_floor"] is None
    for options in ({"prior": "recording"}, {"n_clusters": 5}, {"prior": "resemblyzer-1.5s-espeak"}):
        assert lc.cluster_similarity(synth13, **options).options["eigengap_floor"] is None
    for method in ("ahc", "spectral", "nme-sc"):
        assert lc.cluster_similarity(synth13, method).options["eigengap_floor"] is None


def test_the_command_line_keeps_the_floor_unless_told_no_floor(capsys):
    from llrcore.cli import main

    path = str(DEV / "synth13_k07.npz")
    assert main(["diarize", path, "--csv"]) == 0
    default = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="uri")
    assert main(["diarize", path, "--csv", "--no-floor"]) == 0
    alone = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="uri")
    assert (default.loc["synth13_k07", "found"], alone.loc["synth13_k07", "found"]) == (7, 4)  # as the library above
    assert main(["diarize", path, "--method", "ahc", "--no-floor"]) == 2
    assert "--no-floor are for --method bayes" in capsys.readouterr().err
