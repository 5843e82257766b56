"""Whose DER and JER: md-eval/dscore (default) against pyannote.metrics, the DER by number of reference speakers, and
no bootstrap interval over too few recordings.

Independent references:

- NIST md-eval-22.pl (vendored test-only, ``tests/reference/md-eval-22.pl``, provenance beside it), run with perl on
  RTTM and UEM files this test writes, exactly as dscore runs it (``-af -r REF -s SYS -c COLLAR -u UEM [-1]``); its
  per-file SCORED/MISSED/FALARM/SPEAKER ERROR times are parsed with dscore's regular expressions. Skipped only when
  perl is absent.
- pyannote.metrics 4.x ``DiarizationErrorRate`` (collar ``2 * collar``), called here directly: the "pyannote"
  convention must equal it; its building blocks (``extrude``, ``HungarianMapper``, ``IdentificationErrorRate`` on
  the merged turns) segment by segment: the "md-eval" convention, a sweep over the turns' boundaries, must equal
  them, ties between equally good mappings included.
- dscore's JER (vendored test-only, BSD-2, ``tests/reference/dscore_jer.py``) on the real recordings of
  tests/data/ami (VBx's AMI outputs against the AMI-diarization-setup references and UEMs) and of
  tests/data/diarization_corpus (clustered here), and on hand-made cases.
- Values worked out by hand in the tests, the arithmetic shown.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pyannote.metrics.diarization import DiarizationErrorRate

import llrcore as lc
from paths import DATA, TESTS
from reference import vendored
from llrcore.cli import main
from llrcore.diarization.bootstrap import MIN_RECORDINGS, bootstrap_diarization, compare_diarizers
from llrcore.diarization.scoring import recordings
from llrcore.diarization.system_scoring import score_system

AMI = DATA / "ami"
CORPUS = DATA / "diarization_corpus"
MD_EVAL = TESTS / "reference" / "md-eval-22.pl"
PARTS = {"total": "SCORED SPEAKER TIME", "missed": "MISSED SPEAKER TIME", "false_alarm": "FALARM SPEAKER TIME",
         "confusion": "SPEAKER ERROR TIME"}

dscore_jer = vendored("dscore_jer")


def turns(rows, uri="a") -> pd.DataFrame:
    """Turns from ``(start, end, speaker)`` rows."""
    frame = pd.DataFrame(rows, columns=["start", "end", "speaker"]).astype({"start": float, "end": float})
    return frame.assign(uri=uri, channel="1")[["uri", "channel", "start", "end", "speaker"]]


def uem_of(regions) -> pd.DataFrame:
    """A UEM from ``(uri, start, end)`` rows."""
    return pd.DataFrame(regions, columns=["uri", "start", "end"]).assign(channel="1")


# ----- md-eval ---------------------------------------------------------------------------------------------------


def _full_perl() -> bool:
    """Whether perl can run md-eval-22.pl: it needs Getopt::Std, which Debian ships in perl, not in perl-base."""
    return shutil.which("perl") is not None and subprocess.run(
        ["perl", "-MGetopt::Std", "-e", "1"], capture_output=True).returncode == 0


def md_eval(tmp_path: Path, reference, system, uem, collar: float, skip_overlap: bool) -> pd.DataFrame:
    """md-eval-22's seconds per recording (index uri), columns total, missed, false_alarm, confusion."""
    if not _full_perl():
        pytest.skip("perl (with its standard modules: Debian's perl, not perl-base alone) is not installed, so "
                    "md-eval-22.pl cannot run")
    lc.write_rttm(tmp_path / "ref.rttm", reference)
    lc.write_rttm(tmp_path / "sys.rttm", system)
    (tmp_path / "all.uem").write_text("".join(f"{r.uri} 1 {r.start!r} {r.end!r}\n" for r in uem.itertuples()))
    command = ["perl", str(MD_EVAL), "-af", "-r", str(tmp_path / "ref.rttm"), "-s", str(tmp_path / "sys.rttm"),
               "-c", str(collar), "-u", str(tmp_path / "all.uem")] + (["-1"] if skip_overlap else [])
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    files = [m.strip().removeprefix("f=") for m in re.findall(r"(?<=Speaker Diarization for).+(?=\*\*\*)", out)]
    values = {part: [float(x) for x in re.findall(rf"(?<={name} =)[\d.]+", out)] for part, name in PARTS.items()}
    return pd.DataFrame(values, index=files).drop(index="ALL")


