"""The Calibrate and Compare-rules pages in headless Chromium: they open on the demo data, a control changes the
results, the calibrated scores download, and the figures draw. Screenshots go to ``tests/e2e/screenshots/``.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle

pytestmark = pytest.mark.e2e


def no_error(page: Page) -> None:
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_role("dialog")).to_have_count(0)
    no_exception(page)


def test_calibrate_page(page: Page, app_url, screenshots, tmp_path):
    open_page(page, f"{app_url}/calibrate")
    expect(page.get_by_role("heading", name="Calibrate")).to_be_visible()
    wait_for_charts(page)
    expect(page.get_by_text(re.compile(r"logarithmic \(α = 1, β = 1\) rule with prior weighting P = 0\.01"))
           ).to_be_visible()
    expect(page.get_by_text(re.compile(r"llr = 0\.3028 · score"))).to_be_visible()
    expect(page.get_by_text("0.099 bits")).to_be_visible()  # Cllr after, from 0.288
    no_error(page)
    snap(page, screenshots / "calibrate.png")

    # another rule: the transform and the numbers change
    page.get_by_role("combobox", name="Proper scoring rule (α, β)").click()
    page.get_by_role("option", name="Brier (2, 2)").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Brier \(α = 2, β = 2\) rule")).first).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"llr = 0\.3011 · score \+ 0\.7012"))).to_be_visible()
    wait_for_charts(page)
    no_error(page)

    with page.expect_download() as download:
        page.get_by_role("button", name="Calibrated scores").click()
    path = tmp_path / "calibrated.txt"
    download.value.save_as(path)
    lines = path.read_text().splitlines()
    assert lines[0] == "score label" and len(lines) == 1 + 5370 + 33327 + 63882
    assert download.value.suggested_filename.endswith(".txt")

    for tab, name in [("Threshold weighting", "calibrate_weighting"), ("APE", "calibrate_ape"),
                      ("Normalised Bayes error", "calibrate_nbe")]:
        page.get_by_role("tab", name=tab, exact=True).click()
        wait_idle(page)
        wait_for_charts(page)
        no_error(page)
        snap(page, screenshots / f"{name}.png")

    page.get_by_role("button", name="Add to loaded systems").click()
    wait_idle(page)
    expect(page.get_by_text("4 systems loaded")).to_be_visible(timeout=30_000)
    page.get_by_role("link", name=re.compile("Compare on Evaluate")).click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Evaluate")).to_be_visible()
    wait_for_charts(page)
    expect(page.get_by_text("ASVspoof19 LA ASV (eval) · calibrated (Brier, P=0.01)").first).to_be_visible()
    no_error(page)
    snap(page, screenshots / "calibrate_then_evaluate.png")


def test_calibrate_fvc_by_cross_validation(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/calibrate")
    page.get_by_role("combobox", name="Train on").click()
    page.get_by_role("option", name="FVC-AUS DCA-PLDA").click()
    wait_idle(page)
    expect(page.get_by_role("combobox", name="Evaluate on")).to_have_value("Cross-validation within the training set")
    expect(page.get_by_text("The evaluation LLRs come from 5 calibrations", exact=False)).to_be_visible(timeout=30_000)
    wait_for_charts(page)
    no_error(page)
    snap(page, screenshots / "calibrate_fvc_cv.png")


def test_compare_rules_page(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/compare_rules")
    expect(page.get_by_role("heading", name="Compare scoring rules")).to_be_visible()
    wait_for_charts(page)
    expect(page.get_by_text(re.compile(r"Lowest Cprimary"))).to_be_visible()
    no_error(page)
    snap(page, screenshots / "compare_rules.png")

    page.get_by_role("radio", name="My DCF").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Lowest actDCF \(P=0\.01\)"))).to_be_visible(timeout=30_000)
    wait_for_charts(page)
    no_error(page)
    snap(page, screenshots / "compare_rules_dcf.png")

    page.get_by_role("tab", name="Threshold weighting").click()
    wait_idle(page)
    expect(page.get_by_role("tabpanel").locator("[data-testid=stPlotlyChart] .main-svg").first).to_be_visible()
    no_error(page)
    snap(page, screenshots / "compare_rules_weighting.png")

    page.get_by_role("button", name=re.compile("Calibrate with")).click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Calibrate")).to_be_visible(timeout=30_000)
    no_error(page)
