"""The tandem detection cost function (``lc.tdcf``) on the real ASVspoof 2019 LA evaluation scores.

Independent references:

1. A brute-force t-DCF written plainly here: the CM scores walked one by one in Python (``sorted`` of
   ``(score, label)`` pairs, counts kept in a loop, one point per distinct score plus "reject all"), the ASV rates
   counted trial by trial, and the formulas typed from the papers — Kinnunen et al., IEEE/ACM TASLP 28 (2020)
   (``"revised"``) and Kinnunen et al., Odyssey 2018 / ASVspoof 2019 evaluation plan (``"legacy"``). It must equal
   ``.curve``, ``.minimum`` and ``.threshold`` to 1e-12, both formulations, for LFCC-GMM and RawNet2-a.
2. A second implementation of the organisers' arithmetic, written here from their published description (their DET
   points from one stable sort of all scores, bona fide / targets first among equal scores, one point per trial plus
   one, threshold = highest rejected score; their EER point = first smallest ``|miss - false alarm|``; their ASV rates
   accept ``score >= threshold``; their ``compute_tDCF`` of ASVspoof 2019 ``tDCF_python`` and of the ASVspoof 2021
   evaluation package). Their ASV threshold and rates equal ours exactly; their minimum equals ours; their curve at
   the ends of each block of tied scores equals ours point for point (the scores file keeps 6 decimals, so ties
   exist), and their extra points inside a tie block are never lower.
3. Published values: none is asserted. The ASVspoof 2019 LA baselines' published min t-DCF (B1 CQCC-GMM 0.2366, B2
   LFCC-GMM 0.2116, eval) are for the challenge baselines, whose EERs (9.57 %, 8.09 %) are not our "LFCC-GMM" column's
   3.51 %: that column is the high-spectral-resolution LFCC-GMM of Tak et al. (Interspeech 2020), and the RawNet2
   columns' sinc-filter variant is not documented in the source. The figures pinned at the end are our own, from the
   organisers' scores, kept to catch a change.
4. Argument checks raise ``ValueError`` with a sentence.
"""
from __future__ import annotations


import numpy as np
import pytest

import llrcore as lc
from paths import ROOT

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"

COSTS = {
    "revised": {"Pspoof": 0.05, "Ptar": 0.95 * 0.99, "Pnon": 0.95 * 0.01, "Cmiss": 1, "Cfa": 10, "Cfa_spoof": 10},
    "legacy": {"Pspoof": 0.05, "Ptar": 0.95 * 0.99, "Pnon": 0.95 * 0.01,
               "Cmiss_asv": 1, "Cfa_asv": 10, "Cmiss_cm": 1, "Cfa_cm": 10},
}


@pytest.fixture(scope="module")
def asv():
    return lc.read_trials(ASV)


@pytest.fixture(scope="module")
def cm():
    return lc.read_trials(CM)


# --- 1. brute force -------------------------------------------------------------------------------------------------

def brute_force_cm_rates(bonafide, spoof):
    """(thresholds, miss, false alarm) at every distinct CM score (accept score >= t), then 'reject everything'."""
    pairs = sorted([(float(s), 1) for s in bonafide] + [(float(s), 0) for s in spoof])
    n_bona, n_spoof = len(bonafide), len(spoof)
    thresholds, miss, false_alarm = [], [], []
    bona_below = spoof_below = 0
    i = 0
    while i < len(pairs):
        value = pairs[i][0]
        thresholds.append(value)
        miss.append(bona_below / n_bona)
        false_alarm.append((n_spoof - spoof_below) / n_spoof)
        while i < len(pairs) and pairs[i][0] == value:
            if pairs[i][1]:
                bona_below += 1
            else:
                spoof_below += 1
            i += 1
    thresholds.append(float("inf"))
    miss.append(1.0)
    false_alarm.append(0.0)
    return thresholds, miss, false_alarm


