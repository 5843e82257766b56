"""Benchmark: every core. The full binary analysis of 1M target + 10M non-target LLRs on 1 thread and on all threads,
side by side with one single-threaded ``np.sort`` of the 11M scores and with llreval, under two sort kernels.

The analysis is ``bench_binary.py``'s (``run_llrcore``: EER, minCllr, minDCF and actDCF at three priors, Cllr, step
and ROCCH DETs, actual and minimum Bayes error rates at 201 priors), on its data (calibrated Gaussian LLRs, seed
20240601). Per kernel, in one subprocess: rounds of ``np.sort`` of the 11M scores held in one array, the analysis with
``lc.thread_limit(1)`` and the analysis with every thread, interleaved (so that a neighbour's load falls on all three
alike), best of the rounds; then a digest (SHA-256 of every number and array the analysis returns) of each thread
count. llreval (one ``PAV`` + ``ROCCH``, as in ``bench_binary.py``) and the peak memory of each thread count run in
subprocesses of their own (``bench_binary.py --worker``).

Kernels:

- *SIMD sort*: numpy as installed; on x86-64 with AVX-512 its ``np.sort`` of float64 is x86-simd-sort.
- *no SIMD sort*: the same numpy with ``NPY_DISABLE_CPU_FEATURES`` switching off its SIMD dispatch targets (every
  one above the X86_V2 baseline), as on a CPU without SIMD sorting: ``np.sort`` then runs numpy's scalar
  introsort, and every other numpy loop its baseline code.

Goal (issue 20), on a 2-core machine: with all threads the analysis takes at most one single-threaded ``np.sort`` of
the 11M scores and is at least 1.6x faster than on 1 thread; its numbers are identical to the last bit whatever the
thread count. The goal's numbers (a sort of 0.77 s, an analysis of 1.15 s) are those of a CPU without SIMD sorting.

Also, on the SIMD kernel: the pool's other uses, ``lc.bootstrap`` (10 replicates of the same data) and the FVC
prior-weighting sweep of ``bench_sweep.py`` (5-fold CV, four rules, 17 prior weightings), once on 1 thread and once on
all threads, with a digest of their numbers.

This is a benchmark, not a test: it prints and records numbers, it asserts nothing. Run::

    python bench/bench_threads.py               # full size, writes bench/RESULTS.md
    python bench/bench_threads.py --size small  # 100k + 1M, quick check, prints only
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
from _results import publish
from bench_binary import (ROOT, SIZES, _spawn, add_run_options, add_size_option, machine_info, make_data, run_llrcore,
                          wait_for_idle)

HEADING = "## Every core: 1 thread and all threads (1M target + 10M non-target)"
#: Every SIMD dispatch target of numpy 2.4 on x86-64 (above its X86_V2 baseline): off, np.sort has no SIMD kernel.
NO_SIMD = "AVX512_SPR AVX512_ICL X86_V4 X86_V3"
KERNELS = {"SIMD sort": None, "no SIMD sort": NO_SIMD}
GOAL_SPEED_UP = 1.6


# ---------------------------------------------------------------------------------------------------------------
# Worker: one kernel, in its own process (the kernel is chosen by the environment before numpy is imported).
# ---------------------------------------------------------------------------------------------------------------
def sort_kernel() -> str:
    """Which kernel ``np.sort`` of float64 runs here, from numpy's active SIMD dispatch targets."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    active = [target for target in __cpu_dispatch__ if __cpu_features__.get(target)]
    if "X86_V4" in active:
        return "x86-simd-sort, AVX-512 (numpy dispatch target X86_V4)"
    if "X86_V3" in active:
        return "x86-simd-sort, AVX2 (numpy dispatch target X86_V3)"
    if any(target.startswith(("ASIMD", "NEON", "SVE")) for target in active):
        return "Highway VQSort (ARM SIMD)"
    return "numpy's scalar introsort (no SIMD dispatch target active; baseline " + \
        ", ".join(np.__config__.CONFIG["SIMD Extensions"]["baseline"]) + ")"


def blas_kernel() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed"
    return "; ".join(sorted({f"{i.get('internal_api')} {i.get('version')} {i.get('architecture', '')}, "
                             f"{i.get('num_threads')} threads" for i in threadpool_info()})) or "none loaded"


