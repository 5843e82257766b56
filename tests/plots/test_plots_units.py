"""Tests of ``units=`` of the figures whose axis is an LLR: drawn in log10, the LLR axis holds the natural-log figure's
values divided by ``ln 10`` (numpy's ``np.log(10)``, not the library's constant), lines and labels on the axis move
with it, a density axis is multiplied by ``ln 10`` (each curve keeps unit area, checked by integrating it), and the
axis title says which units. The forensic figures default to log10 (what forensic reports write) and follow ``"ln"``.
"""
from __future__ import annotations


import numpy as np
import pytest

import llrcore as lc
from llrcore.plots.calibration import calibration_transform_figure, threshold_weighting_figure
from llrcore.plots.decisions import decision_figure
from llrcore.plots.forensic import ece_figure, tippett_figure
from llrcore.plots.gaussian import gaussian_llr_figure
from llrcore.teaching.decisions import decision_histograms
from llrcore.teaching.gaussian import gaussian_densities
import paths

LN10 = np.log(10.0)
DATA = paths.DATA / "lir_cartridge_case_llrs"


@pytest.fixture(scope="module")
def cases() -> lc.Trials:
    return lc.Trials(np.loadtxt(DATA / "LLR_KM.csv") * LN10, np.loadtxt(DATA / "LLR_KNM.csv") * LN10, name="cases")


@pytest.fixture(scope="module")
def gaussian() -> lc.Trials:
    rng = np.random.default_rng(5)
    return lc.Trials(rng.normal(2.0, 2.0, 800), rng.normal(-2.0, 2.0, 2000), name="Gaussian")


def _x_of_traces(fig):
    return [None if t.x is None else np.asarray(t.x, dtype=float) for t in fig.data]


def _same_x_over_ln10(ln_fig, log10_fig):
    for ln_x, log10_x in zip(_x_of_traces(ln_fig), _x_of_traces(log10_fig), strict=True):
        if ln_x is not None:
            np.testing.assert_allclose(log10_x, ln_x / LN10, rtol=1e-12, atol=1e-15)
    for ln_shape, log10_shape in zip(ln_fig.layout.shapes, log10_fig.layout.shapes, strict=True):
        if ln_shape.xref == "x":
            assert log10_shape.x0 == pytest.approx(ln_shape.x0 / LN10) and log10_shape.x1 == pytest.approx(
                ln_shape.x1 / LN10)
    if ln_fig.layout.xaxis.range is not None:  # else plotly finds it from the data
        np.testing.assert_allclose(log10_fig.layout.xaxis.range, np.asarray(ln_fig.layout.xaxis.range) / LN10)


def _areas(fig):
    """The area under each filled or drawn curve, by the trapezium rule (step curves: by their steps)."""
    areas = []
    for trace in fig.data:
        if trace.x is None or len(trace.x) < 3 or not isinstance(trace.meta, dict):
            continue
        x, y = np.asarray(trace.x, float), np.asarray(trace.y, float)
        shape = trace.line.shape if trace.line is not None else None
        areas.append(np.sum(np.diff(x) * y[:-1]) if shape == "hv" else np.trapezoid(y, x))
    return np.array(areas)


def test_the_decision_figure_in_log10(gaussian):
    histograms = decision_histograms(gaussian, p_target=0.01, c_miss=10, c_fa=1)
    ln_fig, log10_fig = decision_figure(histograms), decision_figure(histograms, units="log10")
    _same_x_over_ln10(ln_fig, log10_fig)
    np.testing.assert_allclose(_areas(log10_fig), _areas(ln_fig), rtol=1e-12)  # each class keeps area 1
    assert "log10 LR" in log10_fig.layout.xaxis.title.text and "ln LR" in ln_fig.layout.xaxis.title.text
    threshold = histograms.summary.threshold
    names = " ".join(t.name or "" for t in log10_fig.data)
    assert f"Bayes threshold: log10 LR = {threshold / LN10:+.2f}" in names


