"""Whose DER on the Diarization page, in headless Chromium: md-eval's by default with the convention named, JER
beside it, the DER by number of reference speakers, and no bootstrap interval over too few recordings.

Independent references: the hand-made case of issue 41 (reference A 0-10 s; the system says x on 0-10 s and again on
5-10 s; no collar): md-eval and dscore merge x's two turns, DER 0 / 10 = 0 and JER 0; pyannote.metrics counts x
twice, 5 s of false alarm over 10 s, DER 50 % (tests/diarization/test_diarization_conventions.py holds these against md-eval-22
and pyannote.metrics); for two uploaded demo recordings, ``lc.diarization.score_system`` on
``lc.cluster_recordings`` computed here. Screenshots ``tests/e2e/screenshots/diarization_der_conventions.png`` and
``diarization_corpus_two.png`` (1600 px wide).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_idle
from test_conditions_page import go

pytestmark = pytest.mark.e2e

CORPUS = Path(__file__).resolve().parents[2] / "assets" / "diarization_corpus"
REF = "SPEAKER a 1 0.000 10.000 <NA> <NA> A <NA> <NA>\n"
SYS = "SPEAKER a 1 0.000 10.000 <NA> <NA> x <NA> <NA>\nSPEAKER a 1 5.000 5.000 <NA> <NA> x <NA> <NA>\n"
NO_INTERVAL = "no interval: a bootstrap over {} recording"


def metric(page: Page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label)


def test_own_overlapping_turns_md_eval_by_default_pyannote_on_request(page: Page, app_url, screenshots, tmp_path):
    open_page(page, app_url)
    go(page, "Diarization")
    page.get_by_role("tab", name="Score an RTTM", exact=True).click()
    wait_idle(page)
    (tmp_path / "ref.rttm").write_text(REF)
    (tmp_path / "sys.rttm").write_text(SYS)
    page.locator(".st-key-diar_score_reference input[type=file]").set_input_files(tmp_path / "ref.rttm")
    wait_idle(page)
    page.locator(".st-key-diar_score_system input[type=file]").set_input_files(tmp_path / "sys.rttm")
    wait_idle(page)
    collar = page.get_by_label("Collar (s)")
    collar.fill("0")
    collar.press("Enter")
    wait_idle(page)
    expect(metric(page, "DER (md-eval / dscore)")).to_contain_text("0.00 %")
    expect(metric(page, "JER (dscore)")).to_contain_text("0.00 %")
    expect(page.get_by_text("DER as md-eval and dscore compute it")).to_be_visible()
    expect(page.get_by_text(f"DER 0.00 % and JER 0.00 % ({NO_INTERVAL.format(1)} only reshuffles its own rates, "
                            "so an interval needs at least 10 recordings).")).to_be_visible()
    table = page.get_by_test_id("stTable")
    expect(table).to_contain_text("reference speakers")
    expect(table).to_contain_text("0.00")
    no_exception(page)
    page.set_viewport_size({"width": 1600, "height": 1100})
    snap(page, screenshots / "diarization_der_conventions.png")

    page.locator(".st-key-diar_score_der_convention").get_by_text("pyannote.metrics", exact=True).click()
    wait_idle(page)
    expect(metric(page, "DER (pyannote.metrics)")).to_contain_text("50.00 %")
    expect(page.get_by_test_id("stTable")).to_contain_text("50.00")
    no_exception(page)


def test_two_recordings_have_no_interval_and_a_table_by_speakers(page: Page, app_url, screenshots):
    names = ("synth03_k02", "synth05_k03")
    matrices = lc.read_corpus([CORPUS / f"{name}.npz" for name in names])
    scores = lc.diarization.score_system(matrices, lc.cluster_recordings(matrices, "bayes"))
    by_speakers = scores.by_speakers()
    assert list(by_speakers.index) == [2, 3]

    open_page(page, f"{app_url}/diarization")
    page.get_by_role("tab", name="Several recordings", exact=True).click()
    wait_idle(page)
    page.locator(".st-key-diar_corpus_upload input[type=file]").set_input_files(
        [str(CORPUS / f"{name}.{ext}") for name in names for ext in ("npz", "rttm")])
    wait_idle(page)
    expect(page.get_by_text("2 uploaded recordings: synth03_k02, synth05_k03")).to_be_visible()
    page.get_by_role("button", name="Run", exact=True).click()
    wait_idle(page, timeout=180_000)
    expect(metric(page, "DER (total)")).to_contain_text(f"{100 * scores.der:.2f} %", timeout=120_000)
    expect(metric(page, "JER (total)")).to_contain_text(f"{100 * scores.jer:.2f} %")
    expect(page.get_by_text(f"DER {100 * scores.der:.2f} % and JER {100 * scores.jer:.2f} % "
                            f"({NO_INTERVAL.format(2)}s only reshuffles their own rates, so an interval needs at "
                            "least 10 recordings).")).to_be_visible()
    rows = page.get_by_test_id("stTable").locator("tbody tr")
    expect(rows).to_have_count(2)
    for row, (speakers, values) in zip((rows.nth(0), rows.nth(1)), by_speakers.iterrows()):
        expect(row).to_contain_text(str(speakers))
        expect(row).to_contain_text(f"{values['DER %']:.2f}")
        expect(row).to_contain_text(f"{values['JER %']:.2f}")
    no_exception(page)
    page.set_viewport_size({"width": 1600, "height": 1100})
    snap(page, screenshots / "diarization_corpus_two.png")
