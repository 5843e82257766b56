"""The Classifier calibration page in headless Chromium: the demo outputs, the other demo, the log score, a good and a
bad upload of probabilities.

Independent references: the published ECE of the demo classifiers (Ferrer & Ramos, TMLR 2025, Table 2: CIFAR-10
ResNet-20 3.9 %, IEMOCAP wav2vec 6.3 %; tests/data/multiclass/PUBLISHED.txt) and the library's values, which
tests/test_classifier_calibration.py holds against scikit-learn and a direct NLL minimisation. Screenshots go to
``tests/e2e/screenshots/classifier_*.png`` for a human to look at.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle

pytestmark = pytest.mark.e2e


def open_classifier(page: Page, app_url: str) -> None:
    open_page(page, f"{app_url}/classifier")
    expect(page.get_by_role("heading", name="Classifier calibration")).to_be_visible()


def test_classifier_page_on_the_demo_outputs(page: Page, app_url, screenshots):
    open_classifier(page, app_url)
    wait_for_charts(page, 3)
    metrics = page.get_by_test_id("stMetric")
    expect(metrics.nth(2)).to_contain_text("3.90 → 0.84 %")  # CIFAR-10: published raw ECE 3.9 %
    expect(metrics.nth(1)).to_contain_text("1.670")
    expect(page.get_by_text("CORP's miscalibration (MCB) takes its bins from PAV", exact=False)).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "classifier_cifar10.png")

    page.get_by_role("combobox", name="Demo classifier").click()
    page.get_by_role("option", name=re.compile("IEMOCAP")).click()
    wait_idle(page)
    expect(page.get_by_test_id("stMetric").nth(2)).to_contain_text("6.29 →", timeout=30_000)  # published 6.3 %
    page.locator(".st-key-cc_score").get_by_text("log (bits)", exact=True).click()
    wait_idle(page)
    wait_for_charts(page, 3)
    expect(page.get_by_text("Mean log score = MCB − DSC + UNC", exact=False).first).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "classifier_iemocap_log.png")
    with page.expect_download() as download:  # the page's report: the same numbers in one self-contained file
        page.get_by_role("button", name="Report as HTML").click()
    html = open(download.value.path(), encoding="utf-8").read()
    assert "<title>Calibration of iemocap_wav2vec_pt</title>" in html and "6.29%" in html
    assert html.count('class="figure"') == 3 and "Mean log score" in html


def test_classifier_upload_good_and_bad(page: Page, app_url, screenshots, tmp_path):
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 3, 500)
    logits = 3.0 * np.eye(3)[labels] + rng.normal(0, 1.5, (500, 3))
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    good = tmp_path / "three classes.csv"
    good.write_text("a,b,c,label\n" + "".join(f"{x:.6f},{y:.6f},{z:.6f},{k}\n"
                                              for (x, y, z), k in zip(probabilities, labels)))
    bad = tmp_path / "not probabilities.csv"
    bad.write_text("a,b,c,label\n0.2,0.3,0.5,0\n0.4,1.7,0.1,1\n")
    open_classifier(page, app_url)
    page.get_by_text("Upload classifier outputs").click()
    wait_idle(page)
    page.get_by_text("probabilities (softmax outputs)").click()
    wait_idle(page)
    expect(page.get_by_role("radio", name="probabilities (softmax outputs)")).to_be_checked()
    page.locator(".st-key-cc_upload input[type=file]").set_input_files(good)
    expect(page.get_by_text("Upload three classes.csv: 500 trials of 3 classes", exact=False)).to_be_visible(
        timeout=30_000)
    wait_for_charts(page, 3)
    no_exception(page)
    snap(page, screenshots / "classifier_upload.png")

    page.locator(".st-key-cc_upload input[type=file]").set_input_files(bad)
    expect(page.get_by_text("these are not probabilities", exact=False)).to_be_visible(timeout=30_000)
    wait_for_charts(page, 3)  # the demo is shown instead
    no_exception(page)
