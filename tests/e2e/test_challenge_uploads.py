"""Challenge files as the organisers ship them, uploaded on the Data page in headless Chromium: a VoxCeleb trial
list (label first) as the key of a Kaldi-order score file, and an ASVspoof 2021 LA key (8 columns) as the key of a
two-column CM score file.

Independent references: the trial counts follow from how the test writes the files (every third VoxCeleb trial a
target; bona fide where the key says so) and equal those of ``lc.read_trials`` on the same files, which
tests/io/test_challenge_files.py holds against hand-worked joins. Screenshot: ``tests/e2e/screenshots/data_challenge.png``.
"""
from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from test_browser import no_exception, open_page, snap, wait_idle

import llrcore as lc

pytestmark = pytest.mark.e2e

UPLOADS = ".st-key-score_uploads"


def write_voxceleb(folder):
    """``enrol test score`` for 300 trials and the VoxCeleb list ``1|0 enrol test`` in another order."""
    rng = np.random.default_rng(31)
    pairs = [(f"id10{k % 30:03d}/a{k}.wav", f"id10{(k * 7) % 30:03d}/b{k}.wav") for k in range(300)]
    target = np.arange(300) % 3 == 0
    scores = rng.normal(np.where(target, 0.7, 0.2), 0.1)
    score_file, key_file = folder / "vox.scores", folder / "veri_test.txt"
    score_file.write_text("".join(f"{e} {t} {s:.4f}\n" for (e, t), s in zip(pairs, scores)))
    key_file.write_text("".join(f"{int(target[i])} {pairs[i][0]} {pairs[i][1]}\n" for i in rng.permutation(300)))
    return score_file, key_file


def write_asvspoof2021(folder):
    """``utt score`` for 200 utterances and the LA key ``speaker utt codec transmission attack label trim subset``."""
    rng = np.random.default_rng(32)
    spoof = np.arange(200) % 4 != 0
    utts = [f"LA_E_{9000000 + k}" for k in range(200)]
    score_file, key_file = folder / "cm_2021.txt", folder / "trial_metadata.txt"
    score_file.write_text("".join(f"{u} {s:.4f}\n" for u, s in zip(utts, rng.normal(np.where(spoof, -2, 2), 1))))
    key_file.write_text("".join(
        f"LA_{k % 20:04d} {utts[k]} {'alaw' if k % 2 else 'none'} ita_tx {'A07' if spoof[k] else 'bonafide'} "
        f"{'spoof' if spoof[k] else 'bonafide'} notrim eval\n" for k in rng.permutation(200)))
    return score_file, key_file


def upload_with_key(page: Page, scores, key) -> None:
    page.locator(f"{UPLOADS} input[type=file]").set_input_files(scores)
    expect(page.get_by_test_id("stAlertContentError").filter(has_text=scores.name)).to_contain_text(
        "Add its key file in the box below", timeout=60_000)
    wait_idle(page)
    box = page.get_by_test_id("stFileUploader").filter(has_text=f"Key file for {scores.name}")
    box.locator("input[type=file]").set_input_files(key)
    expect(page.get_by_text(f"Added {scores.stem} from {scores.name}")).to_be_visible(timeout=60_000)
    wait_idle(page)


def test_a_voxceleb_list_and_an_asvspoof_2021_key_join_their_score_files(page: Page, app_url, screenshots, tmp_path):
    vox, cm = write_voxceleb(tmp_path), write_asvspoof2021(tmp_path)
    vox_trials, cm_trials = lc.read_trials(vox[0], key=vox[1]), lc.read_trials(cm[0], key=cm[1])
    assert (vox_trials.tar.size, vox_trials.non.size) == (100, 200)
    assert (cm_trials.tar.size, cm_trials.non.size) == (50, 150)  # bona fide, spoof
    assert set(cm_trials.metadata.columns) >= {"codec", "transmission", "attack"}
    open_page(page, f"{app_url}/data")
    upload_with_key(page, *vox)
    expect(page.get_by_text(f"{vox_trials.tar.size:,} target · {vox_trials.non.size:,} non-target")).to_be_visible()
    upload_with_key(page, *cm)
    expect(page.get_by_text(f"{cm_trials.tar.size:,} target · {cm_trials.non.size:,} non-target")).to_be_visible()
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    no_exception(page)
    snap(page, screenshots / "data_challenge.png")
