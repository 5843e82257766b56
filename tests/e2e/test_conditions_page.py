"""Conditions and confidence on the Evaluate page, walked in headless Chromium at 1600 px as a person does: the
countermeasure demo added on the Data page, the pages switched through the sidebar, intervals switched on, the
trials broken down by attack (the only condition column offered: the files' per-trial utterance ids are not), two
systems compared.

Independent references: the per-attack EERs are recomputed from the demo file read with pandas (bona fide trials
against one attack's spoofs, as ASVspoof's per-attack tables are made); the intervals in the downloaded CSV are
those of ``llrcore.bootstrap`` with the page's settings (the draws are seeded), and contain the estimate; the
comparison table's EERs are ``lc.eer`` of each system's file, in %.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from app_pages._demos import DEMO_SETS
from test_browser import grid_rows, no_exception, open_page, snap, wait_for_charts, wait_idle

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
CM_EVAL = ASSETS / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
ASV_EVAL = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"


def go(page: Page, name: str) -> None:
    """Click a page in the sidebar (not a fresh page load: what is loaded stays)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()
    wait_idle(page, timeout=180_000)


def add_demo(page: Page, name: str) -> None:
    index = [demo.name for demo in DEMO_SETS].index(name)
    page.locator(f".st-key-demo_{index}").get_by_role("button", name="Add").click()
    wait_idle(page, timeout=120_000)
    expect(page.get_by_text(f"Added demo set {name}.")).to_be_visible()


def type_number(page: Page, label: str, value: str) -> None:
    box = page.get_by_role("spinbutton", name=label)
    box.fill(value)
    box.press("Enter")
    wait_idle(page, timeout=180_000)


def choose(page: Page, box: str, option: str) -> None:
    """Pick an option of a selectbox by typing it, as a person with a long list does (a click on a box far down
    the page can only focus it)."""
    page.get_by_role("combobox", name=box).click()
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page, timeout=300_000)


def download(page: Page, button) -> pd.DataFrame:
    """The CSV a download button gives. The app's buttons leave the page as it is (``on_click="ignore"``, held by
    tests/app/test_app_downloads.py): no run to wait for after the click."""
    # a page of many figures may still be redrawing after the last run on a busy machine; on failure, expect prints
    # what the page shows (a click's timeout says only that the button was not there)
    expect(button).to_be_visible(timeout=120_000)
    with page.expect_download() as event:
        button.click()
    return pd.read_csv(event.value.path())


