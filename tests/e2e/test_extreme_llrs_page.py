"""A score file with one LLR of +1e308 and one of -1e308 among ordinary ones (issue 28), uploaded on the Data page and
walked through every analysis page by the sidebar at 1600 px, as a person does: no page shows a traceback, every
number fits its box, and a calibration that collapsed is shown as failed, never as a calibration.

Independent references: the numbers each page must show are computed here with the library's public functions on
the same scores (``lc.eer``, ``lc.cllr``, ``lc.min_cllr``), written by the one formatting helper (``number``,
``percent``) whose exact strings tests/report/test_number_format.py pins down; the widths of the metric boxes and
tables are read from the browser's layout.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_for_stable_sizes, wait_idle, write_labelled
from test_conditions_page import go, type_number

import llrcore as lc
from llrcore.report import number, percent

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"

NAME = "extreme llrs"
PAGES = ("Evaluate", "Calibrate", "Fusion", "Bayes decisions", "Gaussian explorer", "Forensic validation", "Report",
         "Compare rules")


def scores() -> lc.Trials:
    rng = np.random.default_rng(7)
    tar, non = rng.normal(3.0, np.sqrt(6.0), 300), rng.normal(-3.0, np.sqrt(6.0), 3000)
    return lc.Trials(np.append(np.round(tar, 5), [1e308, -1e308]), np.round(non, 5), name=NAME)


@pytest.fixture
def extreme_file(tmp_path):
    return write_labelled(scores(), tmp_path / f"{NAME}.txt")


def choose(page: Page, box: str, option: str) -> None:
    """Choose `option` in the select box labelled `box` by typing it, as a person may."""
    combobox = page.get_by_test_id("stMain").get_by_role("combobox", name=box)
    expect(combobox).to_be_visible(timeout=120_000)
    if combobox.input_value() != option:
        combobox.click()
        page.keyboard.type(option)
        page.keyboard.press("Enter")
        wait_idle(page, timeout=180_000)
    expect(combobox).to_have_value(option)


def metric_value(page: Page, label: str):
    """The value of the first st.metric labelled exactly `label` in the main area."""
    return page.get_by_test_id("stMain").get_by_test_id("stMetric").filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True)).first.get_by_test_id("stMetricValue")


def values_fit_their_boxes(page: Page) -> None:
    """No metric value is wider than its box (a 306-digit Cllr ran across the page; Forensic's row overlapped)."""
    overflowing = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMetricValue]')]
        .filter(v => v.scrollWidth > v.clientWidth + 1 || v.getBoundingClientRect().right >
                     v.closest('[data-testid=stMetric]').getBoundingClientRect().right + 1)
        .map(v => v.innerText)""")
    assert overflowing == []


def tables_fit_the_page(page: Page) -> None:
    """No data table scrolls sideways (its grid's content is no wider than the table)."""
    wide = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stDataFrame]')]
        .map(t => [t.querySelector('.dvn-scroller'), t.getBoundingClientRect().width])
        .filter(([s, w]) => s && s.scrollWidth > s.clientWidth + 1).map(([s, w]) => [s.scrollWidth, w])""")
    assert wide == []


def test_extreme_llrs_on_every_page(page: Page, app_url, screenshots, extreme_file):
    trials = scores()
    eer, cllr = lc.eer(trials), lc.cllr(trials)
    assert number(cllr) == "2.39e+305"

    open_page(page, f"{app_url}/data")
    page.locator(".st-key-score_uploads input[type=file]").set_input_files(extreme_file)
    expect(page.get_by_text(f"Added {NAME} from {NAME}.txt")).to_be_visible(timeout=60_000)
    wait_idle(page)
    no_exception(page)

    for name in PAGES:
        go(page, name)
        expect(page.get_by_test_id("stMain").get_by_role("heading").first).to_be_visible(timeout=60_000)
        no_exception(page)
        check = CHECKS.get(name)
        if check is not None:
            check(page, trials, eer, cllr)
        wait_idle(page, timeout=180_000)
        no_exception(page)
        snap(page, screenshots / f"extreme_{name.lower().replace(' ', '_')}.png")
        values_fit_their_boxes(page)


def evaluate(page: Page, trials, eer, cllr) -> None:
    values = page.get_by_test_id("stMain").get_by_test_id("stMetricValue")  # the cards of the chosen systems
    for text in (f"{100 * eer:.2f} %", f"{number(cllr)} bits"):
        expect(values.filter(has_text=re.compile(f"^{re.escape(text)}$"))).to_have_count(1, timeout=60_000)
    # the metrics table writes it so too (at "%.4f" its 306 digits were cut to "2.38856794…")
    expect(page.get_by_test_id("stDataFrame").first).to_contain_text(number(cllr, 4))
    tables_fit_the_page(page)
    for tab in ("APE", "Normalised Bayes error", "Bayes error vs trapezium", "Score distributions", "DET"):
        page.get_by_role("tab", name=tab, exact=True).click()
        wait_idle(page, timeout=120_000)
        expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible(timeout=60_000)
        no_exception(page)


def calibrate(page: Page, trials, eer, cllr) -> None:
    choose(page, "Train on", NAME)
    expect(page.get_by_text("This calibration failed:")).to_be_visible(timeout=60_000)
    expect(page.get_by_text(re.compile("after calibration|after: ", re.I))).to_have_count(0)


def bayes_decisions(page: Page, trials, eer, cllr) -> None:
    choose(page, "System", NAME)
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible(timeout=60_000)


def gaussian_explorer(page: Page, trials, eer, cllr) -> None:
    choose(page, "System", NAME)
    expect(page.get_by_text(f"The CMLG calibration of {NAME} failed:")).to_be_visible(timeout=60_000)
    expect(metric_value(page, "EER of the data")).to_have_text(percent(eer))  # it said 50 %
    expect(metric_value(page, "minCllr (PAV)")).to_have_text(f"{lc.min_cllr(trials):.4f} bits")


def forensic(page: Page, trials, eer, cllr) -> None:
    choose(page, "LR method (a loaded system)", NAME)
    expect(page.get_by_text("The calibration failed:")).to_be_visible(timeout=120_000)
    expect(metric_value(page, "Cllr")).to_have_text(f"{number(cllr, 4)} bits")
    expect(metric_value(page, "EER")).to_have_text(percent(eer))
    expect(page.get_by_text("LRs after calibration", exact=True)).to_have_count(0)
    tables_fit_the_page(page)


def report(page: Page, trials, eer, cllr) -> None:
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text(NAME).first).to_be_visible(timeout=120_000)
    expect(main.get_by_text(re.compile("collapsed")).first).to_be_visible(timeout=120_000)


def compare_rules(page: Page, trials, eer, cllr) -> None:
    choose(page, "Train on", NAME)


CHECKS = {"Evaluate": evaluate, "Calibrate": calibrate, "Bayes decisions": bayes_decisions,
          "Gaussian explorer": gaussian_explorer, "Forensic validation": forensic, "Report": report,
          "Compare rules": compare_rules}


def test_metrics_tables_with_intervals_fit_the_page(page: Page, app_url, screenshots):
    """Three systems' metrics with 95 % intervals: no cell clipped, no sideways scrolling at 1600 px."""
    open_page(page, f"{app_url}/evaluate")
    page.get_by_role("combobox", name="Systems to show").click()  # the third system: the development set
    page.get_by_role("option", name="ASVspoof19 LA ASV (dev)", exact=True).click()
    wait_idle(page)
    page.keyboard.press("Escape")
    expect(page.get_by_text("2 evaluation and 1 development set chosen", exact=False)).to_be_visible(
        timeout=60_000)
    # few replicates: the table's widths do not depend on them (the default 1,000 cost the server 5-10 s a system)
    type_number(page, "Replicates", "20")
    page.get_by_text("Confidence intervals", exact=True).click()
    wait_idle(page, timeout=300_000)
    expect(page.get_by_text(re.compile(r"bootstrap confidence intervals \[lower, upper\]"))).to_be_visible(
        timeout=300_000)
    tables = page.get_by_test_id("stDataFrame")
    expect(tables.nth(1)).to_be_visible()
    no_exception(page)
    expect(tables.nth(1)).to_contain_text("[")
    tables_fit_the_page(page)
    snap(page, screenshots / "extreme_evaluate_intervals.png")


