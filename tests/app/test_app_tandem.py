"""The "ASV + countermeasure" page under AppTest: what a switch of the t-DCF formulation computes again.

Independent references: the library's functions counted as the page calls them (``lc.evaluate_tandem``,
``lc.tandem_asv``, ``lc.sasv_table``), and the min t-DCF of each CM shown after the switch against
``lc.evaluate_tandem`` run with the legacy formulation on the demo files.
"""
from __future__ import annotations

import collections

import pytest
import streamlit as st
from paths import ROOT
from streamlit.testing.v1 import AppTest

import llrcore as lc

COUNTED = ("evaluate_tandem", "tandem_asv", "sasv_table")
CM_EVAL = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
ASV_EVAL = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"


@pytest.fixture
def calls(monkeypatch) -> collections.Counter:
    """How often the page calls each of :data:`COUNTED` (the functions still compute)."""
    counter: collections.Counter = collections.Counter()
    for name in COUNTED:
        function = getattr(lc, name)

        def counted(*args, _function=function, _name=name, **kwargs):
            counter[_name] += 1
            return _function(*args, **kwargs)
        monkeypatch.setattr(lc, name, counted)
    return counter


def formulation_radio(at: AppTest):
    return next(radio for radio in at.radio if radio.label == "t-DCF formulation")


def test_a_switch_of_formulation_judges_again_and_computes_nothing_else(calls):
    st.cache_resource.clear()  # no result of another test's run
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("app_pages/spoofing.py").run()
    at.button(key="tandem_load").click().run()
    assert not at.exception
    assert calls["evaluate_tandem"] == 4 and calls["tandem_asv"] == 1 and calls["sasv_table"] == 4  # one ASV side
    calls.clear()

    formulation_radio(at).set_value("legacy").run()
    assert not at.exception and not calls  # the evaluations, t-EER and a-DCF kept: only each row's t-DCF again
    asv, cms = lc.read_trials(ASV_EVAL), lc.read_trials(CM_EVAL)
    shown = [metric.value for metric in at.metric if metric.label == "min t-DCF"]
    assert shown == [f"{lc.evaluate_tandem(cm, asv, formulation='legacy').min_tdcf:.4f}" for cm in cms.values()]
    assert shown[0] == "0.0934"  # the LFCC-GMM CM's legacy min t-DCF on the LA eval part
    calls.clear()

    formulation_radio(at).set_value("revised").run()
    assert not calls and next(metric.value for metric in at.metric if metric.label == "min t-DCF") == "0.1503"
