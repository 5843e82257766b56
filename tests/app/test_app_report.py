"""The Report page under AppTest: it opens on the demo data, its numbers are the library's, its controls work."""
from __future__ import annotations


import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import llrcore as lc
from app_pages._registry import LoadedSystem
from llrcore.report import format_errors
from paths import ROOT

PAGE = "app_pages/report.py"
EVAL_NAMES = ["ASVspoof19 LA ASV (eval)", "FVC-AUS DCA-PLDA"]


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def metric_values(at: AppTest) -> dict:
    """label -> values, in page order (one card per system)."""
    values = {}
    for metric in at.metric:
        values.setdefault(metric.label, []).append(metric.value)
    return values


def errors_per_100(trials, p_target):
    """100 x the Bayes error rate of the scores taken as LLRs, counted directly."""
    plo = np.log(p_target / (1 - p_target))
    return 100 * (p_target * np.mean(trials.tar < -plo) + (1 - p_target) * np.mean(trials.non >= -plo))


def test_opens_on_the_evaluation_sets_with_the_library_numbers(at):
    assert at.title[0].value == "Report"
    assert not at.error
    assert at.multiselect(key="report_systems").value == EVAL_NAMES
    systems = at.session_state["systems"]
    expected = [format_errors(errors_per_100(systems[name].trials, 0.01)) for name in EVAL_NAMES]
    assert metric_values(at)["Errors per 100"] == expected
    assert metric_values(at)["No system"] == ["1", "1"]
    text = " ".join(m.value for m in at.markdown)
    assert "out of 100 instead of" in text and "cross" in text  # what calibration changes, cross-validated
    assert any(b.proto.label == "Download the HTML report" for b in at.get("download_button"))


def test_p_target_changes_the_numbers(at):
    at.radio(key="report_calibration").set_value("No calibration").run()  # (calibration is tested below)
    at.number_input(key="op_p_target").set_value(0.2).run()
    assert not at.exception and not at.error
    trials = at.session_state["systems"][EVAL_NAMES[1]].trials
    assert metric_values(at)["Errors per 100"][1] == format_errors(errors_per_100(trials, 0.2))
    assert metric_values(at)["No system"] == ["20", "20"]


def test_operating_point_comes_from_the_evaluate_page():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.run()
    app.switch_page("app_pages/evaluate.py").run()
    app.number_input(key="op_p_target").set_value(0.05).run()
    app.session_state["report_calibration"] = "No calibration"
    # By way of Home: AppTest's direct switch between two pages that share a widget runs the new page once with
    # the widget's default (a browser keeps the value; tests/e2e/test_browser.py checks it there).
    app.switch_page("app_pages/home.py").run()
    app.switch_page(PAGE).run()
    assert app.number_input(key="op_p_target").value == 0.05
    assert metric_values(app)["No system"] == ["5", "5"]


def test_calibration_on_a_development_set(at):
    at.radio(key="report_calibration").set_value("Train on a development set").run()
    assert not at.exception and not at.error
    assert at.selectbox(key="report_dev").value == "ASVspoof19 LA ASV (dev)"
    text = " ".join(m.value for m in at.markdown)
    assert "trained on ASVspoof19 LA ASV \\(dev\\)" in text
    at.radio(key="report_calibration").set_value("No calibration").run()
    assert "out of 100 instead of" not in " ".join(m.value for m in at.markdown)


def test_no_system_chosen_asks_for_one(at):
    at.multiselect(key="report_systems").set_value([]).run()
    assert not at.exception
    assert any("Choose at least one system" in i.value for i in at.info)


def test_figures_without_a_browser_say_why(at, monkeypatch):
    monkeypatch.setattr(lc, "export_problem", lambda: "Static export needs a Chromium-family browser.")
    at.run()
    assert not at.exception
    assert any("Static export needs a Chromium-family browser" in i.value for i in at.info)


def test_a_hostile_system_name_is_escaped_in_the_summary(at):
    rng = np.random.default_rng(0)
    trials = lc.Trials(rng.normal(2, 2, 200), rng.normal(-2, 2, 2000))
    records = at.session_state["systems"]
    records["<b>x</b> **y**"] = LoadedSystem(trials, "upload", id="hostile")
    at.multiselect(key="report_systems").set_value(["<b>x</b> **y**"]).run()
    assert not at.exception
    tested = next(m.value for m in at.markdown if "was tested on" in m.value)
    assert tested.startswith("**\\<b\\>x\\<\\/b\\> \\*\\*y\\*\\***")