def brute_force_tdcf(bonafide, spoof, tar, non, spoof_asv, threshold, formulation):
    costs = COSTS[formulation]
    pmiss_asv = sum(1 for x in tar if x < threshold) / len(tar)
    pfa_asv = sum(1 for x in non if x >= threshold) / len(non)
    pfa_spoof_asv = sum(1 for x in spoof_asv if x >= threshold) / len(spoof_asv)
    if formulation == "revised":
        c0 = costs["Ptar"] * costs["Cmiss"] * pmiss_asv + costs["Pnon"] * costs["Cfa"] * pfa_asv
        c1 = costs["Ptar"] * costs["Cmiss"] - c0
        c2 = costs["Pspoof"] * costs["Cfa_spoof"] * pfa_spoof_asv
        norm = c0 + min(c1, c2)
    else:
        c0 = 0.0
        c1 = costs["Ptar"] * (costs["Cmiss_cm"] - costs["Cmiss_asv"] * pmiss_asv) \
            - costs["Pnon"] * costs["Cfa_asv"] * pfa_asv
        c2 = costs["Cfa_cm"] * costs["Pspoof"] * pfa_spoof_asv
        norm = min(c1, c2)
    thresholds, miss, false_alarm = brute_force_cm_rates(bonafide, spoof)
    curve = [(c0 + c1 * m + c2 * f) / norm for m, f in zip(miss, false_alarm)]
    best = min(range(len(curve)), key=curve.__getitem__)
    return thresholds, curve, best, (pmiss_asv, pfa_asv, 1 - pfa_spoof_asv)


# --- 2. the organisers' arithmetic, reimplemented ---------------------------------------------------------------------

def organisers_det(positive, negative):
    """Miss and false-alarm rates, one point per trial plus one, from a stable sort (positives first among ties)."""
    scores = np.concatenate([positive, negative])
    is_positive = np.concatenate([np.ones(len(positive)), np.zeros(len(negative))])
    order = np.argsort(scores, kind="stable")
    positives_taken = np.cumsum(is_positive[order])
    taken = np.arange(1, scores.size + 1)
    miss = np.r_[0.0, positives_taken / len(positive)]
    false_alarm = np.r_[1.0, (len(negative) - (taken - positives_taken)) / len(negative)]
    thresholds = np.r_[scores[order[0]] - 0.001, scores[order]]
    return miss, false_alarm, thresholds


def organisers_asv(tar, non, spoof):
    miss, false_alarm, thresholds = organisers_det(tar, non)
    threshold = thresholds[np.argmin(np.abs(miss - false_alarm))]
    pmiss = np.sum(tar < threshold) / tar.size
    pfa = np.sum(non >= threshold) / non.size
    pmiss_spoof = np.sum(spoof < threshold) / spoof.size
    pfa_spoof = np.sum(spoof >= threshold) / spoof.size
    return threshold, pmiss, pfa, pmiss_spoof, pfa_spoof


def organisers_tdcf(bonafide, spoof, tar, non, spoof_asv, formulation):
    costs = COSTS[formulation]
    _, pmiss_asv, pfa_asv, pmiss_spoof_asv, pfa_spoof_asv = organisers_asv(tar, non, spoof_asv)
    pmiss_cm, pfa_cm, thresholds = organisers_det(bonafide, spoof)
    if formulation == "revised":
        c0 = costs["Ptar"] * costs["Cmiss"] * pmiss_asv + costs["Pnon"] * costs["Cfa"] * pfa_asv
        c1 = costs["Ptar"] * costs["Cmiss"] - c0
        c2 = costs["Pspoof"] * costs["Cfa_spoof"] * pfa_spoof_asv
        return (c0 + c1 * pmiss_cm + c2 * pfa_cm) / (c0 + min(c1, c2)), thresholds
    c1 = (costs["Ptar"] * (costs["Cmiss_cm"] - costs["Cmiss_asv"] * pmiss_asv)
          - costs["Pnon"] * costs["Cfa_asv"] * pfa_asv)
    c2 = costs["Cfa_cm"] * costs["Pspoof"] * (1 - pmiss_spoof_asv)
    return (c1 * pmiss_cm + c2 * pfa_cm) / min(c1, c2), thresholds


