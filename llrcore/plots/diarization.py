"""Figures of diarization from a similarity matrix: the reordered matrix, score distributions with the fitted
Gaussians, the posterior of the number of speakers, the evidence bound per iteration and a speaker timeline.

Pure functions of llrcore results (:class:`~llrcore.diarization.ClusteringResult`, turn tables) returning plotly
figures in the workbench's style. Big matrices are drawn as one PNG image (``px.imshow(binary_string=True)``): a
1000 x 1000 matrix is a few hundred kB instead of megabytes of JSON. Beyond :data:`MAX_IMAGE_CELLS` segments a
side, a pixel is the mean score of a square of pairs (:func:`pooled_cells`): a 5,000-segment matrix would be
25 million cells, tens of MB of PNG for a figure 640 px high.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..diarization.gaussians import GaussianFit
from ..diarization.result import ClusteringResult
from ..diarization.scoring import optimal_mapping
from ..diarization.view import SimilarityView, cluster_order, similarity_view
from ._style import CLASS_COLOURS, PALETTE, style_figure, with_alpha, wrap_label

__all__ = ["speaker_colours", "similarity_heatmap_figure", "pooled_cells", "score_distribution_figure",
           "n_speakers_figure", "elbo_trace_figure", "timeline_figure", "cluster_order"]

#: Colours of speakers beyond the palette's (which keeps blue/vermillion/green... for the first ones).
_EXTRA = ("#7F7F7F", "#BCBD22", "#17BECF", "#9467BD", "#8C564B", "#E377C2", "#AEC7E8", "#FFBB78")
#: Height of the similarity-matrix figure (px); the matrix fills it, whatever the width.
MATRIX_HEIGHT = 640
#: Most pixels a side of the matrix image: above it, squares of pairs are averaged (ES2005a's 1,025 segments are
#: drawn cell for cell; the figure is 640 px high, so a finer image shows nothing more).
MAX_IMAGE_CELLS = 1200
WITHIN_COLOUR = CLASS_COLOURS["target"]
BETWEEN_COLOUR = CLASS_COLOURS["non-target"]


def speaker_colours(n: int) -> list[str]:
    """Colours of clusters 0..n-1: the workbench palette, then more."""
    colours = list(PALETTE) + list(_EXTRA)
    return [colours[k % len(colours)] for k in range(n)]


def _strip_trace(strips: list, names: list, hover: np.ndarray, n: int) -> go.Heatmap:
    """Rows of coloured cells (one per name, top first) as a heatmap with a discrete colour scale."""
    palette = sorted({c for row in strips for c in row})
    index = {c: i for i, c in enumerate(palette)}
    z = np.array([[index[c] for c in row] for row in strips], dtype=float)
    scale = ([[i / (len(palette) - 1), c] for i, c in enumerate(palette)] if len(palette) > 1 else
             [[0, palette[0]], [1, palette[0]]])
    return go.Heatmap(z=z[::-1], x=np.arange(n), y=names[::-1], colorscale=scale, zmin=0,
                      zmax=max(len(palette) - 1, 1), showscale=False, customdata=hover[::-1],
                      hovertemplate="segment %{x}: %{y} %{customdata}<extra></extra>")


def _reference_colours(result_labels, reference) -> dict:
    """Reference speaker -> colour: the colour of the cluster it is mapped to (optimal mapping), else grey-ish."""
    mapping = optimal_mapping(result_labels, reference)
    inverse = {speaker: cluster for cluster, speaker in mapping.items()}
    colours = speaker_colours(int(np.max(result_labels)) + 1 + len(set(reference)))
    spare = iter(colours[int(np.max(result_labels)) + 1:])
    return {speaker: colours[inverse[speaker]] if speaker in inverse else next(spare)
            for speaker in sorted(set(map(str, reference)))}


def similarity_heatmap_figure(scores, labels=None, *, reference=None, reorder: bool = True,
                              title: str | None = None, clip: float = 0.01) -> go.Figure:
    """The similarity matrix with rows and columns grouped by cluster, cluster boundaries drawn.

    Parameters
    ----------
    scores : array_like, shape (N, N), or SimilarityView
        The matrix, or the view of it computed already by :func:`~llrcore.diarization.view.similarity_view`
        (then `labels`, `reference`, `reorder` and `clip` are the view's).
    labels : array_like of int, shape (N,), or None
        Clusters (0..K-1); rows and columns are sorted by cluster (stable: time order within a cluster). None:
        the matrix before any clustering (no cluster strip, no boundaries, time order).
    reference : array_like of str, optional
        Reference speaker per segment, drawn as a colour strip above the matrix (each reference speaker in the
        colour of the cluster it is mapped to): a wrong colour inside a block is a wrongly clustered segment.
    reorder : bool
        False draws the matrix in its own (time) order, with the strips of clusters and reference on top.
    clip : float
        The colour scale spans the ``clip`` and ``1 - clip`` quantiles (a few huge self-similarities of
        overlapping windows would otherwise wash out the blocks).

    Notes
    -----
    The matrix fills the figure (:data:`MATRIX_HEIGHT` px high, as wide as its column): its cells are square only
    in a column about 650 px wide. Forcing square cells would shrink the matrix to the narrower side and leave a
    blank band under it (or beside it, out of line with the strips above).
    """
    view = scores if isinstance(scores, SimilarityView) else similarity_view(
        scores, labels, reference=reference, reorder=reorder, clip=clip)
    strips, names, hover = _strips(view)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.012 if strips else 0.0,
                        row_heights=[0.04 * len(strips), 1 - 0.04 * len(strips)])
    n = view.n_segments
    lo, hi = view.colour_range
    means, size = pooled_cells(view.scores, MAX_IMAGE_CELLS)
    centres = np.arange(means.shape[0]) * size + (size - 1) / 2  # in segments: the strips and blocks line up
    # Lossless either way: plotly's own PNG writer at zlib level 1 encodes the demo's 1,025 x 1,025 image in 0.13 s
    # (2.0 MB), Pillow's at plotly's default level 4 in 1.2 s (2.4 MB); every pixel is the same.
    image = px.imshow(_colour_image(means, lo, hi), binary_string=True, binary_backend="pypng",
                      binary_compression_level=1, x=centres, y=centres).data[0]
    image.hovertemplate = ("row %{y}, column %{x}<extra></extra>" if size == 1 else
                           f"around row %{{y:.0f}}, column %{{x:.0f}}: mean of up to {size} x {size} pairs"
                           "<extra></extra>")
    fig.add_trace(image, row=2, col=1)
    if strips:
        fig.add_trace(_strip_trace(strips, names, np.stack(hover), n), row=1, col=1)
    else:
        fig.update_yaxes(visible=False, row=1, col=1)
    fig.add_trace(_colour_bar(lo, hi, len(strips)), row=2, col=1)
    if view.reordered:
        _cluster_blocks(fig, view)
    _matrix_axes(fig, view, title)
    return fig


def _strips(view: SimilarityView) -> tuple[list, list, list]:
    """The strips above the matrix: the cluster of each column and the reference speaker (in the colour of the
    cluster it is mapped to); their colours, names and hover texts."""
    strips, names, hover = [], [], []
    order = view.order
    if view.labels is not None:
        colours = speaker_colours(view.n_clusters)
        strips.append([colours[c] for c in view.labels[order]])
        names.append("cluster")
        hover.append(view.labels[order].astype(str))
    if view.reference is not None:
        labels = view.labels if view.labels is not None else np.zeros(view.n_segments, dtype=np.int64)
        ref_colours = _reference_colours(labels, view.reference)
        strips.append([ref_colours[s] for s in view.reference[order]])
        names.append("reference")
        hover.append(view.reference[order])
    return strips, names, hover


def _colour_bar(lo: float, hi: float, n_strips: int) -> go.Heatmap:
    """A transparent heatmap that carries the colour bar (an image trace has none)."""
    return go.Heatmap(z=[[lo, hi]], x=[0, 0], y=[0, 0], colorscale=_SCALE, zmin=lo, zmax=hi, opacity=0,
                      hoverinfo="skip", showscale=True,
                      colorbar=dict(title=dict(text="score", side="right"), thickness=16, len=0.7,
                                    y=1 - 0.04 * n_strips - 0.02, yanchor="top", x=1.0, xanchor="left"))


def _cluster_blocks(fig: go.Figure, view: SimilarityView) -> None:
    """White lines between the cluster blocks and each cluster's number left of its rows, in its colour."""
    n, edges, colours = view.n_segments, view.boundaries, speaker_colours(view.n_clusters)
    for b in edges[1:-1]:
        for axis in ("x", "y"):
            line = dict(x0=b, x1=b, y0=-0.5, y1=n - 0.5) if axis == "x" else dict(x0=-0.5, x1=n - 0.5, y0=b, y1=b)
            fig.add_shape(type="line", line=dict(color="white", width=2), row=2, col=1, **line)
    for c in range(view.n_clusters):
        middle = 0.5 * (edges[c] + edges[c + 1])
        fig.add_annotation(x=-0.01, xref="x domain", y=middle, yref="y2", text=f"<b>{c}</b>", showarrow=False,
                           xanchor="right", font=dict(color=colours[c], size=15))


def _matrix_axes(fig: go.Figure, view: SimilarityView, title: str | None) -> None:
    k = view.n_clusters
    fig.update_xaxes(showticklabels=False, row=1, col=1, showgrid=False)
    fig.update_yaxes(row=1, col=1, showgrid=False, tickfont=dict(size=13))
    fig.update_xaxes(title_text="segments" + (" (grouped by cluster)" if view.reordered else " (time order)"),
                     row=2, col=1, showgrid=False)
    # no square-cell constraint: in a column narrower than the figure is tall it would shrink the matrix to the
    # width and leave a blank band under it; at this height the cells are square in a column about 650 px wide
    fig.update_yaxes(showticklabels=False, row=2, col=1, showgrid=False, scaleanchor=False)
    # the segments' own extent: a pooled image's last, narrower square of pairs would otherwise widen the axes past
    # the strips and the cluster lines (an image's y axis runs downwards)
    n = view.n_segments
    fig.update_xaxes(range=[-0.5, n - 0.5], row=2, col=1)
    fig.update_yaxes(range=[n - 0.5, -0.5], row=2, col=1)
    style_figure(fig, title or f"Similarity matrix, {k} cluster{'s' if k != 1 else ''}", height=MATRIX_HEIGHT,
                 legend_below=False)
    fig.update_layout(showlegend=False, margin=dict(l=95, r=30, t=70, b=50))


_SCALE = "Viridis"


def pooled_cells(values: np.ndarray, cells: int) -> tuple[np.ndarray, int]:
    """A square matrix pooled to at most `cells` a side: the mean of every ``size x size`` square of cells.

    ``size = ceil(n / cells)``; pixel ``(i, j)`` is the mean of ``values[i s:(i+1) s, j s:(j+1) s]`` (the last row
    and column of squares are narrower when `size` does not divide n). The diagonal counts like any cell: this is
    a picture, not :func:`~llrcore.diarization.cluster.block_mean_matrix` of the clusters.

    Returns
    -------
    (ndarray, int)
        The pooled matrix and `size`; with ``size == 1``, `values` itself.
    """
    n = values.shape[0]
    size = max(-(-n // cells), 1)
    if size == 1:
        return values, 1
    starts = np.arange(0, n, size)
    sums = np.add.reduceat(np.add.reduceat(values, starts, axis=0), starts, axis=1)
    counts = np.diff(np.append(starts, n))
    return sums / np.outer(counts, counts), size


def _colour_image(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """RGB image (uint8) of `values` on the colour scale between lo and hi (a 256-colour look-up table: fast for
    millions of cells, which ``plotly.colors.sample_colorscale`` is not)."""
    from plotly.colors import hex_to_rgb, sample_colorscale, unlabel_rgb

    table = sample_colorscale(_SCALE, np.linspace(0, 1, 256))
    lut = np.array([unlabel_rgb(c) if c.startswith("rgb") else hex_to_rgb(c) for c in table], dtype=np.uint8)
    index = np.clip(np.round((values - lo) / (hi - lo) * 255), 0, 255).astype(np.intp)
    return lut[index]


def _histogram(values, edges):
    counts, _ = np.histogram(values, bins=edges)
    width = np.diff(edges)
    return counts / max(values.size, 1) / width


def score_distribution_figure(scores, result: ClusteringResult, *, bins: int = 80,
                              reference=None) -> go.Figure:
    """Histograms of within- and between-cluster scores with the fitted Gaussians of the block model.

    The pairs are split by the found clusters (or by `reference` speakers when given); each histogram is a density.
    Over them: the pooled within-speaker Gaussian, and the between-speaker scores as the mixture of the block
    Gaussians weighted by their numbers of pairs (its components, one per pair of clusters, thin).
    """
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(result.labels if reference is None else reference)
    rows, columns = np.triu_indices(labels.size, 1)
    pairs = scores[rows, columns]
    same = labels[rows] == labels[columns]
    lo, hi = np.quantile(pairs, [0.0005, 0.9995]) if pairs.size else (0.0, 1.0)
    if hi <= lo:  # all scores equal
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    centres = 0.5 * (edges[:-1] + edges[1:])
    grid = np.linspace(lo, hi, 400)
    by = "reference speakers" if reference is not None else "clusters"
    fig = go.Figure()
    for mask, name, colour in ((same, "within", WITHIN_COLOUR), (~same, "between", BETWEEN_COLOUR)):
        if mask.any():
            fig.add_trace(go.Bar(x=centres, y=_histogram(pairs[mask], edges), width=np.diff(edges),
                                 name=f"{name}-{by[:-1] if by.endswith('s') else by} pairs ({int(mask.sum()):,})",
                                 marker=dict(color=with_alpha(colour, 0.35), line=dict(width=0)),
                                 hovertemplate="%{x:.3g}: %{y:.3g}<extra></extra>"))
    share = same.mean() if same.size else 1.0
    if np.isfinite(result.within.mean):
        name = f"within Gaussian N({result.within.mean:.3g}, {result.within.std:.3g}²)"
        fig.add_trace(go.Scatter(x=grid, y=result.within.pdf(grid), mode="lines",
                                 line=dict(color=WITHIN_COLOUR, width=3), name=name))
    upper = np.triu_indices(result.n_clusters, 1)
    counts = result.between_counts[upper] if result.n_clusters > 1 else np.empty(0)
    if counts.size and counts.sum() > 0:
        weights = counts / counts.sum()
        blocks = [GaussianFit(m, v) for m, v in zip(result.between_means[upper], result.between_variances[upper])]
        for i, (w, g) in enumerate(zip(weights, blocks)):
            fig.add_trace(go.Scatter(x=grid, y=w * g.pdf(grid), mode="lines", showlegend=i == 0,
                                     line=dict(color=BETWEEN_COLOUR, width=1, dash="dot"), legendgroup="blocks",
                                     name="between Gaussians of each pair of clusters (weighted)",
                                     hoverinfo="skip"))
        mixture = sum(w * g.pdf(grid) for w, g in zip(weights, blocks))
        name = f"between: mixture of {len(blocks)} block Gaussian{'s' if len(blocks) > 1 else ''}"
        fig.add_trace(go.Scatter(x=grid, y=mixture, mode="lines", line=dict(color=BETWEEN_COLOUR, width=3),
                                 name=name))
    fig.update_xaxes(title_text="score")
    fig.update_yaxes(title_text="density")
    style_figure(fig, f"Scores within and between {by} ({100 * share:.0f} % within)", height=520)
    fig.update_layout(barmode="overlay", bargap=0)
    return fig


def n_speakers_figure(result: ClusteringResult, *, reference_count: int | None = None,
                      floor: float = 1e-30) -> go.Figure:
    """Posterior probability of the number of speakers (block model) on a log axis, the chosen K highlighted.

    ``p(K) ~ exp(best evidence bound reached with K speakers)``; a bound a few nats lower is already orders of
    magnitude less probable. Probabilities below `floor` are drawn at the floor (labelled ``< floor``).
    """
    posterior = result.n_clusters_posterior
    if posterior is None:
        posterior = pd.Series({result.n_clusters: 1.0})
    ks = np.asarray(posterior.index, dtype=int)
    probability = posterior.to_numpy(dtype=np.float64)
    shown = np.maximum(probability, floor)
    colours = [PALETTE[0] if k == result.n_clusters else with_alpha(PALETTE[0], 0.4) for k in ks]
    text = [f"< {floor:.0e}" if p < floor else (f"{p:.3f}" if p >= 1e-3 else f"{p:.1e}") for p in probability]
    fig = go.Figure(go.Bar(x=ks, y=shown, marker_color=colours, text=text, textposition="outside",
                           name="posterior", cliponaxis=False, hovertemplate="K = %{x}: p = %{text}<extra></extra>"))
    low = float(np.log10(shown.min())) if shown.size else -6.0
    fig.update_yaxes(type="log", range=[min(low, -3.0) - 0.6, 0.45], title_text="p(K | scores), log scale",
                     exponentformat="power")
    tick_labels = [f"<b>{k}</b><br>reference" if k == reference_count else str(k) for k in ks]
    fig.update_xaxes(title_text="number of speakers K", tickvals=ks, ticktext=tick_labels)
    style_figure(fig, "How many speakers?", height=420)
    fig.update_layout(showlegend=False)
    return fig


def _elbo_range(finals: list[float], peak: float) -> tuple[float, float]:
    """The zoomed range of the evidence bound: down to every run's final bound, unless one ended so far below the
    others that showing it would flatten the climbs that matter (then it is pinned at the bottom, with a note), and
    up to the highest bound of any iteration (`peak`): a run falls where a speaker shorter than ``min_speech`` is
    merged into another, so a stage before it can end above every final bound."""
    best = max(finals)
    spread = best - float(np.median(finals))
    reach = max(10.0 * spread, 0.25 * abs(best), 50.0)  # how far below the best a final bound is still drawn
    lowest = min([f for f in finals if best - f <= reach], default=best)
    span = max(1.15 * (best - lowest), 1.5 * spread, 0.02 * abs(best), 10.0)
    return best - span, max(best, peak) + 0.08 * span


def elbo_trace_figure(result: ClusteringResult, *, zoom: bool = True) -> go.Figure:
    """The evidence lower bound at every iteration of every run (one line per initialisation).

    Stages of a run (after a cluster emptied or a merge was kept) follow each other on the iteration axis; the
    chosen run is drawn thick. With `zoom`, the axis shows where the runs end (every run's final bound, unless one
    ended so far below the others that it would flatten them) and the last part of the climbs: the first iterations
    of a bad start can be thousands of nats below. What the zoom leaves out is said: a run whose final bound is
    below the axis gets a triangle (▼) on the bottom edge at its last iteration, and a note gives its value; a note
    says when the first iterations of some runs start below the axis. Each run's trace carries ``meta["run"]`` and
    ``meta["off_scale"]`` (False, or what the note says about it).
    """
    trace, runs = result.trace, result.runs  # (the block model's: both or neither)
    fig = go.Figure()
    if trace is None or trace.empty or runs is None:
        return style_figure(fig, "Evidence lower bound per iteration", height=420)
    chosen = runs["run"][runs["chosen"]].iloc[0]
    parts = [(name, part.reset_index(drop=True)) for name, part in trace.groupby("run", sort=False)]
    finals = [float(part["elbo"].iloc[-1]) for _, part in parts]
    low, high = _elbo_range(finals, float(trace["elbo"].max())) if zoom else (-np.inf, np.inf)
    below, climbs = [], []
    for i, (name, part) in enumerate(parts):
        x = np.arange(len(part))
        y = part["elbo"].to_numpy()
        colour = PALETTE[i % len(PALETTE)]
        is_chosen = name == chosen
        k = int(runs["n_clusters"][runs["run"] == name].iloc[0])
        ends_below = finals[i] < low
        off_scale: bool | str = False
        if ends_below:
            off_scale = f"{name}: ends at {finals[i]:,.1f} nats, {max(finals) - finals[i]:,.1f} below the best"
            below.append(off_scale)
        elif np.any(y < low):
            off_scale = "first iterations below the axis"
            climbs.append(name)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", name=f"{name} → {k} speaker{'s' if k != 1 else ''}"
            + (" (chosen)" if is_chosen else "") + (" ▼ below the axis" if ends_below else ""),
            line=dict(color=colour, width=4 if is_chosen else 2), legendgroup=name,
            customdata=np.stack([part["stage"].to_numpy(), part["n_clusters"].to_numpy()], axis=1),
            hovertemplate="iteration %{x}<br>stage %{customdata[0]}, %{customdata[1]} clusters<br>"
                          "ELBO %{y:.6g}<extra></extra>",
            meta=dict(kind="run", run=name, off_scale=off_scale)))
        if ends_below:  # where the run ended, on the bottom edge: the line itself is out of sight
            fig.add_annotation(x=x[-1], y=low, yanchor="bottom", text="▼", showarrow=False,
                               font=dict(size=18, color=colour), hovertext=off_scale)
    notes = [f"▼ {text}" for text in below]
    if climbs:
        notes.append(f"The first iterations of {len(climbs)} run{'s' if len(climbs) != 1 else ''} start below the "
                     "axis")
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="evidence lower bound (nats)")
    style_figure(fig, "Evidence lower bound per iteration", height=480)
    if zoom:
        fig.update_yaxes(range=[low, high])
    if notes:  # above the plot, where no line can hide them
        text = "<br>".join(wrap_label(note, 100) for note in notes)
        fig.add_annotation(text=text, xref="paper", yref="paper", x=0, y=1, xanchor="left", yanchor="bottom",
                           yshift=6, showarrow=False, align="left", font=dict(size=13, color="#444444"))
        fig.update_layout(margin=dict(t=80 + 18 * (text.count("<br>") + 1)))
    return fig


def timeline_figure(hypothesis: pd.DataFrame, reference: pd.DataFrame | None = None, *,
                    title: str = "Who spoke when") -> go.Figure:
    """Speaker turns on a time axis: reference speakers above, hypothesis clusters below.

    Each hypothesis cluster takes the colour of the reference speaker it is mapped to (optimal mapping by
    overlapping time), so a wrong colour is a speaker error; unmapped clusters get colours of their own.
    """
    hyp_speakers = list(pd.unique(hypothesis["speaker"].astype(str)))
    colours = speaker_colours(len(hyp_speakers) + (0 if reference is None else reference["speaker"].nunique()))
    hyp_colour = {s: colours[i] for i, s in enumerate(hyp_speakers)}
    rows = []
    if reference is not None:
        ref_speakers = sorted(pd.unique(reference["speaker"].astype(str)))
        mapping = _time_mapping(hypothesis, reference)
        inverse = {r: h for h, r in mapping.items()}
        spare = iter(colours[len(hyp_speakers):])
        ref_colour = {s: hyp_colour[inverse[s]] if s in inverse else next(spare) for s in ref_speakers}
        rows += [(f"ref {s}", reference[reference["speaker"].astype(str) == s], ref_colour[s]) for s in ref_speakers]
        label = {h: f"hyp {h}" + (f" → {mapping[h]}" if h in mapping else "") for h in hyp_speakers}
    else:
        label = {h: f"hyp {h}" for h in hyp_speakers}
    rows += [(label[h], hypothesis[hypothesis["speaker"].astype(str) == h], hyp_colour[h]) for h in hyp_speakers]
    fig = go.Figure()
    for name, turns, colour in rows:
        start = turns["start"].to_numpy(float)
        duration = turns["end"].to_numpy(float) - start
        fig.add_trace(go.Bar(y=np.full(start.size, name), x=duration, base=start, orientation="h",
                             marker=dict(color=colour, line=dict(width=0)), name=name, showlegend=False,
                             customdata=np.stack([start, start + duration], axis=1),
                             hovertemplate=name + "<br>%{customdata[0]:.2f}–%{customdata[1]:.2f} s<extra></extra>"))
    order = [name for name, _, _ in rows][::-1]
    fig.update_yaxes(categoryorder="array", categoryarray=order, title_text="")
    fig.update_xaxes(title_text="time (s)")
    style_figure(fig, title, height=max(260, 60 + 34 * len(rows)), legend_below=False)
    fig.update_layout(barmode="overlay", bargap=0.25, showlegend=False, margin=dict(l=150, r=30, t=70, b=60))
    if reference is not None and len(hyp_speakers) and len(rows) > len(hyp_speakers):
        fig.add_hline(y=len(hyp_speakers) - 0.5, line=dict(color="#888888", width=1, dash="dot"))
    return fig


def _time_mapping(hypothesis: pd.DataFrame, reference: pd.DataFrame) -> dict:
    """Hypothesis speaker -> reference speaker maximising the overlapping time (Hungarian)."""
    hyp = hypothesis[["start", "end", "speaker"]].to_numpy(object)
    ref = reference[["start", "end", "speaker"]].to_numpy(object)
    h_start, h_end = hyp[:, 0].astype(float), hyp[:, 1].astype(float)
    r_start, r_end = ref[:, 0].astype(float), ref[:, 1].astype(float)
    overlap = np.clip(np.minimum(h_end[:, None], r_end[None, :]) - np.maximum(h_start[:, None], r_start[None, :]),
                      0.0, None)
    hyp_idx, ref_idx = np.nonzero(overlap)
    if hyp_idx.size == 0:
        return {}
    return optimal_mapping(hyp[hyp_idx, 2].astype(str), ref[ref_idx, 2].astype(str), weights=overlap[hyp_idx, ref_idx])
