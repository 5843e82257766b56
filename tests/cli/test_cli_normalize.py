"""``llrcore normalize``: the normalised score file and the metrics it prints.

Independent references: WeSpeaker's AS-norm formula (``wespeaker/bin/score_norm.py`` at commit dfa74195: each row's
cohort scores sorted descending, ``[:top_n]``, ``np.mean``/``np.std``, then ``0.5 * (z + t)`` per trial line) applied
here to the sample files read with pandas; scikit-learn's ``roc_curve`` for the EER bracket of the printed values.
"""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
from sklearn.metrics import roc_curve

from llrcore.cli import main
from paths import ASSETS

DATA = ASSETS / "normalization_demo"  # the demo data, also the tests'


def wespeaker_stats(path, top_n):
    frame = pd.read_csv(path, sep=r"\s+", header=None, names=["id", "cohort", "score"])
    stats = {}
    for key, group in frame.groupby("id", sort=False):
        top = np.sort(group["score"].to_numpy())[::-1][:top_n]
        stats[key] = (np.mean(top), np.std(top))
    return stats


def eer_bracket(scores, labels):
    """The EER lies between the two error rates where the ROC crosses pmiss = pfa."""
    fpr, tpr, _ = roc_curve(labels, scores)
    k = np.argmin(np.abs(fpr - (1 - tpr)))
    return min(fpr[k], 1 - tpr[k]) - 0.01, max(fpr[k], 1 - tpr[k]) + 0.01


def test_as_norm_file_equals_wespeakers_formula_and_metrics_improve(tmp_path, capsys):
    out = tmp_path / "normed.txt"
    code = main(["normalize", str(DATA / "scores.txt"), "--key", str(DATA / "key.txt"),
                 "--enrol-cohort", str(DATA / "enrol_cohort.txt"), "--test-cohort", str(DATA / "test_cohort.txt"),
                 "--method", "as-norm", "--top-n", "100", "--digits", "all", "-o", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    raw = pd.read_csv(DATA / "scores.txt", sep=r"\s+", header=None, names=["model", "test", "score"])
    normed = pd.read_csv(out, sep=r"\s+", header=None, names=["model", "test", "score"])
    assert normed[["model", "test"]].equals(raw[["model", "test"]])  # same lines, same order
    e, t = wespeaker_stats(DATA / "enrol_cohort.txt", 100), wespeaker_stats(DATA / "test_cohort.txt", 100)
    expected = [0.5 * ((s - e[m][0]) / e[m][1] + (s - t[x][0]) / t[x][1])
                for m, x, s in raw.itertuples(index=False)]
    np.testing.assert_allclose(normed["score"], expected, rtol=1e-12, atol=1e-12)
    key = pd.read_csv(DATA / "key.txt", sep=r"\s+", header=None, names=["model", "test", "label"])
    labels = (key["label"] == "target").to_numpy()
    rows = {line.split()[0]: [float(v) for v in line.split()[1:]] for line in printed.splitlines()
            if line.startswith(("before", "after"))}
    for name, scores in (("before", raw["score"]), ("after", normed["score"])):
        low, high = eer_bracket(scores.to_numpy(), labels)
        assert low <= rows[name][0] / 100 <= high
    assert rows["after"][0] < rows["before"][0] and rows["after"][1] < rows["before"][1]


def test_leakage_is_a_warning_on_stderr_and_a_missing_file_an_error(tmp_path, capsys):
    leaky = tmp_path / "leaky.txt"
    text = (DATA / "enrol_cohort.txt").read_text().replace("cohort/spk040.wav", "spk000/enrol.wav")
    leaky.write_text(text)
    code = main(["normalize", str(DATA / "scores.txt"), "--key", str(DATA / "key.txt"), "--enrol-cohort",
                 str(leaky), "--method", "z-norm", "-o", str(tmp_path / "z.txt")])
    err = capsys.readouterr().err
    assert code == 0
    assert "llrcore normalize: warning: Cohort leakage: 1 of the 200 recordings" in err
    code = main(["normalize", str(DATA / "scores.txt"), "--key", str(DATA / "key.txt"), "--test-cohort",
                 str(tmp_path / "absent.txt"), "--method", "t-norm", "-o", str(tmp_path / "t.txt")])
    assert code == 2
    assert capsys.readouterr().err.strip() == "llrcore normalize: absent.txt: the file does not exist."


def test_a_score_file_with_labels_is_refused_in_a_sentence(tmp_path, capsys):
    scores = tmp_path / "labelled.txt"
    scores.write_text("".join(f"{line} x\n" for line in (DATA / "scores.txt").read_text().splitlines()))
    shutil.copy(DATA / "key.txt", tmp_path / "key.txt")
    code = main(["normalize", str(scores), "--key", str(tmp_path / "key.txt"), "--enrol-cohort",
                 str(DATA / "enrol_cohort.txt"), "--method", "z-norm", "-o", str(tmp_path / "z.txt")])
    err = capsys.readouterr().err
    assert code == 2 and "\n" not in err.strip() and "Traceback" not in err