def test_the_calibration_transform_in_log10_scales_both_axes(gaussian):
    ln_fig = calibration_transform_figure({"raw": gaussian}, p_target=0.01)
    log10_fig = calibration_transform_figure({"raw": gaussian}, p_target=0.01, units="log10")
    _same_x_over_ln10(ln_fig, log10_fig)
    for ln_trace, log10_trace in zip(ln_fig.data, log10_fig.data, strict=True):
        np.testing.assert_allclose(np.asarray(log10_trace.y, float), np.asarray(ln_trace.y, float) / LN10)
    assert log10_fig.layout.xaxis.title.text == "LLR of the system (log10 LR)"
    assert log10_fig.layout.yaxis.title.text == "PAV-optimal LLR (log10 LR)"
    bayes = -lc.OperatingPoint(0.01).plo_eff
    label = next(a.text for a in log10_fig.layout.annotations if "Bayes threshold" in a.text)
    assert f"Bayes threshold {bayes / LN10:+.2f}".replace("-", "−") in label


def test_the_threshold_weighting_in_log10_keeps_unit_area():
    rules = {"logarithmic": lc.BetaRule.logarithmic(), "Brier": lc.BetaRule.brier()}
    ln_fig = threshold_weighting_figure(rules, -4.6, p_target=0.01)
    log10_fig = threshold_weighting_figure(rules, -4.6, p_target=0.01, units="log10")
    _same_x_over_ln10(ln_fig, log10_fig)
    np.testing.assert_allclose(_areas(log10_fig), _areas(ln_fig), rtol=1e-9)
    assert log10_fig.layout.xaxis.title.text == "LLR threshold t (log10 LR)"
    modes = [t.meta["mode"] for t in ln_fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "mode"]
    names = " ".join(t.name or "" for t in log10_fig.data)
    for mode in modes:
        assert f"mode {mode / LN10:+.2f}".replace("-", "−") in names


def test_the_gaussian_densities_in_log10(gaussian):
    comparison = lc.gaussian_comparison(gaussian)
    densities = gaussian_densities(2.0, llr=1.5, comparison=comparison)
    ln_fig, log10_fig = gaussian_llr_figure(densities), gaussian_llr_figure(densities, units="log10")
    _same_x_over_ln10(ln_fig, log10_fig)
    np.testing.assert_allclose(_areas(log10_fig), _areas(ln_fig), rtol=1e-9)
    assert log10_fig.layout.xaxis.title.text == "LLR (log10 LR)"
    note = next(a.text for a in log10_fig.layout.annotations if "density" in a.text)
    assert f"log10 LR = {1.5 / LN10:.2f}" in note and f"10<sup>{1.5 / LN10:.2f}</sup>" in note


def test_the_tippett_plot_follows_the_units(cases):
    log10_fig, ln_fig = tippett_figure(cases), tippett_figure(cases, units="ln")
    assert log10_fig.layout.xaxis.title.text == "log10 LR" and ln_fig.layout.xaxis.title.text == "ln LR"
    _same_x_over_ln10(ln_fig, log10_fig)
    np.testing.assert_array_equal(tippett_figure(cases, units="log10").data[0].x, log10_fig.data[0].x)
    # the steps of the same-source curve fall at the cases' own log10 LRs
    drawn = np.asarray(log10_fig.data[0].x, float)
    assert set(np.round(np.loadtxt(DATA / "LLR_KM.csv"), 9)) >= set(np.round(drawn[1:-1], 9))


def test_the_ece_plot_follows_the_units(cases):
    log10_fig, ln_fig = ece_figure(cases), ece_figure(cases, units="ln")
    assert log10_fig.layout.xaxis.title.text.startswith("Prior log10-odds")
    assert ln_fig.layout.xaxis.title.text == "Prior log-odds, ln(P(H1) / P(H2))"
    _same_x_over_ln10(ln_fig, log10_fig)
    curve = lc.ece_curve(cases)
    np.testing.assert_allclose(np.asarray(ln_fig.data[0].x, float), curve.plo, rtol=1e-12)


@pytest.mark.parametrize("figure", [tippett_figure, ece_figure])
def test_unknown_units_are_refused(cases, figure):
    with pytest.raises(ValueError, match="log10"):
        figure(cases, units="bits")
