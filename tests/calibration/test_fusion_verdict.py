"""The fusion's verdict judged at the operating point as well as by Cllr: a fusion that wins by Cllr and loses at the
operating point says both, one that wins at both says so.

Independent references: normalised actual DCF counted by hand with numpy at the Bayes threshold (accept when
``llr >= -logit(P)``, ``DCF = (P Pmiss + (1 - P) Pfa) / min(P, 1 - P)``) on the fused and singly calibrated LLRs the
fusion returns.
"""
from __future__ import annotations

import numpy as np
import pytest

import llrcore as lc
from paths import ASSETS

CM = ASSETS / "asvspoof2019_la_cm"


def act_dcf(tar: np.ndarray, non: np.ndarray, p: float) -> float:
    """Normalised actual DCF at P_target `p`, unit costs, counted by hand."""
    threshold = -np.log(p / (1 - p))
    return (p * np.mean(tar < threshold) + (1 - p) * np.mean(non >= threshold)) / min(p, 1 - p)


@pytest.fixture(scope="module")
def cm_fusion() -> lc.FusionResult:
    dev, evaluation = (lc.read_trials(CM / f"ASVspoof2019.LA.cm.{part}.scores.tsv.gz") for part in ("dev", "eval"))
    return lc.fuse(dev, evaluation, regularisation=1e-3, p_target=0.01)


def test_the_demo_fusion_beats_by_cllr_but_not_at_the_operating_point_and_says_both(cm_fusion):
    """The Fusion page's demo: better Cllr than the best single system, yet actDCF 3.03 at P_target 0.01, worse
    than no system and than LFCC-GMM alone (0.94). The verdict says both, with the operating point."""
    fused = cm_fusion.fused_eval
    singles = {name: act_dcf(t.tar, t.non, 0.01) for name, t in cm_fusion.calibrated_eval.items()}
    ours = act_dcf(fused.tar, fused.non, 0.01)
    assert ours > 1 and min(singles, key=singles.get) == "LFCC-GMM" and singles["LFCC-GMM"] < 1
    assert cm_fusion.beats_best_single  # by Cllr
    assert cm_fusion.best_single_at_operating_point == "LFCC-GMM"
    assert cm_fusion.beats_at_operating_point is False
    verdict = cm_fusion.sentence()
    assert "On Cllr (every operating point at once), the fusion beats the best single system, RawNet2-a" in verdict
    assert (f"At the operating point (P_target = 0.01) it does not beat the best there, LFCC-GMM alone: actDCF "
            f"{ours:.3f} vs {singles['LFCC-GMM']:.3f} (1 = deciding without any system); worse than no system "
            "there.") in verdict


def test_a_fusion_that_wins_at_the_operating_point_says_so():
    """Two calibrated-Gaussian systems with independent errors on the same trials: fusing them helps everywhere."""
    rng = np.random.default_rng(3)

    def systems(n_tar, n_non):
        truth = np.concatenate([rng.normal(2.0, 1.0, n_tar), rng.normal(-2.0, 1.0, n_non)])
        return {name: lc.Trials(*np.split(truth + rng.normal(0.0, 1.5, truth.size), [n_tar]), name=name)
                for name in ("a", "b")}

    result = lc.fuse(systems(1000, 4000), systems(1000, 4000), p_target=0.1, c_miss=1.0, c_fa=1.0)
    fused = result.fused_eval
    ours = act_dcf(fused.tar, fused.non, 0.1)
    singles = {name: act_dcf(t.tar, t.non, 0.1) for name, t in result.calibrated_eval.items()}
    assert ours < min(singles.values()) < 1  # the hand reference: the fusion wins at P_target 0.1
    assert result.beats_at_operating_point and result.beats_best_single
    best = min(singles, key=singles.get)
    assert (f"At the operating point (P_target = 0.1) it beats the best there, {best} alone: actDCF {ours:.3f} vs "
            f"{singles[best]:.3f} (1 = deciding without any system).") in result.sentence()
