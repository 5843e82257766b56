"""Benchmark: 1,000 bootstrap replicates of 1M target + 10M non-target LLRs, llrcore against the naive way.

A replicate draws the trials again with replacement (per class) and recomputes EER, minDCF, actDCF, Cllr, minCllr
and Cprimary (``llrcore.uncertainty.resampling.BOOTSTRAP_METRICS``, P_target 0.01). Side by side in the same run, each in its
own subprocess (so its peak memory is its own):

1. ``llrcore``: ``lc.bootstrap(lc.Trials(tar, non), n=N, seed=0)``; the whole call is timed (one sort, N replicates
   that re-weight the sorted trials, the metrics of all the trials and the DET band), and each replicate through
   the ``progress`` callback (the time between successive calls).
2. ``naive``, resample, rebuild, recompute: the draws of the ``llrcore.uncertainty.resampling`` docstring
   (``rng = np.random.default_rng(0)``; per replicate ``rng.integers(0, n_tar, n_tar)`` then
   ``rng.integers(0, n_non, n_non)`` index ``np.sort(tar)`` and ``np.sort(non)``), then
   ``lc.evaluate(lc.Trials(tar_sorted[i], non_sorted[j]))`` from scratch. Slow, so only a few replicates; they are
   the first replicates of the llrcore run, and their numbers are compared with llrcore's.
3. ``full analysis``: one ``lc.evaluate(lc.Trials(tar, non))`` from the unsorted arrays — the unit the goal is
   stated in (a replicate must cost well under half of it).

Data: the calibrated Gaussian LLRs of ``bench_binary.py`` (seed 20240601). Peak memory:
``ru_maxrss`` of the worker subprocess above the baseline after imports (the input arrays included).

``--fixed-cost`` measures instead what a short run costs, fixed costs included, in CPU seconds
(``time.process_time()``, one subprocess with ``LLRCORE_THREADS=1``, so that other work on the machine counts
little): one ``np.sort`` of all the scores (the machine's sort speed, which the ratios depend on), the full analysis,
``lc.bootstrap(..., n=10)`` with BCa (its grouped jackknife and the rule of 30 included) and with
``method="percentile"``, each the best of ``--reps``; a replicate is the mean CPU time between ``progress`` calls of
the BCa run with the least time.

This is a benchmark, not a test: it prints and records numbers, it asserts nothing. Run::

    python bench/bench_bootstrap.py               # full size, 1,000 replicates (~10 min), writes bench/RESULTS.md
    python bench/bench_bootstrap.py --size small  # 100k + 1M, quick check, prints only
    python bench/bench_bootstrap.py --fixed-cost  # 10 replicates in full analyses, CPU time, prints only
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _results import publish
from bench_binary import (ROOT, SEED, SIZES, _maxrss_mib, add_run_options, add_size_option, machine_info, make_data,
                          wait_for_idle)

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADING = "## Bootstrap (1M target + 10M non-target, 1,000 replicates)"
BOOTSTRAP_SEED = 0
TOOLS = ("llrcore", "naive", "full")
FIXED_REPLICATES = 10  # --fixed-cost: the short run whose fixed costs count
GOAL_RATIO = 0.5  # one replicate / one full analysis from unsorted arrays
GOAL_BYTES = 1.5e9  # peak memory incl. inputs


# ---------------------------------------------------------------------------------------------------------------
# Workers: one tool, one size, in its own process. Each returns its timings (and numbers) as a dict.
# ---------------------------------------------------------------------------------------------------------------
def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_llrcore(tar, non, replicates: int) -> dict:
    import llrcore as lc

    stamps: list[float] = []
    last_print = [time.perf_counter()]

    def progress(done: int, n: int) -> None:
        now = time.perf_counter()
        stamps.append(now)
        if done == 1:
            _log(f"    llrcore bootstrap: first replicate done (with the sort) after {now - start:.2f} s")
        elif done == n or now - last_print[0] > 30 or done == 10:
            per = (now - stamps[0]) / (done - 1)
            _log(f"    llrcore bootstrap {done:,}/{n:,} replicates, {per:.3f} s each, "
                 f"~{per * (n - done):.0f} s to go (load {os.getloadavg()[0]:.2f})")
            last_print[0] = now

    gc.collect()
    start = last_print[0] = time.perf_counter()
    result = lc.bootstrap(lc.Trials(tar, non), n=replicates, seed=BOOTSTRAP_SEED, progress=progress)
    end = time.perf_counter()
    steps = np.diff(stamps)  # replicates 2..N, one each: the one-off work (sort, caches) is in the first
    timing = {"total": end - start, "first": stamps[0] - start, "after_last": end - stamps[-1],
              "per_mean": float(steps.mean()), "per_median": float(np.median(steps)), "per_min": float(steps.min()),
              "per_max": float(steps.max())}
    rows = result.replicates.to_dict(orient="list")
    return {**timing, "replicates": replicates, "rows": rows}


def run_naive(tar, non, replicates: int) -> dict:
    import llrcore as lc
    from llrcore.uncertainty.resampling import BOOTSTRAP_METRICS

    start = time.perf_counter()
    tar_sorted, non_sorted = np.sort(tar), np.sort(non)
    sort_time = time.perf_counter() - start
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    times, rows = [], {m: [] for m in BOOTSTRAP_METRICS}
    for done in range(1, replicates + 1):
        gc.collect()
        start = time.perf_counter()
        i = rng.integers(0, tar.size, tar.size)
        j = rng.integers(0, non.size, non.size)
        metrics = lc.evaluate(lc.Trials(tar_sorted[i], non_sorted[j]))
        times.append(time.perf_counter() - start)
        for m in BOOTSTRAP_METRICS:
            rows[m].append(float(getattr(metrics, m)))
        del i, j, metrics
        _log(f"    naive replicate {done}/{replicates}: {times[-1]:.3f} s")
    return {"sort": sort_time, "times": times, "per_mean": float(np.mean(times)),
            "per_median": float(np.median(times)), "per_min": float(np.min(times)), "replicates": replicates,
            "total": sort_time + sum(times), "rows": rows}


def run_full(tar, non, reps: int) -> dict:
    import llrcore as lc

    times = []
    for _ in range(reps):
        gc.collect()
        start = time.perf_counter()
        lc.evaluate(lc.Trials(tar, non))
        times.append(time.perf_counter() - start)
    return {"times": times, "best": min(times), "total": min(times)}


def run_fixed(tar, non, reps: int) -> dict:
    """CPU seconds, best of `reps`: np.sort of all the scores, the full analysis, and lc.bootstrap of
    FIXED_REPLICATES replicates with BCa (with each replicate's CPU time from its progress calls) and percentile."""
    import llrcore as lc

    def cpu(run) -> float:
        gc.collect()
        start = time.process_time()
        run()
        return time.process_time() - start

    def sort_all():
        np.sort(np.concatenate([tar, non]))

    def bca_run() -> tuple[float, float]:
        stamps: list[float] = []
        seconds = cpu(lambda: lc.bootstrap(lc.Trials(tar, non), n=FIXED_REPLICATES, seed=BOOTSTRAP_SEED,
                                           progress=lambda done, n: stamps.append(time.process_time())))
        return seconds, float(np.mean(np.diff(stamps)))

    record = {"sort": min(cpu(sort_all) for _ in range(reps)),
              "full": min(cpu(lambda: lc.evaluate(lc.Trials(tar, non))) for _ in range(reps))}
    record["bca"], record["replicate"] = min(bca_run() for _ in range(reps))
    record["percentile"] = min(cpu(lambda: lc.bootstrap(lc.Trials(tar, non), n=FIXED_REPLICATES, seed=BOOTSTRAP_SEED,
                                                         method="percentile")) for _ in range(reps))
    record["total"] = record["bca"]
    return record


def render_fixed(rec: dict, size: tuple[int, int]) -> str:
    full = rec["full"]
    return "\n".join([
        f"{size[0]:,} + {size[1]:,} trials, CPU seconds, best of the runs, LLRCORE_THREADS=1:",
        f"- np.sort of all {sum(size):,} scores (float64): {rec['sort']:.3f} s",
        f"- full analysis (`lc.evaluate(lc.Trials(tar, non))`): {full:.3f} s",
        f"- lc.bootstrap n={FIXED_REPLICATES}, BCa: {rec['bca']:.2f} s = {rec['bca'] / full:.2f} full analyses",
        (f"- lc.bootstrap n={FIXED_REPLICATES}, percentile: {rec['percentile']:.2f} s = "
         f"{rec['percentile'] / full:.2f} full analyses (the jackknife and the rule of 30: about "
         f"{(rec['bca'] - rec['percentile']) / full:.2f})"),
        f"- a replicate: {rec['replicate']:.3f} s = {rec['replicate'] / full:.3f} of a full analysis",
    ]) + "\n"


def worker(tool: str, n_tar: int, n_non: int, replicates: int, reps: int, out_path: str) -> None:
    import llrcore  # noqa: F401  (imports before the baseline)
    import llrcore.uncertainty.resampling  # noqa: F401

    rss_imports = _maxrss_mib()
    tar, non = make_data(n_tar, n_non)
    gc.collect()
    rss_data = _maxrss_mib()
    load_start = os.getloadavg()[0]
    if tool == "llrcore":
        record = run_llrcore(tar, non, replicates)
    elif tool == "naive":
        record = run_naive(tar, non, replicates)
    elif tool == "full":
        record = run_full(tar, non, reps)
    elif tool == "fixed":
        record = run_fixed(tar, non, reps)
    else:
        raise SystemExit(f"unknown tool {tool!r}")
    rss_peak = _maxrss_mib()
    record.update(tool=tool, n_tar=n_tar, n_non=n_non, rss_imports_mib=rss_imports, rss_data_mib=rss_data,
                  rss_peak_mib=rss_peak, peak_incl_inputs_mib=rss_peak - rss_imports,
                  peak_analysis_mib=rss_peak - rss_data, load_start=load_start, load_end=os.getloadavg()[0])
    Path(out_path).write_text(json.dumps(record))


# ---------------------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------------------
def run_tool(tool: str, size: tuple[int, int], replicates: int, reps: int, idle_wait: float) -> dict:
    """Run one tool in a subprocess (its progress goes to stderr as it runs); its record, or one saying why not."""
    n_tar, n_non = size
    load = wait_for_idle(idle_wait) if idle_wait > 0 else os.getloadavg()[0]
    _log(f"  {tool}: {n_tar:,} + {n_non:,}, load average {load:.2f} ...")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", tool, "--n-tar", str(n_tar),
               "--n-non", str(n_non), "--replicates", str(replicates), "--reps", str(reps), "--out", str(out)]
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)  # stderr: the progress, live
        if proc.returncode != 0 or not out.exists():
            why = "killed (out of memory?)" if proc.returncode < 0 else f"exit code {proc.returncode}"
            _log(f"  {tool}: FAILED ({why})")
            return {"tool": tool, "failed": why, "load_start": load}
        record = json.loads(out.read_text())
    _log(f"  {tool}: {record['total']:.2f} s, peak incl. inputs {record['peak_incl_inputs_mib']:,.0f} MiB")
    return record


