"""``lc.evaluate_tandem``: a countermeasure (CM) in front of a speaker verifier (ASV), pooled and per attack, on the
real ASVspoof 2019 LA evaluation scores.

Independent references:

1. The per-attack subsets are built here by hand from the raw files read with plain pandas (the CM's tsv.gz with
   its ``key`` and ``attack`` columns; the organisers' ASV text file, ``<bonafide|attack> <target|nontarget|spoof>
   <score>``), never through ``evaluate_tandem`` or ``read_trials``: the per-attack min t-DCF must equal
   ``lc.tdcf`` (tested on its own in test_tdcf.py) on those subsets with the pooled ASV threshold.
2. EERs against scikit-learn: ``sklearn.metrics.roc_curve`` gives every ROC point; its convex hull is taken here
   (a monotone-chain upper hull in plain Python) and the EER is where the hull crosses ``Pmiss = Pfa``, exactly:
   the ROCCH-EER that llrcore reports. (sklearn's ROC points with the EER read off the ROC itself, as the
   organisers' ``compute_eer`` does, is a different definition: it differs on non-convex ROCs, e.g. the pooled
   SPF-EER, 42.86 % by ROCCH against 45.89 %.) Both the CM EER (bona fide vs one attack) and the SPF-EER (ASV
   targets vs one attack) are checked this way for every attack and pooled.
3. The ASV's spoof false-alarm rate is counted trial by trial: ``(spoof >= threshold).mean()``.
4. The pooled min t-DCF equals the values known for these four CMs (legacy / revised): LFCC-GMM 0.0934 / 0.1503,
   RawNet2-a 0.1125 / 0.1682, b 0.1059 / 0.1620, c 0.1205 / 0.1756.
5. Refusals are sentences (``ValueError``).
6. Intervals per attack (``lc.bootstrap_tandem``): ``lc.bootstrap_tdcf`` (tested on its own against ``lc.tdcf`` on the
   drawn trials, test_tandem_bootstrap.py) run directly on each attack's trials made here with pandas from the raw
   files, with the same seed: every row's replicates, hence its interval, to the last bit; the CM EER's interval
   likewise against ``lc.bootstrap`` on the raw bona fide and spoof scores; the error bars against those intervals.
"""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_curve

import llrcore as lc
from paths import ROOT

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
ASV_DEV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
CM_DEV = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.dev.scores.tsv.gz"
ATTACKS = [f"A{i:02d}" for i in range(7, 20)]
KNOWN = {"LFCC-GMM": (0.0934, 0.1503), "RawNet2-a": (0.1125, 0.1682), "RawNet2-b": (0.1059, 0.1620),
         "RawNet2-c": (0.1205, 0.1756)}


@pytest.fixture(scope="module")
def raw_cm():
    return pd.read_csv(CM, sep="\t")


@pytest.fixture(scope="module")
def raw_asv():
    return pd.read_csv(ASV, sep=r"\s+", header=None, names=["attack", "kind", "score"])


@pytest.fixture(scope="module")
def asv():
    return lc.read_trials(ASV)


@pytest.fixture(scope="module")
def cm():
    return lc.read_trials(CM)  # a dict: the four CM systems


@pytest.fixture(scope="module")
def lfcc(cm, asv):
    return {formulation: lc.evaluate_tandem(cm["LFCC-GMM"], asv, formulation=formulation)
            for formulation in ("revised", "legacy")}


