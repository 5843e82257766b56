"""ASVspoof 5's SASV metrics: the a-DCF (``lc.a_dcf``) and the concurrent t-EER (``lc.t_eer``), pooled and per attack.

Independent references:

1. The organisers' code, vendored test-only in ``tests/reference/asvspoof5_eval.py`` (MIT; provenance and commits in
   its docstring): the a-DCF of the ASVspoof 5 evaluation package (``a_dcf.py``, from github.com/shimhz/a_DCF) and
   the concurrent t-EER loop of the t-EER paper's code (github.com/TakHemlata/T-EER), which the ASVspoof 5 package's
   ``compute_teer`` wraps unchanged for rho = 0.5. On the real ASVspoof 2019 LA evaluation scores (the organisers'
   ASV scores, the four CMs shipped in ``assets/``): the min a-DCF equals theirs bit for bit with both cost models
   (the file keeps 6 decimals, so there are ties); the t-EER equals theirs bit for bit on every 20th score of each
   class (their loop is O(M N): 37 s on the full files), and on random lists without ties. On heavily tied lists
   (scores rounded to integers) it equals their loop run on the points of their curves that a threshold reaches
   (the ends of each block of tied scores): their curves split tie blocks, ours never do.
2. The ASVspoof 5 evaluation package itself (github.com/asvspoof-challenge/asvspoof5 at commit
   fe23d3053a0889b305d98c9e4cadf418c213d972, ``evaluation-package/calculate_modules.py``, which carries no licence
   and is not copied), run once by hand in a scratch folder on the full files (read with ``lc.read_trials``; CM bona
   fide and spoof, ASV target, non-target and spoof), as its ``calculate_aDCF_tdcf_tEER`` calls it: ``t-EER %``
   from ``compute_teer_accelerated`` — LFCC-GMM 3.7419191514603005, RawNet2-a 4.452085916709393, RawNet2-b
   4.277918387105277, RawNet2-c 4.841957006645266; its exhaustive ``compute_teer`` gives the same for LFCC-GMM
   (3.7419191514603005) and RawNet2-a (4.452085916709393). Asserted here divided by 100 (ours is a fraction).
3. Hand values on tiny lists, with and without tied scores, worked from the formulas of Shim et al. (Odyssey 2024)
   and Kinnunen et al. (IEEE TPAMI 2023) in the test's comments.
4. The presets typed from the two sources: ASVspoof 5's ``calculate_metrics.py`` and the a-DCF repository's defaults.
"""
from __future__ import annotations


import numpy as np
import pytest

import llrcore as lc
from reference import vendored
from paths import ROOT

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
ORGANISERS_TEER_PERCENT = {"LFCC-GMM": 3.7419191514603005, "RawNet2-a": 4.452085916709393,
                           "RawNet2-b": 4.277918387105277, "RawNet2-c": 4.841957006645266}


REF = vendored("asvspoof5_eval")


@pytest.fixture(scope="module")
def asv():
    return lc.read_trials(ASV)


@pytest.fixture(scope="module")
def cms():
    return lc.read_trials(CM)


# --- 1. the organisers' code on real scores -------------------------------------------------------------------------

@pytest.mark.parametrize("preset, model", [
    ("asvspoof5", REF.CostModel(Ptrg=0.95 * 0.99, Pnontrg=0.95 * 0.01, Pspf=0.05, Cmiss=1, Cfa_asv=10, Cfa_cm=10)),
    ("a-dcf-paper", REF.CostModel()),
])
def test_min_a_dcf_is_the_organisers_on_the_asvspoof2019_asv_scores(asv, preset, model):
    ours = lc.a_dcf(asv.tar, asv.non, asv.spoof, cost_model=preset)
    theirs = REF.calculate_a_dcf(asv.tar, asv.non, asv.spoof, model)
    assert ours.minimum == float(theirs["min_a_dcf"])
    # their threshold is the highest rejected score, ours the lowest accepted one of the same point
    assert ours.threshold == np.min(np.concatenate([asv.tar, asv.non, asv.spoof])[
        np.concatenate([asv.tar, asv.non, asv.spoof]) > theirs["min_a_dcf_thresh"]])


def test_min_a_dcf_is_the_organisers_on_heavily_tied_scores():
    rng = np.random.default_rng(3)
    tar, non, spoof = (np.round(rng.normal(m, 1, n), 0) for m, n in ((2, 300), (-1, 500), (0.5, 400)))
    for preset, model in (("asvspoof5", REF.CostModel(Ptrg=0.9405, Pnontrg=0.0095, Pspf=0.05, Cfa_cm=10)),
                          ("a-dcf-paper", REF.CostModel())):
        theirs = REF.calculate_a_dcf(tar, non, spoof, model)["min_a_dcf"]
        assert lc.a_dcf(tar, non, spoof, cost_model=preset).minimum == pytest.approx(float(theirs), abs=1e-15)


