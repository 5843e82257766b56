"""Scoring any system's RTTM against a reference with explicit conventions (llrcore.diarization.system_scoring,
``llrcore der``).

Independent references: DERs computed by hand on tiny RTTMs (written out in each test), and pyannote.metrics'
``DiarizationErrorRate`` called directly with its own collar convention (total width) and an explicit UEM.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from llrcore.cli import main
from llrcore.diarization.system_scoring import WHY_TOOLS_DIFFER, score_system


def turns(*rows):
    return pd.DataFrame(rows, columns=["uri", "start", "end", "speaker"])


REF = turns(("a", 0.0, 10.0, "A"), ("a", 10.0, 20.0, "B"))
SYS = turns(("a", 0.0, 12.0, "s1"), ("a", 12.0, 20.0, "s2"))


def test_hand_der_without_collar():
    """2 s of B given to A's cluster: 2 / 20."""
    assert score_system(REF, SYS, collar=0).der == pytest.approx(0.1)


def test_md_eval_collar_is_on_each_side_and_pyannote_collar_is_the_width():
    """md-eval 0.25 s: [0, 0.25], [9.75, 10.25], [19.75, 20] not scored: 19 s of speech, 10.25..12 confused."""
    md = score_system(REF, SYS, collar=0.25, collar_convention="md-eval")
    pa = score_system(REF, SYS, collar=0.5, collar_convention="pyannote")
    assert md.der == pytest.approx(1.75 / 19) and pa.der == pytest.approx(1.75 / 19)
    assert score_system(REF, SYS, collar=0.25, collar_convention="pyannote").der == pytest.approx(1.875 / 19.5)


def test_overlap_scored_or_skipped():
    """A 0-10 and B 8-10 overlap; one system speaker 0-10. Skipped: 8 s scored, no error. Scored: 12 s of
    reference speech, B's 2 s missed."""
    ref = turns(("a", 0.0, 10.0, "A"), ("a", 8.0, 10.0, "B"))
    sys_ = turns(("a", 0.0, 10.0, "s1"))
    assert score_system(ref, sys_, collar=0, skip_overlap=True).der == pytest.approx(0.0)
    assert score_system(ref, sys_, collar=0, skip_overlap=False).der == pytest.approx(2 / 12)


def test_extent_reference_or_both():
    """System speech 10-12 after the last reference turn: a false alarm of 2 s over 10 s when reference and system
    set the region (dscore), nothing when the reference alone does."""
    ref, sys_ = turns(("a", 0.0, 10.0, "A")), turns(("a", 0.0, 12.0, "s1"))
    assert score_system(ref, sys_, collar=0, extent="both").der == pytest.approx(0.2)
    assert score_system(ref, sys_, collar=0, extent="reference").der == pytest.approx(0.0)
    uem = pd.DataFrame({"uri": ["a"], "start": [0.0], "end": [11.0]})
    scored = score_system(ref, sys_, collar=0, extent="reference", uem=uem)
    assert scored.der == pytest.approx(0.1) and "UEM" in scored.sentences[2]


def test_pooled_or_mean_over_recordings_and_counts():
    """Recording a: 2 s of 20 confused (10 %). Recording b (10 s of C): with one cluster, right; with two (x 0-9,
    x2 9-10), 1 s confused and a wrong count. Pooled 2 / 30 or 3 / 30; mean (10 % + 0) / 2 or (10 % + 10 %) / 2;
    right count on 2 of 2 or 1 of 2."""
    ref = pd.concat([REF, turns(("b", 0.0, 10.0, "C"))])
    sys_ = pd.concat([SYS, turns(("b", 0.0, 9.0, "x"), ("b", 9.0, 10.0, "x2"))])
    pooled = score_system(ref, sys_, collar=0)
    mean = score_system(ref, sys_, collar=0, average="mean")
    assert pooled.der == pytest.approx(3 / 30)
    assert mean.der == pytest.approx((0.1 + 0.1) / 2)
    sys_b = pd.concat([SYS, turns(("b", 0.0, 10.0, "x"))])
    assert score_system(ref, sys_b, collar=0).der == pytest.approx(2 / 30)
    assert score_system(ref, sys_b, collar=0, average="mean").der == pytest.approx(0.05)
    assert pooled.count_accuracy == pytest.approx(0.5)
    assert score_system(ref, sys_b, collar=0).count_accuracy == pytest.approx(1.0)
    assert "MEAN" in mean.to_frame().index and "TOTAL" in pooled.to_frame().index


