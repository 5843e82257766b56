"""Tests of ``lc.eer_conventions`` (:mod:`llrcore.binary.conventions`): each tool's EER/minDCF, as the tool computes it.

Independent references, each tool's published code re-implemented literally below (the logic copied, loops kept;
only torch tensors made numpy arrays and C++ made Python), never llrcore's output:

- ASVspoof 2021 ``eval-package/eval_metrics.py`` ``compute_det_curve`` / ``compute_eer``,
  https://github.com/asvspoof-challenge/2021/blob/9b33f5eca887bd3bf629e3fb79428cd9bb7ac972/eval-package/eval_metrics.py
- SpeechBrain ``speechbrain/utils/metric_stats.py`` ``EER`` and ``minDCF``, vendored test-only (torch made numpy
  float32, operation for operation) in ``tests/reference/speechbrain_metric_stats.py`` (Apache-2.0, provenance there);
- Kaldi ``egs/sre08/v1/sid/compute_min_dcf.py`` (``ComputeErrorRates``, ``ComputeMinDcf``), vendored test-only in
  ``tests/reference/kaldi_compute_min_dcf.py`` (Apache-2.0, provenance there), and ``src/ivectorbin/compute-eer.cc``
  ``ComputeEer`` below, https://github.com/kaldi-asr/kaldi/blob/f4007661023b98b8081fd875029f0dee62242fd1/
- voxceleb_trainer ``tuneThreshold.py`` ``tuneThresholdfromScore``,
  https://github.com/clovaai/voxceleb_trainer/blob/f51bab870672a9b0b50fa158b4e30f329e7866d7/tuneThreshold.py
- scikit-learn's own ``sklearn.metrics.roc_curve`` and the ``brentq``/``interp1d`` EER recipe (scipy);
- NIST SRE16 scoring software v4.1 (O. Sadjadi) ``compute_pmiss_pfa_rbst``, ``compute_eer``, ``compute_c_norm``;
- hand values on a five-trial example, and the identities ROCCH-EER <= interpolated EER, SpeechBrain's minDCF =
  ours x min(C_miss P, C_fa (1-P)).

Real data: the ASVspoof 2019 LA organisers' ASV scores and countermeasure scores, and NIST BSSR1's fingerprint
scores (whole numbers, many ties), all shipped in assets/ with their SOURCE.txt.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.interpolate import interp1d
from scipy.optimize import brentq
from sklearn import metrics

import llrcore as lc
from reference import vendored
from llrcore.binary import conventions
from paths import ASSETS, ROOT



SPEECHBRAIN = vendored("speechbrain_metric_stats")
KALDI_MIN_DCF = vendored("kaldi_compute_min_dcf")


# ----- the tools' code, literally ----------------------------------------------------------------------------------


def asvspoof_compute_det_curve(target_scores, nontarget_scores):
    n_scores = target_scores.size + nontarget_scores.size
    all_scores = np.concatenate((target_scores, nontarget_scores))
    labels = np.concatenate((np.ones(target_scores.size), np.zeros(nontarget_scores.size)))
    indices = np.argsort(all_scores, kind='mergesort')
    labels = labels[indices]
    tar_trial_sums = np.cumsum(labels)
    nontarget_trial_sums = nontarget_scores.size - (np.arange(1, n_scores + 1) - tar_trial_sums)
    frr = np.concatenate((np.atleast_1d(0), tar_trial_sums / target_scores.size))
    far = np.concatenate((np.atleast_1d(1), nontarget_trial_sums / nontarget_scores.size))
    thresholds = np.concatenate((np.atleast_1d(all_scores[indices[0]] - 0.001), all_scores[indices]))
    return frr, far, thresholds


def asvspoof_compute_eer(target_scores, nontarget_scores):
    frr, far, thresholds = asvspoof_compute_det_curve(target_scores, nontarget_scores)
    abs_diffs = np.abs(frr - far)
    min_index = np.argmin(abs_diffs)
    eer = np.mean((frr[min_index], far[min_index]))
    return eer, thresholds[min_index]


def kaldi_compute_eer(target_scores, nontarget_scores):
    """``ComputeEer`` of compute-eer.cc; ``BaseFloat`` is float32, ``ssize_t`` truncates the double."""
    target_scores = sorted(np.float32(target_scores))
    nontarget_scores = sorted(np.float32(nontarget_scores))
    target_position, target_size = 0, len(target_scores)
    while target_position + 1 < target_size:
        nontarget_size = len(nontarget_scores)
        nontarget_n = int(nontarget_size * target_position * 1.0 / target_size)
        nontarget_position = nontarget_size - 1 - nontarget_n
        if nontarget_position < 0:  # noqa: PLR1730 - compute-eer.cc as written
            nontarget_position = 0
        if nontarget_scores[nontarget_position] < target_scores[target_position]:
            break
        target_position += 1
    threshold = target_scores[target_position]
    eer = target_position * 1.0 / target_size
    return eer, float(threshold)


def voxceleb_trainer_eer(scores, labels):
    fpr, tpr, thresholds = metrics.roc_curve(labels, scores, pos_label=1)
    fnr = 1 - tpr
    idxE = np.nanargmin(np.absolute((fnr - fpr)))  # noqa: UP034 - voxceleb_trainer's code as written
    return max(fpr[idxE], fnr[idxE]), thresholds[idxE]


def sklearn_brentq_eer(scores, labels):
    fpr, tpr, _ = metrics.roc_curve(labels, scores, pos_label=1)
    return brentq(lambda x: 1. - x - interp1d(fpr, tpr)(x), 0., 1.)


def nist_compute_pmiss_pfa_rbst(scores, labels):
    sorted_ndx = np.argsort(scores)
    labels = labels[sorted_ndx]
    weights = np.ones((labels.shape), dtype='f8')
    tgt_wghts = weights * (labels == 1).astype('f8')
    imp_wghts = weights * (labels == 0).astype('f8')
    fnr = np.cumsum(tgt_wghts) / np.sum(tgt_wghts)
    fpr = 1 - np.cumsum(imp_wghts) / np.sum(imp_wghts)
    return fnr, fpr


def nist_compute_eer(fnr, fpr):
    diff_pm_fa = fnr - fpr
    x1 = np.flatnonzero(diff_pm_fa >= 0)[0]
    x2 = np.flatnonzero(diff_pm_fa < 0)[-1]
    a = (fnr[x1] - fpr[x1]) / (fpr[x2] - fpr[x1] - (fnr[x2] - fnr[x1]))
    return fnr[x1] + a * (fnr[x2] - fnr[x1])


def nist_compute_c_norm(fnr, fpr, p_target, c_miss=1, c_fa=1):
    c_det = min(c_miss * fnr * p_target + c_fa * fpr * (1 - p_target))
    c_def = min(c_miss * p_target, c_fa * (1 - p_target))
    return c_det / c_def


# ----- data --------------------------------------------------------------------------------------------------------


def _cm(part, system):
    return lc.read_trials(ASSETS / "asvspoof2019_la_cm" / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz")[system]


REAL = {
    "asv_dev": lambda: lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"),
    "asv_eval": lambda: lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"),
    "cm_dev_lfcc": lambda: _cm("dev", "LFCC-GMM"),  # bona fide and spoof apart: EER 0
    "cm_eval_rawnet": lambda: _cm("eval", "RawNet2-a"),
    "fingerprint_ties": lambda: lc.read_trials(ASSETS / "nist_bssr1" / "bssr1_fingerprint.tsv.gz"),
}
EDGE = {
    "hand": ([1.0, 2.0, 3.0], [0.0, 1.5]),
    "all_tied": ([1.0, 1.0, 1.0], [1.0, 1.0]),
    "separated": ([5.0, 6.0], [1.0, 2.0, 3.0]),
    "reversed": ([1.0, 2.0], [5.0, 6.0, 7.0]),
    "one_each": ([0.5], [0.2]),
    "mixed_ties": ([0.0, 1.0, 1.0, 2.0, 2.0, 3.0], [1.0, 1.0, 2.0, -1.0, 0.0, 2.0, 0.5]),
}


@pytest.fixture(scope="module", params=[*REAL, *EDGE])
def case(request):
    if request.param in REAL:
        trials = REAL[request.param]()
        return request.param, trials.tar, trials.non
    tar, non = EDGE[request.param]
    return request.param, np.array(tar), np.array(non)


def _table(tar, non):
    return {c.tool.split()[0]: c for c in lc.eer_conventions(lc.Trials(tar, non)).conventions}


def _labelled(tar, non):
    return np.concatenate([tar, non]), np.concatenate([np.ones(tar.size, int), np.zeros(non.size, int)])


#: Where a target and a non-target share scores near the EER or the minDCF: the tools that walk the trials one at a
#: time then depend on the order of the tied trials in the file (NIST: on np.argsort's unstable order).
TIE_CASES = ("fingerprint_ties", "mixed_ties", "all_tied")


# ----- each tool against its own code --------------------------------------------------------------------------------


def test_asvspoof_row_is_compute_eer_to_the_last_bit(case):
    _, tar, non = case
    row = _table(tar, non)["ASVspoof"]
    eer, threshold = asvspoof_compute_eer(tar, non)
    assert (row.eer, row.threshold) == (float(eer), float(threshold))


def _sample(tar, non, most=1500, seed=0):
    """At most `most` trials of a large real file, drawn at random in both classes (the vendored SpeechBrain code
    compares every score with every threshold: millions of trials would take hours)."""
    n = tar.size + non.size
    if n <= most:
        return tar, non
    rng = np.random.default_rng(seed)
    keep_tar = max(2, round(most * tar.size / n))
    return rng.choice(tar, keep_tar, replace=False), rng.choice(non, most - keep_tar, replace=False)


def _random_lists(n_lists, seed):
    """Short random score lists, half of them on a coarse grid (many ties within and across the classes)."""
    rng = np.random.default_rng(seed)
    for k in range(n_lists):
        n_tar, n_non = rng.integers(1, 25, size=2)
        tar, non = rng.normal(1.0, 1.0, n_tar), rng.normal(0.0, 1.0, n_non)
        yield (np.round(tar, 1), np.round(non, 1)) if k % 2 else (np.round(tar, 4), np.round(non, 4))


def _rows(tar, non, p_target=0.01, c_miss=1.0, c_fa=1.0):
    result = lc.eer_conventions(lc.Trials(tar, non), p_target=p_target, c_miss=c_miss, c_fa=c_fa)
    return {c.tool.split()[0]: c for c in result.conventions}


def test_speechbrain_row_is_its_code(case):
    """EER, threshold and minDCF equal to the last bit SpeechBrain's ``EER`` and ``minDCF`` (vendored, float32)."""
    _, tar, non = case
    tar, non = _sample(tar, non)
    row = _table(tar, non)["SpeechBrain"]
    assert (row.eer, row.threshold) == SPEECHBRAIN.EER(tar, non)
    assert row.min_dcf == SPEECHBRAIN.minDCF(tar, non)[0]


