"""``llrcore fuse``: the fused LLRs it writes are ``lc.fuse``'s, read back by ``lc.read_trials``, and the fusion it
saves (``--save``) gives them again through ``lc.load_calibrator``; bad input is one sentence on stderr and exit status
2.

Independent references: ``lc.fuse`` on the same systems read by the library (tested against scipy and scikit-learn
in test_fusion.py); the score files given to the command are written here with pandas from the ASVspoof 2019 LA
countermeasure demo (assets/asvspoof2019_la_cm/SOURCE.txt), in formats and trial orders of their own.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
import paths

ASSETS = paths.ASSETS / "asvspoof2019_la_cm"
DEV, EVAL = (ASSETS / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz" for part in ("dev", "eval"))
RAWNETS = ("RawNet2-a", "RawNet2-b", "RawNet2-c")


@pytest.fixture(scope="module")
def tables() -> dict[str, pd.DataFrame]:
    return {"dev": pd.read_csv(DEV, sep="\t"), "eval": pd.read_csv(EVAL, sep="\t")}


def test_one_multi_system_file_each_fused_as_the_library_does(tmp_path, capsys):
    out = tmp_path / "fused.scores"
    assert main(["fuse", str(DEV), "--apply-to", str(EVAL), "-o", str(out), "--regularisation", "0.001"]) == 0
    printed = capsys.readouterr().out
    expected = lc.fuse(lc.read_trials(DEV), lc.read_trials(EVAL), regularisation=1e-3)
    back = lc.read_trials(out)
    np.testing.assert_array_equal(back.tar, expected.fused_eval.tar)
    np.testing.assert_array_equal(back.non, expected.fused_eval.non)
    assert list(back.metadata.columns) == ["utt", "attack"]
    assert expected.sentence() in printed and expected.formula(6) in printed
    assert f"{expected.fusion.weights[0]:.4f}" in printed  # the weights table
    assert f"{expected.metrics['fusion'].cllr:.4f}" in printed  # the comparison table


def test_the_saved_fusion_gives_the_fused_llrs_written(tmp_path, capsys):
    out, saved = tmp_path / "fused.scores", tmp_path / "fusion.json"
    assert main(["fuse", str(DEV), "--apply-to", str(EVAL), "-o", str(out), "--regularisation", "0.001",
                 "--prior", "0.1", "--save", str(saved)]) == 0
    assert f"Saved the fusion to {saved}" in capsys.readouterr().out
    loaded, written = lc.load_calibrator(saved), lc.read_trials(out)
    assert isinstance(loaded, lc.Fusion)
    systems, names = lc.read_trials(EVAL), ["LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c"]
    for part in ("tar", "non"):  # one column per system, in the order of the fusion's features
        scores = np.column_stack([getattr(systems[name], part) for name in names])
        np.testing.assert_array_equal(loaded(scores), getattr(written, part))
    document = json.loads(saved.read_text(encoding="utf-8"))
    assert document["features"] == names and document["training"]["regularisation"] == 1e-3
    assert document["p_target"] == pytest.approx(0.1, rel=1e-12) and document["rule"]["name"] == "logarithmic"


def kaldi_files(table: pd.DataFrame, system: str, folder: Path, seed: int) -> tuple[Path, Path]:
    """A BOSARIS/Kaldi score file ``model test score`` in an order of its own, and its key ``model test label``."""
    rows = table.sample(frac=1.0, random_state=seed)
    model = "cm_" + rows["attack"].replace("-", "bonafide")  # "A02" alone would read as an ASVspoof attack column
    scores, key = folder / f"{system}.scores", folder / f"{system}.key"
    pd.DataFrame({"model": model, "test": rows["utt"], "score": rows[system]}).to_csv(
        scores, sep=" ", header=False, index=False)
    pd.DataFrame({"model": model, "test": rows["utt"], "label": rows["key"].map(
        {"bonafide": "target", "spoof": "nontarget"})}).to_csv(key, sep=" ", header=False, index=False)
    return scores, key


def test_kaldi_files_in_different_orders_with_their_keys_are_paired_by_model_and_test(tables, tmp_path, capsys):
    dev_dir, eval_dir = tmp_path / "dev", tmp_path / "eval"
    dev_dir.mkdir(), eval_dir.mkdir()
    dev = [kaldi_files(tables["dev"], system, dev_dir, seed) for seed, system in enumerate(RAWNETS)]
    evaluation = [kaldi_files(tables["eval"], system, eval_dir, 10 + seed) for seed, system in enumerate(RAWNETS)]
    # one key serves every file of a part: a key is joined on (model, test), in any order
    out = tmp_path / "fused.txt.gz"
    assert main(["fuse", *(str(s) for s, _ in dev), "--dev-key", str(dev[0][1]), "--apply-to",
                 *(str(s) for s, _ in evaluation), "--key", str(evaluation[0][1]), "-o", str(out),
                 "--rule", "brier", "--prior", "0.2"]) == 0
    assert "Brier rule weighted for P_target = 0.2" in capsys.readouterr().out
    expected = lc.fuse({s: lc.read_trials(DEV)[s] for s in RAWNETS}, lc.read_trials(EVAL), rule=lc.BetaRule.brier(),
                       plo=np.log(0.25))
    back = lc.read_trials(out)  # gzip-compressed, with the model and test ids
    assert list(back.metadata.columns) == ["model", "test"]
    by_utt = dict(zip(back.metadata["test"], np.concatenate([back.tar, back.non])))
    fused = expected.fused_eval
    np.testing.assert_allclose([by_utt[u] for u in fused.metadata["utt"]], np.concatenate([fused.tar, fused.non]),
                               rtol=1e-7)
    assert gzip.decompress(out.read_bytes()).startswith(b"model\ttest\tscore\tlabel\n")


def score_label_file(table: pd.DataFrame, system: str, path: Path, drop: int = 0) -> Path:
    """A two-column ``score label`` file: no trial ids, trials in the demo's order."""
    rows = table.iloc[: len(table) - drop]
    pd.DataFrame({"score": rows[system], "label": rows["key"]}).to_csv(path, sep=" ", header=False, index=False)
    return path


