"""Issue 28's leftovers: every interval names its method, a validation report stamps the time it is written, a
calibration whose cross-validation folds collapsed is flagged, the forensic figures keep +-1e308 off their axes, and
text numbers in a metrics table are right-aligned.

Independent references: ``numpy.percentile`` (linear interpolation) and ``numpy.nanpercentile`` of the replicates for
``method="percentile"``; the method's name written out by hand ("95 % BCa", "95 % percentile"); a fixed datetime for
the time of writing; for the folds that collapse, the fold that holds the far target (only the fits that train on it
can collapse) and a collapse measured directly (the fold's calibrated LLRs of the ordinary scores all within 1e-6 nats
of one another); for the figures, the log10 of the ordinary LLRs (``llr / ln 10``) and the count of far ones put in.
"""
from __future__ import annotations

import dataclasses
import warnings
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.calibration.analysis import calibrate_and_evaluate
from llrcore.calibration.sweep import RuleSweep, sweep_prior_weighting
from llrcore.calibration.folds import Folds
from llrcore.cli import main
from llrcore.plots.forensic import ece_figure, tippett_figure
from llrcore.plots.spoofing import attack_bars_figure
from llrcore.plots.uncertainty import condition_figure
from llrcore.report.validation import build_validation_report
from paths import ROOT

FAR = 1e308
ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
METRICS = {"eer": "EER", "cllr": "Cllr", "act_dcf": "actDCF", "min_cllr": "minCllr"}


def ordinary(seed: int = 7, mu: float = 3.0, n_tar: int = 300, n_non: int = 3000):
    rng = np.random.default_rng(seed)
    return rng.normal(mu, np.sqrt(2 * mu), n_tar), rng.normal(-mu, np.sqrt(2 * mu), n_non)


@pytest.fixture(scope="module")
def trials():
    tar, non = ordinary()
    return lc.Trials(tar, non, name="A")


@pytest.fixture(scope="module")
def wrong_side():
    """A target at -1e308: every affine fit that trains on it collapses (the true optimum there)."""
    tar, non = ordinary()
    return lc.Trials(np.append(tar, -FAR), non, name="far")


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The calibration collapsed", RuntimeWarning)
        return function(*args, **kwargs)


# ----- 1. the interval method, named everywhere and passed through ------------------------------------------------


def test_metrics_table_names_the_method_and_percentile_gives_numpys_percentiles(trials):
    bca = lc.bootstrap(trials, n=200, seed=1)
    table = lc.metrics_table([lc.evaluate(trials, name="A")], intervals={"A": bca})
    assert table.loc["A", "interval method"].startswith("95 % BCa")
    percentile = lc.bootstrap(trials, n=200, seed=1, method="percentile")
    table = lc.metrics_table([lc.evaluate(trials, name="A")], intervals={"A": percentile})
    assert table.loc["A", "interval method"] == "95 % percentile"
    for metric, column in METRICS.items():
        expected = np.percentile(percentile.replicates[metric].to_numpy(), [2.5, 97.5])
        assert table.loc["A", [f"{column} lower", f"{column} upper"]].tolist() == pytest.approx(expected, rel=1e-12)


def test_condition_bootstrap_passes_the_method_through(trials):
    frame = pd.DataFrame({"gender": np.where(np.arange(3300) % 2, "f", "m")})
    split = lc.Trials(trials.tar, trials.non, name="A", metadata=frame)
    result = lc.evaluate_by_condition(split, "gender")
    intervals = result.bootstrap(n=100, seed=2, method="percentile")
    assert {r.method for r in intervals.values()} == {"percentile"}
    for label, interval in intervals.items():
        expected = np.percentile(interval.replicates["eer"].to_numpy(), [2.5, 97.5])
        assert interval.interval("eer") == pytest.approx(tuple(expected), rel=1e-12)
    table = result.to_frame(intervals=intervals)
    assert set(table["interval method"]) == {"95 % percentile"}
    assert {r.method for r in result.bootstrap(n=50, seed=2).values()} == {"bca"}


def test_condition_figure_names_the_method(trials):
    frame = pd.DataFrame({"gender": np.where(np.arange(3300) % 2, "f", "m")})
    result = lc.evaluate_by_condition(lc.Trials(trials.tar, trials.non, metadata=frame), "gender")
    for method, words in (("bca", "95 % BCa bootstrap intervals"), ("percentile", "95 % percentile bootstrap")):
        figure = condition_figure({"A": result}, "eer", intervals={"A": result.bootstrap(n=50, method=method)})
        assert words in figure.data[0].name


