"""Conditions and confidence in the HTML report (``build_report(by=, ci=, bootstrap=, group_by=, seed=)``) and from
``llrcore report --by --ci --bootstrap --group-by --seed --metadata``.

Independent references:
- the per-condition numbers in the HTML tables equal ``lc.evaluate`` of subsets selected with pandas from the demo
  file (assets/asvspoof2019_la_cm: the bona fide trials against one attack's spoofs, as ASVspoof's per-attack tables
  are made), and the conditions flagged by the rule of 30 are those whose EER times their numbers of trials, computed
  from the same subsets, is below 30;
- the intervals in words and in the tables contain the numbers of ``lc.bootstrap`` with the same seed, run on the
  pandas subsets (a trial-by-trial replicate draws from the sorted scores, so the order of the trials does not
  matter); the errors per 100 are checked to be ``100 min(P, 1 - P)`` times the actual DCF by counting the errors
  directly, so that their interval is that of the actual DCF, scaled;
- whole-group resampling is checked against ``lc.bootstrap(group_by=...)`` on synthetic speakers;
- a report without the new options is the report it was (no section, no interval, the same five figures).
"""
from __future__ import annotations

import html
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from paths import ROOT

CM_EVAL = ROOT / "assets" / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.eval.scores.tsv.gz"
SYSTEMS = ("LFCC-GMM", "RawNet2-a")
ATTACKS = [f"A{i:02d}" for i in range(7, 20)]
P_TARGET = 0.01
SEED, REPLICATES = 5, 200


