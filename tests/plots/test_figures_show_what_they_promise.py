"""Figures and tables that must show what they promise (issue 28, "Figures and tables"): DET markers off the probit
axes, a legend symbol hidden under another, ECE curves lying on the axis line, a table whose parts do not add up,
a dashed line through a label, a page card describing a model that has changed.

The figures are tested as plain functions returning plotly figures, laid out on a plot of the smallest size the app
gives them at 1600 px (measured on the screenshots): positions in data or paper coordinates become pixels, text boxes
are estimated from their characters and font size. Independent references: rates counted by hand on synthetic scores
built for the purpose (every non-target below the Bayes threshold: Pfa = 0; every score below it: Pfa = 0 and
Pmiss = 1; fully separated classes: Cllr_min = 0 exactly, Brümmer & du Preez 2006); the decision counts by hand
(4 of 1,000 non-targets above the threshold at P(target) = 0.01: 99 x 4 / 1000 = 0.396 per 100 trials); the words of
the diarization model are those of its own module docstring.
"""
from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pytest

import llrcore as lc
from llrcore.plots import det_figure
from llrcore.plots.decisions import decision_figure
from llrcore.plots.forensic import ece_figure
from llrcore.plots.gaussian import cllr_eer_figure

DET_PLOT_PX = 330  # side of the DET's square plot in the Evaluate page at 1600 px with four systems (>= 340 seen)
HALF_PLOT = (450, 300)  # plot area of a figure in half a page (Gaussian explorer, Bayes decisions) at 1600 px
CHAR_PX = 0.6  # width of a character per pixel of font size (Arial: 0.5-0.6 on average)
THRESHOLD = np.log(99.0)  # Bayes threshold of P(target) = 0.01: -logit(0.01)


# ----- a figure laid out in pixels ---------------------------------------------------------------------------------


def _plain(text: str) -> list[str]:
    return [re.sub(r"<[^>]*>", "", line) for line in (text or "").split("<br>")]


