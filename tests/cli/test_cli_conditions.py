"""``llrcore evaluate --by / --ci / --group-by / --metadata``: conditions and intervals from the command line.

Independent references: the ASVspoof 2019 LA countermeasure scores shipped as the demo (assets/asvspoof2019_la_cm,
see its SOURCE.txt) read with pandas and split by attack by hand (bona fide trials against one attack's spoofs, as
the ASVspoof per-attack tables are made), each subset scored on its own; the intervals are checked to contain the
estimate and to repeat exactly with the same seed.
"""
from __future__ import annotations

import io
import json

import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from paths import ROOT

CM_EVAL = ROOT / "assets" / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
CONDITIONS = ROOT / "tests" / "data" / "formats" / "conditions.csv"


def test_per_attack_table_equals_each_attack_against_the_bona_fide_trials(capsys):
    assert main(["evaluate", str(CM_EVAL), "--by", "attack", "--csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    raw = pd.read_csv(CM_EVAL, sep="\t")
    bona_fide = raw.loc[raw.key == "bonafide"]
    attacks = sorted(raw.loc[raw.key == "spoof", "attack"].unique())
    assert attacks == [f"A{i:02d}" for i in range(7, 20)]
    for system in ("LFCC-GMM", "RawNet2-a"):
        rows = table[table.system == system].set_index("attack")
        assert list(rows.index) == [*attacks, "pooled"]
        for attack in attacks:
            spoof = raw.loc[raw.attack == attack, system].to_numpy()
            assert rows.loc[attack, "EER %"] == pytest.approx(100 * lc.eer(bona_fide[system].to_numpy(), spoof),
                                                              rel=1e-12)
            assert rows.loc[attack, "non-targets"] == spoof.size
        assert rows.loc["pooled", "EER %"] == pytest.approx(
            100 * lc.eer(bona_fide[system].to_numpy(), raw.loc[raw.key == "spoof", system].to_numpy()), rel=1e-12)


def test_intervals_contain_the_estimate_and_repeat_with_the_seed(capsys):
    arguments = ["evaluate", str(CM_EVAL), "--ci", "0.9", "--bootstrap", "40", "--seed", "3", "--json"]
    assert main(arguments) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(arguments) == 0
    assert json.loads(capsys.readouterr().out) == first
    for row in first.values():
        for column in ("EER %", "minDCF", "actDCF", "Cllr", "minCllr", "Cprimary"):
            assert row[f"{column} lower"] <= row[column] + 1e-12 and row[column] <= row[f"{column} upper"] + 1e-12


def test_whole_groups_and_conditions_together(capsys):
    assert main(["evaluate", str(CONDITIONS), "--by", "gender", "--ci", "0.95", "--bootstrap", "30",
                 "--group-by", "model"]) == 0
    captured = capsys.readouterr()
    assert "bootstrap (95 % BCa; minDCF: 95 % out-of-bag bracket), 30 replicates, whole model groups, seed 0" in captured.out
    assert "rule of 30" in captured.err  # a handful of trials: said, one line per condition


def test_a_missing_column_is_one_sentence(capsys):
    assert main(["evaluate", str(CONDITIONS), "--by", "channel"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("llrcore evaluate: The trials have no column 'channel'; their columns are model, test, "
                           "gender, duration.")
    assert main(["evaluate", str(CONDITIONS), "--ci", "0.95", "--group-by", "speaker"]) == 2
    assert "no column 'speaker' to draw groups by" in capsys.readouterr().err


def test_too_few_replicates_are_refused(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", str(CONDITIONS), "--ci", "0.95", "--bootstrap", "1"])
    assert "at least 2" in capsys.readouterr().err


def test_the_primary_cost_of_a_named_evaluation(capsys):
    assert main(["evaluate", str(CM_EVAL), "--primary", "SRE16", "--csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("system")
    raw = pd.read_csv(CM_EVAL, sep="\t")
    tar = raw.loc[raw.key == "bonafide", "RawNet2-a"].to_numpy()
    non = raw.loc[raw.key == "spoof", "RawNet2-a"].to_numpy()
    assert table.loc["RawNet2-a", "Cprimary"] == pytest.approx(lc.cprimary(tar, non, p_target=(0.01, 0.005)),
                                                               rel=1e-12)
