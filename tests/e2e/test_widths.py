"""Every page readable at 800, 1280 and 1920 px, with the three demo systems chosen where a page takes several.

At each width, every page of the app's navigation is checked in the browser's DOM:

- nothing scrolls sideways: neither the document, nor the main area, nor any element in it (a table wider than the
  page hides its last columns behind a scroll bar);
- no text is cut off: a metric card's value or label, a button's or a toggle's label, any text in a box that hides
  its overflow or ends it in an ellipsis ("0.0054" shown as "0.", "R…" for a toggle, "0.288…" for 0.288 bits), and
  no such label is broken inside a word (more lines than words);
- metric cards do not overlap one another, their text included ("2.43 %0.3650.288 bits" when three cards of a
  narrow column printed over each other).

A screenshot of each page at each width goes to ``tests/e2e/screenshots/widths_<width>_<page>.png`` for a person to
look at.

The pages are visited through the sidebar as a person does, in one session (one browser tab, its pages in the order
of the navigation; each test reaches its page from the one before), and each page is looked at 1920, 1280 and then
800 px wide by narrowing the window, as a person drags its edge (where the narrow window folds the sidebar away, the
person opens it again). The layout at a width is the same whether the window was loaded at it or narrowed to it
(Streamlit's columns and widths follow CSS and the container's size; plotly redraws at its container's width), and
one visit per page instead of one per page and width costs Chromium and the server 48 CPU-s instead of 78. The claim
is about the pages, not their first load (tests/e2e/test_deep_links.py opens each by its address).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app_pages._pages import PAGES as APP_PAGES
from test_browser import RUN_COUNTER, no_exception, open_page, snap, wait_for_stable_sizes, wait_idle

pytestmark = pytest.mark.e2e

WIDTHS = {800: 900, 1280: 800, 1920: 1080}  # viewport width -> height
TABLES_FIT_FROM = 1920  # the narrowest window whose tables and figures must fit the page (no scroll bar of their own)
# Text of an element of the main area that is hidden: its box hides its overflow (or ends it in an ellipsis) and the
# text is wider than the box. Plotly's SVG and the data grid's canvas draw their own text.
CLIPPED = """() => [...document.querySelectorAll('[data-testid=stMain] *')].filter(e => {
  if (e.closest('.js-plotly-plot, [data-testid=stDataFrame], svg') || e.offsetParent === null) return false;
  if (e.textContent.trim() === '') return false;
  const style = getComputedStyle(e);
  const hides = style.textOverflow === 'ellipsis' || ['hidden', 'clip'].includes(style.overflowX);
  return hides && e.scrollWidth > e.clientWidth + 1;
}).map(e => e.textContent.trim().slice(0, 80))"""
# Labels of metric cards, buttons, toggles and widgets broken inside a word ("RO / C / co / nv / ex / hul / l" for "ROC convex
# hull" in a column squeezed to a few letters): more lines than words.
BROKEN_WORDS = """() => [...document.querySelectorAll('[data-testid=stMain] :is([data-testid=stMetric], '
    + '[data-testid=stCheckbox], [data-testid=stButton], [data-testid=stDownloadButton], [data-testid=stWidgetLabel]) p')]
  .filter(e => {
  const lines = Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight));
  return e.offsetParent !== null && lines > e.textContent.trim().split(/\\s+/).length;
}).map(e => e.textContent.trim().slice(0, 80))"""
# The document, the main area or any element in it that scrolls sideways; a table's own scroller (a data grid's, a
# static table's) or a figure's only when `tables` is true: below 1920 px a table of every metric of three systems
# (about 1,070 px) or a figure (52rem) scrolls within its box, as it would on a phone (the sidebar leaves ~470 px of
# an 800 px window, ~820 px of 1280).
SIDEWAYS = """(tables) => {
  const main = document.querySelector('[data-testid=stMain]');
  const boxes = [document.scrollingElement, main, ...main.querySelectorAll('*')].filter(e => {
    if (e.closest('.js-plotly-plot') || e.offsetParent === null && e !== document.scrollingElement) return false;
    const figure = e.querySelector(':scope > [data-testid=stFullScreenFrame] > [data-testid=stPlotlyChart]') !== null;
    if (!tables && (figure || e.closest('[data-testid=stDataFrame], [data-testid=stTable]'))) return false;
    const style = getComputedStyle(e);
    const scrolls = e === document.scrollingElement || ['auto', 'scroll'].includes(style.overflowX);
    return scrolls && e.scrollWidth > e.clientWidth + 1;
  });
  return boxes.map(e => `${e.getAttribute('data-testid') || e.className || e.tagName}: ${e.scrollWidth} > ${e.clientWidth}`);
}"""
# Texts of a figure (plotly's SVG: titles, notes, legends, tick labels) that reach outside the figure, where they are
# cut off: plotly does not wrap them, so a figure keeps the width they need (assets/style.css) and, in a narrower
# main area, scrolls within its own box.
FIGURE_TEXT_CUT = """() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')].filter(
  f => f.offsetParent !== null).flatMap(f => {
  const svg = f.querySelector('svg.main-svg').getBoundingClientRect();
  return [...f.querySelectorAll('svg text')].filter(t => {
    const r = t.getBoundingClientRect();
    return r.width > 0 && t.textContent.trim() && (r.left < svg.left - 1 || r.right > svg.right + 1);
  }).map(t => t.textContent.trim().slice(0, 80));
})"""
# Pairs of metric cards whose boxes, or the text they print (which may spill out of them), overlap.
OVERLAPPING_METRICS = """() => {
  const extent = card => {
    const boxes = [card.getBoundingClientRect()];
    for (const e of card.querySelectorAll('[data-testid=stMetricValue], [data-testid=stMetricLabel], [data-testid=stMetricDelta]')) {
      const range = document.createRange(); range.selectNodeContents(e); boxes.push(range.getBoundingClientRect());
    }
    return boxes.filter(b => b.width > 0).reduce((a, b) => ({left: Math.min(a.left, b.left), right: Math.max(a.right, b.right),
      top: Math.min(a.top, b.top), bottom: Math.max(a.bottom, b.bottom)}));
  };
  const cards = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stMetric]')].filter(c => c.offsetParent !== null);
  const boxes = cards.map(extent), pairs = [];
  for (let i = 0; i < cards.length; i++) for (let j = i + 1; j < cards.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1)
      pairs.push([cards[i].innerText.replace(/\\s+/g, ' '), cards[j].innerText.replace(/\\s+/g, ' ')]);
  }
  return pairs;
}"""
# every page of the navigation (a new page is walked without being listed here); "" is the default page
PAGES = ["" if spec.default else Path(spec.path).stem for spec in APP_PAGES]
TITLES = dict(zip(PAGES, (spec.title for spec in APP_PAGES)))


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
def session(browser, browser_context_args, app_url):
    """One browser tab (one Streamlit session) for the module, opened on the home page at the widest width; each test
    reaches its page through the sidebar and then narrows the window step by step, as a person drags its edge."""
    widest = max(WIDTHS)
    context = browser.new_context(**{**browser_context_args, "viewport": {"width": widest, "height": WIDTHS[widest]}})
    page = context.new_page()
    page.add_init_script(RUN_COUNTER)
    open_page(page, app_url)
    yield page
    context.close()


def open_sidebar(page: Page) -> None:
    """Unfold the sidebar where a narrow window folded it away (at 800 px), as a person does: it then stays open and
    leaves the page ~470 px of an 800 px window."""
    unfold = page.get_by_test_id("stExpandSidebarButton")
    if unfold.is_visible():
        unfold.click()
    expect(unfold).to_be_hidden()


def go(page: Page, path: str) -> None:
    """Click the page's link in the sidebar (opened first if folded); it stays open on the new page."""
    open_sidebar(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=TITLES[path], exact=True).click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(rf"/{path}(\?.*)?$"))  # the page the sidebar link leads to
    expect(page.get_by_test_id("stExpandSidebarButton")).to_be_hidden()


