"""Figures of conditions and intervals draw exactly the library's results.

Independent references: the error bars are compared with the percentile intervals recomputed with numpy from the
replicates; the band with the DETBand's own arrays through the probit (scipy's ndtri).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

import llrcore as lc
from llrcore.plots.uncertainty import condition_figure, with_det_bands


@pytest.fixture(scope="module")
def systems():
    rng = np.random.default_rng(2)
    n = 2000
    label = rng.random(n) < 0.3
    meta = pd.DataFrame({"gender": rng.choice(["f", "m"], n)})
    return {name: lc.Trials.from_labels(np.where(label, shift, 0) + rng.normal(size=n), label, name, metadata=meta)
            for name, shift in (("A", 2.0), ("B", 2.5))}


def test_condition_figure_draws_values_and_percentile_intervals(systems):
    results = {name: lc.evaluate_by_condition(t, "gender") for name, t in systems.items()}
    intervals = {name: r.bootstrap(n=40, seed=1) for name, r in results.items()}
    fig = condition_figure(results, "eer", intervals=intervals)
    assert fig.layout.title.text == "EER per gender" and fig.layout.yaxis.title.text == "EER (%)"
    assert fig.layout.xaxis.title.text == "gender"
    for trace, (name, result) in zip(fig.data, results.items()):
        assert trace.name == f"{name} (95 % BCa bootstrap intervals)"
        assert list(trace.x) == [*(c.values["gender"] for c in result.conditions), "pooled"]
        np.testing.assert_allclose(trace.y, [100 * row.metrics.eer for row in result.rows])
        upper = [100 * intervals[name][row.label].interval("eer")[1] for row in result.rows]  # BCa by default
        np.testing.assert_allclose(np.asarray(trace.y) + np.asarray(trace.error_y.array), upper)


def test_det_bands_lie_under_the_curves(systems):
    fig = lc.plots.det_figure(systems, p_target=0.01)
    curves = len(fig.data)
    bands = {name: lc.bootstrap(t, n=30).det_band for name, t in systems.items()}
    with_det_bands(fig, bands, list(systems))
    assert len(fig.data) == curves + 4
    lower, upper = fig.data[0], fig.data[1]
    np.testing.assert_allclose(lower.y, ndtri(np.clip(bands["A"].lower, 1e-7, 1 - 1e-7)))
    assert upper.fill == "tonexty" and upper.name == "A: 95 % band"


def test_unknown_metric_is_refused(systems):
    with pytest.raises(ValueError, match="No condition figure for 'auc'"):
        condition_figure({"A": lc.evaluate_by_condition(systems["A"], "gender")}, "auc")


def test_a_system_keeps_the_colour_of_its_position_among_all_systems(systems):
    from llrcore.plots._style import system_colour

    results = {"B": lc.evaluate_by_condition(systems["B"], "gender")}
    fig = condition_figure(results, "eer", order=["A", "B"])
    assert fig.data[0].marker.color == system_colour(1)
