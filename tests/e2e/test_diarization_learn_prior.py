"""The Diarization page learns a prior from uploaded labelled recordings, downloads it as JSON, and uses the uploaded
file on a new recording (issue 46), in headless Chromium as a person does it.

Independent reference: ``lc.fit_diarization_prior`` on the same three recordings of the development corpus
(tests/data/diarization_corpus, their reference RTTMs), its leave-one-out report and JSON computed here;
``lc.cluster_similarity(..., prior=...)`` with the prior read from the downloaded file on a fourth recording.
Screenshots ``tests/e2e/screenshots/diarization_learn_prior.png`` and ``diarization_prior_file.png``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_idle

pytestmark = pytest.mark.e2e

DEV = Path(__file__).resolve().parents[2] / "tests" / "data" / "diarization_corpus"
LABELLED = ("synth03_k02", "synth04_k02", "synth06_k03")
NEW = "synth07_k04"


def test_learn_a_prior_download_it_and_use_the_file(page: Page, app_url, screenshots, tmp_path):
    open_page(page, f"{app_url}/diarization")
    page.get_by_role("tab", name="Several recordings", exact=True).click()
    wait_idle(page)
    files = [str(DEV / f"{name}.{ext}") for name in LABELLED for ext in ("npz", "rttm")]
    page.locator(".st-key-diar_corpus_upload input[type=file]").set_input_files(files)
    wait_idle(page)
    expect(page.get_by_text("3 uploaded recordings: synth03_k02, synth04_k02, synth06_k03")).to_be_visible()
    page.get_by_role("button", name="Learn a prior").click()
    wait_idle(page, timeout=180_000)
    no_exception(page)

    expected = lc.fit_diarization_prior(lc.read_corpus(files))
    expect(page.get_by_text(expected.report.sentence())).to_be_visible(timeout=120_000)
    with page.expect_download() as event:
        page.get_by_role("button", name="Prior as JSON").click()
    assert event.value.suggested_filename == "prior.json"
    path = tmp_path / "prior.json"
    event.value.save_as(path)
    downloaded = lc.diarization.BlockModelPrior.from_json(path.read_text())
    assert downloaded == expected  # the hyper-parameters, bit for bit
    assert json.loads(path.read_text())["learnt_on"]["recordings"] == 3
    page.mouse.move(0, 0)
    snap(page, screenshots / "diarization_learn_prior.png")

    page.get_by_role("tab", name="One recording", exact=True).click()
    wait_idle(page)
    page.get_by_text("Upload a similarity matrix").click()
    page.locator(".st-key-diar_reference input[type=file]").set_input_files(str(DEV / f"{NEW}.rttm"))
    wait_idle(page)
    page.locator(".st-key-diar_upload input[type=file]").set_input_files(str(DEV / f"{NEW}.npz"))
    expect(page.get_by_text(f"Loaded {NEW}.npz")).to_be_visible(timeout=30_000)
    wait_idle(page)
    page.locator(".st-key-diar_prior_upload input[type=file]").set_input_files(str(path))
    wait_idle(page)
    expect(page.get_by_text("Learnt on 3 recordings.")).to_be_visible()
    page.get_by_role("button", name="Cluster").click()
    wait_idle(page, timeout=120_000)
    no_exception(page)

    matrix = lc.read_similarity(DEV / f"{NEW}.npz", reference=DEV / f"{NEW}.rttm")
    result = lc.cluster_similarity(matrix, prior=downloaded)
    expect(page.get_by_test_id("stMetric").filter(has_text="Speakers found")).to_contain_text(
        str(result.n_clusters), timeout=60_000)
    der = lc.compare_methods(matrix, {"Bayesian block model": result}).to_frame()["DER"].iloc[0]
    expect(page.get_by_test_id("stMetric").filter(has_text="DER")).to_contain_text(f"{100 * der:.2f} %")
    expect(page.get_by_text(result.sentence())).to_be_visible()
    page.mouse.move(0, 0)
    snap(page, screenshots / "diarization_prior_file.png")
