"""Reading score files at disk speed: llrcore.read_trials beside pyarrow's CSV reader, in one run.

    python bench/bench_io.py [--rows 5000000] [--repeats 3] [--folder /tmp] [--no-write] [--before DIR]

Three files of `--rows` lines each, written once (seeded): a Kaldi/BOSARIS score file ``model test score`` (string
ids), its key ``model test target|nontarget`` in another (shuffled) order, and a four-column file
``model test score label`` (shuffled). Two subprocesses, each timed best of `--repeats` with its own peak resident
memory (VmHWM; ru_maxrss would carry over the parent's peak):

- ``pyarrow``: ``pyarrow.csv.read_csv`` of the three files into Arrow tables, nothing else (the floor);
- ``llrcore``: ``read_trials(scores, key=key)`` (parse, dictionary-encode the ids, hash join on (model, test),
  checks every score, label and repeated pair) and ``read_trials(four_column)``, then EER, minDCF (P_target 0.01)
  and Cllr of both.

Goal (issue 30): llrcore within 4x pyarrow's time, in at most 1.5 GB. Writes the section "## Reading score files"
of bench/RESULTS.md at the default size (``--no-write`` prints only). A benchmark, not a test.
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
from _results import RESULTS, write_section

SECTION = "## Reading score files"
OLD_SECTION = "## Reading a 20M-row score file"

CHILDREN = {
    "pyarrow": """
import pyarrow.csv as pcsv
def run():
    options = dict(read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                   parse_options=pcsv.ParseOptions(delimiter=" "))
    return [pcsv.read_csv(path, **options) for path in (scores, key, four)]
def describe(result):
    return f"{sum(t.num_rows for t in result):,} rows"
""",
    "llrcore": """
import llrcore as lc
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
times = []
for _ in range(repeats):
    start = time.perf_counter()
    result = run()
    times.append(time.perf_counter() - start)
    text = describe(result)
    del result
peak_kib = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps(dict(times=times, peak_mib=peak_kib / 1024, result=text)))
"""


def make_files(rows: int, folder: Path) -> dict[str, Path]:
    """The three files (kept between runs): 20,000 models, each test segment scored against two models, 10 %
    targets, scores with 6 decimals."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    files = {"scores": folder / f"bench_io_{rows}.scores", "key": folder / f"bench_io_{rows}.key",
             "four": folder / f"bench_io_{rows}.txt"}
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
    pcsv.write_csv(pa.table({"m": model, "t": test, "s": scores}), files["scores"], options)
    pcsv.write_csv(pa.table({"m": model, "t": test, "l": label}).take(rng.permutation(rows)), files["key"], options)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--before", type=Path, default=None,
                        help="a folder holding an earlier llrcore (e.g. `git archive <commit> llrcore | tar -x -C "
                             "DIR`), measured once beside the others")
    args = parser.parse_args()
    files = make_files(args.rows, args.folder)
    load = os.getloadavg()[0]
    results = {name: measure(name, files, args.repeats) for name in ("pyarrow", "llrcore")}
    if args.before is not None:
        results["before"] = measure("llrcore", files, 1, args.before)
    floor = min(results["pyarrow"]["times"])
    size = sum(path.stat().st_size for path in files.values()) / 2**20
    lines = []
    for name, what in (("pyarrow", "pyarrow.csv.read_csv of the three files (the floor)"),
                       ("llrcore", "read_trials(scores, key=key) + read_trials(four-column), EER + minDCF + Cllr"),
                       ("before", "the same with the reader before issue 30 (pandas' C parser, one run)")):
        if name not in results:
            continue
        r = results[name]
        lines.append(f"| {what} | {min(r['times']):.2f} | {', '.join(f'{t:.2f}' for t in r['times'])} | "
                     f"{min(r['times']) / floor:.2f}x | {r['peak_mib']:,.0f} |")
    ratio, peak = min(results["llrcore"]["times"]) / floor, results["llrcore"]["peak_mib"]
    verdict = "; ".join([f"time {'met' if ratio <= 4 else 'not met'} ({ratio:.1f}x)",
                         f"memory {'met' if peak <= 1536 else 'not met'} ({peak:,.0f} MiB)"])
    text = f"""{SECTION}

Three files of {args.rows:,} lines ({size:,.0f} MiB in all), seeded: a Kaldi/BOSARIS score file `model test score`
(string ids: 20,000 models, each test segment scored against two), its key `model test target|nontarget` in
shuffled order, and a four-column file `model test score label` (shuffled); 10 % targets. Each side in its own
subprocess, best of {args.repeats}, peak resident memory (VmHWM) of that process. Machine: {os.cpu_count()} CPUs,
load average {load:.1f} at the start (other jobs were running: the times are noisy, their ratio less so).
Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Reproduce: `python bench/bench_io.py`.

| what | best [s] | all [s] | / pyarrow | peak [MiB] |
|---|---:|---:|---:|---:|
{chr(10).join(lines)}

llrcore's result: {results['llrcore']['result']}.

Goal (issue 30): within 4x pyarrow's time and 1,536 MiB: {verdict}. read_trials parses with pyarrow's CSV reader, keeps the ids
as dictionary codes (pandas categoricals over Arrow strings) and joins the key on one integer per (model, test) pair;
a file with a problem is read again by the careful (pandas) path, which names the line. Not measured here yet: a
50M-line file.
"""
    print(text)
    if not args.no_write and args.rows == 5_000_000:
        # this section replaces the earlier one (a two-column file against pandas), in its place
        old = RESULTS.read_text() if RESULTS.exists() else ""
        write_section(OLD_SECTION if f"\n{OLD_SECTION}\n" in old else SECTION, text)


if __name__ == "__main__":
    main()