def test_conventions_are_stated():
    scored = score_system(REF, SYS, collar=0.5, collar_convention="pyannote", skip_overlap=False,
                          extent="reference", average="mean")
    text = " ".join(scored.sentences)
    assert "0.25 s on each side" in text and "collar=0.5" in text
    assert "Overlapped speech: scored." in text and "the reference." in text and "mean" in text
    assert scored.sentences[-1] == WHY_TOOLS_DIFFER


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("collar, skip_overlap", [(0.0, False), (0.25, True), (0.5, False)])
def test_matches_pyannote_metrics(seed, collar, skip_overlap):
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationErrorRate

    rng = np.random.default_rng(seed)

    def random_turns(names, n):
        start = np.sort(rng.uniform(0, 60, n))
        return turns(*[("r", float(s), float(s + rng.uniform(0.5, 6)), str(rng.choice(names))) for s in start])

    ref, sys_ = random_turns(["A", "B", "C"], 15), random_turns(["x", "y", "z", "w"], 18)

    def annotation(t):
        a = Annotation(uri="r")
        for i, row in enumerate(t.itertuples()):
            a[Segment(row.start, row.end), i] = row.speaker
        return a

    uem = Timeline([Segment(float(ref["start"].min()), float(ref["end"].max()))], uri="r")
    expected = DiarizationErrorRate(collar=collar, skip_overlap=skip_overlap)(annotation(ref), annotation(sys_),
                                                                              uem=uem)
    got = score_system(ref, sys_, collar=collar, collar_convention="pyannote", skip_overlap=skip_overlap,
                       extent="reference", convention="pyannote")
    assert got.der == pytest.approx(expected, abs=1e-9)


def test_bad_convention_is_one_sentence():
    with pytest.raises(ValueError, match="Unknown collar convention 'nist'; choose one of md-eval, pyannote"):
        score_system(REF, SYS, collar_convention="nist")


# ----- the command line ---------------------------------------------------------------------------------------------

def write_rttm(path, table):
    lines = [f"SPEAKER {r.uri} 1 {r.start:.3f} {r.end - r.start:.3f} <NA> <NA> {r.speaker} <NA> <NA>"
             for r in table.itertuples()]
    path.write_text("\n".join(lines) + "\n")


def test_cli_der(tmp_path, capsys):
    write_rttm(tmp_path / "ref.rttm", REF)
    (tmp_path / "sys").mkdir()
    write_rttm(tmp_path / "sys" / "a.rttm", SYS)
    assert main(["der", str(tmp_path / "sys"), "--reference", str(tmp_path / "ref.rttm"), "--collar", "0"]) == 0
    out = capsys.readouterr().out
    assert "DER 10.00 %" in out and "on each side" in out and "Two tools" in out
    assert main(["der", str(tmp_path / "sys"), "--reference", str(tmp_path / "ref.rttm"), "--collar", "0.5",
                 "--collar-convention", "pyannote", "--json"]) == 0
    import json
    result = json.loads(capsys.readouterr().out)
    assert result["summary"]["DER %"] == pytest.approx(100 * 1.75 / 19)


