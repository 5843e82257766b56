"""The running app in headless Chromium: every page opens, an upload works, a control changes the results.

Screenshots of each page go to ``tests/e2e/screenshots/`` (git-ignored) for a human to look at.
"""
from __future__ import annotations

import os
import re

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
RUNNING = "[data-testid=stApp][data-test-script-state=running]"


# Added to every page by the ``page`` fixture of conftest.py: counts the script runs the app starts
# (data-test-script-state turning "running") and the messages the server sends, and notes both counts at each click,
# key press or file chosen. A quick run (a page switch to Home) can start and end within one of React's batched
# renders: the attribute never changes, and only the server's messages tell that it happened.
RUN_COUNTER = """(() => {
    window.__llrcoreRuns = 0;
    window.__llrcoreRunsAtInput = 0;
    window.__llrcoreMessages = 0;
    window.__llrcoreMessagesAtInput = 0;
    window.__llrcoreLastMessage = 0;
    const input = () => {
        window.__llrcoreRunsAtInput = window.__llrcoreRuns;
        window.__llrcoreMessagesAtInput = window.__llrcoreMessages;
    };
    for (const type of ['pointerdown', 'keydown', 'input', 'change']) window.addEventListener(type, input, true);
    new MutationObserver(records => {
        for (const record of records)
            if (record.target.getAttribute('data-test-script-state') === 'running') window.__llrcoreRuns += 1;
    }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
    window.WebSocket = class extends window.WebSocket {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', () => {
                window.__llrcoreMessages += 1;
                window.__llrcoreLastMessage = performance.now();
            });
        }
    };
})()"""
# A run has started since the last input: the app says it runs or ran, or the server answered the input and has
# been silent for QUIET_MESSAGES ms since (its last message ends the run, and React has drawn it by then).
QUIET_MESSAGES = 150
STARTED = ("() => window.__llrcoreRuns > window.__llrcoreRunsAtInput"
           " || document.querySelector('%s') !== null"
           " || window.__llrcoreMessages > window.__llrcoreMessagesAtInput"
           " && performance.now() - window.__llrcoreLastMessage > %d" % (RUNNING, QUIET_MESSAGES))


def wait_idle(page: Page, timeout: float = 60_000) -> None:
    """Wait until the script run triggered by the last interaction has finished.

    A rerun may take a moment to start: don't mistake the idle state before it for its end. It has started when the
    app is running or has started a run since the last click or key, or the server has answered it (RUN_COUNTER);
    without a run within 1 s there is none to wait for. (Waiting for the running state alone cost a whole second
    whenever the run was already over.)"""
    try:
        page.wait_for_function(STARTED, timeout=1_000, polling=50)
    except Exception:
        pass
    page.wait_for_selector(IDLE, timeout=timeout)


def open_page(page: Page, url: str) -> None:
    """Open a page by its address, as a shared link does (also as a fresh server's first request)."""
    page.goto(url)
    page.wait_for_selector(IDLE, timeout=60_000)
    expect(page.get_by_test_id("stMainBlockContainer")).to_be_visible()
    expect(page.get_by_text("Page not found")).to_have_count(0)


def wait_for_charts(page: Page, count: int = 1) -> None:
    charts = page.locator("[data-testid=stPlotlyChart] .main-svg")
    expect(charts.nth(count - 1)).to_be_visible(timeout=30_000)
    wait_for_stable_sizes(page)  # let plotly finish its redraws (automargin moves the plot areas) before a screenshot


def snap(page: Page, path) -> None:
    """Screenshot of the whole page: Streamlit scrolls inside its main container, so grow the viewport to fit.

    Taken unless LLRCORE_SCREENSHOTS is 0 (tests/conftest.py sets it so in the whole suite under xdist); the page
    must have drawn everything (no skeleton left) either way."""
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0)
    if os.environ.get("LLRCORE_SCREENSHOTS", "1") == "0":
        return
    height = page.evaluate(
        "() => Math.ceil(document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight) + 120"
    )
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], height)})
    wait_for_stable_sizes(page)  # plotly and the data grid redraw at the new size
    page.screenshot(path=path)
    page.set_viewport_size(size)


# The places and sizes of the main container, the charts, their plot areas and legends (which plotly's automargin
# moves after the first draw) and the data grids, as one string: what a redraw changes.
SIZES = """() => [...document.querySelectorAll('[data-testid=stMainBlockContainer], [data-testid=stPlotlyChart] '
    + ':is(.main-svg, .nsewdrag, .legend), [data-testid=stDataFrame] canvas')]
    .map(e => { const r = e.getBoundingClientRect(); return `${r.x},${r.y},${r.width},${r.height}`; }).join(';')"""
STABLE_FOR = """(quiet) => {
    const now = performance.now(), seen = (%s)();
    if (window.__llrcoreSizes !== seen) { window.__llrcoreSizes = seen; window.__llrcoreSince = now; return false; }
    return now - window.__llrcoreSince >= quiet;
}""" % SIZES


def wait_for_stable_sizes(page: Page, quiet: float = 300, timeout: float = 5_000) -> None:
    """Wait until the charts and grids have kept their places and sizes for `quiet` ms (checked every 50 ms), at most
    `timeout` ms: a redraw is over in one or two frames on a quiet machine, while the fixed waits this replaces (700 ms
    a screenshot, 500 ms a chart) cost that much every time and could still be too short under load."""
    page.evaluate("() => { window.__llrcoreSizes = undefined; }")
    try:
        page.wait_for_function(STABLE_FOR, arg=quiet, polling=50, timeout=timeout)
    except Exception:  # still moving after `timeout` (an animation): take the picture as it is
        pass


