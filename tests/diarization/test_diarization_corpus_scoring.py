"""Several recordings at once: ``lc.read_corpus``, ``lc.cluster_recordings``, ``lc.score_corpus`` and ``llrcore
diarize``, on recordings of the development corpus (tests/data/diarization_corpus, see its SOURCE.txt).

Independent references:

- pyannote.metrics itself (``DiarizationErrorRate``, ``JaccardErrorRate``, ``DiarizationPurity``,
  ``DiarizationCoverage``), for ``convention="pyannote"`` (the md-eval/dscore default is tested against md-eval and
  dscore in test_diarization_conventions.py), called here on annotations this test builds from the RTTM text (parsed with plain
  string splitting, not ``lc.read_rttm``) and from the hypothesis turns, with the same UEM and a collar of
  ``2 * collar`` (pyannote's collar is the total width); its accumulated ``report(display=False)`` TOTAL row for the
  corpus total;
- the leave-one-out score model: the same-speaker and different-speaker pairs of the other recordings pooled here
  from their references by hand;
- a two-speaker (plus one unmatched speaker) example whose JER, DER, purity and coverage are worked out by hand
  from the definitions of the DIHARD II evaluation plan (Ryant et al. 2019, section on JER: per reference speaker
  ``(FA + MISS) / TOTAL`` over the union with its mapped system speaker, 1 when unmapped, averaged).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pyannote.core import Annotation, Segment, Timeline
from pyannote.metrics.diarization import (
    DiarizationCoverage,
    DiarizationErrorRate,
    DiarizationPurity,
    JaccardErrorRate,
)

import llrcore as lc
from llrcore.cli import main
from paths import DATA

CORPUS = DATA / "diarization_corpus"
CHOSEN = ("synth03_k02", "synth05_k03", "synth07_k04", "synth12_k06")
COLLAR = 0.25


def _rttm_annotation(path: Path) -> Annotation:
    """The reference straight from the RTTM text: SPEAKER uri channel start duration NA NA speaker."""
    annotation = Annotation(uri=path.stem)
    for i, line in enumerate(path.read_text().splitlines()):
        fields = line.split()
        if fields and fields[0] == "SPEAKER":
            start, duration = float(fields[3]), float(fields[4])
            annotation[Segment(start, start + duration), i] = fields[7]
    return annotation


def _turns_annotation(turns: pd.DataFrame, uri: str) -> Annotation:
    annotation = Annotation(uri=uri)
    for i, row in enumerate(turns[turns["uri"] == uri].itertuples()):
        annotation[Segment(row.start, row.end), i] = row.speaker
    return annotation


@pytest.fixture(scope="module")
def corpus():
    matrices = lc.read_corpus([CORPUS / f"{name}.npz" for name in CHOSEN])
    hypotheses = lc.cluster_recordings(matrices, "ahc")
    durations = {name: float(np.load(CORPUS / f"{name}.npz")["duration"]) for name in CHOSEN}
    uems = pd.DataFrame({"uri": list(durations), "channel": "1", "start": 0.0, "end": list(durations.values())})
    scores = lc.score_corpus(matrices, hypotheses, uems=uems, collar=COLLAR, convention="pyannote")
    metrics = {"der": DiarizationErrorRate(collar=2 * COLLAR, skip_overlap=True),
               "jer": JaccardErrorRate(collar=2 * COLLAR, skip_overlap=True),
               "purity": DiarizationPurity(collar=2 * COLLAR, skip_overlap=True),
               "coverage": DiarizationCoverage(collar=2 * COLLAR, skip_overlap=True)}
    direct = {}
    for name in CHOSEN:
        reference = _rttm_annotation(CORPUS / f"{name}.rttm")
        hypothesis = _turns_annotation(hypotheses, name)
        uem = Timeline([Segment(0.0, durations[name])])
        direct[name] = {key: metric(reference, hypothesis, uem=uem) for key, metric in metrics.items()}
        direct[name]["der parts"] = metrics["der"].compute_components(reference, hypothesis, uem=uem)
        direct[name]["speakers"] = (len(reference.labels()), len(hypothesis.labels()))
    return scores, metrics, direct


def test_every_recording_equals_pyannote_metrics_on_the_same_annotations(corpus):
    scores, _, direct = corpus
    table = scores.to_frame(total=False)
    assert list(table.index) == list(CHOSEN) and list(table.columns) == list(lc.diarization.CORPUS_COLUMNS)
    for name in CHOSEN:
        row, expected = table.loc[name], direct[name]
        assert row["DER %"] == pytest.approx(100 * expected["der"], abs=1e-9)
        assert row["JER %"] == pytest.approx(100 * expected["jer"], abs=1e-9)
        assert row["purity %"] == pytest.approx(100 * expected["purity"], abs=1e-9)
        assert row["coverage %"] == pytest.approx(100 * expected["coverage"], abs=1e-9)
        parts = expected["der parts"]
        assert row["speech (s)"] == pytest.approx(parts["total"])
        assert row["missed (s)"] == pytest.approx(parts["missed detection"], abs=1e-9)
        assert row["false alarm (s)"] == pytest.approx(parts["false alarm"], abs=1e-9)
        assert row["confusion (s)"] == pytest.approx(parts["confusion"], abs=1e-9)
        assert row["confusion %"] == pytest.approx(100 * parts["confusion"] / parts["total"])
        assert (row["speakers"], row["found"]) == expected["speakers"]
    assert table["speakers"].tolist() == [2, 3, 4, 6]
    assert (table["DER %"] > 0).any()  # not a trivial perfect score


def test_the_total_row_is_pyannote_metrics_accumulated_report(corpus):
    scores, metrics, direct = corpus
    total = scores.to_frame().loc["TOTAL"]
    der = metrics["der"].report(display=False).loc["TOTAL"]
    assert total["DER %"] == pytest.approx(der[("diarization error rate", "%")], abs=1e-6)
    assert total["speech (s)"] == pytest.approx(der[("total", "")])
    for ours, theirs in (("missed", "missed detection"), ("false alarm", "false alarm"), ("confusion", "confusion")):
        assert total[f"{ours} (s)"] == pytest.approx(der[(theirs, "")], abs=1e-6)
        assert total[f"{ours} %"] == pytest.approx(der[(theirs, "%")], abs=1e-6)
    for key, column in (("jer", "jaccard error rate"), ("purity", "purity"), ("coverage", "coverage")):
        assert total[f"{key.upper() if key == 'jer' else key} %"] == pytest.approx(
            metrics[key].report(display=False).loc["TOTAL"][(column, "%")], abs=1e-6)
    # totals, not a mean of percentages: the two differ on this corpus
    assert total["DER %"] != pytest.approx(np.mean([100 * direct[n]["der"] for n in CHOSEN]), abs=1e-3)
    assert scores.der == pytest.approx(total["DER %"] / 100)
    assert scores.jer == pytest.approx(total["JER %"] / 100)
    assert total["speakers"] == 15


def test_jer_der_purity_coverage_of_a_hand_made_example():
    # reference A 0-10, B 10-20, C 20-25; system 1 0-12, 2 12-20 (nothing for C); no collar, overlap kept
    reference = pd.DataFrame({"uri": "x", "start": [0.0, 10.0, 20.0], "end": [10.0, 20.0, 25.0],
                              "speaker": ["A", "B", "C"]})
    hypothesis = pd.DataFrame({"uri": "x", "start": [0.0, 12.0], "end": [12.0, 20.0], "speaker": ["1", "2"]})
    uem = pd.DataFrame({"uri": ["x"], "channel": ["1"], "start": [0.0], "end": [25.0]})
    row = lc.score_corpus(reference, hypothesis, uems=uem, collar=0.0, skip_overlap=False).to_frame().loc["x"]
    # union 12 s, FA 2 s, miss 0 -> 2/12; B-2: union 10 s, FA 0, miss 2 s -> 2/10; C unmapped -> 1
    assert row["JER %"] == pytest.approx(100 * (2 / 12 + 2 / 10 + 1) / 3)
    # DER: 10-12 s said 1 (= A) under B is confusion, C's 5 s are missed, of 25 s of speech
    assert (row["confusion (s)"], row["missed (s)"], row["false alarm (s)"]) == pytest.approx((2.0, 5.0, 0.0))
    assert row["DER %"] == pytest.approx(100 * 7 / 25)
    assert row["purity %"] == pytest.approx(100 * (10 + 8) / 20)  # each cluster's largest speaker
    assert row["coverage %"] == pytest.approx(100 * (10 + 8 + 0) / 25)  # each speaker's largest cluster
    assert (row["speakers"], row["found"]) == (3, 2)


def test_the_command_line_diarizes_three_recordings(tmp_path, capsys):
    files = [str(CORPUS / f"{name}.npz") for name in CHOSEN[:3]]
    assert main(["diarize", *files, "--method", "ahc", "--csv", "--rttm-out", str(tmp_path / "out")]) == 0
    printed = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), index_col="uri")
    assert list(printed.index) == [*CHOSEN[:3], "TOTAL"]
    matrices = lc.read_corpus(files)
    expected = lc.score_corpus(matrices, lc.cluster_recordings(matrices, "ahc")).to_frame()
    assert np.allclose(printed["DER %"], expected["DER %"]) and np.allclose(printed["JER %"], expected["JER %"])
    for name in CHOSEN[:3]:
        turns = lc.read_rttm(tmp_path / "out" / f"{name}.rttm")
        assert set(turns["uri"]) == {name}
    assert main(["diarize", files[0], "--method", "spectral", "--n-clusters", "2"]) == 0
    text = capsys.readouterr().out
    assert "TOTAL" in text and "DER %" in text and CHOSEN[0] in text


def test_the_command_line_learns_the_prior_from_labelled_recordings(capsys):
    """--prior-from: the prior of the within- and between-speaker Gaussians learnt from other labelled recordings
    (the rest of the corpus), as BlockModelPrior.from_recordings learns it; --prior: a preset by name."""
    test = [str(CORPUS / f"{name}.npz") for name in CHOSEN[2:]]
    labelled = [str(CORPUS / f"{name}.npz") for name in CHOSEN[:2]]
    assert main(["diarize", *test, "--prior-from", *labelled, "--csv"]) == 0
    printed = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), index_col="uri")
    matrices = lc.read_corpus(test)
    prior = lc.diarization.BlockModelPrior.from_recordings(lc.read_corpus(labelled))
    expected = lc.score_corpus(matrices, lc.cluster_recordings(matrices, "bayes", prior=prior)).to_frame()
    np.testing.assert_allclose(printed["DER %"], expected["DER %"])
    assert list(printed["found"]) == list(expected["found"])
    assert main(["diarize", *test, "--prior", "resemblyzer-1.5s-espeak"]) == 0
    assert "prior: resemblyzer-1.5s-espeak" in capsys.readouterr().out
    assert main(["diarize", *test, "--prior", "resemblyzer-1.5s-espeak", "--method", "ahc"]) == 2
    assert "--method bayes" in capsys.readouterr().err


def _pairs_by_hand(matrix) -> tuple[np.ndarray, np.ndarray]:
    """Same-speaker and different-speaker scores of the pairs i < j, by the reference speakers' names."""
    names = np.asarray(matrix.reference).astype(str)
    rows, columns = np.triu_indices(names.size, 1)
    same = names[rows] == names[columns]
    scores = np.asarray(matrix.scores)[rows, columns]
    return scores[same], scores[~same]


