"""Figures of the diarization page as plain functions: what they draw, checked on the figure objects.

The evidence-bound axis is checked against the bound values of the clustering result's own trace table (AMI
ES2005a demo and a result whose "one speaker" run is moved thousands of nats down by hand).
"""
from __future__ import annotations

import base64
import dataclasses
import io

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import llrcore as lc
from llrcore.plots import diarization as dp
from paths import ASSETS

AMI = ASSETS / "ami_ES2005a" / "ES2005a_similarity.npz"


@pytest.fixture(scope="module")
def clustered():
    # a conversation: turns of 12-25 windows of 1.44 s every 0.24 s (3-6 s), speakers of 90, 60 and 30 windows
    rng = np.random.default_rng(2)
    turns = [(0, 20), (1, 15), (0, 25), (2, 12), (1, 20), (0, 20), (2, 18), (1, 25), (0, 25)]
    truth = np.concatenate([np.full(length, speaker) for speaker, length in turns])
    n = truth.size
    means = np.array([[10.0, -20.0, -25.0], [-20.0, 10.0, -15.0], [-25.0, -15.0, 10.0]])
    noise = np.triu(rng.normal(0, 5, (n, n)), 1)
    scores = means[truth][:, truth] + noise + noise.T
    start = 0.24 * np.arange(n)
    matrix = lc.SimilarityMatrix(scores, start=start, end=start + 1.44, reference=np.array(list("ABC"))[truth],
                                 uri="m")
    return matrix, lc.cluster_similarity(matrix, "bayes"), truth


def _image_pixels(trace) -> np.ndarray:
    from PIL import Image

    data = trace.source.split(",", 1)[1]
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))


def test_heatmap_is_reordered_by_cluster_with_boundaries(clustered):
    matrix, result, _ = clustered
    fig = dp.similarity_heatmap_figure(matrix.scores, result.labels, reference=matrix.reference)
    image = next(t for t in fig.data if isinstance(t, go.Image))
    pixels = _image_pixels(image)
    assert pixels.shape == (180, 180, 3)
    sizes = np.bincount(result.labels)
    # inside the first diagonal block the colours are bright (high scores), off it dark: compare mean brightness
    first = pixels[: sizes[0], : sizes[0]].mean()
    off = pixels[: sizes[0], sizes[0]:].mean()
    assert first > off + 40
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert len(lines) == 2 * (result.n_clusters - 1)
    strips = next(t for t in fig.data if isinstance(t, go.Heatmap) and t.showscale is False)
    assert list(strips.y) == ["reference", "cluster"]
    colourbar = next(t for t in fig.data if isinstance(t, go.Heatmap) and t.showscale)
    assert colourbar.zmin < colourbar.zmax


def test_heatmap_in_time_order_has_no_boundaries(clustered):
    matrix, result, _ = clustered
    fig = dp.similarity_heatmap_figure(matrix.scores, result.labels, reorder=False)
    assert not [s for s in fig.layout.shapes if s.type == "line"]
    assert "time order" in fig.layout.xaxis2.title.text


def test_score_distribution_shows_the_fitted_gaussians(clustered):
    matrix, result, truth = clustered
    fig = dp.score_distribution_figure(matrix.scores, result, bins=40)
    bars = [t for t in fig.data if isinstance(t, go.Bar)]
    assert [b.name.split("-")[0] for b in bars] == ["within", "between"]
    edges_width = bars[0].width[0]
    for bar in bars:  # each histogram is a density: area 1 (all pairs inside the 0.05 %..99.95 % range or close)
        assert np.sum(bar.y) * edges_width == pytest.approx(1.0, abs=0.01)
    within = next(t for t in fig.data if t.name.startswith("within Gaussian"))
    peak = within.x[np.argmax(within.y)]
    assert peak == pytest.approx(result.within.mean, abs=0.5)
    blocks = [t for t in fig.data if t.legendgroup == "blocks"]
    assert len(blocks) == 3  # one per pair of the 3 clusters
    mixture = next(t for t in fig.data if t.name.startswith("between: mixture"))
    dx = mixture.x[1] - mixture.x[0]
    assert np.sum(mixture.y) * dx == pytest.approx(1.0, abs=0.02)


def test_n_speakers_figure_marks_the_choice_and_the_reference(clustered):
    _, result, _ = clustered
    fig = dp.n_speakers_figure(result, reference_count=3)
    bar = fig.data[0]
    assert list(bar.x) == list(result.n_clusters_posterior.index)
    assert "reference" in fig.layout.xaxis.ticktext[list(bar.x).index(3)]
    assert fig.layout.yaxis.type == "log"
    assert all(y >= 1e-30 for y in bar.y)


def test_elbo_trace_has_one_line_per_run_and_a_thick_chosen_one(clustered):
    _, result, _ = clustered
    fig = dp.elbo_trace_figure(result)
    assert len(fig.data) == len(result.runs)
    widths = {t.name: t.line.width for t in fig.data}
    chosen = [name for name in widths if name.endswith("(chosen)")]
    assert len(chosen) == 1 and widths[chosen[0]] == max(widths.values())
    for trace in fig.data:
        assert len(trace.y) == (result.trace["run"] == trace.name.split(" →")[0]).sum()


