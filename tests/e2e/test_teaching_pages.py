"""The teaching pages in headless Chromium: sliders change the answer and the address bar, links restore a setting.

Screenshots go to ``tests/e2e/screenshots/`` (git-ignored): bayes_decisions*.png and gaussian_explorer*.png.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle

pytestmark = pytest.mark.e2e

SLIDER_NAMES = ("P(target): how often a trial is a target", "C_miss: cost of a miss", "C_fa: cost of a false alarm")


def sentence(page: Page):
    return page.locator("p").filter(has_text=re.compile(r"^Out of 100 trials at P\(target\)"))


def move(page: Page, name: str, key: str, presses: int = 1) -> None:
    """Move a slider with the keyboard, as a user would, and wait for the rerun."""
    thumb = page.get_by_role("slider", name=name)
    thumb.focus()
    for _ in range(presses):
        thumb.press(key)
    wait_idle(page)


def slider_values(page: Page) -> list[str]:
    return [page.get_by_role("slider", name=name).get_attribute("aria-valuetext") for name in SLIDER_NAMES]


def test_bayes_decisions_sliders_answer_and_share_and_links_restore_the_setting(page: Page, app_url, server_log,
                                                                                  screenshots):
    """Reached through the sidebar, the sliders moved (the answer and the address bar follow), then opened by two
    links; each slider has one source (the session's operating point or the address bar), so Streamlit never warns
    that a widget had a default value and a Session State value too."""
    logged = server_log.stat().st_size
    open_page(page, app_url)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Bayes decisions", exact=True).click()
    wait_idle(page)
    expect(sentence(page)).to_contain_text("P(target) = 1 %, this system makes about 0.37 errors")
    assert slider_values(page) == ["0.01", "1", "1"]
    wait_for_charts(page, 2)
    no_exception(page)
    snap(page, screenshots / "bayes_decisions.png")

    move(page, "P(target): how often a trial is a target", "ArrowRight")
    expect(sentence(page)).to_contain_text("P(target) = 2 %")
    expect(page).to_have_url(re.compile(r"prior=0\.02"))
    move(page, "C_miss: cost of a miss", "ArrowRight", 3)
    expect(sentence(page)).to_contain_text("a miss costing 10")
    expect(page).to_have_url(re.compile(r"c_miss=10"))
    wait_for_charts(page, 2)
    no_exception(page)
    snap(page, screenshots / "bayes_decisions_moved.png")

    for tab, name in (("Over all priors", "bayes_decisions_priors"),
                      ("Fixed false-alarm threshold", "bayes_decisions_fixed_threshold")):
        page.get_by_role("tab", name=tab, exact=True).click()
        wait_idle(page)
        wait_for_charts(page, 1)
        expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
        no_exception(page)
        snap(page, screenshots / f"{name}.png")
    expect(page.locator("p").filter(has_text=re.compile(r"^Fixing the false-alarm rate at 1 %"))).to_be_visible()
    expect(page).to_have_url(re.compile(r"bayes_view=Fixed"))

    # links open the page as they say (each a new session)
    open_page(page, f"{app_url}/bayes_decisions?prior=0.01&c_miss=10")
    expect(sentence(page)).to_contain_text("P(target) = 1 %, with a miss costing 10 and a false alarm 1")
    assert slider_values(page) == ["0.01", "10", "1"]
    open_page(page, f"{app_url}/bayes_decisions?prior=0.1&c_miss=10&bayes_system=ASVspoof19+LA+ASV+%28eval%29")
    wait_for_charts(page, 2)
    expect(sentence(page)).to_contain_text("P(target) = 10 %, with a miss costing 10 and a false alarm 1")
    expect(page.get_by_role("combobox", name="System")).to_have_value("ASVspoof19 LA ASV (eval)")
    assert slider_values(page) == ["0.1", "10", "1"]
    no_exception(page)
    snap(page, screenshots / "bayes_decisions_link.png")
    with open(server_log, "rb") as log:
        log.seek(logged)
        assert "set via the Session State API" not in log.read().decode(errors="replace")


def test_gaussian_explorer(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/gaussian_explorer")
    wait_for_charts(page, 6)
    metric = page.get_by_test_id("stMetricValue")
    expect(metric.first).to_have_text("10 %")
    no_exception(page)
    snap(page, screenshots / "gaussian_explorer.png")

    move(page, "EER (%)", "ArrowLeft", 5)  # 10 % -> 9.5 %
    expect(metric.first).to_have_text("9.5 %")
    expect(page).to_have_url(re.compile(r"eer=9\.5"))
    page.get_by_role("radio", name="μ", exact=True).click()
    wait_idle(page)
    expect(page.get_by_role("slider", name="μ (mean of the target LLRs)")).to_be_visible()
    expect(metric.first).to_have_text(re.compile(r"^9\.(5|4\d) %$"))  # the same system, mu on its 0.01 grid
    wait_for_charts(page, 6)
    no_exception(page)
    snap(page, screenshots / "gaussian_explorer_mu.png")

    open_page(page, f"{app_url}/gaussian_explorer?gauss_system=FVC-AUS+DCA-PLDA")
    wait_for_charts(page, 6)
    expect(page.locator("p").filter(has_text=re.compile(r"^FVC-AUS DCA-PLDA: after CMLG calibration"))).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "gaussian_explorer_fvc.png")
