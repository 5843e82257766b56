"""The `llrcore` command line: its numbers are the library's, bad input is one line and exit status 2."""
import json
import subprocess
import sys
from pathlib import Path

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