@pytest.fixture(scope="module")
def tandem():
    cm, asv = lc.read_trials(CM)["LFCC-GMM"], lc.read_trials(ASV)
    return lc.evaluate_tandem(cm, asv, by=None, name="LFCC-GMM"), cm, asv


def test_tandem_bootstrap_passes_the_method_through_and_names_it(tandem):
    evaluation, cm, asv = tandem
    result = lc.bootstrap_tandem(cm, asv, n=30, seed=3, by=None, cm_eer=True, method="percentile")
    assert result.method == "percentile" and result.tdcf["pooled"].method == "percentile"
    replicates = result.tdcf["pooled"].replicates
    assert result.interval() == pytest.approx(tuple(np.nanpercentile(replicates, [2.5, 97.5])), rel=1e-12)
    eer = result.cm_eer["pooled"].replicates["eer"].to_numpy()
    assert result.interval(metric="CM EER") == pytest.approx(tuple(np.percentile(eer, [2.5, 97.5])), rel=1e-12)
    frame = result.to_frame()
    assert set(frame["interval method"]) == {"95 % percentile"}
    same = evaluation.bootstrap(30, seed=3, method="percentile")
    assert same.method == "percentile" and same.interval() == result.interval()
    default = evaluation.bootstrap(30, seed=3)
    assert default.method == "bca" and set(default.to_frame()["interval method"]) == {"95 % BCa"}


def test_attack_figure_names_the_method(tandem):
    _, cm, asv = tandem
    per_attack = lc.evaluate_tandem(cm, asv)
    for method, words in (("bca", "BCa"), ("percentile", "percentile")):
        intervals = per_attack.bootstrap(10, seed=3, method=method)
        title = attack_bars_figure({"LFCC-GMM": per_attack}, intervals={"LFCC-GMM": intervals}).layout.title.text
        assert f"error bars: 95 % {words} bootstrap intervals" in title


def test_cli_evaluate_names_the_method_in_its_csv_and_header(capsys):
    assert main(["evaluate", str(ASV), "--ci", "0.9", "--bootstrap", "50", "--csv"]) == 0
    csv = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert csv["interval method"].str.startswith("90 % BCa").all()
    assert main(["evaluate", str(ASV), "--ci", "0.9", "--bootstrap", "50"]) == 0
    assert "Intervals: bootstrap (90 % BCa" in capsys.readouterr().out


def test_report_texts_name_the_method(trials):
    report = lc.build_report({"A": trials}, ci=0.95, bootstrap=50, calibrate=False)
    page = report.to_html()
    assert "95 % BCa bootstrap interval:" in page  # under the big number
    assert "95 % BCa bootstrap interval [lower, upper]" in page  # the metrics table's sentence
    assert "95 % BCa bootstrap intervals from 50 resamplings" in page  # how sure the numbers are


# ----- 2. the validation report says when it was written -----------------------------------------------------------


def test_validation_report_stamps_the_time_of_writing(trials, monkeypatch, tmp_path):
    report = quiet(build_validation_report, trials, calibrate=None)
    later = datetime(2031, 5, 6, 7, 8, tzinfo=UTC)
    assert "2031-05-06 07:08:00 UTC" in report.to_html(written=later)
    monkeypatch.setattr("llrcore.report.validation.writing_time", lambda: later)
    assert "2031-05-06 07:08:00 UTC" in report.html
    report.write(tmp_path / "v.html")
    assert "2031-05-06 07:08:00 UTC" in (tmp_path / "v.html").read_text(encoding="utf-8")
    assert report.created.strftime("%Y-%m-%d %H:%M:%S") not in report.to_html(written=later)


# ----- 3. collapsed fits of cross-validation folds and sweeps are flagged --------------------------------------------