def test_speechbrain_row_is_its_code_on_random_lists():
    """800 short lists, ties included, at several operating points: the float32 rounding that breaks SpeechBrain's
    ties (0.7 % of such lists in issue 41) is followed exactly."""
    for k, (tar, non) in enumerate(_random_lists(800, seed=41)):
        p_target, c_miss, c_fa = (0.01, 1.0, 1.0) if k % 3 else (0.3, 2.0, 0.5)
        row = _rows(tar, non, p_target, c_miss, c_fa)["SpeechBrain"]
        assert (row.eer, row.threshold) == SPEECHBRAIN.EER(tar, non), (tar, non)
        assert row.min_dcf == SPEECHBRAIN.minDCF(tar, non, c_miss, c_fa, p_target)[0], (tar, non)


def test_speechbrain_breaks_a_tie_by_float32_rounding():
    """Issue 41's list: tar 0.2101, -0.03; non 0.79, -0.52, 0.08. Between the scores -0.03 and 0.08 and between
    0.08 and 0.2101 the rates are (FRR, FAR) = (1/2, 2/3) and (1/2, 1/3), both 1/6 from FRR = FAR. In float32
    2/3 - 1/2 = 0.16666669 and 1/3 - 1/2 = -0.16666666: the second is nearer, so SpeechBrain's EER is
    (1/2 + float32(1/3)) / 2 = 0.41666667 at threshold 0.08, not (1/2 + 2/3) / 2 = 0.58333."""
    row = _rows(np.array([0.2101, -0.03]), np.array([0.79, -0.52, 0.08]))["SpeechBrain"]
    assert row.eer == (0.5 + float(np.float32(1 / 3))) / 2 == pytest.approx(5 / 12, abs=1e-8)
    assert row.threshold == float(np.float32(0.08))