def test_intervals_on_the_demo_sets_with_defaults_untouched_then_a_nist_preset(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/evaluate")
    expect(page.get_by_text("Conditions and confidence")).to_be_visible()
    type_number(page, "Replicates", "20")
    page.get_by_text("Confidence intervals", exact=True).click()
    wait_idle(page, timeout=180_000)
    expect(page.get_by_text(re.compile(r"Their 95 % BCa bootstrap confidence intervals"))).to_be_visible()
    no_exception(page)
    table = download(page, page.get_by_role("button", name="Metrics as CSV"))
    row = table.set_index("system").loc["ASVspoof19 LA ASV (eval)"]
    expected = lc.bootstrap(lc.read_trials(ASV_EVAL), n=20, level=0.95, seed=0, p_target=0.01)
    for column, metric, scale in (("EER %", "eer", 100), ("actDCF", "act_dcf", 1), ("Cllr", "cllr", 1)):
        lower, upper = expected.interval(metric)
        assert row[f"{column} lower"] == pytest.approx(scale * lower, rel=1e-9)
        assert row[f"{column} upper"] == pytest.approx(scale * upper, rel=1e-9)
        assert row[f"{column} lower"] <= row[column] <= row[f"{column} upper"]
    wait_for_charts(page)
    expect(page.get_by_text(re.compile(r"Shaded: the ROCCH's 95 % bootstrap band"))).to_be_visible()
    snap(page, screenshots / "evaluate_intervals.png")

    # a NIST preset sets the Cprimary of its evaluation, and keeps it across pages
    choose(page, "Preset", "NIST SRE21 (P = 0.01; Cprimary adds 0.05)")
    go(page, "Bayes decisions")
    go(page, "Evaluate")
    expect(page.get_by_role("combobox", name="Preset")).to_have_value("NIST SRE21 (P = 0.01; Cprimary adds 0.05)")
    table = download(page, page.get_by_role("button", name="Metrics as CSV")).set_index("system")
    asv = lc.read_trials(ASV_EVAL)
    assert table.loc["ASVspoof19 LA ASV (eval)", "Cprimary"] == pytest.approx(
        lc.cprimary(asv, p_target=(0.01, 0.05)), rel=1e-12)
    assert table.loc["ASVspoof19 LA ASV (eval)", "actDCF"] == pytest.approx(lc.act_dcf(asv, p_target=0.01), rel=1e-12)


def test_per_attack_breakdown_and_comparison_after_adding_the_countermeasure_demo(page: Page, app_url, screenshots):
    open_page(page, f"{app_url}/")
    go(page, "Data")
    add_demo(page, "ASVspoof19 LA CM LFCC-GMM (eval)")
    add_demo(page, "ASVspoof19 LA CM RawNet2-a (eval)")
    go(page, "Evaluate")
    expect(page.get_by_text("4 evaluation and 0 development sets chosen", exact=False)).to_be_visible()
    # the countermeasure files' utterance ids (one per trial) are not offered: a table of 71,237 one-trial rows
    expect(page.get_by_text("Not offered as conditions: utt (one value per trial or nearly); identifiers rather "
                            "than conditions.")).to_be_visible()
    page.get_by_role("combobox", name="Break down by").click()
    expect(page.get_by_role("option")).to_have_text(["attack"])
    page.get_by_role("option", name="attack", exact=True).click()
    wait_idle(page, timeout=180_000)  # the option chosen runs the page; closing the list does not
    page.keyboard.press("Escape")
    expect(page.get_by_role("heading", name="Per attack")).to_be_visible()
    expect(page.get_by_text(re.compile(r"Not broken down \(no column 'attack'\): .*FVC-AUS DCA-PLDA"))).to_be_visible()
    no_exception(page)

    figure_csv = download(page, page.locator(".st-key-conditions_csv").get_by_role("button"))
    raw = pd.read_csv(CM_EVAL, sep="\t")
    bona_fide = raw.loc[raw.key == "bonafide", "LFCC-GMM"].to_numpy()
    rows = figure_csv[figure_csv.system == "ASVspoof19 LA CM LFCC-GMM (eval)"].set_index("attack")
    assert list(rows.index) == [f"A{i:02d}" for i in range(7, 20)] + ["pooled"]
    for attack in ("A07", "A17", "A19"):
        spoof = raw.loc[raw.attack == attack, "LFCC-GMM"].to_numpy()
        assert rows.loc[attack, "EER"] == pytest.approx(lc.eer(bona_fide, spoof), rel=1e-12)
    snap(page, screenshots / "evaluate_per_attack.png")

    type_number(page, "Replicates", "20")
    page.get_by_text("Confidence intervals", exact=True).click()
    wait_idle(page, timeout=300_000)
    choose(page, "System A", "ASVspoof19 LA CM LFCC-GMM (eval)")
    choose(page, "System B", "ASVspoof19 LA CM RawNet2-a (eval)")
    wait_idle(page, timeout=300_000)
    expect(page.get_by_text(re.compile(r"LFCC-GMM \(eval\) has a lower EER than ASVspoof19 LA CM RawNet2-a \(eval\) "
                                       r"in \d+ % of 20 resamplings"))).to_be_visible()
    no_exception(page)
    # the comparison table gives the EER in % as the metrics table does (not a fraction beside it)
    header, *rows = grid_rows(page, page.get_by_test_id("stDataFrame").filter(has_text="B better in"))
    eer_row = dict(zip(header, next(row for row in rows if "EER %" in row)))
    systems = lc.read_trials(CM_EVAL)
    for column, system in (("a", "LFCC-GMM"), ("b", "RawNet2-a")):
        assert float(eer_row[column]) == pytest.approx(100 * lc.eer(systems[system]), rel=1e-12)
    snap(page, screenshots / "evaluate_compare.png")
