"""The Calibrate and Compare-rules pages under AppTest: they render on the demo data, their numbers are the library's,
their controls change them, a calibrated system can be added and compared, and FVC goes through cross-validation.

Expected numbers are computed here with the library functions the pages promise to show (and the library is tested
against independent references in test_calibration_analysis.py); figures are tested as functions elsewhere.
"""
from __future__ import annotations


import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import llrcore as lc
from paths import ROOT

APP = str(ROOT / "app.py")
CALIBRATE = "app_pages/calibrate.py"
COMPARE = "app_pages/compare_rules.py"
ASV_DEV, ASV_EVAL, FVC = "ASVspoof19 LA ASV (dev)", "ASVspoof19 LA ASV (eval)", "FVC-AUS DCA-PLDA"
LOGIT_001 = float(np.log(0.01 / 0.99))


def problems(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120)
    app.run()
    return app


def calibrate_page(at: AppTest) -> AppTest:
    at.switch_page(CALIBRATE).run()
    assert not problems(at)
    return at


def trials(at: AppTest, name: str) -> lc.Trials:
    return at.session_state["systems"][name].trials


def before_after(at: AppTest):
    table = at.dataframe[0].value
    return table.iloc[0], table.iloc[1]


# ----- Calibrate --------------------------------------------------------------------------------------------------


def test_calibrate_opens_on_asvspoof_dev_to_eval_with_the_librarys_numbers(at):
    calibrate_page(at)
    assert at.title[0].value == "Calibrate"
    assert at.selectbox(key="cal_train").value == ASV_DEV
    assert at.selectbox(key="cal_eval").value == ASV_EVAL
    expected = lc.calibrate_and_evaluate(trials(at, ASV_DEV), trials(at, ASV_EVAL), "affine",
                                         lc.BetaRule.logarithmic(), plo=LOGIT_001)
    before, after = before_after(at)
    assert before["system"] == f"before: {ASV_EVAL}"
    assert after["system"] == "after: calibrated (logarithmic, P=0.01)"
    for column, attribute in [("Cllr", "cllr"), ("actDCF", "act_dcf"), ("minDCF", "min_dcf"),
                              ("Cprimary", "cprimary"), ("minCllr", "min_cllr")]:
        assert after[column] == pytest.approx(getattr(expected.after, attribute), rel=1e-9), column
        assert before[column] == pytest.approx(getattr(expected.before, attribute), rel=1e-9), column
    assert after["EER %"] == before["EER %"]  # affine calibration keeps the ranking
    assert after["Cllr"] < before["Cllr"] - 0.15
    cards = {metric.label: metric for metric in at.metric}
    assert cards["EER"].delta == "unchanged"
    assert cards["Cllr"].value == f"{expected.after.cllr:.3f} bits"
    sentence = " ".join(m.value for m in at.markdown)
    assert f"llr = {expected.calibrator.scale:.4g} · score" in sentence


def test_changing_the_rule_and_the_prior_weighting_changes_the_numbers(at):
    calibrate_page(at)
    _, logarithmic = before_after(at)
    at.selectbox(key="cal_rule").set_value("Brier (2, 2)").run()
    assert not problems(at)
    _, brier = before_after(at)
    expected = lc.calibrate_and_evaluate(trials(at, ASV_DEV), trials(at, ASV_EVAL), "affine", lc.BetaRule.brier(),
                                         plo=LOGIT_001)
    assert brier["actDCF"] == pytest.approx(expected.after.act_dcf) and brier["actDCF"] != logarithmic["actDCF"]
    at.number_input(key="cal_weight_p").set_value(0.2).run()
    _, weighted = before_after(at)
    assert weighted["system"] == "after: calibrated (Brier, P=0.2)"
    assert weighted["Cllr"] != brier["Cllr"]
    # the same weighting as log-odds: the value follows, the numbers stay
    at.segmented_control(key="cal_weight_as").set_value("log-odds").run()
    assert at.number_input(key="cal_weight_plo").value == pytest.approx(np.log(0.2 / 0.8))
    assert before_after(at)[1]["Cllr"] == pytest.approx(weighted["Cllr"])
    at.number_input(key="cal_weight_plo").set_value(-6.0).run()
    expected = lc.calibrate_and_evaluate(trials(at, ASV_DEV), trials(at, ASV_EVAL), "affine", lc.BetaRule.brier(),
                                         plo=-6.0)
    assert before_after(at)[1]["Cllr"] == pytest.approx(expected.after.cllr)