def grid_rows(page: Page, grid) -> list[list[str]]:
    """The rows of a data grid as written in its accessible table, header first; the grid fills that table after it
    is drawn, so it is read again until it has rows (a loaded machine takes a while)."""
    grid.scroll_into_view_if_needed()
    for _ in range(60):
        rows = grid.evaluate("g => Array.from(g.querySelectorAll('table tr'))"
                             ".map(r => Array.from(r.children).map(c => c.textContent))")
        if len(rows) > 1:
            return rows
        page.wait_for_timeout(500)
    raise AssertionError("the data grid's accessible table stayed empty for 30 s")


def no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def write_labelled(trials, path: Path) -> Path:
    """`trials` as a two-column file ``score label`` (each score written to the last digit), as users upload them."""
    lines = [f"{float(s)!r} target" for s in trials.tar] + [f"{float(s)!r} nontarget" for s in trials.non]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def score_file(tmp_path):
    rng = np.random.default_rng(7)
    mu = 3.0
    tar = rng.normal(mu, np.sqrt(2 * mu), 300)
    non = rng.normal(-mu, np.sqrt(2 * mu), 3000)
    path = tmp_path / "browser upload.txt"
    path.write_text("\n".join([f"{s:.5f} target" for s in tar] + [f"{s:.5f} nontarget" for s in non]) + "\n")
    return path


def test_data_page_upload_good_and_bad_files(page: Page, app_url, screenshots, score_file, tmp_path):
    open_page(page, f"{app_url}/data")
    expect(page.get_by_role("heading", name="Loaded systems")).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "data.png")

    page.locator(".st-key-score_uploads input[type=file]").set_input_files(score_file)
    expect(page.get_by_text("Added browser upload from browser upload.txt")).to_be_visible(timeout=30_000)
    wait_idle(page)
    expect(page.locator("input[aria-label='System name']").nth(3)).to_have_value("browser upload")
    expect(page.get_by_text("4 systems loaded")).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "data_uploaded.png")

    bad = tmp_path / "garbage.txt"
    bad.write_text("1.0 target\nhello world\n")
    page.locator(".st-key-score_uploads input[type=file]").set_input_files(bad)
    error = page.get_by_test_id("stAlertContentError")
    expect(error.first).to_be_visible(timeout=30_000)
    expect(error.first).to_contain_text("garbage.txt")
    wait_idle(page)
    expect(page.get_by_text("4 systems loaded")).to_be_visible()  # what was loaded stays loaded
    no_exception(page)
    snap(page, screenshots / "data_bad_upload.png")


def test_home_then_evaluate_operating_point_figures_and_page_switches(page: Page, app_url, screenshots):
    """Home's links lead to Evaluate; the operating point typed or chosen there changes the numbers and figures, and
    the same operating point is on every page that asks for it after sidebar clicks."""
    open_page(page, app_url)
    expect(page.get_by_role("heading", name="llrcore workbench")).to_be_visible()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("link", name="Data")).to_be_visible()
    expect(main.get_by_role("link", name="Evaluate")).to_be_visible()
    expect(page.get_by_text("3 systems loaded")).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "home.png")
    main.get_by_role("link", name="Evaluate").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Evaluate")).to_be_visible()
    wait_for_charts(page)
    expect(page.get_by_test_id("stMetric").first).to_be_visible()
    expect(page.get_by_text(re.compile(r"Effective prior log-odds \-4\.595"))).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "evaluate.png")

    p_target = page.get_by_role("spinbutton", name="P_target")
    p_target.fill("0.2")
    p_target.press("Enter")
    expect(page.get_by_text(re.compile(r"Effective prior log-odds \-1\.386"))).to_be_visible(timeout=30_000)
    wait_idle(page)
    expect(page.get_by_role("combobox", name="Preset")).to_have_value("Custom")
    wait_for_charts(page)
    no_exception(page)
    snap(page, screenshots / "evaluate_p02.png")

    with page.expect_download() as download:
        page.get_by_role("button", name="Data as CSV").first.click()
    assert download.value.suggested_filename == "det.csv"
    # the table of the DET result, not of the plot's traces: rates as fractions and each marker's cost
    table = pd.read_csv(download.value.path())
    assert list(table.columns) == ["system", "kind", "false_alarm_rate", "miss_rate", "cost"]
    asv = lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    act = table[(table.system == "ASVspoof19 LA ASV (eval)") & (table.kind == "act_dcf")]
    assert act.cost.item() == pytest.approx(lc.act_dcf(asv, p_target=0.2), rel=1e-12)

    for tab, name, charts in [("APE", "evaluate_ape", 1), ("Normalised Bayes error", "evaluate_nbe", 1),
                              ("Bayes error vs trapezium", "evaluate_trapezium", 1),
                              ("Score distributions", "evaluate_histograms", 1)]:
        page.get_by_role("tab", name=tab, exact=True).click()
        wait_idle(page)
        wait_for_charts(page, charts)
        expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
        no_exception(page)
        snap(page, screenshots / f"{name}.png")

    page.get_by_role("combobox", name="Preset").click()
    page.keyboard.type("SRE'08")  # the list opens at "Custom", far from it: typed, as a person does in a long list
    page.get_by_role("option", name=re.compile("SRE'08")).click()
    expect(page.get_by_text(re.compile(r"Effective prior log-odds \-2\.293"))).to_be_visible(timeout=30_000)
    wait_idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Loaded systems")).to_be_visible()
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Evaluate").click()
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Effective prior log-odds \-2\.293"))).to_be_visible(timeout=30_000)
    # one operating point for the whole app: the other pages that ask for it open on it, computed with it
    for name in ("Calibrate", "Report"):
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=name).click()
        wait_idle(page)
        expect(page.get_by_text(re.compile(r"Effective prior log-odds \-2\.293"))).to_be_visible(timeout=60_000)
