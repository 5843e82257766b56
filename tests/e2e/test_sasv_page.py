"""ASVspoof 5's t-EER and a-DCF on the "ASV + countermeasure" page, in headless Chromium at 1600 px: reached through the
sidebar, every setting left as it opens, the four ASVspoof 2019 LA countermeasures loaded with the page's button.

Independent references: ``lc.t_eer`` and ``lc.a_dcf`` (tested against the organisers' code in test_sasv_metrics.py)
on the raw demo files read with pandas: the CM's bona fide and spoof scores, the ASV's targets, non-targets and
spoofs; per attack, all bona fide trials with that attack's spoofs only. The LFCC-GMM t-EER also against the value of
the ASVspoof 5 evaluation package on these files (3.7419191514603005 %, see test_sasv_metrics.py).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import download, go

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
CM_EVAL = ASSETS / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
ASV_EVAL = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
LFCC = "ASVspoof19 LA CM LFCC-GMM (eval)"


def metric(container, label: str) -> str:
    return container.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue").inner_text()


def test_t_eer_and_a_dcf_shown_beside_the_t_dcf_with_defaults_untouched(page: Page, app_url, screenshots):
    raw_cm = pd.read_csv(CM_EVAL, sep="\t")
    raw_asv = pd.read_csv(ASV_EVAL, sep=r"\s+", header=None, names=["attack", "kind", "score"])
    tar, non, spoof = (raw_asv.loc[raw_asv.kind == kind, "score"].to_numpy()
                       for kind in ("target", "nontarget", "spoof"))
    bonafide = raw_cm.loc[raw_cm.key == "bonafide", "LFCC-GMM"].to_numpy()
    cm_spoof = raw_cm.loc[raw_cm.key == "spoof", "LFCC-GMM"].to_numpy()

    open_page(page, f"{app_url}/")
    go(page, "ASV + countermeasure")
    page.get_by_role("button", name="Load the 4 ASVspoof 2019 LA CMs (eval)").click()
    wait_idle(page, timeout=180_000)
    card = page.locator(".st-key-tandem_cm_0")
    expect(card).to_contain_text(LFCC)
    teer = lc.t_eer(bonafide, cm_spoof, tar, non, spoof).value
    assert teer == pytest.approx(3.7419191514603005 / 100, rel=1e-15)
    assert metric(card, "t-EER") == f"{100 * teer:.2f} %"
    assert metric(card, "min t-DCF") == "0.1503"
    alone = page.locator(".st-key-tandem_asv_alone")
    assert metric(alone, "min a-DCF") == f"{lc.a_dcf(tar, non, spoof).minimum:.4f}"
    wait_for_charts(page, 2)
    no_exception(page)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    snap(page, screenshots / "sasv.png")

    summary = download(page, page.locator(".st-key-tandem_metrics_csv").get_by_role("button")).set_index("system")
    assert summary.loc[LFCC, "t-EER %"] == pytest.approx(100 * teer, rel=1e-12)
    columns = list(summary.columns)
    assert columns[columns.index("min t-DCF") + 1:columns.index("min t-DCF") + 3] == ["t-EER %", "min a-DCF (ASV)"]

    table = download(page, page.locator(".st-key-tandem_attacks_csv").get_by_role("button"))
    rows = table[table.system == LFCC].set_index("attack")
    for attack in ("A10", "A17"):
        attack_spoof = raw_cm.loc[raw_cm.attack == attack, "LFCC-GMM"].to_numpy()
        asv_spoof = raw_asv.loc[(raw_asv.kind == "spoof") & (raw_asv.attack == attack), "score"].to_numpy()
        assert rows.loc[attack, "t-EER %"] == pytest.approx(
            100 * lc.t_eer(bonafide, attack_spoof, tar, non, asv_spoof).value, rel=1e-12)
        assert rows.loc[attack, "min a-DCF (ASV)"] == pytest.approx(lc.a_dcf(tar, non, asv_spoof).minimum, rel=1e-12)
    assert rows.loc["pooled", "t-EER %"] == pytest.approx(100 * teer, rel=1e-12)
