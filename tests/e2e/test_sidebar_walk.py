"""One operating point for the whole app, walked through the sidebar as a person does.

Every page that shows the operating point (Evaluate, Calibrate, Compare rules with "My DCF", Report) must show the
same P_target, C_miss and C_fa, and a number computed with them, whatever page it is reached from: first with the
defaults untouched (a page switch used to reset all three to 1e-6 while the preset box still said "NIST SRE'12"),
then with values typed on one page.

Independent references: the numbers each page must show are computed here with the library's public functions on
the demo files (``lc.act_dcf``, ``lc.bayes_error_rates``, ``lc.effective_plo``), not read from the app.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from llrcore.report import format_errors
from test_browser import no_exception, open_page, wait_idle

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
EVAL = lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
OPERATING_POINT_PAGES = ("Evaluate", "Calibrate", "Compare rules", "Report")


def go(page: Page, name: str) -> None:
    """Click a page in the sidebar, as a person does (not a fresh page load)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()
    wait_idle(page)


def expected_numbers(p_target: float, c_miss: float, c_fa: float) -> dict[str, str]:
    """The text each page must show for the ASVspoof eval demo set at this operating point."""
    plo_eff = float(lc.effective_plo(p_target, c_miss, c_fa))
    act_dcf = lc.act_dcf(EVAL, p_target=p_target, c_miss=c_miss, c_fa=c_fa)
    errors = 100 * float(lc.bayes_error_rates(EVAL, plo=[plo_eff]).actual[0])
    return {
        "caption": f"Effective prior log-odds {plo_eff:+.3f}",
        "Evaluate": f"{act_dcf:.3f}",  # the actDCF card of the ASVspoof eval system
        "Calibrate": f"(was {act_dcf:.3f})",  # the actDCF card: before calibration, the same trials
        "Compare rules": f"the scores as they are: {act_dcf:.3f}",
        "Report": format_errors(errors),  # errors per 100 of the first system
    }


def check_page(page: Page, name: str, values: tuple[str, str, str], numbers: dict[str, str]) -> None:
    """The three inputs show `values`, the caption and the page's own number agree with them."""
    main = page.get_by_test_id("stMain")
    if name == "Compare rules":  # the operating point is drawn when the sweep is judged by "My DCF"
        expect(main.get_by_text("Judged by")).to_be_visible(timeout=30_000)
        if main.get_by_role("spinbutton", name="P_target").count() == 0:
            main.get_by_role("radio", name="My DCF").click()
            wait_idle(page)
    for label, value in zip(("P_target", "C_miss", "C_fa"), values):
        expect(main.get_by_role("spinbutton", name=label)).to_have_value(value, timeout=60_000)
    expect(main.get_by_text(re.compile(re.escape(numbers["caption"])))).to_be_visible()
    number = numbers[name]
    if name in ("Evaluate", "Report"):
        expect(main.get_by_test_id("stMetricValue").filter(has_text=re.compile(rf"^{re.escape(number)}$")).first
               ).to_be_visible(timeout=60_000)
    else:
        expect(main.get_by_text(number, exact=False).first).to_be_visible(timeout=120_000)
    no_exception(page)


def walk(page: Page, route, values, numbers) -> None:
    for name in route:
        go(page, name)
        if name in OPERATING_POINT_PAGES:
            check_page(page, name, values, numbers)


def test_defaults_untouched_then_typed_values_survive_every_page_switch(page: Page, app_url):
    open_page(page, app_url)  # Home
    numbers = expected_numbers(0.01, 1.0, 1.0)
    defaults = ("0.01", "1", "1")
    # the transitions the user reported, then every page after every other
    walk(page, ["Evaluate", "Calibrate", "Evaluate", "Report", "Calibrate", "Evaluate", "Compare rules", "Report",
                "Data", "Compare rules", "Evaluate"], defaults, numbers)
    expect(page.get_by_role("combobox", name="Preset")).to_have_value(re.compile("NIST SRE'12"))

    # then values typed on Calibrate
    go(page, "Calibrate")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("spinbutton", name="P_target")).to_have_value("0.01", timeout=60_000)
    for label, value in (("P_target", "0.05"), ("C_miss", "3")):
        field = main.get_by_role("spinbutton", name=label)
        field.fill(value)
        field.press("Enter")
        wait_idle(page)
    typed = ("0.05", "3", "1")
    numbers = expected_numbers(0.05, 3.0, 1.0)
    check_page(page, "Calibrate", typed, numbers)
    walk(page, ["Evaluate", "Report", "Compare rules", "Calibrate", "Home", "Evaluate"], typed, numbers)
    expect(page.get_by_role("combobox", name="Preset")).to_have_value("Custom")

    # a preset picked on Evaluate reaches the other pages too
    page.get_by_role("combobox", name="Preset").click()
    page.get_by_role("option", name=re.compile("SRE'10")).click()
    wait_idle(page)
    walk(page, ["Calibrate", "Report", "Evaluate"], ("0.001", "1", "1"), expected_numbers(0.001, 1.0, 1.0))
