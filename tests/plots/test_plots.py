"""Tests of llrcore.plots: the figures show the library's numbers, stay small, and look alike.

The figures are tested as plain functions returning plotly figures: the data of their traces are compared with
the library's metrics (EER, minDCF, actDCF, Cllr, Bayes error rates, trapezium), decimation is checked on its own,
and a 1M-score DET must serialise to well under a megabyte. DET markers at a rate of 0 or 1 are checked against
rates counted by hand on tiny synthetic sets (and with numpy on the FVC-AUS demo scores); the APE axes against the
maxima of the library's Bayes error curves.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from scipy.special import ndtri

import llrcore as lc
from llrcore import plots
from llrcore.plots import (
    ape_figure,
    bayes_error_trapezium_figure,
    decimate_curve,
    decimation_indices,
    det_figure,
    figure_to_frame,
    normalised_bayes_error_figure,
    score_histogram_figure,
    system_colour,
)
from llrcore.data.trials import as_systems
from llrcore.binary.rates import SortedScores
from llrcore.prior import sigmoid
from paths import ASSETS, DATA

ASV_DEV = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"
MARKERS = ("eer", "min_dcf", "act_dcf")


# ----- fixtures ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def asv() -> lc.Trials:
    """The ASVspoof 2019 LA dev ASV scores (1484 target, 5768 non-target, 22296 spoof), read with pandas here."""
    table = pd.read_csv(ASV_DEV, sep=r"\s+", header=None, names=["source", "kind", "score"])
    scores = {kind: group["score"].to_numpy() for kind, group in table.groupby("kind")}
    return lc.Trials(scores["target"], scores["nontarget"], name="ASV dev", spoof=scores["spoof"])


@pytest.fixture(scope="module")
def two_systems() -> dict[str, lc.Trials]:
    rng = np.random.default_rng(7)
    good = lc.Trials(rng.normal(3.0, 2.0, 1500), rng.normal(-3.0, 2.0, 6000), name="good")
    # a badly calibrated one: shifted and too sharp
    bad = lc.Trials(4 * rng.normal(1.0, 1.0, 800) + 3, 4 * rng.normal(-1.0, 1.0, 4000) + 3, name="bad")
    return {"good": good, "bad": bad}


def _traces(fig: go.Figure, kind: str, system: str | None = None) -> list:
    out = []
    for trace in fig.data:
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        if meta.get("kind") == kind and (system is None or meta.get("system") == system):
            out.append(trace)
    return out


def _one(fig: go.Figure, kind: str, system: str | None = None):
    found = _traces(fig, kind, system)
    assert len(found) == 1, f"expected one {kind!r} trace for {system!r}, found {len(found)}"
    return found[0]


def _all_figures(systems, p_target=0.01):
    return {
        "det": det_figure(systems, p_target=p_target, steps=True, rule_of_30=True),
        "ape": ape_figure(systems),
        "nbe": normalised_bayes_error_figure(systems, p_target=p_target),
        "trapezium": bayes_error_trapezium_figure(systems, p_target=p_target),
        "histogram": score_histogram_figure(systems),
    }


# ----- DET -----------------------------------------------------------------------------------------------------


def test_det_eer_marker_sits_at_probit_of_the_eer(asv):
    fig = det_figure(asv)
    marker = _one(fig, "eer", "ASV dev")
    eer = lc.eer(asv)
    assert marker.x[0] == pytest.approx(ndtri(eer), abs=1e-12)
    assert marker.y[0] == pytest.approx(ndtri(eer), abs=1e-12)
    assert marker.customdata[0][2] == pytest.approx(eer, abs=1e-15)
    assert "2.35 %" in _one(fig, "det", "ASV dev").name  # the legend gives the EER


@pytest.mark.parametrize("p_target, c_miss, c_fa", [(0.01, 1.0, 1.0), (0.05, 1.0, 1.0), (0.2, 1.0, 10.0)])
def test_det_dcf_markers_carry_the_library_costs(asv, p_target, c_miss, c_fa):
    fig = det_figure(asv, p_target=lc.OperatingPoint(p_target, c_miss, c_fa))
    plo = float(lc.effective_plo(p_target, c_miss, c_fa))
    table = asv.sorted

    minimum = _one(fig, "min_dcf", "ASV dev")
    pfa, pmiss, cost = minimum.customdata[0]
    assert cost == pytest.approx(lc.min_dcf(asv, p_target=p_target, c_miss=c_miss, c_fa=c_fa), rel=1e-12)
    expected_miss, expected_fa = table.min_rates(plo)
    assert (pmiss, pfa) == (pytest.approx(float(expected_miss)), pytest.approx(float(expected_fa)))
    # the minDCF operating point is a vertex of the ROCCH
    v_pfa, v_pmiss = table.rocch()
    assert np.any(np.isclose(v_pfa, pfa) & np.isclose(v_pmiss, pmiss))
    assert minimum.x[0] == pytest.approx(ndtri(np.clip(pfa, 1e-12, 1)))

    actual = _one(fig, "act_dcf", "ASV dev")
    pfa, pmiss, cost = actual.customdata[0]
    assert cost == pytest.approx(lc.act_dcf(asv, p_target=p_target, c_miss=c_miss, c_fa=c_fa), rel=1e-12)
    assert pmiss == pytest.approx(float(table.miss_rate(-plo)))
    assert pfa == pytest.approx(float(table.false_alarm_rate(-plo)))
    assert actual.marker.symbol != minimum.marker.symbol
    assert f"{cost:.3f}" in actual.name


def test_det_rocch_curve_passes_through_every_hull_vertex_and_is_monotone(asv):
    fig = det_figure(asv)
    curve = _one(fig, "det", "ASV dev")
    data = np.asarray(curve.customdata, dtype=float)
    pfa, pmiss = data[:, 0], data[:, 1]
    v_pfa, v_pmiss = asv.sorted.rocch()
    assert len(v_pfa) < 2000
    for a, b in zip(v_pfa, v_pmiss):
        assert np.any((pfa == a) & (pmiss == b)), (a, b)
    assert np.all(np.diff(pfa) <= 0) and np.all(np.diff(pmiss) >= 0)
    assert np.all(np.diff(curve.x) <= 0) and np.all(np.diff(curve.y) >= 0)
    assert (pfa[0], pmiss[0]) == (1.0, 0.0) and (pfa[-1], pmiss[-1]) == (0.0, 1.0)
    assert np.all(np.isfinite(curve.x)) and np.all(np.isfinite(curve.y))
    # the curve's x and y are the probits of its (clipped) rates
    inside = (pfa > 1e-3) & (pfa < 0.999)
    np.testing.assert_allclose(curve.x[inside], ndtri(pfa[inside]))


def test_det_steps_are_the_library_step_curve(two_systems):
    trials = two_systems["good"]
    fig = det_figure(trials, rocch=False, steps=True)
    assert not _traces(fig, "det")
    steps = _one(fig, "det_steps", "good")
    data = np.asarray(steps.customdata, dtype=float)
    pfa, pmiss = trials.sorted.det_steps()
    assert len(pfa) > 2000  # 7500 scores: decimated
    assert len(data) <= 2000
    # every drawn vertex is a vertex of the library's step curve, in order
    matched = [np.flatnonzero((pfa == a) & (pmiss == b)) for a, b in data]
    assert all(m.size for m in matched)
    assert np.all(np.diff([m[0] for m in matched]) > 0)


def test_det_rule_of_30_lines(asv):
    fig = det_figure(asv, rule_of_30=True)
    lines = _one(fig, "rule_of_30", "ASV dev")
    y = np.asarray(lines.y, dtype=float)
    x = np.asarray(lines.x, dtype=float)
    assert y[0] == pytest.approx(ndtri(30 / 1484)) and y[1] == y[0]
    assert x[3] == pytest.approx(ndtri(30 / 5768)) and x[4] == x[3]
    assert lines.line.dash == "dot"
    assert not _traces(det_figure(asv), "rule_of_30")


def test_det_axes_are_square_probit_and_labelled_in_percent(asv):
    fig = det_figure(asv)
    assert fig.layout.xaxis.title.text == "False-alarm rate (%)"
    assert fig.layout.yaxis.title.text == "Miss rate (%)"
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.constrain == "domain"
    labels = list(fig.layout.xaxis.ticktext)
    for label in ("0.1", "1", "2", "5", "10", "20", "40"):
        assert label in labels
    ticks = np.asarray(fig.layout.xaxis.tickvals, dtype=float)
    np.testing.assert_allclose(ticks, ndtri(np.array([float(t) for t in labels]) / 100))
    # the lowest non-zero false-alarm rate (1/5768) is inside the x range
    assert fig.layout.xaxis.range[0] <= ndtri(1 / 5768) < fig.layout.xaxis.range[1]


def test_det_of_a_million_scores_is_small(two_systems):
    rng = np.random.default_rng(3)
    big = lc.Trials(rng.normal(2.0, 1.0, 100_000), rng.normal(-1.0, 1.0, 900_000), name="big")
    fig = det_figure(big, p_target=0.01, steps=True)
    for trace in _traces(fig, "det") + _traces(fig, "det_steps"):
        assert len(trace.x) <= 2000
    size = len(fig.to_json())
    assert size < 1_000_000, size
    assert len(score_histogram_figure(big).to_json()) < 100_000


# ----- DET markers at rates of 0 or 1 ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fvc() -> lc.Trials:
    return lc.read_trials(ASSETS / "fvcaus_plda" / "fvcaus_plda.npz")


@pytest.fixture(scope="module")
def demo_systems(fvc, asvspoof_eval, asvspoof_dev) -> dict[str, lc.Trials]:
    """The app's three demo sets and a small Gaussian upload, under the app's long names."""
    rng = np.random.default_rng(7)
    return {
        "ASVspoof19 LA ASV (eval)": lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"]),
        "FVC-AUS DCA-PLDA": fvc,
        "ASVspoof19 LA ASV (dev)": lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"]),
        "browser upload": lc.Trials(rng.normal(3, np.sqrt(6), 300), rng.normal(-3, np.sqrt(6), 3000)),
    }


SEPARATED = lc.Trials([1.0, 2.0, 3.0], [-3.0, -2.0, -1.0], name="separated")
ONE_HIGH_NON = lc.Trials([0.5, 2.0, 3.0, 4.0], [-3.0, -2.0, -1.0, 1.0], name="one high non-target")
# (trials, operating point, kind, hand-counted (Pfa, Pmiss) of that marker, the note the figure must give)
EDGE_CASES = [
    # threshold 0: every target accepted, every non-target rejected; the EER and the best point are (0, 0) too
    (SEPARATED, lc.OperatingPoint(0.5), "act_dcf", (0.0, 0.0), "Pfa = 0 and Pmiss = 0"),
    (SEPARATED, lc.OperatingPoint(0.5), "eer", (0.0, 0.0), "Pfa = 0 and Pmiss = 0"),
    (SEPARATED, lc.OperatingPoint(0.5), "min_dcf", (0.0, 0.0), "Pfa = 0 and Pmiss = 0"),
    # threshold logit(0.9999) = +9.21, above every score: every trial rejected
    (SEPARATED, lc.OperatingPoint(1e-4), "act_dcf", (0.0, 1.0), "Pfa = 0 and Pmiss = 1"),
    # threshold -(logit(0.01) + ln 1e4) = -4.62, below every score: every trial accepted
    (SEPARATED, lc.OperatingPoint(0.01, c_miss=1e4), "act_dcf", (1.0, 0.0), "Pfa = 1 and Pmiss = 0"),
    # threshold 0: no target below it, one non-target (1.0) of four above it
    (ONE_HIGH_NON, lc.OperatingPoint(0.5), "act_dcf", (0.25, 0.0), "Pmiss = 0"),
]


def _markers(fig: go.Figure) -> list:
    return [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") in MARKERS]


def _inside(value: float, axis_range) -> bool:
    return axis_range[0] - 1e-12 <= value <= axis_range[1] + 1e-12


def _assert_markers_drawn_inside_and_pinned_ones_marked(fig: go.Figure) -> None:
    x_range, y_range = fig.layout.xaxis.range, fig.layout.yaxis.range
    notes = " ".join(a.text or "" for a in fig.layout.annotations)
    for marker in _markers(fig):
        pfa, pmiss = (float(v) for v in marker.customdata[0][:2])
        assert _inside(marker.x[0], x_range) and _inside(marker.y[0], y_range), marker.name
        off_axes = not (_inside(ndtri(pfa), x_range) and _inside(ndtri(pmiss), y_range))
        assert bool(marker.meta.get("pinned")) == off_axes, marker.name
        assert marker.marker.symbol.endswith("-open") == off_axes, marker.name
        if off_axes:
            assert marker.meta["pinned"] in notes, marker.name
            assert marker.cliponaxis is False  # the whole symbol shows on the axis line


def _assert_legend_keys_are_the_symbols_drawn(fig: go.Figure) -> None:
    keys = {t.marker.symbol for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "legend_key"
            and t.mode == "markers"}
    assert keys == {t.marker.symbol for t in _markers(fig)}


@pytest.mark.parametrize("trials, operating_point, kind, rates, note", EDGE_CASES,
                         ids=[f"{c[0].name}-{c[2]}-{c[4]}" for c in EDGE_CASES])
def test_det_marker_at_a_rate_of_0_or_1_is_pinned_inside_the_axes_with_a_note(trials, operating_point, kind,
                                                                               rates, note):
    fig = det_figure(trials, p_target=operating_point)
    marker = _one(fig, kind, trials.name)
    assert tuple(marker.customdata[0][:2]) == rates  # the true rates stay in the data (CSV downloads read them)
    _assert_markers_drawn_inside_and_pinned_ones_marked(fig)
    assert marker.meta.get("pinned") == f"{note} at this threshold"
    assert any(note in (a.text or "") for a in fig.layout.annotations)
    assert note in marker.hovertemplate
    _assert_legend_keys_are_the_symbols_drawn(fig)


def test_det_axes_reach_an_eer_below_one_over_n():
    """Hand-made ROC: from (Pfa, Pmiss) = (0, 1/4) to (1/4, 0) the hull is a straight segment (the point (1/4, 1/4)
    lies above it), which crosses Pfa = Pmiss at 1/8, below the smallest rate of a count (1/4): the axes reach it."""
    fig = det_figure(ONE_HIGH_NON)
    eer = _one(fig, "eer", ONE_HIGH_NON.name)
    assert eer.customdata[0][2] == pytest.approx(1 / 8)
    assert not eer.meta.get("pinned") and eer.marker.symbol == "circle"
    assert eer.x[0] == pytest.approx(ndtri(1 / 8)) and eer.y[0] == pytest.approx(ndtri(1 / 8))
    _assert_markers_drawn_inside_and_pinned_ones_marked(fig)


def test_fvc_actdcf_star_is_drawn_at_the_bottom_edge(fvc):
    """No FVC-AUS target scores below the Bayes threshold of P_target = 0.01, so Pmiss = 0 there."""
    threshold = -np.log(0.01 / 0.99)
    assert np.mean(fvc.tar < threshold) == 0.0 and np.mean(fvc.non >= threshold) > 0
    fig = det_figure({"FVC": fvc}, p_target=0.01)
    star = _one(fig, "act_dcf", "FVC")
    assert star.marker.symbol == "star-open"
    bottom, top = fig.layout.yaxis.range
    assert bottom < star.y[0] < bottom + 0.1 * (top - bottom)  # just inside the bottom edge, off the tick labels
    assert star.x[0] == pytest.approx(ndtri(np.mean(fvc.non >= threshold)))
    assert any(": actDCF at Pmiss = 0 at this threshold" in a.text for a in fig.layout.annotations)
    _assert_legend_keys_are_the_symbols_drawn(fig)


@pytest.mark.parametrize("operating_point", [lc.OperatingPoint(0.01), lc.OperatingPoint(0.5), lc.OperatingPoint(1e-4),
                                             lc.OperatingPoint(0.01, c_miss=1e3), lc.OperatingPoint(0.2, c_fa=50.0),
                                             None])
def test_every_det_marker_is_inside_the_axes_and_every_legend_symbol_is_drawn(demo_systems, operating_point):
    for systems in (demo_systems, {"FVC-AUS DCA-PLDA": demo_systems["FVC-AUS DCA-PLDA"]}, SEPARATED, ONE_HIGH_NON):
        fig = det_figure(systems, p_target=operating_point)
        _assert_markers_drawn_inside_and_pinned_ones_marked(fig)
        _assert_legend_keys_are_the_symbols_drawn(fig)


# ----- decimation ----------------------------------------------------------------------------------------------


def _staircase(n: int, seed: int = 0):
    """A monotone DET-like staircase in probit space: x falls, y rises, one coordinate at a time."""
    rng = np.random.default_rng(seed)
    is_x = rng.random(n) < 0.8
    x = 1.0 - np.concatenate([[0], np.cumsum(is_x)]) / is_x.sum()
    y = np.concatenate([[0], np.cumsum(~is_x)]) / (~is_x).sum()
    clip = 0.5 / n
    return ndtri(np.clip(x, clip, 1 - clip)), ndtri(np.clip(y, clip, 1 - clip))


@pytest.mark.parametrize("cap", [2, 50, 2000])
def test_decimation_respects_the_cap_keeps_the_ends_and_stays_monotone(cap):
    x, y = _staircase(200_000)
    idx = decimation_indices(x, y, cap)
    assert 2 <= idx.size <= cap
    assert idx[0] == 0 and idx[-1] == x.size - 1
    assert np.all(np.diff(idx) > 0)
    dx, dy = decimate_curve(x, y, cap)
    assert np.all(np.diff(dx) <= 0) and np.all(np.diff(dy) >= 0)
    assert (dx[0], dy[0], dx[-1], dy[-1]) == (x[0], y[0], x[-1], y[-1])


def test_decimation_leaves_short_curves_alone_and_honours_keep():
    x = np.linspace(0, 1, 500)
    np.testing.assert_array_equal(decimation_indices(x, x**2, 2000), np.arange(500))
    x, y = _staircase(50_000, seed=1)
    keep = np.array([17, 4242, 33333])
    idx = decimation_indices(x, y, 300, keep=keep)
    assert set(keep) <= set(idx) and idx.size <= 300


def test_decimation_keeps_the_corners_of_big_steps():
    # a coarse staircase hidden in a fine one: its big jumps must survive exactly
    fine = np.linspace(0, 0.01, 100_000)
    x = np.concatenate([fine, [0.01, 0.5, 0.5, 1.0]])
    y = np.concatenate([np.zeros_like(fine), [0.5, 0.5, 1.0, 1.0]])
    idx = decimation_indices(x, y, 100)
    kept = set(zip(x[idx], y[idx]))
    for corner in [(0.01, 0.0), (0.01, 0.5), (0.5, 0.5), (0.5, 1.0), (1.0, 1.0)]:
        assert corner in kept
    assert idx.size <= 100


@pytest.mark.parametrize("cap", [100, 2000])
def test_decimated_polyline_stays_close_to_the_curve(cap):
    """Between two kept vertices a monotone curve stays in the box they span: that box must be small (a few
    steps of ``length / cap``) unless the two vertices are neighbours (an exact segment)."""
    x, y = _staircase(300_000, seed=2)
    idx = decimation_indices(x, y, cap)
    sx, sy = np.ptp(x), np.ptp(y)
    length = np.hypot(np.diff(x) / sx, np.diff(y) / sy).sum()
    gaps = idx[1:] - idx[:-1] > 1
    box = np.hypot(np.diff(x[idx]) / sx, np.diff(y[idx]) / sy)[gaps]
    assert box.max() <= 3 * length / cap


# ----- APE, normalised Bayes error, trapezium -------------------------------------------------------------------


def test_ape_curves_and_bars_are_the_library_numbers(two_systems):
    plo = np.linspace(-8, 8, 161)
    fig = ape_figure(two_systems, plo=plo)
    min_bars = _one(fig, "min_cllr")
    loss_bars = _one(fig, "calibration_loss")
    assert list(min_bars.x) == ["good", "bad"]
    for i, trials in enumerate(two_systems.values()):
        assert min_bars.y[i] == pytest.approx(lc.min_cllr(trials), rel=1e-12)
        assert min_bars.y[i] + loss_bars.y[i] == pytest.approx(lc.cllr(trials), rel=1e-12)
        rates = lc.bayes_error_rates(trials, plo=plo)
        name = trials.name
        np.testing.assert_allclose(_one(fig, "actual", name).y, rates.actual)
        np.testing.assert_allclose(_one(fig, "minimum", name).y, rates.minimum)
        assert _one(fig, "actual", name).line.dash == "solid"
        assert _one(fig, "minimum", name).line.dash == "dash"
    default = _one(fig, "default")
    np.testing.assert_allclose(default.y, np.minimum(sigmoid(plo), sigmoid(-plo)))
    assert fig.layout.barmode == "stack"
    assert fig.layout.yaxis2.title.text == "Cllr (bits)"
    assert "log-odds" in fig.layout.xaxis.title.text
    # two columns, the curves wider than the bars
    assert fig.layout.xaxis.domain[1] - fig.layout.xaxis.domain[0] > 1.5 * (
        fig.layout.xaxis2.domain[1] - fig.layout.xaxis2.domain[0]
    )


def test_ape_area_is_cllr(asv):
    """The APE identity the figure illustrates: Cllr = 1/(2 ln 2) * area under the actual curve."""
    plo = np.linspace(-60, 60, 24001)
    fig = ape_figure(asv, plo=plo)
    area = np.trapezoid(_one(fig, "actual", "ASV dev").y, plo)
    assert area / (2 * np.log(2)) == pytest.approx(lc.cllr(asv), rel=2e-3)


def _ape_panel_curves(fig: go.Figure) -> list:
    return [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") in ("actual", "minimum")]


def test_ape_zoomed_axis_holds_every_system_curve_and_cuts_the_no_system_peak(demo_systems):
    for systems in (demo_systems, dict(list(demo_systems.items())[:3])):
        fig = ape_figure(systems)  # the default axis is the zoomed one
        top = fig.layout.yaxis.range[1]
        for trials in systems.values():
            rates = lc.bayes_error_rates(trials)
            assert max(rates.actual.max(), rates.minimum.max()) <= top
        assert top < 0.2  # the demo systems err at most about 12 %: well below the 50 % of "no system"
        assert any("peaks at 50 %" in (a.text or "").replace("<br>", " ") for a in fig.layout.annotations)
        assert fig.layout.yaxis.range == ape_figure(systems, y_axis="zoom").layout.yaxis.range


def test_ape_full_axis_shows_the_no_system_peak(two_systems):
    fig = ape_figure(two_systems, y_axis="full")
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis.range[1] >= 0.5
    assert not [a for a in fig.layout.annotations if "peaks at" in (a.text or "")]


def test_ape_log_axis_draws_no_zero_and_keeps_the_true_rates():
    """Separated scores have a Bayes error of exactly 0 at the priors where the threshold falls between the classes:
    those points become gaps on the log axis, and the data keep the zeros."""
    plo = np.linspace(-10, 10, 201)
    rates = lc.bayes_error_rates(SEPARATED, plo=plo)
    assert np.any(rates.actual == 0) and np.any(rates.minimum == 0)
    fig = ape_figure(SEPARATED, plo=plo, y_axis="log")
    assert fig.layout.yaxis.type == "log"
    for trace in _ape_panel_curves(fig) + [_one(fig, "default")]:
        y = np.asarray(trace.y, dtype=float)
        drawn = y[np.isfinite(y)]
        assert np.all(drawn > 0), trace.name
        assert np.all(np.log10(drawn) >= fig.layout.yaxis.range[0]), trace.name
    actual = _one(fig, "actual", "separated")
    errors = np.asarray(actual.customdata, dtype=float)[:, 1]
    np.testing.assert_allclose(errors, 100 * rates.actual)
    assert np.all(np.isnan(np.asarray(actual.y, dtype=float)[rates.actual == 0]))
    assert "errors_per_100" in figure_to_frame(fig).columns
    assert any("Gaps" in (a.text or "") for a in fig.layout.annotations)


def test_ape_refuses_an_unknown_axis(two_systems):
    with pytest.raises(ValueError, match="zoom"):
        ape_figure(two_systems, y_axis="linear")


def test_ape_bar_names_wrap_on_lines_and_stay_level(demo_systems):
    """The app's two default systems: each name in its bar's half of about 24 characters (600 px of figure)."""
    systems = dict(list(demo_systems.items())[:2])
    fig = ape_figure(systems)
    labels = list(fig.layout.xaxis2.ticktext)
    assert fig.layout.xaxis2.tickangle == 0
    for name, label in zip(systems, labels):
        assert label.replace("<br>", " ") == name
        for line in label.split("<br>"):  # short lines, unless one word is longer
            assert len(line) <= 12 or " " not in line, label
    assert labels[0].count("<br>") >= 2  # "ASVspoof19 LA ASV (eval)" on three lines


def test_normalised_bayes_error_figure(two_systems):
    fig = normalised_bayes_error_figure(two_systems, p_target=lc.OperatingPoint(0.05, c_miss=3.0, c_fa=1.0))
    plo_eff = float(lc.effective_plo(0.05, 3.0, 1.0))
    for trials in two_systems.values():
        rates = lc.bayes_error_rates(trials)
        np.testing.assert_allclose(_one(fig, "actual", trials.name).y, rates.normalised_actual)
        np.testing.assert_allclose(_one(fig, "minimum", trials.name).y, rates.normalised_minimum)
        point = _one(fig, "operating_point", trials.name)
        assert list(point.x) == [plo_eff, plo_eff]
        assert point.y[0] == pytest.approx(lc.act_dcf(trials, p_target=0.05, c_miss=3.0, c_fa=1.0))
        assert point.y[1] == pytest.approx(lc.min_dcf(trials, p_target=0.05, c_miss=3.0, c_fa=1.0))
    assert list(_one(fig, "default").y) == [1.0, 1.0]
    assert tuple(fig.layout.yaxis.range) == (0, 1.2)
    vertical = [s for s in fig.layout.shapes if s.x0 == s.x1]
    assert len(vertical) == 1 and vertical[0].x0 == pytest.approx(plo_eff)
    assert not normalised_bayes_error_figure(two_systems).layout.shapes


def test_trapezium_figure_shows_min_p_1mp_eer(asv, two_systems):
    fig = bayes_error_trapezium_figure(asv, p_target=0.01)
    eer = lc.eer(asv)
    trapezium = _one(fig, "trapezium", "ASV dev")
    x = np.asarray(trapezium.x)
    np.testing.assert_allclose(trapezium.y, np.minimum(np.minimum(sigmoid(x), sigmoid(-x)), eer), rtol=1e-12)
    assert np.isclose(x, np.log(eer / (1 - eer))).any()  # the corner is drawn sharp
    assert trapezium.fill == "tozeroy"
    rates = lc.bayes_error_rates(asv)
    np.testing.assert_allclose(_one(fig, "actual", "ASV dev").y, rates.actual)
    minimum = np.asarray(_one(fig, "minimum", "ASV dev").y)
    np.testing.assert_allclose(minimum, rates.minimum)
    assert np.all(minimum <= np.minimum(np.minimum(sigmoid(rates.plo), sigmoid(-rates.plo)), eer) + 1e-12)
    np.testing.assert_allclose(_one(fig, "default").y, rates.default)
    point = _one(fig, "operating_point", "ASV dev")
    at = lc.bayes_error_rates(asv, plo=[np.log(0.01 / 0.99)])
    np.testing.assert_allclose(point.y, [at.actual[0], at.minimum[0]])
    assert fig.layout.yaxis.type == "log"
    assert "0.01" in list(fig.layout.xaxis2.ticktext)  # P_target on the top axis
    linear = bayes_error_trapezium_figure(two_systems, log_scale=False)
    assert linear.layout.yaxis.type != "log"
    assert len(_traces(linear, "trapezium")) == 2


# ----- histograms ------------------------------------------------------------------------------------------------


def test_histograms_are_numpy_densities_with_spoof(asv):
    fig = score_histogram_figure(asv, bins=60)
    kinds = {trace.meta["kind"]: trace for trace in fig.data}
    assert set(kinds) == {"target", "non_target", "spoof"}
    for kind, scores in (("target", asv.tar), ("non_target", asv.non), ("spoof", asv.spoof)):
        trace = kinds[kind]
        edges = np.asarray(trace.x, dtype=float)
        density = np.asarray(trace.y, dtype=float)[:-1]
        assert edges.size == 61
        counts, _ = np.histogram(scores, bins=edges)
        np.testing.assert_allclose(density, counts / (scores.size * np.diff(edges)))
        assert np.sum(density * np.diff(edges)) == pytest.approx(counts.sum() / scores.size)
        assert trace.type == "scatter" and trace.line.shape == "hv"
    assert counts.sum() >= 0.998 * asv.spoof.size
    without = score_histogram_figure(asv, include_spoof=False)
    assert {trace.meta["kind"] for trace in without.data} == {"target", "non_target"}


def test_histograms_of_several_systems_get_one_panel_each(two_systems):
    fig = score_histogram_figure(two_systems)
    assert {trace.yaxis for trace in fig.data} == {"y", "y2"}
    titles = [a.text for a in fig.layout.annotations]
    assert "<b>good</b>" in titles and "<b>bad</b>" in titles
    frame = figure_to_frame(fig)
    assert {"good: target", "bad: non-target"} <= set(frame["trace"])


def test_histogram_range_ignores_far_outliers():
    rng = np.random.default_rng(0)
    tar = np.sort(np.append(rng.normal(2, 1, 10_000), 1e6))
    non = np.sort(rng.normal(-2, 1, 10_000))
    lo, hi = plots.scores.histogram_range([tar, non])
    assert -10 < lo < -4 and 4 < hi < 10


# ----- common look, colours, frames --------------------------------------------------------------------------------


def test_every_figure_has_title_axis_titles_legend_and_template(asv, two_systems):
    for systems in (asv, two_systems):
        for name, fig in _all_figures(systems).items():
            assert isinstance(fig, go.Figure)
            assert fig.layout.title.text, name
            assert fig.layout.template == pio.templates["plotly_white"], name
            assert fig.layout.showlegend is not False, name
            assert fig.layout.font.size >= 14, name
            layout = fig.layout.to_plotly_json()
            x_titles = [v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("xaxis")]
            y_titles = [v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("yaxis")]
            assert fig.layout.xaxis.title.text or name == "histogram", name  # stacked panels: title at the bottom
            assert any(x_titles) and all(y_titles), name
            assert all(trace.name for trace in fig.data if trace.showlegend is not False), name


def test_each_system_keeps_its_colour_in_every_figure(two_systems):
    for name, fig in _all_figures(two_systems).items():
        if name == "histogram":  # classes are coloured there; the panel titles carry the system colour
            colours = [a.font.color for a in fig.layout.annotations[:2]]
            assert colours == [system_colour(0), system_colour(1)]
            continue
        groups = {}
        for trace in fig.data:
            system = (trace.meta or {}).get("system")
            if system is None:
                continue
            colour = trace.line.color if trace.mode and "lines" in trace.mode else trace.marker.color
            groups.setdefault(system, set()).add(colour if isinstance(colour, str) else None)
            assert trace.legendgroup == system, (name, trace.name)
        for position, system in enumerate(two_systems):
            colours = {c for c in groups[system] if c is not None and not c.startswith("rgba")}
            assert colours == {system_colour(position)}, (name, system, groups[system])
    # the bars of the APE figure follow the same colours
    bars = _one(ape_figure(two_systems), "min_cllr")
    assert list(bars.marker.color) == [system_colour(0), system_colour(1)]


def test_figure_to_frame_round_trips(asv, two_systems):
    for name, fig in _all_figures(two_systems).items():
        frame = figure_to_frame(fig)
        assert list(frame.columns[:3]) == ["trace", "x", "y"]
        total = 0
        for trace in fig.data:  # the frame holds the traces one after the other, in order
            meta = trace.meta or {}
            if meta.get("kind") in ("axis", "legend_key"):
                continue
            rows = frame.iloc[total : total + len(trace.x)]
            expected = meta.get("label") or trace.name
            assert set(rows["trace"]) in ({expected}, {f"{meta.get('system')}: {expected}"}), name
            x = np.asarray(trace.x)
            if x.dtype.kind == "f":
                np.testing.assert_array_equal(rows["x"].to_numpy(dtype=float), x)
            else:
                assert list(rows["x"]) == list(x)
            np.testing.assert_array_equal(rows["y"].to_numpy(dtype=float), np.asarray(trace.y, dtype=float))
            total += len(trace.x)
        assert len(frame) == total, name
    det = figure_to_frame(det_figure(asv))
    curve = det[det["trace"] == "ASV dev DET (ROCCH)"]
    inside = curve[curve["false_alarm_rate"].between(1e-3, 0.999)]
    assert len(inside) > 100
    np.testing.assert_allclose(inside["x"], ndtri(inside["false_alarm_rate"]))  # rates as fractions next to probits
    assert figure_to_frame(go.Figure()).columns.tolist() == ["trace", "x", "y"]
    # a CSV of the frame reads back the same
    text = det.to_csv(index=False)
    back = pd.read_csv(io.StringIO(text))
    np.testing.assert_allclose(back["x"], det["x"])


def test_systems_argument_forms():
    rng = np.random.default_rng(1)
    a = lc.Trials(rng.normal(1, 1, 50), rng.normal(0, 1, 50))
    b = lc.Trials(rng.normal(1, 1, 50), rng.normal(0, 1, 50), name="b")
    assert list(as_systems(a)) == ["system"]
    assert list(as_systems([b, b])) == ["b", "b (2)"]
    assert list(as_systems({"x": (a.tar, a.non)})) == ["x"]
    with pytest.raises(ValueError, match="no system"):
        det_figure({})
    with pytest.raises(TypeError, match="not a Trials"):
        ape_figure({"x": np.zeros(3)})


def test_figures_use_the_cached_sort(two_systems, monkeypatch):
    for trials in two_systems.values():
        trials.sorted  # built once here

    def refuse(self, *args, **kwargs):
        raise AssertionError("a figure sorted the scores again")

    monkeypatch.setattr(SortedScores, "__init__", refuse)
    _all_figures(two_systems, p_target=0.1)


@pytest.mark.parametrize(
    "trials",
    [
        lc.Trials([np.inf, 2.0, 3.0, -np.inf], [-np.inf, -1.0, 0.5, np.inf], name="infinite LLRs"),
        lc.Trials([5.0, 6.0, 7.0], [-1.0, -2.0], name="perfect"),
        lc.Trials([1.0], [0.0], name="one each"),
        lc.Trials(np.zeros(10), np.zeros(20), name="all tied"),
    ],
    ids=lambda t: t.name,
)
def test_edge_cases_make_finite_figures_without_warnings(trials, recwarn):
    for fig in _all_figures(trials, p_target=0.3).values():
        fig.to_json()
        figure_to_frame(fig)
    for trace in _traces(det_figure(trials, steps=True), "det") + _traces(det_figure(trials, steps=True), "det_steps"):
        assert np.all(np.isfinite(trace.x)) and np.all(np.isfinite(trace.y))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    if not np.isfinite(lc.cllr(trials)):
        bars = _one(ape_figure(trials), "calibration_loss")
        assert list(bars.text) == ["∞"] and np.isfinite(bars.y[0])


def test_ape_bars_of_many_or_long_named_systems_lie_across_under_the_curves(two_systems):
    """Six systems, or file names with no space to wrap at, put the Cllr bars under the curves, one a row, the name
    on the left and the Cllr (the library's) at the bar's end; four short names still stand beside the curves."""
    rng = np.random.default_rng(3)
    six = {f"system {i}": lc.Trials(rng.normal(2, 1, 200), rng.normal(-2, 1, 800)) for i in range(6)}
    named = {"ASVspoof2019.LA.asv.eval.gi.trl.scores": two_systems["good"], "bad": two_systems["bad"]}
    for systems in (six, named):
        fig = ape_figure(systems)
        min_bars, loss_bars = _one(fig, "min_cllr"), _one(fig, "calibration_loss")
        assert min_bars.orientation == loss_bars.orientation == "h"
        assert list(min_bars.y) == list(systems) and list(fig.layout.yaxis2.tickvals) == list(systems)
        assert fig.layout.yaxis2.autorange == "reversed"  # the first system on top, as in the legend
        assert fig.layout.xaxis2.title.text == "Cllr (bits)"
        for i, trials in enumerate(systems.values()):
            assert min_bars.x[i] + loss_bars.x[i] == pytest.approx(lc.cllr(trials), rel=1e-12)
            assert loss_bars.text[i] == f"{lc.cllr(trials):.3f}"
        assert fig.layout.yaxis2.domain[1] < fig.layout.yaxis.domain[0]  # under the curves
        assert fig.layout.height > 560
    four = {f"s{i}": six[f"system {i}"] for i in range(4)}
    assert _one(ape_figure(four), "min_cllr").orientation == "v"


def test_the_trapezium_legend_counts_errors_in_words():
    """At P_target 0.5 (threshold 0) one of 50 targets below 0 and every non-target below: Pe = 0.5 * 1/50 = 1 %,
    one error per 100 trials, written '1 error', never '1 errors'."""
    trials = lc.Trials(np.r_[-1.0, np.full(49, 2.0)], np.full(50, -2.0), name="one")
    fig = bayes_error_trapezium_figure(trials, p_target=0.5)
    (entry,) = [t.name for t in fig.data if t.showlegend is not False and (t.meta or {}).get("system") == "one"]
    assert "1 error per 100 trials at P = 0.5" in entry and "errors" not in entry
