"""The choices a page keeps (Calibrate's method, rule, prior weighting, folds and per-condition view; Compare scoring
rules' rules, grid and cost; the t-DCF formulation and costs; Diarization's matrix, score model and collar), walked
through the sidebar as a person does: first with the defaults untouched (a widget seeded beside ``persist_state`` is
what reset the operating point to its minimum, 1e-6, on a sidebar click), then with values chosen on the page, after a
switch to another page and back (Diarization's matrix went back to the first one). Screenshots at 1600 px in
``tests/e2e/screenshots/choices_*.png``.

Independent references: the numbers each page must show are computed here with the library's public functions on
the demo files and the page's documented defaults or the values chosen (``lc.calibrate_and_evaluate``,
``lc.calibrate_by_condition``, ``lc.sweep_prior_weighting``, ``lc.tdcf_cost_model``); P = sigmoid(τ) by hand; a demo
matrix's segments are the rows of its file, read with numpy.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect

import llrcore as lc
from test_browser import grid_rows, no_exception, open_page, snap, wait_idle
from test_conditions_page import go, type_number

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "assets"
DEV = lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt")
EVAL = lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
LOGARITHMIC, BRIER = lc.BetaRule(1, 1), lc.BetaRule(2, 2)
CROSS_VALIDATION = "Cross-validation within the training set"


def transform(calibrator: lc.Affine) -> str:
    """The page's words for an affine transform: ``llr = 0.3028 · score + 1.234``."""
    sign = "+" if calibrator.offset >= 0 else "−"
    return f"llr = {calibrator.scale:.4g} · score {sign} {abs(calibrator.offset):.4g}"


def chosen(page: Page, option: str):
    """An option of a segmented control or a radio group, by its name."""
    return page.get_by_test_id("stMain").get_by_role("radio", name=option, exact=True)


def slider(page: Page, label: str, index: int = 0):
    """A slider's thumb (a range slider has two: its start and its end); its value is the input's."""
    return page.get_by_role("slider", name=label).nth(index)


def move_slider(page: Page, label: str, keys: list[str], index: int = 0, *, to: float) -> None:
    """Press `keys` on a slider's thumb, then, as a person watching it would, step it with the arrows until it shows
    `to`: a rerun that starts between two presses can draw the thumb at the value it sent, and the next press then
    starts from there (one of four presses was lost so on a loaded machine)."""
    thumb = slider(page, label, index)
    thumb.focus()
    for key in keys:
        thumb.press(key)
    wait_idle(page, timeout=120_000)
    def shown() -> float:  # the value as the slider says it (a select slider's input holds an option's index)
        return float(thumb.get_attribute("aria-valuetext"))

    for _ in range(len(keys)):
        if shown() == to:
            break
        thumb.focus()
        thumb.press("ArrowRight" if shown() < to else "ArrowLeft")
        wait_idle(page, timeout=120_000)
    assert shown() == to


def chips(page: Page, key: str):
    """The chosen options of a multiselect, by the widget's key."""
    return page.locator(f".st-key-{key} .react-aria-ComboBox [data-tag] [title]")


# ----- Calibrate ------------------------------------------------------------------------------------------------------


def check_calibrate_defaults(page: Page) -> None:
    """Affine, logarithmic rule, P = 0.01, trained on the dev part and judged on the eval part, as documented."""
    expect(page.get_by_role("heading", name="Calibrate", exact=True)).to_be_visible()
    expect(chosen(page, "Affine (scoring rule)")).to_be_checked()
    expect(page.get_by_role("combobox", name="Proper scoring rule (α, β)")).to_have_value("logarithmic (1, 1)")
    expect(chosen(page, "P")).to_be_checked()
    expect(page.get_by_role("spinbutton", name="Prior weighting P")).to_have_value("0.01")
    expect(page.get_by_role("combobox", name="Train on")).to_have_value("ASVspoof19 LA ASV (dev)")
    expect(page.get_by_role("combobox", name="Evaluate on")).to_have_value("ASVspoof19 LA ASV (eval)")
    result = lc.calibrate_and_evaluate(DEV, EVAL, "affine", LOGARITHMIC, plo=float(np.log(0.01 / 0.99)))
    expect(page.get_by_text("logarithmic (α = 1, β = 1) rule with prior weighting P = 0.01 (τ = -4.60)",
                            exact=False)).to_be_visible(timeout=60_000)
    expect(page.get_by_text(transform(result.calibrator), exact=False)).to_be_visible()
    no_exception(page)


def per_condition_rows(page: Page) -> list[list[str]]:
    """The per-condition table, header first, as its grid's accessible table holds it."""
    grid = page.get_by_test_id("stDataFrame").filter(has_text="Cllr before").first
    expect(grid).to_be_visible(timeout=120_000)
    return grid_rows(page, grid)


