"""The Multiclass page in headless Chromium: demo data with its LRE costs, every tab, a good and a bad upload, then
the second demo (one page load per walk: a load costs Chromium about 2 CPU-s).

Screenshots go to ``tests/e2e/screenshots/multiclass_*.png`` for a human to look at.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle

import llrcore as lc

pytestmark = pytest.mark.e2e

IEMOCAP = Path(__file__).resolve().parents[2] / "assets" / "multiclass" / "iemocap_wav2vec_pt"


def open_multiclass(page: Page, app_url: str) -> None:
    open_page(page, f"{app_url}/multiclass")
    expect(page.get_by_role("heading", name="Multiclass calibration")).to_be_visible()


def open_tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    wait_idle(page)


def test_multiclass_page_on_the_demo_data_then_uploads_and_the_second_demo(page: Page, app_url, screenshots, tmp_path):
    """Defaults untouched (IEMOCAP): the Cllr card, the NIST LRE costs of the library before and after calibration,
    then every tab and the prior of the class frequencies; then a good and a bad upload, and CIFAR-10."""
    scores = lc.read_multiclass(IEMOCAP / "scores.npy", labels=IEMOCAP / "targets.npy", score_type="log-posterior",
                                training_prior="empirical")
    table = lc.cavg_table(scores, lc.fit_multiclass_affine(scores))
    open_multiclass(page, app_url)
    wait_for_charts(page)
    metrics = page.get_by_test_id("stMetric")
    expect(metrics.first).to_contain_text("1.211 bits")  # IEMOCAP, flat prior (tests/multiclass/test_multiclass.py checks it)
    expect(page.get_by_text("5,473 trials of 4 classes", exact=False)).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "multiclass_pairwise.png")

    costs = page.get_by_test_id("stTable")
    expect(page.get_by_text("Detection costs (NIST LRE)")).to_be_visible(timeout=30_000)
    for row, shown in (("raw", "raw LLRs"), ("calibrated", "after calibration")):
        line = costs.get_by_role("row").filter(has_text=shown)
        for column in ("cavg", "min_cavg", "cprimary", "min_cprimary"):
            expect(line).to_contain_text(f"{table.loc[row, column]:.4f}")
    costs.scroll_into_view_if_needed()
    snap(page, screenshots / "multiclass_costs.png")

    open_tab(page, "Detection")
    wait_for_charts(page, 2)
    expect(page.get_by_text("Detecting anger against the other classes", exact=False)).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "multiclass_detection.png")

    open_tab(page, "Decisions")
    wait_for_charts(page)
    expect(page.get_by_text("MAP identification: error rate", exact=False)).to_be_visible()
    page.locator(".st-key-mc_prior_kind").get_by_text("class frequencies", exact=True).click()
    wait_idle(page)
    wait_for_charts(page)
    no_exception(page)
    snap(page, screenshots / "multiclass_decisions.png")

    # then a good upload, a bad one (what was loaded stays), and the second demo
    rng = np.random.default_rng(11)
    labels = rng.integers(0, 3, 600)
    llrs = 2.0 * np.eye(3)[labels] + rng.normal(0, 1, (600, 3))
    good = tmp_path / "three languages.csv"
    names = np.array(["eng", "hin", "man"])
    good.write_text("eng,hin,man,label\n" + "".join(f"{a:.4f},{b:.4f},{c:.4f},{names[k]}\n"
                                                     for (a, b, c), k in zip(llrs, labels)))
    page.get_by_text("Upload a multiclass score file").click()
    page.locator(".st-key-mc_upload input[type=file]").set_input_files(good)
    expect(page.get_by_text("Loaded three languages.csv: 600 trials of 3 classes")).to_be_visible(timeout=30_000)
    wait_idle(page)
    expect(page.get_by_role("combobox", name="Data set")).to_have_value("three languages (upload)")
    wait_for_charts(page)
    no_exception(page)
    snap(page, screenshots / "multiclass_uploaded.png")

    bad = tmp_path / "broken.csv"
    bad.write_text("eng,hin,man,label\n0.1,0.2,0.3,eng\n0.1,oops,0.3,hin\n")
    page.locator(".st-key-mc_upload input[type=file]").set_input_files(bad)
    error = page.get_by_test_id("stAlertContentError")
    expect(error.first).to_contain_text("broken.csv, line 3", timeout=30_000)
    wait_idle(page)
    expect(page.get_by_role("combobox", name="Data set")).to_have_value("three languages (upload)")
    no_exception(page)
    snap(page, screenshots / "multiclass_bad_upload.png")

    # then the second demo, chosen among the data sets after the upload
    page.get_by_role("combobox", name="Data set").click()
    page.get_by_role("option", name=re.compile("CIFAR-10")).click()
    wait_idle(page)
    expect(page.get_by_text("10,000 trials of 10 classes", exact=False)).to_be_visible(timeout=30_000)
    wait_for_charts(page)
    expect(page.get_by_test_id("stMetric").first).to_contain_text("0.406 bits")
    no_exception(page)
    snap(page, screenshots / "multiclass_cifar10.png")