def test_custom_rule_cmlg_and_pav(at):
    calibrate_page(at)
    at.selectbox(key="cal_rule").set_value("Custom (α, β)").run()
    at.number_input(key="cal_alpha").set_value(3.0).run()
    assert not problems(at)
    assert before_after(at)[1]["system"] == "after: calibrated (Beta(3, 1), P=0.01)"
    for label, expected_name in [("CMLG", "after: calibrated (CMLG)"), ("PAV", "after: calibrated (PAV)")]:
        at.segmented_control(key="cal_method").set_value(label).run()
        assert not problems(at), label
        assert before_after(at)[1]["system"] == expected_name
    cmlg = lc.calibrate_and_evaluate(trials(at, ASV_DEV), trials(at, ASV_EVAL), "pav")
    assert before_after(at)[1]["Cllr"] == pytest.approx(cmlg.after.cllr)


def test_every_figure_tab_draws(at):
    calibrate_page(at)
    for tab in ["Calibrated vs PAV", "Threshold weighting", "APE", "Normalised Bayes error",
                "Bayes error vs trapezium"]:
        at.session_state["cal_tab"] = tab
        at.run()
        assert not problems(at), tab
        assert len(at.get("plotly_chart")) == 1, tab


def test_fvc_is_calibrated_by_cross_validation(at):
    calibrate_page(at)
    at.number_input(key="cal_weight_p").set_value(0.5).run()
    at.selectbox(key="cal_train").set_value(FVC).run()
    assert at.selectbox(key="cal_eval").value == "Cross-validation within the training set"
    assert at.slider(key="cal_folds").value == 5
    assert not problems(at)
    before, after = before_after(at)
    assert before["Cllr"] == pytest.approx(0.1256, abs=5e-5)
    assert before["calibration loss %"] > 97
    assert after["Cllr"] < 0.005 and after["calibration loss %"] < 40
    expected = lc.calibrate_and_evaluate(trials(at, FVC), None, "affine", lc.BetaRule.logarithmic(), plo=0.0, folds=5)
    assert after["Cllr"] == pytest.approx(expected.after.cllr, rel=1e-12)
    assert after["system"] == "after: calibrated (logarithmic, P=0.5, 5-fold CV)"
    at.slider(key="cal_folds").set_value(3).run()
    assert before_after(at)[1]["system"].endswith("3-fold CV)")
    # back to a development set: its evaluation partner is chosen again
    at.selectbox(key="cal_train").set_value(ASV_DEV).run()
    assert at.selectbox(key="cal_eval").value == ASV_EVAL


def test_adding_the_calibrated_system_puts_it_next_to_the_raw_one_on_evaluate(at):
    calibrate_page(at)
    at.selectbox(key="cal_rule").set_value("Brier (2, 2)").run()
    at.button(key="cal_add").click().run()
    assert not problems(at)
    name = f"{ASV_EVAL} · calibrated (Brier, P=0.01)"
    systems = at.session_state["systems"]
    assert list(systems)[-1] == name and systems[name].role == "evaluation"
    assert any(s.value.startswith("Added ") and "calibrated \\(Brier" in s.value for s in at.success)  # escaped
    assert at.button(key="cal_add").disabled  # the same calibration is not added twice
    at.switch_page("app_pages/evaluate.py").run()
    assert not problems(at)
    assert at.multiselect(key="eval_systems").value == [ASV_EVAL, name]
    table = at.dataframe[0].value.set_index("system")
    expected = lc.calibrate_and_evaluate(trials(at, ASV_DEV), trials(at, ASV_EVAL), "affine", lc.BetaRule.brier(),
                                         plo=LOGIT_001)
    assert table.loc[name, "Cllr"] == pytest.approx(expected.after.cllr)
    assert table.loc[name, "EER %"] == pytest.approx(table.loc[ASV_EVAL, "EER %"])
    at.switch_page("app_pages/home.py").run()
    assert name in list(at.dataframe[0].value["system"])


