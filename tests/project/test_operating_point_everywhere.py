"""One OperatingPoint through figures, the report and the pages (issue 29: "no figure/report/page function with loose
p_target/c_miss/c_fa").

References: the issue's rule itself, checked on the source by Python's own parser (:mod:`ast`): no function (public,
private, nested or lambda) of ``llrcore/plots``, ``llrcore/report``, ``llrcore/cli`` or ``app_pages`` has a parameter
named ``p_target``, ``c_miss`` or ``c_fa``; they take one :class:`llrcore.OperatingPoint`. The metric functions of
``llrcore/binary`` and the other analysis packages keep accepting numbers (BOSARIS users expect them) and are not
scanned. Independent references for the behaviour: the numbers of the metric functions given the loose values
(``lc.act_dcf``, ``lc.min_dcf``), which a figure given the OperatingPoint must show; Streamlit's own cache hasher,
which must give equal operating points one key (so that the pages' ``st.cache_*`` functions still hit).
"""
from __future__ import annotations

import ast
import warnings

import numpy as np
import pytest

import llrcore as lc
from paths import ROOT

SCANNED = ("llrcore/plots", "llrcore/report", "llrcore/cli", "app_pages")
LOOSE = {"p_target", "c_miss", "c_fa"}


def _loose_parameters() -> list[str]:
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    arguments = node.args
                    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
                    for name in sorted(names & LOOSE):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {getattr(node, 'name', 'lambda')}"
                                     f"({name})")
    return found


def test_no_figure_report_or_page_function_takes_a_loose_operating_point():
    assert _loose_parameters() == []


def test_the_scan_sees_every_scanned_folder():
    # a renamed folder would make the guard pass on nothing
    for folder in SCANNED:
        assert list((ROOT / folder).glob("*.py")), folder


@pytest.fixture(scope="module")
def trials():
    rng = np.random.default_rng(29)
    return lc.Trials(rng.normal(2.0, 1.5, 400), rng.normal(-2.0, 1.5, 4000), name="toy")


def test_a_figure_given_an_operating_point_shows_the_metrics_at_its_costs(trials):
    op = lc.OperatingPoint(0.05, c_miss=3.0, c_fa=1.0)
    fig = lc.plots.det_figure(trials, operating_point=op)
    costs = {t.meta["kind"]: t.customdata[0][2] for t in fig.data
             if isinstance(t.meta, dict) and t.meta.get("kind") in ("min_dcf", "act_dcf")}
    assert costs["act_dcf"] == pytest.approx(lc.act_dcf(trials.tar, trials.non, 0.05, c_miss=3.0), rel=1e-12)
    assert costs["min_dcf"] == pytest.approx(lc.min_dcf(trials.tar, trials.non, 0.05, c_miss=3.0), rel=1e-12)
    # a bare number is a P_target with unit costs
    assert lc.plots.det_figure(trials, operating_point=0.05).to_json() == \
        lc.plots.det_figure(trials, operating_point=lc.OperatingPoint(0.05)).to_json()


def test_the_loose_keywords_of_the_public_api_still_work_for_one_release_with_a_warning(trials):
    op = lc.OperatingPoint(0.05, c_miss=3.0)
    with pytest.warns(DeprecationWarning, match="operating_point"):
        old = lc.plots.det_figure(trials, p_target=0.05, c_miss=3.0)
    assert old.to_json() == lc.plots.det_figure(trials, operating_point=op).to_json()
    with pytest.warns(DeprecationWarning, match="operating_point"):
        report = lc.build_report(trials, p_target=0.05, c_miss=3.0, calibrate=False)
    assert report.operating_point == op
    with pytest.raises(TypeError, match="colour"):
        lc.plots.det_figure(trials, colour="red")
    with warnings.catch_warnings(), pytest.raises(ValueError, match="once"):
        warnings.simplefilter("ignore", DeprecationWarning)
        lc.plots.det_figure(trials, operating_point=op, p_target=0.05)


def test_equal_operating_points_are_one_key_of_the_streamlit_caches():
    hashing = pytest.importorskip("streamlit.runtime.caching.hashing")
    key = hashing.update_hash
    import hashlib

    def digest(value) -> str:
        hasher = hashlib.new("md5")
        key(value, hasher=hasher, cache_type=hashing.CacheType.RESOURCE)
        return hasher.hexdigest()

    assert digest(lc.OperatingPoint(0.01, 10.0)) == digest(lc.OperatingPoint.sre08())
    assert digest(lc.OperatingPoint(0.01, 10.0)) != digest(lc.OperatingPoint(0.01, 1.0))
