"""One ASVspoof 5 track 2 SASV file (``spk filename cm-score asv-score sasv-score``) with its key: the CM's and the
ASV's trials taken out of it (``lc.sasv_parts``), the tandem's own min a-DCF beside the t-EER (``lc.sasv_table(...,
sasv=)``), and ``llrcore sasv SASV --key KEY`` without ``--asv``.

Independent references: the organisers' a-DCF and t-EER code (vendored, MIT: ``tests/reference/asvspoof5_eval.py``),
fed with the scores as the evaluation package's ``calculate_aDCF_tdcf_tEER`` groups them (the CM's bona fide scores
are the cm-score of the target and non-target trials, its spoofs those of the spoof trials; the ASV's by the ASV
key), picked from the files with a plain pandas parse; the key's layout as the ASVspoof 5 database README lists it
(``TARGET_SPEAKER_ID FLAC_FILE_NAME TARGET_GENDER ATTACK_LABEL ASV_KEY``, space-separated, no header).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from reference import vendored

REF = vendored("asvspoof5_eval")  # the organisers' code
ASVSPOOF5 = REF.CostModel(Ptrg=0.95 * 0.99, Pnontrg=0.95 * 0.01, Pspf=0.05, Cmiss=1, Cfa_asv=10, Cfa_cm=10)
KEY_COLUMNS = ["spk", "filename", "gender", "attack", "asv-label"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A SASV score file in shuffled order and its track 2 trial list: 600 trials, two attacks; no tied scores (with
    ties the organisers' t-EER loop also visits thresholds inside a tie: test_sasv_metrics.py says how ours differs)."""
    rng = np.random.default_rng(20261127)
    kinds = rng.choice(["target", "nontarget", "spoof"], size=600, p=[0.3, 0.4, 0.3])
    attacks = np.where(kinds == "spoof", rng.choice(["A11", "A12"], size=600), "bonafide")
    cm = rng.normal(np.where(kinds == "spoof", -1.0, 2.0), 1.5)
    asv = rng.normal(pd.Series(kinds).map({"target": 3.0, "nontarget": -3.0, "spoof": 1.0}), 1.5)
    key = pd.DataFrame({"spk": [f"E_{i % 13:04d}" for i in range(600)],
                        "filename": [f"E_{i:010d}" for i in range(600)], "gender": rng.choice(["F", "M"], 600),
                        "attack": attacks, "asv-label": kinds})
    scores = key[["spk", "filename"]].assign(**{"cm-score": cm, "asv-score": asv,
                                                "sasv-score": np.minimum(cm, asv)}).sample(frac=1, random_state=3)
    folder = tmp_path_factory.mktemp("sasv")
    scores.to_csv(folder / "sasv_score.tsv", sep="\t", index=False)
    key.to_csv(folder / "ASVspoof5.eval.track_2.trial.tsv", sep=" ", header=False, index=False)
    return folder / "sasv_score.tsv", folder / "ASVspoof5.eval.track_2.trial.tsv"


def by_hand(files) -> pd.DataFrame:
    scores = pd.read_csv(files[0], sep="\t")
    key = pd.read_csv(files[1], sep=" ", header=None, names=KEY_COLUMNS)
    return scores.merge(key, on=["spk", "filename"])


def scores_of(table: pd.DataFrame, column: str, kinds) -> np.ndarray:
    return np.sort(table.loc[table["asv-label"].isin(kinds), column].to_numpy())


def test_sasv_parts_group_the_scores_as_the_organisers(files):
    trials = lc.read_trials(files[0], key=files[1])
    cm, asv = lc.sasv_parts(trials)
    table = by_hand(files)
    np.testing.assert_array_equal(np.sort(cm.tar), scores_of(table, "cm-score", ["target", "nontarget"]))
    np.testing.assert_array_equal(np.sort(cm.non), scores_of(table, "cm-score", ["spoof"]))
    for got, kind in ((asv.tar, "target"), (asv.non, "nontarget"), (asv.spoof, "spoof")):
        np.testing.assert_array_equal(np.sort(got), scores_of(table, "asv-score", [kind]))
    assert "attack" in cm.metadata.columns and "cm-score" not in asv.metadata.columns


