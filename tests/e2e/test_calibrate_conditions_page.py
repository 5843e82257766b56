"""Calibration per condition on the Calibrate page, walked in headless Chromium at 1600 px as a person does: the
countermeasure demo's development and evaluation sets added on the Data page, the Calibrate page opened through the
sidebar, the trials broken down by attack, the calibrations downloaded as JSON, then cross-validation of the
development set.

Independent references: the downloaded table's numbers are recomputed from the demo files read with pandas (the
pooled calibration is ``fit_affine`` of all bona fide against all spoof development scores; a per-attack
calibration that of the bona fide trials against that attack's spoofs), and equal those of
``llrcore.calibrate_by_condition`` with the page's defaults; the downloaded JSON, read back by
``lc.load_calibrator``, calibrates the trials as that calibration does, bit for bit.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, snap, open_page, wait_for_charts, wait_idle
from test_calibration_pages import download_file
from test_conditions_page import add_demo, choose, download, go, type_number

pytestmark = pytest.mark.e2e

CM = Path(__file__).resolve().parents[2] / "assets" / "asvspoof2019_la_cm"
SYSTEM = "RawNet2-a"
DEV, EVAL = f"ASVspoof19 LA CM {SYSTEM} (dev)", f"ASVspoof19 LA CM {SYSTEM} (eval)"
PLO = float(np.log(0.01 / 0.99))  # the page's default prior weighting, P = 0.01


def read(part: str) -> pd.DataFrame:
    return pd.read_csv(CM / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz", sep="\t")


def break_down_by(page: Page, column: str) -> None:
    box = page.get_by_role("combobox", name="Break down by")
    expect(box).to_be_enabled()
    box.click()
    page.keyboard.type(column)
    page.get_by_role("option", name=column, exact=True).click()
    wait_idle(page, timeout=180_000)  # the option chosen runs the page; closing the list does not
    page.keyboard.press("Escape")


def table_csv(page: Page) -> pd.DataFrame:
    return download(page, page.locator(".st-key-cal_conditions_csv").get_by_role("button")).set_index("attack")


def calibrate_dev_by_attack(page: Page, app_url: str) -> None:
    """Through the sidebar: the two countermeasure demos added on Data, then Calibrate trained on the development
    set (the evaluation set comes as the set to judge on) and broken down by attack."""
    open_page(page, f"{app_url}/")
    go(page, "Data")
    add_demo(page, DEV)
    add_demo(page, EVAL)
    go(page, "Calibrate")
    choose(page, "Train on", DEV)
    expect(page.get_by_role("combobox", name="Evaluate on")).to_have_value(EVAL)
    break_down_by(page, "attack")


def test_calibration_per_attack_after_adding_the_countermeasure_demo(page: Page, app_url, screenshots, tmp_path):
    calibrate_dev_by_attack(page, app_url)
    expect(page.get_by_text(re.compile(r"of 13 attack values none has its own: all get the pooled one"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"The pooled calibration serves attack=A07, .* not in training"))).to_be_visible()
    wait_for_charts(page, 2)
    no_exception(page)
    snap(page, screenshots / "calibrate_per_attack.png")

    # dev -> eval: ASVspoof 2019 evaluates on attacks (A07-A19) the development set (A01-A06) has not seen, so each
    # is calibrated by the pooled calibration: all bona fide against all spoof development trials.
    table = table_csv(page)
    dev, evaluation = read("dev"), read("eval")
    pooled = lc.fit_affine(dev.loc[dev.key == "bonafide", SYSTEM], dev.loc[dev.key == "spoof", SYSTEM], plo=PLO)
    bona_fide = evaluation.loc[evaluation.key == "bonafide", SYSTEM].to_numpy()
    assert list(table.index) == [f"A{i:02d}" for i in range(7, 20)] + ["pooled"]
    for attack in ("A07", "A10", "A18"):
        spoof = evaluation.loc[evaluation.attack == attack, SYSTEM].to_numpy()
        assert table.loc[attack, "Cllr before"] == pytest.approx(lc.cllr(bona_fide, spoof), rel=1e-9)
        assert table.loc[attack, "Cllr pooled"] == pytest.approx(lc.cllr(pooled(bona_fide), pooled(spoof)), rel=1e-9)
        assert table.loc[attack, "Cllr per condition"] == table.loc[attack, "Cllr pooled"]
        assert table.loc[attack, "calibration"] == "pooled: not in training"
    dev_trials, eval_trials = (lc.read_trials(CM / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz")[SYSTEM]
                               for part in ("dev", "eval"))
    library = lc.calibrate_by_condition(dev_trials, eval_trials, "attack", plo=PLO, p_target=0.01)
    np.testing.assert_allclose(table.filter(like="actDCF").to_numpy(),
                               library.to_frame(eer_percent=True).filter(like="actDCF").to_numpy(), rtol=1e-9)

    # the page's per-attack calibration, downloaded and read back by lc.load_calibrator, calibrates the evaluation
    # trials exactly as lc.calibrate_by_condition's calibration with the page's defaults (bit for bit)
    path, name = download_file(page, "Calibrations per condition as JSON", tmp_path)
    assert name == "calibration_by_attack.json"
    loaded = lc.load_calibrator(path)
    calibration = library.calibration
    assert isinstance(loaded, lc.ConditionalCalibration) and loaded.by == ("attack",)
    assert sorted(loaded.calibrators) == [(f"A0{i}",) for i in range(1, 7)]  # the development set's attacks
    for trials in (dev_trials, eval_trials):
        mine, theirs = loaded(trials), calibration(trials)
        assert np.array_equal(mine.tar, theirs.tar) and np.array_equal(mine.non, theirs.non)

    # cross-validation of the development set: every attack has its own calibrations,
    # which beat the pooled one on most attacks and on all the trials
    choose(page, "Evaluate on", "Cross-validation within the training set")
    expect(page.get_by_text(re.compile(r"of 6 attack values all have their own"))).to_be_visible(timeout=120_000)
    wait_for_charts(page, 2)
    no_exception(page)
    table = table_csv(page)
    assert set(table.calibration[:-1]) == {"own"}
    expected = lc.calibrate_by_condition(dev_trials, None, "attack", plo=PLO, p_target=0.01).to_frame(eer_percent=True)
    np.testing.assert_allclose(table.filter(like="Cllr").to_numpy(), expected.filter(like="Cllr").to_numpy(),
                               rtol=1e-9)
    better = table["Cllr per condition"] < table["Cllr pooled"]
    assert better[["A01", "A02", "A03", "A04", "pooled"]].all()

    page.get_by_text("Pooled", exact=True).click()
    wait_idle(page)
    no_exception(page)
    expect(page.get_by_role("columnheader", name="Cllr per condition")).to_have_count(0)
    snap(page, screenshots / "calibrate_per_attack_cv.png")

    # with confidence intervals, the figure per condition gets its bars (each calibration's bootstrap per attack),
    # as many replicates as typed beside the toggle (1,000 by default)
    type_number(page, "Replicates", "20")
    page.get_by_text("Confidence intervals", exact=True).click()
    wait_idle(page, timeout=300_000)
    expect(page.get_by_text(re.compile(r"after one calibration per condition, with 95 % BCa bootstrap intervals "
                                       r"\(20 replicates\)\."))).to_be_visible(timeout=120_000)
    expect(page.locator(".st-key-cal_conditions .errorbar").first).to_be_attached()
    no_exception(page)
    snap(page, screenshots / "calibrate_per_attack_intervals.png")
