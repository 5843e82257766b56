"""Tests of the teaching figures (llrcore.plots.decisions, llrcore.plots.gaussian) as plain functions.

The data of the traces are checked against references written out here (error areas of the histograms counted
from the scores, scipy's normal density, ``x + y = -sqrt(2 mu)`` on probit axes, the exact Cllr by quadrature in
the tests of llrcore.teaching.gaussian) and against the library's numbers the page shows. The legend of the bar chart is
checked against the colours of the bars actually drawn, the guide labels of the Gaussian DET against percentages
written out by hand.
"""
from __future__ import annotations

import re

import numpy as np
import plotly.io as pio
import pytest
from scipy import stats

import llrcore as lc
from llrcore.plots.decisions import decision_figure, errors_per_100_figure, fixed_threshold_figure
from llrcore.plots.gaussian import cllr_eer_figure, gaussian_det_figure, gaussian_llr_figure
from llrcore.teaching.decisions import decision_histograms, per_100
from llrcore.teaching.gaussian import cllr_eer_curve, gaussian_densities


def traces(fig, kind):
    return [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == kind]


@pytest.fixture(scope="module")
def asv(asvspoof_eval) -> lc.Trials:
    return lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"], name="ASV eval")


@pytest.fixture(scope="module")
def asv_dev(asvspoof_dev) -> lc.Trials:
    return lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"], name="ASV dev")


# ----- decisions -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p, c_miss, c_fa", [(0.01, 1, 1), (0.3, 1, 1), (0.01, 10, 1)])
def test_hatched_areas_are_the_error_rates(asv, p, c_miss, c_fa):
    fig = decision_figure(asv, p_target=lc.OperatingPoint(p, c_miss, c_fa))
    t = -(np.log(p / (1 - p)) + np.log(c_miss / c_fa))
    for kind, rate in (("misses", np.mean(asv.tar < t)), ("false_alarms", np.mean(asv.non >= t))):
        (trace,) = traces(fig, kind)
        edges, density = np.asarray(trace.x), np.asarray(trace.y)[:-1]
        area = float(np.sum(density * np.diff(edges)))
        assert area == pytest.approx(rate, rel=1e-9)
        # the error region ends (misses) or starts (false alarms) exactly at the threshold
        assert (edges[-1] if kind == "misses" else edges[0]) == pytest.approx(t, abs=1e-9)
    shapes = [s for s in fig.layout.shapes if s.type == "line"]
    assert any(s.x0 == pytest.approx(t) for s in shapes)
    names = " ".join(trace.name or "" for trace in fig.data)
    assert f"Bayes threshold: LLR = {t:+.2f}" in names
    assert "misses:" in names and "false alarms:" in names
    assert len(pio.to_json(fig)) < 200_000


def test_decision_figure_marks_the_best_threshold_and_handles_a_far_threshold(asv):
    summary = lc.bayes_decisions(asv, p_target=0.01)
    fig = decision_figure(asv, p_target=0.01, log_density=True)
    assert fig.layout.yaxis.type == "log"
    assert any(s.x0 == pytest.approx(summary.min_threshold) for s in fig.layout.shapes if s.type == "line")
    far = lc.Trials(asv.tar / 100, asv.non / 100, name="squeezed")  # LLRs within +-1: the threshold 4.6 is far
    fig = decision_figure(far, p_target=0.0001)
    assert any("off the chart" in (a.text or "") for a in fig.layout.annotations)


def test_errors_per_100_figure_shows_the_library_numbers(asv):
    for p, c_miss in ((0.01, 1.0), (0.05, 10.0)):
        summary = lc.bayes_decisions(asv, p_target=p, c_miss=c_miss)
        rates = lc.bayes_error_rates(asv, plo=[np.log(p / (1 - p))], c_miss=c_miss)
        fig = errors_per_100_figure(summary)
        labels = [re.sub("<.*?>", "", a.text) for a in fig.layout.annotations]
        assert labels == [per_100(100 * v[0]) for v in (rates.actual, rates.minimum, rates.trapezium, rates.default)]
        stacked = np.asarray(traces(fig, "misses" if c_miss == 1 else "cost_of_misses")[0].y) + np.asarray(
            traces(fig, "false_alarms" if c_miss == 1 else "cost_of_false_alarms")[0].y)
        np.testing.assert_allclose(stacked[:2], 100 * np.array([rates.actual[0], rates.minimum[0]]), rtol=1e-12)
        unit = "errors" if c_miss == 1 else "cost"
        assert fig.layout.yaxis.title.text == f"{unit} per 100 trials"