def digest(result) -> str:
    """SHA-256 of every number and array of a result, in order: equal digests, equal bits."""
    hasher = hashlib.sha256()

    def feed(value):
        if isinstance(value, dict):
            for key in sorted(value):
                hasher.update(key.encode())
                feed(value[key])
        elif isinstance(value, (list, tuple)):
            for item in value:
                feed(item)
        elif dataclasses.is_dataclass(value):
            feed(dataclasses.astuple(value))
        elif isinstance(value, (float, int, np.floating, np.integer, np.ndarray)):
            array = np.ascontiguousarray(value)
            hasher.update(str(array.dtype).encode() + str(array.shape).encode() + array.tobytes())
        elif value is not None:
            hasher.update(repr(value).encode())

    feed(result)
    return hasher.hexdigest()


def worker(n_tar: int, n_non: int, rounds: int, out_path: str) -> None:
    import llrcore as lc

    tar, non = make_data(n_tar, n_non)
    scores = tar.base
    all_threads = lc.thread_count()

    def analysis(threads):
        def run():
            with lc.thread_limit(threads):
                return run_llrcore(tar, non)
        return run

    variants = {"np.sort": lambda: np.sort(scores), "llrcore 1 thread": analysis(1),
                f"llrcore {all_threads} threads": analysis(all_threads)}
    times = {name: [] for name in variants}
    loads = [os.getloadavg()[0]]
    for _ in range(rounds):
        for name, run in variants.items():
            gc.collect()
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
        loads.append(os.getloadavg()[0])
    digests = {name: digest(run()) for name, run in variants.items() if name != "np.sort"}
    record = {"kernel": sort_kernel(), "blas": blas_kernel(), "threads": all_threads, "times": times,
              "best": {name: min(t) for name, t in times.items()}, "digests": digests, "loads": loads,
              "numpy_disabled": os.environ.get("NPY_DISABLE_CPU_FEATURES", ""),
              "steps": {threads: step_times(tar, non, threads, rounds) for threads in (1, all_threads)}}
    Path(out_path).write_text(json.dumps(record))