def test_calibrate_keeps_its_choices_through_the_sidebar(page: Page, app_url, screenshots):
    open_page(page, app_url)
    go(page, "Calibrate")  # a fresh session reaches the page through the sidebar, nothing touched
    check_calibrate_defaults(page)
    go(page, "Home")
    go(page, "Calibrate")  # and back: still the defaults, not the widgets' minimum
    check_calibrate_defaults(page)

    page.get_by_role("combobox", name="Evaluate on").click()  # first: the calibrations that follow train on dev only
    page.get_by_role("option", name=CROSS_VALIDATION).click()
    wait_idle(page)
    move_slider(page, "Folds", ["ArrowLeft", "ArrowLeft"], to=3)  # 5 -> 3
    page.get_by_role("combobox", name="Proper scoring rule (α, β)").click()
    page.get_by_role("option", name="Brier (2, 2)").click()
    wait_idle(page)
    chosen(page, "log-odds").click()
    wait_idle(page)
    type_number(page, "Prior weighting τ = logit(P)", "-3")
    page.get_by_role("combobox", name="Break down by").click()  # far down the page, a click only focuses the box:
    page.keyboard.type("attack")  # typing opens it, as on a long list
    page.get_by_role("option", name="attack", exact=True).click()
    wait_idle(page, timeout=120_000)  # the option chosen runs the page; closing the list does not
    page.keyboard.press("Escape")
    chosen(page, "Pooled").click()
    wait_idle(page, timeout=120_000)

    go(page, "Home")
    go(page, "Calibrate")
    expect(page.get_by_role("combobox", name="Proper scoring rule (α, β)")).to_have_value("Brier (2, 2)")
    expect(chosen(page, "log-odds")).to_be_checked()
    expect(page.get_by_role("spinbutton", name="Prior weighting τ = logit(P)")).to_have_value("-3.000")
    expect(page.get_by_role("combobox", name="Evaluate on")).to_have_value(CROSS_VALIDATION)
    expect(slider(page, "Folds")).to_have_value("3")
    expect(chips(page, "cal_by")).to_have_text(["attack"])
    expect(chosen(page, "Pooled")).to_be_checked()
    p = 1 / (1 + np.exp(3.0))  # sigmoid(-3) = 0.0474
    result = lc.calibrate_and_evaluate(DEV, None, "affine", BRIER, plo=-3.0, folds=3)
    expect(page.get_by_text(f"Brier (α = 2, β = 2) rule with prior weighting P = {p:.3g} (τ = -3.00)",
                            exact=False)).to_be_visible(timeout=60_000)
    expect(page.get_by_text(transform(result.calibrator), exact=False)).to_be_visible()
    expect(page.get_by_text("The evaluation LLRs come from 3 calibrations", exact=False)).to_be_visible()
    header, first, *_ = per_condition_rows(page)
    assert "Cllr pooled" in header and "Cllr per condition" not in header, header  # the view "Pooled"
    by_condition = lc.calibrate_by_condition(DEV, None, ("attack",), "affine", BRIER, plo=-3.0, folds=3)
    expected = by_condition.to_frame(eer_percent=True).iloc[0]
    assert float(first[header.index("Cllr pooled")]) == pytest.approx(expected["Cllr pooled"], rel=1e-9)
    no_exception(page)
    snap(page, screenshots / "choices_calibrate_after_walk.png")

    chosen(page, "PAV").click()  # another method, and a second walk
    wait_idle(page, timeout=120_000)
    go(page, "Home")
    go(page, "Calibrate")
    expect(chosen(page, "PAV")).to_be_checked()
    steps = lc.calibrate_and_evaluate(DEV, None, "pav", folds=3).calibrator.llrs.size // 2
    expect(page.get_by_text(f"a monotone step function with {steps} steps", exact=False)).to_be_visible(
        timeout=60_000)
    no_exception(page)


# ----- Compare scoring rules ------------------------------------------------------------------------------------------


def best_sentence(sweep: lc.RuleSweep) -> str:
    best = sweep.best
    return f"Lowest {sweep.cost_name}: {best['cost']:.3f} with the {best['rule']} rule at prior weighting " \
           f"P = {best['p_weight']:.3g}"


def test_compare_rules_the_tdcf_and_diarization_keep_their_choices_through_the_sidebar(page: Page, app_url,
                                                                                          screenshots):
    """Three pages that share nothing, one session: each page's choices, defaults first, then changed."""
    open_page(page, app_url)
    compare_rules_keeps_its_choices(page, screenshots)
    tandem_keeps_its_formulation_and_costs(page, screenshots)
    diarization_keeps_the_matrix_and_the_scoring(page, screenshots)