def test_each_recording_clustered_with_the_model_learnt_from_the_others(capsys):
    """prior_from_others: recording r is clustered with the within and between Gaussians of the pooled labelled
    pairs of every other recording (computed here from the references by hand, held with the weights of
    LEARNT_STRENGTH and LEARNT_SHAPE): leave one out. On synth02_k01 (one speaker) that model finds the one speaker
    where the recording's own two-Gaussian fit finds two. Same through ``llrcore diarize --prior-from-others``."""
    from llrcore.diarization import block_prior

    names = ("synth02_k01", *CHOSEN)
    matrices = lc.read_corpus([CORPUS / f"{name}.npz" for name in names])
    hypotheses = lc.cluster_recordings(matrices, "bayes", prior_from_others=True)
    for matrix in matrices:
        pairs = [_pairs_by_hand(other) for other in matrices if other.uri != matrix.uri]
        within, between = (np.concatenate([p[k] for p in pairs]) for k in (0, 1))
        prior = lc.diarization.BlockModelPrior(within.mean(), between.mean(), within.var(),
                                               block_prior.LEARNT_STRENGTH, block_prior.LEARNT_SHAPE, 1.0,
                                               between.var())
        labels = lc.cluster_similarity(matrix, "bayes", prior=prior).labels
        expected = lc.segments_to_turns(matrix.start, matrix.end, labels, uri=matrix.uri)
        pd.testing.assert_frame_equal(hypotheses[hypotheses["uri"] == matrix.uri].reset_index(drop=True), expected)
    found = lc.score_corpus(matrices, hypotheses).to_frame()["found"]
    assert found["synth02_k01"] == 1
    assert lc.cluster_similarity(matrices[0], "bayes", prior="recording").n_clusters == 2

    assert main(["diarize", *(str(CORPUS / f"{name}.npz") for name in names), "--prior-from-others", "--csv"]) == 0
    printed = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), index_col="uri")
    np.testing.assert_allclose(printed["DER %"], lc.score_corpus(matrices, hypotheses).to_frame()["DER %"])
    assert main(["diarize", str(CORPUS / "synth03_k02.npz"), str(CORPUS / "synth05_k03.npz"),
                 "--prior-from-others"]) == 0
    assert "learnt from the other recordings" in capsys.readouterr().out


