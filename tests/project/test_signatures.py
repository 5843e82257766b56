"""One signature per family, and the old spellings' deprecation path (issue 42).

Every public function takes the scores as ``tar, non`` (the tandem's as ``cm_bonafide, cm_spoof, asv_tar, asv_non,
asv_spoof``) and the prior as the keyword-only ``p_target`` (``plo`` where the formula is in log-odds). Each old
spelling, an old keyword (``tar_llr=``, ``operating_point=``, ``p_targets=``, ...) or a prior or a cost given by
position (``min_dcf(tar, non, 0.01)``, BOSARIS's ``min_dcf(trials, 0.01)``), still works for one release with a
FutureWarning naming the new spelling.

Independent references: the same call in the new spelling, whose results the other test modules check against
their own references, must give the identical result (bit for bit: the same pickle, the same figure JSON); minDCF
and actDCF of a hand case as ``fractions.Fraction`` minima over every threshold, computed here; the old prior-second
forms and their refusals as issue 28 tested them. The test run turns an old spelling into an error
(``filterwarnings`` in pyproject.toml), which :func:`test_the_test_run_refuses_an_old_spelling` checks.
"""
from __future__ import annotations

import dataclasses
import math
import pickle
from fractions import Fraction

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import llrcore as lc
from llrcore._deprecation import OldSpellingWarning
from llrcore.plots.forensic import ece_figure

TAR, NON = [1.0, 2.0, 3.0, 0.2], [-1.0, 0.5, 2.5, -0.3, 0.1]
SPOOF = [0.3, -2.0, 1.5]
INF = math.inf


def exact_dcf(p, c_miss=1, c_fa=1, actual=False) -> float:
    """Normalised DCF, least over all thresholds or at the Bayes threshold, as a Fraction rounded once."""
    p, c_miss, c_fa = Fraction(p), Fraction(c_miss), Fraction(c_fa)

    def cost(t):
        misses = Fraction(sum(1 for s in TAR if s < t), len(TAR))
        false_alarms = Fraction(sum(1 for s in NON if s >= t), len(NON))
        return (p * c_miss * misses + (1 - p) * c_fa * false_alarms) / min(p * c_miss, (1 - p) * c_fa)

    if actual:
        return float(cost(math.log((1 - p) * c_fa / (p * c_miss))))
    return float(min(cost(t) for t in [*TAR, *NON, INF]))


def same(a, b) -> bool:
    """Whether two results are identical: figures by their JSON, frames by their values, a result that cannot be
    pickled (a read-only cost model) field by field, anything else by its pickle."""
    if isinstance(a, go.Figure):
        return a.to_json() == b.to_json()
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    if isinstance(a, lc.ADCF):
        values = [(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)]
        return all(np.array_equal(x, y, equal_nan=True) if isinstance(x, (float, np.ndarray)) else x == y
                   for x, y in values)
    return pickle.dumps(a) == pickle.dumps(b)


@pytest.fixture(scope="module")
def trials():
    return lc.Trials(TAR, NON, name="hand")


@pytest.fixture(scope="module")
def analysis():
    rng = np.random.default_rng(42)
    dev = lc.Trials(rng.normal(2, 1, 60), rng.normal(-1, 1, 200), name="dev")
    evaluation = lc.Trials(rng.normal(2, 1, 60), rng.normal(-1, 1, 200), name="eval")
    return lc.fixed_false_alarm_threshold(dev, evaluation, 0.05, np.linspace(-4, 4, 9))


RULE = lc.BetaRule.logarithmic()
MATRIX, LABELS = np.array([[0.0, 2.0, 1.0], [0.0, -1.0, 1.0], [0.5, -1.0, 2.0], [-1.0, -2.0, 0.0]]), [0, 1, 2, 2]
PLO = [-2.0, 0.0, 1.5]
#: Two conditions ("side") of 40 target and 80 non-target Gaussian scores each, for a calibration per condition.
_RNG = np.random.default_rng(7)
BY_TRIALS = lc.Trials.from_labels(np.r_[_RNG.normal(2, 1, 80), _RNG.normal(-1, 1, 160)],
                                  np.r_[np.ones(80, bool), np.zeros(160, bool)],
                                  metadata=pd.DataFrame({"side": np.r_[np.tile(["a", "b"], 40), np.tile(["a", "b"], 80)]}))

