"""Issue 28's leftovers in Chromium at 1600 px: a score file with a target at -1e308 (far on the wrong side: every
affine fit that trains on it collapses, the true optimum there) uploaded on the Data page; Calibrate with
cross-validation, Bayes decisions' calibrated copy and the Compare rules sweep say the calibration failed and show
none of it as a calibration; Evaluate's metrics table writes the huge Cllr as text, right-aligned like the numbers;
Forensic validation's Tippett and ECE axes keep to the ordinary LRs and say what lies beyond.

Independent references: the failure sentences are the library's (tests/calibration/test_collapsed_folds.py checks
them against the folds that hold the far target); the fold list expected on Calibrate is computed here from the fold assignment
(``Folds.split`` with the page's 5 folds and seed 0: every fold but the one holding the far target);
``number(lc.cllr(...), 4)`` for the table's text; the screenshots are looked at.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_for_stable_sizes, wait_idle, write_labelled
from test_conditions_page import go
from test_extreme_llrs_page import choose

import llrcore as lc
from llrcore.calibration.folds import Folds
from llrcore.report import listed, number

pytestmark = pytest.mark.e2e

NAME = "far wrong side"


def scores() -> lc.Trials:
    rng = np.random.default_rng(7)
    tar, non = rng.normal(3.0, np.sqrt(6.0), 300), rng.normal(-3.0, np.sqrt(6.0), 3000)
    return lc.Trials(np.append(np.round(tar, 5), -1e308), np.append(np.round(non, 5), 1e308), name=NAME)


@pytest.fixture
def far_file(tmp_path):
    return write_labelled(scores(), tmp_path / f"{NAME}.txt")


def upload(page: Page, app_url: str, path) -> None:
    open_page(page, f"{app_url}/data")
    page.locator(".st-key-score_uploads input[type=file]").set_input_files(path)
    expect(page.get_by_text(f"Added {NAME} from {NAME}.txt")).to_be_visible(timeout=60_000)
    wait_idle(page)
    no_exception(page)


def collapsing_folds(trials: lc.Trials, folds: int = 5) -> str:
    """The folds whose training set holds a far score (the last target and the last non-target; only a fold that
    tests both trains on neither), as the page lists them."""
    split = Folds.split(trials.tar.size, trials.non.size, folds, seed=0)
    trained_on_far = [k for k, (tar_test, non_test) in enumerate(split.test, start=1)
                      if not (tar_test[-1] and non_test[-1])]
    return f"folds {listed([str(k) for k in trained_on_far])} of {folds}"


def test_far_scores_on_every_page_that_takes_them(page: Page, app_url, screenshots, far_file):
    """One upload, then the pages in the order of the module's docstring, through the sidebar."""
    trials = scores()
    upload(page, app_url, far_file)
    assert collapsing_folds(trials) == "folds 1, 2, 3, 4 and 5 of 5"  # the two far scores are tested in two folds

    # Evaluate: the huge Cllr as text (2.39e+305-like, not 306 digits), right-aligned like the numbers
    go(page, "Evaluate")
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_contain_text(number(lc.cllr(trials), 4), timeout=120_000)
    no_exception(page)
    table.scroll_into_view_if_needed()
    wait_for_stable_sizes(page)  # the grid drawn at its place (was a fixed 700 ms)
    table.screenshot(path=screenshots / "leftovers_evaluate_table.png")  # looked at: the text column is right-aligned
    snap(page, screenshots / "leftovers_evaluate.png")

    # Forensic validation: the Tippett and ECE axes keep to the ordinary LRs and say what lies beyond
    go(page, "Forensic validation")
    choose(page, "LR method (a loaded system)", NAME)
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts.first).to_be_visible(timeout=120_000)
    tippett, ece = charts.nth(0), charts.nth(1)
    expect(tippett).to_contain_text("← 1 LR beyond the axis", timeout=60_000)
    expect(tippett).to_contain_text("1 LR beyond the axis →")
    expect(ece).to_contain_text("↑ above the axis:")
    no_exception(page)
    tippett.scroll_into_view_if_needed()
    snap(page, screenshots / "leftovers_forensic_figures.png")

    # Calibrate, Bayes decisions and Compare rules: the collapsed calibration is said, never shown as one
    go(page, "Calibrate")
    choose(page, "Train on", NAME)
    choose(page, "Evaluate on", "Cross-validation within the training set")
    main = page.get_by_test_id("stMain")
    failure = main.get_by_test_id("stAlert").filter(has_text="This calibration failed:")
    expect(failure).to_be_visible(timeout=120_000)
    expect(failure).to_contain_text(f"and in {collapsing_folds(trials)}")
    expect(main.get_by_test_id("stMetric")).to_have_count(0)  # no before/after cards of a collapsed calibration
    no_exception(page)
    snap(page, screenshots / "leftovers_calibrate_collapsed_folds.png")

    go(page, "Bayes decisions")
    choose(page, "System", NAME)
    page.get_by_role("tab", name="Over all priors", exact=True).click()
    wait_idle(page, timeout=180_000)
    expect(main.get_by_text("The calibration by cross-validation failed:")).to_be_visible(timeout=120_000)
    expect(main.get_by_text(re.compile(r"The calibration collapsed in folds .* of 5"))).to_be_visible()
    no_exception(page)
    snap(page, screenshots / "leftovers_bayes_collapsed_folds.png")

    go(page, "Compare rules")
    choose(page, "Train on", NAME)
    choose(page, "Evaluate on", "Cross-validation within the training set")
    run = main.get_by_role("button", name=re.compile("^Run the sweep"))
    if run.count():
        run.click()
        wait_idle(page, timeout=600_000)  # the sweep's run, waited for at once (an expect would look twice a second)
    # The logarithmic rule's fits collapse (a far score on its wrong side costs without bound); rules whose cost is
    # bounded there (Brier's, alpha > 1) fit the ordinary trials: the collapsed fits are said and never the best.
    expect(main.get_by_text(re.compile(r"^\d+ of \d+ calibrations failed:"))).to_be_visible(timeout=600_000)
    best = main.get_by_text(re.compile("^Lowest "))
    expect(best).to_be_visible()
    expect(best).not_to_contain_text("logarithmic")
    no_exception(page)
    snap(page, screenshots / "leftovers_compare_rules_collapsed.png")
