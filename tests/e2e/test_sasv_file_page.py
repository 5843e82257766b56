"""One ASVspoof 5 track 2 SASV file in headless Chromium at 1600 px: uploaded with its trial list on the Data page,
chosen as the ASV on "ASV + countermeasure" (its min a-DCF is the tandem's own), then split into its CM and its ASV
with the page's button (the t-EER and the t-DCF of the file's own CM and ASV).

Independent references: the scores picked from the written files with pandas, grouped as the organisers'
``calculate_aDCF_tdcf_tEER`` groups them (CM bona fide: the cm-score of the target and non-target trials), fed to
``lc.a_dcf`` and ``lc.t_eer`` (both tested against the organisers' code in test_sasv_metrics.py and
test_sasv_file.py). Screenshots: ``sasv_file.png``, ``sasv_file_split.png``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_idle
from test_challenge_uploads import upload_with_key
from test_conditions_page import choose, go
from test_sasv_page import metric

import llrcore as lc

pytestmark = pytest.mark.e2e


def write_sasv(folder):
    """400 trials of two attacks: ``spk filename cm-score asv-score sasv-score`` and the trial list
    ``spk filename gender attack asv-label`` (no header), in another order."""
    rng = np.random.default_rng(41)
    kinds = rng.choice(["target", "nontarget", "spoof"], size=400, p=[0.3, 0.4, 0.3])
    key = pd.DataFrame({"spk": [f"E_{i % 11:04d}" for i in range(400)], "filename": [f"E_{i:010d}" for i in range(400)],
                        "gender": np.where(np.arange(400) % 2, "F", "M"),
                        "attack": np.where(kinds == "spoof", np.where(np.arange(400) % 3, "A11", "A12"), "bonafide"),
                        "asv-label": kinds})
    cm = rng.normal(np.where(kinds == "spoof", -1.0, 2.0), 1.5)
    asv = rng.normal(pd.Series(kinds).map({"target": 3.0, "nontarget": -3.0, "spoof": 1.0}), 1.5)
    scores = key[["spk", "filename"]].assign(**{"cm-score": cm, "asv-score": asv, "sasv-score": np.minimum(cm, asv)})
    scores.sample(frac=1, random_state=5).to_csv(folder / "sasv_score.tsv", sep="\t", index=False)
    key.to_csv(folder / "ASVspoof5.eval.track_2.trial.tsv", sep=" ", header=False, index=False)
    return folder / "sasv_score.tsv", folder / "ASVspoof5.eval.track_2.trial.tsv", scores.merge(key)


def test_a_sasv_file_shows_its_own_a_dcf_and_splits_into_its_cm_and_asv(page: Page, app_url, screenshots, tmp_path):
    scores, key, raw = write_sasv(tmp_path)
    kind = raw["asv-label"]
    sasv = [raw.loc[kind == k, "sasv-score"].to_numpy() for k in ("target", "nontarget", "spoof")]
    asv = [raw.loc[kind == k, "asv-score"].to_numpy() for k in ("target", "nontarget", "spoof")]
    bonafide, cm_spoof = (raw.loc[(kind == "spoof") == spoof, "cm-score"].to_numpy() for spoof in (False, True))

    open_page(page, f"{app_url}/data")
    upload_with_key(page, scores, key)
    go(page, "ASV + countermeasure")
    choose(page, "ASV system", "sasv_score")
    expect(page.get_by_text("sasv_score is an ASVspoof 5 SASV file")).to_contain_text(
        f"min a-DCF of its SASV scores {lc.a_dcf(*sasv).minimum:.4f}")
    no_exception(page)
    snap(page, screenshots / "sasv_file.png")

    page.get_by_role("button", name="Split into CM and ASV").click()
    wait_idle(page, timeout=180_000)
    expect(page.get_by_text("Added sasv_score CM and sasv_score ASV.")).to_be_visible()
    card = page.locator(".st-key-tandem_cm_0")
    expect(card).to_contain_text("sasv_score CM")
    assert metric(card, "t-EER") == f"{100 * lc.t_eer(bonafide, cm_spoof, *asv).value:.2f} %"
    assert metric(card, "min t-DCF") == f"{lc.tdcf(bonafide, cm_spoof, *asv).minimum:.4f}"
    assert metric(page.locator(".st-key-tandem_asv_alone"), "min a-DCF") == f"{lc.a_dcf(*asv).minimum:.4f}"
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    no_exception(page)
    snap(page, screenshots / "sasv_file_split.png")