#: id -> (old call, new call, the new spelling the warning names), each a function of the fixtures.
RENAMED = {
    "act_dcf tar_llr": (lambda t, a: lc.act_dcf(tar_llr=TAR, non_llr=NON, p_target=0.25),
                        lambda t, a: lc.act_dcf(TAR, NON, p_target=0.25), r"act_dcf\(tar="),
    "cllr tar_llr": (lambda t, a: lc.cllr(tar_llr=TAR, non_llr=NON), lambda t, a: lc.cllr(TAR, NON), r"cllr\(tar="),
    "cllr non_llr": (lambda t, a: lc.cllr(TAR, non_llr=NON), lambda t, a: lc.cllr(TAR, NON), r"cllr\(non="),
    "cprimary tar_llr": (lambda t, a: lc.cprimary(tar_llr=TAR, non_llr=NON), lambda t, a: lc.cprimary(TAR, NON),
                         r"cprimary\(tar="),
    "cprimary p_targets": (lambda t, a: lc.cprimary(t, p_targets=(0.25, 0.4)),
                           lambda t, a: lc.cprimary(t, p_target=(0.25, 0.4)), r"cprimary\(p_target="),
    "bayes_error_rates tar_llr": (lambda t, a: lc.bayes_error_rates(tar_llr=TAR, non_llr=NON, plo=PLO),
                                  lambda t, a: lc.bayes_error_rates(TAR, NON, plo=PLO), r"bayes_error_rates\(tar="),
    "evaluate tar_llr": (lambda t, a: lc.evaluate(tar_llr=TAR, non_llr=NON, p_target=0.25),
                         lambda t, a: lc.evaluate(TAR, NON, p_target=0.25), r"evaluate\(tar="),
    "objective tar_llr": (lambda t, a: lc.objective(tar_llr=TAR, non_llr=NON, rule=RULE, plo=0.5),
                          lambda t, a: lc.objective(TAR, NON, RULE, plo=0.5), r"objective\(tar="),
    "ece tar_llr": (lambda t, a: lc.ece(tar_llr=TAR, non_llr=NON, plo=0.5), lambda t, a: lc.ece(TAR, NON, plo=0.5),
                    r"ece\(tar="),
    "ece_curve prior_log10_odds": (lambda t, a: lc.ece_curve(t, prior_log10_odds=[-1.0, 0.0, 0.5]),
                                   lambda t, a: lc.ece_curve(t, plo=lc.from_log10([-1.0, 0.0, 0.5])),
                                   r"ece_curve\(plo="),
    "ece_curve tar_llr": (lambda t, a: lc.ece_curve(tar_llr=TAR, non_llr=NON), lambda t, a: lc.ece_curve(TAR, NON),
                          r"ece_curve\(tar="),
    "devpav tar_llr": (lambda t, a: lc.devpav(tar_llr=TAR, non_llr=NON), lambda t, a: lc.devpav(TAR, NON),
                       r"devpav\(tar="),
    "cllr_cal tar_llr": (lambda t, a: lc.cllr_cal(tar_llr=TAR, non_llr=NON), lambda t, a: lc.cllr_cal(TAR, NON),
                         r"cllr_cal\(tar="),
    "elub_bounds tar_llr": (lambda t, a: lc.elub_bounds(tar_llr=TAR, non_llr=NON),
                            lambda t, a: lc.elub_bounds(TAR, NON), r"elub_bounds\(tar="),
    "elub_bounded tar_scores": (lambda t, a: lc.elub_bounded(np.negative, tar_scores=TAR, non_scores=NON).bounds,
                                lambda t, a: lc.elub_bounded(np.negative, TAR, NON).bounds, r"elub_bounded\(tar="),
    "tippett tar_llr": (lambda t, a: lc.tippett(tar_llr=TAR, non_llr=NON), lambda t, a: lc.tippett(TAR, NON),
                        r"tippett\(tar="),
    "fit_fusion systems_tar": (lambda t, a: lc.fit_fusion(systems_tar=[TAR, np.square(TAR)],
                                                          systems_non=[NON, np.square(NON)]),
                               lambda t, a: lc.fit_fusion([TAR, np.square(TAR)], [NON, np.square(NON)]),
                               r"fit_fusion\(tar="),
    "a_dcf target": (lambda t, a: lc.a_dcf(target=TAR, nontarget=NON, spoof=SPOOF),
                     lambda t, a: lc.a_dcf(TAR, NON, SPOOF), r"a_dcf\(tar="),
    "t_eer asv_target": (lambda t, a: lc.t_eer(TAR, SPOOF, asv_target=TAR, asv_nontarget=NON, asv_spoof=SPOOF),
                         lambda t, a: lc.t_eer(TAR, SPOOF, TAR, NON, SPOOF), r"t_eer\(asv_tar="),
    "sweep_prior_weighting p_targets": (
        lambda t, a: lc.sweep_prior_weighting(t, t, [RULE], [0.0], p_targets=0.25).frame,
        lambda t, a: lc.sweep_prior_weighting(t, t, [RULE], [0.0], p_target=0.25).frame,
        r"sweep_prior_weighting\(p_target="),
    "det_figure operating_point": (lambda t, a: lc.plots.det_figure(t, operating_point=lc.OperatingPoint(0.25, 10)),
                                   lambda t, a: lc.plots.det_figure(t, p_target=0.25, c_miss=10),
                                   r"det_figure\(p_target="),
    "normalised_bayes_error_figure operating_point": (
        lambda t, a: lc.plots.normalised_bayes_error_figure(t, operating_point=0.25),
        lambda t, a: lc.plots.normalised_bayes_error_figure(t, p_target=0.25), r"figure\(p_target="),
    "bayes_error_trapezium_figure operating_point": (
        lambda t, a: lc.plots.bayes_error_trapezium_figure(t, operating_point=0.25),
        lambda t, a: lc.plots.bayes_error_trapezium_figure(t, p_target=0.25), r"figure\(p_target="),
    "calibration_transform_figure operating_point": (
        lambda t, a: lc.plots.calibration_transform_figure(t, operating_point=0.25),
        lambda t, a: lc.plots.calibration_transform_figure(t, p_target=0.25), r"figure\(p_target="),
    "threshold_weighting_figure operating_point": (
        lambda t, a: lc.plots.threshold_weighting_figure(RULE, -2.0, operating_point=[0.01, 0.001]),
        lambda t, a: lc.plots.threshold_weighting_figure(RULE, -2.0, p_target=[0.01, 0.001]), r"figure\(p_target="),
    "decision_figure operating_point": (lambda t, a: lc.plots.decision_figure(t, operating_point=0.25),
                                        lambda t, a: lc.plots.decision_figure(t, p_target=0.25),
                                        r"decision_figure\(p_target="),
    "fixed_threshold_figure operating_point": (
        lambda t, a: lc.plots.fixed_threshold_figure(a, operating_point=0.25),
        lambda t, a: lc.plots.fixed_threshold_figure(a, p_target=0.25), r"fixed_threshold_figure\(p_target="),
    "ece_figure prior_log10_odds": (lambda t, a: ece_figure(t, prior_log10_odds=[-1.0, 0.0, 1.0]),
                                    lambda t, a: ece_figure(t, plo=lc.from_log10([-1.0, 0.0, 1.0])),
                                    r"ece_figure\(plo="),
    "build_report operating_point": (
        lambda t, a: lc.build_report(t, operating_point=0.25, calibrate=False).summary_text(),
        lambda t, a: lc.build_report(t, p_target=0.25, calibrate=False).summary_text(), r"build_report\(p_target="),
}