def test_kaldi_row_is_compute_eer_cc_and_compute_min_dcf_py(case):
    """compute-eer.cc sorts each class apart (no order matters); compute_min_dcf.py walks the trials in the order
    Trials keeps them (targets, then non-targets, each in file order): equal to the last bit."""
    _, tar, non = case
    row = _table(tar, non)["Kaldi"]
    assert (row.eer, row.threshold) == kaldi_compute_eer(tar, non)
    trials = lc.Trials(tar, non)
    assert row.min_dcf == KALDI_MIN_DCF.min_dcf(trials.scores, trials.labels)[0]
    assert _table(tar, non)["voxceleb_trainer"].min_dcf == row.min_dcf  # its ComputeMinDcf is Kaldi's code


def test_kaldi_min_dcf_is_its_code_on_random_lists():
    for k, (tar, non) in enumerate(_random_lists(400, seed=7)):
        p_target, c_miss, c_fa = (0.01, 1.0, 1.0) if k % 3 else (0.9, 1.0, 3.0)
        trials = lc.Trials(tar, non)
        row = _rows(tar, non, p_target, c_miss, c_fa)["Kaldi"]
        assert row.min_dcf == KALDI_MIN_DCF.min_dcf(trials.scores, trials.labels, p_target, c_miss, c_fa)[0]


