"""Files larger than memory: llrcore.read_counts (DuckDB) beside llrcore.read_trials, in one run.

    python bench/bench_out_of_core.py [--rows 5000000] [--big-rows 0] [--repeats 2] [--folder /tmp] [--no-write]

The files of bench/bench_io.py (its generator, imported): a Kaldi/BOSARIS score file ``model test score`` of `--rows`
lines with its key in another order, and a four-column file ``model test score label``. Each side runs in its own
subprocess, timed best of `--repeats`, with its own peak resident memory (VmHWM):

- ``read_trials``: ``read_trials(scores, key=key)`` and ``read_trials(four_column)``, then EER, minDCF (P_target 0.01)
  and Cllr of both (everything in memory);
- ``read_counts``: ``read_counts(scores, key)`` and ``read_counts(four_column)`` (DuckDB: parse, join on (model, test)
  and count per unique score, spilling beyond its ``memory_limit``), then the same metrics from the counts; once with
  llrcore's default limit (4GB) and once with ``memory_limit="1GB"``.

With ``--big-rows N`` (e.g. 50000000), a two-column file ``score label`` of N lines is written too and read by
``read_counts`` under ``memory_limit="1GB"``. The numbers of both paths are printed (they are identical: see
tests/binary/test_out_of_core.py). Writes the section "## Out-of-core reading (DuckDB)" of bench/RESULTS.md (``--no-write``
prints only). A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from _results import OtherJobs, write_section
from bench_io import RUNNER, make_files

SECTION = "## Out-of-core reading (DuckDB)"

CHILDREN = {
    "read_trials": """
import llrcore as lc, warnings
warnings.simplefilter("ignore")
def run():
    tables = [lc.read_trials(scores, key=key), lc.read_trials(four)]
    return [(lc.eer(t), lc.min_dcf(t, p_target=0.01), lc.cllr(t)) for t in tables]
""",
    "read_counts": """
import llrcore as lc
def run():
    tables = [lc.read_counts(scores, key, on_warning=lambda w: None, **OPTIONS), lc.read_counts(four, **OPTIONS)]
    return [(lc.eer(t), lc.min_dcf(t, p_target=0.01), lc.cllr(t)) for t in tables]
""",
    "big": """
import llrcore as lc
def run():
    t = lc.read_counts(four, **OPTIONS)
    return [(lc.eer(t), lc.min_dcf(t, p_target=0.01), lc.cllr(t))]
""",
}

#: What each child reports of its result: the metrics' reprs, compared across children to the last digit.
DESCRIBE = """
def describe(result):
    return [[repr(x) for x in r] for r in result]
"""


def measure(name: str, files: dict, repeats: int, options: dict | None = None) -> dict:
    done = subprocess.run([sys.executable, "-c", RUNNER.format(code=CHILDREN[name] + DESCRIBE), str(files["scores"]),
                           str(files["key"]), str(files["four"]), str(repeats), json.dumps(options or {})],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{name} failed: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def make_big(rows: int, folder: Path) -> Path:
    """A two-column file ``score label`` of `rows` lines (scores with 6 decimals, 10 % targets), written in pieces."""
    path = folder / f"bench_ooc_{rows}.txt"
    if path.exists():
        return path
    rng = np.random.default_rng(31)
    with open(path, "w") as file:
        for start in range(0, rows, 5_000_000):
            n = min(5_000_000, rows - start)
            labels = rng.random(n) < 0.1
            scores = np.where(labels, rng.normal(4, 2.8, n), rng.normal(-4, 2.8, n))
            words = np.where(labels, "target", "nontarget")
            file.write("\n".join(f"{s:.6f} {w}" for s, w in zip(scores, words)) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--big-rows", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"),
                        help="where the files are written (kept between runs)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    files = make_files(args.rows, args.folder)
    load = os.getloadavg()[0]
    runs = [("read_trials", "read_trials(scores, key=key) + read_trials(four-column), EER + minDCF + Cllr", None),
            ("read_counts", ("read_counts(scores, key) + read_counts(four-column), same metrics (default "
                            "memory_limit=\"4GB\")"), {}),
            ("read_counts", "the same with memory_limit=\"1GB\" (beyond it DuckDB spills to disk)",
             {"memory_limit": "1GB"})]
    with OtherJobs() as others:
        results = [(what, measure(name, files, args.repeats, options)) for name, what, options in runs]
    size = sum(path.stat().st_size for path in files.values()) / 2**20
    lines = [f"| {what} | {min(r['times']):.2f} | {', '.join(f'{t:.2f}' for t in r['times'])} | "
             f"{r['peak_mib']:,.0f} |" for what, r in results]
    if args.big_rows:
        big = make_big(args.big_rows, args.folder)
        r = measure("big", {"scores": big, "key": big, "four": big}, 1, {"memory_limit": "1GB"})
        lines.append(f"| read_counts of a {args.big_rows:,}-line file `score label` ({big.stat().st_size / 2**30:.1f} "
                     f"GB), memory_limit=\"1GB\", EER + minDCF + Cllr | {min(r['times']):.2f} | "
                     f"{', '.join(f'{t:.2f}' for t in r['times'])} | {r['peak_mib']:,.0f} |")
    same = results[0][1]["result"] == results[1][1]["result"] == results[2][1]["result"]
    text = "\n".join([
        SECTION, "",
        (f"`python bench/bench_out_of_core.py --rows {args.rows}`: the three files of `bench/bench_io.py` ({args.rows:,} "
        f"lines each, {size:.0f} MB in all), each side in its own process; load average {load:.1f} on "
        f"{os.cpu_count()} CPUs at the start; {others.words()}."), "",
        "| what | best (s) | runs (s) | peak memory (MiB) |", "|---|---:|---:|---:|", *lines, "",
        (f"EER, minDCF and Cllr of both files are {'identical' if same else 'NOT identical'} on the three rows "
        f"({results[0][1]['result']})."),
    ])
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
