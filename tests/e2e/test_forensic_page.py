"""The Forensic validation page in headless Chromium at 1600 px, walked as a person does: through the sidebar, the
cartridge-case demo loaded by its button, the app-wide units (the sidebar's "LR values in") switched to log10 and back
to natural log, the report downloaded.

Independent references: Cllr and devPAV of lir's cartridge-case LRs are computed here with the library on the files
read with numpy (0.6488 bits and 6.084 log10 units, lir's own numbers in the data's SOURCE.txt); in natural-log units
devPAV is ``ln 10`` times larger (both axes of its area scale by ``ln 10``, its length once). The report is read as
text.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import go

import llrcore as lc

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "lir_cartridge_case_llrs"


def metric(page: Page, label: str):
    """The first st.metric whose label is exactly `label`."""
    return page.get_by_test_id("stMetric").filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True)).first


def units(page: Page, option: str) -> None:
    """Choose the app-wide units in the sidebar ("log10" or "natural log (ln)")."""
    page.get_by_test_id("stSidebar").get_by_test_id("stButtonGroup").get_by_text(option, exact=True).click()
    wait_idle(page)


def test_cartridge_cases_units_and_report(page: Page, app_url, screenshots):
    trials = lc.Trials(lc.from_log10(np.loadtxt(ASSETS / "LLR_KM.csv")),
                       lc.from_log10(np.loadtxt(ASSETS / "LLR_KNM.csv")))
    cllr, devpav = lc.cllr(trials), lc.devpav(trials)
    assert round(cllr, 4) == 0.6488 and round(devpav, 3) == 6.084

    open_page(page, app_url)
    units(page, "log10")
    go(page, "Forensic validation")
    expect(page.get_by_role("heading", name="Forensic validation")).to_be_visible()
    wait_for_charts(page, 2)
    no_exception(page)
    snap(page, screenshots / "forensic_fvc.png")

    page.get_by_role("button", name="Cartridge cases (lir)").click()
    wait_idle(page, timeout=120_000)
    expect(page.get_by_role("combobox", name="LR method (a loaded system)")).to_have_value("Cartridge cases (lir)")
    wait_for_charts(page, 2)
    expect(metric(page, "Cllr")).to_contain_text(f"{cllr:.4f} bits")
    expect(metric(page, "devPAV (log10)")).to_contain_text(f"{devpav:.4g}")
    expect(page.get_by_test_id("stTable").first).to_contain_text("does not pass")
    no_exception(page)
    snap(page, screenshots / "forensic_cartridge.png")

    units(page, "natural log (ln)")
    expect(metric(page, "devPAV (natural log)")).to_contain_text(f"{devpav * lc.forensic.LN10:.4g}")
    expect(metric(page, "Cllr")).to_contain_text(f"{cllr:.4f} bits")  # bits do not depend on the LR units
    expect(page.get_by_test_id("stTable").first).to_contain_text(f"{lc.from_log10(devpav):.3g} (ln)")
    no_exception(page)
    snap(page, screenshots / "forensic_cartridge_ln.png")

    with page.expect_download(timeout=120_000) as event:
        page.get_by_role("button", name="Download validation report (HTML)").click()
    text = Path(event.value.path()).read_text(encoding="utf-8")
    assert event.value.suggested_filename == "validation_report.html"
    assert text.startswith("<!DOCTYPE html>") and "Validation matrix" in text
    for cell in ("performance characteristic", "discriminating power", "Cllr_min", f"{cllr:.3f} bits",
                 "does not pass", "(ln)"):
        assert cell in text, cell