def test_kaldi_min_dcf_depends_on_the_file_order_of_tied_trials():
    """tar 1, 2; non 0, 1 at P_target 0.5 (C_default 0.5). Sorted with the tie in file order, the script's points
    (FNR, FPR) after each trial are, target 1 listed first: (0, 1/2) (1/2, 1/2) (1/2, 0) (1, 0), lowest cost
    0.5 x 1/2 = 0.25, minDCF 0.5; non-target 1 listed first: (0, 1/2) (0, 0) (1/2, 0) (1, 0), a cost of 0 at a
    point no threshold reaches, minDCF 0. Trials that know their file's order (from_labels, the readers) give that
    file's value; two arrays say no order, and the row takes the targets first (the first file's value).

    tar 0, 0, 1; non 0, 2 at P_target 0.99 (C_default 0.01): targets first, the first trial alone gives (1/3, 1),
    cost 0.99/3 + 0.01 = 0.34, minDCF 34, where the DET steps' lowest is (2/3, 1/2): 0.665, minDCF 66.5."""
    trials = lc.Trials.from_labels([1.0, 0.0, 1.0, 2.0], [0, 0, 1, 1])  # the non-target 1 listed first
    assert KALDI_MIN_DCF.min_dcf([1.0, 0.0, 1.0, 2.0], [0, 0, 1, 1], 0.5)[0] == 0.0
    assert KALDI_MIN_DCF.min_dcf([1.0, 2.0, 0.0, 1.0], [1, 1, 0, 0], 0.5)[0] == 0.5
    assert _rows(trials.tar, trials.non, 0.5)["Kaldi"].min_dcf == 0.5
    walked = {c.tool.split()[0]: c for c in lc.eer_conventions(trials, p_target=0.5).conventions}
    assert walked["Kaldi"].min_dcf == walked["voxceleb_trainer"].min_dcf == 0.0
    rows = _rows(np.array([0.0, 0.0, 1.0]), np.array([0.0, 2.0]), 0.99)
    assert rows["Kaldi"].min_dcf == pytest.approx(34.0, rel=1e-12)
    assert rows["NIST"].min_dcf == pytest.approx(66.5, rel=1e-12)


@pytest.mark.parametrize("drop_intermediate", [True, False])
def test_roc_curve_is_scikit_learns(case, drop_intermediate):
    _, tar, non = case
    scores, labels = _labelled(tar, non)
    expected = metrics.roc_curve(labels, scores, drop_intermediate=drop_intermediate)
    got = conventions.roc_curve(lc.Trials(tar, non).sorted, drop_intermediate=drop_intermediate)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_interpolated_row_is_the_brentq_recipe(case):
    _, tar, non = case
    row = _table(tar, non)["scikit-learn"]
    assert row.eer == pytest.approx(sklearn_brentq_eer(*_labelled(tar, non)), abs=1e-10)


def test_voxceleb_trainer_row_is_tune_threshold(case):
    _, tar, non = case
    row = _table(tar, non)["voxceleb_trainer"]
    eer, threshold = voxceleb_trainer_eer(*_labelled(tar, non))
    assert (row.eer, row.threshold) == (float(eer), float(threshold))


