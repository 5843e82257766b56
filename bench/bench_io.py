"""Reading score files at disk speed: llrcore.read_trials beside pyarrow's CSV reader, in one run.

    python bench/bench_io.py [--rows 5000000] [--repeats 3] [--folder /tmp] [--no-write] [--before DIR]
    python bench/bench_io.py --rows 50000000 --four-column-only --repeats 1 [--delete]

Three files of `--rows` lines each, written once (seeded): a Kaldi/BOSARIS score file ``model test score`` (string
ids), its key ``model test target|nontarget`` in another (shuffled) order, and a four-column file
``model test score label`` (shuffled). Each side runs in a subprocess of its own, once per round, the sides in turn,
timed best of `--repeats` rounds, with the highest peak resident memory of its runs (VmHWM; ru_maxrss would carry
over the parent's peak):

- ``pyarrow``: ``pyarrow.csv.read_csv`` of the three files into Arrow tables, nothing else, with Arrow's own
  allocator and again with the system's (as read_trials has it): the faster of the two is the floor;
- ``llrcore``: ``read_trials(scores, key=key)`` (parse, a 64-bit number per (model, test) pair, the two files'
  sorted numbers merged, every match checked on the ids; every score, label and repeated pair checked) and
  ``read_trials(four_column)``, then EER, minDCF (P_target 0.01) and Cllr of both.

Goal (issue 30): llrcore within 4x pyarrow's time, in at most 1.5 GB. Writes the section "## Reading score files"
of bench/RESULTS.md at the default size (``--no-write`` prints only). With ``--four-column-only`` only the
four-column file is written and read (the scale test: ``--rows 50000000``, section "## Reading a 50M-line score
file"); ``--delete`` removes the generated files afterwards. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _results import RESULTS, OtherJobs, write_section

SECTION = "## Reading score files"
LARGE_SECTION = "## Reading a 50M-line score file"
OLD_SECTION = "## Reading a 20M-row score file"

PYARROW = """
import pyarrow.csv as pcsv
def run():
    options = dict(read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                   parse_options=pcsv.ParseOptions(delimiter=" "))
    return [pcsv.read_csv(path, **options) for path in (scores, key, four)]
def describe(result):
    return f"{sum(t.num_rows for t in result):,} rows"
"""
CHILDREN = {
    "pyarrow": PYARROW,
    # as read_trials has Arrow allocate (llrcore.io.fast.memory_pool)
    "pyarrow-system": "import pyarrow as pa\npa.set_memory_pool(pa.system_memory_pool())\n" + PYARROW,
    "pyarrow-four": """
import pyarrow.csv as pcsv
def run():
    return pcsv.read_csv(four, read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                         parse_options=pcsv.ParseOptions(delimiter=" "))
def describe(result):
    return f"{result.num_rows:,} rows"
""",
    "llrcore-four": """
import llrcore as lc
# what a first read and PAV import, before the clock (as the pyarrow side imports pyarrow.csv before its clock)
import llrcore.binary.pav, llrcore.io.fast, pyarrow.csv
def run():
    trials = lc.read_trials(four)
    return trials, (lc.eer(trials), lc.min_dcf(trials, p_target=0.01), lc.cllr(trials))
def describe(result):
    t, (e, d, c) = result
    return f"{t.tar.size:,} + {t.non.size:,} trials: EER {100 * e:.4f} %, minDCF {d:.6f}, Cllr {c:.6f}"
""",
    "steps": """
import time
import llrcore as lc
def once():
    marks = [time.perf_counter()]
    joined = lc.read_trials(scores, key=key, progress=lambda done, n: marks.append(time.perf_counter()))
    four_column = lc.read_trials(four)
    marks.append(time.perf_counter())
    for t in (joined, four_column):
        lc.eer(t), lc.min_dcf(t, p_target=0.01), lc.cllr(t)
        marks.append(time.perf_counter())
    return [b - a for a, b in zip(marks, marks[1:])]
def run():  # each step's best of three runs
    return [min(times) for times in zip(*(once() for _ in range(3)))]
def describe(result):
    return result
""",
    "llrcore": """
import llrcore as lc
# what a first read and PAV import, before the clock (as the pyarrow side imports pyarrow.csv before its clock)
import llrcore.binary.pav, llrcore.io.fast, pyarrow.csv
def run():
    joined, four_column = lc.read_trials(scores, key=key), lc.read_trials(four)
    metrics = [(lc.eer(t), lc.min_dcf(t, p_target=0.01), lc.cllr(t)) for t in (joined, four_column)]
    return joined, four_column, metrics
def describe(result):
    joined, four_column, metrics = result
    return "; ".join(f"{t.tar.size:,} + {t.non.size:,} trials: EER {100 * e:.4f} %, minDCF {d:.6f}, Cllr {c:.6f}"
                     for t, (e, d, c) in zip((joined, four_column), metrics))
