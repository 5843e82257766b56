"""`llrcore sasv`: ASVspoof 5's SASV metrics (t-EER, a-DCF) of CM files in front of an ASV file, from the command line.

Independent references: the t-EER values the ASVspoof 5 evaluation package computes on the full ASVspoof 2019 LA
evaluation files (its ``compute_teer_accelerated`` at commit fe23d3053a0889b305d98c9e4cadf418c213d972, run by hand;
see test_sasv_metrics.py); the organisers' a-DCF (vendored, MIT: ``tests/reference/asvspoof5_eval.py``) on the ASV
scores, pooled and on one attack's spoofs picked with pandas from the raw file; the known min t-DCF of the four CMs
(revised: LFCC-GMM 0.1503, RawNet2-a 0.1682, b 0.1620, c 0.1756). Bad input: one sentence on stderr, exit status 2.
"""
import io
import json

import numpy as np
import pandas as pd
import pytest

from llrcore.cli import main
from reference import vendored
from paths import ROOT

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
TEER_PERCENT = {"LFCC-GMM": 3.7419191514603005, "RawNet2-a": 4.452085916709393, "RawNet2-b": 4.277918387105277,
                "RawNet2-c": 4.841957006645266}
MIN_TDCF = {"LFCC-GMM": 0.1503, "RawNet2-a": 0.1682, "RawNet2-b": 0.1620, "RawNet2-c": 0.1756}


REF = vendored("asvspoof5_eval")
ASVSPOOF5 = REF.CostModel(Ptrg=0.95 * 0.99, Pnontrg=0.95 * 0.01, Pspf=0.05, Cmiss=1, Cfa_asv=10, Cfa_cm=10)