@pytest.mark.parametrize("system", ["LFCC-GMM", "RawNet2-a"])
def test_t_eer_is_the_organisers_on_a_subset_of_the_real_scores(asv, cms, system):
    cm = cms[system]
    parts = [np.sort(x)[::20] for x in (cm.tar, cm.non, asv.tar, asv.non, asv.spoof)]
    theirs, _ = REF.t_eer(*parts)
    assert lc.t_eer(*parts).value == pytest.approx(theirs / 100, rel=1e-15)


def _block_ends(thresholds: np.ndarray) -> np.ndarray:
    """The points of the organisers' curve that a threshold reaches: the first (accept all) and those after the last
    score of a block of tied scores (their point k has rejected the k lowest scores, ``thresholds[k]`` the k-th)."""
    k = np.arange(thresholds.size)
    return (k == 0) | (k == thresholds.size - 1) | (thresholds != np.append(thresholds[1:], np.nan))


@pytest.mark.parametrize("seed", range(12))
def test_t_eer_is_the_organisers_loop_on_random_scores_with_and_without_ties(seed):
    rng = np.random.default_rng(seed)
    sizes, shifts = rng.integers(2, 60, 5), rng.uniform(-1, 4, 3)
    parts = [rng.normal(shifts[0], 1, sizes[0]), rng.normal(0, 1, sizes[1]), rng.normal(shifts[1], 1, sizes[2]),
             rng.normal(0, 1, sizes[3]), rng.normal(shifts[2], 1.5, sizes[4])]
    assert 100 * lc.t_eer(*parts).value == REF.t_eer(*parts)[0]  # no ties: the same points, bit for bit
    tied = [np.round(part) for part in parts]  # many ties: their loop on the points a threshold reaches
    pmiss_asv, pfa_non, pfa_spoof, tau_asv = REF.compute_Pmiss_Pfa_Pspoof_curves(*tied[2:])
    pmiss_cm, pfa_cm, tau_cm = REF.compute_det_curve(*tied[:2])
    cm, asv = _block_ends(tau_cm), _block_ends(tau_asv)
    theirs, _ = REF.concurrent_teer(pmiss_cm[cm], pfa_cm[cm], tau_cm[cm], pmiss_asv[asv], pfa_non[asv],
                                    pfa_spoof[asv], tau_asv[asv])
    assert 100 * lc.t_eer(*tied).value == theirs


# --- 2. the ASVspoof 5 package's values on the full files -----------------------------------------------------------

@pytest.mark.parametrize("system", list(ORGANISERS_TEER_PERCENT))
def test_t_eer_equals_the_asvspoof5_package_on_the_full_asvspoof2019_files(asv, cms, system):
    cm = cms[system]
    result = lc.t_eer(cm.tar, cm.non, asv.tar, asv.non, asv.spoof)
    assert result.value == pytest.approx(ORGANISERS_TEER_PERCENT[system] / 100, rel=1e-15)
    assert float(result) == result.value
    # at the concurrent point the tandem's three error rates are (nearly) equal
    assert result.pmiss == pytest.approx(result.value, rel=0.01)
    assert result.pfa_nontarget == pytest.approx(result.value, rel=0.01)


def test_per_attack_table_runs_each_row_on_its_own_trials(asv, cms):
    evaluation = lc.evaluate_tandem(cms["LFCC-GMM"], asv)
    table = lc.sasv_table(evaluation)
    assert list(table["attack"]) == [row.attack for row in evaluation.rows]
    pooled = table.set_index("attack").loc["pooled"]
    assert pooled["t-EER %"] == pytest.approx(ORGANISERS_TEER_PERCENT["LFCC-GMM"], rel=1e-15)
    a09 = asv.metadata["attack"].to_numpy()[asv.tar.size + asv.non.size:] == "A09"
    by_hand = lc.a_dcf(asv.tar, asv.non, asv.spoof[a09]).minimum
    assert table.set_index("attack").loc["A09", "min a-DCF (ASV)"] == by_hand
    cm = cms["LFCC-GMM"]
    spoofs = cm.metadata["attack"].to_numpy()[cm.tar.size:] == "A09"
    theirs, _ = REF.t_eer(cm.tar, cm.non[spoofs][::4], asv.tar[::4], asv.non[::4], asv.spoof[a09][::4])
    ours = lc.t_eer(cm.tar, cm.non[spoofs][::4], asv.tar[::4], asv.non[::4], asv.spoof[a09][::4]).value
    assert ours == pytest.approx(theirs / 100, rel=1e-15)
    fractions = lc.sasv_table(evaluation, percent=False)
    assert np.allclose(fractions["t-EER"] * 100, table["t-EER %"], rtol=1e-15)


