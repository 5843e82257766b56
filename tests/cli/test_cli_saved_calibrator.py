"""``llrcore calibrate DEV --save cal.json`` and ``llrcore calibrate --load cal.json --apply-to SCORES -o OUT``.

Independent references: the library's fits on the same files (``lc.fit_affine``, ``lc.fit_pav``,
``lc.fit_quality_affine`` with the prior weighting of ``--prior``), and the calibrated file that the command line
writes when it trains and applies in one run (``--digits all``: every digit of the float), which the saved and
loaded calibration must reproduce byte for byte. Real data: the ASVspoof 2019 LA ASV scores (tests/data) and the
NIST BSSR1 face scores with the other matcher's score as a quality column (assets/nist_bssr1).
"""
from __future__ import annotations

import json

import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from paths import ASSETS, DATA

ASV_DEV = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"
ASV_EVAL = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"


@pytest.mark.parametrize("method", ["affine", "pav", "cmlg"])
def test_a_saved_calibration_applied_later_writes_the_same_file(method, tmp_path, capsys):
    at_once, later, saved = tmp_path / "at_once.txt", tmp_path / "later.txt", tmp_path / "cal.json"
    assert main(["calibrate", str(ASV_DEV), "--method", method, "--apply-to", str(ASV_EVAL), "-o", str(at_once),
                 "--digits", "all", "--save", str(saved)]) == 0
    assert f"Saved the calibration to {saved}" in capsys.readouterr().out
    assert main(["calibrate", "--load", str(saved), "--apply-to", str(ASV_EVAL), "-o", str(later),
                 "--digits", "all"]) == 0
    assert later.read_bytes() == at_once.read_bytes()
    dev = lc.read_trials(ASV_DEV)
    fitted = {"affine": lambda: lc.fit_affine(dev.tar, dev.non, plo=float(lc.effective_plo(0.5))),
              "pav": lambda: lc.fit_pav(dev.tar, dev.non), "cmlg": lambda: lc.fit_cmlg(dev.tar, dev.non)}[method]()
    loaded = lc.load_calibrator(saved)
    assert type(loaded) is type(fitted)
    assert json.dumps(json.loads(loaded.to_json())["coefficients"]) == json.dumps(
        json.loads(fitted.to_json())["coefficients"])


def test_save_alone_trains_and_saves_with_the_recipe(tmp_path, capsys):
    saved = tmp_path / "cal.json"
    assert main(["calibrate", str(ASV_DEV), "--rule", "brier", "--prior", "0.01", "--save", str(saved)]) == 0
    assert capsys.readouterr().out.startswith("Trained a calibration with")
    document = json.loads(saved.read_text())
    assert document["rule"]["name"] == "Brier" and document["p_target"] == pytest.approx(0.01, rel=1e-12)
    dev = lc.read_trials(ASV_DEV)
    assert lc.load_calibrator(saved) == lc.fit_affine(dev.tar, dev.non, lc.BetaRule.brier(),
                                                      plo=float(lc.effective_plo(0.01)))


def test_a_saved_quality_calibration_reads_its_measures_from_the_scores_file(tmp_path):
    table = pd.read_csv(ASSETS / "nist_bssr1" / "bssr1_face.tsv.gz", sep="\t")
    table = table[table["face-C"] > -1].rename(columns={"face-C": "score", "face-G": "other"})
    scores = tmp_path / "bssr1.tsv"
    table[["model", "test", "score", "label", "other"]].to_csv(scores, sep="\t", index=False)
    at_once, later, saved = tmp_path / "at_once.tsv", tmp_path / "later.tsv", tmp_path / "cal.json"
    assert main(["calibrate", str(scores), "--quality", "other", "--apply-to", str(scores), "-o", str(at_once),
                 "--digits", "all", "--save", str(saved)]) == 0
    assert main(["calibrate", "--load", str(saved), "--apply-to", str(scores), "-o", str(later),
                 "--digits", "all"]) == 0
    assert later.read_bytes() == at_once.read_bytes()
    loaded = lc.load_calibrator(saved)
    fitted = lc.fit_quality_affine(lc.read_trials(scores), ["other"], plo=float(lc.effective_plo(0.5)))
    assert loaded.features == ("score", "other")
    assert list(loaded.weights) == list(fitted.weights) and loaded.offset == fitted.offset


@pytest.mark.parametrize("arguments, sentence", [
    ([], "Give a development score file to train the calibration on, or --load CAL_JSON to apply a saved one"),
    ([str(ASV_DEV), "--load", "cal.json"], "(not both)"),
    ([str(ASV_DEV)], "Nothing to do: give --apply-to SCORES -o OUTPUT to calibrate scores, or --save CAL_JSON"),
    ([str(ASV_DEV), "--apply-to", str(ASV_EVAL)], "Give --apply-to SCORES and -o OUTPUT together"),
    (["--load", "cal.json", "--save", "other.json"], "--load applies a saved calibration as it is"),
    (["--load", "missing.json", "--apply-to", str(ASV_EVAL), "-o", "out.txt"],
     "There is no calibrator file missing.json (nor is that JSON text)."),
])
def test_calibrate_says_what_is_missing_in_one_line(arguments, sentence, capsys):
    assert main(["calibrate", *arguments]) == 2
    error = capsys.readouterr().err
    assert sentence in error and error.count("\n") == 1


def test_a_saved_fusion_or_a_bad_file_is_refused_in_one_line(tmp_path, capsys):
    fusion = tmp_path / "fusion.json"
    fusion.write_text(lc.Fusion(weights=lc.sigmoid([0.0, 1.0]), offset=0.0).to_json())
    assert main(["calibrate", "--load", str(fusion), "--apply-to", str(ASV_EVAL), "-o", str(tmp_path / "o.txt")]) == 2
    assert capsys.readouterr().err == ("llrcore calibrate: fusion.json holds a fusion calibration; llrcore calibrate "
                                       "applies one that calibrates one score column (affine, pav, quality, "
                                       "conditional).\n")
    bad = tmp_path / "cal.json"
    bad.write_text('{"schema": "llrcore.calibrator/3", "kind": "affine"}')
    assert main(["calibrate", "--load", str(bad), "--apply-to", str(ASV_EVAL), "-o", str(tmp_path / "o.txt")]) == 2
    assert "The calibrator file cal.json was written by a newer llrcore (schema version 3" in capsys.readouterr().err