def differences(llrcore: dict, naive: dict) -> dict[str, float]:
    """Max |llrcore - naive| per metric over the replicates both ran (NaN where both are NaN counts as equal)."""
    out = {}
    for metric, values in naive["rows"].items():
        k = min(len(values), len(llrcore["rows"][metric]))
        a, b = np.asarray(llrcore["rows"][metric][:k]), np.asarray(values[:k])
        same_nan = np.isnan(a) & np.isnan(b)
        out[metric] = float(np.max(np.where(same_nan, 0.0, np.abs(a - b)), initial=0.0))
    return out


def _machine_line(info: dict) -> str:
    versions = {k: v for k, v in info["versions"].items() if k not in ("scikit-learn", "llreval")}
    return (f"Machine: {info['nproc']} CPUs ({info['cpu']}), {info['ram_gib']} GiB RAM, {info['platform']}; "
            + ", ".join(f"{k} {v}" for k, v in versions.items())
            + f"; commit {info['commit']} (working tree); {info['date']}.")


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _load(rec: dict) -> str:
    return f"{rec.get('load_start', float('nan')):.2f} -> {rec.get('load_end', float('nan')):.2f}"


def render(records: dict, info: dict, size: tuple[int, int], command: str, replicates: int, reps: int,
           loads: tuple[tuple, tuple]) -> str:
    n_tar, n_non = size
    lc_rec, naive, full = (records.get(t, {}) for t in TOOLS)
    ok = {t: r for t, r in records.items() if "failed" not in r}
    out = [HEADING, ""]
    out.append(
        f"{replicates:,} bootstrap replicates (seed {BOOTSTRAP_SEED}, trials drawn per class) of {n_tar:,} target + "
        f"{n_non:,} non-target calibrated Gaussian LLRs (the data of `bench_binary.py`, seed {SEED}); every replicate "
        "recomputes EER, minDCF, actDCF (P_target 0.01), Cllr, minCllr and Cprimary (`lc.bootstrap` also the ROCCH "
        "of its DET band)."
    )
    out.append("")
    out.append(_machine_line(info))
    out.append("")
    out.append(f"Reproduce: `{command}`")
    out.append("")
    out.append(
        "Each tool runs in its own subprocess. *llrcore*: one `lc.bootstrap(lc.Trials(tar, non), n, seed=0)` call "
        "(run once); *per replicate* is the mean time between successive `progress` calls "
        "(replicates 2 to N; the one-off sort and caches are in the first, the metrics of all the trials and the "
        "DET band after the last). *naive*: the same draws (module docstring of `llrcore.uncertainty.resampling`) indexing "
        "`np.sort(tar)`, `np.sort(non)`, then `lc.evaluate(lc.Trials(...))` from scratch; a replicate's time "
        "includes its draws. *full analysis*: `lc.evaluate(lc.Trials(tar, non))` from the unsorted arrays, best of "
        f"{reps}. Peak memory: `ru_maxrss` of the subprocess above the baseline after imports (inputs included: "
        f"{(n_tar + n_non) * 8 / 2**20:,.0f} MiB of scores). *load*: the 1-minute load average at the start and "
        "end of the tool (2 cores shared with other work make the times noisy)."
    )
    out.append("")
    out.append("| tool | replicates | total [s] | per replicate [s] (mean; median, min) | replicate / full analysis "
               "| peak incl. inputs [MiB] | load |")
    out.append("|---|---:|---:|---|---:|---:|---|")
    full_time = full.get("best") if "full" in ok else None

    def ratio(t):
        return f"{t / full_time:.2f}" if full_time else ""

    for tool, rec in records.items():
        if "failed" in rec:
            out.append(f"| {tool} | | failed: {rec['failed']} | | | | {_load(rec)} |")
            continue
        if tool == "full":
            out.append(f"| full analysis (`evaluate` from unsorted) | - | {rec['best']:.3f} "
                       f"(of {', '.join(f'{t:.2f}' for t in rec['times'])}) | | 1 "
                       f"| {rec['peak_incl_inputs_mib']:,.0f} | {_load(rec)} |")
            continue
        per = f"**{rec['per_mean']:.3f}** ({rec['per_median']:.3f}, {rec['per_min']:.3f})"
        name = "llrcore `lc.bootstrap`" if tool == "llrcore" else "naive: resample, rebuild, recompute"
        total = f"{rec['total']:.1f}"
        if tool == "naive":
            total += f" (incl. sort {rec['sort']:.2f})"
        out.append(f"| {name} | {rec['replicates']:,} | {total} | {per} | {ratio(rec['per_mean'])} "
                   f"| {rec['peak_incl_inputs_mib']:,.0f} | {_load(rec)} |")
    out.append("")

    out.append(f"Goals (at {n_tar:,} + {n_non:,}):")
    out.append("")
    if "llrcore" in ok:
        if full_time:
            r = lc_rec["per_mean"] / full_time
            whole = (lc_rec["total"] - full_time) / lc_rec["replicates"]
            out.append(f"- one llrcore replicate / one full analysis from unsorted arrays: **{r:.2f}** "
                       f"({lc_rec['per_mean']:.3f} s / {full_time:.3f} s; goal well under {GOAL_RATIO}): "
                       f"{'met' if r < GOAL_RATIO else 'MISSED'}. Whole call: (total - one full analysis) / N = "
                       f"{whole:.3f} s per replicate ({whole / full_time:.2f} of a full analysis); before the first "
                       f"replicate ends {lc_rec['first']:.2f} s, after the last {lc_rec['after_last']:.2f} s.")
        if "naive" in ok:
            out.append(f"- llrcore vs the naive way, per replicate: **{naive['per_mean'] / lc_rec['per_mean']:.1f}x "
                       f"faster** ({naive['per_mean']:.3f} s vs {lc_rec['per_mean']:.3f} s); {lc_rec['replicates']:,} "
                       f"replicates the naive way would take ~{_duration(naive['per_mean'] * lc_rec['replicates'])}, "
                       f"llrcore took {_duration(lc_rec['total'])}.")
        peak = lc_rec["peak_incl_inputs_mib"]
        out.append(f"- llrcore peak memory incl. inputs: **{peak:,.0f} MiB = {peak * 2**20 / 1e9:.2f} GB** "
                   f"(whole process {lc_rec['rss_peak_mib'] * 2**20 / 1e9:.2f} GB; goal < {GOAL_BYTES / 1e9:g} GB): "
                   f"{'met' if peak * 2**20 < GOAL_BYTES else 'MISSED'}.")
    out.append("")
    if "llrcore" in ok and "naive" in ok:
        diffs = differences(lc_rec, naive)
        k = min(naive["replicates"], lc_rec["replicates"])
        out.append(f"Same numbers: max |llrcore - naive| over the {k} replicates both ran (same seed, same draws):")
        out.append("")
        out.append("| metric | " + " | ".join(diffs) + " |")
        out.append("|---|" + "---:|" * len(diffs))
        out.append("| max abs. diff | " + " | ".join(f"{d:.1e}" for d in diffs.values()) + " |")
        out.append("")
    (t0, l0), (t1, l1) = loads
    out.append(f"Machine load (1, 5, 15-min averages): {', '.join(f'{x:.2f}' for x in l0)} at the start ({t0}), "
               f"{', '.join(f'{x:.2f}' for x in l1)} at the end ({t1}).")
    out.append("")
    return "\n".join(out) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_size_option(parser)
    parser.add_argument("--replicates", type=int, default=1000, help="llrcore bootstrap replicates (default 1000)")
    parser.add_argument("--naive-replicates", type=int, default=None,
                        help="replicates of the naive way (default 5 at full size, 20 small)")
    parser.add_argument("--reps", type=int, default=3,
                        help="repetitions of the full analysis, best reported (the bootstrap call runs once)")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset of " + ", ".join(TOOLS))
    parser.add_argument("--fixed-cost", action="store_true",
                        help=f"{FIXED_REPLICATES} replicates in full analyses, CPU time (module docstring); prints only")
    add_run_options(parser, idle_wait=60.0)
    args = parser.parse_args(argv)

    if args.worker:
        worker(args.worker, args.n_tar, args.n_non, args.replicates, args.reps, args.out)
        return

    size = SIZES[args.size]
    if args.fixed_cost:
        os.environ["LLRCORE_THREADS"] = "1"  # CPU time of one thread: other work on the machine counts little
        record = run_tool("fixed", size, FIXED_REPLICATES, args.reps, args.idle_wait)
        print(render_fixed(record, size) if "failed" not in record else f"failed: {record['failed']}")
        return
    naive_n = args.naive_replicates or (5 if args.size == "full" else 20)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    command = "python bench/bench_bootstrap.py" + ("" if args.size == "full" else f" --size {args.size}")
    if args.replicates != 1000:
        command += f" --replicates {args.replicates}"
    info = machine_info()
    start_load = (time.strftime("%H:%M"), os.getloadavg())
    _log(f"Bootstrap benchmark: {size[0]:,} target + {size[1]:,} non-target scores, {args.replicates:,} replicates "
         f"(naive {naive_n}); load average {', '.join(f'{x:.2f}' for x in start_load[1])}")
    records = {}
    for tool in ("full", "naive", "llrcore"):  # the long one last
        if tool in tools:
            n = args.replicates if tool == "llrcore" else naive_n
            records[tool] = run_tool(tool, size, n, args.reps, args.idle_wait)
    records = {t: records[t] for t in TOOLS if t in records}
    end_load = (time.strftime("%H:%M"), os.getloadavg())
    text = render(records, info, size, command, args.replicates, args.reps, (start_load, end_load))
    publish(HEADING, text, args)


if __name__ == "__main__":
    main()