def test_operating_point_is_shared_with_evaluate(at):
    calibrate_page(at)
    at.number_input(key="op_p_target").set_value(0.2).run()
    assert before_after(at)[1]["actDCF"] == pytest.approx(
        lc.calibrate_and_evaluate(trials(at, ASV_DEV), trials(at, ASV_EVAL), "affine", lc.BetaRule.logarithmic(),
                                  plo=LOGIT_001, p_target=0.2).after.act_dcf)
    at.switch_page("app_pages/evaluate.py").run()
    assert not problems(at)
    assert at.number_input(key="op_p_target").value == 0.2
    assert at.selectbox(key="op_preset").value == "Custom"


def test_calibrated_scores_file_reads_back(monkeypatch):
    """The download's bytes, built by the page's helper, are a two-column file of the calibrated LLRs."""
    import io

    monkeypatch.syspath_prepend(str(ROOT))
    from app_pages.calibrate import calibrated_file  # importing the page does not draw it

    trials = lc.Trials([1.5, 2.25], [-0.5, 0.125, -3.0], name="x")
    back = lc.read_trials(io.BytesIO(calibrated_file(trials)))
    np.testing.assert_array_equal(back.tar, trials.tar)
    np.testing.assert_array_equal(back.non, trials.non)


def test_bad_training_data_gives_a_sentence_not_a_traceback(at):
    at.switch_page("app_pages/data.py").run()
    separable = b"3.0 target\n4.0 target\n5.0 target\n-1.0 nontarget\n0.0 nontarget\n1.0 nontarget\n"
    at.file_uploader(key="score_uploads").set_value(("separable.txt", separable, "text/plain")).run()
    assert "separable" in at.session_state["systems"]
    calibrate_page(at)
    at.selectbox(key="cal_train").set_value("separable").run()
    assert not at.exception
    assert at.error and "do not overlap" in at.error[0].value
    assert not at.dataframe  # no stale results under the message


@pytest.mark.parametrize("train, names, partner", [
    ("myspk_dev", ["myspk_dev", "myspk_eval"], "myspk_eval"),  # "_" used to count as part of the word
    ("X (dev)", ["X (dev)", "X (eval)"], "X (eval)"),
    ("X (Dev)", ["X (Dev)", "X (Eval)"], "X (Eval)"),
    ("DEV.scores", ["DEV.scores", "EVAL.scores"], "EVAL.scores"),
    ("sys-development", ["sys-development", "sys-evaluation"], "sys-evaluation"),
    ("plda_train", ["plda_train", "plda_test"], "plda_test"),
    ("dev2", ["dev2", "eval2"], "eval2"),
    ("device_dev", ["device_dev", "device_eval", "evalice_eval"], "device_eval"),  # only the word "dev" swaps
    ("mydev", ["mydev", "myeval"], None),  # a letter touches it: not the word
    ("X (dev)", ["X (dev)"], None),
])
def test_evaluation_partner_by_name(train, names, partner):
    from app_pages._calibration_controls import evaluation_partner

    assert evaluation_partner(train, names) == partner


def test_underscored_dev_and_eval_uploads_are_paired(at):
    at.switch_page("app_pages/data.py").run()
    rng = np.random.default_rng(9)
    for name, role in (("myspk_dev", "development"), ("myspk_eval", "evaluation")):
        text = "".join(f"{rng.normal(2):.4f} target\n" for _ in range(50)) + "".join(
            f"{rng.normal(-2):.4f} nontarget\n" for _ in range(200))
        at.segmented_control(key="upload_role").set_value(role).run()
        at.file_uploader(key="score_uploads").set_value((f"{name}.txt", text.encode(), "text/plain")).run()
    calibrate_page(at)
    at.selectbox(key="cal_train").set_value("myspk_dev").run()
    assert at.selectbox(key="cal_eval").value == "myspk_eval"


def test_a_degenerate_fit_is_kept_and_said_in_words(at):
    calibrate_page(at)
    at.selectbox(key="cal_rule").set_value("Custom (α, β)").run()
    at.number_input(key="cal_alpha").set_value(3.0).run()
    at.number_input(key="cal_beta").set_value(0.5).run()
    assert not problems(at)
    expected = lc.calibrate_and_evaluate(trials(at, ASV_DEV), trials(at, ASV_EVAL), "affine", lc.BetaRule(3, 0.5),
                                         plo=LOGIT_001)
    assert expected.after.cllr > 100  # hundreds of bits: the user's report
    (warning,) = [w.value for w in at.warning if "degenerate" in w.value]
    assert "step function" in warning and f"{expected.after.cllr:.3g} bits" in warning
    assert "thin tail" in warning
    assert before_after(at)[1]["Cllr"] == pytest.approx(expected.after.cllr)  # the result is kept


