"""The Calibrate and Compare-rules pages in headless Chromium: they open on the demo data, a control changes the
results, the calibrator (as JSON) and the calibrated scores download, intervals before and after calibration are shown,
and the figures draw.

Independent reference for the downloads: the library's fit of the demo files with the page's defaults,
``lc.calibrate_and_evaluate`` (ASVspoof 2019 LA ASV dev -> eval, logarithmic rule, prior weighting P = 0.01), whose
LLRs the downloaded calibrator (read back with ``lc.load_calibrator``) and the downloaded scores must give bit for bit;
the transform the page prints (``llr = a · score + b`` to 4 significant digits), which the file's coefficients must
round to. Screenshots go to ``tests/e2e/screenshots/``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from scipy.special import logit

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import type_number

pytestmark = pytest.mark.e2e

ASV = Path(__file__).resolve().parents[2] / "assets" / "asvspoof2019_la"


def download_file(page: Page, button: str, tmp_path: Path) -> tuple[Path, str]:
    """Click a download button; the saved file and the name the browser suggested."""
    with page.expect_download() as event:
        page.get_by_role("button", name=button).click()
    path = tmp_path / event.value.suggested_filename
    event.value.save_as(path)
    return path, event.value.suggested_filename


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

    # the calibrator it shows downloads as JSON and gives the page's LLRs, every digit
    dev, evaluation = (lc.read_trials(ASV / f"ASVspoof2019.LA.asv.{part}.gi.trl.scores.txt") for part in ("dev", "eval"))
    expected = lc.calibrate_and_evaluate(dev, evaluation, "affine", lc.BetaRule.logarithmic(), plo=logit(0.01))
    path, name = download_file(page, "Calibrator as JSON", tmp_path)
    assert name.endswith(".json")
    loaded = lc.load_calibrator(path)
    assert isinstance(loaded, lc.Affine)
    shown = f"llr = {loaded.scale:.4g} · score {'+' if loaded.offset >= 0 else '−'} {abs(loaded.offset):.4g}"
    expect(page.get_by_text(re.compile(re.escape(shown)))).to_be_visible()
    scores = np.concatenate([evaluation.tar, evaluation.non, evaluation.spoof])
    assert np.array_equal(loaded(scores), expected.calibrator(scores))
    calibrated = lc.read_trials(download_file(page, "Calibrated scores", tmp_path)[0])
    for kind in ("tar", "non", "spoof"):
        assert np.array_equal(loaded(getattr(evaluation, kind)), getattr(calibrated, kind))
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["rule"]["name"] == "logarithmic" and document["p_target"] == pytest.approx(0.01, rel=1e-12)

    # another rule: the transform and the numbers change
    page.get_by_role("combobox", name="Proper scoring rule (α, β)").click()
    page.keyboard.type("Brier")  # typed, as in the other walks: the page has scrolled down to the downloads
    page.get_by_role("option", name="Brier (2, 2)").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Brier \(α = 2, β = 2\) rule")).first).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"llr = 0\.3011 · score \+ 0\.7012"))).to_be_visible()
    wait_for_charts(page)
    no_error(page)

    path, name = download_file(page, "Calibrated scores", tmp_path)
    lines = path.read_text().splitlines()
    assert lines[0] == "score label" and len(lines) == 1 + 5370 + 33327 + 63882
    assert name.endswith(".txt")

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


def test_calibrate_shows_intervals_then_calibrates_fvc_by_cross_validation(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/calibrate")
    type_number(page, "Replicates", "20")  # the session's replicates (1,000 by default), typed beside the toggle
    page.get_by_text("Confidence intervals", exact=True).click()
    wait_idle(page, timeout=300_000)
    expect(page.get_by_text("Their 95 % BCa bootstrap confidence intervals [lower, upper] (minDCF: 95 % out-of-bag "
                            "bracket):")).to_be_visible()  # the minDCF rests on few errors: the out-of-bag bracket
    no_exception(page)
    snap(page, screenshots / "calibrate_intervals.png")

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

    page.get_by_role("tab", name="Threshold weighting").click()  # drawn in the browser, no run
    expect(page.get_by_role("tabpanel").locator("[data-testid=stPlotlyChart] .main-svg").first).to_be_visible()
    no_error(page)
    snap(page, screenshots / "compare_rules_weighting.png")

    page.get_by_role("button", name=re.compile("Calibrate with")).click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Calibrate")).to_be_visible(timeout=30_000)
    no_error(page)