def test_cross_validated_calibration_carries_the_folds_that_collapsed(wrong_side):
    result = quiet(calibrate_and_evaluate, wrong_side, folds=5, seed=0)
    split = Folds.split(wrong_side.tar.size, wrong_side.non.size, 5, seed=0)
    holder = next(k for k, (tar_test, _) in enumerate(split.test, start=1) if tar_test[-1])  # the far target's fold
    assert result.collapsed_folds == tuple(k for k in range(1, 6) if k != holder)
    # each of them is a collapse, measured directly: the fold's LLRs of the ordinary scores are all about equal
    for k, (tar_test, non_test) in enumerate(split.test, start=1):
        tar = result.calibrated.tar[tar_test & (np.abs(wrong_side.tar) < 1e300)]
        llrs = np.r_[tar, result.calibrated.non[non_test]]
        assert (np.ptp(llrs) < 1e-6) == (k != holder)
    assert result.collapsed and result.failure.startswith(
        f"the calibration trained on all the trials collapsed, and in folds "
        f"{', '.join(str(k) for k in result.collapsed_folds[:-1])} and {result.collapsed_folds[-1]} of 5 — ")
    assert not quiet(calibrate_and_evaluate, lc.Trials(*ordinary())).collapsed


def test_a_fold_that_collapses_is_flagged_even_when_the_fit_on_all_trials_is_fine(wrong_side):
    result = quiet(calibrate_and_evaluate, wrong_side)
    flagged = dataclasses.replace(result, calibrator=lc.fit_affine(*ordinary()))
    assert flagged.collapsed and flagged.failure.startswith("the calibration collapsed in folds ")


def test_bayes_decisions_cross_calibration_refuses_collapsed_folds(wrong_side):
    with pytest.raises(ValueError, match=r"The calibration collapsed in folds .* of 5"):
        quiet(lc.cross_calibrated, wrong_side)
    assert lc.cross_calibrated(lc.Trials(*ordinary(), name="B")).name == "B (calibrated)"


def test_sweep_marks_collapsed_fits_and_never_chooses_one(wrong_side, trials):
    sweep = quiet(sweep_prior_weighting, wrong_side, None, [lc.BetaRule.logarithmic()], [-2.0, 0.0])
    assert sweep.frame["collapsed"].all()
    with pytest.raises(ValueError, match="collapsed"):
        sweep.best
    plain = sweep_prior_weighting(trials, None, [lc.BetaRule.logarithmic()], [-2.0, 0.0])
    assert not plain.frame["collapsed"].any()
    frame = pd.DataFrame({"rule": ["a", "b"], "plo": [0.0, -1.0], "cost": [0.1, 0.5], "cllr": [0.2, 0.3],
                          "collapsed": [True, False]})
    assert RuleSweep(frame, "Cprimary", 1.0, 0.0, (0.01,), 1.0, 1.0, True).best["rule"] == "b"


# ----- 4. forensic figures keep +-1e308 off their axes ----------------------------------------------------------------


def test_tippett_axis_is_fenced_and_says_what_lies_beyond():
    tar, non = ordinary()
    figure = tippett_figure(lc.Trials(np.append(tar, -FAR), np.append(non, [FAR, FAR]), name="far"))
    lo, hi = figure.layout.xaxis.range
    log10 = np.r_[tar, non] / np.log(10)
    assert lo < log10.min() and hi > log10.max() and hi - lo < 2 * np.ptp(log10)
    notes = [a.text for a in figure.layout.annotations]
    assert "← 1 LR beyond the axis" in notes and "2 LRs beyond the axis →" in notes
    plain = tippett_figure(lc.Trials(tar, non))
    assert not any("beyond" in a.text for a in plain.layout.annotations)


def test_ece_axis_is_fenced_and_says_what_lies_above():
    tar, non = ordinary()
    figure = ece_figure(lc.Trials(np.append(tar, -FAR), np.append(non, FAR), name="far"))
    assert figure.layout.yaxis.range[1] < 2  # the neutral reference (1 bit) and the PAV curve, not 1e305
    assert any("above the axis:<br>far up to" in a.text and "e+305 bits" in a.text for a in figure.layout.annotations)
    assert not any("above" in a.text for a in ece_figure(lc.Trials(tar, non)).layout.annotations)


# ----- 5. text numbers right-aligned ----------------------------------------------------------------------------------


def test_metrics_table_text_numbers_are_right_aligned():
    from app_pages._tables import fitting_numbers, metric_columns

    table = pd.DataFrame({"system": ["a", "b"], "Cllr": [0.25, 2.3885679484916614e305], "minCllr": [0.2, 0.3]})
    shown = fitting_numbers(table)
    assert shown["Cllr"].tolist() == ["0.2500", "2.39e+305"]
    config = metric_columns(shown, "SRE12")
    assert config["Cllr"]["alignment"] == "right" and config["Cllr"]["type_config"]["type"] == "text"
    assert config["minCllr"]["type_config"]["type"] == "number"