# --- tests ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("formulation", ["revised", "legacy"])
@pytest.mark.parametrize("system", ["LFCC-GMM", "RawNet2-a"])
def test_brute_force_curve_and_minimum(asv, cm, system, formulation):
    bonafide, spoof = cm[system].tar, cm[system].non
    result = lc.tdcf(bonafide, spoof, asv.tar, asv.non, asv.spoof, formulation=formulation)
    thresholds, curve, best, rates = brute_force_tdcf(
        bonafide.tolist(), spoof.tolist(), asv.tar.tolist(), asv.non.tolist(), asv.spoof.tolist(),
        result.asv_threshold, formulation)
    assert len(curve) == result.curve.size
    np.testing.assert_array_equal(result.thresholds, thresholds)
    np.testing.assert_allclose(result.curve, curve, rtol=0, atol=1e-12)
    assert result.minimum == pytest.approx(curve[best], abs=1e-12)
    assert result.threshold == thresholds[best]
    assert (result.pmiss_asv, result.pfa_asv) == pytest.approx(rates[:2], abs=1e-15)
    assert result.pmiss_spoof_asv == pytest.approx(rates[2], abs=1e-15)
    frame = result.to_frame()
    assert list(frame.columns) == ["threshold", "pmiss_cm", "pfa_cm", "tdcf"]
    assert frame["tdcf"].min() == result.minimum


def test_default_asv_threshold_and_rates_are_the_organisers(asv):
    threshold, pmiss, pfa, pmiss_spoof, pfa_spoof = organisers_asv(asv.tar, asv.non, asv.spoof)
    assert lc.asv_eer_threshold(asv.tar, asv.non) == threshold
    result = lc.tdcf(asv.tar, asv.non, asv.tar, asv.non, asv.spoof)  # any CM scores will do for the ASV part
    assert result.asv_threshold == threshold
    assert (result.pmiss_asv, result.pfa_asv, result.pmiss_spoof_asv) == (pmiss, pfa, pmiss_spoof)
    assert lc.spoof_false_alarm_rate(asv.spoof, threshold) == pfa_spoof
    assert result.pfa_spoof_asv == pytest.approx(pfa_spoof, abs=1e-15)


def test_asv_threshold_with_ties_follows_the_organisers():
    rng = np.random.default_rng(3)
    for _ in range(200):
        tar = rng.integers(0, 8, rng.integers(1, 15)).astype(float)
        non = rng.integers(-3, 5, rng.integers(1, 15)).astype(float)
        expected = organisers_asv(tar, non, non)[0]
        assert lc.asv_eer_threshold(tar, non) == expected


@pytest.mark.parametrize("formulation", ["revised", "legacy"])
@pytest.mark.parametrize("system", ["LFCC-GMM", "RawNet2-a", "RawNet2-b", "RawNet2-c"])
def test_agrees_with_the_organisers_arithmetic(asv, cm, system, formulation):
    bonafide, spoof = cm[system].tar, cm[system].non
    result = lc.tdcf(bonafide, spoof, asv.tar, asv.non, asv.spoof, formulation=formulation)
    theirs, their_thresholds = organisers_tdcf(bonafide, spoof, asv.tar, asv.non, asv.spoof, formulation)
    assert result.minimum == pytest.approx(theirs.min(), abs=1e-12)
    # our point with threshold t rejects every score below t: their point after that many trials
    pooled = np.sort(np.concatenate([bonafide, spoof]))
    block_ends = np.searchsorted(pooled, result.thresholds, side="left")
    np.testing.assert_allclose(theirs[block_ends], result.curve, rtol=0, atol=1e-12)
    # inside a tie block their curve is never below the block's ends (ties exist: 6-decimal scores)
    assert theirs.size > result.curve.size
    assert theirs.min() >= result.curve.min() - 1e-12
    # their threshold of the minimum is the highest rejected score; ours the lowest accepted one, just above it
    their_best = int(np.argmin(theirs))
    assert pooled[pooled > their_thresholds[their_best]].min() == result.threshold