#: id -> (old call with the prior or a cost by position, new call, the keyword the warning names).
POSITIONAL = {
    "min_dcf": (lambda t: lc.min_dcf(TAR, NON, 0.25, 10, 2), lambda t: lc.min_dcf(TAR, NON, p_target=0.25,
                                                                                    c_miss=10, c_fa=2),
                "p_target=, c_miss=, c_fa="),
    "act_dcf": (lambda t: lc.act_dcf(TAR, NON, 0.25), lambda t: lc.act_dcf(TAR, NON, p_target=0.25), "p_target="),
    "cprimary": (lambda t: lc.cprimary(TAR, NON, (0.25, 0.4)), lambda t: lc.cprimary(TAR, NON, p_target=(0.25, 0.4)),
                 "p_target="),
    "bayes_error_rates": (lambda t: lc.bayes_error_rates(TAR, NON, PLO), lambda t: lc.bayes_error_rates(TAR, NON,
                                                                                                      plo=PLO),
                          "plo="),
    "ece": (lambda t: lc.ece(TAR, NON, 0.5), lambda t: lc.ece(TAR, NON, plo=0.5), "plo="),
    "evaluate": (lambda t: lc.evaluate(t, 0.25), lambda t: lc.evaluate(t, p_target=0.25), "p_target="),
    "bayes_decisions": (lambda t: lc.bayes_decisions(t, 0.25, 10), lambda t: lc.bayes_decisions(t, p_target=0.25,
                                                                                               c_miss=10),
                        "p_target=, c_miss="),
    "decision_histograms": (lambda t: lc.decision_histograms(t, 0.25), lambda t: lc.decision_histograms(
        t, p_target=0.25), "p_target="),
    "det_curves": (lambda t: lc.det_curves(t, 0.25), lambda t: lc.det_curves(t, p_target=0.25), "p_target="),
    "bayes_error_curves": (lambda t: lc.bayes_error_curves(t, PLO, 0.25), lambda t: lc.bayes_error_curves(
        t, plo=PLO, p_target=0.25), "plo=, p_target="),
    "eer_conventions": (lambda t: lc.eer_conventions(t, 0.25).to_frame(), lambda t: lc.eer_conventions(
        t, p_target=0.25).to_frame(), "p_target="),
    "cavg": (lambda t: lc.cavg(MATRIX, 0.3, labels=LABELS), lambda t: lc.cavg(MATRIX, p_target=0.3, labels=LABELS),
             "p_target="),
    "cavg_table": (lambda t: lc.cavg_table(MATRIX, None, 0.3, labels=LABELS), lambda t: lc.cavg_table(
        MATRIX, None, p_target=0.3, labels=LABELS), "p_target="),
    "decision_figure": (lambda t: lc.plots.decision_figure(t, 0.25), lambda t: lc.plots.decision_figure(
        t, p_target=0.25), "p_target="),
    "objective": (lambda t: lc.objective(TAR, NON, RULE, 0.5), lambda t: lc.objective(TAR, NON, RULE, plo=0.5),
                  "plo="),
    "fit_affine": (lambda t: lc.fit_affine(TAR, NON, RULE, 0.5), lambda t: lc.fit_affine(TAR, NON, RULE, plo=0.5),
                   "plo="),
    "fit_fusion": (lambda t: lc.fit_fusion(np.c_[TAR, TAR], np.c_[NON, NON], RULE, 0.5, regularisation=1.0),
                   lambda t: lc.fit_fusion(np.c_[TAR, TAR], np.c_[NON, NON], RULE, plo=0.5, regularisation=1.0),
                   "plo="),
    "calibrate_and_evaluate": (lambda t: lc.calibrate_and_evaluate(t, t, "affine", RULE, 0.5).to_frame(),
                               lambda t: lc.calibrate_and_evaluate(t, t, "affine", RULE, plo=0.5).to_frame(), "plo="),
    "calibrate_by_condition": (
        lambda t: lc.calibrate_by_condition(BY_TRIALS, BY_TRIALS, "side", "affine", RULE, 0.5).to_frame(),
        lambda t: lc.calibrate_by_condition(BY_TRIALS, BY_TRIALS, "side", "affine", RULE, plo=0.5).to_frame(), "plo="),
}


