"""The APE figure of the gallery's speaker-verification example (examples/plot_speaker_verification.py: the
ASVspoof 2019 LA verifier's raw scores and the same calibrated on the development trials) drawn at the widths the
documentation site gives it: its column is 618 px wide in a 1280 px window, 714 px at 1920, 730 px at 1024, 762 px
at 800 (the sidebars fold away); 600 px leaves a margin below the narrowest. No text of it overprints another (the
Cllr panel's two bar names printed "raw scorescalibrated") and none reaches outside the figure (the panel's title
was cut to "Cllr = minCllr + calibration lo").

Independent references: the boxes Chromium lays the figure's texts out in (``getBoundingClientRect``, as
tests/e2e/test_report_figures.py reads them), the real scores in assets/asvspoof2019_la.
"""
from __future__ import annotations

from pathlib import Path

import plotly
import pytest
from playwright.sync_api import Page
from test_report_figures import OVERPRINTS

import llrcore as lc

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "asvspoof2019_la"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
#: Texts of the figure whose box reaches outside the figure's SVG, where they are cut off.
OUTSIDE = """(figure) => {
    const svg = figure.querySelector('svg.main-svg').getBoundingClientRect();
    return [...figure.querySelectorAll('svg text')].filter(t => {
        const r = t.getBoundingClientRect();
        return r.width > 0 && t.textContent.trim() && (r.left < svg.left - 1 || r.right > svg.right + 1);
    }).map(t => t.textContent.trim());
}"""


@pytest.fixture(scope="module")
def gallery_ape(tmp_path_factory) -> Path:
    """The example's APE figure as an HTML page (plotly.js from plotly's package, as the site serves it)."""
    dev = lc.read_trials(ASSETS / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt")
    trials = lc.read_trials(ASSETS / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    cal = lc.fit_affine(dev, plo=lc.OperatingPoint(0.01, c_miss=10).plo_eff)
    systems = {"raw scores": trials, "calibrated": lc.Trials(cal(trials.tar), cal(trials.non))}
    path = tmp_path_factory.mktemp("gallery") / "ape.html"
    path.write_text(lc.plots.ape_figure(systems).to_html(include_plotlyjs=PLOTLY_JS.as_uri(), div_id="ape"),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("width", [600, 618, 714, 762])
def test_the_gallery_ape_figure_reads_at_the_sites_widths(page: Page, gallery_ape, screenshots, width):
    page.set_viewport_size({"width": width + 16, "height": 800})  # the page's default margin of 8 px each side
    page.goto(gallery_ape.as_uri())
    figure = page.locator("#ape")
    figure.locator(".main-svg").first.wait_for(timeout=30_000)
    assert figure.bounding_box()["width"] == pytest.approx(width, abs=1)
    figure.screenshot(path=str(screenshots / f"gallery_ape_{width}.png"))
    assert figure.evaluate(OVERPRINTS) == []
    assert figure.evaluate(OUTSIDE) == []
