"""The Calibrate and Fusion pages hand over their calibrator as JSON, in headless Chromium as a person does it: the page
opened with its defaults untouched (Fusion: its demo button), the "as JSON" button clicked, the file read back with
``lc.load_calibrator``.

Independent references: the library's fits of the demo files with the pages' defaults — ``lc.calibrate_and_evaluate``
(ASVspoof 2019 LA ASV dev -> eval, logarithmic rule, prior weighting P = 0.01) and ``lc.fuse`` (the four ASVspoof 2019
LA countermeasures, P = 0.5, regularisation 0.001) — whose LLRs the downloaded calibrator must give bit for bit; the
transform the Calibrate page prints (``llr = a · score + b`` to 4 significant digits), which the file's coefficients
must round to.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect
from scipy.special import logit

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import go

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
ASV = ASSETS / "asvspoof2019_la"
CM = ASSETS / "asvspoof2019_la_cm"


def download(page: Page, button: str, tmp_path: Path) -> tuple[Path, str]:
    """Click a download button; the saved file and the name the browser suggested."""
    with page.expect_download() as event:
        page.get_by_role("button", name=button).click()
    path = tmp_path / event.value.suggested_filename
    event.value.save_as(path)
    return path, event.value.suggested_filename


def test_the_calibrate_page_downloads_the_calibrator_it_shows(page: Page, app_url, screenshots, tmp_path):
    dev, evaluation = (lc.read_trials(ASV / f"ASVspoof2019.LA.asv.{part}.gi.trl.scores.txt") for part in ("dev", "eval"))
    expected = lc.calibrate_and_evaluate(dev, evaluation, "affine", lc.BetaRule.logarithmic(), plo=logit(0.01))
    open_page(page, f"{app_url}/calibrate")
    wait_for_charts(page)
    no_exception(page)

    path, name = download(page, "Calibrator as JSON", tmp_path)
    assert name.endswith(".json")
    loaded = lc.load_calibrator(path)
    assert isinstance(loaded, lc.Affine)
    shown = f"llr = {loaded.scale:.4g} · score {'+' if loaded.offset >= 0 else '−'} {abs(loaded.offset):.4g}"
    expect(page.get_by_text(re.compile(re.escape(shown)))).to_be_visible()
    scores = np.concatenate([evaluation.tar, evaluation.non, evaluation.spoof])
    assert np.array_equal(loaded(scores), expected.calibrator(scores))
    scores_file, _ = download(page, "Calibrated scores", tmp_path)  # the page's own LLRs, every digit
    calibrated = lc.read_trials(scores_file)
    assert np.array_equal(loaded(evaluation.tar), calibrated.tar)
    assert np.array_equal(loaded(evaluation.non), calibrated.non)
    assert np.array_equal(loaded(evaluation.spoof), calibrated.spoof)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["rule"]["name"] == "logarithmic" and document["p_target"] == pytest.approx(0.01, rel=1e-12)
    page.get_by_role("button", name="Calibrator as JSON").scroll_into_view_if_needed()
    snap(page, screenshots / "calibrate_json.png")


def test_the_fusion_page_downloads_the_fusion_it_shows(page: Page, app_url, screenshots, tmp_path):
    dev, evaluation = (lc.read_trials(CM / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz") for part in ("dev", "eval"))
    expected = lc.fuse(dev, evaluation, regularisation=1e-3, p_target=0.01)
    open_page(page, f"{app_url}/")
    go(page, "Fusion")
    page.get_by_role("button", name="Fuse the four ASVspoof 2019 LA countermeasures (dev → eval)").click()
    wait_idle(page, timeout=180_000)
    no_exception(page)
    expect(page.get_by_text(expected.formula(), exact=True)).to_be_visible()

    path, name = download(page, "Fusion as JSON", tmp_path)
    assert name == "fusion.json"
    loaded = lc.load_calibrator(path)
    assert isinstance(loaded, lc.Fusion)
    assert np.array_equal(loaded(expected.evaluation.tar), expected.fused_eval.tar)
    assert np.array_equal(loaded(expected.evaluation.non), expected.fused_eval.non)
    fused, _ = download(page, "Fused scores as CSV", tmp_path)  # the page's own LLRs, every digit
    frame = pd.read_csv(fused)
    shown = np.concatenate([expected.evaluation.tar, expected.evaluation.non])
    assert np.array_equal(np.sort(loaded(shown)), np.sort(frame["score"].to_numpy()))
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["features"] == ["LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c"]
    assert document["training"]["regularisation"] == 1e-3
    wait_for_charts(page)
    snap(page, screenshots / "fusion_json.png")
