"""The Fusion page in headless Chromium at 1600 px, as a person uses it: opened from the sidebar, the demo button
clicked, the numbers read off the page, the fused scores and the fusion as JSON downloaded, the verdict judged at the
operating point set on Evaluate (issue 28); two systems of different trials refused.

Independent reference: ``lc.fuse`` on the demo files (tested against scipy's minimiser and scikit-learn in
test_fusion.py), with the page's defaults (logarithmic rule, P = 0.5, regularisation 0.001) and the app's default
operating point; the downloaded CSV is read with pandas; the downloaded JSON, read back with ``lc.load_calibrator``,
must give those fused LLRs bit for bit; normalised actual DCF counted by hand with numpy on the fused and singly
calibrated LLRs of ``lc.fuse`` (accept when ``llr >= -logit(P)``) for the verdict.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import choose, go, type_number

pytestmark = pytest.mark.e2e

CM = Path(__file__).resolve().parents[2] / "assets" / "asvspoof2019_la_cm"
DEMO_BUTTON = "Fuse the four ASVspoof 2019 LA countermeasures (dev → eval)"


def act_dcf(tar: np.ndarray, non: np.ndarray, p: float) -> float:
    """Normalised actual DCF at P_target `p`, unit costs, counted by hand."""
    threshold = -np.log(p / (1 - p))
    return (p * np.mean(tar < threshold) + (1 - p) * np.mean(non >= threshold)) / min(p, 1 - p)


@pytest.fixture(scope="module")
def expected() -> lc.FusionResult:
    dev, evaluation = (lc.read_trials(CM / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz") for part in ("dev", "eval"))
    return lc.fuse(dev, evaluation, regularisation=1e-3, p_target=0.01)


def test_the_demo_fusion_shows_the_librarys_numbers(page: Page, app_url, screenshots, expected, tmp_path):
    open_page(page, f"{app_url}/")
    go(page, "Fusion")
    expect(page.get_by_role("heading", name="Fusion", exact=True)).to_be_visible()
    page.get_by_role("button", name=DEMO_BUTTON).click()
    wait_idle(page, timeout=180_000)
    no_exception(page)

    assert expected.beats_best_single  # what is true of these files (test_fusion.py shows it independently)
    expect(page.get_by_text(expected.sentence(), exact=True)).to_be_visible()
    expect(page.get_by_text(expected.formula(), exact=True)).to_be_visible()
    best = expected.best_single
    metrics = page.get_by_test_id("stMetric")
    expect(metrics.filter(has_text="Fusion Cllr")).to_contain_text(f"{expected.metrics['fusion'].cllr:.3f} bits")
    expect(metrics.filter(has_text=f"{best} alone: Cllr")).to_contain_text(
        f"{expected.metrics[best].cllr:.3f} bits")
    expect(metrics.filter(has_text="Fusion EER")).to_contain_text(f"{100 * expected.metrics['fusion'].eer:.2f} %")

    with page.expect_download() as event:
        page.get_by_role("button", name="Fused scores as CSV").click()
    assert event.value.suggested_filename == "fused_evaluation.csv"
    fused = pd.read_csv(event.value.path())
    reference = expected.scores_frame()
    assert list(fused.columns) == ["utt", "attack", "score", "label"]
    assert list(fused["utt"]) == list(reference["utt"])
    np.testing.assert_array_equal(fused["score"].to_numpy(), reference["score"].to_numpy())

    # the fusion it shows downloads as JSON and gives the page's LLRs, every digit
    with page.expect_download() as event:
        page.get_by_role("button", name="Fusion as JSON").click()
    assert event.value.suggested_filename == "fusion.json"
    path = tmp_path / "fusion.json"
    event.value.save_as(path)
    loaded = lc.load_calibrator(path)
    assert isinstance(loaded, lc.Fusion)
    assert np.array_equal(loaded(expected.evaluation.tar), expected.fused_eval.tar)
    assert np.array_equal(loaded(expected.evaluation.non), expected.fused_eval.non)
    shown = np.concatenate([expected.evaluation.tar, expected.evaluation.non])
    assert np.array_equal(np.sort(loaded(shown)), np.sort(fused["score"].to_numpy()))
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["features"] == ["LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c"]
    assert document["training"]["regularisation"] == 1e-3

    wait_for_charts(page)
    snap(page, screenshots / "fusion_demo.png")

    # the verdict is judged at the operating point: at P_target 0.01 the fusion is worse than no system
    ours = act_dcf(expected.fused_eval.tar, expected.fused_eval.non, 0.01)
    lfcc = expected.calibrated_eval["LFCC-GMM"]
    alone = act_dcf(lfcc.tar, lfcc.non, 0.01)
    assert ours > 1 > alone
    verdict = page.get_by_test_id("stAlertContentWarning").filter(has_text="On Cllr")
    expect(verdict).to_contain_text("the fusion beats the best single system, RawNet2-a, calibrated alone")
    expect(verdict).to_contain_text(f"At the operating point (P_target = 0.01) it does not beat the best there, "
                                    f"LFCC-GMM alone: actDCF {ours:.3f} vs {alone:.3f} (1 = deciding without any "
                                    "system); worse than no system there.")
    expect(page.get_by_test_id("stAlertContentSuccess")).to_have_count(0)  # no green verdict beside actDCF 3.03
    for tab, name in (("APE", "fusion_ape"), ("Normalised Bayes error", "fusion_nbe")):
        page.get_by_role("tab", name=tab, exact=True).click()  # drawn in the browser, no run
        expect(page.get_by_role("tabpanel", name=tab).locator(".main-svg").first).to_be_visible(timeout=30_000)
        no_exception(page)
        snap(page, screenshots / f"{name}.png")

    go(page, "Evaluate")  # the operating point set elsewhere is the one the verdict is judged at
    type_number(page, "P_target", "0.5")
    go(page, "Fusion")
    wait_idle(page, timeout=180_000)
    at_half = {name: act_dcf(t.tar, t.non, 0.5) for name, t in expected.calibrated_eval.items()}
    best = min(at_half, key=at_half.get)
    fused = expected.fused_eval
    expect(page.get_by_test_id("stMain").get_by_text(re.compile(
        re.escape(f"At the operating point (P_target = 0.5) it does not beat the best there, {best} alone: actDCF "
                  f"{act_dcf(fused.tar, fused.non, 0.5):.3f} vs {at_half[best]:.3f}")))).to_be_visible(timeout=180_000)
    no_exception(page)


def test_systems_scored_on_different_trials_are_refused_with_the_librarys_sentence(page: Page, app_url):
    open_page(page, f"{app_url}/fusion")
    choose(page, "Development systems (train the fusion)", "ASVspoof19 LA ASV (dev)")
    choose(page, "Development systems (train the fusion)", "ASVspoof19 LA ASV (eval)")
    page.keyboard.press("Escape")  # closing the list runs nothing: `choose` waited for the run
    names = ["ASVspoof19 LA ASV (dev)", "ASVspoof19 LA ASV (eval)"]
    with pytest.raises(ValueError) as error:
        lc.align_systems({name: lc.read_trials(path) for name, path in zip(names, (
            CM.parent / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt",
            CM.parent / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"))})
    expect(page.get_by_test_id("stAlertContentError")).to_have_text(f"These systems cannot be fused: {error.value}")
    no_exception(page)