def rocch_eer(positive, negative) -> float:
    """ROCCH-EER from scikit-learn's ROC points: the upper convex hull, crossed with Pmiss = Pfa."""
    labels = np.r_[np.ones(len(positive)), np.zeros(len(negative))]
    fpr, tpr, _ = roc_curve(labels, np.r_[positive, negative], drop_intermediate=False)
    points = sorted(set(zip(fpr.tolist(), tpr.tolist())) | {(0.0, 0.0), (1.0, 1.0)})
    hull = []
    for point in points:  # upper hull, left to right
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (point[1] - y1) - (y2 - y1) * (point[0] - x1) >= 0:
                hull.pop()
            else:
                break
        hull.append(point)
    for (x1, y1), (x2, y2) in zip(hull, hull[1:]):
        g1, g2 = x1 - (1 - y1), x2 - (1 - y2)  # Pfa - Pmiss rises along the hull
        if g1 <= 0 <= g2:
            t = 0.0 if g2 == g1 else -g1 / (g2 - g1)
            return x1 + t * (x2 - x1)
    raise AssertionError("the hull never crosses the diagonal")


def test_per_attack_min_tdcf_is_lc_tdcf_on_hand_made_subsets(raw_cm, raw_asv, lfcc):
    tar = raw_asv.loc[raw_asv.kind == "target", "score"].to_numpy()
    non = raw_asv.loc[raw_asv.kind == "nontarget", "score"].to_numpy()
    threshold = lc.asv_eer_threshold(tar, non)
    bonafide = raw_cm.loc[raw_cm.key == "bonafide", "LFCC-GMM"].to_numpy()
    for formulation, result in lfcc.items():
        table = result.to_frame().set_index("attack")
        assert list(table.index) == [*ATTACKS, "pooled"]
        assert result.asv_threshold == threshold
        for attack in ATTACKS:
            spoof_cm = raw_cm.loc[(raw_cm.key == "spoof") & (raw_cm.attack == attack), "LFCC-GMM"].to_numpy()
            spoof_asv = raw_asv.loc[(raw_asv.kind == "spoof") & (raw_asv.attack == attack), "score"].to_numpy()
            expected = lc.tdcf(bonafide, spoof_cm, tar, non, spoof_asv, formulation=formulation,
                               asv_threshold=threshold)
            assert table.loc[attack, "min t-DCF"] == pytest.approx(expected.minimum, rel=1e-12)
            assert table.loc[attack, "CM threshold"] == expected.threshold
            assert table.loc[attack, ["bona fide", "spoof (CM)", "spoof (ASV)"]].tolist() == [
                len(bonafide), len(spoof_cm), len(spoof_asv)]


def test_eers_against_sklearn_roc_convex_hull(raw_cm, raw_asv, lfcc):
    tar = raw_asv.loc[raw_asv.kind == "target", "score"].to_numpy()
    non = raw_asv.loc[raw_asv.kind == "nontarget", "score"].to_numpy()
    bonafide = raw_cm.loc[raw_cm.key == "bonafide", "LFCC-GMM"].to_numpy()
    result = lfcc["revised"]
    table = result.to_frame(percent=False).set_index("attack")
    for attack in [*ATTACKS, "pooled"]:
        every = attack == "pooled"
        spoof_cm = raw_cm.loc[(raw_cm.key == "spoof") & (every | (raw_cm.attack == attack)), "LFCC-GMM"]
        spoof_asv = raw_asv.loc[(raw_asv.kind == "spoof") & (every | (raw_asv.attack == attack)), "score"]
        assert table.loc[attack, "CM EER"] == pytest.approx(rocch_eer(bonafide, spoof_cm), rel=1e-9, abs=1e-12)
        assert table.loc[attack, "SPF-EER"] == pytest.approx(rocch_eer(tar, spoof_asv), rel=1e-9, abs=1e-12)
    assert result.asv_eer == pytest.approx(rocch_eer(tar, non), rel=1e-9)
    assert result.spf_eer == pytest.approx(0.4286, abs=5e-5)  # tdcf.py's docstring: 42.86 % by ROCCH


def test_spoof_false_alarm_rate_is_a_direct_count(raw_asv, lfcc):
    result = lfcc["revised"]
    table = result.to_frame(percent=False).set_index("attack")
    spoofs = raw_asv[raw_asv.kind == "spoof"]
    for attack in ATTACKS:
        scores = spoofs.loc[spoofs.attack == attack, "score"].to_numpy()
        assert table.loc[attack, "ASV spoof FA"] == np.mean(scores >= result.asv_threshold)
    assert result.spoof_false_alarm == np.mean(spoofs.score.to_numpy() >= result.asv_threshold)
    assert result.spoof_false_alarm == pytest.approx(result.tdcf.pfa_spoof_asv, rel=1e-15)