# --- 3. hand values --------------------------------------------------------------------------------------------------

HAND_MODEL = {"Ptar": 0.5, "Pnon": 0.25, "Pspoof": 0.25, "Cmiss": 1, "Cfa_asv": 1, "Cfa_cm": 1}


def test_a_dcf_by_hand_with_ties():
    # thresholds 0, 1, 2, 3, inf; normaliser min(0.5, 0.25 + 0.25) = 0.5
    # t=0: (0, 1, 1) -> 0.5/0.5 = 1; t=1: (0, 1, .5) -> .375/.5; t=2: (0, .5, .5) -> .25/.5; t=3: (.5, 0, 0) -> .5;
    # inf: (1, 0, 0) -> 1. Minimum 0.5, first at t = 2 (a tie of a target, a non-target and a spoof).
    result = lc.a_dcf([2, 3], [1, 2], [0, 2], cost_model=HAND_MODEL)
    assert result.curve == pytest.approx([1.0, 0.75, 0.5, 0.5, 1.0], abs=1e-15)
    assert (result.minimum, result.threshold, result.default) == (0.5, 2.0, 0.5)
    assert list(result.thresholds) == [0, 1, 2, 3, np.inf]
    assert lc.a_dcf([2, 3], [1, 2], [0, 2], cost_model=HAND_MODEL, threshold=1).actual == pytest.approx(0.75)
    assert np.isnan(result.actual)
    assert list(result.to_frame().columns) == ["threshold", "pmiss", "pfa_nontarget", "pfa_spoof", "a_dcf"]


def test_a_dcf_by_hand_with_infinite_scores():
    # target [1, inf], non-target [-inf, 2], spoof [0, inf]; thresholds -inf, 0, 1, 2, inf, then reject all:
    # -inf: (0, 1, 1) -> (.25 + .25)/.5 = 1; 0: (0, .5, 1) -> (.125 + .25)/.5 = .75; 1: (0, .5, .5) -> .25/.5 = .5;
    # 2: (.5, .5, .5) -> (.25 + .125 + .125)/.5 = 1; inf (accepts the +inf target and spoof): (.5, 0, .5) ->
    # (.25 + .125)/.5 = .75; reject all, +inf scores included: (1, 0, 0) -> .5/.5 = 1.
    result = lc.a_dcf([1, np.inf], [-np.inf, 2], [0, np.inf], cost_model=HAND_MODEL)
    assert result.curve == pytest.approx([1.0, 0.75, 0.5, 1.0, 0.75, 1.0], abs=1e-15)
    assert list(result.thresholds) == [-np.inf, 0, 1, 2, np.inf, np.inf]
    assert (result.minimum, result.threshold) == (0.5, 1.0)
    assert lc.a_dcf([1, np.inf], [-np.inf, 2], [0, np.inf], cost_model=HAND_MODEL, threshold=np.inf).actual == 0.75
    theirs = REF.calculate_a_dcf(np.array([1, np.inf]), np.array([-np.inf, 2]), np.array([0, np.inf]),
                                 REF.CostModel(Ptrg=0.5, Pnontrg=0.25, Pspf=0.25, Cmiss=1, Cfa_asv=1, Cfa_cm=1))
    assert float(theirs["min_a_dcf"]) == 0.5


@pytest.mark.parametrize("preset, model", [
    ("asvspoof5", REF.CostModel(Ptrg=0.95 * 0.99, Pnontrg=0.95 * 0.01, Pspf=0.05, Cmiss=1, Cfa_asv=10, Cfa_cm=10)),
    ("a-dcf-paper", REF.CostModel()),
])
def test_min_a_dcf_is_the_organisers_with_infinite_scores(asv, preset, model):
    # every 7th score of each class made certain: the lowest tenth -inf, the highest tenth +inf
    rng = np.random.default_rng(5)
    parts = []
    for scores in (asv.tar, asv.non, asv.spoof):
        scores = np.sort(scores)[::7].copy()
        tenth = scores.size // 10
        scores[:tenth], scores[-tenth:] = -np.inf, np.inf
        parts.append(rng.permutation(scores))
    ours = lc.a_dcf(*parts, cost_model=preset).minimum
    assert ours == float(REF.calculate_a_dcf(*parts, model)["min_a_dcf"])
    # their code takes the infinities as they are; with large finite stand-ins it gives the same minimum
    stand_ins = [np.clip(part, -1e300, 1e300) for part in parts]
    assert ours == float(REF.calculate_a_dcf(*stand_ins, model)["min_a_dcf"])
    assert ours == lc.a_dcf(*stand_ins, cost_model=preset).minimum


