"""The "ASV + countermeasure" page in headless Chromium at 1600 px, walked as a person does: reached through the
sidebar, the four ASVspoof 2019 LA countermeasures loaded with the page's button, the formulation switched.

Independent references: the known min t-DCF of the LFCC-GMM countermeasure behind the organisers' ASV on the LA
evaluation part (revised 0.1503, legacy 0.0934); the per-attack CSV against ``lc.tdcf`` and ``lc.t_eer`` on subsets of
the raw files read with pandas (all bona fide trials, one attack's spoofs, the ASV's spoofs of that attack); the
interval shown against ``lc.bootstrap_tdcf`` (itself tested against ``lc.tdcf`` on the drawn trials); the per-attack
legacy min t-DCF (the page judges the evaluation it keeps again), its intervals in the CSV and the error bars drawn in
the browser against ``lc.bootstrap_tandem`` with the legacy formulation (itself tested against ``lc.bootstrap_tdcf``
on each attack's trials made with pandas) with the page's replicates.
"""
from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle
from test_conditions_page import download, go, type_number

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
CM_EVAL = ASSETS / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
ASV_EVAL = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
LFCC = "ASVspoof19 LA CM LFCC-GMM (eval)"
REPLICATES = 20  # typed into the page: the fewest it takes, to keep the run short (the check is page == library)
#: The error bars of the trace labelled `label` (meta.label) of a figure on the page, as plotly holds them.
ERROR_BARS = """label => {
    for (const plot of document.querySelectorAll('.js-plotly-plot')) {
        const found = plot.data.find(trace => trace.meta && trace.meta.label === label);
        if (found) return [found.error_y.array, found.error_y.arrayminus];
    }
    return null;
}"""


def numbers(held) -> np.ndarray:
    """An array as plotly holds it in the browser: a list, or base64 bytes with their dtype (numpy data)."""
    if isinstance(held, dict):
        return np.frombuffer(base64.b64decode(held["bdata"]), dtype=held["dtype"])
    return np.asarray(held, dtype=float)


def min_tdcf_of_first_cm(page: Page):
    card = page.locator(".st-key-tandem_cm_0")
    expect(card).to_contain_text(LFCC)
    return card.get_by_test_id("stMetric").filter(has_text="min t-DCF").get_by_test_id("stMetricValue")


