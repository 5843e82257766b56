"""The HTML report in headless Chromium with the network cut, and the Report page of the running app.

The report of the ASVspoof demo must draw every figure offline (plotly.js is inlined), show a hostile system name as
text without running it, and the page must hand out the same report (saying when it was downloaded, against the clock
of this test) and the figures. Screenshots go to
``tests/e2e/screenshots/``.
"""
from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from test_browser import no_exception, open_page, snap, wait_idle

import llrcore as lc

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "asvspoof2019_la"
HOSTILE = 'ASV <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
FIGURES = 5  # DET, Bayes error vs trapezium, APE, calibration transform, score distributions


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> Path:
    evaluation = lc.read_trials(ASSETS / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    development = lc.read_trials(ASSETS / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt", name="ASVspoof 2019 LA dev")
    report = lc.build_report({HOSTILE: evaluation}, p_target=0.01, calibrate_on=development,
                             sources={HOSTILE: "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"})
    path = tmp_path_factory.mktemp("report") / "asvspoof report.html"
    report.write(path)
    return path


def open_offline(browser: Browser, path: Path) -> tuple[Page, list[str]]:
    """Open a local file in a new offline context where every request other than file:, data: and blob: is
    aborted (and recorded)."""
    blocked: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)

    def only_local(route):
        if route.request.url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    page = context.new_page()
    page.goto(path.as_uri())
    return page, blocked


def expect_every_figure_drawn(page: Page) -> None:
    plots = page.locator(".js-plotly-plot")
    expect(plots).to_have_count(FIGURES, timeout=30_000)
    for i in range(FIGURES):
        expect(plots.nth(i).locator(".main-svg").first).to_be_visible(timeout=30_000)
        expect(plots.nth(i).locator(".scatterlayer .trace, .barlayer .trace").first).to_be_attached()


def test_report_opens_offline_and_draws_every_figure(browser: Browser, report_file, screenshots):
    page, blocked = open_offline(browser, report_file)
    expect_every_figure_drawn(page)
    assert blocked == []  # it never even tried to reach the network
    assert page.evaluate("() => window.__pwned") is None  # the injected markup never ran ...
    expect(page.locator("h3", has_text="ASV <img src=x").first).to_be_visible()  # ... and reads as text
    expect(page.get_by_text(re.compile(r"this system makes about 0\.36 errors"))).to_be_visible()
    expect(page.locator(".verdict").first).to_have_text("needs recalibration")
    page.wait_for_timeout(500)
    page.screenshot(path=screenshots / "report_html.png", full_page=True)
    page.screenshot(path=screenshots / "report_html_first_screen.png")
    page.context.close()


def test_report_page_in_the_app(page: Page, browser: Browser, app_url, screenshots, tmp_path):
    open_page(page, f"{app_url}/report")
    expect(page.get_by_role("heading", name="Report", exact=True)).to_be_visible()
    expect(page.get_by_test_id("stMetric").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text(re.compile("out of 100 instead of")).first).to_be_visible()
    no_exception(page)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    snap(page, screenshots / "report_page.png")

    shown = datetime.now().astimezone().replace(microsecond=0)
    while datetime.now().astimezone().replace(microsecond=0) <= shown:  # the report says the time to the second:
        page.wait_for_timeout(50)  # let the clock's second move on before the download
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Download the HTML report").click()
    downloaded = datetime.now().astimezone().replace(microsecond=0)
    assert download.value.suggested_filename == "llrcore_report.html"
    saved = tmp_path / "downloaded report.html"
    download.value.save_as(saved)
    # it says when it was downloaded (issue 28), not when the page was drawn
    made = re.search(r"made with llrcore \S+ on (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)",
                     saved.read_text(encoding="utf-8")).group(1)
    made = datetime.strptime(made, "%Y-%m-%d %H:%M:%S").replace(tzinfo=downloaded.tzinfo)
    assert shown < made <= downloaded < made + timedelta(minutes=2), (shown, made, downloaded)
    offline, blocked = open_offline(browser, saved)
    expect_every_figure_drawn(offline)
    assert blocked == []
    offline.context.close()

    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name=re.compile(r"All figures \(PNG, zip\)")).click()
    archive = zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert archive.namelist() == ["det.png", "bayes_error.png", "ape.png", "calibration.png", "scores.png"]
    assert all(archive.read(name)[:4] == b"\x89PNG" for name in archive.namelist())

    page.get_by_role("spinbutton", name="P_target").fill("0.2")
    page.get_by_role("spinbutton", name="P_target").press("Enter")
    wait_idle(page, timeout=120_000)
    expect(page.get_by_text(re.compile(r"P\\?_target = 0\.2: 20 % of the trials")).first).to_be_visible(timeout=60_000)
    no_exception(page)