def test_own_figures_on_the_eval_set(asv, cm):
    """Our own numbers (not published figures) for the four CM systems, organisers' ASV scores and defaults."""
    expected = {
        "legacy": {"LFCC-GMM": 0.093442, "RawNet2-a": 0.112533, "RawNet2-b": 0.105922, "RawNet2-c": 0.120459},
        "revised": {"LFCC-GMM": 0.150313, "RawNet2-a": 0.168207, "RawNet2-b": 0.162010, "RawNet2-c": 0.175635},
    }
    for formulation, systems in expected.items():
        for system, value in systems.items():
            result = lc.tdcf(cm[system].tar, cm[system].non, asv.tar, asv.non, asv.spoof, formulation=formulation)
            assert result.minimum == pytest.approx(value, abs=5e-7), (formulation, system)
            assert 0 <= result.floor <= result.minimum <= 1


def test_worked_example_by_hand():
    """Three bona fide and three spoof CM scores; ASV rates fixed by hand through the ASV scores and threshold 0."""
    tar, non, spoof_asv = [1.0, 2.0, -1.0, 3.0], [-2.0, -1.0, -3.0, 1.0], [1.0, -1.0]
    # Pmiss_asv = 1/4, Pfa_asv = 1/4, Pfa_spoof_asv = 1/2
    result = lc.tdcf([2.0, 3.0, 0.0], [1.0, -1.0, -2.0], tar, non, spoof_asv, asv_threshold=0.0,
                     cost_model={"Ptar": 0.5, "Pnon": 0.3, "Pspoof": 0.2, "Cmiss": 1, "Cfa": 1, "Cfa_spoof": 2})
    c0 = 0.5 * 0.25 + 0.3 * 0.25
    c1, c2 = 0.5 - c0, 0.2 * 2 * 0.5
    assert (result.c0, result.c1, result.c2) == pytest.approx((c0, c1, c2))
    # thresholds -2, -1, 0, 1, 2, 3, inf: CM misses 0,0,0,1,1,2,3 of 3 bona fide; accepts 3,2,1,1,0,0,0 of 3 spoofs
    miss, fa = np.array([0, 0, 0, 1, 1, 2, 3]) / 3, np.array([3, 2, 1, 1, 0, 0, 0]) / 3
    np.testing.assert_allclose(result.curve, (c0 + c1 * miss + c2 * fa) / (c0 + min(c1, c2)))
    # unnormalised costs: 0.2 + 0.3 miss + 0.2 fa; at threshold 0: 0.2 + 0.2/3, the lowest (at 2: 0.2 + 0.1)
    assert result.threshold == 0.0
    assert result.minimum == pytest.approx((0.2 + 0.2 / 3) / 0.4)


def test_spoof_false_alarm_rate_and_spf_eer(asv):
    assert lc.spoof_false_alarm_rate([1, 2, 3, 4], 2.5) == 0.5
    assert lc.spoof_false_alarm_rate([1, 2, 3, 4], 2) == 0.75  # accept score >= threshold
    # SPF-EER is the EER of targets against spoofs (ROCCH-EER), with no new function
    assert 0.4 < lc.eer(asv.tar, asv.spoof) < 0.5


