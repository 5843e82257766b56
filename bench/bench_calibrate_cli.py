"""`llrcore calibrate DEV --apply-to SCORES -o OUT` on score files of millions of lines, beside pyarrow's CSV
reader and writer doing the same file, in CPU time.

    python bench/bench_calibrate_cli.py [--rows 10000000] [--small-rows 1000000] [--repeats 3] [--folder /tmp]
                                        [--before DIR] [--no-write]

Files as bench_io.py makes its four-column file (``model test score label``, scores with up to 6 decimals, seeded):
SCORES of `--small-rows` and of `--rows` lines, and DEV of 100,000 lines to train on. Each side runs in a subprocess
of its own, once per round, the sides in turn, best of `--repeats` rounds; CPU time (``time.process_time()``, one
thread: the machine is shared), wall time and peak resident memory (VmHWM):

- ``llrcore``: the whole command through ``llrcore.cli.main`` (read DEV, train the affine calibration, rewrite SCORES,
  write OUT), and again with ``-o OUT.gz``;
- ``rewrite``: ``lc.rescore_file(SCORES, affine)`` alone, the rewrite the command does (each score replaced by its
  calibrated value with as many significant digits, every other byte kept);
- ``pyarrow``: ``pyarrow.csv.read_csv`` of SCORES, the same affine map of its score column, ``pyarrow.csv.write_csv``
  of the table: the same file's read and write in Arrow's C++ (Arrow writes its own layout and the shortest digits);
- ``before`` (with ``--before DIR``, a folder holding an earlier llrcore, e.g. ``git archive <commit> llrcore | tar -x
  -C DIR``; at the small size only: the line-by-line rewrite takes minutes at 10M);
- ``np.sort`` of 11M float64 (one thread), the yardstick that tells this CPU's speed (bench/RESULTS.md states it
  beside every figure).

Writes the section "## Calibrate CLI: a score file rewritten with calibrated LLRs" of bench/RESULTS.md (``--no-write``
prints only). A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _results import write_section
from bench_io import make_files

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Calibrate CLI: a score file rewritten with calibrated LLRs"
SCALE, OFFSET = 0.287434, 2.06313  # the affine map of the rewrite-only and pyarrow sides

CHILDREN = {
    "llrcore": """
from llrcore.cli import main
def run():
    assert main(["calibrate", dev, "--apply-to", scores, "-o", out]) == 0
""",
    "rewrite": f"""
import llrcore as lc
rescore_file = lc.rescore_file  # llrcore imports a name's module on first use: not part of the time
def run():
    return rescore_file(scores, lambda s: {SCALE} * s + {OFFSET})
""",
    "pyarrow": f"""
import pyarrow.compute as pc, pyarrow.csv as pcsv
def run():
    table = pcsv.read_csv(scores, read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                          parse_options=pcsv.ParseOptions(delimiter=" "))
    table = table.set_column(2, "f2", pc.add(pc.multiply(table["f2"], {SCALE}), {OFFSET}))
    pcsv.write_csv(table, out, pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
""",
    "np.sort": """
import numpy as np
values = np.random.default_rng(0).normal(size=11_000_000)
def run():
    return np.sort(values)
""",
}

#: A child: `code` defines ``run()``; the files, the output path and whether to print the peak as JSON.
RUNNER = """
import json, os, sys, time
os.environ["LLRCORE_THREADS"] = "1"
dev, scores, out = sys.argv[1:4]
{code}
start, start_cpu = time.perf_counter(), time.process_time()
run()
wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
peak_kib = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps(dict(wall=wall, cpu=cpu, peak_mib=peak_kib / 1024)))
"""


def measure(child: str, dev: Path, scores: Path, out: Path, tree: Path) -> dict:
    """One run of a child in a fresh process, in folder `tree`, whose llrcore comes first on the import path."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    output = subprocess.run([sys.executable, "-c", RUNNER.format(code=CHILDREN[child]), str(dev), str(scores),
                             str(out)], capture_output=True, text=True, check=True, cwd=tree, env=env).stdout
    return json.loads(output.strip().splitlines()[-1])


