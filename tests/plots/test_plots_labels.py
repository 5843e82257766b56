"""Labels of the figures: one rule for percentages, and legend entries that wrap instead of leaving the figure.

References: percentages written out by hand for the edge values (0, 1, powers of ten, values that round to 100 %,
values that Python's ``%g`` would put in exponent notation); line lengths counted on the label text.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import llrcore as lc
from llrcore.plots import _style, ape_figure, bayes_error_trapezium_figure, det_figure, normalised_bayes_error_figure

LONG_NAMES = ["ASVspoof19 LA ASV (eval)", "FVC-AUS DCA-PLDA", "ASVspoof19 LA ASV (dev)", "browser upload"]


@pytest.mark.parametrize("p, text", [
    (0.0, "0 %"), (1.0, "100 %"), (0.5, "50 %"), (0.1, "10 %"), (0.01, "1 %"), (0.001, "0.1 %"),
    (0.0001, "0.01 %"), (0.0253, "2.53 %"), (0.000975, "0.0975 %"), (0.2, "20 %"), (0.4, "40 %"),
    (0.123456, "12.3 %"), (1e-7, "0.00001 %"), (0.99999, "99.999 %"), (0.9996, "99.96 %"), (0.99949, "99.9 %"),
])
def test_format_percent_has_three_significant_digits_and_no_padded_zeros(p, text):
    assert _style.format_percent(p) == text


def test_format_percent_never_pads_a_zero_after_the_point():
    for p in np.concatenate([np.logspace(-8, 0, 400), [0.01, 0.05, 0.1, 0.2, 0.4]]):
        number = _style.format_percent(p).removesuffix(" %")
        assert "e" not in number
        assert not ("." in number and number.endswith("0")), (p, number)
        assert float(number) == pytest.approx(100 * p, rel=5e-3)


def test_wrap_label_breaks_at_spaces_and_keeps_units_together():
    text = "ASVspoof19 LA ASV (eval) (EER 2.43 %; 36.5 errors / 100 at P = 0.01)"
    wrapped = _style.wrap_label(text, 20)
    lines = wrapped.split("<br>")
    assert " ".join(lines) == text
    assert all(len(line) <= 20 for line in lines)
    assert "2.43 %" in wrapped and "P = 0.01" in wrapped  # never "2.43<br>%" or "P =<br>0.01"
    assert _style.wrap_label("P<sub>target</sub> = 0.01", 10) == "P<sub>target</sub> = 0.01"  # tags take no room
    assert _style.wrap_label("a<br>b c", 40) == "a<br>b c"
    assert _style.wrap_label("supercalifragilistic word", 5) == "supercalifragilistic<br>word"


def _visible_lines(name: str) -> list[str]:
    return re.sub(r"<(?!br>)[^>]*>", "", name).split("<br>")


@pytest.fixture(scope="module")
def four_systems(asvspoof_eval, asvspoof_dev) -> dict[str, lc.Trials]:
    rng = np.random.default_rng(7)
    sets = [lc.Trials(asvspoof_eval["target"], asvspoof_eval["nontarget"]),
            lc.Trials(rng.normal(4, 1, 400), rng.normal(-4, 2, 4000)),
            lc.Trials(asvspoof_dev["target"], asvspoof_dev["nontarget"]),
            lc.Trials(rng.normal(3, np.sqrt(6), 300), rng.normal(-3, np.sqrt(6), 3000))]
    return dict(zip(LONG_NAMES, sets))


def test_legends_of_the_evaluate_figures_wrap_with_four_long_names(four_systems):
    figures = {
        "det": det_figure(four_systems, p_target=0.01),
        "ape": ape_figure(four_systems),
        "nbe": normalised_bayes_error_figure(four_systems, p_target=0.01),
        "trapezium": bayes_error_trapezium_figure(four_systems, p_target=0.01),
    }
    for kind, fig in figures.items():
        entries = [t.name for t in fig.data if t.showlegend is not False and (t.meta or {}).get("system")]
        assert len(entries) == 4, kind
        for name, entry in zip(LONG_NAMES, entries):
            lines = _visible_lines(entry)
            assert lines[0].startswith(name), (kind, entry)
            assert max(len(line) for line in lines) <= 48, (kind, entry)