def test_forensic_table_writes_rates_and_counts_as_the_metrics_above(page: Page, app_url, screenshots):
    """The misleading-evidence table wrote 0.13 % and 112108 where the metrics above wrote 0.127 % and 112,108: its
    rates are now the cards' text (words.percent) and its counts have thousands separators."""
    fvc = np.load(ASSETS / "fvcaus_plda" / "fvcaus_plda.npz")
    misleading = int(np.sum(fvc["non"] > 0))  # different-source LRs above 1, as given, counted by hand
    rate = percent(misleading / fvc["non"].size)
    open_page(page, f"{app_url}/forensic")
    card = page.get_by_test_id("stMain").get_by_test_id("stMetricValue")
    expect(card.filter(has_text=re.compile(f"^{re.escape(rate)}$")).first).to_be_visible(timeout=120_000)
    table = page.get_by_test_id("stDataFrame").filter(has_text="misleading")
    expect(table).to_contain_text(rate)  # the rate as text, as the card writes it (the grid's cells were 0.0686)
    # Counts are drawn on the grid's canvas with thousands separators (112,108): its accessible text keeps the raw
    # numbers, so that is seen on the screenshot below, not read here.
    no_exception(page)
    table.scroll_into_view_if_needed()
    wait_for_stable_sizes(page)  # the grid drawn at its place (was a fixed 700 ms)
    table.screenshot(path=screenshots / "extreme_forensic_misleading_table.png")