def test_files_without_ids_are_fused_line_by_line(tables, tmp_path, capsys):
    dev = [score_label_file(tables["dev"], s, tmp_path / f"dev_{s}.txt") for s in RAWNETS[:2]]
    evaluation = [score_label_file(tables["eval"], s, tmp_path / f"eval_{s}.txt") for s in RAWNETS[:2]]
    out = tmp_path / "fused.txt"
    assert main(["fuse", *map(str, dev), "--apply-to", *map(str, evaluation), "-o", str(out)]) == 0
    expected = lc.fuse({s: lc.read_trials(DEV)[s] for s in RAWNETS[:2]},
                       {s: lc.read_trials(EVAL)[s] for s in RAWNETS[:2]})
    back = lc.read_trials(out)
    np.testing.assert_array_equal(back.tar, expected.fused_eval.tar)
    np.testing.assert_array_equal(back.non, expected.fused_eval.non)
    assert out.read_text().splitlines()[0] == "score\tlabel"
    assert "paired by line order" in capsys.readouterr().out


def test_trial_lists_that_differ_are_refused_with_exit_2(tables, tmp_path, capsys):
    a = score_label_file(tables["dev"], "RawNet2-a", tmp_path / "a.txt")
    b = score_label_file(tables["dev"], "RawNet2-b", tmp_path / "b.txt", drop=2)
    assert main(["fuse", str(a), str(b), "--apply-to", str(a), str(b), "-o", str(tmp_path / "out.txt")]) == 2
    error = capsys.readouterr().err.strip()
    assert error == ("llrcore fuse: a and b cannot be paired trial by trial: a and b have no trial ids, so their "
                     "trials are paired by line order, which needs as many trials of each class, but a has 2,548 "
                     "target and 22,296 non-target trials and b has 2,548 target and 22,294 non-target.")
    assert not (tmp_path / "out.txt").exists()


def test_a_missing_trial_and_separable_systems_and_a_missing_key_are_one_sentence_each(tables, tmp_path, capsys):
    dev_dir = tmp_path / "dev"
    dev_dir.mkdir()
    full, key = kaldi_files(tables["dev"], "RawNet2-a", dev_dir, 0)
    short = dev_dir / "short.scores"
    short.write_text("".join(full.read_text().splitlines(keepends=True)[1:]))
    out = str(tmp_path / "out.txt")
    assert main(["fuse", str(full), str(short), "--dev-key", str(key), "--apply-to", str(EVAL), "-o", out]) == 2
    warning, error = capsys.readouterr().err.strip().split("\n")  # the key's trial without a score, then the refusal
    assert warning.startswith("llrcore fuse: warning: RawNet2-a.key: 1 of the 24,844 trials of the key has no score")
    assert error.startswith("llrcore fuse: RawNet2-a and short were not scored on the same trials: 1 of the 24,844 "
                            "trials of RawNet2-a are missing from short (e.g. model ")
    assert main(["fuse", str(DEV), "--apply-to", str(EVAL), "-o", out]) == 2
    assert "separate the target and non-target training scores perfectly" in capsys.readouterr().err
    assert main(["fuse", str(full), str(short), "--apply-to", str(EVAL), "-o", out]) == 2
    assert capsys.readouterr().err.strip().endswith("Give it with --dev-key KEY_FILE.")
    assert main(["fuse", str(DEV), "--apply-to", str(score_label_file(tables["eval"], "RawNet2-a", tmp_path / "e.txt")),
                 "-o", out, "--regularisation", "0.01"]) == 2
    assert "trained on 4 development systems but applied to 1 evaluation systems" in capsys.readouterr().err