def test_rule_of_30_flag_counts_cm_errors_at_the_eer(lfcc):
    table = lfcc["revised"].to_frame(percent=False).set_index("attack")
    errors = np.minimum(table["CM EER"] * table["bona fide"], table["CM EER"] * table["spoof (CM)"])
    assert (table["too few errors"] == (errors < 30)).all()
    assert table.loc["A09", "too few errors"] and not table.loc["A17", "too few errors"]
    assert any("rule of 30" in note and "A09" in note for note in lfcc["revised"].notes())


@pytest.mark.parametrize("system", list(KNOWN))
def test_pooled_min_tdcf_equals_the_known_values(cm, asv, system):
    for formulation, known in zip(("legacy", "revised"), KNOWN[system]):
        result = lc.evaluate_tandem(cm[system], asv, formulation=formulation, by=None)
        assert round(result.min_tdcf, 4) == known
        assert result.attacks == ()
        assert result.min_tdcf == lc.tdcf(cm[system].tar, cm[system].non, asv.tar, asv.non, asv.spoof,
                                          formulation=formulation).minimum


def test_summary_and_table_of_systems(cm, asv):
    results = {name: lc.evaluate_tandem(trials, asv, by=None) for name, trials in cm.items()}
    table = lc.tandem_table(results).set_index("system")
    assert list(table.index) == list(KNOWN)
    assert table.loc["LFCC-GMM", "min t-DCF"] == results["LFCC-GMM"].min_tdcf
    assert table.loc["RawNet2-a", "CM EER %"] == 100 * lc.eer(cm["RawNet2-a"])
    assert table["ASV EER %"].nunique() == 1 and table["SPF-EER %"].nunique() == 1


def test_custom_cost_model_and_threshold_reach_every_row(cm, asv):
    model = {**lc.tdcf_cost_model(), "Pspoof": 0.1, "Ptar": 0.9 * 0.99, "Pnon": 0.9 * 0.01}
    result = lc.evaluate_tandem(cm["LFCC-GMM"], asv, cost_model=model, asv_threshold=0.0)
    spoof = asv.spoof[asv.metadata["attack"].to_numpy()[-asv.spoof.size:] == "A17"]
    a17 = next(row for row in result.attacks if row.attack == "A17")
    expected = lc.tdcf(cm["LFCC-GMM"].where(attack="A17").tar, cm["LFCC-GMM"].where(attack="A17").non, asv.tar,
                       asv.non, spoof, cost_model=model, asv_threshold=0.0)
    assert a17.min_tdcf == expected.minimum and a17.tdcf.asv_threshold == 0.0
    assert a17.spoof_false_alarm == np.mean(spoof >= 0.0)


def test_an_attack_the_asv_never_accepts_has_no_legacy_tdcf():
    attack = pd.DataFrame({"attack": ["-"] * 3 + ["X1", "X1", "X2", "X2"]})
    cm = lc.Trials([3.0, 2.0, 1.0], [0.0, 1.5, -1.0, 2.5], metadata=attack)
    asv_meta = pd.DataFrame({"attack": ["bonafide"] * 5 + ["X1", "X1", "X2", "X2"]})
    asv = lc.Trials([5.0, 4.0, 3.0], [-2.0, 0.5], spoof=[-5.0, -4.0, 4.5, 3.5], metadata=asv_meta)
    result = lc.evaluate_tandem(cm, asv, formulation="legacy", asv_threshold=1.0)
    rows = {row.attack: row for row in result.rows}
    assert rows["X1"].tdcf is None and np.isnan(rows["X1"].min_tdcf) and rows["X1"].spoof_false_alarm == 0.0
    assert "cannot be normalised" in rows["X1"].problem
    assert any(note.startswith("X1: no t-DCF") for note in result.notes())
    assert rows["X2"].tdcf is not None and rows["pooled"].tdcf is not None


