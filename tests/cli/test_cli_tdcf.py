"""`llrcore tdcf`: the tandem evaluation of a countermeasure (CM) file in front of an ASV file, from the command line.

Independent references: the known min t-DCF of the four ASVspoof 2019 LA CMs behind the organisers' ASV (eval part;
legacy / revised: LFCC-GMM 0.0934 / 0.1503, RawNet2-a 0.1125 / 0.1682, b 0.1059 / 0.1620, c 0.1205 / 0.1756); the
per-attack numbers against ``lc.tdcf`` and ``lc.eer`` on subsets of the raw files read with pandas; the ASV's spoof
false-alarm rate counted trial by trial; the intervals against ``lc.bootstrap_tdcf`` (pooled) and
``lc.bootstrap_tandem`` (per attack, itself tested against ``lc.bootstrap_tdcf`` on hand-made subsets in
test_spoofing.py) with the same seed. Bad input: one sentence on stderr, exit status 2.
"""
import json

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from paths import ROOT

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
CM_DEV = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.dev.scores.tsv.gz"
ASV_DEV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"
KNOWN = {"LFCC-GMM": (0.0934, 0.1503), "RawNet2-a": (0.1125, 0.1682), "RawNet2-b": (0.1059, 0.1620),
         "RawNet2-c": (0.1205, 0.1756)}


