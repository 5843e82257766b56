"""Curves as results (:mod:`llrcore.binary.curves`): what the DET and Bayes-error figures draw, and the tables users download.

Independent references: error rates counted with numpy from their definitions (a trial is accepted when
``llr >= -plo_eff``), the ROCCH vertices of ``lc.det_curve(rocch=True)`` (tested against ROCAnalysis.jl and Qhull in
test_rates.py), the normalised DCF written out as ``(P Pmiss C_miss + (1-P) Pfa C_fa) / min(P C_miss, (1-P) C_fa)``,
and the trapezium ``min(P, 1 - P, EER)`` of Brümmer, Ferrer & Swart (2021).
"""
from __future__ import annotations


import numpy as np
import pytest

import llrcore as lc
from paths import ASSETS



@pytest.fixture(scope="module")
def systems():
    asv = lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    fvc = lc.read_trials(ASSETS / "fvcaus_plda" / "fvcaus_plda.npz")
    return {"ASV": asv, "FVC": fvc}


def counted_rates(trials, threshold):
    return float(np.mean(trials.tar < threshold)), float(np.mean(trials.non >= threshold))


def normalised_dcf(p, c_miss, c_fa, pmiss, pfa):
    return (p * c_miss * pmiss + (1 - p) * c_fa * pfa) / min(p * c_miss, (1 - p) * c_fa)


@pytest.mark.parametrize("p_target, c_miss, c_fa", [(0.01, 1, 1), (0.01, 10, 1), (0.5, 1, 3)])
def test_det_markers_are_the_counted_rates_and_the_librarys_costs(systems, p_target, c_miss, c_fa):
    op = lc.OperatingPoint(p_target, c_miss, c_fa)
    curves = lc.det_curves(systems, p_target=p_target, c_miss=c_miss, c_fa=c_fa)
    assert list(curves) == ["ASV", "FVC"]
    for name, trials in systems.items():
        curve = curves[name]
        act = curve.marker("act_dcf")
        pmiss, pfa = counted_rates(trials, op.threshold)
        assert (act.miss_rate, act.false_alarm_rate) == pytest.approx((pmiss, pfa), rel=1e-12, abs=1e-15)
        assert act.cost == pytest.approx(normalised_dcf(p_target, c_miss, c_fa, pmiss, pfa), rel=1e-12)
        minimum = curve.marker("min_dcf")
        assert minimum.cost == lc.min_dcf(trials, p_target=op)
        assert minimum.cost == pytest.approx(normalised_dcf(p_target, c_miss, c_fa, minimum.miss_rate,
                                                            minimum.false_alarm_rate), rel=1e-12)
        assert curve.marker("eer").cost == curve.eer == lc.eer(trials)
        rocch = lc.det_curve(trials, rocch=True)
        np.testing.assert_array_equal(curve.rocch[0], rocch[0])
        np.testing.assert_array_equal(curve.rocch[1], rocch[1])


def test_det_table_is_what_a_user_downloads(systems):
    curves = lc.det_curves(systems, p_target=lc.OperatingPoint.sre12())
    frame = curves.to_frame()
    assert list(frame.columns) == ["system", "kind", "false_alarm_rate", "miss_rate", "cost"]
    for name, trials in systems.items():
        rows = frame[frame.system == name]
        assert (rows.kind == "rocch").sum() == lc.det_curve(trials, rocch=True)[0].size
        assert rows.loc[rows.kind == "act_dcf", "cost"].item() == lc.act_dcf(trials, p_target=0.01)
    with_steps = curves.to_frame(steps=True)
    assert (with_steps.kind == "steps").sum() == sum(lc.det_curve(t)[0].size for t in systems.values())
    assert set(lc.det_curves(systems).to_frame().kind) == {"rocch", "eer"}  # no operating point, no DCF marker


