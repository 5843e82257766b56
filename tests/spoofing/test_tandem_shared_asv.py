"""The ASV's side of the tandem computed once for every CM (``lc.asv_points``, ``lc.tandem_asv``), the t-EER's
search of its crossings, and a tandem judged again by another t-DCF (``TandemEvaluation.judged``).

Independent references:

1. The per-call path on the real ASVspoof 2019 LA evaluation scores (the organisers' ASV file and the four CMs in
   assets/): ``lc.t_eer`` on each row's trials picked by hand with numpy from the files' ``attack`` column in file
   order, every field and the whole path equal to the last bit to the shared path's.
2. The organisers' loop, vendored test-only in ``tests/reference/asvspoof5_eval.py`` (MIT; provenance in its
   docstring): its curves (``compute_det_curve``, ``compute_Pmiss_Pfa_Pspoof_curves``) and its line
   ``np.argmin(abs(Pmiss_tdm - Pfa_tdm))`` for every ASV point, run here on all ASV points at once with the same
   operations in the same order; the t-EER path (``convention="asvspoof5"``) is that argmin at every ASV point where
   a t-EER exists, on real scores as they are and rounded (many tied scores, runs of equal gaps).
3. ``lc.evaluate_tandem`` run with the other formulation and cost model, for ``judged``.
"""
from __future__ import annotations

import numpy as np
import pytest
from paths import ROOT
from reference import vendored

import llrcore as lc

ASV = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
REF = vendored("asvspoof5_eval")
FIELDS = ("value", "cm_threshold", "asv_threshold", "pmiss", "pfa_nontarget", "pfa_spoof", "path_asv", "path_cm",
          "path_teer")


@pytest.fixture(scope="module")
def demo():
    """The organisers' ASV scores, the four CMs' and each CM in tandem with the ASV (ASVspoof 2019 LA eval)."""
    asv, cms = lc.read_trials(ASV), lc.read_trials(CM)
    return asv, cms, {name: lc.evaluate_tandem(cm, asv, name=name) for name, cm in cms.items()}


def assert_same(ours: lc.TandemEER, expected: lc.TandemEER) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(ours, name), getattr(expected, name), err_msg=name)


def test_one_asv_side_gives_every_cm_its_per_call_t_eer_bit_for_bit(demo):
    asv, cms, evaluations = demo
    side = lc.tandem_asv(next(iter(evaluations.values())))
    asv_attack = asv.metadata["attack"].to_numpy()[asv.tar.size + asv.non.size:]
    for name, evaluation in evaluations.items():
        cm = cms[name]
        cm_attack = cm.metadata["attack"].to_numpy()[cm.tar.size:]
        table = lc.sasv_table(evaluation, asv=side)
        assert table.equals(lc.sasv_table(evaluation))
        table = table.set_index("attack")
        for row in evaluation.rows:
            pick = slice(None) if row.attack == "pooled" else cm_attack == row.attack
            asv_pick = slice(None) if row.attack == "pooled" else asv_attack == row.attack
            per_call = lc.t_eer(cm.tar, cm.non[pick], asv.tar, asv.non, asv.spoof[asv_pick])
            assert table.loc[row.attack, "t-EER %"] == 100 * per_call.value
            assert table.loc[row.attack, "min a-DCF (ASV)"] == lc.a_dcf(asv.tar, asv.non, asv.spoof[asv_pick]).minimum
            if row.attack == "pooled":
                assert_same(lc.t_eer(cm.tar, cm.non, asv=side.points["pooled"]), per_call)


@pytest.mark.parametrize("decimals", [None, 1])
def test_asv_points_give_the_per_call_t_eer_in_every_convention(demo, decimals):
    asv, cms, _ = demo
    parts = [x[::5] if decimals is None else np.round(x[::5], decimals)
             for x in (cms["RawNet2-b"].tar, cms["RawNet2-b"].non, asv.tar, asv.non, asv.spoof)]
    for convention in lc.TEER_CONVENTIONS:
        points = lc.asv_points(*parts[2:], convention=convention)
        assert points.convention == convention and not points.pmiss.flags.writeable
        assert_same(lc.t_eer(*parts[:2], asv=points, convention=convention),
                    lc.t_eer(*parts, convention=convention))


def _their_path(cm_bonafide, cm_spoof, asv_tar, asv_non, asv_spoof):
    """The CM threshold and the t-EER ``(Pmiss_tdm + Pfa_tdm) / 2`` their loop pairs with every ASV point where a
    t-EER exists: its argmin line for all ASV points at once (rows), the same operations in the same order."""
    pmiss_cm, pfa_cm, tau_cm = REF.compute_det_curve(cm_bonafide, cm_spoof)
    pmiss_asv, pfa_non, pfa_spoof, _ = REF.compute_Pmiss_Pfa_Pspoof_curves(asv_tar, asv_non, asv_spoof)
    allowed = pmiss_asv < 0.5 * pfa_non + 0.5 * pfa_spoof
    a, b, c = (rate[allowed, None] for rate in (pmiss_asv, pfa_non, pfa_spoof))
    pmiss_tdm = pmiss_cm + (1 - pmiss_cm) * a
    pfa_tdm = (1 - 0.5) * (1 - pmiss_cm) * b + 0.5 * pfa_cm * c
    index = np.argmin(abs(pmiss_tdm - pfa_tdm), axis=1)
    rows = np.arange(index.size)
    return tau_cm[index], (pmiss_tdm[rows, index] + pfa_tdm[rows, index]) / 2


