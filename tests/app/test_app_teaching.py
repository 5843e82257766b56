"""The teaching pages under AppTest: every slider changes the sentence and the figures; links set the sliders.

Figures are compared as the JSON specs the page sends (their contents are tested as plain functions in
test_plots_teaching.py); the numbers on the page are compared with the library's.
"""
from __future__ import annotations

import html
import json

import numpy as np
import pytest
from scipy import stats

from streamlit.testing.v1 import AppTest

import llrcore as lc
from llrcore.teaching.decisions import per_100
from paths import ROOT

APP = str(ROOT / "app.py")
BAYES = "app_pages/bayes_decisions.py"
GAUSS = "app_pages/gaussian_explorer.py"
FVC = "FVC-AUS DCA-PLDA"
ASV_EVAL = "ASVspoof19 LA ASV (eval)"


def problems(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def open_page(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page).run()
    assert not problems(at), problems(at)
    return at


def sentences(at: AppTest) -> list[str]:
    """The large-type sentences of the page (markdown paragraphs), unescaped."""
    return [html.unescape(m.value.split(">", 1)[1].rsplit("</p>", 1)[0]) for m in at.markdown
            if m.value.startswith("<p style")]


def charts(at: AppTest) -> dict[str, str]:
    """Chart key -> the plotly JSON the page sent."""
    return {c.proto.id.split("-", 2)[2]: c.proto.spec for c in at.get("plotly_chart")}


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


# ----- Bayes decisions ---------------------------------------------------------------------------------------------


def test_bayes_page_opens_on_the_miscalibrated_demo_with_the_library_numbers():
    at = open_page(BAYES)
    assert at.selectbox(key="bayes_system").value == FVC
    assert (at.select_slider(key="prior").value, at.select_slider(key="c_miss").value,
            at.select_slider(key="c_fa").value) == (0.01, 1.0, 1.0)
    fvc = at.session_state["systems"][FVC].trials
    rates = lc.bayes_error_rates(fvc, plo=[np.log(0.01 / 0.99)])
    shown = metrics(at)
    assert shown["This system"] == per_100(100 * rates.actual[0])
    assert shown["Perfectly calibrated"] == per_100(100 * rates.minimum[0])
    assert shown["Bound from the EER"] == per_100(100 * rates.trapezium[0])
    assert shown["Without the system"] == per_100(100 * rates.default[0]) == "1.0"
    assert sentences(at)[0] == lc.bayes_decisions(fvc, p_target=0.01).sentence()
    assert sentences(at)[0].startswith("Out of 100 trials at P(target) = 1 %, this system makes about 0.37 errors")
    assert set(charts(at)) == {"bayes_threshold", "bayes_per_100"}
    assert "+4.60" in " ".join(c.value for c in at.caption)  # the Bayes threshold logit(99)


def test_every_bayes_control_changes_the_sentence_and_the_figures():
    at = open_page(BAYES)
    for key, value, words in (("prior", 0.1, "P(target) = 10 %"), ("c_miss", 10.0, "a miss costing 10"),
                              ("c_fa", 5.0, "a false alarm 5")):
        before_text, before_charts = sentences(at)[0], charts(at)
        at.select_slider(key=key).set_value(value).run()
        assert not problems(at)
        after_text, after_charts = sentences(at)[0], charts(at)
        assert after_text != before_text and words in after_text, key
        for chart in ("bayes_threshold", "bayes_per_100"):
            assert after_charts[chart] != before_charts[chart], (key, chart)
    before_text, before_charts = sentences(at)[0], charts(at)
    at.selectbox(key="bayes_system").set_value(ASV_EVAL).run()
    trials = at.session_state["systems"][ASV_EVAL].trials
    assert sentences(at)[0] == lc.bayes_decisions(trials, p_target=0.1, c_miss=10.0, c_fa=5.0).sentence() != before_text
    assert charts(at)["bayes_threshold"] != before_charts["bayes_threshold"]


def test_a_link_sets_the_sliders_and_the_view():
    at = open_page(BAYES, prior="0.05", c_miss="10", bayes_view="Fixed false-alarm threshold", pfa="0.001")
    assert at.select_slider(key="prior").value == 0.05
    assert at.select_slider(key="c_miss").value == 10.0
    assert at.select_slider(key="pfa").value == 0.001
    texts = sentences(at)
    assert texts[0].startswith("Out of 100 trials at P(target) = 5 %, with a miss costing 10")
    assert texts[1].startswith("Fixing the false-alarm rate at 0.1 % on the development data")
    assert "bayes_fixed_threshold" in charts(at)


def test_a_bad_link_is_ignored():
    at = open_page(BAYES, prior="banana", c_fa="-3", bayes_system="no such system")
    assert at.select_slider(key="prior").value == 0.01
    assert at.select_slider(key="c_fa").value == 1.0
    assert at.selectbox(key="bayes_system").value == FVC


def test_over_all_priors_shows_the_system_and_its_calibrated_self():
    at = open_page(BAYES, bayes_view="Over all priors", bayes_system=ASV_EVAL)
    spec = charts(at)["bayes_trapezium"]
    assert f"{ASV_EVAL} (calibrated)" in spec and "trapezium" in spec
    at.toggle(key="bayes_add_calibrated").set_value(False).run()
    assert f"{ASV_EVAL} (calibrated)" not in charts(at)["bayes_trapezium"]
    before = charts(at)["bayes_trapezium"]
    at.select_slider(key="prior").set_value(0.2).run()
    assert charts(at)["bayes_trapezium"] != before  # the prior is marked


def test_fixed_threshold_view_follows_its_slider_and_the_prior():
    at = open_page(BAYES, bayes_view="Fixed false-alarm threshold")
    assert at.selectbox(key="dev_system").value == "ASVspoof19 LA ASV (dev)"
    assert at.selectbox(key="eval_system").value == ASV_EVAL
    before_text, before_chart = sentences(at)[1], charts(at)["bayes_fixed_threshold"]
    at.select_slider(key="pfa").set_value(0.05).run()
    assert sentences(at)[1] != before_text and "5 % on the development" in sentences(at)[1]
    assert charts(at)["bayes_fixed_threshold"] != before_chart
    before_text, before_chart = sentences(at)[1], charts(at)["bayes_fixed_threshold"]
    at.select_slider(key="prior").set_value(0.3).run()
    assert "At P(target) = 30 %" in sentences(at)[1] != before_text
    assert charts(at)["bayes_fixed_threshold"] != before_chart
    at.selectbox(key="eval_system").set_value("ASVspoof19 LA ASV (dev)").run()
    assert any("very data that set it" in w.value for w in at.warning)


def test_bayes_page_without_systems_points_to_the_data_page():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.session_state["systems"] = {}
    at.switch_page(BAYES).run()
    assert not problems(at)
    assert at.info and "Nothing is loaded" in at.info[0].value


# ----- Gaussian explorer -------------------------------------------------------------------------------------------


def test_gaussian_sliders_change_the_numbers_and_the_figures():
    at = open_page(GAUSS)
    shown = metrics(at)
    assert shown["EER"] == "10 %" and shown["d'"] == "2.56" and shown["μ (variance 2μ)"] == "3.28"
    assert shown["Cllr"] == "0.3456 bits"  # independent quadrature in test_gaussian
    # the LLR slider moves only the density figure's annotation
    before = charts(at)
    at.slider(key="llr").set_value(-1.5).run()
    after = charts(at)
    assert json.loads(after["gaussian_densities"])["layout"]["annotations"][0]["text"].endswith("e<sup>-1.50</sup>")
    assert after["gaussian_det"] == before["gaussian_det"] and after["gaussian_cllr"] == before["gaussian_cllr"]
    # the EER slider moves everything of the ideal, nothing of the fit
    before = after
    at.slider(key="eer").set_value(2.0).run()
    assert not problems(at)
    mu = 2 * stats.norm.ppf(0.02) ** 2
    shown = metrics(at)
    assert shown["μ (variance 2μ)"] == f"{mu:.3g}" and shown["d'"] == f"{np.sqrt(2 * mu):.3g}"
    assert shown["1 − (2·EER − 1)²"] == f"{1 - (2 * 0.02 - 1) ** 2:.4f} bits"
    after = charts(at)
    for chart in ("gaussian_densities", "gaussian_det", "gaussian_cllr"):
        assert after[chart] != before[chart], chart
    assert after["gaussian_fit_det"] == before["gaussian_fit_det"]
    # choosing by d', then by mu, keeps the system; their sliders move it
    at.segmented_control(key="by").set_value("d'").run()
    assert not problems(at)
    assert at.slider(key="dprime").value == pytest.approx(4.11)  # sqrt(2 mu) = 4.107 on the 0.01 grid
    assert metrics(at)["EER"] == f"{100 * stats.norm.cdf(-4.11 / 2):.3g} %"
    before = charts(at)["gaussian_densities"]
    at.slider(key="dprime").set_value(5.0).run()
    assert metrics(at)["EER"] == f"{100 * stats.norm.cdf(-2.5):.3g} %" and charts(at)["gaussian_densities"] != before
    at.segmented_control(key="by").set_value("μ").run()
    assert at.slider(key="mu").value == pytest.approx(12.5)  # d'^2 / 2
    before = charts(at)["gaussian_densities"]
    at.slider(key="mu").set_value(2.0).run()
    assert metrics(at)["EER"] == f"{100 * stats.norm.cdf(-1.0):.3g} %" and charts(at)["gaussian_densities"] != before


def test_a_link_opens_the_explorer_at_a_given_mu():
    at = open_page(GAUSS, by="μ", mu="8")
    assert at.segmented_control(key="by").value == "μ"
    assert metrics(at)["EER"] == f"{100 * stats.norm.cdf(-2.0):.3g} %"  # Phi(-sqrt(8/2))


def test_fit_section_follows_the_system_and_alpha():
    at = open_page(GAUSS)
    assert at.selectbox(key="gauss_system").value == ASV_EVAL
    trials = at.session_state["systems"][ASV_EVAL].trials
    assert sentences(at)[0] == lc.gaussian_comparison(trials).sentence()
    before_text, before = sentences(at)[0], charts(at)
    at.slider(key="alpha").set_value(0.9).run()
    assert sentences(at)[0] != before_text
    assert charts(at)["gaussian_fit_densities"] != before["gaussian_fit_densities"]
    at.selectbox(key="gauss_system").set_value(FVC).run()
    assert sentences(at)[0].startswith(FVC)
    for chart in ("gaussian_fit_densities", "gaussian_fit_det", "gaussian_fit_cllr"):
        assert charts(at)[chart] != before[chart], chart
