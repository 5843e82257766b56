"""The Diarization page's "Score an RTTM" tab in headless Chromium: ES2005a's VBx output scored against its reference
on the first visit, then an uploaded system RTTM and reference with the conventions switched on screen.

Independent references: VBx's published DER on ES2005a (7.06 %, dscore --collar 0.25 --ignore_overlaps, VBx README)
and, for the uploaded pair, a DER computed by hand (2 s of 20 confused, no collar; with pyannote.metrics' collar of
0.5 s total width: 1.75 s of 19). Screenshot ``tests/e2e/screenshots/diarization_scoring.png`` (1600 px wide).
"""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from test_browser import no_exception, open_page, snap, wait_idle
from test_conditions_page import go

pytestmark = pytest.mark.e2e

REF = "SPEAKER a 1 0.000 10.000 <NA> <NA> A <NA> <NA>\nSPEAKER a 1 10.000 10.000 <NA> <NA> B <NA> <NA>\n"
SYS = "SPEAKER a 1 0.000 12.000 <NA> <NA> s1 <NA> <NA>\nSPEAKER a 1 12.000 8.000 <NA> <NA> s2 <NA> <NA>\n"


def der_metric(page: Page):
    return page.get_by_test_id("stMetric").filter(has_text="DER")


def test_score_an_rttm_then_a_bad_one(page: Page, app_url, screenshots, tmp_path):
    open_page(page, app_url)
    go(page, "Diarization")
    page.get_by_role("tab", name="Score an RTTM", exact=True).click()
    wait_idle(page)
    expect(der_metric(page)).to_contain_text("7.06 %")
    expect(page.get_by_text("0.25 s on each side of every reference boundary")).to_be_visible()
    no_exception(page)

    (tmp_path / "ref.rttm").write_text(REF)
    (tmp_path / "sys.rttm").write_text(SYS)
    page.locator(".st-key-diar_score_reference input[type=file]").set_input_files(tmp_path / "ref.rttm")
    wait_idle(page)
    page.locator(".st-key-diar_score_system input[type=file]").set_input_files(tmp_path / "sys.rttm")
    wait_idle(page)
    expect(page.get_by_text("System: sys.rttm · reference: ref.rttm")).to_be_visible()
    collar = page.get_by_label("Collar (s)")
    collar.fill("0")
    collar.press("Enter")
    wait_idle(page)
    expect(der_metric(page)).to_contain_text("10.00 %")

    collar.fill("0.5")
    collar.press("Enter")
    wait_idle(page)
    page.get_by_text("pyannote.metrics (total width)").click()
    wait_idle(page)
    expect(der_metric(page)).to_contain_text(f"{100 * 1.75 / 19:.2f} %")
    expect(page.get_by_text("pyannote.metrics collar=0.5")).to_be_visible()
    no_exception(page)
    page.set_viewport_size({"width": 1600, "height": 1000})
    snap(page, screenshots / "diarization_scoring.png")

    # then a system file that is not an RTTM: one sentence naming it
    (tmp_path / "bad.rttm").write_text("hello world\n")
    page.locator(".st-key-diar_score_system input[type=file]").set_input_files(tmp_path / "bad.rttm")
    wait_idle(page)
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("bad.rttm")
    no_exception(page)
