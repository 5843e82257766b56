"""The report: its numbers are Bayes error rates counted independently, its HTML is self-contained and escaped.

References are computed here by brute force from the raw scores (count the errors at a threshold; scan every
threshold for the minimum), never by the code under test.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pytest

import llrcore as lc
from llrcore.report import VERDICTS, format_errors

LOGIT_001 = np.log(0.01 / 0.99)


def bayes_error_by_counting(tar, non, plo):
    """Pe = P * share of targets below -plo + (1 - P) * share of non-targets at or above -plo."""
    p = 1 / (1 + np.exp(-plo))
    return p * np.mean(tar < -plo) + (1 - p) * np.mean(non >= -plo)


def min_bayes_error_by_scanning(tar, non, plo):
    """Minimum over every threshold (each unique score, and above all of them) of P Pmiss + (1 - P) Pfa."""
    p = 1 / (1 + np.exp(-plo))
    thresholds = np.append(np.unique(np.concatenate([tar, non])), np.inf)
    below_tar = np.searchsorted(np.sort(tar), thresholds, side="left")  # targets < t
    below_non = np.searchsorted(np.sort(non), thresholds, side="left")  # non-targets < t
    return float(np.min(p * below_tar / tar.size + (1 - p) * (1 - below_non / non.size)))


def gaussian_llrs(mu=3.0, n_tar=400, n_non=4000, seed=0):
    """Calibrated Gaussian LLRs: means +-mu, variance 2 mu (their LLRs are exactly LLRs)."""
    rng = np.random.default_rng(seed)
    sd = np.sqrt(2 * mu)
    return rng.normal(mu, sd, n_tar), rng.normal(-mu, sd, n_non)


@pytest.fixture(scope="module")
def asv_eval(asvspoof_eval):
    return lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"], name="ASV eval",
                     spoof=asvspoof_eval["spoof"])


@pytest.fixture(scope="module")
def asv_dev(asvspoof_dev):
    return lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"], name="ASV dev")


@pytest.fixture(scope="module")
def asv_report(asv_eval, asv_dev):
    return lc.build_report({"ASV eval": asv_eval}, p_target=0.01, calibrate_on=asv_dev,
                           sources={"ASV eval": "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"})


def test_out_of_100_numbers_are_100_times_the_bayes_error_rates(asv_report, asv_eval):
    (summary,) = asv_report.summaries
    tar, non = asv_eval.tar, asv_eval.non
    assert summary.errors_per_100 == pytest.approx(100 * bayes_error_by_counting(tar, non, LOGIT_001), rel=1e-12)
    assert summary.min_errors_per_100 == pytest.approx(100 * min_bayes_error_by_scanning(tar, non, LOGIT_001),
                                                       rel=1e-12)
    assert summary.default_errors_per_100 == pytest.approx(1.0, rel=1e-12)  # min(P, 1 - P) = 1 %
    library = lc.bayes_error_rates(asv_eval, plo=[LOGIT_001])
    assert summary.errors_per_100 == 100 * library.actual[0]
    assert summary.min_errors_per_100 == 100 * library.minimum[0]
    # and the sentence says them
    sentence = summary.text("errors")
    for value in (summary.errors_per_100, summary.min_errors_per_100, 1.0):
        assert f"about {format_errors(value)}" in sentence or f", {format_errors(value)}." in sentence
    assert format_errors(summary.errors_per_100) == "0.36"  # 0.3646 per 100 on this set


def test_calibration_on_a_development_set_counts_the_errors_of_the_calibrated_llrs(asv_report, asv_eval, asv_dev):
    (summary,) = asv_report.summaries
    # prior-weighted logistic regression at the operating prior, reference: sklearn with sample weights
    sklearn = pytest.importorskip("sklearn.linear_model")
    x = np.concatenate([asv_dev.tar, asv_dev.non])[:, None]
    y = np.concatenate([np.ones(asv_dev.tar.size), np.zeros(asv_dev.non.size)])
    p = 0.01
    weights = np.concatenate([np.full(asv_dev.tar.size, p / asv_dev.tar.size),
                              np.full(asv_dev.non.size, (1 - p) / asv_dev.non.size)])
    model = sklearn.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x, y, sample_weight=weights)
    scale, offset = model.coef_[0, 0], model.intercept_[0] - LOGIT_001
    tar, non = scale * asv_eval.tar + offset, scale * asv_eval.non + offset
    calibration = summary.calibration
    assert not calibration.cross_validated and "ASV dev" in calibration.trained_on
    assert calibration.errors_per_100 == pytest.approx(100 * bayes_error_by_counting(tar, non, LOGIT_001), abs=1e-3)
    assert calibration.metrics.cllr == pytest.approx(lc.cllr(tar, non), rel=1e-5)
    assert calibration.calibrated.spoof.size == asv_eval.spoof.size
    assert f"about {format_errors(calibration.errors_per_100)} errors" in summary.text("calibration")


def test_cross_validated_calibration_when_no_development_set_is_given():
    tar, non = gaussian_llrs(seed=3)
    trials = lc.Trials(3 * tar, 3 * non, name="too sure")
    report = lc.build_report(trials, p_target=0.05)
    (summary,) = report.summaries
    expected_tar, expected_non = lc.cross_calibrate(trials.tar, trials.non, lc.fit_affine, folds=5, seed=0,
                                                    plo=np.log(0.05 / 0.95))
    np.testing.assert_array_equal(np.sort(summary.calibration.calibrated.tar), np.sort(expected_tar))
    assert summary.calibration.cross_validated and "cross-validation" in summary.text("calibration")
    assert summary.calibration.errors_per_100 == pytest.approx(
        100 * bayes_error_by_counting(expected_tar, expected_non, np.log(0.05 / 0.95)), rel=1e-12)


def test_costs_count_errors_at_the_effective_prior(asv_eval):
    report = lc.build_report(asv_eval, p_target=lc.OperatingPoint(0.01, c_miss=10), calibrate=False)
    (summary,) = report.summaries
    plo_eff = LOGIT_001 + np.log(10)
    assert report.p_eff == pytest.approx(1 / (1 + np.exp(-plo_eff)))
    assert summary.errors_per_100 == pytest.approx(100 * bayes_error_by_counting(asv_eval.tar, asv_eval.non, plo_eff),
                                                   rel=1e-12)
    assert "a miss costing 10 times a false alarm" in summary.text("errors")
    assert summary.calibration is None and not summary.text("calibration")


def test_an_operating_point_gives_the_report_of_its_loose_values(asv_eval):
    """``build_report(p_target=op)`` is ``build_report(p_target=..., c_miss=..., c_fa=...)``: the same numbers and
    words (as the metrics take them, issue 42)."""
    op = lc.OperatingPoint(0.01, c_miss=10)
    loose = lc.build_report(asv_eval, p_target=0.01, c_miss=10, c_fa=1)
    given = lc.build_report(asv_eval, p_target=op)
    assert given.operating_point == op == loose.operating_point
    assert (given.p_target, given.c_miss, given.c_fa) == (0.01, 10, 1)
    assert given.summary_text() == loose.summary_text()
    assert given.metrics_table().equals(loose.metrics_table())
    with pytest.raises(ValueError, match="not both"):
        lc.build_report(asv_eval, p_target=op, c_miss=2)
    # the default is P_target = 0.01 with unit costs, also when only the costs are given
    assert lc.build_report(asv_eval, calibrate=False).operating_point == lc.OperatingPoint(0.01)
    assert lc.build_report(asv_eval, c_miss=10, calibrate=False).operating_point == op


@pytest.mark.parametrize(
    "scale, shift, verdict, words",
    [
        (1.0, 0.0, VERDICTS[0], "can be read as likelihood ratios"),
        (3.0, 0.0, VERDICTS[1], "too extreme"),
        (0.3, 0.0, VERDICTS[1], "too cautious"),
        (1.0, -3.0, VERDICTS[1], "lean towards “non-target”"),
        (1.0, 40.0, VERDICTS[2], "less information than no system"),
    ],
)
def test_trust_in_words(scale, shift, verdict, words):
    tar, non = gaussian_llrs(mu=4.0, n_tar=2000, n_non=20000, seed=1)
    report = lc.build_report(lc.Trials(scale * tar + shift, scale * non + shift, name="g"), calibrate=False)
    (summary,) = report.summaries
    assert summary.verdict == verdict
    assert words in summary.text("trust")


def test_metrics_table_has_the_library_numbers(asv_report, asv_eval):
    table = asv_report.metrics_table()
    assert list(table.index) == ["ASV eval", "ASV eval (calibrated)"]
    row = table.loc["ASV eval"]
    assert row["EER"] == lc.eer(asv_eval) and row["actDCF"] == lc.act_dcf(asv_eval, p_target=0.01)
    assert row["Cllr"] == lc.cllr(asv_eval) and row["targets"] == 5370
    assert row["errors per 100"] == asv_report.summaries[0].errors_per_100


def test_a_calibration_that_cannot_be_trained_is_explained_not_raised():
    separated = lc.Trials([5.0, 6.0, 7.0], [-1.0, 0.0, 1.0], name="dev")
    report = lc.build_report(lc.Trials(*gaussian_llrs(), name="eval"), calibrate_on=separated)
    (summary,) = report.summaries
    assert summary.calibration is None
    assert summary.text("calibration").startswith("Calibration could not be trained: ")


def test_bad_choices_are_sentences():
    trials = lc.Trials(*gaussian_llrs())
    with pytest.raises(ValueError, match="calibration method"):
        lc.build_report(trials, method="isotonic")
    with pytest.raises(ValueError, match="No development set is given for the system 'b'"):
        lc.build_report({"a": trials, "b": trials}, calibrate_on={"a": trials})


class _Collector(HTMLParser):
    """Text, script elements and external references of an HTML page."""

    def __init__(self):
        super().__init__()
        self.scripts, self.external, self.text, self._in_script = 0, [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            self.scripts += 1
            self._in_script = True
        for name in ("src", "href"):
            if attrs.get(name) and not attrs[name].startswith(("#", "data:")):
                self.external.append(attrs[name])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if not self._in_script:
            self.text.append(data)


INJECTED = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture(scope="module")
def hostile_html():
    tar, non = gaussian_llrs()
    report = lc.build_report({f"sys {INJECTED}": lc.Trials(tar, non)}, sources={f"sys {INJECTED}": f"f{INJECTED}.txt"},
                             class_names=(f"same {INJECTED}", "different"), title=f"T {INJECTED}")
    return report, report.to_html()


def test_user_strings_are_escaped_everywhere(hostile_html):
    report, page = hostile_html
    assert INJECTED not in page and "<img src=x" not in page
    assert html_escaped(INJECTED) in page
    parser = _Collector()
    parser.feed(page)
    text = "".join(parser.text)
    assert f"sys {INJECTED}" in text and f"same {INJECTED}" in text  # shown literally, as the user wrote it
    markdown = report.summary_markdown()
    assert not re.search(r"(?<!\\)[<>\[\]*_`]", markdown.replace("**", ""))  # every special character escaped


def html_escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def test_html_is_self_contained_with_plotly_once(hostile_html):
    _, page = hostile_html
    parser = _Collector()
    parser.feed(page)
    assert parser.external == []  # no src/href to anything but the page itself
    assert "Content-Security-Policy" in page and "connect-src 'none'" in page
    assert page.count("Licensed under the MIT license") <= 2 and page.count("plotly.js v") >= 1
    assert len(re.findall(r'<div id="plot-[a-z_]+" class="plotly-graph-div"', page)) == 5
    assert parser.scripts == 1 + 5  # plotly.js, then one small script per figure


def test_html_states_version_date_and_settings(asv_report):
    page = asv_report.to_html()
    assert f"llrcore {lc.__version__}" in page
    assert asv_report.created.strftime("%Y-%m-%d") in page
    for setting in ("P_target", "effective prior log-odds", "calibration trained on", "ROCCH-EER"):
        assert setting in page
    assert "errors out of 100 trials at your prior" in page
    assert page.count('<article class="system"') == 1


def test_report_figures_follow_the_order_of_the_issue(asv_report):
    assert list(asv_report.figures) == ["det", "bayes_error", "ape", "calibration", "scores"]
    for item in asv_report.figures.values():
        assert item.caption.count(". ") + item.caption.count(": ") >= 1 and item.title.endswith("?")
    names = {trace.name for trace in asv_report.figures["ape"].figure.data if trace.name}
    assert any(name.startswith("ASV eval (calibrated)") for name in names)
