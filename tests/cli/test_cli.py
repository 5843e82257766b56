"""The `llrcore` command line: its numbers are the library's, bad input is one line and exit status 2.

Independent references: the library's functions on the same files (``lc.eer``, ``lc.fit_affine``, ...), and for
the digits of calibrated scores the decimal module's rounding of the exact calibrated value.
"""
import gzip
import json
import subprocess
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import numpy as np
import pytest

import llrcore as lc
from llrcore.cli import main
from paths import ASSETS, DATA

ASV_EVAL = DATA / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"


def test_evaluate_json_equals_the_library(capsys):
    assert main(["evaluate", str(ASV_EVAL), "--p-target", "0.01", "--c-miss", "10", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()
    trials = lc.read_trials(ASV_EVAL)
    assert row["EER %"] == 100 * lc.eer(trials)  # in percent, as the app shows it
    assert row["minDCF"] == lc.min_dcf(trials, p_target=0.01, c_miss=10)
    assert row["actDCF"] == lc.act_dcf(trials, p_target=0.01, c_miss=10)
    assert row["Cllr"] == lc.cllr(trials) and row["minCllr"] == lc.min_cllr(trials)
    assert (row["targets"], row["non-targets"]) == (5370, 33327)


def test_evaluate_several_files_and_systems_csv(capsys):
    assert main(["evaluate", str(ASV_EVAL), str(DATA / "formats" / "multi_system.tsv"), "--csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("system,targets,non-targets,EER")
    assert [line.split(",")[0] for line in lines[1:]] == ["ASVspoof2019.LA.asv.eval.gi.trl.scores", "sysA", "sysB"]


def test_evaluate_prints_the_eer_in_percent_under_a_header_naming_the_units(capsys):
    assert main(["evaluate", str(ASV_EVAL)]) == 0
    lines = capsys.readouterr().out.splitlines()
    units = next(line for line in lines if line.startswith("Units:"))
    assert "EER in %" in units and "Cllr and minCllr in bits" in units and "normalised" in units
    columns = next(line for line in lines if "targets" in line)
    assert "EER %" in columns
    (row,) = [line.split() for line in lines if line.startswith("ASVspoof2019")]
    assert row[3] == f"{100 * lc.eer(lc.read_trials(ASV_EVAL)):.2f}"  # name, targets, non-targets, EER %


def test_evaluate_csv_has_the_eer_in_percent_as_the_apps_download(capsys):
    assert main(["evaluate", str(ASV_EVAL), "--csv"]) == 0
    header, row = capsys.readouterr().out.strip().splitlines()
    values = dict(zip(header.split(","), row.split(",")))
    assert float(values["EER %"]) == 100 * lc.eer(lc.read_trials(ASV_EVAL))
    assert "EER" not in values  # no column left as a fraction


def test_evaluate_gives_the_librarys_verdict_on_the_scores_as_llrs(capsys):
    fvc = ASSETS / "fvcaus_plda" / "fvcaus_plda.npz"
    assert main(["evaluate", str(ASV_EVAL), str(fvc), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for path, row in zip((ASV_EVAL, fvc), rows.values()):
        trials = lc.read_trials(path)
        assert row["as LLRs"] == lc.llr_verdict(lc.cllr(trials), lc.min_cllr(trials)).verdict
    assert main(["evaluate", str(ASV_EVAL)]) == 0
    assert lc.VERDICT_RULE in capsys.readouterr().out  # the header states the rule


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


def _significant(token: str) -> int:
    """Significant digits of a number as written (trailing zeros count)."""
    return len(Decimal(token).as_tuple().digits)


def _rounded(value: float, digits: int) -> Decimal:
    """The exact binary value of `value` rounded half-even to `digits` significant digits."""
    exact = Decimal(float(value))
    return exact.quantize(Decimal(1).scaleb(exact.adjusted() - digits + 1), rounding=ROUND_HALF_EVEN)


def _assert_rounded(written: str, value: float, replaced: str) -> None:
    """`written` is `value` correctly rounded to its own digits, and has at least the digits of the score it
    replaced; an infinite `value` is written as such."""
    if not np.isfinite(value):
        assert float(written) == value
        return
    assert _significant(written) >= _significant(replaced), (written, replaced)
    assert Decimal(written) == _rounded(value, _significant(written)), (written, value)


def test_calibrate_then_evaluate_gives_the_library_numbers(tmp_path, capsys):
    """Round trip: the CLI's calibrated file, evaluated by the CLI, equals the library's calibration evaluated.

    The file holds each LLR with the digits of the score it replaces, in the same order and with the same ties, so
    the numbers that depend on ranks only (EER, minDCF, minCllr, minCprimary) are the library's exactly. Each LLR
    moves by less than its last digit: Cllr, an average of per-trial costs whose slope is below 1/ln 2 bits per
    unit of LLR, moves by at most the largest move over ln 2; no decision changes when no LLR is that close to a
    Bayes threshold.
    """
    out = tmp_path / "calibrated.txt"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(ASV_EVAL), "--rule", "brier", "--prior", "0.01",
                 "-o", str(out)]) == 0
    assert "Brier rule weighted for P_target = 0.01" in capsys.readouterr().out
    assert main(["evaluate", str(out), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()

    dev, evaluation = lc.read_trials(ASV_DEV), lc.read_trials(ASV_EVAL)
    affine = lc.fit_affine(dev.tar, dev.non, rule=lc.BetaRule.brier(), plo=float(lc.effective_plo(0.01)))
    exact = lc.Trials(affine(evaluation.tar), affine(evaluation.non))
    library = lc.evaluate(exact.sorted, p_target=0.01)
    written = lc.read_trials(out)
    moved = max(np.abs(written.tar - exact.tar).max(), np.abs(written.non - exact.non).max())
    assert 0 < moved < 1e-3
    assert (row["minDCF"], row["minCllr"], row["minCprimary"]) == (library.min_dcf, library.min_cllr,
                                                                   library.min_cprimary)
    assert row["EER %"] == 100 * library.eer == 100 * lc.eer(evaluation)  # a monotone map keeps the EER
    assert abs(row["Cllr"] - library.cllr) <= moved / np.log(2)
    for p_target in (0.01, 0.001):  # actDCF's threshold, and Cprimary's two
        threshold = -float(lc.effective_plo(p_target))
        assert np.array_equal(written.tar >= threshold, exact.tar >= threshold)
        assert np.array_equal(written.non >= threshold, exact.non >= threshold)
    assert (row["actDCF"], row["Cprimary"]) == (library.act_dcf, library.cprimary)
    assert row["calibration loss %"] == pytest.approx(100 * (1 - row["minCllr"] / row["Cllr"]))
    assert (row["targets"], row["non-targets"]) == (5370, 33327)


def test_calibrate_with_every_digit_gives_the_library_numbers_exactly(tmp_path, capsys):
    out = tmp_path / "calibrated.txt"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(ASV_EVAL), "--rule", "brier", "--prior", "0.01",
                 "--digits", "all", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(out), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out).values()
    dev, evaluation = lc.read_trials(ASV_DEV), lc.read_trials(ASV_EVAL)
    affine = lc.fit_affine(dev.tar, dev.non, rule=lc.BetaRule.brier(), plo=float(lc.effective_plo(0.01)))
    library = lc.evaluate(lc.Trials(affine(evaluation.tar), affine(evaluation.non)).sorted, p_target=0.01)
    expected = {label: getattr(library, column) for column, label in lc.METRIC_COLUMNS.items()}
    expected["EER %"] = 100 * expected.pop("EER")
    expected["as LLRs"] = library.llr_verdict.verdict
    assert row == expected  # every digit written: the same LLRs come back


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
        _assert_rounded(new.split()[2], affine(float(score)), score)


def test_calibrate_to_a_gz_file_writes_the_same_lines_compressed(tmp_path):
    plain, packed = tmp_path / "calibrated.txt", tmp_path / "calibrated.txt.gz"
    for out in (plain, packed):
        assert main(["calibrate", str(ASV_DEV), "--apply-to", str(ASV_EVAL), "-o", str(out)]) == 0
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()


def test_calibrate_writes_each_score_with_the_digits_of_the_score_it_replaces(tmp_path):
    """All 102,579 lines: correctly rounded, never fewer digits than before, and as many on nearly every line (a
    few get more, where the scores' own digits would tie two different calibrated scores)."""
    out = tmp_path / "calibrated.txt"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(ASV_EVAL), "-o", str(out)]) == 0
    dev = lc.read_trials(ASV_DEV)
    affine = lc.fit_affine(dev.tar, dev.non)
    scores = [line.split()[2] for line in ASV_EVAL.read_text().splitlines()]
    written = [line.split()[2] for line in out.read_text().splitlines()]
    for old, new, value in zip(scores, written, affine(np.array([float(s) for s in scores]))):
        _assert_rounded(new, value, old)
    same = sum(_significant(old) == _significant(new) for old, new in zip(scores, written))
    assert same >= 0.999 * len(scores)


def test_calibrate_digits_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["calibrate", str(ASV_DEV), "--apply-to", str(ASV_EVAL), "-o", "x.txt", "--digits", "0"])
    assert exit_info.value.code == 2
    assert "not 'input', 'all' or a number of digits" in capsys.readouterr().err


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
        score = old_fields.pop(column)
        _assert_rounded(new_fields.pop(column), cmlg(float(score)), score)
        assert new_fields == old_fields  # ids, labels and spacing untouched


def test_calibrate_kaldi_score_file_keeps_model_test_order(tmp_path):
    out = tmp_path / "calibrated.scores"
    assert main(["calibrate", str(FORMATS / "kaldi_one_file.txt"), "--apply-to", str(FORMATS / "kaldi_scores.txt"),
                 "--method", "pav", "-o", str(out)]) == 0
    pairs = [line.split()[:2] for line in (FORMATS / "kaldi_scores.txt").read_text().splitlines()]
    assert [line.split()[:2] for line in out.read_text().splitlines()] == pairs
    # and the key still joins: read back with it, each trial carries its calibrated score, to within half a unit of
    # the last digit the fewest digits of kaldi_scores.txt (-0.75: 2) give
    digits = min(_significant(line.split()[2]) for line in (FORMATS / "kaldi_scores.txt").read_text().splitlines())
    dev = lc.read_trials(FORMATS / "kaldi_one_file.txt")
    pav = lc.fit_pav(dev.tar, dev.non)
    original = lc.read_trials(FORMATS / "kaldi_scores.txt", key=FORMATS / "kaldi_key.txt")
    calibrated = lc.read_trials(out, key=FORMATS / "kaldi_key.txt")
    for got, exact in ((calibrated.tar, pav(original.tar)), (calibrated.non, pav(original.non))):
        unit = 10.0 ** (np.floor(np.log10(np.abs(exact))) - digits + 1)
        assert np.all(np.abs(got - exact) <= unit / 2 * (1 + 1e-12)), (got, exact)


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


def test_a_degenerate_calibration_is_written_and_said_in_warnings(tmp_path, capsys):
    """The Beta(3, 0.5) rule weighted for P_target = 0.01 gives a step-like fit (hundreds of bits on its training
    trials); the file is written all the same, and each sentence of lc.calibration_problems is a warning line."""
    out = tmp_path / "calibrated.csv"
    assert main(["calibrate", str(ASV_DEV), "--apply-to", str(FORMATS / "two_column.csv"), "--alpha", "3",
                 "--beta", "0.5", "--prior", "0.01", "-o", str(out)]) == 0
    assert out.exists()
    dev = lc.read_trials(ASV_DEV)
    affine = lc.fit_affine(dev.tar, dev.non, rule=lc.BetaRule(3, 0.5), plo=float(lc.effective_plo(0.01)))
    problems = lc.calibration_problems(affine, dev, rule=lc.BetaRule(3, 0.5))
    assert len(problems) >= 2 and "step function" in problems[0]
    assert capsys.readouterr().err.splitlines() == [f"llrcore calibrate: warning: {p}" for p in problems]


# ----- report ---------------------------------------------------------------------------------------------------------


def test_report_warns_of_a_degenerate_calibration_and_writes_it_into_the_report(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", str(ASV_EVAL), "--calibrate-on", str(ASV_DEV), "--alpha", "3", "--beta", "0.5",
                 "-o", str(out)]) == 0
    dev, ev = lc.read_trials(ASV_DEV), lc.read_trials(ASV_EVAL)
    expected = lc.calibrate_and_evaluate(dev, ev, "affine", lc.BetaRule(3, 0.5), plo=float(lc.effective_plo(0.01)))
    assert expected.degenerate
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if ": warning: " in line]
    assert warnings == [f"llrcore report: warning: {ev.name}: {p}" for p in expected.problems]
    assert "This calibration is degenerate" in captured.out and "This calibration is degenerate" in out.read_text()


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


