"""Tests of :mod:`llrcore.plots.calibration`: the figures draw the numbers of independent references.

- fig. 1: the weighting curves are the formula of DESIGN.md (``w(t + tau) Omega_tau(t)``) written with numpy and
  normalised by scipy quadrature; the modes are a numpy argmax of it (and ``-tau/2`` exactly for the logarithmic rule);
- fig. 2: the points are the rows of the sweep table, the star its minimum;
- fig. 3: the PAV reference is scikit-learn's ``IsotonicRegression`` of the labels on the scores, turned into LLRs.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.io as pio
import pytest
from scipy import integrate, special
from scipy.special import expit
from sklearn.isotonic import IsotonicRegression

import llrcore as lc
from llrcore.calibration.sweep import NAMED_RULES, RuleSweep
from llrcore.calibration.weighting import bayes_threshold, threshold_weightings
from llrcore.plots.calibration import (
    calibration_transform_figure,
    rule_comparison_figure,
    threshold_weighting_figure,
)


def weighting_formula(alpha, beta, tau, t):
    w = expit(t + tau) ** alpha * expit(-t - tau) ** beta / special.beta(alpha, beta)
    return w * expit(-tau) * (1 + np.exp(t + tau)) / (1 + np.exp(t))


def traces(fig, kind):
    return [trace for trace in fig.data if isinstance(trace.meta, dict) and trace.meta.get("kind") == kind]


def vertical_lines(fig):
    return [shape.x0 for shape in fig.layout.shapes if shape.x0 == shape.x1]


# ----- fig. 1 ----------------------------------------------------------------------------------------------------


def test_weighting_curves_are_the_normalised_formula():
    tau = -4.0
    fig = threshold_weighting_figure(list(NAMED_RULES), tau)
    curves = traces(fig, "weighting")
    assert [c.name.split(" (")[0] for c in curves] == ["logarithmic", "Brier", "boosting", "asymmetric"]
    for curve, rule in zip(curves, NAMED_RULES):
        t = np.asarray(curve.x)
        area, _ = integrate.quad(lambda s: weighting_formula(rule.alpha, rule.beta, tau, s), -60, 60, limit=400,
                                 points=[-tau, 0.0])
        np.testing.assert_allclose(curve.y, weighting_formula(rule.alpha, rule.beta, tau, t) / area, rtol=1e-6,
                                   atol=1e-12)


def test_modes_sit_where_the_paper_says():
    """Logarithmic at -tau/2 = +2, Brier near -tau = +4, each at the numpy argmax of the formula."""
    tau = -4.0
    fig = threshold_weighting_figure({"log": lc.BetaRule.logarithmic(), "Brier": lc.BetaRule.brier()}, tau)
    modes = {trace.meta["system"]: float(trace.x[0]) for trace in traces(fig, "mode")}
    assert modes["log"] == pytest.approx(2.0, abs=1e-4)
    t = np.arange(-10, 15, 1e-4)
    assert modes["Brier"] == pytest.approx(t[np.argmax(weighting_formula(2, 2, tau, t))], abs=2e-4)
    assert 3.0 < modes["Brier"] < 4.0
    assert "mode +2.00" in traces(fig, "weighting")[0].name
    # the marker sits on its curve's peak
    brier = traces(fig, "weighting")[1]
    marker = traces(fig, "mode")[1]
    assert float(marker.y[0]) == pytest.approx(float(np.max(brier.y)), rel=1e-4)


def test_bayes_threshold_line_of_the_operating_point():
    fig = threshold_weighting_figure(lc.BetaRule.brier(), -2.0, p_target=lc.OperatingPoint(0.01, c_miss=10.0))
    expected = -(np.log(0.01 / 0.99) + np.log(10.0))  # +2.293
    lines = vertical_lines(fig)
    assert any(abs(x - expected) < 1e-9 for x in lines)
    assert any(abs(x - 2.0) < 1e-9 for x in lines)  # -tau
    assert any("Bayes threshold +2.29" in a.text for a in fig.layout.annotations)
    assert threshold_weighting_figure(lc.BetaRule.brier(), -2.0).layout.shapes[0].x0 == 2.0  # only -tau
    # weighting at the operating point itself: one label for both lines
    at_operating_point = threshold_weighting_figure(lc.BetaRule.brier(), np.log(0.01 / 0.99), p_target=0.01)
    texts = [a.text for a in at_operating_point.layout.annotations]
    assert len(texts) == 1 and "Bayes threshold +4.60 = −τ" in texts[0]


def test_highlighted_rule_stands_out():
    fig = threshold_weighting_figure(list(NAMED_RULES), -3.0, highlight="Brier")
    widths = {trace.meta["system"]: trace.line.width for trace in traces(fig, "weighting")}
    assert widths["Brier"] > max(width for name, width in widths.items() if name != "Brier")


def test_weighting_figure_refuses_non_rules():
    with pytest.raises(TypeError):
        threshold_weighting_figure({"x": (1, 1)}, 0.0)
    with pytest.raises(ValueError):
        threshold_weighting_figure([], 0.0)


# ----- fig. 2 ----------------------------------------------------------------------------------------------------


def sweep_table() -> pd.DataFrame:
    return pd.DataFrame({
        "rule": ["logarithmic"] * 3 + ["Brier"] * 3,
        "plo": [-6.0, -3.0, 0.0] * 2,
        "cost": [0.40, 0.35, 0.38, 0.41, 0.30, 0.33],
        "cllr": [0.2, 0.1, 0.1, 0.3, 0.2, 0.1],
    })


def test_rule_comparison_draws_the_table_and_marks_the_best():
    frame = sweep_table()
    sweep = RuleSweep(frame=frame, cost_name="Cprimary", raw_cost=0.9, min_cost=0.25, p_targets=(0.01, 0.001),
                      c_miss=1.0, c_fa=1.0, cross_validated=False)
    fig = rule_comparison_figure(sweep)
    curves = traces(fig, "cost")
    assert [c.meta["system"] for c in curves] == ["logarithmic", "Brier"]
    np.testing.assert_array_equal(curves[1].y, [0.41, 0.30, 0.33])
    np.testing.assert_allclose(np.asarray(curves[0].customdata)[:, 0], expit(np.array([-6.0, -3.0, 0.0])))
    best = traces(fig, "best")[0]
    assert (best.x[0], best.y[0]) == (-3.0, 0.30) and "Brier" in best.name
    # the PAV floor is drawn; the raw cost, far above the curves, is written rather than drawn
    assert [shape.y0 for shape in fig.layout.shapes if shape.y0 == shape.y1] == [0.25]
    assert any("0.900" in a.text for a in fig.layout.annotations)
    assert fig.layout.yaxis.title.text == "Cprimary"


def test_rule_comparison_from_a_plain_table():
    fig = rule_comparison_figure(sweep_table(), cost_name="my DCF")
    assert fig.layout.yaxis.title.text == "my DCF"
    with pytest.raises(ValueError, match="cost"):
        rule_comparison_figure(sweep_table().drop(columns="cost"))


def test_rule_comparison_of_a_real_sweep(asvspoof_dev, asvspoof_eval):
    dev = lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"])
    evaluation = lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"])
    sweep = lc.sweep_prior_weighting(dev, evaluation, NAMED_RULES[:2], [-6.0, -3.0, 0.0])
    fig = rule_comparison_figure(sweep)
    drawn = np.concatenate([np.asarray(c.y) for c in traces(fig, "cost")])
    np.testing.assert_array_equal(np.sort(drawn), np.sort(sweep.frame["cost"].to_numpy()))
    assert traces(fig, "best")[0].y[0] == sweep.frame["cost"].min()


# ----- fig. 3 ----------------------------------------------------------------------------------------------------


def sklearn_pav_llrs(tar, non):
    """PAV LLRs from scikit-learn's isotonic regression of the labels on the scores (ties pooled)."""
    scores = np.concatenate([tar, non])
    labels = np.r_[np.ones(tar.size), np.zeros(non.size)]
    posterior = IsotonicRegression(increasing=True).fit(scores, labels).predict(scores)
    with np.errstate(divide="ignore"):
        return scores, np.log(posterior) - np.log1p(-posterior) - np.log(tar.size / non.size)


