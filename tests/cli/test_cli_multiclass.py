"""`llrcore multiclass`: the multiclass Cllr and the NIST LRE costs of a score file, raw and calibrated.

Independent references: a direct count of the detection decisions (each class against the others with the detection
LLR of eq. 9, flat prior over the others, accepted when ``llr >= log beta``), written here with numpy from the LRE
2017 plan's formula and the paper's equation, not through ``llrcore.multiclass.cavg``; the library's
``multiclass_cllr`` and ``fit_multiclass_affine`` for the columns the command only gathers. Real data: the CIFAR-10
ResNet-20 logits of the demo (10,000 trials, 10 classes).
"""
import json

import numpy as np
import pytest
from scipy.special import logsumexp

import llrcore as lc
from llrcore.cli import main
from paths import DATA

CIFAR = DATA / "multiclass" / "cifar10_resnet-20"


@pytest.fixture(scope="module")
def cifar():
    return lc.read_multiclass(CIFAR / "scores.npy", labels=CIFAR / "targets.npy", score_type="logit")


def counted_cavg(llrs: np.ndarray, labels: np.ndarray, p_target: float) -> float:
    """Normalised Cavg by counting decisions: P_miss(T) + beta/(N-1) sum_{N != T} P_fa(T, N), averaged over T."""
    n = llrs.shape[1]
    beta = (1 - p_target) / p_target
    total = 0.0
    for target in range(n):
        others = np.delete(llrs, target, axis=1)
        detection = llrs[:, target] - (logsumexp(others, axis=1) - np.log(n - 1))
        accepted = detection >= np.log(beta)
        miss = np.mean(~accepted[labels == target])
        false_alarms = [np.mean(accepted[labels == other]) for other in range(n) if other != target]
        total += miss + beta / (n - 1) * np.sum(false_alarms)
    return total / n


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main(["multiclass", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_holds_the_counted_costs_raw_and_calibrated(capsys, cifar):
    status, out, _ = run(capsys, CIFAR / "scores.npy", "--labels", CIFAR / "targets.npy", "--score-type", "logit",
                         "--json")
    assert status == 0
    table = json.loads(out)
    calibrated = lc.fit_multiclass_affine(cifar)(cifar.llrs)
    for row, llrs in (("raw", cifar.llrs), ("calibrated", calibrated)):
        assert table[row]["Cavg"] == pytest.approx(counted_cavg(llrs, cifar.labels, 0.5), abs=1e-12)
        primary = np.mean([counted_cavg(llrs, cifar.labels, p) for p in (0.5, 0.1)])
        assert table[row]["Cprimary"] == pytest.approx(primary, abs=1e-12)
        assert table[row]["minCavg"] <= table[row]["Cavg"] + 1e-15
        assert table[row]["Cllr"] == lc.multiclass_cllr(llrs, cifar.labels)
    assert table["calibrated"]["Cllr"] < table["raw"]["Cllr"]


def test_calibration_trained_on_development_scores(tmp_path, capsys, cifar):
    half = cifar.llrs.shape[0] // 2
    for name, rows in (("dev", slice(None, half)), ("eval", slice(half, None))):
        np.savez(tmp_path / f"{name}.npz", scores=cifar.llrs[rows], labels=cifar.labels[rows],
                 classes=np.array(cifar.classes))
    status, out, _ = run(capsys, tmp_path / "eval.npz", "--calibrate-on", tmp_path / "dev.npz", "--p-target", 0.1,
                         "--csv")
    assert status == 0
    calibration = lc.fit_multiclass_affine(cifar.llrs[:half], cifar.labels[:half])
    calibrated = calibration(cifar.llrs[half:])
    lines = out.splitlines()
    assert lines[0] == ",Cllr,Cavg,minCavg,Cprimary,minCprimary"
    cavg = float(lines[2].split(",")[2])
    assert lines[2].startswith("calibrated,")
    assert cavg == pytest.approx(counted_cavg(calibrated, cifar.labels[half:], 0.1), abs=1e-12)


def test_text_table_says_units_and_where_the_calibration_was_trained(capsys):
    status, out, _ = run(capsys, CIFAR / "scores.npy", "--labels", CIFAR / "targets.npy", "--score-type", "logit")
    assert status == 0
    assert "trained on the scores themselves" in out
    assert "Cllr in bits" in out and "LRE 2017" in out
    assert out.splitlines()[-2].split()[0] == "raw"


def test_classes_that_differ_from_the_development_set_are_refused(tmp_path, capsys, cifar):
    np.savez(tmp_path / "dev.npz", scores=cifar.llrs[:, :9], labels=cifar.labels % 9)
    np.savez(tmp_path / "eval.npz", scores=cifar.llrs, labels=cifar.labels)
    status, out, err = run(capsys, tmp_path / "eval.npz", "--calibrate-on", tmp_path / "dev.npz")
    assert status == 2 and out == ""
    assert err.startswith("llrcore multiclass: dev.npz has the classes 0, 1,") and "same classes" in err


def test_a_missing_file_is_one_sentence(tmp_path, capsys):
    status, _, err = run(capsys, tmp_path / "nothing.csv")
    assert status == 2
    assert err.count("\n") == 1 and "nothing.csv" in err