class Layout:
    """Pixels of a figure's plot area: x to the right from its left edge, y down from its top edge."""

    def __init__(self, fig, width: float, height: float, square: bool = False):
        self.fig = fig
        self.x_range, self.y_range = list(fig.layout.xaxis.range), list(fig.layout.yaxis.range)
        spans = (self.x_range[1] - self.x_range[0], self.y_range[1] - self.y_range[0])
        if square:  # scaleanchor: one pixel per unit on both axes, the longer axis fills the side
            unit = width / max(spans)
            width, height = unit * spans[0], unit * spans[1]
        self.width, self.height = width, height

    def x(self, value, ref="x") -> float:
        if ref == "paper":
            return value * self.width
        return (value - self.x_range[0]) / (self.x_range[1] - self.x_range[0]) * self.width

    def y(self, value, ref="y") -> float:
        if ref == "paper":
            return (1 - value) * self.height
        return (self.y_range[1] - value) / (self.y_range[1] - self.y_range[0]) * self.height

    def box(self, a) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of an annotation's text in pixels."""
        lines = _plain(a.text)
        size = (a.font.size or 16) if a.font else 16
        w, h = CHAR_PX * size * max(len(line) for line in lines), 1.3 * size * len(lines)
        x = self.x(a.x, "paper" if a.xref == "paper" else "x") + (a.xshift or 0)
        y = self.y(a.y, "paper" if a.yref == "paper" else "y") - (a.yshift or 0)
        if a.showarrow is not False:  # the text sits at the arrow's tail (plotly's default tail: -10, -30 px)
            x, y = x + (a.ax if a.ax is not None else -10), y + (a.ay if a.ay is not None else -30)
        left = {"left": x, "right": x - w}.get(a.xanchor, x - w / 2)
        top = {"top": y, "bottom": y - h}.get(a.yanchor, y - h / 2)
        return left, top, left + w, top + h

    def tick_label_boxes(self) -> list[tuple[float, float, float, float]]:
        """Where the tick labels are: a band left of the plot (y axis) and one under it (x axis)."""
        return [(-60.0, -8.0, -3.0, self.height + 8.0), (-20.0, self.height + 3.0, self.width + 20.0,
                                                         self.height + 24.0)]


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _markers(fig, kinds=("eer", "min_dcf", "act_dcf")):
    return [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") in kinds]


def _pinned(fig):
    return [t for t in _markers(fig) if t.meta.get("pinned")]


def _radius(trace) -> float:
    """Half the drawn size of a marker in pixels, its outline included."""
    line = trace.marker.line.width if trace.marker.line and trace.marker.line.width else 0
    return trace.marker.size / 2 + line


# ----- synthetic systems ---------------------------------------------------------------------------------------------


def _pfa_zero(seed: int, target_mean: float) -> lc.Trials:
    """Overlapping classes whose non-targets all lie below the Bayes threshold of P(target) = 0.01: the actual
    decisions make no false alarm (Pfa = 0) and miss most targets (Pmiss between 50 and 90 %)."""
    rng = np.random.default_rng(seed)
    non = rng.normal(-2.0, 1.5, 5000)
    non = non[non < THRESHOLD - 0.5]
    return lc.Trials(rng.normal(target_mean, 2.0, 400), non, name=f"system {seed}: no false alarm at 1 %")


@pytest.fixture(scope="module")
def three_without_false_alarms() -> dict[str, lc.Trials]:
    systems = [_pfa_zero(1, 4.0), _pfa_zero(2, 3.6), _pfa_zero(3, 3.2)]
    for trials in systems:
        assert np.mean(trials.non >= THRESHOLD) == 0 and 0.5 < np.mean(trials.tar < THRESHOLD) < 0.9
    return {t.name: t for t in systems}


@pytest.fixture(scope="module")
def two_rejecting_everything() -> dict[str, lc.Trials]:
    """Every score below the threshold: Pfa = 0 and Pmiss = 1, both stars in the same corner of the axes."""
    rng = np.random.default_rng(5)
    systems = [lc.Trials(rng.normal(1.0, 1.0, 300), rng.normal(-1.0, 1.0, 3000), name=f"rejects all {i}")
               for i in (1, 2)]
    for trials in systems:
        assert trials.tar.max() < THRESHOLD and trials.non.max() < THRESHOLD
    return {t.name: t for t in systems}


# ----- DET: markers off the probit axes ----------------------------------------------------------------------------


def test_det_notes_of_markers_off_the_axes_overlap_nothing(three_without_false_alarms, two_rejecting_everything):
    for systems in (three_without_false_alarms, {**three_without_false_alarms, **two_rejecting_everything}):
        fig = det_figure(systems, p_target=0.01)
        assert len(_pinned(fig)) >= 3
        layout = Layout(fig, DET_PLOT_PX, DET_PLOT_PX, square=True)
        boxes = [layout.box(a) for a in fig.layout.annotations if not a.textangle]  # not the diagonal's label
        for i, box in enumerate(boxes):
            for other in boxes[i + 1:]:
                assert not _overlap(box, other), (box, other)
            for ticks in layout.tick_label_boxes():
                assert not _overlap(box, ticks), (box, ticks)
        notes = " ".join(" ".join(_plain(a.text)) for a in fig.layout.annotations)
        for marker in _pinned(fig):  # every marker off the axes is explained, with its system
            assert marker.meta["pinned"] in notes and marker.meta["system"] in notes


def test_det_markers_off_the_axes_are_drawn_inside_the_plot_not_on_the_tick_labels(three_without_false_alarms,
                                                                                    two_rejecting_everything):
    fig = det_figure({**three_without_false_alarms, **two_rejecting_everything}, p_target=0.01)
    layout = Layout(fig, DET_PLOT_PX, DET_PLOT_PX, square=True)
    for marker in _pinned(fig):
        assert tuple(marker.customdata[0][:1]) == (0.0,)  # Pfa = 0, counted above: drawn at the left edge
        x, y = layout.x(marker.x[0]), layout.y(marker.y[0])
        r = _radius(marker)
        assert r <= x <= layout.width - r and r <= y <= layout.height - r, (marker.name, x, y)


def test_det_markers_off_the_axes_do_not_cover_one_another(three_without_false_alarms, two_rejecting_everything):
    fig = det_figure({**three_without_false_alarms, **two_rejecting_everything}, p_target=0.01)
    layout = Layout(fig, DET_PLOT_PX, DET_PLOT_PX, square=True)
    markers = _markers(fig)
    for i, a in enumerate(markers):
        for b in markers[i + 1:]:
            if not (a.meta.get("pinned") or b.meta.get("pinned")):
                continue  # two markers at their true rates may meet: that is where they are
            distance = np.hypot(layout.x(a.x[0]) - layout.x(b.x[0]), layout.y(a.y[0]) - layout.y(b.y[0]))
            assert distance >= 0.75 * (_radius(a) + _radius(b)), (a.name, b.name, distance)


# ----- legends promising what cannot be seen -------------------------------------------------------------------------


def _hidden(fig, layout) -> list[str]:
    """Legend entries whose marker is covered by a filled marker at least as large, drawn later at the same place."""
    traces = [t for t in fig.data if t.mode == "markers" and t.x is not None and t.x[0] is not None]
    hidden = []
    for i, shown in enumerate(traces):
        if shown.showlegend is False:
            continue
        for later in traces[i + 1:]:
            if str(later.marker.symbol).endswith("-open") or later.marker.size < shown.marker.size:
                continue
            for x, y in zip(shown.x, shown.y):
                for u, v in zip(later.x, later.y):
                    if np.hypot(layout.x(x) - layout.x(u), layout.y(y) - layout.y(v)) < later.marker.size / 2:
                        hidden.append(shown.name)
    return hidden


@pytest.fixture(scope="module")
def gaussian_system():
    """Calibrated Gaussian scores (mu = 4, variance 2 mu): after CMLG their Cllr is within a few thousandths of a
    bit of their minCllr, one point on the Cllr-EER plot."""
    rng = np.random.default_rng(3)
    return lc.Trials(rng.normal(4.0, np.sqrt(8.0), 2000), rng.normal(-4.0, np.sqrt(8.0), 2000), name="Gaussian")


@pytest.mark.parametrize("log_axes", [False, True])
def test_cllr_eer_star_and_diamond_both_show_when_they_coincide(gaussian_system, log_axes):
    comparison = lc.gaussian_comparison(gaussian_system)
    assert abs(comparison.cllr - comparison.min_cllr) < 0.01  # the case of the issue: one point on the plot
    fig = cllr_eer_figure(comparison.eer, comparison=comparison, log_axes=log_axes)
    if log_axes:  # the layout works in the axis's own (log10) units
        for trace in fig.data:
            if trace.mode == "markers":
                trace.x, trace.y = np.log10(np.asarray(trace.x, float)), np.log10(np.asarray(trace.y, float))
    layout = Layout(fig, *HALF_PLOT)
    kinds = {t.meta["kind"] for t in fig.data if isinstance(t.meta, dict) and t.showlegend is not False}
    assert {"star", "diamond"} <= kinds
    assert _hidden(fig, layout) == []
    (star,) = [t for t in fig.data if isinstance(t.meta, dict) and t.meta["kind"] == "star"]
    assert "inside the diamond" in " ".join(_plain(star.name))


@pytest.fixture(scope="module")
def separated_and_overconfident():
    """Fully separated classes: PAV gives LLRs of +-inf, every ECE after PAV is 0 (Cllr_min = 0); the scores
    themselves, ten times too large, cost something at every prior."""
    rng = np.random.default_rng(11)
    return lc.Trials(10 * rng.normal(4.0, 1.0, 500), 10 * rng.normal(-4.0, 1.0, 2000), name="separated")


def test_ece_after_pav_curves_are_drawn_above_the_axis_line(separated_and_overconfident):
    fig = ece_figure({"separated": separated_and_overconfident})
    pav = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "PAV"]
    assert pav and np.max(pav[0].y) == pytest.approx(0.0, abs=1e-12)  # Cllr_min = 0: the curve is 0 everywhere
    bottom, top = fig.layout.yaxis.range
    for trace in pav:  # drawn a few pixels above the axis line, not on it
        assert np.min(trace.y) - bottom >= 0.02 * (top - bottom)
    kinds = [t.meta.get("kind") for t in fig.data if isinstance(t.meta, dict)]
    assert max(i for i, k in enumerate(kinds) if k == "system") < min(i for i, k in enumerate(kinds) if k == "PAV")
    (key,) = [t for t in fig.data if t.name and t.name.startswith("dashed: after PAV")]
    assert "along 0" in key.name  # the legend says where to look