@pytest.mark.parametrize("path", PAGES)
def test_every_page_fits_every_width(session, screenshots, path):
    page = session
    widest = max(WIDTHS)
    page.set_viewport_size({"width": widest, "height": WIDTHS[widest]})
    go(page, path)
    if path == "evaluate":
        add_development_set(page, "Systems to show", "eval_systems")
        expect(page.get_by_test_id("stMetric")).to_have_count(9)  # three systems, three cards each
    if path == "report":
        add_development_set(page, "Systems in the report", "report_systems")
    found = {}
    for width in sorted(WIDTHS, reverse=True):
        page.set_viewport_size({"width": width, "height": WIDTHS[width]})
        open_sidebar(page)
        wait_for_stable_sizes(page, quiet=500)  # the cards, charts and grids have their final widths
        no_exception(page)
        problems = {"scrolls sideways": page.evaluate(SIDEWAYS, width >= TABLES_FIT_FROM),
                    "cut off": page.evaluate(CLIPPED), "figure text cut off": page.evaluate(FIGURE_TEXT_CUT),
                    "words broken": page.evaluate(BROKEN_WORDS),
                    "metric cards overlap": page.evaluate(OVERLAPPING_METRICS)}
        snap(page, screenshots / f"widths_{width}_{path or 'home'}.png")
        found.update({f"{width} px, {what}": items for what, items in problems.items() if items})
    assert found == {}, "\n".join(f"{what}: {items}" for what, items in found.items())