def _assert_every_run_on_the_axis_or_noted(fig, result) -> None:
    """Every run's finite bound values lie within the y range, or the run is marked off-scale with a note."""
    low, high = fig.layout.yaxis.range
    notes = " ".join(a.text or "" for a in fig.layout.annotations)
    runs = [t for t in fig.data if (t.meta or {}).get("kind") == "run"]
    assert [t.meta["run"] for t in runs] == list(result.runs["run"])
    for trace in runs:
        y = np.asarray(trace.y, dtype=float)
        y = y[np.isfinite(y)]
        assert np.all(y <= high), trace.name
        final = result.trace.loc[result.trace["run"] == trace.meta["run"], "elbo"].iloc[-1]
        if np.all(y >= low):
            assert trace.meta["off_scale"] is False, trace.name
        elif final < low:  # the whole end of the run is out of sight: its value is in the note, ▼ on the edge
            assert f"{final:,.1f}" in trace.meta["off_scale"] and trace.meta["off_scale"] in notes
            assert "below the axis" in trace.name
        else:  # only the first iterations of its climb
            assert trace.meta["off_scale"] and "start below the axis" in notes


@pytest.fixture(scope="module")
def ami_result():
    return lc.cluster_similarity(lc.read_similarity(AMI), "bayes")


def test_elbo_axis_shows_where_every_ami_run_ends(ami_result):
    fig = dp.elbo_trace_figure(ami_result)
    finals = ami_result.trace.groupby("run", sort=False)["elbo"].last()
    low, high = fig.layout.yaxis.range
    assert low <= finals.min() and finals.max() <= high  # "one speaker" (-13,847) is on the axis
    _assert_every_run_on_the_axis_or_noted(fig, ami_result)


def test_elbo_run_ending_far_below_is_pinned_with_a_note(clustered):
    _, result, _ = clustered
    trace = result.trace.copy()
    trace.loc[trace["run"] == "one speaker", "elbo"] -= 5000.0
    far = dataclasses.replace(result, trace=trace)
    fig = dp.elbo_trace_figure(far)
    final = trace.loc[trace["run"] == "one speaker", "elbo"].iloc[-1]
    assert final < fig.layout.yaxis.range[0]
    (pinned,) = [t for t in fig.data if t.meta["run"] == "one speaker"]
    assert pinned.meta["off_scale"]
    assert any(a.text == "▼" and a.y == fig.layout.yaxis.range[0] for a in fig.layout.annotations)
    _assert_every_run_on_the_axis_or_noted(fig, far)
    _assert_every_run_on_the_axis_or_noted(dp.elbo_trace_figure(result), result)


def test_elbo_stage_above_every_final_bound_stays_on_the_axis(clustered):
    """A run's bound falls where a speaker shorter than min_speech is merged into another (a stage of its own), so an
    earlier stage can end above every run's final bound: the axis reaches up to it."""
    _, result, _ = clustered
    trace = result.trace.copy()
    first = trace.index[trace["run"] == result.runs["run"].iloc[-1]][0]
    trace.loc[first, "elbo"] = trace["elbo"].max() + 30.0
    raised = dataclasses.replace(result, trace=trace)
    fig = dp.elbo_trace_figure(raised)
    assert fig.layout.yaxis.range[1] >= trace["elbo"].max()
    _assert_every_run_on_the_axis_or_noted(fig, raised)


def test_similarity_matrix_fills_its_figure(clustered):
    """No square-cell constraint: it shrank the matrix to the column's width and left a blank band under it."""
    matrix, result, _ = clustered
    for labels in (result.labels, None):
        fig = dp.similarity_heatmap_figure(matrix.scores, labels, reference=matrix.reference)
        assert fig.layout.yaxis2.scaleanchor is False
        assert fig.layout.yaxis2.constrain is None and fig.layout.xaxis2.constrain is None


def test_timeline_maps_cluster_colours_to_reference_speakers(clustered):
    matrix, result, _ = clustered
    hypothesis = result.turns(matrix.start, matrix.end, "m")
    reference = lc.segments_to_turns(matrix.start, matrix.end, matrix.reference, uri="m")
    fig = dp.timeline_figure(hypothesis, reference)
    colour = {t.name: t.marker.color for t in fig.data}
    for name in colour:
        if name.startswith("hyp") and "→" in name:
            speaker = name.split("→ ")[1]
            assert colour[name] == colour[f"ref {speaker}"]
    total = sum(float(np.sum(t.x)) for t in fig.data if t.name.startswith("hyp"))
    assert total == pytest.approx(matrix.end[-1] - matrix.start[0])
    only = dp.timeline_figure(hypothesis)
    assert all(t.name.startswith("hyp") for t in only.data)