def test_cli_der_missing_file_is_one_sentence(tmp_path, capsys):
    assert main(["der", str(tmp_path / "none.rttm"), "--reference", str(tmp_path / "ref.rttm")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1


# ----- recording-level bootstrap and the paired comparison ---------------------------------------------------------

def _one_speaker_recordings(errors):
    """Recordings r0, r1, ... of 10 s of one speaker; the system's speaker is wrong (a second cluster) for the
    first `errors[i]` seconds of recording i."""
    ref = turns(*[(f"r{i}", 0.0, 10.0, "A") for i in range(len(errors))])
    rows = []
    for i, e in enumerate(errors):
        if e > 0:
            rows.append((f"r{i}", 0.0, float(e), "y"))
        rows.append((f"r{i}", float(e), 10.0, "x"))
    return ref, turns(*rows)


#: Seconds of error in ten one-speaker recordings of 10 s (the fewest that get an interval): A, and B better on one.
A_ERRORS = [2, 1, 3, 0, 2, 1, 0, 2, 1, 1]
B_ERRORS = [2, 1, 0, 0, 2, 1, 0, 2, 1, 1]


def test_bootstrap_draws_recordings():
    """Two recordings of equal length with DER 0 and 20 % (2 s of 10 confused): a replicate draws (0, 0), (0, 1) or
    (1, 1) with probabilities 1/4, 1/2, 1/4, so its pooled DER is 0, 10 % or 20 % with those frequencies."""
    from llrcore.diarization.bootstrap import bootstrap_diarization
    ref, sys_ = _one_speaker_recordings([0, 2])
    scores = score_system(ref, sys_, collar=0)
    boot = bootstrap_diarization(scores, n=4000, seed=1)
    values, counts = np.unique(np.round(boot.replicates["der"], 9), return_counts=True)
    assert values == pytest.approx([0.0, 0.1, 0.2])
    assert counts / 4000 == pytest.approx([0.25, 0.5, 0.25], abs=0.03)
    assert np.isnan(boot.interval("der")).all()  # two recordings: no interval (test_diarization_conventions.py)
    assert boot.sentence().startswith("DER 10.00 % (no interval: a bootstrap over 2 recordings")


def test_paired_comparison_share_is_the_chance_of_drawing_the_recording_that_differs():
    """B equals A on every recording but one, where it is better: B is better exactly in the replicates that draw
    that recording, a share 1 - (1 - 1/R)^R of them (R = 10: 0.651), and never worse."""
    from llrcore.diarization.bootstrap import compare_diarizers
    ref, sys_a = _one_speaker_recordings(A_ERRORS)
    _, sys_b = _one_speaker_recordings(B_ERRORS)
    a, b = score_system(ref, sys_a, collar=0), score_system(ref, sys_b, collar=0)
    comparison = compare_diarizers(a, b, n=4000, seed=2, names=("old", "new"))
    assert comparison.b_better("der") == pytest.approx(1 - (1 - 1 / 10) ** 10, abs=0.025)
    assert (comparison.differences["der"] <= 1e-12).all()
    assert comparison.to_frame().loc["der", "difference"] == pytest.approx(-3 / 100)
    assert comparison.sentence().startswith("new has a lower DER than old in 6")
    with pytest.raises(ValueError, match="same reference recordings"):
        compare_diarizers(a, score_system(ref[ref["uri"] != "r4"], sys_b, collar=0))


def test_cli_der_intervals_and_comparison(tmp_path, capsys):
    ref, sys_a = _one_speaker_recordings(A_ERRORS)
    _, sys_b = _one_speaker_recordings(B_ERRORS)
    for name, table in (("ref.rttm", ref), ("a.rttm", sys_a), ("b.rttm", sys_b)):
        write_rttm(tmp_path / name, table)
    assert main(["der", str(tmp_path / "a.rttm"), "--reference", str(tmp_path / "ref.rttm"), "--collar", "0",
                 "--ci", "0.9", "--against", str(tmp_path / "b.rttm"), "--bootstrap", "500"]) == 0
    out = capsys.readouterr().out
    assert "DER 13.00 % (90 % percentile interval" in out
    assert "AGAINST has a lower DER than SYSTEM in" in out
