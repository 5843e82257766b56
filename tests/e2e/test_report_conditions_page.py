"""The Report page with conditions and confidence, walked in headless Chromium at 1600 px as a person does: the
countermeasure demo added on the Data page, the Report page reached through the sidebar, the systems broken down by
attack with confidence intervals, the HTML report downloaded and opened in the browser.

Independent references: the per-attack numbers in the downloaded report are recomputed from the demo file read with
pandas (bona fide trials against one attack's spoofs, as ASVspoof's per-attack tables are made); the interval in
words is that of ``llrcore.bootstrap`` with the page's settings (20 replicates, seed 0: the draws are seeded).
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Browser, Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_idle
from test_conditions_page import add_demo, go, type_number

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
CM_EVAL = ASSETS / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
CM_DEMO = "ASVspoof19 LA CM LFCC-GMM (eval)"
REPLICATES = 20


def test_report_broken_down_by_attack_with_intervals(page: Page, browser: Browser, app_url, screenshots, tmp_path):
    open_page(page, f"{app_url}/")
    go(page, "Data")
    add_demo(page, CM_DEMO)
    go(page, "Report")
    expect(page.get_by_role("heading", name="Report", exact=True)).to_be_visible()
    expect(page.get_by_text("Conditions and confidence")).to_be_visible()
    page.get_by_role("combobox", name="Break down by").click()
    page.get_by_role("option", name="attack", exact=True).click()
    wait_idle(page, timeout=300_000)  # the option chosen runs the page; closing the list does not
    page.keyboard.press("Escape")
    type_number(page, "Replicates", str(REPLICATES))
    page.get_by_text("Confidence intervals", exact=True).click()
    wait_idle(page, timeout=300_000)
    no_exception(page)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_text(re.compile(r"Broken down by attack into 13 conditions")).first).to_be_visible()
    expect(page.get_by_text(re.compile(r"very likely between .* \(95 % BCa bootstrap interval\)")).first
           ).to_be_visible()
    snap(page, screenshots / "report_conditions_page.png")

    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download the HTML report").click()
    saved = tmp_path / "report by attack.html"
    download.value.save_as(saved)
    text = saved.read_text(encoding="utf-8")

    raw = pd.read_csv(CM_EVAL, sep="\t")
    bona_fide = raw.loc[raw.key == "bonafide", "LFCC-GMM"].to_numpy()
    assert "<h2>Per attack</h2>" in text
    for attack in ("A10", "A17"):
        spoof = raw.loc[raw.attack == attack, "LFCC-GMM"].to_numpy()
        expected = lc.evaluate(bona_fide, spoof, p_target=0.01)
        row = re.search(rf"<tr><td>{attack}</td>(.*?)</tr>", text, re.S).group(1)
        assert f"<td>{100 * expected.eer:.2f}\n[" in row and f"<td>{expected.cllr:.4f}\n[" in row
    interval = lc.bootstrap(lc.read_trials(CM_EVAL)["LFCC-GMM"], n=REPLICATES, seed=0, p_target=0.01)
    low, high = interval.interval("eer")
    assert html.escape(f"very likely between {100 * low:.2f} % and {100 * high:.2f} %") in text
    assert "By the rule of 30, the error rates of attack=A07" in text

    report = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    report.goto(saved.as_uri())
    expect(report.locator("#figure-conditions .main-svg").first).to_be_visible(timeout=30_000)
    expect(report.locator("#figure-det .main-svg").first).to_be_visible(timeout=30_000)
    expect(report.locator("#figure-conditions .gtitle")).to_have_text("EER per attack")
    report.wait_for_timeout(700)
    report.screenshot(path=screenshots / "report_conditions_html.png", full_page=True)
    report.locator("#conditions").screenshot(path=screenshots / "report_conditions_html_section.png")
    report.context.close()
