"""Figures and tables of issue 28 as a person sees them at 1600 px in headless Chromium: the DET of four systems
(two demo sets added on the Data page, both with an actDCF at Pfa = 0), the Gaussian explorer's star and diamond,
Forensic's ECE curves after PAV, the Bayes decisions table and its dashed line, the Home card of Diarization (the
Diarization methods table: test_diarization_page.py).

What only the browser shows is measured on the drawn page: the boxes of the texts plotly drew (notes, labels, tick
labels) and of the markers must not overlap; a curve must lie above the axis line; the table's cells are read from
the page. Independent references: the table's parts must add up to its totals (decimal arithmetic) and to
100 x P(target) and 100 x (1 - P(target)); the words of the Home card are those of llrcore.diarization.model's
docstring. Screenshots go to ``tests/e2e/screenshots/trust_*.png``.
"""
from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from test_browser import grid_rows, no_exception, open_page, snap, wait_for_charts, wait_for_stable_sizes
from test_conditions_page import add_demo, go

pytestmark = pytest.mark.e2e

PFA_ZERO_DEMOS = ("NIST BSSR1 face matcher C", "ASVspoof19 LA CM LFCC-GMM (eval)")  # actDCF at Pfa = 0 at 1 %

BOXES = """(chart, selector) => Array.from(chart.querySelectorAll(selector)).map(e => {
    const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, text: e.textContent};
}).filter(b => b.right > b.left && b.bottom > b.top)"""


def boxes(chart, selector: str) -> list[dict]:
    return chart.evaluate(BOXES, selector)


def overlap(a: dict, b: dict, slack: float = 1.0) -> bool:
    return (a["left"] + slack < b["right"] and b["left"] + slack < a["right"] and a["top"] + slack < b["bottom"]
            and b["top"] + slack < a["bottom"])


def plot_area(chart) -> dict:
    (area,) = boxes(chart, ".draglayer .xy .nsewdrag")
    return area


def chart_with(page: Page, text: str):
    chart = page.get_by_test_id("stPlotlyChart").filter(has_text=text).first
    chart.scroll_into_view_if_needed()
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=60_000)
    wait_for_stable_sizes(page)  # plotly's redraws after the scroll are over (was a fixed 700 ms)
    return chart


def table_cells(page: Page, index: int = 0) -> list[list[str]]:
    """The rows of the page's `index`-th dataframe as the page writes them, header first (:func:`grid_rows`)."""
    return grid_rows(page, page.get_by_test_id("stDataFrame").nth(index))


