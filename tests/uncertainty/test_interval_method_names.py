"""Every bootstrap interval names its method (BCa or percentile) in tables, figures, the report and the command line,
and ``method="percentile"`` is passed through the condition, tandem and attack bootstraps.

Independent references: ``numpy.percentile`` (linear interpolation) and ``numpy.nanpercentile`` of the replicates for
``method="percentile"``; the method's name written out by hand ("95 % BCa", "95 % percentile").
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from llrcore.plots.spoofing import attack_bars_figure
from llrcore.plots.uncertainty import condition_figure
from paths import ROOT
from synthetic import ordinary

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
METRICS = {"eer": "EER", "cllr": "Cllr", "act_dcf": "actDCF", "min_cllr": "minCllr"}


@pytest.fixture(scope="module")
def trials():
    tar, non = ordinary()
    return lc.Trials(tar, non, name="A")


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