def step_times(tar, non, threads: int, rounds: int) -> dict:
    """Best time of each heavy step of the analysis on `threads` threads: the sort and merge of
    ``SortedScores``, its PAV, Cllr and the step DET."""
    from llrcore.binary.rates import SortedScores

    best: dict[str, float] = {}

    def timed(name, step):
        gc.collect()
        start = time.perf_counter()
        step()
        best[name] = min(best.get(name, np.inf), time.perf_counter() - start)

    for _ in range(max(1, rounds // 2)):
        table = None

        def build():
            nonlocal table
            table = SortedScores(tar, non, threads=threads)

        timed("sort and merge (SortedScores)", build)
        timed("PAV", lambda: table.pav)
        timed("Cllr", table.cllr)
        timed("step DET", table.det_steps)
    return best


def extras_worker(n_tar: int, n_non: int, replicates: int, out_path: str) -> None:
    """Bootstrap replicates (``lc.bootstrap``, seed 0) of the same data and the FVC prior-weighting sweep (the
    Compare-rules page's default: 4 rules, tau = -8 ... 0 by 1/2, 5-fold CV), on 1 thread and on all threads."""
    import llrcore as lc
    from llrcore.calibration.sweep import NAMED_RULES, sweep_prior_weighting

    tar, non = make_data(n_tar, n_non)
    data = np.load(ROOT / "assets" / "fvcaus_plda" / "fvcaus_plda.npz")
    fvc = lc.Trials(data["tar"], data["non"])
    all_threads = lc.thread_count()
    cases = {
        f"bootstrap, {replicates} replicates of {n_tar:,} + {n_non:,}":
            lambda threads: lc.bootstrap(lc.Trials(tar, non), n=replicates, threads=threads).replicates,
        f"prior-weighting sweep, FVC ({fvc.tar.size:,} + {fvc.non.size:,}), 5-fold CV, 4 rules x 17 tau":
            lambda threads: sweep_prior_weighting(fvc, None, NAMED_RULES, threads=threads).frame,
    }
    rows = []
    for name, run in cases.items():
        row = {"case": name, "threads": all_threads, "load": os.getloadavg()[0]}
        for threads in (1, all_threads):
            gc.collect()
            start = time.perf_counter()
            result = run(threads)
            row[threads] = time.perf_counter() - start
            # the sweep's frame as floats (its `collapsed` flags 0 or 1): an object array's bytes are pointers
            row[f"digest {threads}"] = digest(result.to_numpy(dtype=np.float64, na_value=np.nan)
                                              if "sweep" not in name else
                                              result.drop(columns="rule").to_numpy(dtype=np.float64))
        rows.append(row)
    Path(out_path).write_text(json.dumps(rows))


# ---------------------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------------------
def _environment(disabled: str | None, threads: int | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    env.pop("LLRCORE_THREADS", None)
    if disabled:
        env["NPY_DISABLE_CPU_FEATURES"] = disabled
    if threads is not None:
        env["LLRCORE_THREADS"] = str(threads)
    return env


def run_kernel(name: str, disabled: str | None, size: tuple[int, int], rounds: int, reps: int,
               idle_wait: float) -> dict:
    n_tar, n_non = size
    sizes = ["--n-tar", str(n_tar), "--n-non", str(n_non)]
    kernel: dict = {"name": name}
    kernel["load_before"] = wait_for_idle(idle_wait) if idle_wait > 0 else os.getloadavg()[0]
    print(f"  {name}: np.sort, llrcore 1 thread and all threads, {rounds} interleaved rounds ...", end="", flush=True)
    paired, why = _spawn(["--worker", "paired", *sizes, "--reps", str(rounds)], 1800, script="bench_threads.py",
                         env=_environment(disabled))
    print(" done" if paired else f" FAILED ({why})")
    kernel["paired"] = paired
    for label, threads in (("memory 1 thread", 1), ("memory all threads", None)):
        print(f"  {name}: {label} ...", end="", flush=True)
        record, why = _spawn(["--worker", "llrcore", *sizes, "--reps", "2", "--budget", "300"], 900,
                             env=_environment(disabled, threads))
        print(" done" if record else f" FAILED ({why})")
        kernel[label] = record
    if idle_wait > 0:
        wait_for_idle(idle_wait)
    print(f"  {name}: llreval, best of {reps} ...", end="", flush=True)
    load = os.getloadavg()[0]
    record, why = _spawn(["--worker", "llreval", *sizes, "--reps", str(reps), "--budget", "300"], 900,
                         env=_environment(disabled))
    print(f" best {record['best']:.2f} s" if record else f" FAILED ({why})")
    if record:
        record["load"] = load
    kernel["llreval"] = record
    kernel["load_after"] = os.getloadavg()[0]
    return kernel


def render(kernels: list[dict], extras: list | None, info: dict, size: tuple[int, int], command: str, rounds: int,
           reps: int) -> str:
    n_tar, n_non = size
    total = (n_tar + n_non) / 1e6
    out = [HEADING, ""]
    out.append(f"The full analysis of `bench_binary.py` ({n_tar:,} target + {n_non:,} non-target calibrated Gaussian "
               "LLRs, seed 20240601: EER, minCllr, minDCF and actDCF at three priors, Cllr, step and ROCCH DETs, "
               "actual and minimum Bayes error rates at 201 priors) on 1 thread (`lc.thread_limit(1)`) and on all "
               f"threads, side by side with one single-threaded `np.sort` of the {total:g}M scores in one array and "
               "with llreval, under two sort kernels of the same numpy: as installed (*SIMD sort*) and with "
               f"`NPY_DISABLE_CPU_FEATURES=\"{NO_SIMD}\"` (*no SIMD sort*: every SIMD dispatch target above the "
               "X86_V2 baseline off, as on a CPU without SIMD sorting).")
    out.append("")
    out.append(f"Machine: {info['nproc']} CPUs ({info['cpu']}), {info['ram_gib']} GiB RAM, {info['platform']}; "
               + ", ".join(f"{k} {v}" for k, v in info["versions"].items())
               + f"; commit {info['commit']} (working tree); {info['date']}.")
    out.append("")
    out.append(f"Reproduce: `{command}`")
    out.append("")
    out.append(f"Wall time: per kernel one subprocess runs {rounds} rounds of the three (np.sort, 1 thread, all "
               "threads) interleaved, so that other work on the machine falls on all three alike; best of the rounds "
               f"(all times listed). llreval: its own subprocess, best of {reps}. *Peak*: `ru_maxrss` of a "
               "subprocess per thread count (`bench_binary.py --worker llrcore`, `LLRCORE_THREADS` set), above "
               "the baseline after imports (inputs included). *identical*: the SHA-256 of every number and array "
               "the analysis returns is the same on 1 and on all threads. *load*: 1-minute load average before the "
               "kernel and after each round (other work on the machine's 2 cores makes times noisy).")
    out.append("")
    out.append("| kernel | `np.sort` kernel | `np.sort` of all scores, 1 thread [s] | llrcore 1 thread [s] "
               "| llrcore all threads [s] | speed-up all / 1 | all threads / one sort | llreval [s] "
               "| llreval / llrcore all | identical | peak 1 / all threads [MiB] | load |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
    goals = []
    for kernel in kernels:
        paired = kernel["paired"]
        if not paired:
            out.append(f"| {kernel['name']} | failed | | | | | | | | | | |")
            continue
        names = list(paired["best"])
        sort_t, one, every = (paired["best"][n] for n in names)
        ev = kernel.get("llreval")
        ev_t = f"{ev['best']:.3f}" if ev else "failed"
        ev_ratio = f"{ev['best'] / every:.1f}x" if ev else ""
        same = len(set(paired["digests"].values())) == 1
        memory = " / ".join(f"{kernel[k]['peak_incl_inputs_mib']:,.0f}" if kernel.get(k) else "?"
                            for k in ("memory 1 thread", "memory all threads"))
        loads = ", ".join(f"{x:.2f}" for x in [kernel["load_before"], *paired["loads"][1:]])
        out.append(f"| {kernel['name']} | {paired['kernel']} | {sort_t:.3f} | {one:.3f} | {every:.3f} "
                   f"({paired['threads']}) | {one / every:.2f}x | {every / sort_t:.2f} | {ev_t} | {ev_ratio} | "
                   f"{'yes' if same else '**NO**'} | {memory} | {loads} |")
        goals.append((kernel["name"], sort_t, one, every, same))
    out.append("")
    out.append("All times [s]:")
    out.append("")
    for kernel in kernels:
        if kernel["paired"]:
            parts = [f"{name} " + ", ".join(f"{t:.3f}" for t in times)
                     for name, times in kernel["paired"]["times"].items()]
            if kernel.get("llreval"):
                parts.append("llreval " + ", ".join(f"{t:.2f}" for t in kernel["llreval"]["times"]))
            out.append(f"- {kernel['name']}: " + "; ".join(parts) + ".")
    out.append("")
    by_name = {kernel["name"]: kernel["paired"] for kernel in kernels if kernel["paired"]}
    simd, scalar = by_name.get("SIMD sort"), by_name.get("no SIMD sort")
    if simd:
        sort_simd = simd["best"]["np.sort"]
        text = (f"**Sort kernel**: this machine's numpy {np.__version__} sorts float64 with {simd['kernel']}: one "
                f"`np.sort` of the {total:g}M scores takes {sort_simd:.3f} s")
        if scalar:
            text += (f"; with its SIMD dispatch off it runs {scalar['kernel']}, {scalar['best']['np.sort']:.3f} s "
                     f"({scalar['best']['np.sort'] / sort_simd:.1f}x slower)")
        out.append(text + ".")
        out.append("")
    out.append("Goals (issue 20; stated for a 2-core CPU without SIMD sorting):")
    out.append("")
    for name, sort_t, one, every, same in goals:
        ratio, floor = one / every, every / sort_t
        out.append(f"- {name}: all threads **{ratio:.2f}x** faster than 1 thread (goal >= {GOAL_SPEED_UP}x): "
                   f"{'met' if ratio >= GOAL_SPEED_UP else f'MISSED by {GOAL_SPEED_UP / ratio - 1:.0%}'}; all-thread "
                   f"time **{floor:.2f}** single-threaded sorts (goal <= 1): "
                   f"{'met' if floor <= 1 else f'MISSED by {floor - 1:.0%}'}; numbers identical to the last bit: "
                   f"{'yes' if same else 'NO'}.")
    out.append("")
    out.append("The heavy steps, best of their runs in the same subprocess (seconds on 1 thread / on all threads):")
    out.append("")
    steps = [kernel for kernel in kernels if kernel["paired"] and kernel["paired"].get("steps")]
    if steps:
        names = list(next(iter(steps[0]["paired"]["steps"].values())))
        out.append("| kernel | " + " | ".join(names) + " |")
        out.append("|---|" + "---:|" * len(names))
        for kernel in steps:
            one, every = (kernel["paired"]["steps"][str(t)] for t in (1, kernel["paired"]["threads"]))
            out.append(f"| {kernel['name']} | " + " | ".join(f"{one[n]:.3f} / {every[n]:.3f} ({one[n] / every[n]:.2f}x)"
                                                             for n in names) + " |")
        out.append("")
    if steps:
        out.append(_steps_prose(steps))
        out.append("")
    if extras:
        out.append("The pool's other uses (SIMD sort; one run each, 1 thread then all threads, in one subprocess):")
        out.append("")
        out.append("| case | 1 thread [s] | all threads [s] | speed-up | identical | load |")
        out.append("|---|---:|---:|---:|---|---:|")
        for row in extras:
            one, every = row["1"], row[str(row["threads"])]
            same = row["digest 1"] == row[f"digest {row['threads']}"]
            out.append(f"| {row['case']} | {one:.2f} | {every:.2f} ({row['threads']}) | {one / every:.2f}x | "
                       f"{'yes' if same else '**NO**'} | {row['load']:.2f} |")
        out.append("")
    blas = {kernel["paired"]["blas"] for kernel in kernels if kernel["paired"]}
    out.append("BLAS (threadpoolctl): " + "; ".join(sorted(blas)) + ". `OPENBLAS_CORETYPE` / `OPENBLAS_L2_SIZE`: "
               + (", ".join(f"{k}={os.environ[k]}" for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
                            if k in os.environ) or "not set") + " (the analysis calls no BLAS routine).")
    out.append("")
    return "\n".join(out) + "\n"


def _steps_prose(steps: list[dict]) -> str:
    """What the heavy steps' table says, from its numbers: the share of the sort (and merge) in the analysis on one
    thread and what the other threads gain on it, per kernel."""
    said = []
    for kernel in steps:
        paired = kernel["paired"]
        one, every = (paired["steps"][str(t)] for t in (1, paired["threads"]))
        sort_step = next(iter(one))
        share = one[sort_step] / paired["best"]["llrcore 1 thread"]
        said.append(f"{kernel['name']}: the {sort_step.split(' (')[0]} is {share:.0%} of the analysis on 1 thread and "
                    f"{one[sort_step] / every[sort_step]:.2f}x faster on {paired['threads']} threads")
    text = "; ".join(said)
    return (text[0].upper() + text[1:] + ". The rest of the analysis is passes over all the scores that each write "
            "an array as long as the scores (the merged table, Cllr's costs, the step DET's two arrays), which gain "
            "less than 2x from a second core. The goal is the issue's, for a CPU without SIMD sorting; the SIMD row "
            "is reported as measured.")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_size_option(parser)
    parser.add_argument("--reps", type=int, default=7, help="interleaved rounds per kernel (llreval: at most 3)")
    parser.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated subset of " + ", ".join(KERNELS))
    parser.add_argument("--replicates", type=int, default=10,
                        help="bootstrap replicates of the pool's other uses (with the FVC sweep; 0: skip both)")
    add_run_options(parser, idle_wait=300.0)
    args = parser.parse_args(argv)
    if args.worker == "paired":
        worker(args.n_tar, args.n_non, args.reps, args.out)
        return
    if args.worker == "extras":
        extras_worker(args.n_tar, args.n_non, args.reps, args.out)
        return
    size = SIZES[args.size]
    info = machine_info()
    command = "python bench/bench_threads.py" + ("" if args.size == "full" else f" --size {args.size}")
    print(f"Every core: {size[0]:,} target + {size[1]:,} non-target scores; {info['nproc']} CPUs ({info['cpu']})")
    kernels = [run_kernel(name.strip(), KERNELS[name.strip()], size, args.reps, min(3, args.reps), args.idle_wait)
               for name in args.kernels.split(",") if name.strip()]
    extras = None
    if args.replicates:
        if args.idle_wait > 0:
            wait_for_idle(args.idle_wait)
        print(f"  bootstrap ({args.replicates} replicates) and the FVC sweep, 1 thread and all threads ...", end="",
              flush=True)
        extras, why = _spawn(["--worker", "extras", "--n-tar", str(size[0]), "--n-non", str(size[1]), "--reps",
                              str(args.replicates)], 1800, script="bench_threads.py", env=_environment(None))
        print(" done" if extras else f" FAILED ({why})")
    publish(HEADING, render(kernels, extras, info, size, command, args.reps, min(3, args.reps)), args)


if __name__ == "__main__":
    main()
