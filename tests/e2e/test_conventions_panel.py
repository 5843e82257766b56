"""Evaluate's panel "Why do my numbers differ from other tools?", in headless Chromium at 1600 px: the app opened at
home, Evaluate reached through the sidebar with its defaults untouched, the panel opened.

Independent reference: the numbers the grid shows (its accessible table, as the page writes them) against
``lc.eer_conventions`` on the same demo file read here by the library, at the page's default operating point
(P_target 0.01, unit costs), printed with the grid's formats; and the ASVspoof row against the organisers'
``compute_eer`` re-implemented in tests/binary/test_eer_conventions.py, the Kaldi row's minDCF against Kaldi's
``compute_min_dcf.py`` vendored in tests/reference/kaldi_compute_min_dcf.py.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Page, expect
from test_browser import grid_rows, no_exception, open_page, snap, wait_idle

import llrcore as lc

pytestmark = pytest.mark.e2e

ASV_EVAL = Path(__file__).resolve().parents[2] / "assets" / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
TITLE = "Why do my numbers differ from other tools?"


def test_panel_shows_the_libraries_conventions_of_the_first_system(page: Page, app_url, screenshots):
    open_page(page, app_url)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Evaluate", exact=True).click()
    wait_idle(page, timeout=180_000)
    panel = page.get_by_test_id("stExpander").filter(has_text=TITLE)
    expect(panel.get_by_test_id("stDataFrame")).to_have_count(0)  # folded: nothing computed yet
    panel.get_by_text(TITLE).click()
    wait_idle(page, timeout=120_000)
    expect(panel.get_by_role("combobox", name="System", exact=True)).to_have_value("ASVspoof19 LA ASV (eval)")
    header, *rows = grid_rows(page, panel.get_by_test_id("stDataFrame"))
    assert header[-6:] == ["tool", "EER %", "EER % − ours", "minDCF", "minDCF − ours", "threshold"]

    expected = lc.eer_conventions(lc.read_trials(ASV_EVAL), p_target=0.01).to_frame(percent=True)
    assert [row[-6] for row in rows] == list(expected["tool"])
    formats = {"EER %": "{:.4f}", "EER % − ours": "{:+.4f}", "minDCF": "{:.4f}", "minDCF − ours": "{:+.4f}",
               "threshold": "{:.4f}"}
    for row, (_, want) in zip(rows, expected.iterrows()):  # four decimals, as the metrics table shows them
        for cell, (column, form) in zip(row[-5:], formats.items()):
            if want[column] != want[column]:  # NaN: the tool has no such number, a dash (not "None")
                assert cell == "—", (column, cell)
            else:
                assert cell == form.format(want[column]), (row[-6], column)
    assert rows[1][-5] == "2.4578"  # ASVspoof's compute_eer on this file: 2.457783738686887 %
    lines = pd.read_csv(ASV_EVAL, sep=r"\s+", header=None, names=["source", "label", "score"])
    lines = lines[lines["label"] != "spoof"]  # the file's target and non-target lines, in its order
    vendored = Path(__file__).parents[1] / "reference" / "kaldi_compute_min_dcf.py"
    spec = importlib.util.spec_from_file_location("kaldi", vendored)
    kaldi = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kaldi)
    walked = kaldi.min_dcf(lines["score"], lines["label"] == "target")[0]  # Kaldi's script on the file's lines
    assert rows[3][-3] == f"{walked:.4f}"
    for why in expected["why"]:
        expect(panel.get_by_text(why.split(" (")[0][:40], exact=False).first).to_be_visible()
    no_exception(page)
    panel.scroll_into_view_if_needed()
    snap(page, screenshots / "evaluate_conventions.png")
