"""Consistency of what the app says (issue 28, "State and consistency"), in headless Chromium at 1600 px, walked as a
person does: the operating point's sentence in one unit when LR values are shown in log10, the diarization corpus's
speaker counts (the Fusion verdict judged at the operating point: test_fusion_page.py). Screenshots
``tests/e2e/screenshots/trust_*.png``.

Independent references: log10 prior odds ``log10(P / (1 - P))`` written out here; the speakers of each recording
counted with pandas in the reference RTTM files and in the turns ``lc.cluster_recordings`` returns.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts
from test_conditions_page import go
from test_diarization_corpus_page import run_the_demo_corpus
from test_units import choose_units

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
CORPUS = ASSETS / "diarization_corpus"


def test_the_operating_point_sentence_is_in_log10_when_lrs_are(page: Page, app_url, screenshots):
    open_page(page, app_url)
    choose_units(page, "log10")
    go(page, "Evaluate")
    main = page.get_by_test_id("stMain")
    odds = np.log10(0.01 / 0.99)
    expect(main.get_by_text(f"Effective prior log10-odds {odds:+.3f} (effective P_target 0.01): LLRs at or above "
                            f"{-odds:+.3f} (log10 LR) are accepted as targets.")).to_be_visible()
    expect(main.get_by_text("log-odds -4.595")).to_have_count(0)
    no_exception(page)
    snap(page, screenshots / "trust_evaluate_log10.png")

    go(page, "Bayes decisions")
    wait_for_charts(page, 2)
    expect(main.get_by_text(f"Prior log10-odds log10(0.01 / 0.99) = {odds:+.2f}. Bayes decision: accept a trial "
                            f"when its log10 LR is at least {-odds:+.2f}.")).to_be_visible()
    expect(main.get_by_text(f"It accepts a trial when its log10 LR is at least {-odds:+.2f}.")).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "trust_bayes_decisions_log10.png")

    choose_units(page, "natural log (ln)")
    go(page, "Evaluate")
    expect(main.get_by_text(f"Effective prior log-odds {np.log(0.01 / 0.99):+.3f} (effective P_target 0.01): LLRs "
                            f"at or above {-np.log(0.01 / 0.99):+.3f} (ln LR)")).to_be_visible()


def test_the_corpus_headline_counts_recordings_with_the_right_number_of_speakers(page: Page, app_url, screenshots):
    open_page(page, app_url)
    go(page, "Diarization")
    # the recording's own score model: its counts are off on two recordings whose errors cancel in the totals
    run_the_demo_corpus(page, "From this recording")
    hypotheses = lc.cluster_recordings(lc.read_corpus(CORPUS), "bayes", prior="recording")
    found = hypotheses.groupby("uri")["speaker"].nunique()
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