def test_det_of_four_systems_notes_and_stars_overlap_nothing(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/data")
    for name in PFA_ZERO_DEMOS:
        add_demo(page, name)
    go(page, "Evaluate")
    wait_for_charts(page)
    chart = chart_with(page, "DET curve")
    no_exception(page)
    snap(page, screenshots / "trust_evaluate.png")
    chart.screenshot(path=screenshots / "trust_det.png")

    expect(chart.get_by_text("Open symbols inside the edge", exact=False)).to_be_visible()
    for name in PFA_ZERO_DEMOS:
        expect(chart.locator(".infolayer .annotation").filter(has_text=name)).to_have_count(1)
    notes = [b for b in boxes(chart, ".infolayer .annotation") if "Pmiss = Pfa" not in b["text"]]
    ticks = boxes(chart, ".xtick text") + boxes(chart, ".ytick text")
    points = boxes(chart, ".scatterlayer path.point")
    assert notes and ticks and points
    for i, note in enumerate(notes):
        assert not any(overlap(note, other) for other in notes[i + 1:]), note["text"]
        assert not any(overlap(note, tick) for tick in ticks), note["text"]
        assert not any(overlap(note, point) for point in points), note["text"]
    area = plot_area(chart)
    for point in points:  # every marker inside the plot area, none on a tick label
        assert not any(overlap(point, tick) for tick in ticks), point
        assert area["left"] - 1 <= point["left"] and point["right"] <= area["right"] + 1, point
    near_edge = [p for p in points if p["left"] - area["left"] < 30 or area["bottom"] - p["bottom"] < 30
                 or area["right"] - p["right"] < 30 or p["top"] - area["top"] < 30]
    assert len(near_edge) >= 3  # the stars at Pfa = 0 (two at the top left corner) and FVC's at Pmiss = 0
    for i, point in enumerate(near_edge):
        assert not any(overlap(point, other, slack=4) for other in near_edge[i + 1:]), point


def test_home_gaussian_explorer_forensic_and_bayes_decisions_through_the_sidebar(page: Page, app_url, screenshots):
    """Defaults untouched, one session walked through the sidebar (what these pages show depends on nothing the walk
    changes): the Home card of Diarization, the Gaussian explorer's star and diamond, Forensic's ECE curves after PAV,
    the Bayes decisions table at the default P(target) = 0.01 and its dashed line."""
    open_page(page, app_url)
    card = page.get_by_test_id("stMain").get_by_text("sticky Markov chain", exact=False)
    expect(card).to_be_visible()
    expect(page.get_by_text("CRP", exact=False)).to_have_count(0)
    no_exception(page)
    snap(page, screenshots / "trust_home.png")

    go(page, "Gaussian explorer")
    chart = chart_with(page, "Cllr after CMLG")
    no_exception(page)
    snap(page, screenshots / "trust_gaussian_explorer.png")
    chart.screenshot(path=screenshots / "trust_cllr_eer.png")
    expect(chart.get_by_text("inside the", exact=False)).to_be_visible()  # the legend says where the star is
    traces = chart.locator(".scatterlayer .trace")
    diamond, star = (boxes(traces.nth(traces.count() - k), "path.point") for k in (2, 1))
    (diamond,), (star,) = diamond, star
    # the star is drawn over the open diamond, smaller: both show
    assert star["right"] - star["left"] > 8 and diamond["right"] - diamond["left"] > star["right"] - star["left"]
    style = traces.nth(traces.count() - 2).locator("path.point").evaluate(
        "e => [getComputedStyle(e).fill, getComputedStyle(e).fillOpacity]")
    assert style[0] == "none" or float(style[1]) == 0.0  # the diamond is open: it hides nothing

    go(page, "Forensic validation")
    chart = chart_with(page, "Empirical cross-entropy")
    no_exception(page)
    snap(page, screenshots / "trust_forensic.png")
    chart.screenshot(path=screenshots / "trust_ece.png")
    expect(chart.get_by_text("dashed: after PAV", exact=False)).to_be_visible()
    area = plot_area(chart)
    dashed = chart.evaluate("""c => Array.from(c.querySelectorAll('.scatterlayer .trace path.js-line'))
        .filter(e => (e.style.strokeDasharray || '') !== '' && !e.closest('.legend'))
        .map(e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; })""")
    assert len(dashed) >= 3  # the neutral reference (dotted) and the two curves after PAV
    for line in dashed:
        assert line["bottom"] <= area["bottom"] - 3, line  # a few pixels above the axis line, not on it

    go(page, "Bayes decisions")
    chart = chart_with(page, "Where the Bayes threshold falls")
    no_exception(page)
    snap(page, screenshots / "trust_bayes_decisions.png")
    chart.screenshot(path=screenshots / "trust_bayes_threshold.png")

    header, *rows = table_cells(page)
    assert header[1:] == ["accepted", "rejected", "total"]
    totals = {}
    for label, accepted, rejected, total in rows:
        assert Decimal(accepted) + Decimal(rejected) == Decimal(total), (label, accepted, rejected, total)
        totals[label] = Decimal(total)
    assert totals == {"target": Decimal(1), "non-target": Decimal(99)}  # 100 x 0.01 and 100 x 0.99

    labels = [b for b in boxes(chart, ".infolayer .annotation") if "accept" in b["text"] or "reject" in b["text"]]
    assert len(labels) == 2
    dashed = chart.evaluate("""c => Array.from(c.querySelectorAll('.shapelayer path'))
        .filter(e => (e.style.strokeDasharray || '') !== '')
        .map(e => { const r = e.getBoundingClientRect();
                    return {left: r.left - 1, right: r.right + 1, top: r.top, bottom: r.bottom}; })""")
    assert dashed
    for line in dashed:
        assert not any(overlap(line, label, slack=0) for label in labels), (line, labels)
