"""Figures of the multiclass analysis: what they draw is the library's numbers, in the right places."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import llrcore as lc
from llrcore.plots import figure_to_frame
from llrcore.plots import multiclass as mp
import paths

DATA = paths.DATA / "multiclass" / "iemocap_wav2vec_pt"
CLASSES = ("anger", "happiness", "neutral", "sadness")


@pytest.fixture(scope="module")
def iemocap():
    labels = np.load(DATA / "targets.npy")
    llrs = np.load(DATA / "scores.npy") - np.log(np.bincount(labels) / labels.size)  # log-posteriors -> LLRs
    scores = lc.MulticlassScores(llrs, labels, classes=CLASSES)
    return lc.analyse_multiclass(scores)


def bars(fig: go.Figure) -> list[go.Bar]:
    return [trace for trace in fig.data if isinstance(trace, go.Bar)]


def test_pairwise_bar_matrix_draws_the_table(iemocap):
    fig = mp.pairwise_bar_matrix_figure(iemocap.pairwise)
    traces = bars(fig)
    assert [t.meta["kind"] for t in traces] == ["cllr", "cllr_calibrated", "min_cllr"]
    values = iemocap.pairwise[["cllr", "cllr_calibrated", "min_cllr"]].to_numpy()
    top = values.max() * 1.1  # the scale: just above the tallest bar
    for k, trace in enumerate(traces):
        np.testing.assert_allclose(np.asarray(trace.y) / mp._BAR_SPAN * top, values[:, k], rtol=1e-12)
        assert [row[0] for row in trace.customdata] == [f"{a} vs {b}" for a, b in
                                                       zip(iemocap.pairwise["class_a"], iemocap.pairwise["class_b"])]
    # pair (a, b) sits in column b - 1, row a from the top (n - 2 - a from the bottom)
    for (a, b), x, base in zip([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], traces[1].x, traces[1].base):
        assert x == pytest.approx(b - 1 + 0.5)
        assert base == pytest.approx(4 - 2 - a + mp._BAR_BASE)
    texts = {a.text.replace("<b>", "").replace("</b>", "") for a in fig.layout.annotations}
    assert set(CLASSES) <= texts
    assert "above 1 bit" not in fig.layout.title.text  # IEMOCAP has no pair above 1 bit
    frame = figure_to_frame(fig)
    assert set(frame["trace"]) == {label for _, label, _ in mp.PAIRWISE_BARS}


def test_pairs_above_one_bit_are_flagged_and_tall_bars_clipped():
    table = pd.DataFrame({"class_a": ["en", "en", "hi"], "class_b": ["hi", "ta", "ta"],
                          "cllr": [1.3, 0.4, np.inf], "cllr_calibrated": [0.9, 0.35, 0.8],
                          "min_cllr": [0.8, 0.3, 0.7]})
    fig = mp.pairwise_bar_matrix_figure(table)
    assert "2 pairs above 1 bit" in fig.layout.title.text
    frames = [s for s in fig.layout.shapes if s.type == "rect"]
    red = [s for s in frames if s.line.color == mp._FLAG_COLOUR]
    assert len(frames) == 3 and len(red) == 2
    raw = bars(fig)[0]
    assert max(raw.y) == pytest.approx(mp._BAR_SPAN)  # the infinite Cllr drawn to the top of the 2-bit scale
    assert raw.text[2] == "∞"
    one_bit = [s for s in fig.layout.shapes if s.type == "line" and s.line.dash == "dot"]
    assert len(one_bit) == 3  # the 1-bit line of every cell


def test_pairwise_bar_matrix_stays_readable_for_fifteen_classes():
    rng = np.random.default_rng(0)
    n = 15
    labels = rng.integers(0, n, 4000)
    llrs = 2 * (2 * np.eye(n)[labels] + rng.normal(0, 1, (4000, n)))
    scores = lc.MulticlassScores(llrs, labels, classes=[f"language {i}" for i in range(n)])
    table = lc.pairwise_analysis(scores)
    start = time.perf_counter()
    fig = mp.pairwise_bar_matrix_figure(table)
    assert time.perf_counter() - start < 1
    assert len([s for s in fig.layout.shapes if s.type == "rect"]) == 105
    assert all(len(t.x) == 105 for t in bars(fig))
    assert fig.layout.height <= 1100
    with pytest.raises(ValueError, match="empty"):
        mp.pairwise_bar_matrix_figure(table.iloc[:0])


def test_detection_ape_figure_shows_raw_and_calibrated_detection_trials(iemocap):
    fig = mp.detection_ape_figure(iemocap.scores, iemocap.calibrated, "happiness")
    assert "happiness" in fig.layout.title.text
    names = [t.name for t in fig.data]
    raw = lc.detection_llrs(iemocap.scores.llrs, 1)
    cal = lc.detection_llrs(iemocap.calibrated, 1)
    is_tar = iemocap.scores.labels == 1
    for label, det in (("raw", raw), ("calibrated", cal)):
        expected = lc.cllr(det[is_tar], det[~is_tar])
        assert any(name.startswith(f"happiness: {label} (Cllr {expected:.3f} bits") for name in names)


def test_detection_scatter_plots_every_trial_before_against_after(iemocap):
    fig = mp.detection_scatter_figure(iemocap.scores, iemocap.calibrated, 0, max_points=500)
    raw = lc.detection_llrs(iemocap.scores.llrs, 0)
    cal = lc.detection_llrs(iemocap.calibrated, 0)
    points = {t.meta["kind"]: t for t in fig.data}
    assert len(points["target"].x) == 500 and len(points["non_target"].x) == 500
    target = np.flatnonzero(iemocap.scores.labels == 0)
    np.testing.assert_allclose(points["target"].x[0], raw[target[0]])
    np.testing.assert_allclose(points["target"].y[-1], cal[target[-1]])
    slope = np.polyfit(raw, cal, 1)[0]
    assert points["trend"].meta["slope"] == pytest.approx(slope, rel=1e-9)
    assert "target trials (500 of 1,103 shown)" in points["target"].name


def test_confusion_matrix_figure_shows_row_shares(iemocap):
    errors = lc.identification_errors(iemocap.scores, prior="empirical")
    fig = mp.confusion_matrix_figure(errors)
    heat = fig.data[0]
    expected = 100 * errors.confusion / errors.confusion.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(heat.z, dtype=float), expected)
    assert list(heat.x) == list(CLASSES) and list(heat.y) == list(CLASSES)
    assert f"{errors.confusion[1, 2]:,}" in heat.text[1][2]
    assert "34.9 %" in fig.layout.title.text  # the published 1-ACC of IEMOCAP, 0.349
