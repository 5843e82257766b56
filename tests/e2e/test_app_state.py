"""State that must survive a person walking the app through the sidebar (issue 28, "State and consistency"):
Evaluate's "Break down by" and "Confidence intervals", a file uploaded after a visit to Evaluate, the operating point
on Bayes decisions (the time written in a downloaded HTML report: test_report_page.py). Screenshots at 1600 px in
``tests/e2e/screenshots/state_*.png``.

Independent references: the numbers each page must show are computed here from the demo files and the uploaded
file with numpy (Bayes error rates ``P Pmiss(-plo) + (1 - P) Pfa(-plo)`` counted by hand) or with the library's
public functions (``lc.eer``, ``lc.bootstrap`` with the page's settings, seeded); the report's time against the
clock of this test.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from llrcore.teaching.decisions import per_100
from test_browser import no_exception, open_page, score_file, snap, wait_for_charts, wait_idle  # noqa: F401
from test_conditions_page import download, go, type_number

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
ASV_EVAL = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
FVC = np.load(ASSETS / "fvcaus_plda" / "fvcaus_plda.npz")
WALK = ("Home", "Data", "Calibrate", "Report", "Evaluate")
# Replicates typed on Evaluate before the walk (the default 1,000 cost the server 5-10 s per system and attack): the
# walk's claim is that the settings survive, the number of replicates among them, whatever it is.
REPLICATES = 20


def bayes_error(tar: np.ndarray, non: np.ndarray, p: float) -> float:
    """P Pmiss + (1 - P) Pfa at the Bayes threshold -logit(P) (accept when llr >= threshold), counted by hand."""
    threshold = -np.log(p / (1 - p))
    return p * np.mean(tar < threshold) + (1 - p) * np.mean(non >= threshold)


def break_down_by(page: Page, column: str) -> None:
    page.get_by_role("combobox", name="Break down by").click()
    page.get_by_role("option", name=column, exact=True).click()
    wait_idle(page, timeout=180_000)  # the option chosen runs the page; closing the list does not
    page.keyboard.press("Escape")


def chosen_in(page: Page, key: str):
    """The chips of a multiselect (its chosen options, their names as text), by the widget's key."""
    return page.locator(f".st-key-{key} .react-aria-ComboBox [data-tag] [title]")


def test_evaluate_keeps_break_down_by_and_intervals_through_every_page(page: Page, app_url, screenshots):
    open_page(page, app_url)
    go(page, "Evaluate")
    break_down_by(page, "attack")
    type_number(page, "Replicates", str(REPLICATES))
    page.get_by_text("Confidence intervals", exact=True).click()
    wait_idle(page, timeout=300_000)
    expect(page.get_by_role("heading", name="Per attack")).to_be_visible()

    for name in WALK:  # Home, Data, Calibrate, Report and back to Evaluate, through the sidebar
        go(page, name)
        no_exception(page)
    expect(page.get_by_role("heading", name="Evaluate", exact=True)).to_be_visible()
    expect(chosen_in(page, "unc_by")).to_have_text(["attack"])
    expect(page.get_by_role("switch", name="Confidence intervals")).to_be_checked()
    expect(page.get_by_role("spinbutton", name="Replicates")).to_have_value(str(REPLICATES))
    expect(page.get_by_role("heading", name="Per attack")).to_be_visible(timeout=120_000)
    expect(page.get_by_text(re.compile(r"Shaded: the ROCCH.s 95 % bootstrap band"))).to_be_visible(timeout=120_000)
    table = download(page, page.get_by_role("button", name="Metrics as CSV")).set_index("system")
    row = table.loc["ASVspoof19 LA ASV (eval)"]
    expected = lc.bootstrap(lc.read_trials(ASV_EVAL), n=REPLICATES, level=0.95, seed=0, p_target=0.01)
    for column, metric, scale in (("EER %", "eer", 100), ("Cllr", "cllr", 1)):
        lower, upper = expected.interval(metric)
        assert row[f"{column} lower"] == pytest.approx(scale * lower, rel=1e-9)
        assert row[f"{column} upper"] == pytest.approx(scale * upper, rel=1e-9)
    no_exception(page)
    wait_for_charts(page)
    snap(page, screenshots / "state_evaluate_after_walk.png")


