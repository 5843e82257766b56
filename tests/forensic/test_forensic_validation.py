"""The forensic validation matrix, its report and ``llrcore validate``.

Independent references: every number of the matrix is recomputed on the same LLRs with the library's own functions
called directly (``lc.cllr``, ``lc.min_cllr``, ``lc.eer``, ``lc.devpav``) and the rates of misleading evidence are
counted with numpy; the cross-validated calibrated LLRs are ``lc.cross_calibrate``'s (folds.py) with the same folds,
and the ELUB bounds of each fold are recomputed with ``lc.elub_bounds`` on the fold calibrator's training LLRs, the
calibrator fitted again with ``lc.fit_affine``; the report's HTML is read with Python's ``html.parser``. The data are
lir's cartridge-case log10 LRs (tests/data/lir_cartridge_case_llrs, Apache-2.0).
"""
from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.cli import main
from llrcore.forensic.validation import METRICS, ValidationCriteria
from llrcore.report.validation import build_validation_report, validation_paragraphs
import paths

DATA = paths.DATA / "lir_cartridge_case_llrs"


@pytest.fixture(scope="module")
def cartridge():
    return lc.Trials(lc.from_log10(np.loadtxt(DATA / "LLR_KM.csv")), lc.from_log10(np.loadtxt(DATA / "LLR_KNM.csv")),
                     name="cartridge cases")


@pytest.fixture(scope="module")
def validation(cartridge):
    return lc.validate_lr_method(cartridge)


def _direct(trials: lc.Trials) -> dict:
    tar, non = np.asarray(trials.tar), np.asarray(trials.non)
    cllr, min_cllr = lc.cllr(tar, non), lc.min_cllr(tar, non)
    return {"cllr": cllr, "min_cllr": min_cllr, "cllr_cal": cllr - min_cllr, "eer": lc.eer(tar, non),
            "devpav": lc.devpav(tar, non), "misleading_same_source": np.count_nonzero(tar < 0) / tar.size,
            "misleading_different_source": np.count_nonzero(non > 0) / non.size}


def test_every_metric_of_the_matrix_is_the_library_function_on_the_same_llrs(validation, cartridge):
    before, after = _direct(cartridge), _direct(validation.after.trials)
    rows = {row.metric.key: row for row in validation.rows}
    assert set(rows) == set(before)  # no robustness row without by=
    for key, row in rows.items():
        assert row.before == pytest.approx(before[key], rel=1e-12, abs=1e-15), key
        assert row.after == pytest.approx(after[key], rel=1e-12, abs=1e-15), key
    # the figures in the data's SOURCE.txt (lir's numbers)
    assert rows["cllr"].before == pytest.approx(0.6488, abs=5e-5)
    assert rows["devpav"].before == pytest.approx(6.0838, abs=5e-5)
    assert (validation.before.tippett.n_misleading_same_source, validation.before.tippett.n_misleading_different_source
            ) == (47, 27)


def test_pass_and_fail_flip_exactly_at_the_criterion(validation):
    for metric in METRICS[:-1]:
        value = validation.row(metric.key).value
        at = validation.with_criteria(dataclasses.replace(ValidationCriteria(), **{metric.key: value}))
        above = validation.with_criteria(dataclasses.replace(ValidationCriteria(),
                                                             **{metric.key: np.nextafter(value, np.inf)}))
        unset = validation.with_criteria(dataclasses.replace(ValidationCriteria(), **{metric.key: None}))
        assert at.row(metric.key).passes is False and at.row(metric.key).decision == "fail"
        assert above.row(metric.key).passes is True and above.row(metric.key).decision == "pass"
        assert unset.row(metric.key).passes is None and unset.row(metric.key).decision == "not judged"
    everything = ValidationCriteria(**{m.key: 1e6 for m in METRICS})
    assert validation.with_criteria(everything).passed and not validation.passed


