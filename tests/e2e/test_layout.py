"""No text cut off with an ellipsis on any page at 1600 px, with the three demo systems chosen where a page takes several.

A metric card that shows "0.288…" for 0.288 bits, or "69 % calibrat…", hides the number or its meaning. The check
asks the browser for every visible element of the main area whose text overflows a box that ends in an ellipsis;
there must be none; and no table may be wider than the page (its last columns would hide behind a scroll bar). A screenshot of each page goes to ``tests/e2e/screenshots/`` for a person to look at.

The pages are visited in one session, through the sidebar as a person does (each test reaches its page from the one
before; a test run alone starts a session of its own): a fresh page load per page cost Chromium ~2 s of its bundle
and layout each, and the claim is about the pages, not about their first load (tests/e2e/test_deep_links.py opens
each by its address).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app_pages._pages import PAGES as APP_PAGES
from test_browser import RUN_COUNTER, no_exception, open_page, snap, wait_for_stable_sizes, wait_idle

pytestmark = pytest.mark.e2e

CLIPPED = """() => [...document.querySelectorAll('[data-testid=stMain] *')].filter(e => {
  const style = getComputedStyle(e);
  return style.textOverflow === 'ellipsis' && e.textContent.trim() !== '' && e.offsetParent !== null
      && e.scrollWidth > e.clientWidth + 1;
}).map(e => e.textContent.trim().slice(0, 80))"""
# A table wider than the page hides its last columns behind a horizontal scroll bar.
OVERFLOWING_TABLES = """() => [...document.querySelectorAll('[data-testid=stDataFrame] .dvn-scroller')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => [e.scrollWidth, e.clientWidth])"""
# every page of the navigation (a new page is walked without being listed here); "" is the default page
PAGES = ["" if spec.default else Path(spec.path).stem for spec in APP_PAGES]
TITLES = dict(zip(PAGES, (spec.title for spec in APP_PAGES)))


def clipped_texts(page: Page) -> list[str]:
    return page.evaluate(CLIPPED)


def add_development_set(page: Page, label: str, key: str) -> None:
    """Add the demo development set to the multiselect `label` (widget key `key`), which starts with the two
    evaluation sets, unless an earlier page of the session chose it already: three systems chosen."""
    chosen = page.locator(f".st-key-{key} .react-aria-ComboBox [data-tag] [title]")  # the chips
    if chosen.filter(has_text="ASVspoof19 LA ASV (dev)").count() == 0:
        page.get_by_role("combobox", name=label).click()
        page.get_by_role("option", name="ASVspoof19 LA ASV (dev)", exact=True).click()
        wait_idle(page)
        page.keyboard.press("Escape")
    expect(chosen).to_have_count(3)


@pytest.fixture(scope="module")
def session_page(browser, browser_context_args, app_url):
    """One browser tab (one Streamlit session) for the module's tests, opened on the home page."""
    context = browser.new_context(**browser_context_args)
    page = context.new_page()
    page.add_init_script(RUN_COUNTER)
    open_page(page, app_url)
    yield page
    context.close()


@pytest.mark.parametrize("path", PAGES)
def test_no_text_is_cut_off(session_page: Page, screenshots, path):
    page = session_page
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=TITLES[path], exact=True).click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(rf"/{path}(\?.*)?$"))  # the page the sidebar link leads to
    if path == "evaluate":
        add_development_set(page, "Systems to show", "eval_systems")
        expect(page.get_by_test_id("stMetric")).to_have_count(9)  # three systems, three cards each
    if path == "report":
        add_development_set(page, "Systems in the report", "report_systems")
    wait_for_stable_sizes(page, quiet=500)  # the cards, charts and grids have their final widths
    no_exception(page)
    assert clipped_texts(page) == []
    assert page.evaluate(OVERFLOWING_TABLES) == []
    snap(page, screenshots / f"layout_{path or 'home'}.png")