def test_a_sound_fit_has_no_warning(at):
    calibrate_page(at)
    assert not [w.value for w in at.warning if "degenerate" in w.value]


# ----- Compare rules ---------------------------------------------------------------------------------------------


def test_compare_page_sweeps_four_rules_and_matches_the_library(at):
    at.switch_page(COMPARE).run()
    assert not problems(at)
    assert at.title[0].value == "Compare scoring rules"
    best_table = at.dataframe[0].value
    assert set(best_table["rule"]) == {"logarithmic", "Brier", "boosting", "asymmetric"}
    expected = lc.sweep_prior_weighting(trials(at, ASV_DEV), trials(at, ASV_EVAL))
    best = expected.best
    assert best_table.iloc[0]["rule"] == best["rule"]
    assert best_table.iloc[0]["Cprimary"] == pytest.approx(best["cost"], rel=1e-12)
    assert f"{best['cost']:.3f}" in at.success[0].value
    for row in best_table.itertuples():
        costs = expected.frame.loc[expected.frame["rule"] == row.rule, "cost"]
        assert row.Cprimary == pytest.approx(costs.min(), rel=1e-12)
    assert len(at.get("plotly_chart")) == 2


def test_compare_controls_change_the_sweep(at):
    at.switch_page(COMPARE).run()
    at.multiselect(key="cmp_rules").set_value(["logarithmic (1, 1)", "Brier (2, 2)"]).run()
    at.slider(key="cmp_points").set_value(5).run()
    assert not problems(at)
    assert set(at.dataframe[0].value["rule"]) == {"logarithmic", "Brier"}
    at.segmented_control(key="cmp_cost").set_value("My DCF").run()
    assert not problems(at)
    table = at.dataframe[0].value
    assert "actDCF (P=0.01)" in table.columns
    rules = [lc.BetaRule.logarithmic(), lc.BetaRule.brier()]
    expected = lc.sweep_prior_weighting(trials(at, ASV_DEV), trials(at, ASV_EVAL), rules, np.linspace(-8, 0, 5),
                                        p_target=0.01)
    assert table["actDCF (P=0.01)"].min() == pytest.approx(expected.frame["cost"].min(), rel=1e-12)


def test_calibrate_with_the_best_opens_calibrate_set_up(at):
    at.switch_page(COMPARE).run()
    expected = lc.sweep_prior_weighting(trials(at, ASV_DEV), trials(at, ASV_EVAL)).best
    at.button(key="cmp_use_best").click().run()
    assert not problems(at)
    assert at.title[0].value == "Calibrate"
    assert at.selectbox(key="cal_rule").value.startswith(expected["rule"])
    assert at.number_input(key="cal_weight_plo").value == pytest.approx(expected["plo"])
    _, after = before_after(at)
    assert after["Cprimary"] == pytest.approx(expected["cost"], rel=1e-9)


def test_cross_validated_sweep_on_fvc_waits_for_a_click(at):
    at.switch_page(COMPARE).run()
    at.selectbox(key="cal_train").set_value(FVC).run()
    assert at.selectbox(key="cal_eval").value == "Cross-validation within the training set"
    run = at.button(key="cmp_run")
    assert "340 calibrations" in run.label
    assert not at.get("plotly_chart")
    # a smaller one is still started by a click, and gives the library's numbers
    at.multiselect(key="cmp_rules").set_value(["logarithmic (1, 1)"]).run()
    at.slider(key="cmp_points").set_value(3).run()
    at.slider(key="cal_folds").set_value(3).run()
    assert "9 calibrations" in at.button(key="cmp_run").label
    at.button(key="cmp_run").click().run()
    assert not problems(at)
    table = at.dataframe[0].value
    expected = lc.sweep_prior_weighting(trials(at, FVC), None, [lc.BetaRule.logarithmic()], np.linspace(-8, 0, 3),
                                        folds=3)
    assert table.iloc[0]["Cprimary"] == pytest.approx(expected.frame["cost"].min(), rel=1e-12)
    assert table.iloc[0]["Cprimary"] < 0.1 < expected.raw_cost  # raw FVC Cprimary is 0.49
    # the sweep is kept: a rerun shows it without a click
    at.run()
    assert at.dataframe and "cmp_run" not in [b.key for b in at.button]
