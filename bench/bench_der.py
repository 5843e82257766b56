"""DER of VBx's published AMI outputs: ``lc.diarization_error_rate`` (md-eval's convention, a sweep over the turns'
boundaries) beside the same DER from pyannote.metrics' building blocks segment by segment (how llrcore computed it
before), pyannote.metrics' own ``DiarizationErrorRate`` and NIST's md-eval-22.pl (perl, as dscore runs it), in the
same run.

    python bench/bench_der.py [--reps 3] [--no-write]

The files are tests/data/ami (VBx's RTTMs against the AMI-diarization-setup references and UEMs, 18 dev and 16 test
meetings); the forgiving setting (collar 0.25 s per side, overlap ignored). Reading the files is not timed; md-eval's
time includes writing its input files and perl's start. Writes the section "## DER of VBx's AMI outputs" of
bench/RESULTS.md. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import llrcore as lc
from _results import best_time, machine_line, write_section

HERE = Path(__file__).resolve().parent
AMI = HERE.parent / "tests" / "data" / "ami"
MD_EVAL = HERE.parent / "tests" / "reference" / "md-eval-22.pl"
SECTION = "## DER of VBx's AMI outputs (collar 0.25 s per side, overlap ignored)"
SETS = [("sys_mixheadset", "dev"), ("sys_mixheadset", "test"), ("sys_beamformed", "dev"), ("sys_beamformed", "test")]


def pyannote_building_blocks(reference, system, uem):
    """md-eval's DER from pyannote.metrics' extrude, HungarianMapper and IdentificationErrorRate, recording by
    recording (llrcore's way before the sweep)."""
    sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "diarization")]
    from test_diarization_conventions import md_eval_by_pyannote
    from llrcore.diarization.scoring import recordings

    parts = [md_eval_by_pyannote(r, h, u, 0.25, True) for _, r, h, u in recordings(reference, system, uem)]
    total, missed, false_alarm, confusion = (sum(column) for column in zip(*parts))
    return (missed + false_alarm + confusion) / total


def pyannote_metrics(reference, system, uem):
    """pyannote.metrics' own DER (its convention: a speaker's own overlapping turns count once each)."""
    from pyannote.metrics.diarization import DiarizationErrorRate
    from llrcore.diarization.scoring import recordings

    metric = DiarizationErrorRate(collar=0.5, skip_overlap=True)
    for _, r, h, u in recordings(reference, system, uem):
        metric(r, h, uem=u)
    return abs(metric)


def md_eval(reference, system, uem):
    """md-eval-22.pl on RTTM and UEM files written here, as dscore runs it (``-af -c 0.25 -1``)."""
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        lc.write_rttm(folder / "ref.rttm", reference)
        lc.write_rttm(folder / "sys.rttm", system)
        (folder / "all.uem").write_text("".join(f"{r.uri} 1 {r.start!r} {r.end!r}\n" for r in uem.itertuples()))
        out = subprocess.run(["perl", str(MD_EVAL), "-af", "-r", str(folder / "ref.rttm"), "-s",
                              str(folder / "sys.rttm"), "-c", "0.25", "-u", str(folder / "all.uem"), "-1"],
                             capture_output=True, text=True, check=True).stdout
    return float(re.findall(r"OVERALL SPEAKER DIARIZATION ERROR = ([\d.]+)", out)[-1]) / 100  # the ALL block, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    tools = {"llrcore (sweep)": lambda r, s, u: lc.diarization_error_rate(r, s, uem=u).der,
             "pyannote.metrics building blocks (llrcore before)": pyannote_building_blocks,
             "pyannote.metrics DiarizationErrorRate (its convention)": pyannote_metrics}
    if shutil.which("perl"):
        tools["md-eval-22.pl (perl)"] = md_eval
    rows = ["| set | tool | best [s] | all times [s] | DER % |", "|---|---|---:|---|---:|"]
    for system, part in SETS:
        reference = lc.read_rttm(AMI / f"ref_only_words_{part}.rttm.gz")
        hypothesis = lc.read_rttm(AMI / f"{system}_{part}.rttm.gz")
        uem = lc.read_uem(AMI / f"uems_{part}.uem.gz")
        for name, tool in tools.items():
            best, times, der = best_time(lambda: tool(reference, hypothesis, uem), args.reps)
            rows.append(f"| {system} {part} ({reference['uri'].nunique()} meetings, {len(reference):,} reference "
                        f"turns) | {name} | {best:.3f} | {', '.join(f'{t:.3f}' for t in times)} | {100 * der:.2f} |")
            print(rows[-1], flush=True)
    text = "\n".join([SECTION, "", f"`python bench/bench_der.py` (best of {args.reps}). {machine_line()} VBx's "
                      "README gives 1.56, 2.10, 2.80 and 3.90 % for the four sets in this order.", "", *rows, ""])
    print()
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
