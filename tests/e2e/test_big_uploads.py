"""Big uploads on the Data page in headless Chromium at 1600 px: a progress bar says each step while a large score
file and its key are parsed, and is gone after; a file larger than the server can hold is said in one sentence, and
the data already loaded stays loaded.

Independent references: the trial counts follow from how the test writes the files (1,000 models x 1,000 tests,
model i's targets the tests j with j % 10 == i % 10) and equal those of ``lc.read_trials`` on the same files; the
steps the bar may say are those ``llrcore.read_trials`` documents (the scores parsed, the key parsed, the two joined),
then the sort; the file's size as written (exactly 10,000,000 bytes) and the server's memory limit set by the test
(``LLRCORE_MEMORY_LIMIT=20000000``) in the sentence. Screenshots go to ``tests/e2e/screenshots/``.
"""
from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import IDLE, no_exception, open_page, snap, wait_idle

import llrcore as lc

pytestmark = pytest.mark.e2e

UPLOADS = ".st-key-score_uploads"
MEMORY_LIMIT = 20_000_000
# Records every text the progress bar shows, however briefly: a MutationObserver sees each change the page makes.
RECORD_PROGRESS = """() => {
    window.progressTexts = [];
    new MutationObserver(() => {
        for (const bar of document.querySelectorAll('[data-testid=stProgress]')) {
            const text = bar.innerText.trim();
            if (text && window.progressTexts.at(-1) !== text) window.progressTexts.push(text);
        }
    }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
}"""


@pytest.fixture(scope="module")
def app_env() -> dict:
    """The module's own server (``fresh_app_url``) may hold 20 MB, as a server shared by users is set up."""
    return {"LLRCORE_MEMORY_LIMIT": str(MEMORY_LIMIT)}


def write_big_kaldi_files(folder, n_models: int = 1000, n_tests: int = 1000):
    """A Kaldi score file ``model test score`` of every model x test, and its key in another (shuffled) order."""
    rng = np.random.default_rng(30)
    model, test = np.divmod(np.arange(n_models * n_tests), n_tests)
    target = model % 10 == test % 10
    scores = rng.normal(np.where(target, 3.0, -3.0), 1.5)
    score_file, key_file = folder / "big.scores", folder / "big.key"
    score_file.write_text("".join(f"spk{m} utt{t} {s:.4f}\n" for m, t, s in zip(model, test, scores)))
    order = rng.permutation(model.size)
    key_file.write_text("".join(f"spk{model[i]} utt{test[i]} {'target' if target[i] else 'nontarget'}\n"
                                for i in order))
    return score_file, key_file


def test_a_big_score_file_and_its_key_show_a_progress_bar_then_their_counts(page: Page, app_url, screenshots,
                                                                            tmp_path):
    scores, key = write_big_kaldi_files(tmp_path)
    expected = lc.read_trials(scores, key=key)
    assert (expected.tar.size, expected.non.size) == (100_000, 900_000)
    open_page(page, f"{app_url}/data")
    page.locator(f"{UPLOADS} input[type=file]").set_input_files(scores)
    expect(page.get_by_test_id("stAlertContentError").filter(has_text="big.scores")).to_contain_text(
        "Add its key file in the box below", timeout=60_000)
    wait_idle(page)

    page.evaluate(RECORD_PROGRESS)
    box = page.get_by_test_id("stFileUploader").filter(has_text="Key file for big.scores")
    box.locator("input[type=file]").set_input_files(key)
    # the bar may come and go before a look at the page (1M lines read in about a second): RECORD_PROGRESS saw it
    expect(page.get_by_text("Added big from big.scores")).to_be_visible(timeout=120_000)
    wait_idle(page)

    steps = ["Parsing big.scores…", "Parsing its key big.key…", "Joining big.scores with its key…",
             "Sorting the scores of big.scores…"]
    seen = page.evaluate("() => window.progressTexts")
    assert seen and set(seen) <= set(steps), seen
    assert seen == sorted(seen, key=steps.index)  # in the order of the steps
    expect(page.get_by_test_id("stProgress")).to_have_count(0)  # gone once the file is read
    no_exception(page)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_text(f"{expected.tar.size:,} target · {expected.non.size:,} non-target")).to_be_visible()
    expect(page.get_by_text("4 systems loaded")).to_be_visible()
    snap(page, screenshots / "data_big_upload_done.png")


def test_a_file_larger_than_the_server_can_hold_is_said_and_the_demo_data_kept(page: Page, fresh_app_url,
                                                                              screenshots, tmp_path):
    huge = tmp_path / "huge scores.txt"
    scores = np.clip(np.random.default_rng(1).normal(0, 2, 625_000), -9.9, 9.9)
    huge.write_text("".join(f"{s:+.10f} {int(i % 10 == 0)}\n" for i, s in enumerate(scores)))  # 16 bytes a line
    assert huge.stat().st_size == 10_000_000
    open_page(page, f"{fresh_app_url}/data")
    expect(page.get_by_text("3 systems loaded")).to_be_visible()
    page.locator(f"{UPLOADS} input[type=file]").set_input_files(huge)
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_have_count(1, timeout=60_000)
    wait_idle(page)
    expect(error).to_contain_text("huge scores.txt: the file is 10 MB of text; reading it needs about ")
    expect(error).to_contain_text("more memory and 20 MB is free here.")
    expect(page.get_by_test_id("stProgress")).to_have_count(0)
    no_exception(page)
    expect(page.get_by_text("3 systems loaded")).to_be_visible()  # the demo data stays loaded
    expect(page.locator("input[aria-label='System name']")).to_have_count(3)
    page.wait_for_selector(IDLE)
    snap(page, screenshots / "data_file_too_large.png")
