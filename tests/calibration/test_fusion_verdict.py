"""The library side of issue 28's "State and consistency in the app": the fusion's verdict at the operating point,
the time a written HTML report says it was made, and the speaker counts of a diarization corpus.

Independent references: normalised actual DCF counted by hand with numpy at the Bayes threshold (accept when
``llr >= -logit(P)``, ``DCF = (P Pmiss + (1 - P) Pfa) / min(P, 1 - P)``) on the fused and singly calibrated LLRs the
fusion returns; this test's clock for the report; speaker counts read from the reference RTTM files with pandas and
hand-made components for the corpus.
"""
from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

import llrcore as lc
from llrcore.diarization.corpus import CorpusScores
from paths import ASSETS

CM = ASSETS / "asvspoof2019_la_cm"
CORPUS = ASSETS / "diarization_corpus"


def act_dcf(tar: np.ndarray, non: np.ndarray, p: float) -> float:
    """Normalised actual DCF at P_target `p`, unit costs, counted by hand."""
    threshold = -np.log(p / (1 - p))
    return (p * np.mean(tar < threshold) + (1 - p) * np.mean(non >= threshold)) / min(p, 1 - p)


# ----- the fusion's verdict -------------------------------------------------------------------------------------------


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


# ----- the time in a written report -----------------------------------------------------------------------------------


def made_on(page: str) -> list[str]:
    return re.findall(r"[Mm]ade with llrcore \S+ on (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", page)


def test_a_report_written_later_says_when_it_was_written_not_when_it_was_computed():
    rng = np.random.default_rng(0)
    report = lc.build_report({"s": lc.Trials(rng.normal(2, 2, 200), rng.normal(-2, 2, 2000))}, calibrate=False)
    long_ago = datetime(2001, 2, 3, 4, 5, tzinfo=UTC)
    cached = dataclasses.replace(report, created=long_ago)  # a report built long before its download
    before = datetime.now(UTC).astimezone().replace(microsecond=0)
    stamps = made_on(cached.to_html())
    after = datetime.now(UTC).astimezone()
    assert len(stamps) == 2 and "2001-02-03 04:05:00" not in stamps
    for stamp in stamps:
        written = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=after.tzinfo)
        assert before <= written <= after
    given = datetime(2030, 6, 7, 8, 9, tzinfo=UTC)
    assert made_on(cached.to_html(written=given)) == ["2030-06-07 08:09:00"] * 2


# ----- speaker counts of a corpus -------------------------------------------------------------------------------------


def test_speaker_counts_right_per_recording_and_the_total_absolute_error():
    components = pd.DataFrame({"speakers": [3.0, 3.0, 2.0, 1.0], "found": [4.0, 2.0, 2.0, 1.0]},
                              index=pd.Index(["a", "b", "c", "d"], name="uri"))
    scores = CorpusScores(components=components, collar=0.25, skip_overlap=True)
    assert scores.total["found"] == scores.total["speakers"]  # the totals hide both errors
    assert scores.right_counts == 2
    assert scores.count_error == 2


def test_speaker_counts_of_the_demo_corpus_against_its_rttm_files():
    matrices = lc.read_corpus(CORPUS)
    hypotheses = lc.cluster_recordings(matrices, "bayes")
    scores = lc.score_corpus(matrices, hypotheses)
    found = hypotheses.groupby("uri")["speaker"].nunique()
    reference = {path.stem: pd.read_csv(path, sep=r"\s+", header=None)[7].nunique()
                 for path in sorted(CORPUS.glob("*.rttm"))}
    errors = [abs(found.get(uri, 0) - n) for uri, n in reference.items()]
    # 5 and 1 since issue 32's default prior by the kind of scores (the recording's own prior: 4 and 2); 5 and 2 since
    # NME-SC's count as the floor on cosines (synth10_k05's 5 speakers found, synth05_k03's 3 found as NME-SC's 5)
    assert scores.right_counts == sum(e == 0 for e in errors) == 5
    assert scores.count_error == sum(errors) == 2