def _dashes(pattern: str) -> list[tuple[float, float]]:
    """The drawn intervals of one period of an SVG dash pattern ("0px,9px,9px,9px": dash, gap, dash, gap...)."""
    lengths = [float(v.strip().removesuffix("px")) for v in pattern.split(",")]
    starts = np.concatenate([[0.0], np.cumsum(lengths)[:-1]])
    return [(a, a + b) for i, (a, b) in enumerate(zip(starts, lengths)) if i % 2 == 0 and b > 0]


def test_ece_curves_after_pav_lying_on_one_another_all_show(separated_and_overconfident):
    rng = np.random.default_rng(12)
    other = lc.Trials(rng.normal(30.0, 5.0, 300), rng.normal(-30.0, 5.0, 900), name="also separated")
    fig = ece_figure({"separated": separated_and_overconfident, "also separated": other})
    pav = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "PAV"]
    assert len(pav) == 2 and all(np.max(t.y) == pytest.approx(0.0, abs=1e-12) for t in pav)  # on one another
    first, second = (_dashes(t.line.dash) for t in pav)
    assert first and second  # each draws dashes of its colour ...
    assert all(b <= c or d <= a for a, b in first for c, d in second)  # ... where the other leaves a gap


# ----- Bayes decisions ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def four_false_alarms() -> lc.Trials:
    """1,000 non-targets of which 4 lie above the threshold of P(target) = 0.01, 50 targets all above it."""
    non = np.concatenate([np.linspace(-8.0, 0.0, 996), THRESHOLD + np.array([0.5, 1.0, 1.5, 2.0])])
    return lc.Trials(THRESHOLD + np.linspace(1.0, 6.0, 50), non, name="four false alarms")