@pytest.mark.parametrize("case", RENAMED)
def test_an_old_keyword_gives_the_same_result_with_a_warning_naming_the_new(case, trials, analysis):
    old, new, spelling = RENAMED[case]
    with pytest.warns(FutureWarning, match=spelling):
        given_old = old(trials, analysis)
    assert same(given_old, new(trials, analysis))


@pytest.mark.parametrize("case", POSITIONAL)
def test_a_prior_or_cost_by_position_gives_the_same_result_with_a_warning(case, trials):
    old, new, keywords = POSITIONAL[case]
    with pytest.warns(FutureWarning, match=f"takes {keywords} by keyword only"):
        given_old = old(trials)
    assert same(given_old, new(trials))


def test_an_old_keyword_beside_its_new_spelling_is_refused():
    with pytest.raises(TypeError, match=r"give tar= alone"):
        lc.cllr(TAR, NON, tar_llr=TAR)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 6 were given"):
        lc.min_dcf(TAR, NON, 0.1, 1, 1, 1)


def test_the_test_run_refuses_an_old_spelling():
    # pyproject.toml's filterwarnings: an old spelling in llrcore's own code or tests fails the run
    with pytest.raises(OldSpellingWarning, match=r"cllr\(tar="):
        lc.cllr(tar_llr=TAR, non_llr=NON)


