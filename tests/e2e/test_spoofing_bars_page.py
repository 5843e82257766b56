"""The per-attack bars and the t-EER conventions block of the "ASV + countermeasure" page, in headless Chromium at
1600 px: reached through the sidebar, every setting left as it opens, the four ASVspoof 2019 LA countermeasures loaded
with the page's button; then the log axis switched on.

Independent references: the bars and ticks as plotly drew them in the browser (the SVG: each bar's drawn height, the
tick labels of the EER axis) against the EERs of the per-attack CSV the page offers; the t-EER of the LFCC-GMM CM in
each convention from ``lc.t_eer`` on the raw demo files read with pandas (tested against the organisers' code in
test_teer_conventions.py), and the value of the ASVspoof 5 evaluation package on these files (3.7419191514603005 %,
its ``compute_teer_accelerated``, see test_sasv_metrics.py).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import download, go

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
CM_EVAL = ASSETS / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
ASV_EVAL = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
LFCC = "ASVspoof19 LA CM LFCC-GMM (eval)"
TITLE = "Why does my t-EER differ from ASVspoof 5's?"
#: The EER axis (the first y axis) of the figure holding the trace labelled `label`, and that trace's bars as drawn:
#: the axis type, its tick labels, each bar's value and drawn height in pixels.
DRAWN_BARS = """label => {
    for (const plot of document.querySelectorAll('.js-plotly-plot')) {
        const index = plot.data.findIndex(trace => trace.meta && trace.meta.label === label);
        if (index < 0) continue;
        const group = [...plot.querySelectorAll('.barlayer .trace')]
            .find(g => g.__data__ && g.__data__[0].trace.index === index);
        return {type: plot._fullLayout.yaxis.type,
                ticks: [...plot.querySelectorAll('.ytick text')].map(t => t.textContent),
                values: group.__data__.map(point => point.s),
                heights: [...group.querySelectorAll('.point path')].map(path => path.getBBox().height)};
    }
    return null;
}"""


def drawn(page: Page) -> dict:
    return page.evaluate(DRAWN_BARS, f"{LFCC} CM EER %")


def test_bars_linear_with_ticks_and_the_t_eer_in_both_conventions(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/")
    go(page, "ASV + countermeasure")
    page.get_by_role("button", name="Load the 4 ASVspoof 2019 LA CMs (eval)").click()
    wait_idle(page, timeout=180_000)
    wait_for_charts(page, 2)
    expect(page.get_by_role("switch", name="Logarithmic EER axis")).not_to_be_checked()

    # the EER axis as it opens: linear, labelled, each bar's height proportional to its EER
    bars = drawn(page)
    table = download(page, page.locator(".st-key-tandem_attacks_csv").get_by_role("button"))
    eers = table[table.system == LFCC]["CM EER %"].to_numpy()
    assert bars["type"] == "linear"
    assert len([t for t in bars["ticks"] if t.strip()]) >= 3 and bars["ticks"][0] == "0"
    np.testing.assert_allclose(bars["values"], eers, rtol=1e-12)
    heights, values = np.array(bars["heights"]), np.array(bars["values"])
    pixels_per_percent = heights.max() / values.max()
    np.testing.assert_allclose(heights, values * pixels_per_percent, atol=1.0)  # within a pixel
    assert eers.min() < eers.max() / 20  # A16-A19-like spread: on a log axis these would not be proportional

    # the t-EER conventions block: each CM's pooled t-EER in ours and in ASVspoof 5's, side by side
    raw_cm = pd.read_csv(CM_EVAL, sep="\t")
    raw_asv = pd.read_csv(ASV_EVAL, sep=r"\s+", header=None, names=["attack", "kind", "score"])
    parts = [raw_cm.loc[raw_cm.key == key, "LFCC-GMM"].to_numpy() for key in ("bonafide", "spoof")] + [
        raw_asv.loc[raw_asv.kind == kind, "score"].to_numpy() for kind in ("target", "nontarget", "spoof")]
    expected = {convention: lc.t_eer(*parts, convention=convention).value for convention in lc.TEER_CONVENTIONS}
    assert expected["asvspoof5-accelerated"] == pytest.approx(3.7419191514603005 / 100, rel=1e-15)
    panel = page.get_by_test_id("stExpander").filter(has_text=TITLE)
    panel.get_by_text(TITLE).click()
    block = panel.get_by_test_id("stTable")
    expect(block).to_be_visible()
    header = block.locator("thead th").all_inner_texts()
    assert [h.strip() for h in header][-3:] == ["llrcore (default)", "ASVspoof 5 compute_teer",
                                                "ASVspoof 5 compute_teer_accelerated"]
    row = block.locator("tbody tr").filter(has_text=LFCC)
    cells = [cell.strip() for cell in row.locator("td").all_inner_texts()]
    assert cells == [f"{100 * expected[c]:.4f} %" for c in lc.TEER_CONVENTIONS]
    expect(panel).to_contain_text("a block of tied scores is split into operating points that no threshold reaches")
    no_exception(page)
    snap(page, screenshots / "sasv_bars_linear.png")

    # a log axis on request: still labelled, around the EERs
    page.get_by_text("Logarithmic EER axis").click()
    wait_idle(page, timeout=120_000)
    wait_for_charts(page, 2)
    bars = drawn(page)
    assert bars["type"] == "log"
    labels = [float(t) for t in bars["ticks"] if t.strip()]
    assert len(labels) >= 2 and min(labels) <= eers[eers > 0].min() and max(labels) >= eers.max()
    no_exception(page)
    snap(page, screenshots / "sasv_bars_log.png")