def test_a_model_from_the_other_recordings_is_refused_in_a_sentence(capsys):
    matrices = lc.read_corpus([CORPUS / f"{name}.npz" for name in CHOSEN[:2]])
    with pytest.raises(ValueError, match="for the Bayesian method, not ahc"):
        lc.cluster_recordings(matrices, "ahc", prior_from_others=True)
    with pytest.raises(ValueError, match="either a prior or prior_from_others"):
        lc.cluster_recordings(matrices, "bayes", prior="resemblyzer-1.5s-espeak", prior_from_others=True)
    with pytest.raises(ValueError, match="at least two recordings"):
        lc.cluster_recordings(matrices[:1], "bayes", prior_from_others=True)
    alone = lc.read_corpus([CORPUS / "synth02_k01.npz"])[0]  # one speaker: no different-speaker pairs
    with pytest.raises(ValueError, match="for 'synth03_k02', learnt from the other recordings: .*two speakers"):
        lc.cluster_recordings([alone, matrices[0]], "bayes", prior_from_others=True)
    unlabelled = lc.read_similarity(CORPUS / "synth05_k03.npz")
    with pytest.raises(ValueError, match="needs every reference; 'synth05_k03' has none"):
        lc.cluster_recordings([matrices[0], unlabelled], "bayes", prior_from_others=True)
    assert main(["diarize", str(CORPUS / "synth03_k02.npz"), str(CORPUS / "synth05_k03.npz"),
                 "--prior-from-others", "--method", "nme-sc"]) == 2
    error = capsys.readouterr().err
    assert "--method bayes" in error and "Traceback" not in error


