"""The Data page in headless Chromium at 1600 px: every uploaded file's chip in view, and score files with their own
keys.

Independent references: the trial counts and the number of scored trials left out follow from how the test writes
the files (models x tests, and how many of the models the key covers); a chip is fully visible when its box has a size
and lies inside the box of the uploader's drop zone and of the chip list, within the window's width. Screenshots go
to ``tests/e2e/screenshots/`` for a person to look at.
"""
from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from test_browser import no_exception, open_page, snap, wait_idle

pytestmark = pytest.mark.e2e

UPLOADS = ".st-key-score_uploads"


def write_score_files(folder, count: int) -> list:
    """`count` small two-column score files, named like real ones: long enough that a narrow uploader shows one chip
    a row (its chip list then held two rows and a half, and cut off the 3rd and 4th file of four)."""
    rng = np.random.default_rng(count)
    paths = []
    for i in range(1, count + 1):
        lines = [f"{s:.4f} target" for s in rng.normal(2, 1, 20)]
        lines += [f"{s:.4f} nontarget" for s in rng.normal(-2, 1, 80)]
        path = folder / f"system_number_{i}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def write_kaldi_files(folder, prefix: str, scored_models: int, keyed_models: int, n_tests: int = 20):
    """A score file `prefix`.scores of models x tests and its key `prefix`.key of the first `keyed_models` models;
    model i's targets are the tests j with j % 10 == i % 10 (n_tests / 10 per model)."""
    rng = np.random.default_rng(len(prefix) + scored_models)
    pairs = [(i, j) for i in range(scored_models) for j in range(n_tests)]
    scores = folder / f"{prefix}.scores"
    key = folder / f"{prefix}.key"
    scores.write_text("".join(f"{prefix}{i} u{j} {rng.normal(3 if i % 10 == j % 10 else -3):.4f}\n" for i, j in pairs))
    key.write_text("".join(f"{prefix}{i} u{j} {'target' if i % 10 == j % 10 else 'nontarget'}\n" for i, j in pairs
                           if i < keyed_models))
    return scores, key


def inside(inner: dict, outer: dict) -> bool:
    return (inner["x"] >= outer["x"] - 0.5 and inner["y"] >= outer["y"] - 0.5
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5)


@pytest.mark.parametrize("count", [4, 8])
def test_every_uploaded_file_chip_is_fully_visible(page: Page, app_url, screenshots, tmp_path, count):
    open_page(page, f"{app_url}/data")
    paths = write_score_files(tmp_path, count)
    page.locator(f"{UPLOADS} input[type=file]").set_input_files(paths)
    expect(page.get_by_text(f"Added system_number_{count} from")).to_be_visible(timeout=30_000)
    wait_idle(page)
    no_exception(page)
    zone = page.locator(f"{UPLOADS} [data-testid=stFileUploaderDropzone]").bounding_box()
    chip_list = page.locator(f"{UPLOADS} [data-testid=stFileChips]").bounding_box()
    width = page.viewport_size["width"]
    chips = page.locator(f"{UPLOADS} [data-testid=stFileChip]")
    expect(chips).to_have_count(count)
    for path, chip in zip(paths, chips.all()):
        box = chip.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, path.name
        assert inside(box, zone) and inside(box, chip_list), (path.name, box, zone, chip_list)
        assert box["x"] + box["width"] <= width, (path.name, box)
        name = chip.get_by_test_id("stFileChipName")
        expect(name).to_have_text(path.name)
        assert name.evaluate("e => e.scrollWidth <= e.clientWidth"), f"{path.name} is cut short"
    page.locator(UPLOADS).screenshot(path=screenshots / f"data_uploader_{count}_files.png")


def test_a_dev_and_an_eval_score_file_load_with_their_own_keys(page: Page, app_url, screenshots, tmp_path):
    dev_scores, dev_key = write_kaldi_files(tmp_path, "dev", scored_models=10, keyed_models=10)
    eval_scores, eval_key = write_kaldi_files(tmp_path, "eval", scored_models=15, keyed_models=12)  # 3 x 20 out
    open_page(page, f"{app_url}/data")
    page.locator(f"{UPLOADS} input[type=file]").set_input_files([dev_scores, eval_scores])
    for name in ("dev.scores", "eval.scores"):
        expect(page.get_by_test_id("stAlertContentError").filter(has_text=name)).to_contain_text(
            "Add its key file in the box below", timeout=30_000)
    wait_idle(page)
    snap(page, screenshots / "data_two_score_files_need_keys.png")

    for name, key in (("dev.scores", dev_key), ("eval.scores", eval_key)):
        box = page.get_by_test_id("stFileUploader").filter(has_text=f"Key file for {name}")
        box.locator("input[type=file]").set_input_files(key)
        wait_idle(page)
    expect(page.get_by_text("Added eval from eval.scores")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stAlertContentWarning")).to_contain_text(
        "eval.scores: 60 of 300 scored trials are not in the key eval.key and were left out")
    no_exception(page)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    names = page.locator("input[aria-label='System name']")
    expect(names.nth(3)).to_have_value("dev")
    expect(names.nth(4)).to_have_value("eval")
    expect(page.get_by_text(f"{10 * 2} target · {10 * 18} non-target")).to_be_visible()
    expect(page.get_by_text(f"{12 * 2} target · {12 * 18} non-target")).to_be_visible()
    expect(page.get_by_text("5 systems loaded")).to_be_visible()
    snap(page, screenshots / "data_two_score_files_with_keys.png")


def test_a_voxceleb_score_file_asks_for_either_key_form_and_loads_with_its_trial_list(page: Page, app_url, tmp_path):
    """VoxCeleb's scorers write `enrol test score` and ship the list `1 enrol test` (1 target, 0 non-target): the
    request for the key names that list beside Kaldi's form, and the list given as the key labels the trials."""
    pairs = [(f"id1{i % 3}/{i}.wav", f"id1{j % 3}/{j}.wav") for i in range(6) for j in range(6, 12)]
    scores, key = tmp_path / "vox1_o.scores", tmp_path / "veri_test.txt"
    scores.write_text("".join(f"{a} {b} {0.1 * (k % 7) - 0.3:.2f}\n" for k, (a, b) in enumerate(pairs)))
    key.write_text("".join(f"{int(a[:4] == b[:4])} {a} {b}\n" for a, b in pairs))
    n_tar = sum(a[:4] == b[:4] for a, b in pairs)
    open_page(page, f"{app_url}/data")
    page.locator(f"{UPLOADS} input[type=file]").set_input_files(scores)
    request = page.get_by_test_id("stAlertContentError").filter(has_text="vox1_o.scores")
    expect(request).to_contain_text("a VoxCeleb trial list '1 enrol test'", timeout=30_000)
    expect(request).to_contain_text("'model test target|nontarget'")
    box = page.get_by_test_id("stFileUploader").filter(has_text="Key file for vox1_o.scores")
    box.locator("input[type=file]").set_input_files(key)
    wait_idle(page)
    expect(page.get_by_text(f"{n_tar} target · {len(pairs) - n_tar} non-target")).to_be_visible(timeout=30_000)
    no_exception(page)