# ----- warnings, and what the messages tell to do ---------------------------------------------------------------------


def _partial_key(tmp_path) -> Path:
    """kaldi_key.txt without its last trial (a non-target): the key of one condition covers part of the scores."""
    key = tmp_path / "condition.key"
    key.write_text("\n".join((FORMATS / "kaldi_key.txt").read_text().splitlines()[:-1]) + "\n")
    return key


def test_a_warning_is_one_line_on_stderr_and_the_command_still_succeeds(tmp_path, capsys):
    assert main(["evaluate", str(FORMATS / "kaldi_scores.txt"), "--key", str(_partial_key(tmp_path))]) == 0
    captured = capsys.readouterr()
    assert "kaldi_scores" in captured.out
    (line,) = captured.err.splitlines()
    assert line.startswith("llrcore evaluate: warning: kaldi_scores.txt: 1 of 6 scored trials is not in the key "
                           "condition.key")


def test_the_installed_command_prints_a_warning_without_python_s_decoration(tmp_path):
    result = subprocess.run([sys.executable, "-m", "llrcore.cli", "evaluate", str(FORMATS / "kaldi_scores.txt"),
                             "--key", str(_partial_key(tmp_path))], capture_output=True, text=True)
    assert result.returncode == 0
    (line,) = result.stderr.splitlines()  # no "cli.py:NN: LoadWarning:" and no source line after it
    assert line.startswith("llrcore evaluate: warning: kaldi_scores.txt:")