def own_overlaps(seed: int):
    """Four recordings of three reference speakers and four system speakers, heavy overlap, each speaker's own
    turns overlapping and touching (the case md-eval and pyannote.metrics treat differently)."""
    rng = np.random.default_rng(seed)

    def random_turns(uri, n, speakers):
        start = np.round(rng.uniform(0, 60, n), 2)
        return turns(list(zip(start, start + np.round(rng.uniform(0.3, 8, n), 2), rng.choice(speakers, n))), uri)

    uris = [f"r{i}" for i in range(4)]
    reference = pd.concat([random_turns(u, 12, ["A", "B", "C"]) for u in uris]
                          + [turns([(70, 75, "A"), (75, 80, "A"), (72, 74, "A")], "r0")], ignore_index=True)
    system = pd.concat([random_turns(u, 14, ["x", "y", "z", "w"]) for u in uris], ignore_index=True)
    return reference, system, uem_of([(u, 0.0, 90.0) for u in uris])


def test_the_own_overlap_case_is_zero_in_md_eval_and_one_half_in_pyannote(tmp_path):
    # Reference A on 0-10 s; the system says x on 0-10 s and again x on 5-10 s. md-eval merges x's two turns into
    # 0-10 s: 10 s of A, all said by x, DER 0 / 10 = 0. pyannote.metrics counts x twice on 5-10 s: one x is mapped
    # to A, the other is 5 s of false alarm, DER 5 / 10 = 0.5.
    reference, system = turns([(0, 10, "A")]), turns([(0, 10, "x"), (5, 10, "x")])
    uem = uem_of([("a", 0.0, 10.0)])
    md = lc.diarization_error_rate(reference, system, uem=uem, collar=0.0, skip_overlap=False)
    assert md.der == 0.0 and md.total == 10.0 and md.convention == "md-eval"
    py = lc.diarization_error_rate(reference, system, uem=uem, collar=0.0, skip_overlap=False, convention="pyannote")
    assert py.der == pytest.approx(0.5) and py.false_alarm == pytest.approx(5.0)
    (_, ref, hyp, scored), = recordings(reference, system, uem)
    assert py.der == pytest.approx(DiarizationErrorRate(collar=0.0)(ref, hyp, uem=scored))
    assert md_eval(tmp_path, reference, system, uem, 0.0, False).loc["a"].tolist() == [10.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("case, expected", [
    # reference A 0-10 and again A 4-6 (inside), system x 0-10, collar 0.25: md-eval's collars come from the turns
    # as written (at 0, 4, 6 and 10), so 10 - 0.25 - 0.25 - 2 * 0.5 = 8.5 s are scored, all correct
    ("inner turn, collar", (8.5, 0.0, 0.0, 0.0)),
    # the same with -1 and no collar: the two A turns overlap on 4-6, which md-eval leaves out: 8 s scored
    ("inner turn, -1", (8.0, 0.0, 0.0, 0.0)),
    # A 0-10 and A 10-12 touching, system x 0-12, collar 0.25: a collar at 10 too: 12 - 0.25 - 0.5 - 0.25 = 11 s
    ("touching turns, collar", (11.0, 0.0, 0.0, 0.0)),
])
def test_md_eval_collars_and_overlap_come_from_the_turns_as_written(tmp_path, case, expected):
    rows, system, collar, skip = {
        "inner turn, collar": ([(0, 10, "A"), (4, 6, "A")], [(0, 10, "x")], 0.25, False),
        "inner turn, -1": ([(0, 10, "A"), (4, 6, "A")], [(0, 10, "x")], 0.0, True),
        "touching turns, collar": ([(0, 10, "A"), (10, 12, "A")], [(0, 12, "x")], 0.25, False),
    }[case]
    uem = uem_of([("a", 0.0, 30.0)])
    ours = lc.diarization_error_rate(turns(rows), turns(system), uem=uem, collar=collar, skip_overlap=skip)
    assert (ours.total, ours.missed, ours.false_alarm, ours.confusion) == pytest.approx(expected)
    assert tuple(md_eval(tmp_path, turns(rows), turns(system), uem, collar, skip).loc["a"]) == pytest.approx(expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("collar, skip_overlap", [(0.0, False), (0.25, False), (0.25, True), (0.5, True)])
def test_md_eval_convention_equals_md_eval_on_own_overlapping_turns(tmp_path, seed, collar, skip_overlap):
    reference, system, uem = own_overlaps(seed)
    ours = lc.diarization_error_rate(reference, system, uem=uem, collar=collar, skip_overlap=skip_overlap)
    theirs = md_eval(tmp_path, reference, system, uem, collar, skip_overlap)
    pd.testing.assert_frame_equal(ours.per_file[list(PARTS)], theirs.loc[ours.per_file.index], check_names=False,
                                  atol=1e-6, rtol=0)


@pytest.mark.parametrize("collar, skip_overlap", [(0.25, True), (0.0, False)])
def test_pyannote_convention_equals_pyannote_metrics(collar, skip_overlap):
    reference, system, uem = own_overlaps(0)
    ours = lc.diarization_error_rate(reference, system, uem=uem, collar=collar, skip_overlap=skip_overlap,
                                     convention="pyannote")
    metric = DiarizationErrorRate(collar=2 * collar, skip_overlap=skip_overlap)
    for uri, ref, hyp, scored in recordings(reference, system, uem):
        metric(ref, hyp, uem=scored)
    assert ours.der == pytest.approx(abs(metric), abs=1e-12)
    md = lc.diarization_error_rate(reference, system, uem=uem, collar=collar, skip_overlap=skip_overlap)
    assert md.der < ours.der  # the own overlapping turns are false alarms for pyannote.metrics only


def md_eval_by_pyannote(ref, hyp, scored, collar: float, skip_overlap: bool) -> tuple:
    """md-eval's seconds from pyannote.metrics' building blocks, segment by segment: the no-score zones extruded from
    the turns as written, each speaker's turns merged, the speakers mapped on the UEM by its HungarianMapper, then
    IdentificationErrorRate on the scored region (how llrcore computed it before its sweep over the boundaries)."""
    from pyannote.metrics.identification import IdentificationErrorRate

    mapper = DiarizationErrorRate()
    region = mapper.extrude(scored, ref, collar=2.0 * collar, skip_overlap=skip_overlap)
    ref = ref.support().rename_labels(generator="string")
    hyp = hyp.support().rename_labels(generator="int")
    mapping = mapper.optimal_mapping(ref.crop(scored), hyp.crop(scored))
    parts = IdentificationErrorRate()(ref, hyp.rename_labels(mapping=mapping), uem=region, detailed=True)
    return parts["total"], parts["missed detection"], parts["false alarm"], parts["confusion"]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("collar, skip_overlap", [(0.0, False), (0.25, True), (0.5, False)])
def test_md_eval_convention_equals_pyannote_building_blocks(seed, collar, skip_overlap):
    reference, system, uem = own_overlaps(seed)
    ours = lc.diarization_error_rate(reference, system, uem=uem, collar=collar, skip_overlap=skip_overlap)
    for uri, ref, hyp, scored in recordings(reference, system, uem):
        expected = md_eval_by_pyannote(ref, hyp, scored, collar, skip_overlap)
        assert tuple(ours.per_file.loc[uri, list(PARTS)]) == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_equally_good_mappings_are_told_apart_as_pyannote_metrics_tells_them():
    # Reference A on 0-10 s (and again on 2-3 s, an overlap of A's own turns), B on 10-20 s; the system says x on
    # 0-20 s. x talks 10 s with A and 10 s with B: either mapping is optimal on the UEM. With -1 the scored region
    # leaves out A's 2-3 s, so the choice decides the confusion: x -> A gives 10 s (B), x -> B gives 9 s (A).
    reference = turns([(0, 10, "A"), (2, 3, "A"), (10, 20, "B")])
    system = turns([(0, 20, "x")])
    uem = uem_of([("a", 0.0, 20.0)])
    ours = lc.diarization_error_rate(reference, system, uem=uem, collar=0.0, skip_overlap=True)
    (_, ref, hyp, scored), = recordings(reference, system, uem)
    assert (ours.total, ours.missed, ours.false_alarm, ours.confusion) == pytest.approx(
        md_eval_by_pyannote(ref, hyp, scored, 0.0, True), abs=1e-12)
    assert ours.confusion == pytest.approx(10.0) and ours.total == pytest.approx(19.0)


def test_md_eval_convention_equals_md_eval_on_ami(tmp_path):
    """Four AMI dev meetings, VBx's beamformed output: the forgiving setting (collar 0.25, -1) and the full one."""
    reference = lc.read_rttm(AMI / "ref_only_words_dev.rttm.gz")
    system = lc.read_rttm(AMI / "sys_beamformed_dev.rttm.gz")
    uem = lc.read_uem(AMI / "uems_dev.uem.gz")
    chosen = sorted(reference["uri"].unique())[:4]
    reference, system = reference[reference["uri"].isin(chosen)], system[system["uri"].isin(chosen)]
    uem = uem[uem["uri"].isin(chosen)]
    for collar, skip in ((0.25, True), (0.0, False)):
        ours = lc.diarization_error_rate(reference, system, uem=uem, collar=collar, skip_overlap=skip)
        theirs = md_eval(tmp_path, reference, system, uem, collar, skip)
        pd.testing.assert_frame_equal(ours.per_file[list(PARTS)], theirs.loc[chosen], check_names=False,
                                      atol=1e-6, rtol=0)


def test_an_unknown_convention_is_one_sentence():
    with pytest.raises(ValueError, match="Unknown DER convention 'nist'; choose one of md-eval, pyannote"):
        lc.diarization_error_rate(turns([(0, 1, "A")]), turns([(0, 1, "x")]), convention="nist")


# ----- JER -------------------------------------------------------------------------------------------------------


def dscore(reference, system, uem):
    """dscore's per-file and overall JER (percent) of turn tables."""
    def by_file(frame):
        return {str(u): list(zip(g["start"], g["end"], g["speaker"].astype(str))) for u, g in frame.groupby("uri")}
    regions = {str(u): list(zip(g["start"], g["end"])) for u, g in uem.groupby("uri")}
    return dscore_jer.file_jer(by_file(reference), by_file(system), regions)


def test_jer_by_hand():
    # Reference A 0-10, B 10-20; system x 0-12, y 12-20; UEM 0-20. A with x: in common 10 s of a union of 12 s,
    # JER 1 - 10/12 = 1/6; B with y: 8 s of 10 s, JER 0.2 (pairing A-y, B-x would cost 1 + 1 - 2/12 = 1.83, more).
    # The recording's JER: (1/6 + 0.2) / 2 = 0.18333. On 10 ms frames the counts are 1000/1200 and 800/1000 exactly
    # (the frames k * 0.01 with 0 <= k < 2000; x covers k < 1200, A k < 1000), so the value is exact to rounding.
    reference, system = turns([(0, 10, "A"), (10, 20, "B")]), turns([(0, 12, "x"), (12, 20, "y")])
    uem = uem_of([("a", 0.0, 20.0)])
    scores = lc.score_corpus(reference, system, uems=uem, collar=0.25)
    assert scores.jer == pytest.approx((1 / 6 + 0.2) / 2, abs=1e-3)
    assert 100 * scores.jer == pytest.approx(dscore(reference, system, uem)[1], abs=1e-9)


def test_jer_of_the_own_overlap_case_is_zero_as_dscore():
    # x on 0-10 and again on 5-10 covers the same frames as x on 0-10: A with x, 1000 of 1000 frames, JER 0.
    reference, system = turns([(0, 10, "A")]), turns([(0, 10, "x"), (5, 10, "x")])
    uem = uem_of([("a", 0.0, 10.0)])
    assert lc.score_corpus(reference, system, uems=uem).jer == 0.0
    assert dscore(reference, system, uem)[1] == 0.0


def test_jer_ignores_collar_and_overlap_as_dscore():
    # dscore's --collar and --ignore_overlaps reach its DER only: the JER is the same with any of them.
    reference, system, uem = own_overlaps(1)
    jers = {lc.score_corpus(reference, system, uems=uem, collar=c, skip_overlap=s).jer
            for c, s in ((0.0, False), (0.25, True), (0.5, False))}
    assert len(jers) == 1 and 100 * jers.pop() == pytest.approx(dscore(reference, system, uem)[1], abs=1e-9)


def test_jer_equals_dscore_on_ami():
    reference = lc.read_rttm(AMI / "ref_only_words_dev.rttm.gz")
    system = lc.read_rttm(AMI / "sys_beamformed_dev.rttm.gz")
    uem = lc.read_uem(AMI / "uems_dev.uem.gz")
    chosen = sorted(reference["uri"].unique())[4:10]
    reference, system = reference[reference["uri"].isin(chosen)], system[system["uri"].isin(chosen)]
    uem = uem[uem["uri"].isin(chosen)]
    frame = lc.score_corpus(reference, system, uems=uem, collar=0.25).to_frame()
    per_file, overall = dscore(reference, system, uem)
    assert frame.loc["TOTAL", "JER %"] == pytest.approx(overall, abs=1e-9)
    for uri in chosen:
        assert frame.loc[uri, "JER %"] == pytest.approx(per_file[uri], abs=1e-9)
    pyannote = lc.score_corpus(reference, system, uems=uem, collar=0.25, convention="pyannote").to_frame()
    assert abs(pyannote.loc["TOTAL", "JER %"] - overall) > 1  # pyannote.metrics' JER (collar, overlap) differs


@pytest.fixture(scope="module")
def corpus():
    matrices = lc.read_corpus(sorted(CORPUS.glob("synth*_k0[1-6].npz")))
    return matrices, lc.cluster_recordings(matrices, "ahc")


def test_jer_equals_dscore_on_the_development_corpus(corpus):
    matrices, hypotheses = corpus
    reference = pd.concat([m.reference_turns for m in matrices], ignore_index=True)
    both = pd.concat([reference, hypotheses])
    uem = both.groupby("uri", as_index=False).agg(start=("start", "min"), end=("end", "max"))
    frame = lc.score_corpus(matrices, hypotheses, uems=uem).to_frame()
    per_file, overall = dscore(reference, hypotheses, uem)
    assert frame.loc["TOTAL", "JER %"] == pytest.approx(overall, abs=1e-9)
    assert frame.drop(index="TOTAL")["JER %"].to_dict() == pytest.approx(per_file, abs=1e-9)


# ----- by number of reference speakers ---------------------------------------------------------------------------


def test_der_by_number_of_reference_speakers_by_hand():
    # r1: one speaker A 0-10, system right: 0 s of error in 10 s. r2: A 0-10, B 10-20, system x on 0-20: B is
    # confused, 10 s of 20. r3: A 0-10, B 10-30, system x 0-10, y 10-30: right, 0 of 30. No collar.
    # One speaker: 0 / 10 = 0 %; two speakers (r2 and r3 pooled): 10 / (20 + 30) = 20 %, not the mean 25 %.
    # JER: one speaker 0; two: r2 A-x 10/20 in common (0.5), B unpaired (1), r3 both 0: (0.5 + 1 + 0 + 0) / 4.
    reference = pd.concat([turns([(0, 10, "A")], "r1"), turns([(0, 10, "A"), (10, 20, "B")], "r2"),
                           turns([(0, 10, "A"), (10, 30, "B")], "r3")], ignore_index=True)
    system = pd.concat([turns([(0, 10, "x")], "r1"), turns([(0, 20, "x")], "r2"),
                        turns([(0, 10, "x"), (10, 30, "y")], "r3")], ignore_index=True)
    table = lc.score_corpus(reference, system, collar=0.0).by_speakers()
    assert table.index.name == "reference speakers" and list(table.index) == [1, 2]
    assert table["recordings"].tolist() == [1, 2]
    assert table["speech (s)"].tolist() == pytest.approx([10.0, 50.0])
    assert table["DER %"].tolist() == pytest.approx([0.0, 20.0])
    assert table["JER %"].tolist() == pytest.approx([0.0, 37.5], abs=1e-6)
    assert score_system(reference, system, collar=0.0).by_speakers().equals(table)


# ----- no interval over too few recordings -----------------------------------------------------------------------


def _recordings(n):
    reference = pd.concat([turns([(0, 10, "A"), (10, 20, "B")], f"r{i}") for i in range(n)], ignore_index=True)
    system = pd.concat([turns([(0, 10 + i, "x"), (10 + i, 20, "y")], f"r{i}") for i in range(n)], ignore_index=True)
    return score_system(reference, system, collar=0.0)


def test_two_recordings_give_no_interval_and_say_why():
    # r0 right; r1 gives 10-11 s of B to x: DER 1 / 40 = 2.50 %; JER over the four speakers (0 + 0 + (1 - 10/11)
    # + (1 - 9/10)) / 4 = 4.77 %
    boot = bootstrap_diarization(_recordings(2), n=200)
    assert all(np.isnan(boot.interval(m)).all() for m in ("der", "jer"))
    assert boot.sentence("der") == ("DER 2.50 % (no interval: a bootstrap over 2 recordings only reshuffles their "
                                    f"own rates, so an interval needs at least {MIN_RECORDINGS} recordings).")
    assert boot.to_frame()[["lower", "upper"]].isna().all().all()
    assert boot.paragraph() == ("DER 2.50 % and JER 4.77 % (no interval: a bootstrap over 2 recordings only "
                                f"reshuffles their own rates, so an interval needs at least {MIN_RECORDINGS} "
                                "recordings).")
    comparison = compare_diarizers(_recordings(2), _recordings(2), n=200)
    assert np.isnan(comparison.interval("der")).all() and "no interval" in comparison.sentence("der")


def test_ten_recordings_give_an_interval():
    boot = bootstrap_diarization(_recordings(MIN_RECORDINGS), n=200)
    low, high = boot.interval("der")
    assert low <= boot.scores.der <= high and "percentile interval" in boot.sentence("der")


# ----- command line ----------------------------------------------------------------------------------------------


def test_cli_der_convention_and_by_speakers(tmp_path, capsys):
    lc.write_rttm(tmp_path / "ref.rttm", turns([(0, 10, "A")]))
    lc.write_rttm(tmp_path / "sys.rttm", turns([(0, 10, "x"), (5, 10, "x")]))
    (tmp_path / "a.uem").write_text("a 1 0 10\n")
    base = ["der", str(tmp_path / "sys.rttm"), "--reference", str(tmp_path / "ref.rttm"), "--uem",
            str(tmp_path / "a.uem"), "--collar", "0", "--score-overlap"]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert out.startswith("DER 0.00 %, JER 0.00 %") and "DER as md-eval and dscore compute it" in out
    assert "By number of reference speakers" in out and "no interval" not in out
    assert main(base + ["--convention", "pyannote"]) == 0
    assert capsys.readouterr().out.startswith("DER 50.00 %")


def test_cli_diarize_names_whose_der(capsys):
    npz = str(CORPUS / "synth03_k02.npz")
    assert main(["diarize", npz, "--method", "ahc"]) == 0
    assert "DER as md-eval, JER as dscore" in capsys.readouterr().out
    assert main(["diarize", npz, "--method", "ahc", "--convention", "pyannote", "--csv"]) == 0
    printed = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), index_col="uri")
    matrices = lc.read_corpus([npz])
    expected = lc.score_corpus(matrices, lc.cluster_recordings(matrices, "ahc"), convention="pyannote").to_frame()
    assert np.allclose(printed["JER %"], expected["JER %"]) and np.allclose(printed["DER %"], expected["DER %"])