def test_refusals_are_sentences(cm, asv):
    cm_dev = lc.read_trials(CM_DEV)["LFCC-GMM"]
    with pytest.raises(ValueError, match=r"not of the same attacks \(the CM has A01, A02, .* and A06 and the ASV "
                                         r"does not; the ASV has A07, .* and A19 and the CM does not\)"):
        lc.evaluate_tandem(cm_dev, asv)
    with pytest.raises(ValueError, match="have no spoof trials"):
        lc.evaluate_tandem(cm["LFCC-GMM"], cm["RawNet2-a"])
    plain = lc.Trials(cm["LFCC-GMM"].tar, cm["LFCC-GMM"].non, name="plain")
    with pytest.raises(ValueError, match="The CM scores have no column 'attack'"):
        lc.evaluate_tandem(plain, asv)
    assert lc.evaluate_tandem(plain, asv, by=None).min_tdcf == pytest.approx(0.1503, abs=5e-5)
    unnamed = cm["LFCC-GMM"].metadata.assign(attack="-")
    with pytest.raises(ValueError, match="63,882 spoofed trials of the CM scores have no 'attack'"):
        lc.evaluate_tandem(lc.Trials(plain.tar, plain.non, metadata=unnamed), asv)
    with pytest.raises(ValueError, match="Unknown t-DCF formulation"):
        lc.evaluate_tandem(cm["LFCC-GMM"], asv, formulation="2019")
    with pytest.raises(TypeError, match="as Trials"):
        lc.evaluate_tandem(cm["LFCC-GMM"].tar, asv)


def test_dev_part_pairs_with_the_dev_asv(asv):
    cm_dev = lc.read_trials(CM_DEV)["LFCC-GMM"]
    result = lc.evaluate_tandem(cm_dev, lc.read_trials(ASV_DEV))
    assert [row.attack for row in result.attacks] == [f"A0{i}" for i in range(1, 7)]
    assert 0 <= result.min_tdcf <= 1


# --- figures: they draw the result, nothing else ----------------------------------------------------------------------

def test_tdcf_figure_marks_each_minimum_and_names_it(cm, asv):
    from llrcore.plots.spoofing import tdcf_figure

    results = {name: lc.evaluate_tandem(trials, asv, by=None) for name, trials in cm.items()}
    for x_axis in ("threshold", "miss"):
        fig = tdcf_figure(results, x_axis=x_axis)
        minima = {t.meta["system"]: t.y[0] for t in fig.data if t.meta and t.meta.get("label", "").endswith("minimum")}
        assert minima == {name: r.min_tdcf for name, r in results.items()}
        legends = [t.name for t in fig.data if t.meta and t.meta.get("label", "").endswith("t-DCF")]
        assert any("0.1503" in name for name in legends)
        assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text and fig.layout.title.text
    assert sorted(shape.y0 for shape in fig.layout.shapes) == pytest.approx([results["LFCC-GMM"].tdcf.floor, 1.0])
    legacy = {"LFCC-GMM legacy": lc.evaluate_tandem(cm["LFCC-GMM"], asv, formulation="legacy", by=None)}
    with pytest.raises(ValueError, match="mix the revised and the legacy"):
        tdcf_figure({**results, **legacy})


