"""The Diarization page's "Several recordings" tab in headless Chromium, as a person uses it: home page, Diarization
through the sidebar, the tab, the demo corpus, Run; the TOTAL DER shown is the library's, with the default score
model, the one learnt from the other recordings and each recording's own; the headline counts the recordings with the
right number of speakers (issue 28); then One recording with the model learnt from the loaded corpus.

Independent reference: ``lc.score_corpus`` on ``lc.cluster_recordings`` of the same six recordings
(assets/diarization_corpus), computed here; the downloaded CSV against it row by row; with the score model learnt
from the other recordings, ``lc.cluster_recordings(..., prior_from_others=True)``; the speakers of each recording
counted with pandas in the reference RTTM files and in the turns ``lc.cluster_recordings(..., prior="recording")``
returns; on the One recording tab, with the model learnt from the loaded corpus,
``lc.cluster_similarity(..., prior=BlockModelPrior.from_recordings(corpus))``. Screenshots
``tests/e2e/screenshots/diarization_corpus*.png``, ``trust_diarization_corpus.png`` and
``diarization_learnt_from_corpus.png`` (1600 px wide).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_idle
from test_conditions_page import choose, download, go

pytestmark = pytest.mark.e2e

CORPUS = Path(__file__).resolve().parents[2] / "assets" / "diarization_corpus"


def run_the_demo_corpus(page: Page, score_model: str | None = None):
    """The tab (unless it is open: a click on it runs nothing), the demo corpus, the score model if one is named, Run;
    returns the TOTAL DER metric shown."""
    tab = page.get_by_role("tab", name="Several recordings", exact=True)
    if tab.get_attribute("aria-selected") != "true":
        tab.click()
        wait_idle(page)
        expect(tab).to_have_attribute("aria-selected", "true")
    page.get_by_role("button", name="The demo corpus").click()
    wait_idle(page)
    expect(page.get_by_text("synth02_k01, synth03_k02")).to_be_visible()
    if score_model is not None:
        choose(page, "Score model (Bayes)", score_model)
    page.get_by_role("button", name="Run", exact=True).click()
    wait_idle(page, timeout=180_000)
    shown = page.get_by_test_id("stMetric").filter(has_text="DER (total)")
    expect(shown).to_be_visible(timeout=120_000)
    no_exception(page)
    return shown


def test_the_demo_corpus_with_three_score_models_then_one_recording_with_the_model_learnt_from_it(
        page: Page, app_url, screenshots):
    open_page(page, app_url)
    go(page, "Diarization")
    expect(page.get_by_role("heading", name="Diarization")).to_be_visible()
    page.locator(".st-key-diar_prior").click()  # without a corpus, no model learnt from it is offered
    expect(page.get_by_role("option", name="Learnt: the loaded corpus")).to_have_count(0)
    page.keyboard.press("Escape")
    shown = run_the_demo_corpus(page)

    matrices = lc.read_corpus(CORPUS)
    expected = lc.score_corpus(matrices, lc.cluster_recordings(matrices, "bayes")).to_frame()
    expect(shown).to_contain_text(f"{expected.loc['TOTAL', 'DER %']:.2f} %")
    jer = page.get_by_test_id("stMetric").filter(has_text="JER (total)")
    expect(jer).to_contain_text(f"{expected.loc['TOTAL', 'JER %']:.2f} %")

    table = download(page, page.get_by_role("button", name="Table as CSV")).set_index("uri")
    assert list(table.index) == [*(m.uri for m in matrices), "TOTAL"]
    assert np.allclose(table["DER %"], expected["DER %"]) and np.allclose(table["coverage %"], expected["coverage %"])
    snap(page, screenshots / "diarization_corpus.png")

    # The person keeps the Bayesian method, picks the score model learnt from the other recordings and runs again:
    # each recording clustered with the model of the five others. The demo's one-speaker recording gets one speaker
    # (its own scores' model, ``prior="recording"``, finds two); the numbers are the library's.
    shown = run_the_demo_corpus(page, "Learnt from the other recordings")
    expected = lc.score_corpus(matrices, lc.cluster_recordings(matrices, "bayes", prior_from_others=True)).to_frame()
    own_turns = lc.cluster_recordings(matrices, "bayes", prior="recording")
    own = lc.score_corpus(matrices, own_turns).to_frame()
    assert expected.loc["synth02_k01", "found"] == 1 and own.loc["synth02_k01", "found"] == 2
    expect(shown).to_contain_text(f"{expected.loc['TOTAL', 'DER %']:.2f} %")
    table = download(page, page.get_by_role("button", name="Table as CSV")).set_index("uri")
    assert np.allclose(table["DER %"], expected["DER %"]) and list(table["found"]) == list(expected["found"])
    snap(page, screenshots / "diarization_corpus_learnt.png")

    # the recording's own score model: its counts are off on two recordings whose errors cancel in the totals, and
    # the headline counts recordings with the right number of speakers (issue 28)
    run_the_demo_corpus(page, "From this recording")
    found = own_turns.groupby("uri")["speaker"].nunique()
    reference = {path.stem: pd.read_csv(path, sep=r"\s+", header=None)[7].nunique()
                 for path in sorted(CORPUS.glob("*.rttm"))}
    errors = [abs(found.get(uri, 0) - n) for uri, n in reference.items()]
    right, off = sum(e == 0 for e in errors), sum(errors)
    assert (right, off, found.sum() - sum(reference.values())) == (4, 2, 0)  # the totals alone hide two errors
    headline = page.get_by_test_id("stMetric").filter(has_text="Speaker count right")
    expect(headline).to_contain_text(f"{right} of {len(reference)}")
    expect(headline).to_contain_text(f"{off} speakers off in all")
    no_exception(page)
    page.mouse.move(0, 0)
    snap(page, screenshots / "trust_diarization_corpus.png")

    # back on One recording: pyannote's sample clustered with the score model learnt from the loaded corpus
    page.get_by_role("tab", name="One recording", exact=True).click()
    wait_idle(page)
    page.locator(".st-key-diar_set").get_by_role("combobox").click()
    page.get_by_role("option", name=re.compile("pyannote sample")).click()
    wait_idle(page)
    page.locator(".st-key-diar_prior").click()
    page.get_by_role("option", name="Learnt: the loaded corpus").click()
    wait_idle(page)
    expect(page.get_by_text("From the references of Several recordings: The demo corpus")).to_be_visible()
    page.get_by_role("button", name="Cluster").click()
    wait_idle(page, timeout=120_000)
    no_exception(page)
    prior = lc.diarization.BlockModelPrior.from_recordings(matrices)
    sample = lc.read_similarity(CORPUS.parent / "pyannote_sample" / "sample_similarity.npz")
    expected = lc.cluster_similarity(sample, "bayes", prior=prior).n_clusters
    assert expected != lc.cluster_similarity(sample, "bayes").n_clusters  # the choice is what changed the answer
    expect(page.get_by_test_id("stMetric").filter(has_text="Speakers found")).to_contain_text(str(expected),
                                                                                            timeout=60_000)
    page.mouse.move(0, 0)  # no tooltip over the page
    snap(page, screenshots / "diarization_learnt_from_corpus.png")


def test_uploaded_recordings_pair_by_name_and_a_missing_rttm_is_said(page: Page, app_url):
    open_page(page, f"{app_url}/diarization")
    page.get_by_role("tab", name="Several recordings", exact=True).click()
    wait_idle(page)
    uploader = page.locator(".st-key-diar_corpus_upload input[type=file]")
    uploader.set_input_files([str(CORPUS / "synth05_k03.npz"), str(CORPUS / "synth03_k02.npz"),
                              str(CORPUS / "synth03_k02.rttm")])
    wait_idle(page)
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("synth05_k03.rttm is missing")
    no_exception(page)
    page.get_by_role("button", name="Remove synth05_k03.npz").click()
    wait_idle(page)  # the person removes the matrix without its RTTM
    expect(page.get_by_text("1 uploaded recording: synth03_k02")).to_be_visible()
    page.get_by_role("button", name="Run", exact=True).click()
    wait_idle(page, timeout=120_000)
    (matrix,) = lc.read_corpus([CORPUS / "synth03_k02.npz"])
    expected = lc.score_corpus([matrix], lc.cluster_recordings([matrix], "bayes")).to_frame()
    expect(page.get_by_test_id("stMetric").filter(has_text="DER (total)")).to_contain_text(
        f"{expected.loc['TOTAL', 'DER %']:.2f} %")