def test_transform_curve_is_the_pav_reference():
    rng = np.random.default_rng(2)
    tar, non = np.round(rng.normal(1.5, 1.2, 300), 2), np.round(rng.normal(-1.5, 1.0, 900), 2)  # with ties
    fig = calibration_transform_figure({"system": lc.Trials(tar, non)})
    curve = traces(fig, "pav")[0]
    scores, reference = sklearn_pav_llrs(tar, non)
    lookup = dict(zip(scores, reference))
    x, y = np.asarray(curve.x), np.asarray(curve.y)
    np.testing.assert_allclose(y, [lookup[v] for v in x], rtol=1e-9, atol=1e-12)
    finite = np.isfinite(reference)
    assert x.min() == scores[finite].min() and x.max() == scores[finite].max()  # +-inf blocks left out
    assert np.all(np.diff(x) > 0) and np.all(np.diff(y) >= 0)
    identity = traces(fig, "identity")[0]
    assert list(identity.x) == list(identity.y)


def test_transform_figure_of_raw_and_calibrated_asvspoof(asvspoof_dev, asvspoof_eval):
    dev = lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"], name="dev")
    evaluation = lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"], name="eval")
    result = lc.calibrate_and_evaluate(dev, evaluation, "affine", lc.BetaRule.brier(), plo=-4.595)
    fig = calibration_transform_figure({"raw": evaluation, "calibrated": result.calibrated}, p_target=0.01,
                                       max_points=1500)
    raw, calibrated = traces(fig, "pav")
    assert len(raw.x) <= 1500 and len(calibrated.x) <= 1500
    # the same PAV levels (affine is monotone), reached at LLRs a s + b of the raw ones
    assert set(np.round(raw.y, 9)) == set(np.round(calibrated.y, 9))
    lines = vertical_lines(fig)
    assert any(abs(x - 4.59512) < 1e-4 for x in lines)
    assert len(pio.to_json(fig)) < 300_000