def run(capsys, *argv):
    status = main(["sasv", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def asv_raw() -> pd.DataFrame:
    return pd.read_csv(ASV, sep=r"\s+", header=None, names=["attack", "kind", "score"])


def test_json_has_the_organisers_t_eer_a_dcf_and_min_t_dcf(capsys):
    status, out, _ = run(capsys, CM, "--asv", ASV, "--json")
    assert status == 0
    document = json.loads(out)
    raw = asv_raw()
    theirs = REF.calculate_a_dcf(*(raw.score[raw.kind == k].to_numpy() for k in ("target", "nontarget", "spoof")),
                                 ASVSPOOF5)["min_a_dcf"]
    assert document["a_dcf_cost_model"]["Cfa_cm"] == 10
    for system, value in TEER_PERCENT.items():
        row = document["systems"][system]
        assert row["t-EER %"] == pytest.approx(value, rel=1e-15)
        assert row["min a-DCF (ASV)"] == float(theirs)
        assert round(row["min t-DCF"], 4) == MIN_TDCF[system]


def test_by_attack_csv_rows_are_each_attacks_trials(capsys):
    status, out, _ = run(capsys, CM, "--asv", ASV, "--by-attack", "--csv", "--cost-model", "a-dcf-paper")
    assert status == 0
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["system", "attack", "min t-DCF", "t-EER %", "min a-DCF (ASV)"]
    assert list(table.attack[table.system == "LFCC-GMM"]) == [f"A{i:02d}" for i in range(7, 20)] + ["pooled"]
    raw = asv_raw()
    spoofs = raw.score[(raw.kind == "spoof") & (raw.attack == "A17")].to_numpy()
    theirs = REF.calculate_a_dcf(raw.score[raw.kind == "target"].to_numpy(), raw.score[raw.kind == "nontarget"]
                                 .to_numpy(), spoofs, REF.CostModel())["min_a_dcf"]
    row = table[(table.system == "RawNet2-b") & (table.attack == "A17")].iloc[0]
    assert row["min a-DCF (ASV)"] == pytest.approx(float(theirs), rel=1e-15)
    assert np.isclose(table[table.attack == "pooled"].set_index("system")["t-EER %"],
                      pd.Series(TEER_PERCENT), rtol=1e-15).all()


def test_text_output_names_its_units_and_cost_model(capsys):
    status, out, _ = run(capsys, CM, "--asv", ASV)
    assert status == 0
    assert "a-DCF cost model (ASVspoof 5's): Ptar 0.9405, Pnon 0.0095, Pspoof 0.05, Cmiss 1, Cfa_asv 10, Cfa_cm 10" in out
    assert "LFCC-GMM     0.1503    3.74          0.6807" in out


def test_bad_input_is_one_sentence(capsys):
    status, _, err = run(capsys, ASV, "--asv", ASV)
    assert status == 2 and err.count("\n") == 1 and "give the CM's scores first" in err
    status, _, err = run(capsys, CM, "--asv", CM)
    assert status == 2 and err.startswith("llrcore sasv: ") and "Traceback" not in err


def test_score_files_and_keys_apart_as_asvspoof_2021_ships_them(capsys, asvspoof2021_layout):
    """--key and --asv-key (the conftest fixture writes the ASVspoof 2019 LA dev scores as ASVspoof 2021 ships them,
    score files and keys apart, shuffled): every number, pooled and per attack, is that of the joined files."""
    files = asvspoof2021_layout
    status, out, err = run(capsys, files["cm_scores"], "--key", files["cm_key"], "--asv", files["asv_scores"],
                           "--asv-key", files["asv_key"], "--by-attack", "--json")
    assert status == 0, err
    apart = json.loads(out)["systems"]["cm_scores"]
    status, out, _ = run(capsys, files["cm_joined"], "--asv", files["asv_joined"], "--by-attack", "--json")
    assert apart == json.loads(out)["systems"]["LFCC-GMM"]
    status, _, err = run(capsys, files["cm_scores"], "--key", files["cm_key"], "--asv", files["asv_scores"])
    assert status == 2 and err.strip().endswith("Give it with --asv-key KEY_FILE.")
    status, _, err = run(capsys, files["cm_scores"], "--asv-key", files["asv_key"])
    assert status == 2 and "--asv-key is the key of the ASV's score file: give that file with --asv too" in err


def test_teer_convention_asvspoof5_is_compute_teer_on_tied_scores(capsys, tmp_path):
    """Every 8th development score rounded to 0.1 (many ties): --teer-convention asvspoof5 gives the organisers'
    compute_teer (the vendored loop) and differs from the default, which keeps tie blocks whole."""
    cm = pd.read_csv(ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.dev.scores.tsv.gz", sep="\t")[::8]
    asv = pd.read_csv(ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt", sep=r"\s+",
                      header=None, names=["attack", "kind", "score"])[::8]
    cm_path, asv_path = tmp_path / "cm.txt", tmp_path / "asv.txt"
    cm_path.write_text("".join(f"{s:.1f} {'target' if k == 'bonafide' else 'nontarget'}\n"
                               for s, k in zip(cm["LFCC-GMM"], cm["key"])))
    asv_path.write_text("".join(f"{a} {k} {s:.1f}\n" for a, k, s in zip(asv.attack, asv.kind, asv.score)))
    parts = [np.round(x, 1) for x in (cm["LFCC-GMM"][cm.key == "bonafide"], cm["LFCC-GMM"][cm.key == "spoof"],
                                      *(asv.score[asv.kind == k] for k in ("target", "nontarget", "spoof")))]
    parts = [part.to_numpy() for part in parts]
    values = {}
    for convention in ("llrcore", "asvspoof5"):
        status, out, err = run(capsys, cm_path, "--asv", asv_path, "--teer-convention", convention, "--json")
        assert status == 0, err
        document = json.loads(out)
        assert document["teer_convention"] == convention
        values[convention] = document["systems"]["cm"]["t-EER %"]
    assert values["asvspoof5"] == REF.t_eer(*parts)[0]
    assert abs(values["asvspoof5"] - values["llrcore"]) > 0.01
    status, out, _ = run(capsys, cm_path, "--asv", asv_path, "--teer-convention", "asvspoof5")
    assert "t-EER: ASVspoof 5's compute_teer (one operating point per trial, tie blocks split)" in out
