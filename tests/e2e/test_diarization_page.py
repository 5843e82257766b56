"""The Diarization page in headless Chromium: the demo clusters on demand, the figures draw, an upload works.

Screenshots go to ``tests/e2e/screenshots/diarization*.png``. Fixtures (``app_url``, ``screenshots``, the system
Chromium) come from ``conftest.py``; the helpers from ``test_browser.py``.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle

pytestmark = pytest.mark.e2e


def open_diarization(page: Page, app_url: str) -> None:
    open_page(page, f"{app_url}/diarization")
    expect(page.get_by_role("heading", name="Diarization")).to_be_visible()


def test_demo_clusters_on_demand_and_shows_every_figure(page: Page, app_url, screenshots):
    open_diarization(page, app_url)
    wait_for_charts(page)  # the matrix in time order, before clustering
    no_exception(page)
    snap(page, screenshots / "diarization_before.png")

    page.get_by_role("button", name="Cluster").click()
    wait_idle(page)
    speakers = page.get_by_test_id("stMetric").filter(has_text="Speakers found")
    expect(speakers).to_contain_text("4", timeout=60_000)
    expect(page.get_by_test_id("stMetric").filter(has_text="DER")).to_contain_text(re.compile(r"\d\.\d\d %"))
    # the lowest DER of the four methods (VBx's own RTTM is in the table, not in the advice)
    expect(page.get_by_text("Which answer to trust here: Bayesian block model.")).to_be_visible()
    wait_for_charts(page)
    no_exception(page)
    snap(page, screenshots / "diarization.png")

    for tab, name in [("Scores and Gaussians", "diarization_scores"), ("Number of speakers", "diarization_k"),
                      ("Evidence bound", "diarization_elbo"), ("Timeline", "diarization_timeline")]:
        page.get_by_role("tab", name=tab, exact=True).click()
        wait_idle(page)
        wait_for_charts(page)
        expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
        no_exception(page)
        snap(page, screenshots / f"{name}.png")

    with page.expect_download() as download:
        page.get_by_role("button", name="Turns as RTTM").click()
    assert download.value.suggested_filename == "ES2005a_bayes.rttm"
    text = open(download.value.path()).read()
    assert text.startswith("SPEAKER ES2005a 1 ")

    page.get_by_role("radio", name="Spectral").or_(page.get_by_role("button", name="Spectral")).first.click()
    wait_idle(page)
    page.get_by_role("tab", name="Similarity matrix", exact=True).click()
    wait_idle(page)
    wait_for_charts(page)
    no_exception(page)
    snap(page, screenshots / "diarization_spectral.png")


# under the matrix come its x tick labels, the axis title and the figure's bottom margin: about 80 px at 1600 px
MAX_GAP_UNDER_MATRIX = 100


def test_nothing_blank_under_the_similarity_matrix(page: Page, app_url, screenshots):
    open_diarization(page, app_url)
    page.get_by_role("button", name="Cluster").click()
    wait_idle(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Speakers found")).to_contain_text("4", timeout=60_000)
    wait_for_charts(page)
    chart = page.get_by_test_id("stPlotlyChart").first
    plot_areas = [area.bounding_box() for area in chart.locator(".nsewdrag").all()]  # the strips and the matrix
    matrix_bottom = max(box["y"] + box["height"] for box in plot_areas)
    caption = page.get_by_test_id("stCaptionContainer").filter(has_text="Each pixel is the score")
    gap = caption.bounding_box()["y"] - matrix_bottom
    snap(page, screenshots / "diarization_matrix.png")
    assert 0 < gap <= MAX_GAP_UNDER_MATRIX, f"{gap:.0f} px between the matrix and the text under it"


def test_upload_a_matrix_and_a_bad_file(page: Page, app_url, screenshots, tmp_path):
    rng = np.random.default_rng(3)
    labels = np.repeat([0, 1, 2], [40, 30, 20])
    scores = np.where(labels[:, None] == labels[None, :], 10.0, -20.0) + rng.normal(0, 4, (90, 90))
    scores = np.round((scores + scores.T) / 2, 3)
    path = tmp_path / "three speakers.csv"
    np.savetxt(path, scores, delimiter=",", fmt="%.3f")

    open_diarization(page, app_url)
    page.get_by_text("Upload a similarity matrix").click()
    page.locator(".st-key-diar_upload input[type=file]").set_input_files(path)
    expect(page.get_by_text("Loaded three speakers.csv: 90 segments.")).to_be_visible(timeout=30_000)
    wait_idle(page)
    page.get_by_role("button", name="Cluster").click()
    wait_idle(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Speakers found")).to_contain_text("3", timeout=60_000)
    no_exception(page)
    snap(page, screenshots / "diarization_uploaded.png")

    bad = tmp_path / "broken.csv"
    bad.write_text("1,2\n3\n")
    page.locator(".st-key-diar_upload input[type=file]").set_input_files(bad)
    error = page.get_by_test_id("stAlertContentError")
    expect(error.first).to_be_visible(timeout=30_000)
    expect(error.first).to_contain_text("broken.csv")
    wait_idle(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Speakers found")).to_contain_text("3")  # still there
    no_exception(page)
    snap(page, screenshots / "diarization_bad_upload.png")


def test_second_demo_two_speakers_from_cosines(page: Page, app_url, screenshots):
    open_diarization(page, app_url)
    page.locator(".st-key-diar_set").get_by_role("combobox").click()
    page.get_by_role("option", name=re.compile("pyannote sample")).click()
    wait_idle(page)
    expect(page.get_by_text("demo: pyannote_sample", exact=False)).to_contain_text("74 segments")
    page.get_by_role("button", name="Cluster").click()
    wait_idle(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Speakers found")).to_contain_text("2", timeout=60_000)
    wait_for_charts(page)
    no_exception(page)
    snap(page, screenshots / "diarization_pyannote_sample.png")
    page.get_by_role("tab", name="Timeline", exact=True).click()
    wait_idle(page)
    wait_for_charts(page)
    no_exception(page)
    snap(page, screenshots / "diarization_pyannote_sample_timeline.png")