@pytest.mark.parametrize("kwargs, message", [
    ({"formulation": "2019"}, "Unknown t-DCF formulation"),
    ({"cost_model": {"Ptar": 0.9, "Pnon": 0.05}}, "lacks Pspoof"),
    ({"cost_model": {**COSTS["revised"], "Pspoof": 0.5}}, "add up to 1"),
    ({"cost_model": {**COSTS["revised"], "Cfa": -1}}, "at least 0"),
    ({"cost_model": {**COSTS["revised"], "Cfa": "ten"}}, "must be a number"),
    ({"cost_model": {**COSTS["revised"], "Cfa_cm": 10}}, "does not use Cfa_cm"),
    ({"cost_model": COSTS["legacy"]}, "cost model of the legacy t-DCF"),
    ({"cost_model": [1, 2, 3]}, "must be a dict"),
    ({"asv_threshold": float("nan")}, "ASV threshold is missing"),
])
def test_bad_arguments_give_sentences(kwargs, message):
    scores = ([1.0, 2.0, 3.0], [0.0, 1.5, -1.0], [2.0, 3.0], [0.0, 1.0], [1.0, 2.5])
    with pytest.raises(ValueError, match=message):
        lc.tdcf(*scores, **kwargs)


@pytest.mark.parametrize("position, what", [(0, "bona fide"), (1, "spoofed"), (2, "ASV target"),
                                            (3, "ASV non-target"), (4, "ASV spoof")])
def test_empty_or_nan_scores_give_sentences(position, what):
    scores = [[1.0, 2.0, 3.0], [0.0, 1.5, -1.0], [2.0, 3.0], [0.0, 1.0], [1.0, 2.5]]
    empty = list(scores)
    empty[position] = []
    with pytest.raises(ValueError, match=f"no .*{what}"):
        lc.tdcf(*empty)
    nan = list(scores)
    nan[position] = [1.0, float("nan")]
    with pytest.raises(ValueError, match="missing values"):
        lc.tdcf(*nan)


@pytest.mark.parametrize("formulation", ["revised", "legacy"])
def test_infinite_cm_scores_are_walked_like_any_other(asv, formulation):
    """A CM certain of some trials (+-inf, a bona fide +inf and a spoof -inf among them, tied with each other): the
    curve is the brute-force walk's (its last point rejects every trial, +inf ones included) and the minimum the
    organisers' arithmetic's, whose stable sort takes +-inf as any score."""
    rng = np.random.default_rng(5)
    bonafide = np.r_[rng.normal(2, 1, 300), np.inf, np.inf, -np.inf]
    spoof = np.r_[rng.normal(-2, 1.5, 900), -np.inf, np.inf, np.inf]
    tar, non, spoof_asv = asv.tar, asv.non, asv.spoof
    result = lc.tdcf(bonafide, spoof, tar, non, spoof_asv, formulation=formulation, cost_model=COSTS[formulation])
    thresholds, curve, best, _ = brute_force_tdcf(bonafide, spoof, tar, non, spoof_asv, result.asv_threshold,
                                                  formulation)
    np.testing.assert_array_equal(result.thresholds, thresholds)
    np.testing.assert_allclose(result.curve, curve, rtol=1e-12, atol=1e-15)
    assert (result.pmiss_cm[-1], result.pfa_cm[-1]) == (1.0, 0.0)
    assert result.minimum == pytest.approx(curve[best], rel=1e-12)
    theirs, _ = organisers_tdcf(bonafide, spoof, tar, non, spoof_asv, formulation)
    assert result.minimum == pytest.approx(float(np.min(theirs)), rel=1e-12)


def test_useless_asv_gives_sentences():
    # an ASV that accepts no spoof leaves nothing for a CM to do: the legacy normaliser is 0
    with pytest.raises(ValueError, match="cannot be normalised"):
        lc.tdcf([1.0, 2.0], [0.0, 1.0], [2.0, 3.0], [0.0, 1.0], [-5.0], formulation="legacy", asv_threshold=1.5)
    # non-targets so likely and costly that accepting them all outweighs the targets: C1 < 0 (legacy)
    with pytest.raises(ValueError, match="negative weight"):
        lc.tdcf([1.0, 2.0], [0.0, 1.0], [2.0, 3.0], [0.0, 1.0], [5.0], formulation="legacy", asv_threshold=-10,
                cost_model={**COSTS["legacy"], "Ptar": 0.1, "Pnon": 0.85})