def _bar_look(bar) -> tuple:
    pattern = bar.marker.pattern.shape if bar.marker.pattern else None
    return bar.marker.color, pattern or ""


@pytest.mark.parametrize("p, c_miss", [(0.01, 1.0), (0.05, 10.0), (0.5, 1.0)])
def test_every_bar_colour_of_the_errors_per_100_figure_is_in_the_legend(asv, p, c_miss):
    fig = errors_per_100_figure(lc.bayes_decisions(asv, p_target=p, c_miss=c_miss))
    bars = [t for t in fig.data if t.type == "bar"]
    drawn = {_bar_look(b) for b in bars if np.any(np.asarray(b.y) > 0)}
    named = {_bar_look(b) for b in bars if b.showlegend is not False}
    assert drawn == named
    assert len(drawn) == 4  # misses, false alarms, the EER bound, no system
    assert all(b.name for b in bars if b.showlegend is not False)


def test_errors_per_100_legend_leaves_out_a_part_of_zero_height():
    perfect = lc.Trials([5.0, 6.0, 7.0], [-5.0, -6.0, -7.0], name="perfect")  # no error at all at P = 0.5
    fig = errors_per_100_figure(lc.bayes_decisions(perfect, p_target=0.5))
    named = {b.name for b in fig.data if b.type == "bar" and b.showlegend is not False}
    assert named == {"without the system"}


def test_gaussian_det_guide_labels_follow_one_percent_format():
    fig = gaussian_det_figure(lc.mu_from_eer(0.3))  # no reference EER is within 25 % of 30 %: all are labelled
    labels = sorted(a.text for a in fig.layout.annotations if a.text.endswith("%"))
    assert labels == sorted(["0.1 %", "1 %", "5 %", "10 %", "20 %", "40 %"])
    assert "EER 30 %" in fig.layout.title.text


def test_fixed_threshold_figure_draws_the_analysis(asv_dev, asv):
    analysis = lc.fixed_false_alarm_threshold(asv_dev, asv, 0.01)
    fig = fixed_threshold_figure(analysis, p_target=0.01)
    for kind in ("fixed", "fixed_dev", "bayes", "minimum", "default"):
        (trace,) = traces(fig, kind)
        np.testing.assert_allclose(np.asarray(trace.y), 100 * getattr(analysis, kind), rtol=1e-14)
        np.testing.assert_array_equal(np.asarray(trace.x), analysis.plo)
    (implied,) = traces(fig, "implied_prior")
    assert implied.x[0] == pytest.approx(analysis.implied_plo)
    (point,) = traces(fig, "operating_point")
    at = analysis.at(0.01)
    np.testing.assert_allclose(point.y, [100 * at["fixed"], 100 * at["bayes"]], rtol=1e-14)
    assert point.x[0] == pytest.approx(np.log(0.01 / 0.99))
    assert fig.layout.yaxis.type == "log"
    assert "0.01" in fig.layout.xaxis.ticktext[2]


@pytest.mark.parametrize("p, c_miss", [(0.01, 1.0), (0.3, 1.0), (0.01, 10.0)])
def test_decision_histograms_table_counts_the_errors(asv, p, c_miss):
    histograms = decision_histograms(asv, p_target=p, c_miss=c_miss)
    t = -(np.log(p / (1 - p)) + np.log(c_miss))
    frame = histograms.to_frame()
    assert list(frame.columns) == ["system", "class", "bin_start", "bin_end", "count", "density", "decision",
                                   "error"]
    for label, wrong in (("target", asv.tar < t), ("non-target", asv.non >= t)):
        rows = frame[frame["class"] == label]
        assert rows["count"].sum() == wrong.size  # no far outliers in these data: every trial is in a bin
        assert rows.loc[rows["error"], "count"].sum() == wrong.sum()
        area = float(np.sum(rows["density"] * (rows["bin_end"] - rows["bin_start"])))
        assert area == pytest.approx(1.0)
    rejected = frame[frame["decision"] == "reject"]
    assert rejected["bin_end"].max() == pytest.approx(t, abs=1e-9)