def test_attack_bars_draw_the_table(cm, asv, lfcc):
    from llrcore.plots.spoofing import attack_bars_figure

    results = {"LFCC-GMM": lfcc["revised"], "RawNet2-a": lc.evaluate_tandem(cm["RawNet2-a"], asv)}
    fig = attack_bars_figure(results, log_eer=True)
    bars = {t.meta["label"]: t for t in fig.data}
    table = lfcc["revised"].to_frame()
    assert list(bars["LFCC-GMM CM EER %"].x) == [*ATTACKS, "pooled"]
    np.testing.assert_array_equal(bars["LFCC-GMM CM EER %"].y, table["CM EER %"])
    np.testing.assert_array_equal(bars["RawNet2-a min t-DCF"].y, results["RawNet2-a"].to_frame()["min t-DCF"])
    assert len([t for t in fig.data if "ASV spoof FA" in t.meta["label"]]) == 1  # one ASV, one bar a row
    assert fig.layout.yaxis.type == "log"
    with pytest.raises(ValueError, match="not broken down by attack"):
        attack_bars_figure({"LFCC-GMM": lc.evaluate_tandem(cm["LFCC-GMM"], asv, by=None)})


# --- bootstrap intervals per attack ----------------------------------------------------------------------------------

def raw_rows(raw_cm, raw_asv, attack: str, system: str = "LFCC-GMM") -> tuple[lc.Trials, lc.Trials]:
    """One row's trials from the raw files: all bona fide trials with the attack's spoofs (every spoof for
    ``"pooled"``) for the CM; the ASV's targets and non-targets with its spoofs of the attack."""
    every = attack == "pooled"
    bonafide = raw_cm.loc[raw_cm.key == "bonafide", system].to_numpy()
    spoof_cm = raw_cm.loc[(raw_cm.key == "spoof") & (every | (raw_cm.attack == attack)), system].to_numpy()
    tar, non = (raw_asv.loc[raw_asv.kind == kind, "score"].to_numpy() for kind in ("target", "nontarget"))
    spoof_asv = raw_asv.loc[(raw_asv.kind == "spoof") & (every | (raw_asv.attack == attack)), "score"].to_numpy()
    return lc.Trials(bonafide, spoof_cm), lc.Trials(tar, non, spoof=spoof_asv)


@pytest.mark.parametrize("formulation", ["revised", "legacy"])
def test_each_row_interval_is_bootstrap_tdcf_on_that_rows_trials(raw_cm, raw_asv, cm, asv, formulation):
    result = lc.bootstrap_tandem(cm["LFCC-GMM"], asv, n=50, level=0.9, seed=11, formulation=formulation)
    frame = result.to_frame().set_index("attack")
    assert list(frame.index) == [*ATTACKS, "pooled"]
    for attack in [*ATTACKS, "pooled"]:
        cm_row, asv_row = raw_rows(raw_cm, raw_asv, attack)
        direct = lc.bootstrap_tdcf(cm_row, asv_row, n=50, level=0.9, seed=11, formulation=formulation)
        np.testing.assert_array_equal(result.tdcf[attack].replicates, direct.replicates)  # to the last bit
        assert result.interval(attack) == direct.interval()
        assert (frame.loc[attack, "min t-DCF lower"], frame.loc[attack, "min t-DCF upper"]) == direct.interval()
        assert result.tdcf[attack].asv_threshold == lc.asv_eer_threshold(asv_row.tar, asv_row.non)  # the pooled one
    pooled = lc.bootstrap_tdcf(cm["LFCC-GMM"], asv, n=50, level=0.9, seed=11, formulation=formulation)
    assert result.interval() == pooled.interval()  # what the page's card showed before the rows had intervals


def test_a_given_asv_threshold_is_held_in_every_row(raw_cm, raw_asv, cm, asv):
    result = lc.evaluate_tandem(cm["LFCC-GMM"], asv, asv_threshold=0.0).bootstrap(20, seed=2)
    assert {ci.asv_threshold for ci in result.tdcf.values()} == {0.0}
    cm_row, asv_row = raw_rows(raw_cm, raw_asv, "A17")
    assert result.interval("A17") == lc.bootstrap_tdcf(cm_row, asv_row, 20, seed=2, asv_threshold=0.0).interval()