def test_the_command_line_says_what_is_wrong_in_one_sentence(tmp_path, capsys):
    shutil.copy(CORPUS / "synth03_k02.npz", tmp_path / "lonely.npz")
    assert main(["diarize", str(tmp_path / "lonely.npz")]) == 2
    error = capsys.readouterr().err
    assert "lonely.npz" in error and "lonely.rttm" in error and "Traceback" not in error
    assert len(error.strip().splitlines()) == 1


def test_a_missing_rttm_is_a_load_error_naming_the_file(tmp_path):
    for name in CHOSEN[:2]:
        shutil.copy(CORPUS / f"{name}.npz", tmp_path)
    shutil.copy(CORPUS / f"{CHOSEN[0]}.rttm", tmp_path)
    with pytest.raises(lc.LoadError, match=f"{CHOSEN[1]}.rttm is missing") as caught:
        lc.read_corpus(tmp_path)
    assert Path(caught.value.path).name == f"{CHOSEN[1]}.npz"


def test_read_corpus_pairs_a_folder_and_named_files():
    corpus = lc.read_corpus(CORPUS)
    assert len(corpus) == 24 and [m.uri for m in corpus] == sorted(m.uri for m in corpus)
    assert all(m.reference_turns is not None and m.has_times for m in corpus)
    with open(CORPUS / "synth03_k02.npz", "rb") as matrix, open(CORPUS / "synth03_k02.rttm", "rb") as rttm:
        (one,) = lc.read_corpus([rttm, matrix])  # uploads: paired by name, in any order
    assert one.uri == "synth03_k02" and one.n_reference_speakers == 2
    with open(CORPUS / "synth05_k03.rttm", "rb") as rttm, pytest.raises(lc.LoadError, match="no similarity matrix"):
        lc.read_corpus([CORPUS / "synth03_k02.npz", rttm])


def test_turns_without_times_are_refused_in_a_sentence():
    reference = pd.DataFrame({"uri": ["x"], "start": [0.0], "end": [5.0], "speaker": ["A"]})
    with pytest.raises(ValueError, match="hypothesis has no column 'speaker'"):
        lc.score_corpus(reference, reference.drop(columns="speaker"))
    with pytest.raises(ValueError, match="end before they start"):
        lc.score_corpus(reference.assign(end=-1.0), reference)