def compare_rules_keeps_its_choices(page: Page, screenshots) -> None:
    go(page, "Compare rules")
    expect(chips(page, "cmp_rules")).to_have_text(["logarithmic (1, 1)", "Brier (2, 2)", "boosting (0.5, 0.5)",
                                                   "asymmetric (2, 1)"])
    expect(slider(page, "Range of τ = logit(P)", 0)).to_have_value("-8")
    expect(slider(page, "Range of τ = logit(P)", 1)).to_have_value("0")
    expect(slider(page, "Points")).to_have_value("17")
    expect(chosen(page, "Cprimary")).to_be_checked()
    default = lc.sweep_prior_weighting(DEV, EVAL, plo_grid=np.linspace(-8, 0, 17))
    expect(page.get_by_text(best_sentence(default), exact=False)).to_be_visible(timeout=120_000)

    # Points first (Home: 3, then 5): the sweeps that follow are short
    move_slider(page, "Points", ["Home", "ArrowRight", "ArrowRight"], to=5)
    move_slider(page, "Range of τ = logit(P)", ["ArrowRight"] * 4, index=0, to=-6)  # -8 -> -6
    for rule in ("boosting (0.5, 0.5)", "asymmetric (2, 1)"):
        page.get_by_role("button", name=f"Remove {rule}").click()
        wait_idle(page, timeout=120_000)
    chosen(page, "My DCF").click()
    wait_idle(page, timeout=120_000)

    go(page, "Home")
    go(page, "Compare rules")
    expect(chips(page, "cmp_rules")).to_have_text(["logarithmic (1, 1)", "Brier (2, 2)"])
    expect(slider(page, "Range of τ = logit(P)", 0)).to_have_value("-6")
    expect(slider(page, "Points")).to_have_value("5")
    expect(chosen(page, "My DCF")).to_be_checked()
    chosen_sweep = lc.sweep_prior_weighting(DEV, EVAL, [LOGARITHMIC, BRIER], np.linspace(-6, 0, 5), p_target=0.01)
    expect(page.get_by_text(best_sentence(chosen_sweep), exact=False)).to_be_visible(timeout=120_000)
    no_exception(page)
    snap(page, screenshots / "choices_compare_rules_after_walk.png")


# ----- ASV + countermeasure -------------------------------------------------------------------------------------------


def check_costs(page: Page, formulation: str, **typed: float) -> None:
    """The cost boxes show the formulation's cost model (the organisers'), with the `typed` values."""
    for name, value in {**lc.tdcf_cost_model(formulation), **typed}.items():
        expect(page.get_by_role("spinbutton", name=name, exact=True)).to_have_value(f"{value:.4f}")


def tandem_keeps_its_formulation_and_costs(page: Page, screenshots) -> None:
    go(page, "ASV + countermeasure")
    expect(chosen(page, "revised (ASVspoof 2021 on)")).to_be_checked()
    check_costs(page, "revised")

    page.get_by_text("legacy (ASVspoof 2019)", exact=True).click()
    wait_idle(page)
    type_number(page, "Cfa_cm", "5")
    go(page, "Home")
    go(page, "ASV + countermeasure")
    expect(chosen(page, "legacy (ASVspoof 2019)")).to_be_checked()
    check_costs(page, "legacy", Cfa_cm=5.0)
    no_exception(page)
    snap(page, screenshots / "choices_tandem_after_walk.png")


# ----- Diarization ----------------------------------------------------------------------------------------------------


def segments(folder: str, file: str) -> str:
    """How many segments a demo matrix has, as the page writes it: the rows of its score matrix."""
    with np.load(ASSETS / folder / file) as data:
        return f"{len(data[data.files[0]]):,} segments"


def diarization_keeps_the_matrix_and_the_scoring(page: Page, screenshots) -> None:
    go(page, "Diarization")
    matrix = page.get_by_role("combobox", name="Matrix")
    expect(matrix).to_have_value("AMI ES2005a (PLDA LLRs of 1,025 x-vector windows)")
    expect(page.get_by_text(segments("ami_ES2005a", "ES2005a_similarity.npz"), exact=False).first).to_be_visible()
    expect(page.get_by_role("combobox", name="Score model (Bayes)")).to_have_value("By the kind of scores (default)")
    expect(slider(page, "Collar per side (s)")).to_have_attribute("aria-valuetext", "0.25")

    matrix.click()
    page.get_by_role("option", name="pyannote sample (cosines of 74 d-vector windows)").click()
    wait_idle(page)
    page.get_by_role("combobox", name="Score model (Bayes)").click()
    page.get_by_role("option", name="From this recording").click()
    wait_idle(page)
    move_slider(page, "Collar per side (s)", ["ArrowRight"], to=0.5)  # 0.25 -> 0.5

    go(page, "Home")
    go(page, "Diarization")
    expect(matrix).to_have_value("pyannote sample (cosines of 74 d-vector windows)")
    expect(page.get_by_text(segments("pyannote_sample", "sample_similarity.npz"), exact=False).first).to_be_visible()
    expect(page.get_by_role("combobox", name="Score model (Bayes)")).to_have_value("From this recording")
    expect(slider(page, "Collar per side (s)")).to_have_attribute("aria-valuetext", "0.5")
    no_exception(page)
    snap(page, screenshots / "choices_diarization_after_walk.png")