def test_decision_figure_draws_the_histograms(asv):
    histograms = decision_histograms(asv, p_target=0.01, bins=60)
    fig = decision_figure(histograms)
    assert fig.to_json() == decision_figure(asv, p_target=0.01, bins=60).to_json()
    (target,) = traces(fig, "target")
    np.testing.assert_array_equal(np.asarray(target.y)[:-1], histograms.density("target"))
    with pytest.raises(ValueError, match="P\\(target\\)"):
        decision_figure(asv)


def test_fixed_threshold_table_is_what_the_figure_draws(asv_dev, asv):
    analysis = lc.fixed_false_alarm_threshold(asv_dev, asv, 0.01, c_miss=10)
    frame = analysis.to_frame()
    np.testing.assert_array_equal(frame["plo"], analysis.plo)
    np.testing.assert_allclose(frame["p_target"], 1 / (1 + np.exp(-analysis.plo)), rtol=1e-12)
    fig = fixed_threshold_figure(analysis)
    for kind in ("fixed", "fixed_dev", "bayes", "minimum", "default"):
        (trace,) = traces(fig, kind)
        np.testing.assert_allclose(np.asarray(trace.y), 100 * frame[kind], rtol=1e-14)
    assert analysis.implied_p_target == pytest.approx(1 / (1 + np.exp(-analysis.implied_prior_log_odds)))


# ----- Gaussian ---------------------------------------------------------------------------------------------------


def test_density_figure_shows_the_llr_of_the_llr():
    mu = 3.0
    fig = gaussian_llr_figure(mu, llr=2.0)
    for kind, mean in (("ideal_target", mu), ("ideal_non_target", -mu)):
        (trace,) = traces(fig, kind)
        x = np.asarray(trace.x)
        np.testing.assert_allclose(np.asarray(trace.y), stats.norm.pdf(x, mean, np.sqrt(2 * mu)), rtol=1e-12)
    (marker,) = traces(fig, "llr_marker")
    assert marker.y[0] / marker.y[1] == pytest.approx(np.exp(2.0), rel=1e-12)
    text = fig.layout.annotations[0].text
    assert f"<b>{np.exp(2.0):.4g}</b> = e<sup>2.00</sup>" in text  # 7.389
    assert gaussian_llr_figure(mu, llr=9.5).layout.xaxis.range[1] >= 9.5  # the chosen LLR stays in view
    with pytest.raises(ValueError):
        gaussian_llr_figure(0.0)


def test_density_figure_with_data_histograms(asv):
    comparison = lc.gaussian_comparison(asv)
    fig = gaussian_llr_figure(comparison=comparison, bins=50)
    (data,) = traces(fig, "data_target")
    edges, density = np.asarray(data.x), np.asarray(data.y)[:-1]
    inside = np.mean((comparison.calibrated.tar >= edges[0]) & (comparison.calibrated.tar <= edges[-1]))
    assert np.sum(density * np.diff(edges)) == pytest.approx(inside, rel=1e-9)
    (ideal,) = traces(fig, "ideal_target")
    assert ideal.line.dash == "dash" and f"{comparison.mu:.3g}" in fig.layout.title.text


@pytest.mark.parametrize("mu", [0.05, 3.28, 15.0])
def test_det_figure_is_the_straight_line(mu):
    fig = gaussian_det_figure(mu)
    (line,) = [t for t in traces(fig, "ideal")]
    x, y = np.asarray(line.x), np.asarray(line.y)
    np.testing.assert_allclose(x + y, -np.sqrt(2 * mu), rtol=1e-12)
    (eer,) = traces(fig, "eer")
    assert eer.x[0] == pytest.approx(-np.sqrt(mu / 2), rel=1e-12)  # probit(EER) = -sqrt(mu/2)
    eer = stats.norm.cdf(-np.sqrt(mu / 2))
    # the reference EERs, less the one on top of the system's own line
    assert len(traces(fig, "reference")) == sum(not 0.8 < r / eer < 1.25 for r in (0.001, 0.01, 0.05, 0.1, 0.2, 0.4))
    assert fig.layout.yaxis.scaleanchor == "x"