def test_a_dcf_presets():
    assert lc.a_dcf_cost_model() == pytest.approx({"Ptar": 0.9405, "Pnon": 0.0095, "Pspoof": 0.05, "Cmiss": 1,
                                                   "Cfa_asv": 10, "Cfa_cm": 10})
    assert lc.a_dcf_cost_model("a-dcf-paper") == {"Ptar": 0.9, "Pnon": 0.05, "Pspoof": 0.05, "Cmiss": 1,
                                                  "Cfa_asv": 10, "Cfa_cm": 20}
    # ASVspoof 5: normaliser min(10 * 0.0095 + 10 * 0.05, 0.9405) = 0.595
    assert lc.a_dcf([1.0], [0.0], [0.0]).default == pytest.approx(0.595)


def test_t_eer_by_hand():
    # CM bona fide [1, 3], spoof [0, 2]: points t = 0, 1, 2, 3, inf with Pmiss_cm 0, 0, .5, .5, 1 and Pfa_cm
    # 1, .5, .5, 0, 0. ASV target [2, 3], non-target [0], spoof [1]: points 0, 1, 2, 3, inf with Pmiss 0, 0, 0, .5, 1,
    # Pfa_non 1, 0, 0, 0, 0, Pfa_spoof 1, 1, 0, 0, 0; a t-EER exists (Pmiss < (Pfa_non + Pfa_spoof) / 2) at 0 and 1.
    # ASV 0: Pmiss_tdm - Pfa_tdm = Pmiss_cm - (1 - Pmiss_cm)/2 - Pfa_cm/2 = -1, -.75, 0, .25, 1: CM 2, where
    # |Pfa_non/Pfa_spoof - Pfa_cm/(1 - Pmiss_cm)| = |1 - 1| = 0: the crossing, t-EER = Pfa_spoof Pfa_cm = 0.5.
    result = lc.t_eer([1, 3], [0, 2], [2, 3], [0], [1])
    assert (result.value, result.cm_threshold, result.asv_threshold) == (0.5, 2.0, 0.0)
    assert (result.pmiss, result.pfa_nontarget, result.pfa_spoof) == (0.5, 0.5, 0.5)
    # ASV 1: gaps -.5, -.25, .25, .5, 1: a tie of |gap| at CM 1 and 2, the first taken (as argmin does): CM 1
    assert list(result.path_asv) == [0.0, 1.0] and list(result.path_cm) == [2.0, 1.0]
    assert REF.t_eer(*(np.array(x, float) for x in ([1, 3], [0, 2], [2, 3], [0], [1])))[0] == 50.0


def test_t_eer_by_hand_with_a_tie_across_the_cm_classes():
    # CM bona fide [1, 2], spoof [0, 1] (1 is tied): points 0, 1, 2, inf, Pmiss_cm 0, 0, .5, 1, Pfa_cm 1, .5, 0, 0.
    # Same ASV as above. ASV 0: gaps -1, -.75, .25, 1 -> CM 2, criterion |1 - 0/.5| = 1. ASV 1 (Pfa_non 0):
    # gaps -.5, -.25, .5, 1 -> CM 1, criterion |0 - .5/1| = .5, the smaller: t-EER = 1 × .5.
    result = lc.t_eer([1, 2], [0, 1], [2, 3], [0], [1])
    assert (result.value, result.cm_threshold, result.asv_threshold) == (0.5, 1.0, 1.0)


# --- 4. refusals -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    (lambda: lc.a_dcf([1], [0], [0], cost_model="asvspoof2019"), "Unknown a-DCF cost model"),
    (lambda: lc.a_dcf([1], [0], [0], cost_model={**HAND_MODEL, "Ptar": 0.6}), "add up to 1"),
    (lambda: lc.a_dcf([1], [0], [0], cost_model={"Ptar": 1}), "takes exactly"),
    (lambda: lc.a_dcf([], [0], [0]), "no SASV scores of target trials"),
    (lambda: lc.a_dcf([1], [0], [np.nan]), "SASV scores of spoofed trials contain 1 missing values"),
    (lambda: lc.a_dcf([1], [0], [0], threshold=np.nan), "missing"),
    (lambda: lc.t_eer([1], [0], [1], [0], [np.nan]), "missing values"),
    (lambda: lc.t_eer([1], [np.nan], [0], [1], [1]), "CM scores of spoofed trials contain 1 missing values"),
])
def test_refusals_are_sentences(call, words):
    with pytest.raises(ValueError, match=words):
        call()