def test_bayes_error_curves_are_counted_error_rates(systems):
    grid = np.array([-6.0, -4.59511985013459, -1.0, 0.0, 2.5])
    curves = lc.bayes_error_curves(systems, plo=grid, p_target=lc.OperatingPoint(0.01, c_miss=10))
    for name, trials in systems.items():
        curve = curves[name]
        for plo, actual in zip(grid, curve.rates.actual):
            pmiss, pfa = counted_rates(trials, -plo)
            p = 1 / (1 + np.exp(-plo))
            assert actual == pytest.approx(p * pmiss + (1 - p) * pfa, rel=1e-12, abs=1e-16)
        assert curve.cllr == lc.cllr(trials) and curve.min_cllr == lc.min_cllr(trials)
        assert curve.act_dcf == lc.act_dcf(trials, p_target=0.01, c_miss=10)
        pmiss, pfa = counted_rates(trials, -np.log(0.01 / 0.99))  # the prior alone, for "errors out of 100"
        assert curve.at_prior.actual[0] == pytest.approx(0.01 * pmiss + 0.99 * pfa, rel=1e-12)
        frame = curve.to_frame()
        assert list(frame.columns[:3]) == ["system", "plo", "p_target"] and len(frame) == grid.size


def test_the_trapezium_curve_has_its_corners(systems):
    (curve,) = lc.bayes_error_curves(systems["ASV"]).values()
    plo, bound = curve.trapezium_curve()
    corner = np.log(curve.eer / (1 - curve.eer))
    assert np.any(np.isclose(plo, corner, rtol=0, atol=1e-12)) and np.any(np.isclose(plo, -corner, rtol=0, atol=1e-12))
    p, one_minus_p = 1 / (1 + np.exp(-plo)), 1 / (1 + np.exp(plo))  # 1 - p without cancellation
    np.testing.assert_allclose(bound, np.minimum(np.minimum(p, one_minus_p), curve.eer), rtol=1e-13, atol=0)
    assert np.all(curve.rates.minimum <= curve.rates.trapezium + 1e-15)


def test_figures_draw_the_curves_they_are_given(systems):
    op = lc.OperatingPoint(0.01, c_miss=10)
    det = lc.det_curves(systems, p_target=op)
    from_curves, from_systems = lc.plots.det_figure(det), lc.plots.det_figure(systems, p_target=op)
    assert from_curves.to_json() == from_systems.to_json()
    bayes = lc.bayes_error_curves(systems, p_target=op)
    for draw in (lc.plots.ape_figure, lc.plots.normalised_bayes_error_figure, lc.plots.bayes_error_trapezium_figure):
        assert draw(bayes).to_json() == draw(systems, **({} if draw is lc.plots.ape_figure else
                                                            {"p_target": op})).to_json()


def test_score_histograms_count_every_trial_in_range(systems):
    histograms = lc.score_histograms(systems, bins=50)
    asv = histograms["ASV"]
    assert set(asv.counts) == {"target", "non-target", "spoof"}
    trials = systems["ASV"]
    for label, scores in (("target", trials.tar), ("non-target", trials.non), ("spoof", trials.spoof)):
        inside = (scores >= asv.edges[0]) & (scores <= asv.edges[-1])
        assert asv.counts[label].sum() == inside.sum() and asv.n_trials[label] == scores.size
        np.testing.assert_allclose(asv.density(label).sum() * (asv.edges[1] - asv.edges[0]), inside.mean())
    frame = histograms.to_frame()
    assert list(frame.columns) == ["system", "class", "bin_start", "bin_end", "count", "density"]
    assert len(frame) == 50 * (3 + 2)
    assert set(lc.score_histograms(systems, include_spoof=False)["ASV"].counts) == {"target", "non-target"}


def test_pav_transform_is_the_pav_llr_of_each_score(systems):
    (transform,) = lc.pav_transforms({"FVC": systems["FVC"]}).values()
    trials = systems["FVC"]
    tar_pav, non_pav = lc.pav_llrs(trials)
    by_score = dict(zip(np.concatenate([trials.tar, trials.non]), np.concatenate([tar_pav, non_pav])))
    expected = np.array([by_score[s] for s in transform.llr])
    np.testing.assert_array_equal(transform.pav_llr, expected)
    assert np.all(np.isfinite(transform.pav_llr)) and np.all(np.diff(transform.llr) > 0)
    assert np.all(np.diff(transform.pav_llr) >= 0)  # monotone