def test_a_score_file_without_its_key_says_which_option_gives_it(tmp_path, capsys):
    assert main(["evaluate", str(FORMATS / "kaldi_scores.txt")]) == 2
    assert capsys.readouterr().err.rstrip().endswith("Give it with --key KEY_FILE.")
    assert main(["report", str(FORMATS / "two_column.csv"), "--calibrate-on", str(FORMATS / "kaldi_scores.txt"),
                 "-o", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.rstrip().endswith("Give it with --dev-key KEY_FILE.")


def test_output_into_a_closed_pipe_is_no_traceback():
    """`llrcore ... | head`: the reader stops early and the pipe closes; the command ends quietly, status 0."""
    corpus = ASSETS / "diarization_corpus"
    shell = subprocess.run(f'"{sys.executable}" -m llrcore.cli diarize "{corpus}" --method ahc | true',
                           shell=True, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in shell.stderr and "BrokenPipeError" not in shell.stderr, shell.stderr


def test_a_huge_cllr_prints_as_the_app_shows_it_not_as_306_digits(tmp_path, capsys):
    # One non-target at an LLR of 8e305 costs log2(1 + e^8e305) / 50 / 2 = 8e305 / ln 2 / 100 bits, about 1.15e304
    # (the reference is that arithmetic); before, the table printed that Cllr with all its 305 digits.
    rng = np.random.default_rng(0)
    tar, non = rng.normal(2, 1, 50), rng.normal(-2, 1, 50)
    non[0] = 8e305
    path = tmp_path / "huge.txt"
    lines = [f"{s!r} target" for s in tar.tolist()] + [f"{s!r} nontarget" for s in non.tolist()]
    path.write_text("\n".join(lines) + "\n")
    assert main(["evaluate", str(path)]) == 0
    out = capsys.readouterr().out
    expected = f"{lc.cllr(lc.read_trials(path)):.3g}"
    assert expected == f"{8e305 / np.log(2) / 100:.3g}"
    (row,) = [line.split() for line in out.splitlines() if line.startswith("huge")]
    assert expected in row and max(len(cell) for cell in row) < 12