class Tables(HTMLParser):
    """The tables of a page: per table, the ``<h3>`` before it and its rows of cell texts (header row first)."""

    def __init__(self):
        super().__init__()
        self.tables, self.heading, self._text, self._in = [], "", None, None

    def handle_starttag(self, tag, attrs):
        if tag == "h3":
            self._in, self._text = "h3", []
        elif tag == "table":
            self.tables.append({"heading": self.heading, "class": dict(attrs).get("class", ""), "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._in, self._text = "cell", []

    def handle_endtag(self, tag):
        if tag == "h3" and self._in == "h3":
            self.heading, self._in = "".join(self._text), None
        elif tag in ("td", "th") and self._in == "cell":
            self.tables[-1]["rows"][-1].append("".join(self._text))
            self._in = None

    def handle_data(self, data):
        if self._in:
            self._text.append(data)


def tables_of(page: str, css_class: str) -> dict[str, pd.DataFrame]:
    """heading -> table (cells as text, first column as index) of every table with this class."""
    parser = Tables()
    parser.feed(page)
    out = {}
    for table in parser.tables:
        if table["class"] == css_class:
            head, *rows = table["rows"]
            out[table["heading"]] = pd.DataFrame(rows, columns=head).set_index(head[0])
    return out


def first_line(cell: str) -> str:
    return cell.split("\n")[0]


@pytest.fixture(scope="module")
def raw() -> pd.DataFrame:
    return pd.read_csv(CM_EVAL, sep="\t")


@pytest.fixture(scope="module")
def systems() -> dict[str, lc.Trials]:
    loaded = lc.read_trials(CM_EVAL)
    return {name: loaded[name] for name in SYSTEMS}


def subset(raw: pd.DataFrame, system: str, attack: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Bona fide scores and the spoofs of one attack (all spoofs for None), selected with pandas."""
    spoof = raw.key == "spoof" if attack is None else raw.attack == attack
    return raw.loc[raw.key == "bonafide", system].to_numpy(), raw.loc[spoof, system].to_numpy()


@pytest.fixture(scope="module")
def report(systems) -> lc.Report:
    return lc.build_report(systems, p_target=P_TARGET, calibrate=False, by="attack", ci=0.95,
                           bootstrap=REPLICATES, seed=SEED)


@pytest.fixture(scope="module")
def page(report) -> str:
    return report.to_html()


def test_per_attack_tables_equal_the_metrics_of_pandas_subsets(page, raw):
    tables = tables_of(page, "conditions")
    assert list(tables) == list(SYSTEMS)
    for system in SYSTEMS:
        table = tables[system]
        assert table.index.name == "attack" and list(table.index) == [*ATTACKS, "pooled"]
        for attack in ("A07", "A10", "A17", None):
            tar, non = subset(raw, system, attack)
            expected = lc.evaluate(tar, non, p_target=P_TARGET)
            row = table.loc[attack or "pooled"]
            assert row["targets"] == f"{tar.size:,}" and row["non-targets"] == f"{non.size:,}"
            assert first_line(row["EER %"]) == f"{100 * expected.eer:.2f}"
            for column, value in (("minDCF", expected.min_dcf), ("actDCF", expected.act_dcf),
                                  ("Cllr", expected.cllr), ("minCllr", expected.min_cllr)):
                assert first_line(row[column]) == f"{value:.4f}", (system, attack, column)


def test_per_attack_intervals_are_those_of_lc_bootstrap_on_the_subsets(page, raw):
    table = tables_of(page, "conditions")["RawNet2-a"]
    for attack in ("A08", "A17"):
        interval = lc.bootstrap(lc.Trials(*subset(raw, "RawNet2-a", attack)), n=REPLICATES, seed=SEED,
                                p_target=P_TARGET)
        low, high = interval.interval("eer")
        assert table.loc[attack, "EER %"].split("\n")[1] == f"[{100 * low:.2f}, {100 * high:.2f}]"
        low, high = interval.interval("cllr")
        assert table.loc[attack, "Cllr"].split("\n")[1] == f"[{low:.4f}, {high:.4f}]"


def test_intervals_in_words_hold_the_numbers_of_lc_bootstrap_with_the_same_seed(report, page, systems):
    summary = report.summaries[1]  # RawNet2-a: about 3.7 errors per 100
    interval = lc.bootstrap(systems["RawNet2-a"], n=REPLICATES, level=0.95, seed=SEED, p_target=P_TARGET)
    # errors per 100, counted directly, are 100 min(P, 1-P) actDCF: the errors' interval is actDCF's, scaled
    trials, plo = systems["RawNet2-a"], np.log(P_TARGET / (1 - P_TARGET))
    counted = 100 * (P_TARGET * np.mean(trials.tar < -plo) + (1 - P_TARGET) * np.mean(trials.non >= -plo))
    assert counted == pytest.approx(100 * P_TARGET * summary.metrics.act_dcf, rel=1e-12)
    low, high = (100 * P_TARGET * x for x in interval.interval("act_dcf"))
    words = summary.text("errors")
    assert (f"this system makes about {counted:.1f} errors, very likely between {low:.1f} and {high:.1f} "
            "(95 % BCa bootstrap interval)") in words
    low, high = interval.interval("eer")
    sure = summary.text("sure")
    assert f"Its equal error rate is {100 * summary.metrics.eer:.2f} %, very likely between {100 * low:.2f} % and " \
           f"{100 * high:.2f} %" in sure
    low, high = interval.interval("cllr")
    assert f"very likely between {low:.3f} and {high:.3f}" in sure
    assert f"95 % BCa bootstrap intervals from {REPLICATES} resamplings of the trials, drawn one by one" in sure
    assert html.escape(words) in page.replace("<strong>", "").replace("</strong>", "")
    # and in the table of all metrics, the calibrated rows having none
    metrics = next(iter(tables_of(page, "metrics").values()))
    low, high = interval.interval("eer")
    assert metrics.loc["RawNet2-a", "EER %"] == f"{100 * interval.estimate.eer:.2f}\n[{100 * low:.2f}, {100 * high:.2f}]"
    assert "very likely between" in report.summary_markdown()


def test_conditions_with_few_errors_get_their_sentence(report, page, raw):
    for position, system in enumerate(SYSTEMS):
        flagged = []
        for attack in ATTACKS:
            tar, non = subset(raw, system, attack)
            eer = lc.eer(tar, non)
            if min(eer * tar.size, eer * non.size) < 30:
                flagged.append(f"attack={attack}")
        assert flagged  # the demo has some
        listed = ", ".join(flagged[:-1]) + f" and {flagged[-1]}" if len(flagged) > 1 else flagged[0]
        sentence = (f"By the rule of 30, the error rates of {listed} are not known to within ±30 %: "
                    f"{'each has' if len(flagged) > 1 else 'it has'} fewer than 30 misses or false alarms at its EER.")
        assert f'<p class="note">{html.escape(sentence)}</p>' in page
        assert sentence in report.summaries[position].text("conditions")
        table = tables_of(page, "conditions")[system]
        assert [a for a in ATTACKS if table.loc[a, "too few errors"] == "yes"] == [f[7:] for f in flagged]


def test_one_class_conditions_and_condition_values_are_said_and_escaped():
    rng = np.random.default_rng(3)
    tar, non = rng.normal(2, 1.5, 300), rng.normal(-2, 1.5, 900)
    hostile = '<img src=x onerror="alert(1)">'
    tar_room, non_room = np.array([hostile, "lab"] * 150, dtype=object), np.array([hostile, "lab"] * 450, dtype=object)
    tar_room[:40] = "only-targets"  # targets only: no metric
    room = np.concatenate([tar_room, non_room])
    trials = lc.Trials(tar, non, metadata=pd.DataFrame({"room": room}))
    report = lc.build_report({"sys <b>": trials}, calibrate=False, by="room")
    page = report.to_html()
    assert hostile not in page and html.escape(hostile) in page
    assert html.escape("No metric for room=only-targets: only one class of trials.") in page
    table = tables_of(page, "conditions")["sys <b>"]
    assert table.loc["only-targets", "too few errors"] == "one class only"
    assert table.loc["only-targets", "EER %"] == "—"
    subset_eer = lc.eer(tar[tar_room == "lab"], non[non_room == "lab"])
    assert table.loc["lab", "EER %"] == f"{100 * subset_eer:.2f}"
    assert "very likely" not in page  # no intervals were asked for
    assert "figure-conditions" in page and "bootstrap intervals" not in report.figures["conditions"].caption


def speakers(seed: int, with_column: bool) -> lc.Trials:
    """Trials of 40 speakers, each with a shared offset: trials of one speaker are not independent."""
    rng = np.random.default_rng(seed)
    tar_speaker, non_speaker = rng.integers(0, 40, 800), rng.integers(0, 40, 3000)
    offset = rng.normal(0, 1.0, 40)
    tar = rng.normal(2, 1.5, 800) + offset[tar_speaker]
    non = rng.normal(-2, 1.5, 3000) + offset[non_speaker]
    metadata = pd.DataFrame({"speaker": [f"s{i}" for i in np.concatenate([tar_speaker, non_speaker])]})
    return lc.Trials(tar, non, metadata=metadata if with_column else None)


def test_whole_groups_are_drawn_where_a_system_has_the_column_and_said_where_not():
    systems = {"grouped": speakers(1, True), "plain": speakers(2, False)}
    report = lc.build_report(systems, calibrate=False, ci=0.9, bootstrap=100, group_by="speaker", seed=1)
    expected = lc.bootstrap(systems["grouped"], n=100, level=0.9, group_by="speaker", seed=1, p_target=0.01)
    low, high = expected.interval("eer")
    grouped = report.summaries[0].text("sure")
    assert f"likely between {100 * low:.1f} % and {100 * high:.1f} %" in grouped  # 12.8 %: three digits
    assert "drawn whole speaker groups (40 of them)" in grouped and "very likely" not in grouped
    plain = report.summaries[1].text("sure")
    assert "drawn one by one" in plain and "Its trials have no column “speaker”" in plain
    assert report.settings["confidence intervals"] == ("90 % BCa bootstrap, 100 replicates, whole speaker "
                                                        "groups drawn (one by one for plain: no column 'speaker'), "
                                                        "seed 1")
    assert "ci=0.9, bootstrap=100, group_by='speaker', seed=1)" in report.settings["in Python"]


def test_without_the_new_options_the_report_is_the_report_it_was(systems):
    report = lc.build_report(systems, calibrate=False)
    page = report.to_html()
    assert list(report.figures) == ["det", "bayes_error", "ape", "calibration", "scores"]
    assert 'id="conditions"' not in page and "likely between" not in page
    assert not any(trace.name and "band" in trace.name for trace in report.figures["det"].figure.data)
    assert "confidence intervals" not in report.settings and "broken down by" not in report.settings
    assert all(set(s.paragraphs) == {"tested", "errors", "trust"} for s in report.summaries)
    assert not any(c.endswith((" lower", " upper")) for c in report.metrics_table().columns)


def test_figures_have_bands_and_a_titled_condition_figure(report):
    det = report.figures["det"].figure
    assert [t.name for t in det.data if t.name and "band" in t.name] == [f"{s}: 95 % band" for s in SYSTEMS]
    assert "95 % bootstrap band" in report.figures["det"].caption
    conditions = report.figures["conditions"].figure
    assert conditions.layout.title.text == "EER per attack"
    assert conditions.layout.xaxis.title.text == "attack" and conditions.layout.yaxis.title.text == "EER (%)"
    assert all(trace.error_y.array is not None for trace in conditions.data)


def test_progress_counts_every_replicate_and_a_missing_column_is_an_error(systems):
    calls = []
    lc.build_report(systems, calibrate=False, by="attack", ci=0.95, bootstrap=10,
                    progress=lambda done, total: calls.append((done, total)))
    total = 10 * 2 * (len(ATTACKS) + 1)
    assert calls[-1] == (total, total) and len(calls) == total
    with pytest.raises(ValueError, match="No system has the column 'gender' to break down by; their columns are "
                                         "utt, attack"):
        lc.build_report(systems, calibrate=False, by="gender")


# ----- the command line ---------------------------------------------------------------------------------------------


def test_llrcore_report_by_attack_with_intervals(tmp_path, capsys, raw):
    out = tmp_path / "cm report.html"
    assert main(["report", str(CM_EVAL), "-o", str(out), "--by", "attack", "--ci", "0.9", "--bootstrap", "40",
                 "--seed", "2", "--no-calibration"]) == 0
    printed = capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    tables = tables_of(page, "conditions")
    assert list(tables) == ["LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c"]
    tar, non = subset(raw, "RawNet2-b", "A17")
    assert first_line(tables["RawNet2-b"].loc["A17", "EER %"]) == f"{100 * lc.eer(tar, non):.2f}"
    interval = lc.bootstrap(lc.read_trials(CM_EVAL)["LFCC-GMM"], n=40, level=0.9, seed=2, p_target=0.01)
    low, high = interval.interval("eer")
    words = f"likely between {100 * low:.2f} % and {100 * high:.2f} %"
    assert words in printed and words in page
    assert "90 % BCa bootstrap intervals from 40 resamplings" in printed
    assert "By the rule of 30, the error rates of attack=" in printed
    assert "--by attack --ci 0.9 --bootstrap 40 --seed 2" in page  # how to reproduce


def test_llrcore_report_joins_metadata_and_breaks_down_by_it(tmp_path, capsys):
    rng = np.random.default_rng(11)
    labels = rng.random(600) < 0.3
    gender = np.where(rng.random(600) < 0.5, "f", "m")
    scores = np.where(labels, rng.normal(2, 1.5, 600), rng.normal(-2, 1.5, 600)) + np.where(gender == "f", 0.5, 0)
    score_file, metadata_file, out = tmp_path / "scores.txt", tmp_path / "conditions.csv", tmp_path / "r.html"
    score_file.write_text("".join(f"{s:.6f} {'target' if t else 'nontarget'}\n" for s, t in zip(scores, labels)))
    pd.DataFrame({"gender": gender}).to_csv(metadata_file, index=False)
    assert main(["report", str(score_file), "-o", str(out), "--metadata", str(metadata_file), "--by", "gender",
                 "--no-calibration"]) == 0
    table = tables_of(out.read_text(encoding="utf-8"), "conditions")["scores"]
    for value in ("f", "m"):
        mask = gender == value
        eer = lc.eer(scores[mask & labels], scores[mask & ~labels])
        assert table.loc[value, "EER %"] == f"{100 * eer:.2f}"
    assert "Broken down by gender into 2 conditions" in capsys.readouterr().out
    assert main(["report", str(score_file), "-o", str(out), "--by", "gender"]) == 2
    assert "No system has the column 'gender'" in capsys.readouterr().err
