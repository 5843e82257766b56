"""The `llrcore` command line: its numbers are the library's, bad input is one line and exit status 2."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import llrcore as lc
from llrcore.cli import main

DATA = Path(__file__).parent / "data"
ASV_EVAL = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"


def test_evaluate_json_equals_the_library(capsys):
    assert main(["evaluate", str(ASV_EVAL), "--p-target", "0.01", "--c-miss", "10", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()
    trials = lc.read_trials(ASV_EVAL)
    assert row["EER"] == lc.eer(trials)
    assert row["minDCF"] == lc.min_dcf(trials, p_target=0.01, c_miss=10)
    assert row["actDCF"] == lc.act_dcf(trials, p_target=0.01, c_miss=10)
    assert row["Cllr"] == lc.cllr(trials) and row["minCllr"] == lc.min_cllr(trials)
    assert (row["targets"], row["non-targets"]) == (5370, 33327)


def test_evaluate_several_files_and_systems_csv(capsys):
    assert main(["evaluate", str(ASV_EVAL), str(DATA / "formats" / "multi_system.tsv"), "--csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("system,targets,non-targets,EER")
    assert [line.split(",")[0] for line in lines[1:]] == ["ASVspoof2019.LA.asv.eval.gi.trl.scores", "sysA", "sysB"]


def test_evaluate_kaldi_with_key(capsys):
    formats = DATA / "formats"
    assert main(["evaluate", str(formats / "kaldi_scores.txt"), "--key", str(formats / "kaldi_key.txt")]) == 0
    assert "kaldi_scores" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, message",
    [
        ("score label\n1 target\nabc nontarget\n", "line 3: the score 'abc' is not a number"),
        ("1 target\n2 target\n", "non-target"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad scores.txt"
    path.write_text(content)
    assert main(["evaluate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "bad scores.txt" in captured.err and message in captured.err


def test_installed_command_never_prints_a_traceback(tmp_path):
    """Through the installed console script, as a user runs it."""
    result = subprocess.run(
        [sys.executable, "-m", "llrcore.cli", "evaluate", str(tmp_path / "missing.txt")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "missing.txt" in result.stderr


def test_bad_option_values_are_refused(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", str(ASV_EVAL), "--p-target", "1.5"])
    assert exit_info.value.code == 2
    assert "not a probability" in capsys.readouterr().err


# ----- calibrate ------------------------------------------------------------------------------------------------------

ASV_DEV = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"
FORMATS = DATA / "formats"


def _data_lines(path):
    return [line for line in Path(path).read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_calibrate_then_evaluate_gives_the_library_numbers(tmp_path, capsys):
    """Round trip: the CLI's calibrated file, evaluated by the CLI, equals the library's calibration evaluated."""
    out = tmp_path / "calibrated.txt"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(ASV_EVAL), "--rule", "brier", "--prior", "0.01",
                 "-o", str(out)]) == 0
    assert "Brier rule weighted for P_target = 0.01" in capsys.readouterr().out
    assert main(["evaluate", str(out), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()

    dev, evaluation = lc.read_trials(ASV_DEV), lc.read_trials(ASV_EVAL)
    affine = lc.fit_affine(dev.tar, dev.non, rule=lc.BetaRule.brier(), plo=float(lc.effective_plo(0.01)))
    library = lc.evaluate(lc.Trials(affine(evaluation.tar), affine(evaluation.non)).sorted, p_target=0.01)
    for column, attribute in lc.metrics.METRIC_COLUMNS.items():
        assert row[attribute] == getattr(library, column)  # every digit written: the same LLRs come back
    assert row["EER"] == lc.eer(evaluation)  # a monotone map keeps the EER
    assert (row["targets"], row["non-targets"]) == (5370, 33327)


def test_calibrate_keeps_every_line_and_only_replaces_the_score(tmp_path, capsys):
    out = tmp_path / "calibrated.txt"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(ASV_EVAL), "-o", str(out)]) == 0
    before, after = ASV_EVAL.read_text().splitlines(), out.read_text().splitlines()
    assert len(before) == len(after) == 5370 + 33327 + 63882
    dev = lc.read_trials(ASV_DEV)
    affine = lc.fit_affine(dev.tar, dev.non)  # default: logistic regression at P = 0.5
    for old, new in zip(before[::997], after[::997]):
        source, label, score = old.split()
        assert new.split()[:2] == [source, label]  # ASVspoof columns kept, spoof trials too
        assert float(new.split()[2]) == affine(float(score))


# file, field separator (None: spaces), column of the score, header lines (comments included)
LAYOUTS = [("kaldi_scores.txt", None, 2, 0), ("kaldi_one_file.txt", None, 2, 0), ("two_column.csv", ",", 0, 1),
           ("two_column_commented.txt", None, 0, 2), ("two_column_label_first.tsv", "\t", 1, 0),
           ("long_systems.tsv", "\t", 1, 1)]


@pytest.mark.parametrize("name, separator, column, skip", LAYOUTS)
def test_calibrate_writes_the_format_it_was_given(tmp_path, name, separator, column, skip):
    source = FORMATS / name
    out = tmp_path / f"out{source.suffix}"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(source), "--method", "cmlg", "-o", str(out)]) == 0
    dev = lc.read_trials(ASV_DEV)
    cmlg = lc.fit_cmlg(dev.tar, dev.non)
    before, after = source.read_text().splitlines(), out.read_text().splitlines()
    assert before[:skip] == after[:skip] and len(before) == len(after)
    for old, new in zip(before[skip:], after[skip:]):
        if not old.strip() or old.startswith("#"):
            assert new == old
            continue
        old_fields, new_fields = old.split(separator), new.split(separator)
        assert float(new_fields.pop(column)) == cmlg(float(old_fields.pop(column)))
        assert new_fields == old_fields  # ids, labels and spacing untouched


def test_calibrate_kaldi_score_file_keeps_model_test_order(tmp_path):
    out = tmp_path / "calibrated.scores"
    assert main(["calibrate", str(FORMATS / "kaldi_one_file.txt"), "--apply-to", str(FORMATS / "kaldi_scores.txt"),
                 "--method", "pav", "-o", str(out)]) == 0
    pairs = [line.split()[:2] for line in (FORMATS / "kaldi_scores.txt").read_text().splitlines()]
    assert [line.split()[:2] for line in out.read_text().splitlines()] == pairs
    # and the key still joins: read back with it, each trial carries its calibrated score
    dev = lc.read_trials(FORMATS / "kaldi_one_file.txt")
    pav = lc.fit_pav(dev.tar, dev.non)
    original = lc.read_trials(FORMATS / "kaldi_scores.txt", key=FORMATS / "kaldi_key.txt")
    calibrated = lc.read_trials(out, key=FORMATS / "kaldi_key.txt")
    np.testing.assert_array_equal(calibrated.tar, pav(original.tar))
    np.testing.assert_array_equal(calibrated.non, pav(original.non))


def test_calibrate_npz_in_npz_out(tmp_path):
    source = tmp_path / "eval.npz"
    rng = np.random.default_rng(1)
    np.savez(source, tar=rng.normal(2, 1, 50), non=rng.normal(-2, 1, 500), spoof=rng.normal(1, 1, 20))
    out = tmp_path / "calibrated.npz"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(source), "--alpha", "2", "--beta", "1",
                 "-o", str(out)]) == 0
    dev = lc.read_trials(ASV_DEV)
    affine = lc.fit_affine(dev.tar, dev.non, rule=lc.BetaRule(2, 1))
    with np.load(source, allow_pickle=False) as before, np.load(out, allow_pickle=False) as after:
        assert sorted(after.files) == ["non", "spoof", "tar"]
        for name in before.files:
            np.testing.assert_array_equal(after[name], affine(before[name]))


def test_calibrate_parquet_keeps_its_columns_and_rows(tmp_path):
    import pandas as pd

    source = tmp_path / "eval.parquet"
    frame = pd.DataFrame({"trial": ["a", "b", "c"], "LLR": [1.5, -2.0, 0.25], "label": ["target", "nontarget", "?"]})
    frame.to_parquet(source)
    out = tmp_path / "calibrated.parquet"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(source), "--method", "cmlg", "-o", str(out)]) == 0
    dev = lc.read_trials(ASV_DEV)
    after = pd.read_parquet(out)
    assert list(after.columns) == ["trial", "LLR", "label"] and list(after["trial"]) == ["a", "b", "c"]
    np.testing.assert_array_equal(after["LLR"], lc.fit_cmlg(dev.tar, dev.non)(frame["LLR"].to_numpy()))


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--apply-to", "{formats}/multi_system.tsv", "-o", "{tmp}/x.tsv"], "'sysA', 'sysB' all hold numbers"),
        (["--apply-to", "{formats}/two_column.csv", "-o", "{tmp}/x.npz"], "keep the format of two_column.csv"),
        (["--apply-to", "{tmp}/missing.txt", "-o", "{tmp}/x.txt"], "missing.txt: the file does not exist"),
        (["--apply-to", "{formats}/two_column.csv", "-o", "{tmp}/x.csv", "--alpha", "2"], "both --alpha and --beta"),
        (["--apply-to", "{formats}/two_column.csv", "-o", "{tmp}/x.csv", "--rule", "brier", "--alpha", "2",
          "--beta", "2"], "either --rule or --alpha/--beta"),
    ],
)
def test_calibrate_bad_input_is_one_line(tmp_path, capsys, arguments, message):
    arguments = [a.format(formats=FORMATS, tmp=tmp_path) for a in arguments]
    assert main(["calibrate", str(ASV_DEV), *arguments]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("llrcore calibrate: ") and message in err


def test_calibrate_reports_the_line_of_a_bad_score(tmp_path, capsys):
    bad = tmp_path / "eval.txt"
    bad.write_text("score label\n1.5 target\n2.0 nontarget\n-0.5 nontarget\nnan target\n")
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(bad), "-o", str(tmp_path / "out.txt")]) == 2
    assert "eval.txt, line 5: the score is NaN" in capsys.readouterr().err


# ----- report ---------------------------------------------------------------------------------------------------------


def test_report_command_writes_the_html_and_says_the_numbers(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", str(ASV_EVAL), "--calibrate-on", str(ASV_DEV), "--name", "ASV <eval>", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    trials = lc.read_trials(ASV_EVAL)
    errors = 100 * lc.bayes_error_rates(trials, plo=[float(lc.effective_plo(0.01))]).actual[0]
    assert f"this system makes about {lc.report.format_errors(errors)} errors" in printed
    page = out.read_text(encoding="utf-8")
    assert "ASV &lt;eval&gt;" in page and "ASV <eval>" not in page
    assert "llrcore report" in page and "--calibrate-on" in page  # the command, to reproduce it


def test_report_without_a_browser_still_writes_the_html(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-browser"))
    out = tmp_path / "report.html"
    code = main(["report", str(FORMATS / "two_column.csv"), "--no-calibration", "-o", str(out),
                 "--figures", str(tmp_path / "figures")])
    assert code == 1 and out.stat().st_size > 1_000_000
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the report was written but the figures were not" in err and "BROWSER_PATH" in err


def test_report_name_needs_one_system(tmp_path, capsys):
    assert main(["report", str(FORMATS / "multi_system.tsv"), "--name", "x", "-o", str(tmp_path / "r.html")]) == 2
    assert "--name renames one system, but the files hold 2" in capsys.readouterr().err