def test_the_new_signatures_take_the_prior_by_keyword_only():
    import inspect
    for function in (lc.min_dcf, lc.act_dcf, lc.cprimary, lc.evaluate, lc.bayes_decisions, lc.decision_histograms,
                     lc.det_curves, lc.bayes_error_curves, lc.eer_conventions, lc.cavg, lc.cavg_table,
                     lc.plots.det_figure, lc.plots.decision_figure, lc.build_report):
        assert inspect.signature(function).parameters["p_target"].kind is inspect.Parameter.KEYWORD_ONLY, function
    for function in (lc.bayes_error_rates, lc.ece):
        assert inspect.signature(function).parameters["plo"].kind is inspect.Parameter.KEYWORD_ONLY, function
    assert list(inspect.signature(lc.t_eer).parameters)[:5] == list(inspect.signature(lc.tdcf).parameters)[:5] == [
        "cm_bonafide", "cm_spoof", "asv_tar", "asv_non", "asv_spoof"]
    assert list(inspect.signature(lc.a_dcf).parameters)[:3] == ["tar", "non", "spoof"]


# ----- the prior second after a Trials (BOSARIS's min_dcf(trials, 0.01), issue 28), now through the deprecation path
def old(function, *args, **kwargs):
    """`function` called the old way, which must warn that the prior goes by keyword."""
    with pytest.warns(FutureWarning, match="by keyword only"):
        return function(*args, **kwargs)