def test_cross_validated_llrs_are_those_of_folds_py_and_bounded_by_each_fold_s_training_elub(validation, cartridge):
    tar, non = lc.cross_calibrate(cartridge.tar, cartridge.non, lc.fit_affine, folds=5, seed=0)
    np.testing.assert_array_equal(validation.unbounded.tar, tar)
    np.testing.assert_array_equal(validation.unbounded.non, non)
    split = lc.Folds.split(cartridge.tar.size, cartridge.non.size, 5, seed=0)
    bounded = validation.after.trials
    clipped = 0
    for (tar_test, non_test), (tar_train, non_train), applied in zip(
            split.test, split.training_sets(cartridge.tar, cartridge.non), validation.fold_bounds):
        calibrator = lc.fit_affine(tar_train, non_train)
        bounds = lc.elub_bounds(calibrator(tar_train), calibrator(non_train))
        assert (applied.lower, applied.upper) == (bounds.lower, bounds.upper)
        for llrs, test in ((bounded.tar, tar_test), (bounded.non, non_test)):
            assert np.all(llrs[test] >= bounds.lower) and np.all(llrs[test] <= bounds.upper)
        np.testing.assert_array_equal(bounded.tar[tar_test], np.clip(tar[tar_test], bounds.lower, bounds.upper))
        clipped += np.count_nonzero(bounded.tar[tar_test] != tar[tar_test])
    assert clipped > 0  # the bounds do something on these data


def test_a_development_set_trains_the_calibration_and_its_bounds(cartridge):
    rng = np.random.default_rng(3)
    dev = lc.Trials(rng.normal(2.0, 2.0, 300), rng.normal(-2.0, 2.0, 900), name="dev")
    result = lc.validate_lr_method(cartridge, calibrate="pav", calibrate_on=dev)
    calibrator = lc.fit_pav(dev.tar, dev.non)
    bounds = lc.elub_bounds(calibrator(dev.tar), calibrator(dev.non))
    np.testing.assert_array_equal(result.after.trials.non, np.clip(calibrator(cartridge.non), bounds.lower,
                                                                   bounds.upper))
    assert result.folds is None and "dev (300 same-source" in result.development
    assert lc.validate_lr_method(cartridge, calibrate=None).after is None


def test_robustness_is_the_largest_cllr_of_any_condition():
    rng = np.random.default_rng(5)
    tar, non = rng.normal(2.5, 2.2, 400), rng.normal(-2.5, 2.2, 1200)
    session = np.array(["a", "b", "c", "d"])[rng.integers(0, 4, tar.size + non.size)]
    trials = lc.Trials(tar, non, name="sessions", metadata=pd.DataFrame({"session": session}))
    result = lc.validate_lr_method(trials, by="session")
    row = result.row("condition_cllr")
    after = result.after.trials
    by_hand = {s: lc.cllr(after.tar[session[:tar.size] == s], after.non[session[tar.size:] == s]) for s in "abcd"}
    worst = max(by_hand, key=by_hand.get)
    assert row.after == pytest.approx(by_hand[worst], rel=1e-12) and row.condition == f"session={worst}"
    with pytest.raises(ValueError, match="no column 'speaker'"):
        lc.validate_lr_method(trials, by="speaker")


def test_criteria_from_text_and_bad_criteria_are_sentences():
    criteria = ValidationCriteria.parse(["cllr=0.25", "EER=2%", "devpav=none"])
    assert (criteria.cllr, criteria.eer, criteria.devpav) == (0.25, 0.02, None)
    for bad, words in (("cllr", "NAME=VALUE"), ("speed=1", "NAME=VALUE"), ("cllr=abc", "needs a number"),
                       ("cllr=-1", "positive number")):
        with pytest.raises(ValueError, match=words):
            ValidationCriteria.parse([bad])


