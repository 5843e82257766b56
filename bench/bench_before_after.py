"""Before and after a change, in one sitting: the same public-API workloads timed on two checkouts of llrcore.

    python bench/bench_before_after.py REV [--reps 5] [--no-write]

REV is a git revision (the "before"; the "after" is this working tree). It is checked out with ``git worktree`` in a
temporary folder; each workload runs in a fresh subprocess with that tree first on ``sys.path``, the two trees
alternating, repetition after repetition, so that a busy moment of the machine falls on both alike; the best of the
repetitions is reported (as everywhere in bench/). The workloads call only ``lc.X`` names, which a change of layout
keeps, so the same code runs on both:

- ``analysis 1M`` / ``analysis 10M``: Gaussian scores (1 % targets), ``lc.Trials`` then EER, minCllr, minDCF at three
  priors, Cllr, actDCF, both DETs and the Bayes error rates at 201 priors (bench_binary.py's llrcore run), the best
  of three in the same process (the sort of the first run, in fresh memory, took 0.12 s or 0.30 s at random here);
- ``bootstrap``: ``lc.bootstrap`` of 10,000 + 100,000 trials, 1,000 replicates (bench_bootstrap.py's size);
- ``sweep``: ``lc.sweep_prior_weighting`` on the FVC-AUS demo scores, 5-fold, the four named rules (bench_sweep.py's
  first case).

Writes the section "## Before and after a change (same sitting)" of bench/RESULTS.md. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import write_section

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Before and after a change (same sitting)"

WORKLOAD = r'''
import sys, time, json
import numpy as np
sys.path.insert(0, TREE)
import llrcore as lc
assert lc.__file__.startswith(TREE), lc.__file__

def analysis(n):
    rng = np.random.default_rng(0)
    tar, non = rng.normal(2, 1, n // 100), rng.normal(0, 1, n - n // 100)
    times = []
    for _ in range(3):  # in the same process too: the first run's fresh memory is slow on some kernels
        start = time.perf_counter()
        table = lc.Trials(tar, non).sorted
        lc.eer(table); lc.min_cllr(table); lc.cllr(table)
        for p in (0.01, 0.001, 0.1):
            lc.min_dcf(table, p_target=p); lc.act_dcf(table, p_target=p)
        lc.det_curve(table); lc.det_curve(table, rocch=True)
        lc.bayes_error_rates(table, plo=np.linspace(-10, 10, 201))
        times.append(time.perf_counter() - start)
    return min(times)

def bootstrap():
    rng = np.random.default_rng(0)
    trials = lc.Trials(rng.normal(2, 1, 10_000), rng.normal(0, 1, 100_000))
    bootstrap = lc.bootstrap  # llrcore imports a name's module on first use: not part of the time
    start = time.perf_counter()
    bootstrap(trials, n=1000, seed=0)
    return time.perf_counter() - start

def sweep():
    data = np.load(ROOT + "/assets/fvcaus_plda/fvcaus_plda.npz")
    trials = lc.Trials(data["tar"], data["non"])
    sweep = lc.sweep_prior_weighting  # imported on first use, as above
    start = time.perf_counter()
    sweep(trials, None, folds=5, seed=0)
    return time.perf_counter() - start

CASES = {"analysis 1M": lambda: analysis(1_000_000), "analysis 10M": lambda: analysis(10_000_000),
         "bootstrap": bootstrap, "sweep": sweep}
print(json.dumps(CASES[CASE]()))
'''


def run(tree: Path, case: str) -> float:
    code = f"TREE = {str(tree)!r}; ROOT = {str(ROOT)!r}; CASE = {case!r}\n" + WORKLOAD
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return json.loads(done.stdout.splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the git revision before the change")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--cases", default="analysis 1M,analysis 10M,bootstrap,sweep")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rev = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    cases = args.cases.split(",")
    with tempfile.TemporaryDirectory() as folder:
        before = Path(folder) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", str(before), rev], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            times = {(case, side): [] for case in cases for side in ("before", "after")}
            start = time.perf_counter()
            for rep in range(args.reps):
                for case in cases:
                    for side, tree in (("before", before), ("after", ROOT)) if rep % 2 == 0 else \
                            (("after", ROOT), ("before", before)):
                        times[case, side].append(run(tree, case))
                print(f"repetition {rep + 1} of {args.reps} done", flush=True)
            seconds = time.perf_counter() - start
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=False)
    lines = [SECTION, "",
             f"`python bench/bench_before_after.py {args.rev} --reps {args.reps}`: before = {rev}, after = {head} "
             f"(and the working tree's changes); best of {args.reps} runs each, alternating ({seconds:.0f} s in all).",
             "", "| workload | before (s) | after (s) | after / before |", "|---|---|---|---|"]
    for case in cases:
        b, a = min(times[case, "before"]), min(times[case, "after"])
        lines.append(f"| {case} | {b:.3f} | {a:.3f} | {a / b:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
