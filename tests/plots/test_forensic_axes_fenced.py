"""The forensic figures keep +-1e308 off their axes: the Tippett and ECE axes span the ordinary LRs and say how many
lie beyond.

Independent references: the log10 of the ordinary LLRs (``llr / ln 10``) and the count of far ones put in.
"""
from __future__ import annotations

import numpy as np

import llrcore as lc
from llrcore.plots.forensic import ece_figure, tippett_figure
from synthetic import FAR, ordinary


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