def _labelled_file(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The cartridge-case log10 LRs as one ``score label`` file with every digit; returns them."""
    km, knm = np.loadtxt(DATA / "LLR_KM.csv"), np.loadtxt(DATA / "LLR_KNM.csv")
    path.write_text("score label\n" + "".join(f"{float(x)!r} target\n" for x in km)
                    + "".join(f"{float(x)!r} nontarget\n" for x in knm))
    return km, knm


def test_read_trials_reads_log10_lrs(tmp_path):
    path = tmp_path / "cc.txt"
    km, knm = _labelled_file(path)
    np.testing.assert_array_equal(lc.read_trials(path, scale="log10").tar, lc.from_log10(km))
    np.testing.assert_array_equal(lc.read_trials(path).non, knm)
    with pytest.raises(ValueError, match="scale"):
        lc.read_trials(path, scale="log2")


# ----- the report ---------------------------------------------------------------------------------------------------


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.external, self.cells, self.scripts = [], [], 0
        self._cell = None

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        self.external += [value for name, value in attrs if name in ("src", "href") and value
                          and not value.startswith("#")]
        if tag in ("td", "th"):
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append(self._cell.strip())
            self._cell = None


HOSTILE = '<script>alert("x")</script>'


def test_the_report_is_one_self_contained_file_with_the_matrix_and_escaped_names(cartridge, tmp_path):
    trials = dataclasses.replace(cartridge, name=HOSTILE)
    report = build_validation_report(trials, source=HOSTILE, description=HOSTILE)
    path = tmp_path / "validation.html"
    report.write(path)
    page = path.read_text(encoding="utf-8")
    assert HOSTILE not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    parser = _Page()
    parser.feed(page)
    assert parser.external == []
    validation = report.validation
    for row in validation.to_frame().itertuples():
        for text in (row.characteristic, row.metric, row.criterion, row._5, row._6):  # as given, after calibration
            assert text in parser.cells
    decisions = {"pass": "passes", "fail": "does not pass", "not judged": "no criterion set"}
    assert parser.cells.count("does not pass") == sum(r.decision == "fail" for r in validation.rows)
    assert all(decisions[r.decision] in parser.cells for r in validation.rows)
    for heading in ("Validation matrix", "In plain words", "Limits of the LRs", "Verbal scale", "moderately strong"):
        assert heading in page
    assert f"{validation.bounds.lower_log10:+.2f}" in page and "Tippett plot" in page


# ----- the command line ---------------------------------------------------------------------------------------------


@pytest.fixture
def score_file(tmp_path):
    path = tmp_path / "cartridge.txt"
    _labelled_file(path)
    return path


def test_the_report_s_figures_follow_its_units(validation):
    """In natural log the LLR axes carry ln values: log10 values times ln 10 (one computation, two displays)."""
    log10, ln = (build_validation_report(validation, units=units).figures for units in ("log10", "ln"))
    for key in ("tippett", "calibration"):
        assert "log10 LR" in log10[key].figure.layout.xaxis.title.text
        assert "ln LR" in ln[key].figure.layout.xaxis.title.text
    x10, xln = (np.asarray(f["tippett"].figure.data[0].x, dtype=float) for f in (log10, ln))
    finite = np.isfinite(x10) & np.isfinite(xln)
    np.testing.assert_allclose(xln[finite], x10[finite] * np.log(10), rtol=1e-12)


def test_the_paragraphs_state_devpav_in_the_units_of_the_matrix(validation):
    """devPAV in words: lc.devpav's log10 value, or ln 10 times it in natural log, as the matrix shows it; the
    report's paragraphs and its calibration caption follow the report's units."""
    calibrated = validation.validated.trials
    devpav10 = lc.devpav(calibrated)
    criterion = validation.criteria.devpav
    for units, value, limit, words in (("log10", devpav10, criterion, "log10 units"),
                                       ("ln", devpav10 * np.log(10), criterion * np.log(10), "natural-log units")):
        text = validation_paragraphs(validation, units)["calibration"]
        assert f"devPAV, the average distance of the LRs from the best calibrated ones, is {value:.3g} {words}, " \
               f"not below the criterion of {limit:.3g} {words}" in text
        report = build_validation_report(validation, units=units)
        assert report.paragraphs()["calibration"] == text
        assert report.figures["calibration"].caption.endswith(f"in {words}.")
    assert "log10" not in validation_paragraphs(validation, "ln")["calibration"]
    with pytest.raises(ValueError, match="Units are"):
        validation_paragraphs(validation, "bits")


def test_llrcore_validate_writes_the_report(score_file, tmp_path, capsys, cartridge):
    out = tmp_path / "validation.html"
    assert main(["validate", str(score_file), "--log10", "--criterion", "cllr=0.6", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert out.exists() and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    expected = lc.validate_lr_method(cartridge, criteria=ValidationCriteria(cllr=0.6))
    assert expected.row("cllr").passes and f"{expected.row('cllr').after:.3f} bits" in printed
    assert f"Wrote {out}." in printed


@pytest.mark.parametrize("criterion", ["speed=1", "cllr=abc", "cllr=-1", "cllr"])
def test_llrcore_validate_bad_criteria_are_one_sentence(score_file, tmp_path, capsys, criterion):
    out = tmp_path / "validation.html"
    assert main(["validate", str(score_file), "--log10", "--criterion", criterion, "-o", str(out)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("llrcore validate: ") and error.count("\n") == 0 and "Traceback" not in error
    assert not out.exists()