def rounds(sides: dict[str, tuple[str, str, Path]], dev: Path, scores: Path, repeats: int) -> dict[str, dict]:
    """Each side (child, output suffix, tree) once per round, in turn; the best CPU and wall time, the highest peak."""
    best = {name: {"cpu": [], "wall": [], "peak_mib": 0.0} for name in sides}
    for _ in range(repeats):
        for name, (child, suffix, tree) in sides.items():
            out = scores.with_name(f"{scores.stem}.calibrated{suffix}")
            run = measure(child, dev, scores, out, tree)
            out.unlink(missing_ok=True)
            best[name]["cpu"].append(run["cpu"])
            best[name]["wall"].append(run["wall"])
            best[name]["peak_mib"] = max(best[name]["peak_mib"], run["peak_mib"])
    return best


WHAT = {"llrcore": "`llrcore calibrate DEV --apply-to SCORES -o OUT.txt` (read, train, rewrite, write)",
        "llrcore .gz": "the same, `-o OUT.txt.gz`",
        "rewrite": "`lc.rescore_file(SCORES, affine)` alone",
        "pyarrow": "pyarrow: `read_csv`, the affine map, `write_csv`",
        "before": "`llrcore calibrate` before this change (line by line)"}


def table(rows: int, results: dict[str, dict], sort_cpu: float) -> str:
    lines = [f"| {rows:,} | {WHAT[name]} | {min(r['cpu']):.2f} | {min(r['cpu']) / sort_cpu:.1f} | "
             f"{', '.join(f'{t:.2f}' for t in r['cpu'])} | {min(r['wall']):.2f} | {r['peak_mib']:,.0f} |"
             for name, r in results.items()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--small-rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    dev = make_files(100_000, args.folder, four_only=True)["four"]
    sort = rounds({"np.sort": ("np.sort", "", ROOT)}, dev, dev, args.repeats)["np.sort"]
    sort_cpu = min(sort["cpu"])
    parts = []
    for rows in (args.small_rows, args.rows):
        scores = make_files(rows, args.folder, four_only=True)["four"]
        sides = {"llrcore": ("llrcore", ".txt", ROOT), "llrcore .gz": ("llrcore", ".txt.gz", ROOT),
                 "rewrite": ("rewrite", ".txt", ROOT), "pyarrow": ("pyarrow", ".txt", ROOT)}
        if args.before is not None and rows == args.small_rows:
            sides["before"] = ("llrcore", ".txt", args.before.resolve())
        parts.append(table(rows, rounds(sides, dev, scores, args.repeats), sort_cpu))
    end_load = os.getloadavg()[0]
    text = f"""{SECTION}

`python bench/bench_calibrate_cli.py --rows {args.rows} --small-rows {args.small_rows} --repeats {args.repeats}`
(issue 45). SCORES: four-column files `model test score label` made as bench_io.py makes its own (scores with up to
6 decimals); DEV: 100,000 such lines. Each side in a fresh subprocess, once per round, the sides in turn, best of
{args.repeats} rounds. CPU seconds of the process (`time.process_time()`, `LLRCORE_THREADS=1`): the machine's
{os.cpu_count()} cores were shared with other sessions (load average {load:.1f} at the start, {end_load:.1f} at the
end), so compare ratios, not wall seconds. **This CPU's `np.sort` of 11M float64 takes {sort_cpu:.2f} s** (one
thread); the column */ sort* gives each time in such sorts. Peak: resident memory (VmHWM) of the process, the file's
bytes included. Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.

| lines | what | CPU [s] | / sort | all CPU [s] | wall [s] | peak [MiB] |
|---|---|---:|---:|---:|---:|---:|
{chr(10).join(parts)}

The rewrite keeps every byte of the file but the scores: each calibrated score gets as many significant digits as
the score it replaces (more where fewer would tie or reorder two trials), so the file ranks the trials as the
calibrated scores do. It is done on the file's bytes with numpy: line and field offsets found at once, the score
tokens gathered into a byte matrix (parsed, their digits counted), the new scores rounded column-wide (a product by
an exact power of ten; the few within an ulp of a rounding half, and those written with all their digits, by
Python's `format`/`repr`) and spliced in. Before, each line was split, parsed, counted (`decimal`), formatted and
joined in Python. Same bytes: tests/io/test_rescore_text.py compares the two on every format. `.gz` output is
compressed at gzip's default level 6 (it was 9: 2.3x the time for a file 0.6 % smaller).
"""
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