def test_cm_eer_interval_is_lc_bootstrap_on_that_rows_cm_trials(raw_cm, raw_asv, cm, asv):
    seen = []
    result = lc.bootstrap_tandem(cm["RawNet2-a"], asv, n=20, seed=4, cm_eer=True,
                                 progress=lambda done, total: seen.append((done, total)))
    frame = result.to_frame().set_index("attack")
    for attack in ("A10", "A17", "pooled"):
        cm_row, _ = raw_rows(raw_cm, raw_asv, attack, "RawNet2-a")
        expected = lc.bootstrap(cm_row, 20, seed=4).interval("eer")
        assert result.interval(attack, "CM EER") == expected
        assert frame.loc[attack, ["CM EER % lower", "CM EER % upper"]].tolist() == [100 * x for x in expected]
    assert seen == [(done, 2 * 20 * 14) for done in range(1, 2 * 20 * 14 + 1)]  # every replicate of every row
    columns = list(result.to_frame(percent=False).columns)
    assert columns[columns.index("CM EER"):columns.index("CM EER") + 6] == [
        "CM EER", "CM EER lower", "CM EER upper", "min t-DCF", "min t-DCF lower", "min t-DCF upper"]
    without = lc.evaluate_tandem(cm["RawNet2-a"], asv, by=None).bootstrap(20, seed=4)
    assert "CM EER % lower" not in without.to_frame() and np.isnan(without.interval(metric="CM EER")).all()
    assert list(without.tdcf) == ["pooled"]


def test_a_row_without_a_tdcf_has_no_interval():
    attack = pd.DataFrame({"attack": ["-"] * 3 + ["X1", "X1", "X2", "X2"]})
    cm = lc.Trials([3.0, 2.0, 1.0], [0.0, 1.5, -1.0, 2.5], metadata=attack)
    asv_meta = pd.DataFrame({"attack": ["bonafide"] * 5 + ["X1", "X1", "X2", "X2"]})
    asv = lc.Trials([5.0, 4.0, 3.0], [-2.0, 0.5], spoof=[-5.0, -4.0, 4.5, 3.5], metadata=asv_meta)
    result = lc.bootstrap_tandem(cm, asv, n=30, formulation="legacy", asv_threshold=1.0)
    frame = result.to_frame().set_index("attack")
    assert result.tdcf["X1"] is None and frame.loc["X1", ["min t-DCF lower", "min t-DCF upper"]].isna().all()
    assert np.isfinite(result.interval("pooled")).all()
    with pytest.raises(KeyError, match="No row 'X3': the rows are X1, X2 and pooled"):
        result.interval("X3")
    with pytest.raises(KeyError, match="the intervals are of min t-DCF and CM EER"):
        result.interval("X2", "SPF-EER")


def test_attack_bars_draw_the_intervals_as_error_bars(cm, asv):
    from llrcore.plots.spoofing import attack_bars_figure

    results = {name: lc.evaluate_tandem(cm[name], asv) for name in ("LFCC-GMM", "RawNet2-a")}
    intervals = {"LFCC-GMM": results["LFCC-GMM"].bootstrap(20, cm_eer=True)}
    fig = attack_bars_figure(results, intervals=intervals)
    bars = {t.meta["label"]: t for t in fig.data}
    frame = intervals["LFCC-GMM"].to_frame()
    for column in ("min t-DCF", "CM EER %"):
        bar = bars[f"LFCC-GMM {column}"]
        np.testing.assert_array_equal(bar.y, frame[column])
        np.testing.assert_array_equal(bar.error_y.array, frame[f"{column} upper"] - frame[column])
        np.testing.assert_array_equal(bar.error_y.arrayminus, frame[column] - frame[f"{column} lower"])
    assert bars["RawNet2-a min t-DCF"].error_y.array is None  # no intervals asked for it
    assert "error bars: 95 % BCa bootstrap intervals" in fig.layout.title.text
    assert all(axis.title.text for axis in (fig.layout.yaxis, fig.layout.yaxis2, fig.layout.yaxis3, fig.layout.xaxis3))
    assert "error bars" not in attack_bars_figure(results).layout.title.text