@pytest.mark.parametrize("first", ["trials", "sorted"])
def test_a_number_second_after_trials_is_the_prior(first):
    trials = lc.Trials(TAR, NON)
    data = trials if first == "trials" else trials.sorted
    assert old(lc.min_dcf, data, 0.25) == pytest.approx(exact_dcf(0.25), rel=1e-15)
    assert old(lc.min_dcf, data, 0.25, 10) == pytest.approx(exact_dcf(0.25, 10), rel=1e-15)  # c_miss third
    assert old(lc.min_dcf, data, 0.25, 10, 2) == pytest.approx(exact_dcf(0.25, 10, 2), rel=1e-15)
    assert old(lc.min_dcf, data, 0.25, c_fa=3) == pytest.approx(exact_dcf(0.25, 1, 3), rel=1e-15)
    assert old(lc.min_dcf, data, 0.25, 10, c_fa=3) == lc.min_dcf(data, p_target=0.25, c_miss=10, c_fa=3)
    assert old(lc.act_dcf, data, 0.25, 10) == pytest.approx(exact_dcf(0.25, 10, actual=True), rel=1e-15)
    assert old(lc.act_dcf, data, np.float64(0.4)) == pytest.approx(exact_dcf(0.4, actual=True), rel=1e-15)
    np.testing.assert_allclose(old(lc.min_dcf, data, [0.25, 0.6]), [exact_dcf(0.25), exact_dcf(0.6)], rtol=1e-15)
    np.testing.assert_array_equal(old(lc.act_dcf, data, (0.25, 0.6), 10),
                                  lc.act_dcf(data, p_target=(0.25, 0.6), c_miss=10))
    op = lc.OperatingPoint(0.25, 10)
    assert old(lc.min_dcf, data, op) == lc.min_dcf(data, p_target=op) == pytest.approx(exact_dcf(0.25, 10), rel=1e-15)
    assert old(lc.cprimary, data, (0.25, 0.4)) == pytest.approx((exact_dcf(0.25, actual=True)
                                                                  + exact_dcf(0.4, actual=True)) / 2, rel=1e-15)
    assert old(lc.cprimary, data, "SRE21") == lc.cprimary(data, p_target=(0.01, 0.05))
    assert old(lc.cprimary, data, 0.25, minimum=True) == pytest.approx(exact_dcf(0.25), rel=1e-15)
    plo = math.log(0.25 / 0.75)
    assert old(lc.bayes_error_rates, data, plo).actual[0] == pytest.approx(0.25 * exact_dcf(0.25, actual=True),
                                                                           rel=1e-15)
    assert old(lc.bayes_error_rates, data, plo, c_miss=10).actual[0] == lc.bayes_error_rates(data, plo=plo,
                                                                                           c_miss=10).actual[0]
    assert old(lc.ece, data, [0.0, plo]).tolist() == lc.ece(data, plo=[0.0, plo]).tolist()


def test_evaluate_takes_the_prior_second():
    trials = lc.Trials(TAR, NON, metadata=pd.DataFrame({"g": list("ffmm") + list("fmfmf")}))
    metrics = old(lc.evaluate, trials, 0.25)
    assert metrics.p_target == 0.25
    assert metrics.min_dcf == pytest.approx(exact_dcf(0.25), rel=1e-15)
    assert metrics.act_dcf == pytest.approx(exact_dcf(0.25, actual=True), rel=1e-15)
    assert old(lc.evaluate, trials, 0.25, c_miss=10).min_dcf == pytest.approx(exact_dcf(0.25, 10), rel=1e-15)
    assert old(lc.evaluate, trials, lc.OperatingPoint(0.25, 10)).min_dcf == pytest.approx(exact_dcf(0.25, 10),
                                                                                          rel=1e-15)
    assert old(lc.binary.metrics.evaluate, trials, 0.25).act_dcf == pytest.approx(exact_dcf(0.25, actual=True),
                                                                                  rel=1e-15)
    with pytest.warns(FutureWarning, match="evaluate_by_condition"):  # by= itself is deprecated too
        by = old(lc.evaluate, trials, 0.25, by="g")
    assert by.pooled.metrics.p_target == 0.25
    assert by.pooled.metrics.min_dcf == pytest.approx(exact_dcf(0.25), rel=1e-15)
    with pytest.raises(TypeError, match="twice"):
        lc.evaluate(trials, 0.25, p_target=0.1)


@pytest.mark.parametrize("function", [lc.min_dcf, lc.act_dcf, lc.cprimary, lc.bayes_error_rates, lc.evaluate,
                                      lc.binary.metrics.evaluate, lc.ece])
def test_scores_or_trials_second_after_trials_are_still_refused(function):
    trials = lc.Trials(TAR, NON)
    for second in (trials, np.array([-1.0, 0.5, 2.5]), [0.2, 1.5], trials.sorted):
        if function is lc.ece and not isinstance(second, (lc.Trials, lc.binary.rates.ScoreCounts)):
            continue  # ece always took an array second after a Trials as its prior log-odds
        with pytest.raises(TypeError, match="holds both classes"):
            function(trials, second)
    assert function(trials.tar, trials.non) is not None  # two arrays as ever


def test_an_array_of_log_odds_second_is_refused_as_ambiguous():
    trials = lc.Trials(TAR, NON)
    with pytest.raises(TypeError, match="plo="):
        lc.bayes_error_rates(trials, [0.0, 1.0])
    assert lc.bayes_error_rates(trials, plo=[0.0, 1.0]).actual.size == 2
