"""The Classifier calibration page in headless Chromium: the demo outputs, the other demo, the log score, a good and a
bad upload of probabilities, the ECE in one unit (%) in the cards and the table, and the panel "Why does my ECE
differ from other tools?".

Independent references: the published ECE of the demo classifiers (Ferrer & Ramos, TMLR 2025, Table 2: CIFAR-10
ResNet-20 3.9 %, IEMOCAP wav2vec 6.3 %; tests/data/multiclass/PUBLISHED.txt) and the library's values, which
tests/calibration/test_classifier_calibration.py holds against scikit-learn and a direct NLL minimisation and
tests/multiclass/test_ece_conventions.py holds against scikit-learn, netcal and torchmetrics. Screenshots go to
``tests/e2e/screenshots/classifier_*.png`` for a human to look at.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from scipy.special import softmax
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_calibration_pages import download_file as download
from test_figures_show_what_they_promise_page import grid_rows

import llrcore as lc

pytestmark = pytest.mark.e2e

CIFAR10 = Path(__file__).resolve().parents[2] / "assets" / "multiclass" / "cifar10_resnet-20"
ECE_TITLE = "Why does my ECE differ from other tools?"


def open_classifier(page: Page, app_url: str) -> None:
    open_page(page, f"{app_url}/classifier")
    expect(page.get_by_role("heading", name="Classifier calibration")).to_be_visible()


def move_bins(page: Page, key: str, value: str) -> None:
    """Five presses of `key` on the ECE's bins slider, by keyboard as a person may; it then shows `value`."""
    slider = page.get_by_role("slider", name="Bins of the ECE")
    slider.focus()
    for _ in range(5):
        slider.press(key)
    wait_idle(page, timeout=120_000)
    expect(slider).to_have_value(value)


def test_ece_in_one_unit_the_conventions_panel_and_the_temperature(page: Page, app_url, screenshots, tmp_path):
    """Defaults untouched (CIFAR-10, 15 equal-width bins, top label): the table's ECE % and MCE % are the card's
    percent; the panel, opened, shows each tool's ECE of the raw probabilities as lc.ece_conventions gives it; then
    the bins slider moved to 10 by keyboard changes the panel with it. Last, "Temperature as JSON" read back by
    lc.load_calibrator gives the temperature of lc.fit_temperature on the demo's logits, its probabilities bit for
    bit, and the card's T (the bins do not change it). Then, at 15 bins again, the IEMOCAP demo with the log score
    and the page's HTML report; then a good upload of probabilities, and a bad one (the demo is shown instead)."""
    open_classifier(page, app_url)
    wait_for_charts(page, 3)
    card = page.get_by_test_id("stMetric").nth(2)
    expect(card).to_contain_text("3.90 → 0.84 %")  # CIFAR-10: published raw ECE 3.9 %
    expect(page.get_by_test_id("stMetric").nth(1)).to_contain_text("1.670")
    expect(page.get_by_text("CORP's miscalibration (MCB) takes its bins from PAV", exact=False)).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "classifier_cifar10.png")
    header, *rows = grid_rows(page, page.get_by_test_id("stDataFrame").first)
    ece, mce = header.index("ECE %"), header.index("MCE %")
    # the grid's accessible table holds the numbers; the grid draws them with two decimals, as the card
    assert "ece" not in header and [f"{float(row[ece]):.2f}" for row in rows] == ["3.90", "0.84"]
    scores = lc.read_multiclass(CIFAR10 / "scores.npy", labels=CIFAR10 / "targets.npy", score_type="logit")
    raw = lc.binned_ece(softmax(scores.llrs, axis=1), scores.labels, bins=15)
    assert float(rows[0][ece]) == pytest.approx(100 * raw.ece, rel=1e-12)
    assert float(rows[0][mce]) == pytest.approx(100 * raw.mce, rel=1e-12)

    panel = page.get_by_test_id("stExpander").filter(has_text=ECE_TITLE)
    expect(panel.get_by_test_id("stDataFrame")).to_have_count(0)  # folded: nothing computed yet
    panel.get_by_text(ECE_TITLE).click()
    wait_idle(page, timeout=120_000)
    for bins in (15, 10):
        expected = lc.ece_conventions(softmax(scores.llrs, axis=1), scores.labels, bins, percent=True)
        header, *rows = grid_rows(page, panel.get_by_test_id("stDataFrame"))
        for _ in range(60):  # the slider's rerun may start after wait_idle saw the page idle: wait for its table
            if float(rows[0][-1]) == pytest.approx(expected["ECE %"].iloc[0], rel=1e-12):
                break
            page.wait_for_timeout(1000)
            wait_idle(page, timeout=120_000)
            header, *rows = grid_rows(page, panel.get_by_test_id("stDataFrame"))
        assert header[-2:] == ["convention", "ECE %"]
        assert [row[-2] for row in rows] == list(expected["convention"])
        assert [float(row[-1]) for row in rows] == pytest.approx(list(expected["ECE %"]), rel=1e-12), bins
        if bins == 15:
            assert f"{float(rows[0][-1]):.2f}" == "3.90"  # the card's raw ECE: the top label in 15 equal-width bins
            for why in expected["why"]:
                expect(panel.get_by_text(why[:40], exact=False).first).to_be_visible()
            no_exception(page)
            panel.scroll_into_view_if_needed()
            snap(page, screenshots / "classifier_ece_conventions.png")
            move_bins(page, "ArrowLeft", "10")
    no_exception(page)

    fitted = lc.fit_temperature(scores.llrs, scores.labels)
    path, name = download(page, "Temperature as JSON", tmp_path)
    assert name == "temperature_cifar10_resnet-20.json"
    loaded = lc.load_calibrator(path)
    assert isinstance(loaded, lc.Temperature) and loaded.temperature == fitted.temperature
    assert np.array_equal(loaded(scores.llrs), fitted(scores.llrs))
    np.testing.assert_allclose(loaded(scores.llrs), softmax(scores.llrs / fitted.temperature, axis=1), atol=1e-15)
    expect(page.get_by_test_id("stMetric").nth(1)).to_contain_text(f"{loaded.temperature:.3f}")
    assert json.loads(path.read_text(encoding="utf-8"))["features"][:3] == ["airplane", "automobile", "bird"]
    page.get_by_role("button", name="Temperature as JSON").scroll_into_view_if_needed()
    snap(page, screenshots / "classifier_temperature_json.png")

    # back to 15 bins, the second demo classifier, the log score, and the page's report
    move_bins(page, "ArrowRight", "15")
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
    with page.expect_download() as report:  # the page's report: the same numbers in one self-contained file
        page.get_by_role("button", name="Report as HTML").click()
    html = open(report.value.path(), encoding="utf-8").read()
    assert "<title>Calibration of iemocap_wav2vec_pt</title>" in html and "6.29%" in html
    assert html.count('class="figure"') == 5 and "Mean log score" in html

    # last, a good and a bad upload of probabilities
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 3, 500)
    logits = 3.0 * np.eye(3)[labels] + rng.normal(0, 1.5, (500, 3))
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    good = tmp_path / "three classes.csv"
    good.write_text("a,b,c,label\n" + "".join(f"{x:.6f},{y:.6f},{z:.6f},{k}\n"
                                              for (x, y, z), k in zip(probabilities, labels)))
    bad = tmp_path / "not probabilities.csv"
    bad.write_text("a,b,c,label\n0.2,0.3,0.5,0\n0.4,1.7,0.1,1\n")
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