def test_the_tandems_own_a_dcf_and_t_eer_are_the_organisers_pooled_and_per_attack(files):
    trials = lc.read_trials(files[0], key=files[1])
    cm, asv = lc.sasv_parts(trials)
    table = lc.sasv_table(lc.evaluate_tandem(cm, asv), sasv=trials).set_index("attack")
    raw = by_hand(files)
    tar, non = (scores_of(raw, "sasv-score", [kind]) for kind in ("target", "nontarget"))
    for attack in ("A11", "A12", "pooled"):
        spoofs = raw[(raw["asv-label"] == "spoof") & ((raw.attack == attack) | (attack == "pooled"))]
        theirs = REF.calculate_a_dcf(tar, non, spoofs["sasv-score"].to_numpy(), ASVSPOOF5)["min_a_dcf"]
        assert table.loc[attack, "min a-DCF"] == pytest.approx(float(theirs), rel=1e-12)
        teer, _ = REF.t_eer(scores_of(raw, "cm-score", ["target", "nontarget"]), spoofs["cm-score"].to_numpy(),
                            scores_of(raw, "asv-score", ["target"]), scores_of(raw, "asv-score", ["nontarget"]),
                            spoofs["asv-score"].to_numpy())
        assert table.loc[attack, "t-EER %"] == pytest.approx(teer, rel=1e-12)


def test_cli_reads_one_sasv_file_with_its_key(capsys, files):
    status = main(["sasv", str(files[0]), "--key", str(files[1]), "--by-attack", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert status == 0
    row = document["systems"]["sasv_score"]
    raw = by_hand(files)
    theirs = REF.calculate_a_dcf(*(scores_of(raw, "sasv-score", [k]) for k in ("target", "nontarget", "spoof")),
                                 ASVSPOOF5)["min_a_dcf"]
    assert row["min a-DCF"] == pytest.approx(float(theirs), rel=1e-12)
    assert [r["attack"] for r in row["attacks"]] == ["A11", "A12", "pooled"]
    assert "primary metric" in document["units"]


def test_cli_without_key_or_asv_says_what_it_needs(capsys, files):
    assert main(["sasv", str(files[0])]) == 2
    assert "--key" in capsys.readouterr().err


@pytest.mark.parametrize("change, words", [
    (lambda t: t.drop(columns=["asv-score"]), "no 'asv-score' column"),
    (lambda t: t.assign(**{"cm-score": "-"}), "single SASV system"),
])
def test_refusals_are_sentences(files, tmp_path, change, words):
    table = change(pd.read_csv(files[0], sep="\t"))
    table.to_csv(tmp_path / "scores.tsv", sep="\t", index=False)
    with pytest.raises(ValueError, match=words):
        lc.sasv_parts(lc.read_trials(tmp_path / "scores.tsv", key=files[1]))


def test_a_cm_label_that_disagrees_with_the_asv_label_is_said(files, tmp_path):
    key = pd.read_csv(files[1], sep=" ", header=None, names=KEY_COLUMNS)
    key["cm-label"] = np.where(key["asv-label"] == "spoof", "spoof", "bonafide")
    key.loc[key.index[:2], "cm-label"] = "spoof"
    key[["spk", "filename", "cm-label", "asv-label"]].to_csv(tmp_path / "key.tsv", sep="\t", index=False)
    trials = lc.read_trials(files[0], key=tmp_path / "key.tsv")
    wrong = int((key["asv-label"].iloc[:2] != "spoof").sum())
    with pytest.raises(ValueError, match=f"cm-label of {wrong} trials disagrees"):
        lc.sasv_parts(trials)
