"""lc.compare_methods: several diarizations of one recording side by side, as the page and the benchmark show them.

Independent references: the segment error by trying every one-to-one mapping of clusters to speakers (itertools, a
hand-made case small enough to enumerate), and pyannote.metrics' DiarizationErrorRate called directly on the same
turns (collar 2 x 0.25 s, overlap skipped: the md-eval convention). The advice of which method to trust is checked
against the DERs of the same table, read by hand (``min`` over its rows).
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from paths import ASSETS



def brute_force_segment_error(hypothesis, reference) -> float:
    clusters, speakers = sorted(set(hypothesis)), sorted(set(reference))
    best = 0
    for image in itertools.permutations(speakers + [None] * len(clusters), len(clusters)):
        mapping = dict(zip(clusters, image))
        best = max(best, sum(mapping[h] == r for h, r in zip(hypothesis, reference)))
    return 1 - best / len(reference)


def test_segment_scores_of_labels_results_and_turns():
    rng = np.random.default_rng(0)
    reference = np.array(list("aaabbbcccc"))
    scores = rng.normal(0, 1, (10, 10))
    matrix = lc.SimilarityMatrix(scores + scores.T, reference=reference)
    labels = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 0])
    table = lc.compare_methods(matrix, {"mine": labels}).to_frame()
    assert list(table.columns) == ["method", *lc.diarization.COMPARISON_COLUMNS]
    (row,) = table.to_dict("records")
    assert row["segment error"] == pytest.approx(brute_force_segment_error(labels, reference))
    assert row["speakers"] == 3
    assert np.isnan(row["DER"]) and np.isnan(row["seconds"])  # no times: no DER; plain labels: no time


def test_der_columns_are_pyannotes_and_a_full_systems_turns_have_no_segment_scores():
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    matrix = lc.read_similarity(ASSETS / "pyannote_sample" / "sample_similarity.npz",
                                reference=ASSETS / "pyannote_sample" / "sample.rttm")
    result = lc.cluster_similarity(matrix, "spectral")
    turns = result.turns(matrix.start, matrix.end, matrix.uri)
    table = lc.compare_methods(matrix, {"spectral": result, "its turns": turns}).to_frame().set_index("method")

    def annotation(frame):
        out = Annotation(uri=matrix.uri)
        for i, (t0, t1, speaker) in enumerate(frame[["start", "end", "speaker"]].itertuples(index=False)):
            out[Segment(t0, t1), i] = str(speaker)
        return out

    ref = matrix.reference_turns
    both = pd.concat([ref[["start", "end"]], turns[["start", "end"]]])
    uem = Timeline([Segment(both["start"].min(), both["end"].max())], uri=matrix.uri)
    metric = DiarizationErrorRate(collar=0.5, skip_overlap=True)
    parts = metric(annotation(ref), annotation(turns), uem=uem, detailed=True)
    for row in ("spectral", "its turns"):
        assert table.loc[row, "DER"] == pytest.approx(parts["diarization error rate"], rel=1e-12)
        assert table.loc[row, "confusion"] == pytest.approx(parts["confusion"] / parts["total"], rel=1e-12)
    assert table.loc["spectral", "speakers"] == result.n_clusters
    assert table.loc["spectral", "seconds"] == result.seconds
    assert np.isnan(table.loc["its turns", "segment error"])
    assert table.loc["spectral", "segment error"] == lc.segment_scores(result.labels, matrix.reference).error


def test_the_method_to_trust_is_the_lowest_der_and_never_a_full_systems_rttm():
    """ES2005a with VBx's own RTTM in the table (the page's demo): the advice is the clustering with the lowest DER,
    even where the Bayesian model is not it; VBx's row has no segment labels and is never advised."""
    folder = ASSETS / "ami_ES2005a"
    matrix = lc.read_similarity(folder / "ES2005a_similarity.npz", reference=folder / "ES2005a.rttm")
    outputs = {m: lc.cluster_similarity(matrix, m) for m in ("ahc", "spectral")}
    outputs["VBx"] = lc.read_rttm(folder / "ES2005a.vbx_output_reproduced_here.rttm")
    # a perfect "system" beside them would be advised if its row counted: the reference's own turns
    outputs["the reference"] = matrix.reference_turns
    comparison = lc.compare_methods(matrix, outputs)
    table = comparison.to_frame().set_index("method")
    advice = lc.diarization.method_to_trust(matrix.scores, comparison)
    assert advice.method == table.loc[["ahc", "spectral"], "DER"].idxmin()
    assert f"{100 * table.loc[advice.method, 'DER']:.1f} %" in advice.reason
    assert "VBx" not in advice.reason and "the reference" not in advice.reason


