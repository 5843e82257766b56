"""A prior learnt from labelled recordings (issue 46): lc.fit_diarization_prior, its JSON file, its leave-one-out
report, the default call's word on its count, and a floor met by a crumb.

Independent references: the reference RTTMs of the development corpus (tests/data/diarization_corpus, the speakers
each conversation was synthesised with); the mean and variance of the same-speaker and different-speaker pairs
gathered here with numpy from the references; NME-SC run on its own (``method="nme-sc"``); the segment times (each
window's seconds in the RTTM written from it, :func:`~llrcore.diarization.model.window_seconds`); md-eval's DER as
:func:`lc.score_corpus` computes it (its own tests compare it with md-eval and pyannote.metrics).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import llrcore as lc
from llrcore._deprecation import OldSpellingWarning
from llrcore.diarization.model import MIN_SPEECH, window_seconds
from paths import ROOT

DEV = ROOT / "tests" / "data" / "diarization_corpus"
HELDOUT = ROOT / "tests" / "data" / "diarization_heldout"
LABELLED = ("synth03_k02", "synth04_k02", "synth06_k03")


def _matrix(name: str, folder=DEV):
    return lc.read_similarity(folder / f"{name}.npz", reference=folder / f"{name}.rttm")


@pytest.fixture(scope="module")
def learnt():
    return lc.fit_diarization_prior([_matrix(name) for name in LABELLED], embedder="Resemblyzer",
                                    windows="1.5 s every 0.75 s")


def test_the_prior_is_the_pooled_pairs_of_the_references(learnt):
    same, different = [], []
    for name in LABELLED:
        matrix = _matrix(name)
        speakers = np.asarray(matrix.reference).astype(str)
        rows, columns = np.triu_indices(speakers.size, 1)
        pairs = np.asarray(matrix.scores, dtype=np.float64)[rows, columns]
        same.append(pairs[speakers[rows] == speakers[columns]])
        different.append(pairs[speakers[rows] != speakers[columns]])
    same, different = np.concatenate(same), np.concatenate(different)
    assert (learnt.within_mean, learnt.between_mean, learnt.variance, learnt.between_variance) == pytest.approx(
        (same.mean(), different.mean(), same.var(), different.var()), rel=1e-12)
    source = learnt.learnt_on
    assert (source.recordings, source.uris, source.embedder, source.windows) == (
        3, LABELLED, "Resemblyzer", "1.5 s every 0.75 s")
    assert source.llrcore_version == lc.__version__


def test_the_json_round_trip_is_bit_for_bit_and_clusters_alike(learnt):
    text = learnt.to_json()
    data = json.loads(text)
    assert data["kind"] == "llrcore.diarization.BlockModelPrior" and data["version"] == 1
    assert data["learnt_on"]["recordings"] == 3
    loaded = lc.diarization.BlockModelPrior.from_json(text)
    for name in ("within_mean", "between_mean", "variance", "between_variance", "mean_strength", "shape",
                 "concentration"):
        assert getattr(loaded, name) == getattr(learnt, name)  # exactly
    assert loaded.learnt_on == learnt.learnt_on
    assert loaded.report.to_frame().equals(learnt.report.to_frame())
    new = _matrix("synth07_k04")
    result = lc.cluster_similarity(new, prior=loaded)
    np.testing.assert_array_equal(result.labels, lc.cluster_similarity(new, prior=learnt).labels)
    assert "(prior: given, learnt on 3 recordings)" in result.sentence()
    assert "learn a prior" not in result.sentence()  # a prior was given: no advice to learn one


#: A preset's file, whose numbers the cases below spoil one at a time.
PRESET_FILE = lc.diarization.block_prior.PRESETS["resemblyzer-1.5s-espeak"].to_json()


@pytest.mark.parametrize(("text", "words"), [
    ("{", "not JSON"),
    ('{"kind": "something else"}', "'kind'"),
    ('{"kind": "llrcore.diarization.BlockModelPrior", "version": 99}', "version 99"),
    ('{"kind": "llrcore.diarization.BlockModelPrior", "version": 1, "hyperparameters": {}}', "lacks"),
    (PRESET_FILE.replace('"variance": 0.007641', '"variance": -0.007641'),
     r"variance must be above 0 .*not -0\.007641"),
    (PRESET_FILE.replace('"shape": 300.0', '"shape": 0'), "shape must be above 0"),
    (PRESET_FILE.replace('"within_mean": 0.7472', '"within_mean": NaN'), "within_mean is not a number: nan"),
    (PRESET_FILE.replace('"mean_strength": 1000.0', '"mean_strength": true'), "mean_strength is not a number: True"),
    (PRESET_FILE.replace('"leave_one_out": null', '"leave_one_out": [{"uri": "a", "speakers": 2}]'),
     r"^The prior file's 'learnt_on' is not readable: its leave_one_out must be null or a list of rows, each with a "
     r"uri and the numbers speakers, found and DER %\.$"),
], ids=["json", "kind", "version", "lacks", "negative variance", "zero shape", "NaN mean", "true strength", "report"])
def test_a_file_that_is_not_a_prior_gets_a_sentence(text, words):
    with pytest.raises(ValueError, match=words):
        lc.diarization.BlockModelPrior.from_json(text)


def test_the_leave_one_out_report_clusters_each_recording_with_the_others_prior(learnt):
    frame = learnt.report.to_frame()
    assert list(frame.index) == list(LABELLED) and list(frame.columns) == ["speakers", "found", "DER %"]
    left_out = _matrix("synth06_k03")
    others = lc.diarization.BlockModelPrior.from_recordings([_matrix(n) for n in LABELLED[:2]])
    result = lc.cluster_similarity(left_out, prior=others)
    turns = result.turns(left_out.start, left_out.end, uri=left_out.uri)
    der = lc.score_corpus([left_out], turns).to_frame(total=False)["DER %"].iloc[0]
    assert frame.loc["synth06_k03", "found"] == result.n_clusters
    assert frame.loc["synth06_k03", "DER %"] == pytest.approx(der)
    assert list(frame["speakers"]) == [2, 2, 3]
    right = int((frame["found"] == frame["speakers"]).sum())
    assert learnt.report.sentence().startswith(f"Left out in turn, each of the 3 recordings was clustered with the "
                                               f"prior learnt on the other 2: the right number of speakers on {right} "
                                               f"of 3, mean DER {frame['DER %'].mean():.1f} %.")


def test_the_old_preset_names_are_aliases():
    matrix = _matrix("synth03_k02")
    with pytest.warns(OldSpellingWarning, match="'synthetic-cosine' is now called 'resemblyzer-1.5s-espeak'"):
        old = lc.cluster_similarity(matrix, prior="synthetic-cosine")
    assert old.options["prior"] == lc.diarization.PRESETS["resemblyzer-1.5s-espeak"]
    assert old.options["prior_source"] == "resemblyzer-1.5s-espeak"
    assert lc.diarization.PRESETS["resemblyzer-1.5s-espeak"].learnt_on.windows == "1.5 s every 0.75 s"


def test_the_default_call_says_which_prior_and_how_sure_its_count_is():
    """synth03_k02: the floor (NME-SC's count, 2) binds; NME-SC's eigengaps, from its own run, are at most 8 here:
    the largest over the next largest is the ratio; the runs' posterior mass of K = 2 is 1."""
    matrix = _matrix("synth03_k02")
    result = lc.cluster_similarity(matrix)
    gaps = np.diff(lc.cluster_similarity(matrix, "nme-sc").eigenvalues)[:8]
    first, second = np.sort(gaps)[::-1][:2]
    assert result.options["eigengap_ratio"] == pytest.approx(first / second, rel=1e-12)
    assert result.options["count_probability"] == result.n_clusters_posterior[2] == 1.0
    assert result.options["floor_met_by"] == "block model" and result.options["count_sure"] is True
    assert result.sentence() == (
        "2 speakers found by bayes (prior: resemblyzer-1.5s-espeak (by the kind of scores)); posterior mass of this "
        f"count 1.00, the count is NME-SC's (the fewest kept), its largest eigengap {first / second:.1f} times the "
        "next.")


def test_an_unsure_count_says_to_learn_a_prior():
    """synth08_k04: NME-SC's largest eigengap is only 1.27 times the next (below 2, chosen on this corpus)."""
    result = lc.cluster_similarity(_matrix("synth08_k04"))
    assert result.options["eigengap_ratio"] == pytest.approx(1.27, abs=0.01)
    assert result.options["count_sure"] is False
    assert result.sentence().endswith("The count is unsure: learn a prior from a few labelled recordings of the "
                                      "same embedder (lc.fit_diarization_prior, llrcore diarize --learn, or the "
                                      "Diarization page).")


def test_a_floor_met_by_a_crumb_takes_nme_sc_partition():
    """synth10_k05 (five voices): the block model merges two and met NME-SC's count of 5 with a crumb of 2.8 s
    (below min_speech = 4 s), DER 15.6 %; NME-SC's own five clusters all hold 4 s or more (DER 5.1 %)."""
    matrix = _matrix("synth10_k05")
    nme = lc.cluster_similarity(matrix, "nme-sc")
    result = lc.cluster_similarity(matrix)
    seconds = np.bincount(result.labels, weights=window_seconds(matrix.start, matrix.end))
    assert result.n_clusters == matrix.n_reference_speakers == nme.n_clusters == 5
    assert seconds.min() >= MIN_SPEECH
    assert result.options["floor_met_by"] == "NME-SC partition" and result.options["count_sure"] is False
    np.testing.assert_array_equal(result.labels, nme.labels)
    assert "met NME-SC's count with a crumb" in result.sentence() and "fit_diarization_prior" in result.sentence()
    turns = result.turns(matrix.start, matrix.end, uri=matrix.uri)
    assert lc.score_corpus([matrix], turns).der < 0.06


def test_issue_46_protocol_on_the_held_out_corpus():
    """docs/diarization.md, "Measured (issue 46's goal)": a prior fitted on three held-out conversations, read back
    from its JSON, on the next eight: right K on 4 of 8, mean DER 14.9 % (the goal, 7 of 8 and 6 %, is not met; the
    real-voice set the issue names is not in the repository). Measured once; nothing was tuned on it."""
    fitted = lc.fit_diarization_prior([_matrix(n, HELDOUT) for n in ("held02_k02", "held03_k03", "held04_k04")],
                                      leave_one_out=False)
    prior = lc.diarization.BlockModelPrior.from_json(fitted.to_json())
    right, ders = 0, []
    for name in ("held05_k05", "held06_k06", "held07_k07", "held08_k08", "held09_k09", "held10_k10", "held11_k05",
                 "held12_k04"):
        matrix = _matrix(name, HELDOUT)
        result = lc.cluster_similarity(matrix, prior=prior)
        right += result.n_clusters == matrix.n_reference_speakers
        ders.append(lc.score_corpus([matrix], result.turns(matrix.start, matrix.end, matrix.uri)).der)
    assert right == 4
    assert 100 * np.mean(ders) == pytest.approx(14.9, abs=0.15)  # docs' one decimal, the machines' BLAS spread


def test_the_leave_one_out_report_holds_the_others_prior_as_firmly_as_asked():
    """With kappa0 = 15 and a0 = 25 (the default call's hold) the report's recording is clustered with the others'
    prior held that loosely, not with the default strengths (synth07_k04 with synth03_k02's prior: DER 3.0 %, held
    firmly 7.2 %)."""
    matrices = [_matrix("synth03_k02"), _matrix("synth07_k04")]
    learnt = lc.fit_diarization_prior(matrices, mean_strength=15.0, shape=25.0)
    assert (learnt.mean_strength, learnt.shape) == (15.0, 25.0)
    others = lc.diarization.BlockModelPrior.from_recordings(matrices[:1], mean_strength=15.0, shape=25.0)
    result = lc.cluster_similarity(matrices[1], prior=others)
    turns = result.turns(matrices[1].start, matrices[1].end, uri=matrices[1].uri)
    assert learnt.report.to_frame().loc["synth07_k04", "DER %"] == pytest.approx(
        100 * lc.score_corpus([matrices[1]], turns).der)