def run(capsys, *argv):
    status = main(["tdcf", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("formulation", ["legacy", "revised"])
def test_json_has_the_known_minimum_of_every_system(capsys, formulation):
    status, out, _ = run(capsys, CM, "--asv", ASV, "--formulation", formulation, "--json")
    assert status == 0
    document = json.loads(out)
    assert document["formulation"] == formulation
    assert document["cost_model"] == lc.tdcf_cost_model(formulation)
    for system, known in KNOWN.items():
        assert round(document["systems"][system]["min t-DCF"], 4) == known[formulation == "revised"]
    assert document["systems"]["LFCC-GMM"]["SPF-EER %"] == pytest.approx(42.8634, abs=5e-5)


def test_ci_adds_the_bootstrap_interval_of_each_system(capsys):
    status, out, _ = run(capsys, CM_DEV, "--asv", ASV_DEV, "--ci", 0.9, "--bootstrap", 40, "--seed", 5, "--json")
    assert status == 0
    systems = json.loads(out)["systems"]
    for name, cm in lc.read_trials(CM_DEV).items():
        expected = lc.bootstrap_tdcf(cm, lc.read_trials(ASV_DEV), n=40, level=0.9, seed=5)
        assert (systems[name]["min t-DCF lower"], systems[name]["min t-DCF upper"]) == expected.interval()
    status, out, _ = run(capsys, CM_DEV, "--asv", ASV_DEV, "--ci", 0.9, "--bootstrap", 40)
    assert "Intervals: 90 % BCa bootstrap intervals of the min t-DCF, 40 replicates, seed 0" in out
    with pytest.raises(SystemExit) as refused:  # argparse's own usage line and status 2
        run(capsys, CM_DEV, "--asv", ASV_DEV, "--ci", 95)
    assert refused.value.code == 2 and "95 is not a probability" in capsys.readouterr().err


def test_ci_with_by_attack_gives_every_attack_its_interval(capsys):
    status, out, _ = run(capsys, CM_DEV, "--asv", ASV_DEV, "--by-attack", "--ci", 0.9, "--bootstrap", 30, "--seed", 3,
                         "--json")
    assert status == 0
    systems, asv = json.loads(out)["systems"], lc.read_trials(ASV_DEV)
    for name, cm in lc.read_trials(CM_DEV).items():
        expected = lc.bootstrap_tandem(cm, asv, n=30, level=0.9, seed=3)
        rows = systems[name]["attacks"]
        assert [row["attack"] for row in rows] == [f"A0{i}" for i in range(1, 7)] + ["pooled"]
        for row in rows:
            assert (row["min t-DCF lower"], row["min t-DCF upper"]) == expected.interval(row["attack"])
            assert row["min t-DCF lower"] <= row["min t-DCF"] <= row["min t-DCF upper"]
        assert (systems[name]["min t-DCF lower"], systems[name]["min t-DCF upper"]) == expected.interval()
    status, out, _ = run(capsys, CM_DEV, "--asv", ASV_DEV, "--by-attack", "--ci", 0.9, "--bootstrap", 30, "--csv")
    columns = pd.read_csv(pd.io.common.StringIO(out)).columns.tolist()
    assert columns[columns.index("min t-DCF"):columns.index("min t-DCF") + 3] == [
        "min t-DCF", "min t-DCF lower", "min t-DCF upper"]
    status, out, _ = run(capsys, CM_DEV, "--asv", ASV_DEV, "--by-attack", "--ci", 0.9, "--bootstrap", 30)
    assert "Intervals: 90 % BCa bootstrap intervals of the min t-DCF, pooled and per attack, 30 replicates" in out
    per_attack = out.split("Per attack")[1]
    assert "min t-DCF lower" in per_attack and "min t-DCF upper" in per_attack


def test_per_attack_csv_against_hand_made_subsets(capsys):
    status, out, err = run(capsys, CM, "--asv", ASV, "--by-attack", "--csv")
    assert status == 0
    assert "warning: LFCC-GMM: By the rule of 30" in err
    table = pd.read_csv(pd.io.common.StringIO(out)).set_index(["system", "attack"])
    raw_cm = pd.read_csv(CM, sep="\t")
    raw_asv = pd.read_csv(ASV, sep=r"\s+", header=None, names=["attack", "kind", "score"])
    tar, non = (raw_asv.loc[raw_asv.kind == kind, "score"].to_numpy() for kind in ("target", "nontarget"))
    threshold = lc.asv_eer_threshold(tar, non)
    for system in ("LFCC-GMM", "RawNet2-c"):
        bonafide = raw_cm.loc[raw_cm.key == "bonafide", system].to_numpy()
        for attack in ("A10", "A17", "A19"):
            spoof = raw_cm.loc[raw_cm.attack == attack, system].to_numpy()
            asv_spoof = raw_asv.loc[(raw_asv.kind == "spoof") & (raw_asv.attack == attack), "score"].to_numpy()
            row = table.loc[(system, attack)]
            assert row["min t-DCF"] == pytest.approx(lc.tdcf(bonafide, spoof, tar, non, asv_spoof).minimum, rel=1e-12)
            assert row["CM EER %"] == pytest.approx(100 * lc.eer(bonafide, spoof), rel=1e-12)
            assert row["ASV spoof FA %"] == pytest.approx(100 * np.mean(asv_spoof >= threshold), rel=1e-12)
        assert table.loc[(system, "pooled"), "min t-DCF"] == pytest.approx(KNOWN[system][1], abs=5e-5)
    assert len(table) == 4 * 14


def test_text_says_the_units_and_the_cost_model(capsys):
    status, out, _ = run(capsys, CM, "--asv", ASV, "--formulation", "legacy", "--by-attack")
    assert status == 0
    assert "legacy t-DCF (ASVspoof 2019); cost model (the organisers'): Pspoof 0.05" in out
    assert "Units: CM EER, ASV EER, SPF-EER" in out
    assert "0.0934" in out and "Per attack" in out and "A17" in out
    summary = out.split("Per attack")[0]
    assert [line.split()[0] for line in summary.strip().splitlines()[-4:]] == list(KNOWN)


def test_a_given_asv_threshold_is_used(capsys):
    status, out, _ = run(capsys, CM, "--asv", ASV, "--asv-threshold", "0", "--json")
    assert status == 0
    spoof = lc.read_trials(ASV).spoof
    lfcc = json.loads(out)["systems"]["LFCC-GMM"]
    assert lfcc["ASV threshold"] == 0.0
    assert lfcc["ASV spoof FA %"] == pytest.approx(100 * np.mean(spoof >= 0.0), rel=1e-12)


@pytest.mark.parametrize("argv, message", [
    ([ASV, "--asv", ASV], "has spoof trials, as an ASV score file has: give the CM's scores first"),
    ([CM, "--asv", CM], "holds 4 systems (LFCC-GMM, RawNet2-a, RawNet2-b, RawNet2-c); --asv takes the file of one"),
    ([CM_DEV, "--asv", ASV, "--by-attack"], "not of the same attacks (the CM has A01, A02, A03, A04, A05 and A06 and "
                                            "the ASV does not; the ASV has A07"),
    ([CM, "--asv", ROOT / "no such file.txt"], "no such file.txt"),
    ([CM, "--asv", ASV, "--formulation", "legacy", "--asv-threshold", "1e9"], "the t-DCF cannot be normalised"),
])
def test_bad_input_is_one_sentence_and_status_2(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("llrcore tdcf: ") and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_no_attack_column_with_by_attack(capsys, tmp_path):
    cm = tmp_path / "cm.txt"
    cm.write_text("2.0 target\n1.0 target\n-1.0 nontarget\n0.5 nontarget\n")
    status, _, err = run(capsys, cm, "--asv", ASV, "--by-attack")
    assert status == 2
    assert "cm.txt has no 'attack' column, so there is no per-attack table: leave out --by-attack" in err
    status, out, _ = run(capsys, cm, "--asv", ASV)
    assert status == 0 and "cm" in out


def test_score_files_and_keys_apart_as_asvspoof_2021_ships_them(capsys, asvspoof2021_layout):
    """--key labels the CM's ``utt score`` file, --asv-key the ASV's ``speaker utt score`` file (the conftest fixture
    writes the ASVspoof 2019 LA dev scores so, shuffled): every number, pooled and per attack, is that of the joined
    files."""
    files = asvspoof2021_layout
    status, out, err = run(capsys, files["cm_scores"], "--key", files["cm_key"], "--asv", files["asv_scores"],
                           "--asv-key", files["asv_key"], "--by-attack", "--json")
    assert status == 0, err
    apart = json.loads(out)
    status, out, _ = run(capsys, files["cm_joined"], "--asv", files["asv_joined"], "--by-attack", "--json")
    joined = json.loads(out)
    assert apart["systems"]["cm_scores"] == joined["systems"]["LFCC-GMM"]
    assert apart["asv_threshold"] == joined["asv_threshold"]


def test_a_score_file_without_its_key_names_the_option_that_gives_it(capsys, asvspoof2021_layout):
    files = asvspoof2021_layout
    status, _, err = run(capsys, files["cm_scores"], "--asv", files["asv_scores"], "--asv-key", files["asv_key"])
    assert status == 2 and "cm_scores.txt" in err and err.strip().endswith("Give it with --key KEY_FILE.")
    status, _, err = run(capsys, files["cm_scores"], "--key", files["cm_key"], "--asv", files["asv_scores"])
    assert status == 2 and "asv_scores.txt" in err and err.strip().endswith("Give it with --asv-key KEY_FILE.")