def test_nist_row_is_the_sre_scorer_without_ties_across_classes(case):
    name, tar, non = case
    if name in TIE_CASES or name in ("separated", "reversed", "one_each"):
        pytest.skip("NIST's compute_eer needs points on both sides of the diagonal and an unambiguous trial order")
    row = _table(tar, non)["NIST"]
    scores, labels = _labelled(tar, non)
    fnr, fpr = nist_compute_pmiss_pfa_rbst(scores, labels)
    assert row.eer == pytest.approx(nist_compute_eer(fnr, fpr), abs=1e-12)
    assert row.min_dcf == pytest.approx(nist_compute_c_norm(fnr, fpr, 0.01), rel=1e-12)


# ----- hand values and identities ----------------------------------------------------------------------------------


def test_hand_example():
    """tar 1, 2, 3; non 0, 1.5. Steps (Pfa, Pmiss): (1,0) (1/2,0) (1/2,1/3) (0,1/3) (0,2/3) (0,1). Hull through
    (1/2,0)-(0,1/3): EER 1/5. ASVspoof's walk 0n 1t 1.5n 2t 3t is nearest at (FRR, FAR) = (1/3, 1/2): 5/12.
    The lines between steps cross the diagonal on (1/2,1/3)-(0,1/3): 1/3. Kaldi stops at target 2: 1/3."""
    rows = _table(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.5]))
    assert [Fraction(r.eer).limit_denominator(100) for r in rows.values()] == [
        Fraction(1, 5), Fraction(5, 12), Fraction(5, 12), Fraction(1, 3), Fraction(1, 3), Fraction(1, 2),
        Fraction(1, 3)]


def test_all_tied_scores():
    """Every score 1: a useless system, EER 1/2 on the hull. ASVspoof's walk takes the three targets first:
    (FRR, FAR) = (1, 1) is on the diagonal, so its EER is 1; Kaldi stops at the last target: 2/3."""
    rows = _table(np.ones(3), np.ones(2))
    assert (rows["llrcore"].eer, rows["ASVspoof"].eer, rows["SpeechBrain"].eer, rows["Kaldi"].eer) == (
        0.5, 1.0, 0.5, 2 / 3)


def test_identities_on_real_scores(case):
    _, tar, non = case
    result = lc.eer_conventions(lc.Trials(tar, non), p_target=0.05, c_miss=2)
    rows = {c.tool.split()[0]: c for c in result.conventions}
    ours = rows["llrcore"]
    assert ours.eer == lc.eer(tar, non)
    assert ours.min_dcf == pytest.approx(lc.min_dcf(tar, non, p_target=0.05, c_miss=2))
    assert rows["scikit-learn"].eer >= ours.eer - 1e-15  # the lines between steps lie on or above the hull
    c_default = min(2 * 0.05, 0.95)
    # SpeechBrain's cost is float32: the identity holds to its precision
    assert rows["SpeechBrain"].min_dcf == pytest.approx(ours.min_dcf * c_default, rel=1e-6, abs=1e-9)
    assert rows["NIST"].min_dcf == pytest.approx(ours.min_dcf, rel=1e-12, abs=1e-15)


def test_frame_and_notes():
    trials = lc.Trials([0.0, 1.0, 1.0, 2.0], [1.0, -1.0, 0.5])
    result = lc.eer_conventions(trials, p_target=lc.OperatingPoint(0.01))
    frame = result.to_frame(percent=True)
    assert list(frame.columns) == ["tool", "EER %", "EER % − ours", "minDCF", "minDCF − ours", "threshold", "why"]
    assert len(frame) == 7 and frame["EER % − ours"].iloc[0] == 0
    assert frame["EER %"].iloc[1] == pytest.approx(100 * asvspoof_compute_eer(trials.tar, trials.non)[0])
    assert all(row.endswith(".") and row.count(". ") == 0 for row in frame["why"])  # one sentence each
    assert result.mixed_ties == 1 and "1 distinct scores" in result.notes()[-1]
    with pytest.raises(TypeError):
        lc.eer_conventions([1.0, 2.0])


# ----- command line ------------------------------------------------------------------------------------------------