def test_transform_figure_accepts_a_single_trials_object():
    fig = calibration_transform_figure(lc.Trials([1.0, 2.0, 0.0, 3.0], [0.5, -1.0, 1.5, -2.0], name="tiny"))
    assert traces(fig, "pav")[0].name == "tiny"


def test_threshold_weightings_table_is_what_the_figure_draws():
    tau = float(np.log(0.01 / 0.99))
    weightings = threshold_weightings(list(NAMED_RULES), tau, p_target=(0.01, 0.001))
    frame = weightings.to_frame()
    assert list(frame.columns) == ["rule", "alpha", "beta", "tau", "t", "weight", "mode"]
    fig = threshold_weighting_figure(weightings)
    points = [lc.OperatingPoint(0.01), lc.OperatingPoint(0.001)]
    assert fig.to_json() == threshold_weighting_figure(list(NAMED_RULES), tau, p_target=points).to_json()
    modes = {trace.meta["system"]: float(trace.x[0]) for trace in traces(fig, "mode")}
    for curve in traces(fig, "weighting"):
        rows = frame[frame["rule"] == curve.meta["system"]]
        np.testing.assert_array_equal(rows["t"], curve.x)
        np.testing.assert_array_equal(rows["weight"], curve.y)
        assert (rows["mode"] == modes[curve.meta["system"]]).all()
    assert weightings.bayes == pytest.approx({0.01: -tau, 0.001: float(np.log(999))})
    assert bayes_threshold(None) is None and bayes_threshold(0.5, 2.0, 1.0) == pytest.approx(-np.log(2.0))