def test_tandem_page_loads_the_countermeasures_and_switches_formulation(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/")
    go(page, "ASV + countermeasure")
    expect(page.get_by_role("heading", name="ASV + countermeasure")).to_be_visible()
    expect(page.get_by_role("combobox", name="ASV system")).to_have_value("ASVspoof19 LA ASV (eval)")
    page.get_by_role("button", name="Load the 4 ASVspoof 2019 LA CMs (eval)").click()
    wait_idle(page, timeout=180_000)
    expect(page.get_by_text("Added ASVspoof19 LA CM LFCC-GMM (eval)", exact=False)).to_be_visible()
    expect(page.get_by_text("7 systems loaded")).to_be_visible()
    expect(min_tdcf_of_first_cm(page)).to_have_text("0.1503")
    wait_for_charts(page, 2)
    no_exception(page)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    snap(page, screenshots / "spoofing.png")

    table = download(page, page.locator(".st-key-tandem_attacks_csv").get_by_role("button"))
    rows = table[table.system == LFCC].set_index("attack")
    raw_cm = pd.read_csv(CM_EVAL, sep="\t")
    raw_asv = pd.read_csv(ASV_EVAL, sep=r"\s+", header=None, names=["attack", "kind", "score"])
    tar, non = (raw_asv.loc[raw_asv.kind == kind, "score"].to_numpy() for kind in ("target", "nontarget"))
    bonafide = raw_cm.loc[raw_cm.key == "bonafide", "LFCC-GMM"].to_numpy()
    for attack in ("A09", "A17"):
        spoof = raw_cm.loc[raw_cm.attack == attack, "LFCC-GMM"].to_numpy()
        asv_spoof = raw_asv.loc[(raw_asv.kind == "spoof") & (raw_asv.attack == attack), "score"].to_numpy()
        assert rows.loc[attack, "min t-DCF"] == pytest.approx(lc.tdcf(bonafide, spoof, tar, non, asv_spoof).minimum,
                                                              rel=1e-12)
        # the t-EER of the ASV's points made once for the four CMs: the t-EER of the attack's trials alone
        assert rows.loc[attack, "t-EER %"] == pytest.approx(100 * lc.t_eer(bonafide, spoof, tar, non, asv_spoof).value,
                                                            rel=1e-12)

    page.get_by_text("legacy (ASVspoof 2019)", exact=True).click()
    wait_idle(page, timeout=180_000)
    expect(min_tdcf_of_first_cm(page)).to_have_text("0.0934")
    go(page, "Evaluate")
    go(page, "ASV + countermeasure")  # the formulation and the chosen CMs survive a page switch
    expect(min_tdcf_of_first_cm(page)).to_have_text("0.0934")
    wait_for_charts(page, 2)
    no_exception(page)
    snap(page, screenshots / "spoofing_legacy.png")

    type_number(page, "Replicates", str(REPLICATES))
    page.get_by_text("95 % confidence interval of each min t-DCF, pooled and per attack", exact=False).click()
    wait_idle(page, timeout=300_000)
    cm, asv = lc.read_trials(CM_EVAL)["LFCC-GMM"], lc.read_trials(ASV_EVAL)
    ci = lc.bootstrap_tdcf(cm, asv, n=REPLICATES, formulation="legacy")
    shown = page.locator(".st-key-tandem_ci_0")
    expect(shown).to_contain_text(f"min t-DCF, 95 % BCa interval: {ci.lower:.4f} – {ci.upper:.4f}")
    expect(page.get_by_text(f"The 95 % BCa interval of each min t-DCF draws that row's trials again ({REPLICATES} "
                            "times")).to_be_visible()
    per_attack = lc.bootstrap_tandem(cm, asv, n=REPLICATES, formulation="legacy").to_frame().set_index("attack")
    table = download(page, page.locator(".st-key-tandem_attacks_csv").get_by_role("button"))
    rows = table[table.system == LFCC].set_index("attack")
    assert list(rows.index) == list(per_attack.index)
    for column in ("min t-DCF", "min t-DCF lower", "min t-DCF upper"):
        assert rows[column].to_numpy() == pytest.approx(per_attack[column].to_numpy(), rel=1e-12)
    plus, minus = map(numbers, page.evaluate(ERROR_BARS, f"{LFCC} min t-DCF"))  # the error bars the browser draws
    assert plus == pytest.approx((per_attack["min t-DCF upper"] - per_attack["min t-DCF"]).to_numpy(), rel=1e-12)
    assert minus == pytest.approx((per_attack["min t-DCF"] - per_attack["min t-DCF lower"]).to_numpy(), rel=1e-12)
    go(page, "Fusion")
    go(page, "ASV + countermeasure")  # the intervals and their replicates stay, and are not computed again
    expect(shown).to_contain_text(f"min t-DCF, 95 % BCa interval: {ci.lower:.4f} – {ci.upper:.4f}")
    expect(page.get_by_role("spinbutton", name="Replicates")).to_have_value(str(REPLICATES))
    wait_for_charts(page, 2)
    no_exception(page)
    snap(page, screenshots / "spoofing_intervals.png")


def test_a_fresh_deep_link_opens_the_page_on_the_demo_asv(page: Page, app_url):
    open_page(page, f"{app_url}/spoofing")
    expect(page.get_by_role("combobox", name="ASV system")).to_have_value("ASVspoof19 LA ASV (eval)")
    expect(page.get_by_text("Choose at least one countermeasure", exact=False)).to_be_visible()
    no_exception(page)