def test_a_file_uploaded_after_a_visit_to_evaluate_joins_the_systems_and_one_left_out_stays_out(
        page: Page, app_url, screenshots, score_file):
    open_page(page, app_url)
    go(page, "Evaluate")
    expect(page.get_by_text("2 evaluation and 0 development sets chosen, of 3 loaded.")).to_be_visible()
    go(page, "Report")
    expect(chosen_in(page, "report_systems")).to_have_count(2)
    go(page, "Evaluate")
    page.get_by_role("button", name="Remove FVC-AUS DCA-PLDA").click()
    wait_idle(page)
    expect(page.get_by_text("1 evaluation and 0 development sets chosen, of 3 loaded.")).to_be_visible()
    go(page, "Data")
    page.locator(".st-key-score_uploads input[type=file]").set_input_files(score_file)
    expect(page.get_by_text("Added browser upload from browser upload.txt")).to_be_visible(timeout=30_000)
    wait_idle(page)

    go(page, "Evaluate")  # the new file joins; the system left out before it came stays out
    expect(page.get_by_text("2 evaluation and 0 development sets chosen, of 4 loaded.")).to_be_visible()
    expect(chosen_in(page, "eval_systems")).to_have_text([re.compile("ASVspoof19 LA ASV"), "browser upload"])
    lines = np.loadtxt(score_file, dtype=str)
    scores, labels = lines[:, 0].astype(float), lines[:, 1]
    eer = lc.eer(scores[labels == "target"], scores[labels == "nontarget"])
    card = page.get_by_test_id("stVerticalBlock").filter(has=page.get_by_text("browser upload", exact=True)).filter(
        has=page.get_by_test_id("stMetric"))
    expect(card.last.get_by_test_id("stMetric").filter(has_text="EER")).to_contain_text(f"{100 * eer:.2f} %")
    no_exception(page)
    snap(page, screenshots / "state_evaluate_with_upload.png")
    go(page, "Report")
    expect(chosen_in(page, "report_systems").filter(has_text="browser upload")).to_have_count(1)
    expect(chosen_in(page, "report_systems")).to_have_count(3)
    no_exception(page)


def test_bayes_decisions_takes_the_operating_point_set_on_evaluate(page: Page, app_url, screenshots):
    open_page(page, app_url)
    go(page, "Evaluate")
    type_number(page, "P_target", "0.05")
    go(page, "Bayes decisions")
    wait_for_charts(page, 2)
    tar, non = FVC["tar"], FVC["non"]
    sentence = page.locator("p").filter(has_text=re.compile(r"^Out of 100 trials at P\(target\)"))
    expect(sentence).to_contain_text(f"P(target) = 5 %, this system makes about "
                                     f"{per_100(100 * bayes_error(tar, non, 0.05))} errors")
    expect(page).to_have_url(re.compile(r"prior=0\.05"))  # the address bar holds what is shown: a link shares it
    no_exception(page)
    snap(page, screenshots / "state_bayes_decisions_from_evaluate.png")

    thumb = page.get_by_role("slider", name="P(target): how often a trial is a target")
    thumb.focus()
    thumb.press("ArrowRight")  # 0.05 -> 0.1: moved here, the app's operating point moves too
    wait_idle(page)
    expect(sentence).to_contain_text(f"P(target) = 10 %, this system makes about "
                                     f"{per_100(100 * bayes_error(tar, non, 0.1))} errors")
    go(page, "Evaluate")
    expect(page.get_by_test_id("stMain").get_by_role("spinbutton", name="P_target")).to_have_value("0.1")
    expect(page.get_by_text(f"Effective prior log-odds {np.log(0.1 / 0.9):+.3f}")).to_be_visible()
    go(page, "Calibrate")
    expect(page.get_by_test_id("stMain").get_by_role("spinbutton", name="P_target")).to_have_value("0.1")
    type_number(page, "P_target", "0.2")  # and back to Bayes decisions, a second visit
    go(page, "Bayes decisions")
    expect(sentence).to_contain_text(f"P(target) = 20 %, this system makes about "
                                     f"{per_100(100 * bayes_error(tar, non, 0.2))} errors")
    expect(page).to_have_url(re.compile(r"prior=0\.2"))
    no_exception(page)


def test_a_link_with_a_prior_still_wins(page: Page, app_url):
    open_page(page, f"{app_url}/bayes_decisions?prior=0.2")
    wait_for_charts(page, 2)
    sentence = page.locator("p").filter(has_text=re.compile(r"^Out of 100 trials at P\(target\)"))
    expect(sentence).to_contain_text(f"P(target) = 20 %, this system makes about "
                                     f"{per_100(100 * bayes_error(FVC['tar'], FVC['non'], 0.2))} errors")
    no_exception(page)