@pytest.mark.parametrize("decimals", [None, 2, 1, 0])
def test_the_path_is_their_argmin_at_every_asv_point(demo, decimals):
    asv, cms, _ = demo
    parts = [x[::37] for x in (cms["LFCC-GMM"].tar, cms["LFCC-GMM"].non, asv.tar, asv.non, asv.spoof)]
    if decimals is not None:
        parts = [np.round(x, decimals) for x in parts]
    cm_thresholds, teer = _their_path(*parts)
    ours = lc.t_eer(*parts, convention="asvspoof5")
    np.testing.assert_array_equal(ours.path_cm, cm_thresholds)
    np.testing.assert_array_equal(ours.path_teer, teer)


@pytest.mark.parametrize("decimals", [0, 1, 2])
def test_the_path_is_their_argmin_on_random_scores_with_runs_of_equal_gaps(decimals):
    """Where the ASV accepts no spoof, the gap does not move while the CM rejects only spoofs: their argmin takes the
    first point of such a run."""
    for seed in range(40):
        rng = np.random.default_rng(seed)
        sizes = rng.integers(5, 300, 5)
        parts = [np.round(rng.normal(mean, 1, size), decimals)
                 for mean, size in zip((1.5, -1, 3, 0, rng.uniform(-2, 3)), sizes)]
        cm_thresholds, teer = _their_path(*parts)
        ours = lc.t_eer(*parts, convention="asvspoof5")
        np.testing.assert_array_equal(ours.path_cm, cm_thresholds, err_msg=f"seed {seed}")
        np.testing.assert_array_equal(ours.path_teer, teer, err_msg=f"seed {seed}")


def test_judged_is_the_evaluation_with_that_t_dcf(demo):
    asv, cms, evaluations = demo
    costs = {**lc.tdcf_cost_model("legacy"), "Cfa_cm": 5.0}
    expected = lc.evaluate_tandem(cms["LFCC-GMM"], asv, formulation="legacy", cost_model=costs, name="LFCC-GMM")
    judged = evaluations["LFCC-GMM"].judged(formulation="legacy", cost_model=costs)
    assert judged.formulation == "legacy" and judged.to_frame().equals(expected.to_frame())
    assert lc.tandem_table([judged]).equals(lc.tandem_table([expected])) and judged.notes() == expected.notes()
    for ours, theirs in zip(judged.rows, expected.rows):
        np.testing.assert_array_equal(ours.tdcf.curve, theirs.tdcf.curve)
        assert (ours.tdcf.c0, ours.tdcf.c1, ours.tdcf.c2) == (theirs.tdcf.c0, theirs.tdcf.c1, theirs.tdcf.c2)
        assert ours.cm_trials is evaluations["LFCC-GMM"].rows[judged.rows.index(ours)].cm_trials  # kept, not redone
    with pytest.raises(ValueError, match="cost model lacks Cfa_spoof"):
        judged.judged(formulation="revised", cost_model={k: v for k, v in lc.tdcf_cost_model().items()
                                                           if k != "Cfa_spoof"})


def test_refusals_are_sentences(demo):
    asv, cms, evaluations = demo
    cm = cms["LFCC-GMM"]
    points = lc.asv_points(asv.tar, asv.non, asv.spoof)
    with pytest.raises(ValueError, match="Give the ASV's scores .* or its points .*, not both"):
        lc.t_eer(cm.tar, cm.non, asv.tar, asv.non, asv.spoof, asv=points)
    with pytest.raises(ValueError, match="Give the ASV's target, non-target and spoof scores"):
        lc.t_eer(cm.tar, cm.non, asv.tar)
    with pytest.raises(ValueError, match="These ASV points are for the 'llrcore' t-EER"):
        lc.t_eer(cm.tar, cm.non, asv=points, convention="asvspoof5")
    with pytest.raises(TypeError, match="asv= takes the ASV's points made by lc.asv_points, not a Trials"):
        lc.t_eer(cm.tar, cm.non, asv=asv)
    evaluation = evaluations["LFCC-GMM"]
    side = lc.tandem_asv(evaluation)
    with pytest.raises(ValueError, match="made for the 'llrcore' t-EER, not the 'asvspoof5' one"):
        lc.sasv_table(evaluation, asv=side, teer_convention="asvspoof5")
    with pytest.raises(ValueError, match="another a-DCF cost model"):
        lc.sasv_table(evaluation, asv=side, cost_model="a-dcf-paper")
    other = lc.Trials(asv.tar, asv.non, spoof=asv.spoof + 1e-9, metadata=asv.metadata)
    with pytest.raises(ValueError, match="is not of the ASV of LFCC-GMM"):
        lc.sasv_table(lc.evaluate_tandem(cm, other, name="LFCC-GMM"), asv=side)
