"""Binary costs to the last bit: huge finite LLRs, the equalised Cprimary, and a prior given second after a Trials
(issue 28; its exact ties in the minimum Cavg are in tests/multiclass/test_min_cavg_exact.py).

Independent references, each computed here and never by llrcore:

- ``mpmath`` at 60 digits for every cost of an LLR, ``log2(1 + e^x)`` of the exact float ``x``, summed exactly
  (Cllr, the ECE at any prior, minCllr, Cllr_cal), and for devPAV of a PAV that pools everything (the area under
  ``|x|``, ``(x0^2 + x3^2) / 2``, in exact log10 units);
- the equalised Cprimary of NIST SRE16-21 as ``Fraction`` sums of each partition's miss and false-alarm counts over
  its own totals (docs/uncertainty.md's example, ASVspoof 2019 LA LFCC-GMM by attack, and a hand case).

Each test failed before its fix (issue 28).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llrcore as lc
from paths import ROOT

INF = math.inf
BIGGEST = np.finfo(float).max


# ----- references --------------------------------------------------------------------------------------------------
def exact_ece(tar, non, plo=0.0) -> float:
    """``P mean_tar log2(1 + e^-(l + plo)) + (1 - P) mean_non log2(1 + e^(l + plo))``, ``P = sigmoid(plo)``, at 60
    digits (inf for an infinite cost: the prior is never exactly 0 for a finite plo)."""
    with mp.workdps(60):
        def cost(x):
            return mp.log1p(mp.exp(x)) / mp.log(2) if x != mp.inf else mp.inf
        shift = mp.mpf(plo)
        p, q = 1 / (1 + mp.exp(-shift)), 1 / (1 + mp.exp(shift))  # P and 1 - P, each to 60 digits
        miss = mp.fsum(cost(-(mp.mpf(float(l)) + shift)) for l in tar) / len(tar)
        fa = mp.fsum(cost(mp.mpf(float(l)) + shift) for l in non) / len(non)
        value = p * miss + q * fa
        return INF if value == mp.inf or value > BIGGEST else float(value)


def close(value: float, exact: float, rel: float = 1e-14) -> bool:
    """``value`` equals ``exact`` to `rel`; near the largest float, ``inf`` for an exact value that rounds past it."""
    if math.isinf(exact) or (exact > BIGGEST * (1 - 1e-12) and math.isinf(value)):
        return value == exact or math.isinf(value)
    return value == pytest.approx(exact, rel=rel, abs=1e-300)


# ----- 1. huge finite LLRs -----------------------------------------------------------------------------------------
HUGE_CASES = [
    ([0.0], [1e308, 1e308]),
    ([INF, 0.0], [1e308, 1e308]),  # a target certain and right costs nothing
    ([0.0], [-INF, 1e308, 1e308]),  # so does a non-target at -inf
    ([-1e308, INF, 3.0], [-INF, 1.2e308, 1.7e308, -2.0]),
    ([BIGGEST, -1.5e308], [-BIGGEST, 2.0]),
]


@pytest.mark.parametrize("tar, non", HUGE_CASES)
def test_cllr_of_huge_finite_llrs_beside_costless_infinities_is_exact(tar, non):
    exact = exact_ece(tar, non)
    assert math.isfinite(exact)
    assert close(lc.cllr(tar, non), exact)
    assert close(lc.cllr(lc.Trials(tar, non)), exact)


@pytest.mark.parametrize("tar, non", HUGE_CASES)
def test_ece_of_huge_finite_llrs_is_exact_at_every_prior(tar, non):
    assert lc.ece(tar, non, plo=0.0) == lc.cllr(tar, non)
    for plo in (0.0, -3.0, 2.5, -800.0, 700.0, 1e308, -1e308, 1.7e308):
        assert close(lc.ece(tar, non, plo=plo), exact_ece(tar, non, plo)), plo
        assert close(lc.ece(lc.Trials(tar, non), plo=plo), exact_ece(tar, non, plo)), plo


def test_a_reweighted_cllr_of_huge_llrs_is_that_of_the_trials_it_draws():
    tar, non = np.array([0.0, 1.0, INF]), np.array([2.0, 1e308, -INF, 1.5e308])
    table = lc.Trials(tar, non).sorted
    # weights in the original order: 1e308 twice, 1.5e308 once, the costless infinities once or not at all
    for w_tar, w_non in (([1, 1, 0], [0, 2, 0, 1]), ([2, 0, 1], [1, 2, 1, 0]), ([1, 1, 1], [0, 3, 0, 2])):
        drawn_tar, drawn_non = np.repeat(tar, w_tar), np.repeat(non, w_non)
        replicate = table.reweighted(np.array(w_tar), np.array(w_non), order=table.trial_order(tar, non))
        assert close(replicate.cllr(), exact_ece(drawn_tar, drawn_non))
    # a drawn certain-and-wrong LLR is infinite, one not drawn is not
    wrong = lc.Trials([0.0, -INF], [1e308]).sorted
    assert wrong.reweighted(np.array([1, 1]), np.array([2])).cllr() == INF
    assert close(wrong.reweighted(np.array([0, 2]), np.array([2])).cllr(), exact_ece([0.0, 0.0], [1e308] * 2))


def test_bootstrap_replicates_of_huge_llrs_are_finite():
    trials = lc.Trials([0.0, 1.0, 2.0], [1e308, 1e308, -1.0, 1.5e308])
    replicates = lc.bootstrap(trials, n=40, seed=1).replicates["cllr"].dropna()
    assert len(replicates) > 0 and np.isfinite(replicates).all()


def test_min_cllr_cllr_cal_and_devpav_of_huge_llrs():
    tar, non = [INF, 0.0, 1e308], [1e308, 1e308, -3.0]
    trials = lc.Trials(tar, non)
    min_cllr = lc.min_cllr(trials)
    # PAV: scores -3 (non), 0 (tar), 1e308 (two non, one tar), inf (tar): blocks {-3} (LLR -inf), {0, 1e308 x3}
    # pooled (two of three targets, two of three non-targets: LLR log 1 = 0), {inf} (LLR inf)
    assert min_cllr == pytest.approx(exact_ece([INF, 0.0, 0.0], [-INF, 0.0, 0.0]), rel=1e-14)
    assert close(lc.cllr_cal(trials), exact_ece(tar, non) - min_cllr)
    # devPAV: PAV pools all four LLRs (LLR 0), so the polyline is y = 0 from x0 to x3 in log10 units
    with mp.workdps(60):
        x0, x3 = mp.mpf(-1e308) / mp.log(10), mp.mpf(1e308) / mp.log(10)
        exact = float((x0 ** 2 + x3 ** 2) / 2 / (x3 - x0))
    assert lc.devpav([-1e308, 5.0], [-5.0, 1e308]) == pytest.approx(exact, rel=1e-14)


def test_bayes_error_rates_of_huge_llrs_are_the_counts():
    rates = lc.bayes_error_rates([1e308, 0.0, -BIGGEST], [-1e308, BIGGEST, 1.0], plo=[0.0, -1e308, 1e308])
    # plo 0: one miss of three (-BIGGEST), two false alarms of three; plo -1e308: all weight on false alarms at
    # threshold 1e308 (BIGGEST accepted); plo 1e308: all weight on misses at threshold -1e308 (-BIGGEST missed)
    assert rates.actual.tolist() == [0.5 * 1 / 3 + 0.5 * 2 / 3, 1 / 3, 1 / 3]
    assert np.isfinite(rates.minimum).all()


LLR = st.one_of(st.sampled_from([INF, -INF, 1e308, -1e308, BIGGEST, -BIGGEST, 1.2e308, 0.0, -0.0]),
                st.floats(-50, 50), st.floats(allow_nan=False, allow_infinity=True))


@settings(max_examples=150, deadline=None)
@given(st.lists(LLR, min_size=1, max_size=5), st.lists(LLR, min_size=1, max_size=5))
def test_ece_at_prior_log_odds_zero_is_cllr_everywhere(tar, non):
    exact = exact_ece(tar, non)
    trials = lc.Trials(tar, non)
    assert lc.ece(tar, non, plo=0.0) == lc.cllr(tar, non)
    assert lc.ece(trials, plo=0.0) == lc.cllr(trials) == lc.ece_curve(trials, plo=[0.0]).system[0]
    for value in (lc.cllr(tar, non), lc.cllr(trials)):
        assert close(value, exact), (value, exact)


@settings(max_examples=150, deadline=None)
@given(st.lists(LLR, min_size=1, max_size=4), st.lists(LLR, min_size=1, max_size=4),
       st.one_of(st.sampled_from([-1e308, -800.0, -710.0, -30.0, 3.5, 705.0, 900.0, 1.7e308]), st.floats(-40, 40)))
def test_ece_is_exact_at_any_prior(tar, non, plo):
    assert close(lc.ece(tar, non, plo=plo), exact_ece(tar, non, plo), rel=1e-13)


# ----- 3. equalised Cprimary ---------------------------------------------------------------------------------------
def exact_equalised_cprimary(trials: lc.Trials, column: str, p_targets) -> Fraction:
    """``mean_P [ mean_p Pmiss_p + (1 - P)/P mean_p Pfa_p ]`` at the Bayes threshold ``log((1 - P)/P)``, the
    partitions p being the column's values; a trial without a value (``-``) is in every partition."""
    values = trials.metadata[column].astype(str).to_numpy()[:len(trials)]
    tar_values, non_values = values[:trials.tar.size], values[trials.tar.size:]
    partitions = sorted({v for v in values if v not in ("-", "")})
    total = Fraction(0)
    for p in p_targets:
        threshold = math.log((1 - p) / p)
        miss = fa = Fraction(0)
        for part in partitions:
            tar = trials.tar[(tar_values == part) | (tar_values == "-")]
            non = trials.non[(non_values == part) | (non_values == "-")]
            miss += Fraction(int((tar < threshold).sum()), tar.size)
            fa += Fraction(int((non >= threshold).sum()), non.size)
        p = Fraction(p)
        total += (miss + (1 - p) / p * fa) / len(partitions)
    return total / len(p_targets)


