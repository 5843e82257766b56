"""The per-attack bars of the ASV + countermeasure page (``llrcore.plots.spoofing.attack_bars_figure``): a linear CM EER
axis from 0 by default, a log axis only on request, and labelled ticks on both, also when every EER lies within one
decade (5.5 to 8.6 % here, where plotly's own log ticks, at powers of 10 only, label nothing).

Independent references: the axis as plotly lays it out (``full_figure_for_development``: the range and ticks the
browser draws, computed by plotly.js through kaleido); the EERs of the table the figure draws
(``TandemEvaluation.to_frame``). The browser test (tests/e2e/test_spoofing_bars_page.py) measures the drawn bars.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.plots.spoofing import attack_bars_figure


@pytest.fixture(scope="module")
def narrow():
    """Three attacks whose CM EERs lie between 5.5 and 8.6 % (Gaussian scores, separations 3.1, 2.9 and 2.7)."""
    rng = np.random.default_rng(7)
    separations, n = {"A1": 3.1, "A2": 2.9, "A3": 2.7}, 4000
    attacks = np.repeat(list(separations), n)
    cm = lc.Trials(rng.normal(0, 1, n), np.concatenate([rng.normal(-d, 1, n) for d in separations.values()]),
                   metadata=pd.DataFrame({"attack": np.concatenate([["-"] * n, attacks])}))
    asv = lc.Trials(rng.normal(3, 1, 500), rng.normal(0, 1, 500), spoof=rng.normal(1.5, 1, 3 * n),
                    metadata=pd.DataFrame({"attack": np.concatenate([["bonafide"] * 1000, attacks])}))
    result = lc.evaluate_tandem(cm, asv, by="attack")
    eers = result.to_frame()["CM EER %"].to_numpy()
    assert 5 < eers.min() < 6 and 8 < eers.max() < 9  # as narrow as the page (5.94 to 8.83 %)
    return result


def drawn_ticks(axis, tickvals=None) -> np.ndarray:
    """The tick values plotly draws on a laid-out axis (log10 of them on a log axis) within its range: the figure's
    explicit `tickvals`, else ``tick0 + k dtick``."""
    low, high = sorted(axis.range)
    if tickvals is not None:
        values = np.log10(tickvals) if axis.type == "log" else np.asarray(tickvals)
    else:
        values = axis.tick0 + axis.dtick * np.arange(np.ceil((low - axis.tick0) / axis.dtick),
                                                     np.floor((high - axis.tick0) / axis.dtick) + 1)
    return values[(values >= low) & (values <= high)]


def test_default_axis_is_linear_from_zero_with_labelled_ticks(narrow):
    fig = attack_bars_figure({"CM": narrow})
    axis = fig.full_figure_for_development(warn=False).layout.yaxis
    assert axis.type == "linear" and axis.range[0] == 0 and axis.showticklabels
    eers = narrow.to_frame()["CM EER %"].to_numpy()
    assert axis.range[1] >= eers.max()
    assert drawn_ticks(axis).size >= 3
    # bars from 0 on a linear axis: each bar's length is its EER, so lengths are proportional to the EERs
    bars = next(trace for trace in fig.data if trace.meta["label"] == "CM CM EER %")
    assert bars.base is None
    np.testing.assert_array_equal(bars.y, eers)


def test_log_axis_on_request_labels_ticks_around_a_narrow_span(narrow):
    fig = attack_bars_figure({"CM": narrow}, log_eer=True)
    axis = fig.full_figure_for_development(warn=False).layout.yaxis
    assert axis.type == "log" and axis.showticklabels
    ticks = drawn_ticks(axis, fig.layout.yaxis.tickvals)
    eers = np.log10(narrow.to_frame()["CM EER %"].to_numpy())
    assert ticks.size >= 2 and ticks.min() <= eers.min() and ticks.max() >= eers.max()
    assert list(fig.layout.yaxis.ticktext) == [f"{10 ** t:g}" for t in ticks]


def test_log_ticks_over_decades_are_powers_of_ten():
    from llrcore.plots.spoofing import _log_ticks

    assert _log_ticks(np.array([0.004, 0.0, 37.0]))["ticktext"] == ["0.001", "0.01", "0.1", "1", "10", "100"]
    assert _log_ticks(np.array([5.94, 8.83]))["ticktext"] == ["5", "10"]
    assert _log_ticks(np.array([2.5, 9.0]))["ticktext"] == ["2", "5", "10"]