""",
}

#: A child process: the three files, the repetitions and (optionally) keyword options as JSON; `code` defines
#: ``run()`` and ``describe(result)`` (JSON-able). Also bench_out_of_core.py's.
RUNNER = """
import json, sys, time
scores, key, four, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
OPTIONS = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {{}}
{code}
times, cpu = [], []
for _ in range(repeats):
    start, start_cpu = time.perf_counter(), time.process_time()
    result = run()
    times.append(time.perf_counter() - start)
    cpu.append(time.process_time() - start_cpu)
    text = describe(result)
    del result
peak_kib = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps(dict(times=times, cpu=cpu, peak_mib=peak_kib / 1024, result=text)))
"""


def _commit(tree: Path) -> str:
    """The commit a tree given as ``--before`` holds (a git worktree), or its path."""
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=False)
    return done.stdout.strip() or str(tree)


def make_files(rows: int, folder: Path, four_only: bool = False) -> dict[str, Path]:
    """The three files (kept between runs; only the four-column one with `four_only`): 20,000 models, each test
    segment scored against two models, 10 % targets, scores with 6 decimals."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    files = {"scores": folder / f"bench_io_{rows}.scores", "key": folder / f"bench_io_{rows}.key",
             "four": folder / f"bench_io_{rows}.txt"}
    if four_only:
        files = {name: files["four"] for name in files}
    if all(path.exists() for path in files.values()):
        return files
    rng = np.random.default_rng(30)
    tests = rng.permutation(np.repeat(np.arange(max(rows // 2, 1)), 2))[:rows]
    models = rng.integers(0, 20_000, rows)
    while True:  # each (model, test) pair once
        _, first = np.unique(tests.astype(np.int64) * 20_000 + models, return_index=True)
        again = np.ones(rows, bool)
        again[first] = False
        if not again.any():
            break
        models[again] = (models[again] + 1) % 20_000
    labels = rng.random(rows) < 0.1
    scores = np.where(labels, rng.normal(4, 2.8, rows), rng.normal(-4, 2.8, rows)).round(6)
    model = pc.binary_join_element_wise("id", pc.utf8_lpad(pa.array(models).cast(pa.string()), 5, "0"), "")
    test = pc.binary_join_element_wise("utt", pc.utf8_lpad(pa.array(tests).cast(pa.string()), 7, "0"), "")
    label = pa.array(np.where(labels, "target", "nontarget"))
    options = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    key_order = rng.permutation(rows)  # drawn in any case: the four-column file is the same with or without the others
    if not four_only:
        pcsv.write_csv(pa.table({"m": model, "t": test, "s": scores}), files["scores"], options)
        pcsv.write_csv(pa.table({"m": model, "t": test, "l": label}).take(key_order), files["key"], options)
    del key_order
    pcsv.write_csv(pa.table({"m": model, "t": test, "s": scores, "l": label}).take(rng.permutation(rows)),
                   files["four"], options)
    return files


def measure(name: str, files: dict[str, Path], repeats: int, path: Path | None = None) -> dict:
    """One side in its own subprocess; with `path`, run in that folder, whose llrcore comes first on the import path
    (``python -c`` looks in the working folder before the installed package)."""
    output = subprocess.run([sys.executable, "-c", RUNNER.format(code=CHILDREN[name]), str(files["scores"].resolve()),
                             str(files["key"].resolve()), str(files["four"].resolve()), str(repeats)],
                            capture_output=True, text=True, check=True, cwd=path).stdout
    return json.loads(output.strip().splitlines()[-1])


def interleaved(sides: dict[str, tuple[str, Path | None]], files: dict[str, Path], repeats: int) -> dict[str, dict]:
    """Each side (a child's name and its folder, see :func:`measure`) run once per round, in turn, `repeats` rounds:
    on a machine whose load changes, every side meets the same moments. Each run in a fresh process (its own
    peak memory); the times and CPU times of all runs, the highest peak."""
    results = {name: {"times": [], "cpu": [], "peak_mib": 0.0} for name in sides}
    for _ in range(repeats):
        for name, (child, path) in sides.items():
            run = measure(child, files, 1, path)
            side = results[name]
            side["times"] += run["times"]
            side["cpu"] += run["cpu"]
            side["peak_mib"], side["result"] = max(side["peak_mib"], run["peak_mib"]), run["result"]
    return results


STEPS = ("the score file read and checked (parse, pair numbers sorted, repeats)", "the key read and checked",
         "the key joined (the sorted numbers merged, every match checked on the ids) and the Trials built",
         "the four-column file read and checked, Trials built", "EER + minDCF + Cllr of the joined trials (first sort)",
         "EER + minDCF + Cllr of the four-column trials (first sort)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--four-column-only", action="store_true",
                        help="write and read only the four-column file (the 50M-line scale test)")
    parser.add_argument("--delete", action="store_true", help="delete the generated files afterwards")
    parser.add_argument("--before", type=Path, default=None,
                        help="a folder holding an earlier llrcore (e.g. `git archive <commit> llrcore | tar -x -C "
                             "DIR`), measured once beside the others")
    args = parser.parse_args()
    files = make_files(args.rows, args.folder, args.four_column_only)
    try:
        (large if args.four_column_only else compare)(args, files)
    finally:
        if args.delete:
            for path in set(files.values()):
                path.unlink(missing_ok=True)


def compare(args, files: dict[str, Path]) -> None:
    """The three files: pyarrow's floor, llrcore, its time per step (one more run), and optionally an earlier llrcore."""
    load = os.getloadavg()[0]
    sides = {"pyarrow": ("pyarrow", None), "pyarrow-system": ("pyarrow-system", None), "llrcore": ("llrcore", None)}
    if args.before is not None:
        sides["before"] = ("llrcore", args.before)
    with OtherJobs() as others:
        results = interleaved(sides, files, args.repeats)
        steps = measure("steps", files, 1)["result"]
    end_load = os.getloadavg()[0]
    # pyarrow at its best here: its own allocator (mimalloc) or the system's, whichever parsed faster in this run (on
    # this virtual machine mimalloc's fresh 2 MiB pages cost up to a second of system time at some hours, not others)
    floor_side = min(("pyarrow", "pyarrow-system"), key=lambda name: min(results[name]["times"]))
    floor = min(results[floor_side]["times"])
    size = sum(path.stat().st_size for path in files.values()) / 2**20
    lines = []
    for name, what in (("pyarrow", "pyarrow.csv.read_csv of the three files (Arrow's own allocator, mimalloc)"),
                       ("pyarrow-system", "the same with the system's allocator, as read_trials has Arrow use"),
                       ("llrcore", "read_trials(scores, key=key) + read_trials(four-column), EER + minDCF + Cllr"),
                       ("before", "the same with the reader before this change")):
        if name not in results:
            continue
        r = results[name]
        lines.append(f"| {what} | {min(r['times']):.2f} | {', '.join(f'{t:.2f}' for t in r['times'])} | "
                     f"{min(r['times']) / floor:.2f}x | {min(r['cpu']):.2f} | {r['peak_mib']:,.0f} |")
    ratio, peak = min(results["llrcore"]["times"]) / floor, results["llrcore"]["peak_mib"]
    cpu_ratio = min(results["llrcore"]["cpu"]) / min(results[floor_side]["cpu"])
    verdict = "; ".join([f"time {'met' if ratio <= 4 else 'not met'} ({ratio:.1f}x; in CPU time {cpu_ratio:.1f}x)",
                         f"memory {'met' if peak <= 1536 else 'not met'} ({peak:,.0f} MiB)"])
    if others.share >= 0.1:
        verdict += (" — on a busy machine, where pyarrow cannot have a second core to itself as on an idle one: the "
                    "wall ratio of a run on a quiet machine is the one that counts")
    before_words = "" if args.before is None else (f" (\"before\": `--before` a tree of {_commit(args.before)})")
    step_rows = "\n".join(f"| {what} | {t:.2f} | {t / floor:.2f}x |" for what, t in zip(STEPS, steps))
    reading, metrics = sum(steps[:4]), sum(steps[4:])
    text = f"""{SECTION}

Three files of {args.rows:,} lines ({size:,.0f} MiB in all), seeded: a Kaldi/BOSARIS score file `model test score`
(string ids: 20,000 models, each test segment scored against two), its key `model test target|nontarget` in
shuffled order, and a four-column file `model test score label` (shuffled); 10 % targets. Each side in its own
subprocess, once per round, the sides in turn (so that a changing load meets them alike), best of {args.repeats} rounds,
the highest peak resident memory (VmHWM) of a run. Machine: {os.cpu_count()} CPUs, load average {load:.1f} at the start
and {end_load:.1f} at the end (this benchmark's own load included); {others.words()}.
Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Reproduce: `python bench/bench_io.py`{before_words}.

| what | best [s] | all [s] | / pyarrow | CPU [s] | peak [MiB] |
|---|---:|---:|---:|---:|---:|
{chr(10).join(lines)}

The floor is pyarrow's faster allocator in this run ({"the system's" if floor_side == "pyarrow-system" else "its own"}):
on this virtual machine the first touch of fresh 2 MiB pages, which mimalloc asks for, cost up to a second of system
time at some hours and little at others. CPU is the least processor time of a run, all threads (pyarrow parses on
every core, so on an idle machine its wall time is about half its CPU time); under load the wall times stretch, the
CPU times much less.

llrcore's result: {results['llrcore']['result']}.

Goal (issue 30): within 4x pyarrow's time and 1,536 MiB: {verdict}.

Where llrcore's time goes (three more runs, each step's best, timed at read_trials' `progress` calls; the floor is
pyarrow's best above):

| step | [s] | / pyarrow |
|---|---:|---:|
{step_rows}

Of these steps' {reading + metrics:.2f} s, {metrics:.2f} s ({metrics / floor:.1f}x pyarrow's parse on their own) are the three
metrics: the first sort of 2 x 5M scores, in the binary engine, which this benchmark does not change; the reading
takes {reading:.2f} s ({reading / floor:.1f}x). pyarrow parses on every core; of the reading's steps the parse, the
pair numbers, their sorts and the join's check of the ids use both, and the rest (the bytes checked, the merge, the
labels, the Trials) run on one: so on an idle machine the ratio of wall times is above the ratio of CPU times, and on
a busy one below.

How: read_trials maps each file into memory (its pages as the system caches them: reading them into bytes allocated
as much fresh memory, which the kernel zeroes, a tenth of the reading's time), parses it with pyarrow's CSV reader
(explicit column types; the labels dictionary-encoded as they are parsed) and leaves the ids as Arrow strings. It
never dictionary-encodes them, which alone cost more than parsing (one hash table of 2.5M distinct test ids per
file): each (model, test) pair gets one 64-bit number hashed from its bytes with numpy, piece by piece (no hash
table; ids of one length read as a strided view of the bytes, no gather). Each file's numbers are sorted once, row
numbers in their low bits (an integer sort doing an argsort's work, on every core as `llrcore.parallel.sort` sorts
scores: chunks sorted side by side and merged, or whole where numpy's sort is vectorised, whichever the process
measured faster; the probe of that measurement, four sorts of 0.5M values, is part of the first read's time): that
finds its repeated pairs
(the ids compared as text wherever two numbers may agree, the few rows taken chunk by chunk) and serves the join,
which merges the two files' sorted numbers (timsort, one pass) and takes neighbours from the two files as candidate
matches, every one checked on the ids themselves (ids of one length 8 bytes at a time where they lie, others with
pyarrow's take and equal piece by piece; on two threads): the join is exact whatever the hash does (runs of equal
numbers are tried pair by pair; many of them send it to an exact dictionary numbering). A file's bytes are let go
of as soon as its values are checked, before the numbers and sorts. The reading's arrays take the system's ordinary
4 KiB pages (Arrow's tables through the system allocator, numpy's without its 2 MiB-page advice,
`llrcore.memory.small_pages`): on this virtual machine the first touch of fresh 2 MiB pages cost about a second
of system time in a run. The categoricals of `Trials.metadata` (model, test) are built the first time someone looks
at them. A file with a problem is read again by the careful (pandas) path, which names the line.
"""
    print(text)
    if not args.no_write and args.rows == 5_000_000:
        # this section replaces the earlier one (a two-column file against pandas), in its place
        old = RESULTS.read_text() if RESULTS.exists() else ""
        write_section(OLD_SECTION if f"\n{OLD_SECTION}\n" in old else SECTION, text)


def large(args, files: dict[str, Path]) -> None:
    """The four-column file alone (the 50M-line scale test): pyarrow's parse and read_trials + the three metrics."""
    load = os.getloadavg()[0]
    with OtherJobs() as others:
        results = {name: measure(name, files, args.repeats) for name in ("pyarrow-four", "llrcore-four")}
    floor = min(results["pyarrow-four"]["times"])
    size = files["four"].stat().st_size / 2**20
    rows = "\n".join(f"| {what} | {min(r['times']):.1f} | {min(r['times']) / floor:.2f}x | {min(r['cpu']):.1f} | "
                     f"{r['peak_mib']:,.0f} |"
                     for what, r in (("pyarrow.csv.read_csv of the file", results["pyarrow-four"]),
                                     ("read_trials + EER + minDCF + Cllr", results["llrcore-four"])))
    text = f"""{LARGE_SECTION}

One four-column file `model test score label` of {args.rows:,} lines ({size:,.0f} MiB; made as in "Reading score
files"), each side in its own subprocess, best of {args.repeats}, peak resident memory (VmHWM) of that process.
Machine: {os.cpu_count()} CPUs, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, load \
average {load:.1f} at the start; {others.words()}. Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.
Reproduce: `python bench/bench_io.py --rows {args.rows} --four-column-only --repeats {args.repeats} --delete`.
pyarrow infers the column types (the ids as strings); read_trials also checks every pair, label and score and computes
the three metrics.

| what | best [s] | / pyarrow | CPU [s] | peak [MiB] |
|---|---:|---:|---:|---:|
{rows}

llrcore's result: {results['llrcore-four']['result']}.
"""
    print(text)
    if not args.no_write:
        write_section(LARGE_SECTION, text)


if __name__ == "__main__":
    main()
