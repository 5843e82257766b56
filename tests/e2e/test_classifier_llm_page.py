"""The Classifier calibration page in headless Chromium: the smooth ECE, the binned errors with their binning, AURC
and E-AURC, with their figures; on the defaults (CIFAR-10) and on the LLM demo (GPT-2 on AG News), as a person picks
it from the list, at 1280 and 800 px.

Independent references: the library's functions called here on the demo files themselves (``lc.smooth_ece``,
``lc.calibration_errors``, ``lc.aurc`` on ``softmax`` of the outputs; each held to relplot, hand arithmetic and the
definitions in tests/multiclass), and the accuracy of GPT-2 on AG News by numpy's argmax (published 1-ACC 0.585,
Ferrer & Ramos, TMLR 2025; assets/multiclass/agnews_gpt2/SOURCE.txt). Screenshots go to
``tests/e2e/screenshots/classifier_llm_*.png`` for a human to look at.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from scipy.special import softmax
from test_browser import grid_rows, no_exception, open_page, snap, wait_for_charts, wait_idle

import llrcore as lc

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "multiclass"
REPLICATES = 200  # the page's bands


def card(page: Page, label: str):
    """The metric card whose label starts with `label` ("AURC" is not "E-AURC")."""
    return page.get_by_test_id("stMetric").filter(has_text=re.compile(f"^{re.escape(label)}"))


def expected(folder: str) -> tuple[lc.ClassifierCalibration, np.ndarray, np.ndarray]:
    """The page's analysis with its defaults, and the raw probabilities and labels of a demo file."""
    scores = lc.read_multiclass(ASSETS / folder / "scores.npy", labels=ASSETS / folder / "targets.npy",
                                score_type="logit")
    result = lc.classifier_calibration(scores.llrs, scores.labels, n=REPLICATES)
    return result, softmax(scores.llrs, axis=1), scores.labels


def check_numbers(page: Page, result: lc.ClassifierCalibration, probabilities, labels) -> None:
    """Cards and the table of errors against the library on the file."""
    smooth = lc.smooth_ece(probabilities, labels, n=0)
    ranked = lc.aurc(probabilities.max(axis=1), probabilities.argmax(axis=1) == labels)
    scaled_smooth, scaled_aurc = result.smooth["scaled"], result.selective["scaled"]
    expect(card(page, "Smooth ECE")).to_contain_text(
        f"{100 * smooth.smece:.2f} → {100 * scaled_smooth.smece:.2f} %", timeout=60_000)
    expect(card(page, "E-AURC")).to_contain_text(f"{100 * ranked.e_aurc:.2f} → {100 * scaled_aurc.e_aurc:.2f} %")
    expect(card(page, "AURC raw")).to_contain_text(f"{100 * ranked.aurc:.2f} → {100 * scaled_aurc.aurc:.2f} %")
    errors = lc.calibration_errors(probabilities, labels)  # the defaults: 15 equal-width bins, top label
    heading = page.get_by_role("heading", name=re.compile("Calibration errors over"))
    expect(heading).to_have_text(f"Calibration errors over {errors.binning_name}")
    grid = page.get_by_test_id("stDataFrame").filter(has_text="RMS-CE")
    header, *rows = grid_rows(page, grid)
    raw = header.index("raw %")
    assert [row[header.index("measure")] for row in rows] == ["ECE", "ACE", "MCE", "RMS-CE"]
    assert [float(row[raw]) for row in rows] == pytest.approx(
        [100 * errors.ece, 100 * errors.ace, 100 * errors.mce, 100 * errors.rms_ce], rel=1e-12)
    assert {row[header.index("binning")] for row in rows} == {errors.binning_name}


def test_llm_demo_smooth_ece_errors_and_aurc(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/classifier")
    expect(page.get_by_role("heading", name="Classifier calibration")).to_be_visible()
    wait_for_charts(page, 5)  # CORP, smooth, binned, decomposition, risk-coverage
    cifar = expected("cifar10_resnet-20")
    check_numbers(page, *cifar)
    no_exception(page)

    choose = page.get_by_role("combobox", name="Demo classifier")
    choose.scroll_into_view_if_needed()
    choose.click()
    page.get_by_role("option", name=re.compile("GPT-2 on AG News")).click()
    wait_idle(page, timeout=120_000)
    expect(page.get_by_text("7,600 trials of 4 classes", exact=False)).to_be_visible(timeout=60_000)
    result, probabilities, labels = expected("agnews_gpt2")
    expect(card(page, "Accuracy")).to_contain_text(f"{100 * np.mean(probabilities.argmax(axis=1) == labels):.2f} %")
    check_numbers(page, result, probabilities, labels)
    wait_for_charts(page, 5)
    expect(page.get_by_text(f"smooth ECE {100 * result.smooth['raw'].smece:.2f} %", exact=False).first).to_be_visible()
    no_exception(page)
    for width in (1280, 800):
        page.set_viewport_size({"width": width, "height": 1000})
        wait_for_charts(page, 5)
        no_exception(page)
        snap(page, screenshots / f"classifier_llm_agnews_{width}.png")