def test_det_figure_with_data(asv):
    comparison = lc.gaussian_comparison(asv)
    fig = gaussian_det_figure(comparison=comparison)
    assert traces(fig, "det")  # the data's ROCCH DET from det_figure
    (fitted,) = traces(fig, "ideal")
    (same_eer,) = traces(fig, "ideal_same_eer")
    assert fitted.meta["mu"] == pytest.approx(comparison.mu)
    x, y = np.asarray(same_eer.x), np.asarray(same_eer.y)
    # the line of the same EER passes through (probit EER, probit EER): x + y = 2 probit(EER)
    np.testing.assert_allclose(x + y, 2 * stats.norm.ppf(comparison.eer), rtol=1e-10)


def test_cllr_eer_figure(asv):
    fig = cllr_eer_figure(0.1)
    (exact,) = traces(fig, "exact")
    (approx,) = traces(fig, "approximation")
    eer = np.asarray(exact.x) / 100
    np.testing.assert_allclose(np.asarray(approx.y), 1 - (2 * eer - 1) ** 2, atol=1e-15)
    at_5 = int(np.argmin(np.abs(eer - 0.05)))
    assert np.asarray(exact.y)[at_5] == pytest.approx(0.18358337456908697, rel=1e-9)  # EER 5 %, independent quadrature
    assert "≤ 0.021 bits" in approx.name
    (marker,) = traces(fig, "marker")
    assert marker.y[0] == pytest.approx(0.3455533835428029, rel=1e-9) and marker.y[1] == pytest.approx(0.36)
    comparison = lc.gaussian_comparison(asv)
    fig = cllr_eer_figure(comparison.eer, comparison=comparison)
    (star,) = traces(fig, "star")
    (diamond,) = traces(fig, "diamond")
    assert star.y[0] == comparison.cllr and diamond.y[0] == comparison.min_cllr
    assert star.x[0] == pytest.approx(100 * comparison.eer)
    fig = cllr_eer_figure(0.001, comparison=comparison, log_axes=True)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.range[0] <= np.log10(0.1) and 10 ** fig.layout.yaxis.range[0] < comparison.min_cllr


def test_gaussian_densities_table_is_the_figure_data(asv):
    mu = 3.0
    densities = gaussian_densities(mu, llr=2.0)
    frame = densities.to_frame()
    ideal = frame[(frame["curve"] == "ideal") & (frame["class"] == "target")]
    np.testing.assert_allclose(ideal["density"], stats.norm.pdf(ideal["llr"], mu, np.sqrt(2 * mu)), rtol=1e-12)
    marked = frame[frame["curve"] == "marked"].set_index("class")["density"]
    assert marked["target"] / marked["non-target"] == pytest.approx(np.exp(2.0), rel=1e-12)
    assert gaussian_llr_figure(densities).to_json() == gaussian_llr_figure(mu, llr=2.0).to_json()
    comparison = lc.gaussian_comparison(asv)
    data = gaussian_densities(comparison=comparison, bins=40).to_frame()
    for label, values in (("target", comparison.calibrated.tar), ("non-target", comparison.calibrated.non)):
        rows = data[(data["curve"] == "data") & (data["class"] == label)]
        assert len(rows) == 40
        inside = np.sum((values >= rows["llr"].min()) & (values <= rows["bin_end"].max()))
        area = float(np.sum(rows["density"] * (rows["bin_end"] - rows["llr"])))
        assert area == pytest.approx(inside / values.size)


def test_cllr_eer_curve_table_is_the_figure_data():
    curve = cllr_eer_curve(0.05)
    frame = curve.to_frame()
    grid, exact = lc.gaussian_cllr_curve()
    points = frame[frame["point"] == "curve"]
    np.testing.assert_array_equal(points["eer"], grid)
    np.testing.assert_array_equal(points["cllr"], exact)
    np.testing.assert_allclose(points["approximation"], 1 - (2 * grid - 1) ** 2, rtol=1e-12)
    assert 0.02 < curve.max_error < 0.021  # the slides' "within about 0.02 bits" (EER 1 to 49 %)
    (marked,) = frame[frame["point"] == "marked"].itertuples()
    assert marked.cllr == pytest.approx(float(lc.gaussian_cllr(lc.mu_from_eer(0.05))))
    assert cllr_eer_figure(curve).to_json() == cllr_eer_figure(0.05).to_json()