def test_decision_table_parts_add_up_to_the_shown_totals(four_false_alarms):
    table = lc.bayes_decisions(four_false_alarms, p_target=0.01).shown_table()
    # by hand: 99 non-targets per 100 trials, 4 / 1000 of them accepted = 0.396, rejected 98.604; 1 target, accepted
    assert table.loc["non-target"].tolist() == ["0.40", "98.60", "99.00"]
    assert table.loc["target"].tolist() == ["1.00", "0", "1.00"]
    for _, row in table.iterrows():
        assert Decimal(row["accepted"]) + Decimal(row["rejected"]) == Decimal(row["total"])


@pytest.mark.parametrize("p_target", [0.01, 0.013, 0.2, 0.5, 0.77])
def test_decision_table_adds_up_at_any_prior(four_false_alarms, p_target):
    summary = lc.bayes_decisions(four_false_alarms, p_target=p_target)
    exact = summary.table()
    shown = summary.shown_table()
    decimals = {len(v.split(".")[1]) if "." in v else None for v in shown.to_numpy().ravel()} - {None}
    assert len(decimals) <= 1  # one number of decimals in the whole table
    step = Decimal(1).scaleb(-decimals.pop()) if decimals else Decimal(1)
    for label, row in shown.iterrows():
        assert Decimal(row["accepted"]) + Decimal(row["rejected"]) == Decimal(row["total"])
        assert abs(float(Decimal(row["total"])) - 100 * (p_target if label == "target" else 1 - p_target)) <= \
            float(step) / 2 + 1e-9
        for column in ("accepted", "rejected"):  # largest remainder: each part within one step of its value
            assert abs(float(Decimal(row[column])) - exact.loc[label, column]) < float(step)


def test_best_threshold_line_stops_below_the_accept_and_reject_labels(four_false_alarms):
    fig = decision_figure(four_false_alarms, p_target=0.01)
    layout = Layout(fig, *HALF_PLOT)
    dashed = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert dashed  # the best threshold in hindsight
    labels = [layout.box(a) for a in fig.layout.annotations if "accept" in a.text or "reject" in a.text]
    assert len(labels) == 2
    for line in dashed:
        top = layout.y(line.y1, "paper")  # a vline's y is a fraction of the plot's height
        x = layout.x(line.x0)
        for left, label_top, right, bottom in labels:
            assert not (left <= x <= right and top < bottom), (x, top, (left, label_top, right, bottom))


# ----- the Home page's words ------------------------------------------------------------------------------------------


def test_home_card_of_diarization_describes_the_current_model():
    from app_pages._pages import PAGES
    from llrcore.diarization import model

    (card,) = [spec.blurb for spec in PAGES if spec.title == "Diarization"]
    words = " ".join(model.__doc__.split())  # the docstring's lines joined
    assert "CRP" not in card
    for term in ("sticky Markov chain", "time order", "VBx"):
        assert term in card and term in words, term