def test_equalised_cprimary_of_the_readme_example_is_exact():
    assert "equalised over partitions" in (ROOT / "docs" / "uncertainty.md").read_text()
    cm = lc.read_trials(ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz")
    for name, trials in cm.items():  # docs/uncertainty.md's LFCC-GMM first
        for p_targets in ("SRE16", "SRE21", "SRE12", (0.3, 0.5)):  # SRE21 and 0.5 were 4e-14 and 2e-12 off
            exact = exact_equalised_cprimary(trials, "attack", lc.prior.primary_p_targets(p_targets))
            value = lc.cprimary(trials, p_target=p_targets, partition_by="attack")
            assert value == pytest.approx(float(exact), rel=1e-15), (name, p_targets)


def hand_trials() -> lc.Trials:
    rng = np.random.default_rng(7)
    sizes = {"a": (3, 7), "b": (11, 13), "c": (1, 29)}  # counts whose inverses are not binary fractions
    tar = np.concatenate([rng.normal(3, 1.5, n) for n, _ in sizes.values()])
    non = np.concatenate([rng.normal(-1, 1.5, n) for _, n in sizes.values()])
    lang = [k for k, (n, _) in sizes.items() for _ in range(n)] + [k for k, (_, n) in sizes.items() for _ in range(n)]
    return lc.Trials(tar, non, metadata=pd.DataFrame({"lang": lang}))


def test_equalised_cprimary_of_a_hand_case_is_exact():
    trials = hand_trials()
    for p_targets in ((0.01, 0.005), (0.3,), (0.05, 0.2, 0.5)):
        exact = exact_equalised_cprimary(trials, "lang", p_targets)
        assert lc.cprimary(trials, p_target=p_targets, partition_by="lang") == pytest.approx(float(exact), rel=1e-15)


def test_equalised_min_cprimary_is_the_exact_least_cost_of_each_prior():
    trials = hand_trials()
    lang = trials.metadata["lang"].to_numpy()
    parts = [(trials.tar[lang[:trials.tar.size] == k], trials.non[lang[trials.tar.size:] == k]) for k in "abc"]
    thresholds = [*np.unique(np.concatenate([trials.tar, trials.non])), INF]
    for p_targets in ((0.01, 0.005), (0.3,), (0.2, 0.5)):
        total = Fraction(0)
        for p in p_targets:
            beta = (1 - Fraction(p)) / Fraction(p)
            total += min(sum(Fraction(int((tar < t).sum()), tar.size) + beta * Fraction(int((non >= t).sum()),
                                                                                          non.size)
                             for tar, non in parts) / 3 for t in thresholds)
        value = lc.cprimary(trials, p_target=p_targets, partition_by="lang", minimum=True)
        assert value == pytest.approx(float(total / len(p_targets)), rel=1e-15)