def test_cli_evaluate_conventions(capsys):
    """``llrcore evaluate --conventions``: the rows of the real ASVspoof 2019 LA eval ASV file, each number the
    tool's own code gives (ASVspoof's compute_eer and Kaldi's ComputeEer, re-implemented above)."""
    import json

    from llrcore.cli import main

    path = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
    trials = lc.read_trials(path)
    assert main(["evaluate", str(path), "--conventions", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    system = f"{path.stem} / "
    assert rows[system + "ASVspoof 2019/2021 compute_eer"]["EER %"] == pytest.approx(
        100 * asvspoof_compute_eer(trials.tar, trials.non)[0], rel=1e-12)
    assert rows[system + "Kaldi compute-eer / compute_min_dcf.py"]["EER %"] == pytest.approx(
        100 * kaldi_compute_eer(trials.tar, trials.non)[0], rel=1e-12)
    assert rows[system + "scikit-learn roc_curve + interp1d/brentq"]["minDCF"] is None
    assert main(["evaluate", str(path), "--conventions"]) == 0
    text = capsys.readouterr().out
    assert "Kaldi compute-eer" in text and "never below ours" in text and "P_target 0.01" in text


def test_real_scores_table_is_the_library_on_the_shipped_file():
    """docs/conventions.md, "On real scores": each EER % and minDCF it prints is the library's on the shipped file, to
    4 decimals (the rows themselves are checked against the tools' code above)."""
    import re

    doc = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    section = doc[doc.index("### On real scores"):doc.index("## t-EER")]
    printed = re.findall(r"^\| (.+?) \| (\d\.\d{4}) \| (\d\.\d{4}|—) \|", section, flags=re.MULTILINE)
    trials = lc.read_trials(ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    rows = lc.eer_conventions(trials).conventions
    assert len(printed) == len(rows) == 7
    for (_, eer, dcf), row in zip(printed, rows):
        assert eer == f"{100 * row.eer:.4f}"
        assert dcf == ("—" if row.min_dcf != row.min_dcf else f"{row.min_dcf:.4f}")


def test_docs_worked_example_is_the_library():
    """docs/conventions.md, section EER: each EER % and minDCF of its worked example is the library's, to 4 decimals
    (the arithmetic is shown there; the rows are held against the tools' code above)."""
    import re

    doc = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    section = doc[doc.index("## EER"):doc.index("## ECE")]
    printed = re.findall(r"^\| (.+?) \| (\d+\.\d{4}) \| (\d\.\d{4}|—) \|$", section, flags=re.MULTILINE)
    result = lc.eer_conventions(lc.Trials([0.2101, -0.03], [0.79, -0.52, 0.08]), p_target=0.5)
    assert len(printed) == len(result.conventions) == 7
    for (tool, eer, dcf), row in zip(printed, result.conventions):
        assert tool == row.tool and eer == f"{100 * row.eer:.4f}"
        assert dcf == ("—" if row.min_dcf != row.min_dcf else f"{row.min_dcf:.4f}")


def test_kaldi_min_dcf_walks_a_read_file_in_its_own_order(tmp_path):
    """A Kaldi score file and its key whose tied trials interleave the classes, read as a user reads them (also a
    condition of it, by `where`): the row is the vendored compute_min_dcf.py run on the file's lines in order."""
    rng = np.random.default_rng(11)
    n = 400
    labels = rng.random(n) < 0.3
    scores = np.round(rng.normal(0, 1, n) + 1.5 * labels, 1)  # one decimal: many ties across the classes
    gender = np.where(np.arange(n) % 3, "f", "m")
    (tmp_path / "s.scores").write_text("".join(f"m{i} t{i} {v:.1f}\n" for i, v in enumerate(scores)))
    (tmp_path / "s.key").write_text("".join(f"m{i} t{i} {'target' if y else 'nontarget'}\n"
                                           for i, y in enumerate(labels)))
    (tmp_path / "meta.csv").write_text("model,gender\n" + "".join(f"m{i},{g}\n" for i, g in enumerate(gender)))
    trials = lc.read_trials(tmp_path / "s.scores", key=tmp_path / "s.key", metadata=tmp_path / "meta.csv")
    for subset, keep in ((trials, np.ones(n, bool)), (trials.where(gender="f"), gender == "f")):
        for p_target in (0.01, 0.3, 0.5):
            table = lc.eer_conventions(subset, p_target=p_target)
            row = {c.tool.split()[0]: c for c in table.conventions}["Kaldi"]
            assert row.min_dcf == KALDI_MIN_DCF.min_dcf(scores[keep], labels[keep], p_target)[0]
            assert table.file_order and "in the file's order" in " ".join(table.notes())
    targets_first = lc.eer_conventions(lc.Trials(trials.tar, trials.non), p_target=0.5)
    assert not targets_first.file_order and "do not say the order of a file" in " ".join(targets_first.notes())
