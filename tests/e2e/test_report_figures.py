"""The figures of the HTML report written by ``llrcore report`` for three systems, as a person opens the file in
Chromium (1280 px): no two texts of a figure overprint each other, and the Bayes error legend counts errors in words.

Independent references: the boxes Chromium lays the figures' texts out in (``getBoundingClientRect``: two boxes that
intersect by more than a pixel overprint), and the report's own numbers (``lc.bayes_decisions``-style count: the
errors per 100 trials that the legend writes, computed here from the library's actual Bayes error).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from llrcore.cli import main

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = [ROOT / "assets" / "nist_bssr1" / "bssr1_face.tsv.gz",  # two systems: face-C and face-G
           ROOT / "assets" / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"]

# Every visible text of one figure with its box; the pairs that overprint: boxes that intersect by more than a pixel
# across and by more than a quarter of the lower box's height (a text's box holds its line's leading above and below
# the glyphs: tick labels meeting at an axes' corner touch by that much without a glyph over another).
OVERPRINTS = """(figure) => {
    const texts = [...figure.querySelectorAll('svg text')].filter(t => {
        const r = t.getBoundingClientRect(); return r.width > 0 && r.height > 0 && t.textContent.trim();
    }).map(t => ({text: t.textContent.trim(), r: t.getBoundingClientRect()}));
    const pairs = [];
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i].r, b = texts[j].r;
        const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (dx > 1 && dy > 0.25 * Math.min(a.height, b.height)) pairs.push([texts[i].text, texts[j].text, dx, dy]);
    }
    return pairs;
}"""


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "three_systems.html"
    assert main(["report", *map(str, SYSTEMS), "-o", str(path)]) == 0
    return path


def test_no_text_of_the_ape_and_bayes_error_figures_overprints_another(page: Page, report, screenshots):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(report.as_uri())
    for figure in ("#figure-ape", "#figure-bayes_error"):
        page.locator(f"{figure} .main-svg").first.wait_for(timeout=30_000)
        box = page.locator(figure)
        box.scroll_into_view_if_needed()
        box.screenshot(path=str(screenshots / f"report_three_systems_{figure[8:]}.png"))
        assert box.evaluate(OVERPRINTS) == [], figure
    legend = page.locator("#figure-bayes_error .legend").text_content()
    assert "errors / 100" not in legend and " 1 errors" not in legend
    assert "per 100 trials at P =" in legend
