"""The app-wide "LR values in" choice and log10 inputs, in headless Chromium at 1600 px, walked as a person does.

A person switches "LR values in" to log10 in the sidebar, goes to Evaluate, Calibrate and Forensic validation through
the sidebar, reads LLR axes titled in log10 and the operating point's threshold equal to the library's natural-log
threshold divided by ``np.log(10)`` (Evaluate's and Bayes decisions' sentences in one unit, with log10 prior odds
``log10(P / (1 - P))`` written out here: issue 28), switches pages and finds the choice kept. Then the Data page
reads lir's two cartridge-case files (same source, different source, one log10 LR per line) as log10 LRs, and
Evaluate's Cllr of that system equals ``lc.cllr`` of ``lc.read_class_files(..., scale="log10")`` — and of the files
read with numpy.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import download, go

import llrcore as lc

pytestmark = pytest.mark.e2e

CARTRIDGE = Path(__file__).resolve().parents[2] / "assets" / "lir_cartridge_case_llrs"
KM, KNM = CARTRIDGE / "LLR_KM.csv", CARTRIDGE / "LLR_KNM.csv"


def choose_units(page: Page, option: str) -> None:
    page.get_by_test_id("stSidebar").get_by_test_id("stButtonGroup").get_by_text(option, exact=True).click()
    wait_idle(page)


def chosen_units(page: Page):
    """The sidebar's chosen option (the checked radio of the "LR values in" group)."""
    return page.get_by_test_id("stSidebar").get_by_role("radiogroup", name="LR values in").get_by_role(
        "radio", checked=True)


def axis_titles(page: Page) -> list[str]:
    return page.locator("[data-testid=stPlotlyChart] .xtitle, [data-testid=stPlotlyChart] .ytitle").evaluate_all(
        "titles => titles.map(title => title.textContent)")


def test_log10_in_the_sidebar_follows_the_person_then_two_files_of_log10_lrs_are_uploaded(page: Page, app_url,
                                                                                           screenshots):
    threshold = lc.OperatingPoint.sre12().threshold  # the default preset: P_target 0.01
    odds = np.log10(0.01 / 0.99)
    main = page.get_by_test_id("stMain")
    open_page(page, app_url)
    expect(chosen_units(page)).to_have_text("natural log (ln)")  # the default
    choose_units(page, "log10")
    expect(chosen_units(page)).to_have_text("log10")

    go(page, "Evaluate")  # the operating point's sentence in one unit (issue 28)
    expect(main.get_by_text(f"Effective prior log10-odds {odds:+.3f} (effective P_target 0.01): LLRs at or above "
                            f"{-odds:+.3f} (log10 LR) are accepted as targets.")).to_be_visible()
    expect(main.get_by_text("log-odds -4.595")).to_have_count(0)
    no_exception(page)
    snap(page, screenshots / "trust_evaluate_log10.png")

    go(page, "Calibrate")
    wait_for_charts(page)
    expect(page.get_by_text(f"LLRs at or above {threshold / np.log(10):+.3f} (log10 LR)")).to_be_visible()
    titles = axis_titles(page)
    assert "LLR of the system (log10 LR)" in titles and "PAV-optimal LLR (log10 LR)" in titles, titles
    no_exception(page)
    snap(page, screenshots / "units_calibrate_log10.png")

    go(page, "Forensic validation")
    wait_for_charts(page, 2)
    expect(page.get_by_text("LR values in log10")).to_be_visible()
    titles = axis_titles(page)
    assert "log10 LR" in titles and any(t.startswith("Prior log10-odds") for t in titles), titles
    no_exception(page)
    snap(page, screenshots / "units_forensic_log10.png")

    go(page, "Data")
    expect(page.get_by_role("heading", name="Loaded systems")).to_be_visible()
    go(page, "Bayes decisions")
    wait_for_charts(page, 2)
    expect(chosen_units(page)).to_have_text("log10")
    expect(main.get_by_text(f"Prior log10-odds log10(0.01 / 0.99) = {odds:+.2f}. Bayes decision: accept a trial "
                            f"when its log10 LR is at least {-odds:+.2f}.")).to_be_visible()
    expect(main.get_by_text(f"It accepts a trial when its log10 LR is at least {-odds:+.2f}.")).to_be_visible()
    assert any(t.startswith("log10 LR") for t in axis_titles(page)), axis_titles(page)
    snap(page, screenshots / "units_bayes_log10.png")
    go(page, "Calibrate")
    wait_for_charts(page)
    expect(chosen_units(page)).to_have_text("log10")  # still log10 after three sidebar switches
    expect(page.get_by_text(f"LLRs at or above {threshold / np.log(10):+.3f} (log10 LR)")).to_be_visible()

    choose_units(page, "natural log (ln)")
    wait_for_charts(page)
    expect(page.get_by_text(f"LLRs at or above {threshold:+.3f} (ln LR)")).to_be_visible()
    assert "LLR of the system (ln LR)" in axis_titles(page)

    # then two files of log10 LRs uploaded on the Data page
    cases = lc.read_class_files(KM, KNM, scale="log10")
    expected = lc.cllr(cases)
    assert expected == lc.cllr(lc.Trials(lc.from_log10(np.loadtxt(KM)), lc.from_log10(np.loadtxt(KNM))))
    go(page, "Data")
    page.get_by_text("Same-source and different-source LRs in two files").click()
    page.get_by_text("The values are log10 LRs").click()
    box = page.get_by_role("checkbox", name="The values are log10 LRs")
    expect(box).to_be_checked()
    wait_idle(page)
    expect(box).to_be_checked()
    page.locator(".st-key-same_source_upload input[type=file]").set_input_files(KM)
    wait_idle(page)
    expect(box).to_be_checked()
    page.locator(".st-key-different_source_upload input[type=file]").set_input_files(KNM)
    expect(page.get_by_text("Added LLR_KM from LLR_KM.csv and LLR_KNM.csv as evaluation.")).to_be_visible(
        timeout=30_000)
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"LLR_KNM\.csv \(different source\) \(read as log10 LRs\)"))).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "units_data_class_files.png")

    go(page, "Evaluate")
    wait_for_charts(page)
    expect(main.get_by_text(f"Effective prior log-odds {np.log(0.01 / 0.99):+.3f} (effective P_target 0.01): LLRs "
                            f"at or above {-np.log(0.01 / 0.99):+.3f} (ln LR)")).to_be_visible()
    expect(page.get_by_text("LLR_KM", exact=True).first).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text=f"{expected:.3f} bits").first).to_be_visible()
    snap(page, screenshots / "units_evaluate_class_files.png")
    table = download(page, page.get_by_role("button", name="Metrics as CSV"))
    row = table.loc[table["system"] == "LLR_KM"]
    assert row["Cllr"].iloc[0] == pytest.approx(expected, rel=1e-12)