def test_figures_survive_one_cluster():
    scores = np.full((5, 5), 3.0)
    result = lc.cluster_similarity(scores, "bayes", n_clusters=1)
    assert isinstance(dp.similarity_heatmap_figure(scores, result.labels), go.Figure)
    assert isinstance(dp.score_distribution_figure(scores, result), go.Figure)
    assert isinstance(dp.n_speakers_figure(result), go.Figure)
    turns = pd.DataFrame({"uri": "m", "channel": "1", "start": [0.0], "end": [2.0], "speaker": ["spk0"]})
    assert isinstance(dp.timeline_figure(turns, turns), go.Figure)


def test_similarity_view_table_is_the_drawn_matrix():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(12, 12))
    scores = (scores + scores.T) / 2
    labels = np.array([1, 0, 2, 1, 0, 0, 2, 1, 1, 0, 2, 2])
    reference = np.array(list("abcabbcaabcc"))
    view = lc.diarization.similarity_view(scores, labels, reference=reference)
    frame = view.to_frame()
    np.testing.assert_array_equal(frame["segment"], np.argsort(labels, kind="stable"))
    np.testing.assert_array_equal(frame["cluster"], np.sort(labels))
    np.testing.assert_array_equal(frame["reference"], reference[frame["segment"]])
    for position, segment in enumerate(frame["segment"]):
        np.testing.assert_array_equal(frame.iloc[position, 3:].to_numpy(dtype=float), scores[segment, frame["segment"]])
    np.testing.assert_allclose(view.boundaries, [-0.5, 3.5, 7.5, 11.5])
    off = scores[~np.eye(12, dtype=bool)]
    np.testing.assert_allclose(view.colour_range, np.quantile(off, [0.01, 0.99]))
    fig = dp.similarity_heatmap_figure(view)
    assert fig.to_json() == dp.similarity_heatmap_figure(scores, labels, reference=reference).to_json()
    assert "segment" in lc.diarization.similarity_view(scores).to_frame().columns


def test_unclustered_view_is_one_block():
    """Before any clustering a view has one cluster (``n_clusters`` 1), so its boundaries are the two outer edges
    ``-0.5`` and ``N - 0.5`` (by hand: cell ``i`` spans ``i +- 0.5``); it was an error (mypy found it: no labels)."""
    view = lc.diarization.similarity_view(np.eye(5))
    assert view.labels is None and view.n_clusters == 1
    np.testing.assert_allclose(view.boundaries, [-0.5, 4.5])


def test_pooled_cells_against_a_loop_over_blocks():
    """Every pixel of a pooled image is the plain mean of its block of cells, the narrower last blocks too."""
    rng = np.random.default_rng(4)
    values = rng.normal(size=(23, 23))
    means, size = dp.pooled_cells(values, 5)
    assert size == 5 and means.shape == (5, 5)
    for i in range(5):
        for j in range(5):
            assert means[i, j] == pytest.approx(values[5 * i:5 * i + 5, 5 * j:5 * j + 5].mean(), rel=1e-13)
    same, one = dp.pooled_cells(values, 23)
    assert one == 1 and same is values


def test_a_large_matrix_is_drawn_as_pooled_cells_lined_up_with_the_segments():
    """N = 5,000: the PNG has at most MAX_IMAGE_CELLS pixels a side, each the mean of its block (within the 256
    colours of the scale), placed at its block's centre in segment units, so strips and block lines still match."""
    n, size = 5000, -(-5000 // dp.MAX_IMAGE_CELLS)
    truth = np.repeat([0, 1], [3001, 1999])
    scores = np.where(truth[:, None] == truth[None, :], 1.0, -1.0)
    fig = dp.similarity_heatmap_figure(scores, truth)
    image = next(t for t in fig.data if isinstance(t, go.Image))
    pixels = _image_pixels(image)
    m = -(-n // size)
    assert pixels.shape == (m, m, 3) and m <= dp.MAX_IMAGE_CELLS
    assert image.x0 == pytest.approx((size - 1) / 2) and image.dx == pytest.approx(size)
    # the block straddling the speaker change (row 3001) is a mixture: its mean is between the two colours
    straddle = 3001 // size
    inside, across, mixed = pixels[0, 0].astype(int), pixels[0, -1].astype(int), pixels[straddle, 0].astype(int)
    assert 3001 % size != 0 and not (mixed == inside).all() and not (mixed == across).all()
    assert (pixels[: straddle, : straddle] == inside).all() and (pixels[: straddle, straddle + 1:] == across).all()


def test_a_pooled_image_whose_squares_do_not_divide_n_keeps_the_segments_extent():
    """N = 2,401 in squares of 3: the last pixel would reach row 2,402.5; the axes stay on the segments."""
    n = 2401
    truth = np.repeat([0, 1], [1500, 901])
    scores = np.where(truth[:, None] == truth[None, :], 1.0, -1.0)
    fig = dp.similarity_heatmap_figure(scores, truth)
    image = next(t for t in fig.data if isinstance(t, go.Image))
    assert image.dx == 3 and _image_pixels(image).shape[:2] == (801, 801)
    assert list(fig.layout.xaxis2.range) == [-0.5, n - 0.5] and list(fig.layout.yaxis2.range) == [n - 0.5, -0.5]
    assert "up to 3 x 3" in image.hovertemplate
