"""The Score normalisation page in headless Chromium at 1600 px: reached from the sidebar, defaults untouched (demo
files, AS-norm, top 300, ddof 0, the app's operating point P_target = 0.01), the numbers on the page equal the
library's; then S-norm with a leaky uploaded cohort shows the leakage warning.

Independent reference: ``lc.normalize_scores`` (tested against WeSpeaker's and SpeechBrain's formulas in
test_normalization.py), ``lc.evaluate`` and ``lc.compare_systems`` (n = 1000, seed 0) on the demo files of
``assets/normalization_demo``, computed here in the test process.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import choose, go

pytestmark = pytest.mark.e2e

DEMO = Path(__file__).resolve().parents[2] / "assets" / "normalization_demo"


@pytest.fixture(scope="module")
def expected():
    trials = lc.read_trials(DEMO / "scores.txt", key=DEMO / "key.txt", name="synthetic cosine")
    enrol, test = lc.read_cohort_scores(DEMO / "enrol_cohort.txt"), lc.read_cohort_scores(DEMO / "test_cohort.txt")
    after = lc.normalize_scores(trials, enrol, test, "as-norm", 300)
    results = [lc.evaluate(t.sorted, p_target=0.01) for t in (trials, after)]
    return results, lc.compare_systems(trials, after, n=1000, p_target=0.01)


def test_defaults_show_the_librarys_numbers_then_a_leaky_uploaded_cohort_is_warned(page: Page, app_url,
                                                                                   screenshots, expected, tmp_path):
    open_page(page, f"{app_url}/")
    go(page, "Score normalisation")
    expect(page.get_by_role("heading", name="Score normalisation", exact=True)).to_be_visible()
    no_exception(page)
    (before, after), comparison = expected
    metrics = page.get_by_test_id("stMetric")
    for k, result in enumerate((before, after)):
        expect(metrics.nth(3 * k)).to_contain_text(f"{100 * result.eer:.2f} %")
        expect(metrics.nth(3 * k + 1)).to_contain_text(f"{result.min_dcf:.4f}")
        expect(metrics.nth(3 * k + 2)).to_contain_text(f"{result.min_cllr:.4f} bits")
    assert after.eer < before.eer
    for metric in ("eer", "min_dcf", "min_cllr"):
        expect(page.get_by_text(comparison.sentence(metric), exact=True)).to_be_visible()
    expect(page.get_by_text("a top 300 keeps them all")).to_be_visible()  # the demo cohort has 200 recordings
    wait_for_charts(page)
    snap(page, screenshots / "normalization.png")

    # then S-norm with an uploaded enrolment cohort that holds one of the enrolled speakers' recordings
    leaky = tmp_path / "leaky_enrol.txt"
    leaky.write_text((DEMO / "enrol_cohort.txt").read_text().replace("cohort/spk040.wav", "spk000/enrol.wav"))
    page.get_by_text("Upload score, key and cohort files").click()
    wait_idle(page)
    uploads = page.locator("input[type=file]")
    for k, path in enumerate((DEMO / "scores.txt", DEMO / "key.txt", leaky, DEMO / "test_cohort.txt")):
        uploads.nth(k).set_input_files(str(path))
        wait_idle(page, timeout=120_000)
    choose(page, "Method", "S-norm — both sides, the whole cohort")
    no_exception(page)
    expect(page.get_by_text("Cohort leakage: 1 of the 200 recordings of the enrolment cohort")).to_be_visible()
    expect(page.get_by_test_id("stMetric").first).to_be_visible()
