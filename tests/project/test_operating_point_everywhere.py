"""One OperatingPoint through figures, the report and the pages (issue 29), given as the metrics give it (issue 42).

References: the issues' rules themselves, checked on the source by Python's own parser (:mod:`ast`): no function
(public, private, nested or lambda) of ``llrcore/cli`` or ``app_pages`` has a parameter named ``p_target``,
``c_miss`` or ``c_fa``: they pass one :class:`llrcore.OperatingPoint` around (issue 29); no public figure or report
function of ``llrcore/plots`` or ``llrcore/report`` has a parameter named ``operating_point``: they take the metrics'
``p_target`` (a number or an OperatingPoint) with ``c_miss, c_fa`` (issue 42; the old ``operating_point=`` is tested
in test_signatures.py). Independent references for the behaviour: the numbers of the metric functions given the loose
values (``lc.act_dcf``, ``lc.min_dcf``), which a figure given the OperatingPoint must show; Streamlit's own cache hasher,
which must give equal operating points one key (so that the pages' ``st.cache_*`` functions still hit).
"""
from __future__ import annotations

import ast

import numpy as np
import pytest

import llrcore as lc
from paths import ROOT

SCANNED = ("llrcore/plots", "llrcore/report", "llrcore/cli", "app_pages")
LOOSE = {"p_target", "c_miss", "c_fa"}


def _parameters(folders, names, *, public_only: bool) -> list[str]:
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    name = getattr(node, "name", "lambda")
                    if public_only and (name == "lambda" or name.startswith("_")):
                        continue
                    arguments = node.args
                    given = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
                    found += [f"{path.relative_to(ROOT)}:{node.lineno} {name}({p})" for p in sorted(given & names)]
    return found


def test_no_page_or_command_function_takes_a_loose_operating_point():
    assert _parameters(("llrcore/cli", "app_pages"), LOOSE, public_only=False) == []


def test_no_public_figure_or_report_function_takes_the_old_operating_point_keyword():
    assert _parameters(("llrcore/plots", "llrcore/report"), {"operating_point"}, public_only=True) == []


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
    fig = lc.plots.det_figure(trials, p_target=op)
    costs = {t.meta["kind"]: t.customdata[0][2] for t in fig.data
             if isinstance(t.meta, dict) and t.meta.get("kind") in ("min_dcf", "act_dcf")}
    assert costs["act_dcf"] == pytest.approx(lc.act_dcf(trials.tar, trials.non, p_target=0.05, c_miss=3.0), rel=1e-12)
    assert costs["min_dcf"] == pytest.approx(lc.min_dcf(trials.tar, trials.non, p_target=0.05, c_miss=3.0), rel=1e-12)
    # a bare number is a P_target with unit costs
    assert lc.plots.det_figure(trials, p_target=0.05).to_json() == \
        lc.plots.det_figure(trials, p_target=lc.OperatingPoint(0.05)).to_json()


def test_the_operating_point_is_given_as_to_the_metrics(trials):
    op = lc.OperatingPoint(0.05, c_miss=3.0)
    loose = lc.plots.det_figure(trials, p_target=0.05, c_miss=3.0)
    assert loose.to_json() == lc.plots.det_figure(trials, p_target=op).to_json()
    assert lc.build_report(trials, p_target=0.05, c_miss=3.0, calibrate=False).operating_point == op
    with pytest.raises(TypeError, match="colour"):
        lc.plots.det_figure(trials, colour="red")
    with pytest.raises(ValueError, match="not both"):  # costs given twice, and differently
        lc.plots.det_figure(trials, p_target=op, c_miss=2.0)


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