def test_a_tie_in_der_goes_to_the_lower_segment_error_and_is_said():
    """pyannote's sample: the Bayesian model and spectral clustering have the same DER (2.4 %), spectral the lower
    segment error (5.4 % against 8.1 %), so spectral is advised, the first row or not."""
    folder = ASSETS / "pyannote_sample"
    matrix = lc.read_similarity(folder / "sample_similarity.npz", reference=folder / "sample.rttm")
    outputs = {m: lc.cluster_similarity(matrix, m) for m in ("bayes", "spectral")}
    table = lc.compare_methods(matrix, outputs).to_frame().set_index("method")
    assert table.loc["bayes", "DER"] == table.loc["spectral", "DER"]
    assert table.loc["spectral", "segment error"] < table.loc["bayes", "segment error"]
    advice = lc.diarization.method_to_trust(matrix.scores, lc.compare_methods(matrix, outputs))
    assert advice.method == "spectral"
    assert "shared with bayes" in advice.reason


def test_without_times_the_advice_is_the_lowest_segment_error():
    rng = np.random.default_rng(2)
    reference = np.repeat(list("abc"), [15, 10, 5])
    scores = np.where(reference[:, None] == reference[None, :], 5.0, -5.0) + rng.normal(0, 6, (30, 30))
    matrix = lc.SimilarityMatrix((scores + scores.T) / 2, reference=reference)
    outputs = {m: lc.cluster_similarity(matrix, m, n_clusters=3) for m in ("ahc", "spectral")}
    table = lc.compare_methods(matrix, outputs).to_frame().set_index("method")
    assert table["DER"].isna().all()
    advice = lc.diarization.method_to_trust(matrix.scores, lc.compare_methods(matrix, outputs))
    assert advice.method == table.sort_values(["segment error", "method"])["segment error"].index[0]
    assert "lowest segment error" in advice.reason


def _cosines_of_unit_vectors(rng, labels, dimension=64) -> np.ndarray:
    """float32 cosines of unit vectors: their self-similarities miss 1 by a few ulps."""
    centres = rng.normal(size=(labels.max() + 1, dimension))
    vectors = (centres[labels] + 0.7 * rng.normal(size=(labels.size, dimension))).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors @ vectors.T


def test_without_a_reference_the_advice_follows_the_kind_of_score():
    """Cosines of float32 unit vectors (diagonal a hair above 1) are cosines; LLRs are not."""
    rng = np.random.default_rng(1)
    labels = np.repeat([0, 1], 40)
    cosines = _cosines_of_unit_vectors(rng, labels)
    assert cosines.max() > 1.0  # the case the slack is for
    names = {"nme-sc": "NME-SC", "bayes": "Bayesian block model"}
    for scores, expected in ((cosines, "NME-SC"), (30.0 * cosines - 15.0, "Bayesian block model")):
        matrix = lc.SimilarityMatrix(scores)
        comparison = lc.compare_methods(matrix, {"ahc": lc.cluster_similarity(matrix, "ahc")})
        advice = lc.diarization.method_to_trust(scores, comparison, names=names)
        assert advice.method == expected
        assert "No reference" in advice.reason


def test_one_method_alone_is_compared_and_advised_without_error():
    """The page's Cluster button runs one method (its row, with VBx's RTTM beside it, gives the headline): a row alone
    has the same numbers as in a table with other methods; with a reference the advice is that method, its DER
    quoted; without one, the corpus's advice by the kind of score (a hand-made LLR-like matrix: the Bayesian model)."""
    folder = ASSETS / "ami_ES2005a"
    matrix = lc.read_similarity(folder / "ES2005a_similarity.npz", reference=folder / "ES2005a.rttm")
    vbx = lc.read_rttm(folder / "ES2005a.vbx_output_reproduced_here.rttm")
    spectral = lc.cluster_similarity(matrix, "spectral")
    alone = lc.compare_methods(matrix, {"spectral": spectral, "VBx": vbx}).to_frame().set_index("method")
    ahc = lc.cluster_similarity(matrix, "ahc")
    both = lc.compare_methods(matrix, {"ahc": ahc, "spectral": spectral, "VBx": vbx}).to_frame().set_index("method")
    pd.testing.assert_frame_equal(alone, both.loc[["spectral", "VBx"]])
    advice = lc.diarization.method_to_trust(matrix.scores, lc.compare_methods(matrix, {"spectral": spectral}))
    assert advice.method == "spectral"
    assert f"{100 * alone.loc['spectral', 'DER']:.1f} %" in advice.reason

    labels = np.repeat([0, 1], 20)
    scores = np.where(labels[:, None] == labels[None, :], 10.0, -20.0)  # LLR-like, no reference
    unlabelled = lc.SimilarityMatrix(scores)
    single = lc.compare_methods(unlabelled, {"bayes": lc.cluster_similarity(unlabelled, "bayes")})
    assert single.to_frame()["speakers"].tolist() == [2.0]
    advice = lc.diarization.method_to_trust(scores, single, names={"bayes": "Bayesian block model"})
    assert advice.method == "Bayesian block model" and "No reference" in advice.reason
