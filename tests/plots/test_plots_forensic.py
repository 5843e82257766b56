"""Tests of :mod:`llrcore.plots.forensic`: the Tippett and ECE figures draw the numbers of independent references.

- Tippett: on every horizontal stretch of a drawn curve, the height is the proportion of that class's LLRs at or above
  the stretch's middle, counted with numpy on the cartridge-case log10 LRs of lir's test suite; the misleading-evidence
  rates in the legend and on the LR = 1 line are ``np.mean(tar < 0)`` and ``np.mean(non > 0)``;
- ECE: the curves are the ECE formula written out with scipy's ``expit`` at the drawn priors, the PAV curve is that of
  scikit-learn's ``IsotonicRegression`` LLRs, the reference is the prior's entropy, and the legend's Cllr is
  ``lc.cllr``;
- titles, axis titles (with their units: "log10 LR", "ECE (bits)") and the legend entries match what is drawn.
"""
from __future__ import annotations


import numpy as np
import pytest
from scipy.special import expit
from sklearn.isotonic import IsotonicRegression

import llrcore as lc
from llrcore.plots.forensic import ece_figure, tippett_figure
import paths

DATA = paths.DATA / "lir_cartridge_case_llrs"


@pytest.fixture(scope="module")
def systems():
    km, knm = np.loadtxt(DATA / "LLR_KM.csv"), np.loadtxt(DATA / "LLR_KNM.csv")
    rng = np.random.default_rng(3)
    return {
        "cartridge cases": lc.Trials(lc.from_log10(km), lc.from_log10(knm)),
        "Gaussian": lc.Trials(rng.normal(3, np.sqrt(6), 400), rng.normal(-3, np.sqrt(6), 900)),
    }


def traces(fig, kind):
    return [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == kind]


def vertical_lines(fig):
    return [shape.x0 for shape in fig.layout.shapes if shape.x0 == shape.x1]


def test_tippett_curves_are_direct_counts(systems):
    fig = tippett_figure(systems)
    for kind, attribute in (("same source", "tar"), ("different source", "non")):
        curves = traces(fig, kind)
        assert [c.meta["system"] for c in curves] == list(systems)
        for curve in curves:
            llr10 = getattr(systems[curve.meta["system"]], attribute) / np.log(10)
            x, y = np.asarray(curve.x), np.asarray(curve.y)
            flat = np.flatnonzero((np.diff(x) > 0) & (np.diff(y) == 0))
            assert flat.size > 50
            middle = (x[flat] + x[flat + 1]) / 2
            np.testing.assert_allclose(y[flat], [np.mean(llr10 >= m) for m in middle], rtol=0, atol=1e-15)
            assert y[0] == 1.0 and y[-1] == 0.0


def test_tippett_misleading_rates_in_legend_and_on_the_lr_one_line(systems):
    fig = tippett_figure(systems)
    assert 0.0 in vertical_lines(fig)
    assert any(a.text == "LR = 1" for a in fig.layout.annotations)
    for name, trials in systems.items():
        same, different = np.mean(trials.tar < 0), np.mean(trials.non > 0)
        legend = {c.meta["kind"]: c.name for c in fig.data if isinstance(c.meta, dict) and c.meta.get("system") == name}
        assert f"misleading LR < 1: {lc.plots.format_percent(same)}" in legend["same source"].replace("<br>", " ")
        assert f"misleading LR > 1: {lc.plots.format_percent(different)}" in legend["different source"].replace(
            "<br>", " ")
        marks = next(t for t in traces(fig, "misleading") if t.meta["system"] == name)
        np.testing.assert_allclose(marks.x, [0, 0])
        np.testing.assert_allclose(marks.y, [1 - same, different], rtol=1e-15)
    assert fig.layout.title.text.startswith("Tippett plot")
    assert fig.layout.xaxis.title.text == "log10 LR"
    assert "at or above" in fig.layout.yaxis.title.text
    keys = [t.name for t in traces(fig, "legend_key")]
    assert keys == ["solid: same source (H1 true)", "dashed: different source (H2 true)"]
    solid = {c.line.dash for c in traces(fig, "same source")}
    dashed = {c.line.dash for c in traces(fig, "different source")}
    assert solid == {"solid"} and dashed == {"dash"}


def test_tippett_figure_takes_results_and_draws_infinite_llrs_at_the_edges():
    result = lc.tippett([-np.inf, 1.0, 2.0], [-1.0, np.inf], name="odd")
    fig = tippett_figure(result)
    x = np.concatenate([np.asarray(c.x) for c in traces(fig, "same source") + traces(fig, "different source")])
    assert np.isfinite(x).all()
    low, high = fig.layout.xaxis.range
    assert x.min() == low and x.max() == high


def direct_ece(tar, non, plo):
    p = expit(plo)
    return p * np.mean(-np.log2(expit(tar + plo))) + (1 - p) * np.mean(-np.log2(expit(-(non + plo))))


def test_ece_curves_are_the_formula(systems):
    fig = ece_figure(systems)
    for curve in traces(fig, "system"):
        trials = systems[curve.meta["system"]]
        x = np.asarray(curve.x)
        plo = x * np.log(10)
        np.testing.assert_allclose(curve.y, [direct_ece(trials.tar, trials.non, p) for p in plo], rtol=1e-12)
        assert f"Cllr {lc.cllr(trials):.3f} bits" in curve.name.replace("<br>", " ")
    for curve in traces(fig, "PAV"):
        trials = systems[curve.meta["system"]]
        scores, labels = trials.scores, trials.labels
        fraction = IsotonicRegression().fit_transform(scores, labels, sample_weight=np.where(
            labels, 1 / trials.tar.size, 1 / trials.non.size))
        with np.errstate(divide="ignore"):
            pav = np.log(fraction) - np.log1p(-fraction)
        x = np.asarray(curve.x)
        expected = [direct_ece(pav[labels], pav[~labels], p) for p in x * np.log(10)]
        np.testing.assert_allclose(curve.y, expected, rtol=1e-9)
    (reference,) = traces(fig, "reference")
    p = expit(np.asarray(reference.x) * np.log(10))
    np.testing.assert_allclose(reference.y, -p * np.log2(p) - (1 - p) * np.log2(1 - p), rtol=1e-12)


def test_ece_figure_layout(systems):
    fig = ece_figure(systems, plo=lc.from_log10(np.linspace(-2, 2, 41)))
    assert fig.layout.title.text == "Empirical cross-entropy (ECE)"
    assert fig.layout.xaxis.title.text.startswith("Prior log10-odds")
    assert fig.layout.yaxis.title.text == "ECE (bits)"
    assert 0.0 in vertical_lines(fig)
    assert any("ECE = Cllr" in a.text for a in fig.layout.annotations)
    shown = [t.name for t in fig.data if t.showlegend is not False]
    assert shown[0] == "dotted: neutral reference (LR = 1)"
    assert shown[-2:] == ["solid: the LLRs", "dashed: after PAV (calibrated)"]
    assert [t.meta["system"] for t in traces(fig, "system")] == list(systems)
    for marks in traces(fig, "cllr"):
        trials = systems[marks.meta["system"]]
        np.testing.assert_allclose(marks.y, [lc.cllr(trials), lc.min_cllr(trials)], rtol=1e-14)
    assert np.asarray(traces(fig, "system")[0].x).tolist() == pytest.approx(np.linspace(-2, 2, 41).tolist())
    # the same figure from results
    curves = {name: lc.ece_curve(trials, name=name) for name, trials in systems.items()}
    again = ece_figure(curves)
    assert [t.name for t in again.data] == [t.name for t in ece_figure(systems).data]
