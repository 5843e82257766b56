"""Benchmark: a recording of N = 5000 windows — time, peak memory and progress of every clustering method.

    python bench/bench_diarization_large.py [--n 5000] [--no-write]

The matrix is a PLDA LLR matrix simulated as the development corpus's PLDA half is (``realistic_plda_matrix`` of
bench_diarization.py: 6 unbalanced speakers, speaker drift, turn effects, overlapping windows; about an hour of
speech at 0.75 s per window), saved once as a ``.npz`` with its segment times and an RTTM. Each tool then runs in a
subprocess of its own, which reads the file as the app does (``lc.read_similarity``) before the clock starts, so
that its peak memory is its own: the peak resident size while it runs (VmHWM, reset after reading) minus the resident
size after reading, reported beside the size of one N x N float64 matrix. One run per tool (a run takes tens of
seconds). The Bayesian model's ``progress`` callback is counted, with the time of its first call: the page's progress
bar is driven by it.

Writes the section "## Diarization at N = 5000 (time, memory, progress)" of bench/RESULTS.md. A benchmark, not a
test.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import llrcore as lc
from _results import write_section

HERE = Path(__file__).resolve().parent
SECTION = "## Diarization at N = 5000 (time, memory, progress)"
TOOLS = ("numpy.linalg.eigh", "bayes", "ahc", "spectral", "nme-sc")


def status_mib(field: str) -> float:
    """VmRSS (resident now) or VmHWM (peak resident since the last reset) of this process, from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return float(line.split()[1]) / 1024.0  # kB
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak() -> None:
    """Start VmHWM afresh (Linux: "5" to clear_refs), so that reading the file does not count in the tool's peak."""
    Path("/proc/self/clear_refs").write_text("5")


def worker(tool: str, folder: Path) -> dict:
    """Read the matrix, then run one tool: seconds, peak MiB above the resident size after reading, and for the
    Bayesian model the progress calls."""
    matrix = lc.read_similarity(folder / "large.npz", reference=folder / "large.rttm")
    scores = np.asarray(matrix.scores)
    reset_peak()
    baseline = status_mib("VmRSS")
    calls, began = [], time.perf_counter()
    if tool == "numpy.linalg.eigh":
        result = np.linalg.eigh(scores)
    else:
        result = lc.cluster_similarity(matrix, tool, progress=(lambda event: calls.append(time.perf_counter()))
                                       if tool == "bayes" else None)
    row = dict(seconds=time.perf_counter() - began, peak_mib=status_mib("VmHWM") - baseline,
               matrix_mib=scores.size * 8 / 2**20, progress_calls=len(calls),
               first_progress=(calls[0] - began) if calls else None)
    if isinstance(result, lc.ClusteringResult):  # scored after the clock and the memory reading
        (scored,) = lc.compare_methods(matrix, {tool: result}).rows
        row.update(speakers=int(scored["speakers"]), der=float(scored["DER"]))
    return row


def run_tool(tool: str, folder: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", tool, str(folder)], capture_output=True, text=True,
                         check=True, cwd=HERE)
    return json.loads(out.stdout.strip().splitlines()[-1])


def section(n: int, k: int, rows: dict) -> str:
    eigh = rows["numpy.linalg.eigh"]["seconds"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    out = [SECTION, "",
           f"One PLDA LLR matrix of N = {n:,} windows (6 unbalanced speakers, {k} in the reference; simulated as the "
           "corpus's PLDA half, seed of bench_diarization.py), read from a `.npz` as the app reads an upload. Each "
           "tool in its own subprocess, one run; *peak*: the peak resident size while it runs (VmHWM) above the "
           f"resident size after reading the file (one N x N float64 matrix is {rows['bayes']['matrix_mib']:.0f} "
           "MiB); DER with pyannote.metrics (collar 0.25 s per side, overlap ignored).", "",
           f"Machine: {os.cpu_count()} CPUs, {platform.platform()}; python {platform.python_version()}, numpy "
           f"{np.__version__}; llrcore {lc.__version__}, commit {commit} (working tree); "
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
           "Reproduce: `python bench/bench_diarization_large.py`", "",
           "| tool | wall time [s] | x one eigh | peak above the matrix read [MiB] | x one N x N matrix | speakers "
           "| DER | progress calls (first after) |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for tool in TOOLS:
        row = rows[tool]
        name = tool if tool.startswith("numpy") else f"llrcore {tool}"
        progress = (f"{row['progress_calls']:,} (first after {row['first_progress']:.2f} s)"
                    if row["progress_calls"] else "")
        der = f"{100 * row['der']:.2f} %" if "der" in row else ""
        out.append(f"| {name} | {row['seconds']:.2f} | {row['seconds'] / eigh:.2f} | {row['peak_mib']:.0f} | "
                   f"{row['peak_mib'] / row['matrix_mib']:.2f} | {row.get('speakers', '')} | {der} | {progress} |")
    bayes = rows["bayes"]
    out += ["", f"The Bayesian model at N = {n:,}: {bayes['seconds']:.1f} s ({bayes['seconds'] / eigh:.2f}x one eigh), "
            f"{bayes['peak_mib']:.0f} MiB above the matrix ({bayes['peak_mib'] / bayes['matrix_mib']:.2f}x one "
            f"float64 N x N), {bayes['progress_calls']:,} progress calls, the first after "
            f"{bayes['first_progress']:.2f} s (the page's bar moves from then on).", ""]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], Path(args.worker[1]))))
        return
    from bench_diarization import realistic_plda_matrix

    matrix = realistic_plda_matrix(args.n)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        np.savez(folder / "large.npz", scores=np.asarray(matrix.scores), start=matrix.start, end=matrix.end)
        (folder / "large.rttm").write_text(lc.rttm_text(matrix.reference_turns))
        rows = {}
        for tool in TOOLS:
            rows[tool] = run_tool(tool, folder)
            print(tool, rows[tool], flush=True)
    text = section(matrix.n_segments, matrix.n_reference_speakers, rows)
    print(text)
    if not args.no_write and args.n == 5000:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
