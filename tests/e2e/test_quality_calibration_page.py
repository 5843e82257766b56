"""Quality measures on the Calibrate and Fusion pages, in headless Chromium at 1600 px as a person uses them: two
score files with a numeric ``duration`` column uploaded on the Data page, the column chosen under "Quality measures".

Independent references: the files are written here from a population whose exact LLR is ``score - 0.6 *
duration``; the numbers shown (the downloaded comparison table, the Cllr cards, the formula) are recomputed from
the same files with the library's public API (``lc.read_trials``, ``lc.fit_affine(trials, quality=...)``, whose
fit is itself tested against scikit-learn in tests/calibration/test_quality_calibration.py) and with Cllr written out in numpy.
The calibrators downloaded as JSON, read back with ``lc.load_calibrator``, give the Cllr the page shows.
"""
from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from scipy.special import logit
from test_browser import no_exception, open_page, snap, wait_idle
from test_conditions_page import choose, download, go

import llrcore as lc

pytestmark = pytest.mark.e2e

PLO = float(logit(0.01))  # the Calibrate page's default prior weighting, P = 0.01


def write_population(path, n: int, seed: int, offset: float = 0.0, noise_seed: int = 0):
    """``model test score label duration`` with a header; the score is a calibrated LLR plus 0.6 * duration (and
    `offset`, another system's bias) plus a little noise (drawn from `noise_seed`: another system's)."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.3
    llr = np.where(labels, rng.normal(2, 2, n), rng.normal(-2, 2, n))
    duration = rng.uniform(2, 20, n)
    scores = llr + 0.6 * duration + offset + np.random.default_rng(noise_seed).normal(0, 0.3, n)
    lines = ["model test score label duration"] + [
        f"m{i // 7} t{i} {s:.6f} {'target' if y else 'nontarget'} {d:.3f}"
        for i, (s, y, d) in enumerate(zip(scores, labels, duration))]
    path.write_text("\n".join(lines) + "\n")
    return path


def cllr(tar, non) -> float:
    return float((np.logaddexp(0, -tar).mean() + np.logaddexp(0, non).mean()) / (2 * np.log(2)))


def upload(page: Page, paths) -> None:
    go(page, "Data")
    page.locator(".st-key-score_uploads input[type=file]").set_input_files(paths)
    for path in paths:
        expect(page.get_by_text(f"Added {path.stem} from {path.name}")).to_be_visible(timeout=60_000)
    wait_idle(page)


def pick_quality(page: Page, column: str) -> None:
    box = page.get_by_role("combobox", name="Quality measures")
    box.click()
    page.keyboard.type(column)
    page.get_by_role("option", name=column, exact=True).click()
    wait_idle(page, timeout=180_000)  # the option chosen runs the page; closing the list does not
    page.keyboard.press("Escape")


def test_quality_measures_on_the_calibrate_page_then_on_the_fusion_page(page: Page, app_url, screenshots,
                                                                         tmp_path):
    dev = write_population(tmp_path / "qmf_dev.txt", 1500, seed=1)
    evaluation = write_population(tmp_path / "qmf_eval.txt", 1500, seed=2)
    open_page(page, f"{app_url}/")
    upload(page, [dev, evaluation])
    go(page, "Calibrate")
    choose(page, "Train on", "qmf_dev")
    expect(page.get_by_role("combobox", name="Evaluate on")).to_have_value("qmf_eval")
    pick_quality(page, "duration")
    no_exception(page)

    train, test = lc.read_trials(dev), lc.read_trials(evaluation)
    calibration = lc.fit_quality_affine(train, ["duration"], plo=PLO)
    plain = lc.fit_affine(train, plo=PLO)
    expect(page.get_by_text(calibration.formula())).to_be_visible()
    calibrated = calibration(test)
    ours, affine = cllr(calibrated.tar, calibrated.non), cllr(plain(test.tar), plain(test.non))
    assert ours < affine - 0.1  # the point of the measure
    expect(page.get_by_text(f"{ours:.4f} bits", exact=True)).to_be_visible()
    expect(page.get_by_text(f"{affine:.4f} bits", exact=True).first).to_be_visible()
    table = download(page, page.get_by_role("button", name="Quality comparison as CSV")).set_index("system")
    assert list(table.index) == ["raw scores", "affine", "affine + duration"]
    assert table.loc["affine + duration", "Cllr"] == pytest.approx(ours, rel=1e-9)
    assert table.loc["affine", "Cllr"] == pytest.approx(affine, rel=1e-9)
    assert table.loc["raw scores", "Cllr"] == pytest.approx(cllr(test.tar, test.non), rel=1e-9)
    with page.expect_download() as event:  # the calibrator itself, read back: the LLRs of the Cllr shown
        page.get_by_role("button", name="Quality calibrator as JSON").click()
    loaded = lc.load_calibrator(event.value.path())
    assert loaded.features == ("score", "duration")
    assert cllr(loaded(test).tar, loaded(test).non) == pytest.approx(ours, rel=1e-9)
    page.get_by_role("heading", name="With quality measures (QMF)").scroll_into_view_if_needed()
    snap(page, screenshots / "calibrate_quality.png")

    # then two systems of the same trials, fused with the same measure on the Fusion page
    a = write_population(tmp_path / "sysA.txt", 1200, seed=3)
    b = write_population(tmp_path / "sysB.txt", 1200, seed=3, offset=1.0, noise_seed=1)  # the same trials
    upload(page, [a, b])
    go(page, "Fusion")
    box = page.get_by_role("combobox", name="Development systems (train the fusion)")
    for name in ("sysA", "sysB"):
        box.click()
        page.keyboard.type(name)
        page.get_by_role("option", name=name, exact=True).click()
        wait_idle(page, timeout=180_000)
    page.keyboard.press("Escape")
    pick_quality(page, "duration")
    no_exception(page)
    expect(page.get_by_role("heading", name="With and without the quality measures")).to_be_visible()
    systems = {"sysA": lc.read_trials(a), "sysB": lc.read_trials(b)}
    result = lc.fuse(systems, quality=["duration"], regularisation=1e-3, plo=0.0)
    expect(page.get_by_text(result.formula())).to_be_visible()
    with page.expect_download() as event:  # the fusion with its quality measure, read back
        page.get_by_role("button", name="Fusion as JSON").click()
    loaded = lc.load_calibrator(event.value.path())
    assert loaded.features == ("sysA", "sysB", "duration")
    np.testing.assert_allclose(loaded(result.dev).tar, result.fused_dev.tar, rtol=1e-9, atol=1e-9)
    snap(page, screenshots / "fusion_quality.png")
