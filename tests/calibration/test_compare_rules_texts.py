"""The explanatory texts of the Compare rules page against the figure they describe.

References: the vertical lines the library's threshold-weighting figure draws (every threshold a text names must be
one of them, to two decimals), and the weighting ``w(t + tau) Omega_tau(t)`` of DESIGN.md written out with numpy for
the boosting rule (it does not depend on tau, and it is a bell around 0, not flat).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.special import expit

import llrcore as lc
from app_pages import compare_rules  # importing the page does not draw it
from llrcore.binary.metrics import SRE12_P_TARGETS
from llrcore.calibration.sweep import NAMED_RULES
from llrcore.plots.calibration import threshold_weighting_figure

SIGNED = re.compile(r"[+−-]\d+\.\d\d\b")


def _drawn_thresholds(p_targets, c_miss=1.0, c_fa=1.0, tau=-4.0) -> list[float]:
    points = [lc.OperatingPoint(p, c_miss, c_fa) for p in p_targets]
    fig = threshold_weighting_figure(list(NAMED_RULES), tau, p_target=points)
    return [float(shape.x0) for shape in fig.layout.shapes if shape.x0 == shape.x1 and shape.x0 != -tau]


def _mentioned(text: str) -> list[float]:
    return [float(match.replace("−", "-")) for match in SIGNED.findall(text)]


@pytest.mark.parametrize("caption", [
    lambda: compare_rules.cprimary_caption(SRE12_P_TARGETS),
    lambda: compare_rules.weighting_caption([lc.OperatingPoint(p) for p in SRE12_P_TARGETS]),
], ids=["cost", "weighting tab"])
def test_every_threshold_a_cprimary_text_names_is_drawn(caption):
    text = caption()
    drawn = _drawn_thresholds(SRE12_P_TARGETS)
    assert sorted(_mentioned(text)) == pytest.approx(sorted(drawn), abs=0.005)  # +4.60 and +6.91, both drawn
    assert len(drawn) == 2


@pytest.mark.parametrize("p_target, c_miss, c_fa", [(0.01, 1.0, 1.0), (0.2, 10.0, 1.0), (0.5, 1.0, 3.0)])
def test_the_weighting_caption_of_my_dcf_names_its_drawn_threshold(p_target, c_miss, c_fa):
    text = compare_rules.weighting_caption([lc.OperatingPoint(p_target, c_miss, c_fa)])
    assert _mentioned(text) == pytest.approx(_drawn_thresholds((p_target,), c_miss, c_fa), abs=0.005)


def test_the_rules_caption_says_boosting_ignores_the_prior_weighting_but_is_not_flat():
    text = compare_rules.RULES_CAPTION
    assert "alike" not in text and not _mentioned(text)
    assert "boosting" in text and "around threshold 0" in text and "whatever the prior weighting" in text
    # the weighting of (1/2, 1/2) over LLR thresholds, from DESIGN.md: the same bell around 0 for every tau
    t = np.linspace(-20, 20, 4001)
    curves = []
    for tau in (-8.0, -4.0, 0.0, 3.0):
        weight = np.sqrt(expit(t + tau) * expit(-t - tau)) / np.pi * expit(-tau) * (1 + np.exp(t + tau)) / (
            1 + np.exp(t))
        curves.append(weight / np.trapezoid(weight, t))
        np.testing.assert_allclose(lc.threshold_weighting(lc.BetaRule.boosting(), tau, t), curves[-1], rtol=1e-3)
    np.testing.assert_allclose(curves, np.broadcast_to(curves[0], (4, t.size)), rtol=1e-9)
    assert t[np.argmax(curves[0])] == pytest.approx(0.0) and curves[0].max() > 50 * curves[0].min()
