"""Benchmark: the full binary analysis of 1M target + 10M non-target LLRs, llrcore against its peers.

The analysis timed for every tool (as far as the tool offers it):

- EER, minCllr, minDCF at P_target 0.01, 0.001 and 0.5 (unit costs, normalised),
- Cllr, actual DCF at the same three priors,
- DET data: the step DET (one point per threshold) and the ROC convex hull (ROCCH) DET,
- Bayes error rates at 201 prior log-odds in [-10, 10]: actual and minimum.

Tools, side by side in the same run, each in its own subprocess (so its peak memory is its own):

1. ``llrcore``: one ``Trials(tar, non).sorted`` (one sort, one PAV) answers everything through the public API.
2. ``llreval`` (PyPI port of PYLLR): one ``PAV`` + ``ROCCH`` object, as its ``quick_eval`` / ``plotting`` modules use
   them; ``fast_Bayes_error_rate`` for the actual rates. llreval has no step DET (its ``DETPlot`` draws the ROCCH).
3. scikit-learn, the typical home-made script: ``roc_curve`` (EER by linear interpolation, minDCF and the minimum
   Bayes error curve as the minimum over ROC points), ``det_curve``, ``log_loss`` for Cllr,
   ``IsotonicRegression`` for minCllr, numpy comparisons for the actual rates. No ROCCH DET.
4. ``np.sort``: one sort of the same 11M scores, held in one array beforehand — the reference floor.

Data: calibrated Gaussian LLRs (seeded): targets ``N(mu, 2 mu)``, non-targets ``N(-mu, 2 mu)`` with ``mu = 6``, so
that every score is exactly the log-likelihood ratio of its own distribution (EER ~ 4.2 %).

Timing: wall clock (``time.perf_counter``) of the analysis only — data generation excluded, conversion to the
tool's input format (scores + labels) included. Best of up to 3 repetitions; a slow tool stops repeating once its
total would exceed the time budget (the number of repetitions is reported). A tool that does not finish one
repetition within the budget, or fails (e.g. out of memory), is re-run on the reduced size and marked as such.

Memory: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the worker subprocess; reported as the peak above the
baseline taken after imports and data generation ("analysis"), and above the baseline after imports only
("incl. inputs", i.e. the 88 MB of input arrays are counted).

This is a benchmark, not a test: it prints and records numbers, it asserts nothing. Run::

    python bench/bench_binary.py               # full size, writes bench/RESULTS.md
    python bench/bench_binary.py --size small  # 100k + 1M, quick check, prints only
"""
from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _results import publish

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
HEADING = "## Binary evaluation (1M target + 10M non-target)"

SIZES = {"full": (1_000_000, 10_000_000), "small": (100_000, 1_000_000)}
REDUCED = (100_000, 1_000_000)  # fallback size for a peer that is too slow or runs out of memory on the full size
SEED = 20240601
MU = 6.0  # calibrated Gaussian LLRs: tar ~ N(MU, 2 MU), non ~ N(-MU, 2 MU)
P_TARGETS = (0.01, 0.001, 0.5)
PLO = np.linspace(-10.0, 10.0, 201)
# DET fingerprint abscissae, nudged off the exact fractions k/N where rounding decides which side a point falls
PFA_GRID = np.concatenate([[0.0], np.logspace(-6, np.log10(0.5), 40) * (1 + 1e-7), [0.9, 1.0]])
TOOLS = ("llrcore", "llreval", "sklearn", "np.sort")
TIME_BUDGET = 300.0  # seconds of timed work per tool; one repetition over this = "too slow", use the reduced size


def make_data(n_tar: int, n_non: int, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Calibrated Gaussian LLRs: the LLR of N(mu, 2mu) against N(-mu, 2mu) at x is x itself.

    Both classes are generated in place into one buffer (targets first), so that the memory high-water mark
    after generation is exactly the input data; ``tar`` and ``non`` are views of it.
    """
    rng = np.random.default_rng(seed)
    sd = np.sqrt(2 * MU)
    buffer = np.empty(n_tar + n_non)
    tar, non = buffer[:n_tar], buffer[n_tar:]
    for part, mean in ((tar, MU), (non, -MU)):
        rng.standard_normal(out=part)
        part *= sd
        part += mean
    return tar, non


def logit(p):
    p = np.asarray(p, dtype=np.float64)
    return np.log(p) - np.log1p(-p)


# ---------------------------------------------------------------------------------------------------------------
# The analysis, one function per tool. Each returns a dict of results (arrays allowed); nothing is printed.
# ---------------------------------------------------------------------------------------------------------------
def run_llrcore(tar, non):
    import llrcore as lc

    table = lc.Trials(tar, non).sorted  # one sort, one merge; the PAV runs once, on first use
    return {
        "eer": lc.eer(table),
        "min_cllr": lc.min_cllr(table),
        "min_dcf": [lc.min_dcf(table, p_target=p) for p in P_TARGETS],
        "cllr": lc.cllr(table),
        "act_dcf": [lc.act_dcf(table, p_target=p) for p in P_TARGETS],
        "det_steps": lc.det_curve(table),
        "det_rocch": lc.det_curve(table, rocch=True),
        "bayes": lc.bayes_error_rates(table, plo=PLO),
    }


def run_llreval(tar, non):
    from llreval.bayes_error_rate import default_error_rate, fast_Bayes_error_rate
    from llreval.cllr import cllr, min_cllr
    from llreval.pav_rocch import PAV, ROCCH
    from llreval.utils import tarnon_2_scoreslabels

    scores, labels = tarnon_2_scoreslabels(tar, non)
    pav = PAV(scores, labels)  # built once and reused, as an informed llreval user would
    rocch = ROCCH(pav)
    plo3 = logit(P_TARGETS)
    order = np.argsort(plo3)  # fast_Bayes_error_rate wants sorted prior log-odds
    act3 = np.empty(3)
    act3[order] = fast_Bayes_error_rate(scores, labels, plo3[order])
    default3 = default_error_rate(plo3)
    pmiss, pfa = rocch.Pmiss_Pfa()
    return {
        "eer": float(rocch.EER()),
        "min_cllr": float(min_cllr(pav)),
        "min_dcf": list(rocch.Bayes_error_rate(plo3) / default3),
        "cllr": float(cllr(tar, non)),
        "act_dcf": list(act3 / default3),
        "det_steps": None,  # not offered: llreval's DETPlot draws the ROCCH
        "det_rocch": (pfa, pmiss),
        "bayes_min": rocch.Bayes_error_rate(PLO),
        "bayes_act": fast_Bayes_error_rate(scores, labels, PLO),
    }


def run_sklearn(tar, non):
    from scipy.special import expit
    from sklearn.isotonic import IsotonicRegression
    from sklearn.metrics import det_curve, log_loss, roc_curve

    scores = np.concatenate([tar, non])
    y = np.concatenate([np.ones(tar.size, dtype=np.int64), np.zeros(non.size, dtype=np.int64)])
    n_t, n_n = tar.size, non.size
    weight = np.where(y == 1, 0.5 / n_t, 0.5 / n_n)  # prior 0.5: Cllr is the weighted log loss in bits

    fpr, tpr, _ = roc_curve(y, scores)
    fnr = 1.0 - tpr
    d = fnr - fpr  # decreasing along the ROC; EER where the linearly interpolated ROC crosses fnr = fpr
    j = int(np.argmax(d <= 0))
    s = d[j - 1] / (d[j - 1] - d[j]) if d[j] < 0 else 1.0
    eer = float(fpr[j - 1] + s * (fpr[j] - fpr[j - 1]))

    def min_bayes(plo):
        p = 1.0 / (1.0 + np.exp(-plo))
        return float(np.min(p * fnr + (1 - p) * fpr))

    def act_bayes(plo):
        p = 1.0 / (1.0 + np.exp(-plo))
        return float(p * np.mean(scores[y == 1] < -plo) + (1 - p) * np.mean(scores[y == 0] >= -plo))

    default3 = np.minimum(P_TARGETS, 1 - np.asarray(P_TARGETS))
    plo3 = logit(P_TARGETS)

    iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0)
    posterior = iso.fit_transform(scores, y)
    with np.errstate(divide="ignore"):
        pav_llr = logit(posterior) - np.log(n_t / n_n)
    det_fpr, det_fnr, _ = det_curve(y, scores)
    return {
        "eer": eer,
        "min_cllr": float(log_loss(y, expit(pav_llr), sample_weight=weight) / np.log(2)),
        "min_dcf": [min_bayes(plo) / dflt for plo, dflt in zip(plo3, default3)],
        "cllr": float(log_loss(y, expit(scores), sample_weight=weight) / np.log(2)),
        "act_dcf": [act_bayes(plo) / dflt for plo, dflt in zip(plo3, default3)],
        "det_steps": (det_fpr, det_fnr),
        "det_rocch": None,  # not offered by scikit-learn
        "bayes_min": np.array([min_bayes(plo) for plo in PLO]),
        "bayes_act": np.array([act_bayes(plo) for plo in PLO]),
    }


def run_npsort(scores):
    return {"sorted": np.sort(scores)}


# ---------------------------------------------------------------------------------------------------------------
# Fingerprints: comparable, JSON-sized summaries of the results (computed outside the timed region).
# ---------------------------------------------------------------------------------------------------------------
def _step_det_at(pfa, pmiss, grid):
    """Step DET read at given Pfa: the smallest Pmiss among the points with ``pfa <= x``."""
    order = np.argsort(pfa, kind="stable")
    pfa_up, pmiss_up = pfa[order], pmiss[order]
    best = np.minimum.accumulate(pmiss_up)
    idx = np.searchsorted(pfa_up, grid, side="right") - 1
    return np.where(idx >= 0, best[np.maximum(idx, 0)], np.nan)


def _rocch_at(pfa, pmiss, grid):
    """ROCCH DET (piecewise linear in ROC space) read at given Pfa."""
    order = np.argsort(pfa, kind="stable")
    return np.interp(grid, pfa[order], pmiss[order])


def fingerprint(result: dict) -> dict:
    if "sorted" in result:
        return {}
    out = {k: result[k] for k in ("eer", "min_cllr", "min_dcf", "cllr", "act_dcf")}
    out = {k: (list(map(float, v)) if isinstance(v, list) else float(v)) for k, v in out.items()}
    if "bayes" in result:
        out["bayes_act"] = result["bayes"].actual.tolist()
        out["bayes_min"] = result["bayes"].minimum.tolist()
    else:
        out["bayes_act"] = np.asarray(result["bayes_act"], dtype=float).tolist()
        out["bayes_min"] = np.asarray(result["bayes_min"], dtype=float).tolist()
    if result["det_steps"] is not None:
        pfa, pmiss = map(np.asarray, result["det_steps"])
        out["det_steps_n"] = int(pfa.size)
        out["det_steps_at"] = _step_det_at(pfa, pmiss, PFA_GRID).tolist()
    if result["det_rocch"] is not None:
        pfa, pmiss = map(np.asarray, result["det_rocch"])
        order = np.argsort(pfa, kind="stable")
        out["rocch_n"] = int(pfa.size)
        out["rocch_at"] = _rocch_at(pfa, pmiss, PFA_GRID).tolist()
        out["rocch_vertices"] = [pfa[order].tolist(), pmiss[order].tolist()] if pfa.size <= 20_000 else None
    return out


# ---------------------------------------------------------------------------------------------------------------
# Worker: one tool, one size, in its own process.
# ---------------------------------------------------------------------------------------------------------------
def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def worker(tool: str, n_tar: int, n_non: int, max_reps: int, budget: float, out_path: str) -> None:
    # import everything the tool needs before the baseline
    if tool == "llrcore":
        import llrcore  # noqa: F401

        fn = run_llrcore
    elif tool == "llreval":
        import llreval.bayes_error_rate  # noqa: F401
        import llreval.cllr  # noqa: F401
        import llreval.pav_rocch  # noqa: F401

        fn = run_llreval
    elif tool == "sklearn":
        import sklearn.isotonic  # noqa: F401
        import sklearn.metrics  # noqa: F401

        fn = run_sklearn
    elif tool == "np.sort":
        fn = run_npsort
    else:
        raise SystemExit(f"unknown tool {tool!r}")
    rss_imports = _maxrss_mib()
    tar, non = make_data(n_tar, n_non)
    args = (tar.base,) if tool == "np.sort" else (tar, non)  # np.sort: the 11M scores as one array
    gc.collect()
    rss_data = _maxrss_mib()

    times, fp = [], None
    while len(times) < max_reps:
        gc.collect()
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
        if fp is None:
            fp = fingerprint(result)
        del result
        total = sum(times)
        if total + times[-1] > budget:  # the next repetition would exceed the budget
            break
    rss_peak = _maxrss_mib()
    record = {
        "tool": tool,
        "n_tar": n_tar,
        "n_non": n_non,
        "times": times,
        "best": min(times),
        "reps": len(times),
        "rss_imports_mib": rss_imports,
        "rss_data_mib": rss_data,
        "rss_peak_mib": rss_peak,
        "peak_analysis_mib": rss_peak - rss_data,
        "peak_incl_inputs_mib": rss_peak - rss_imports,
        "results": fp,
    }
    Path(out_path).write_text(json.dumps(record))


# ---------------------------------------------------------------------------------------------------------------
# Profile of the llrcore path: untraced step timings and a line-level breakdown inside llrcore.
# ---------------------------------------------------------------------------------------------------------------
class LineProfiler:
    """Self time per source line of the functions in the given files (sys.settrace; the work is in numpy, so the
    per-line tracing overhead is negligible). Time in untraced callees is charged to the calling line."""

    def __init__(self, files):
        self.files = {str(Path(f).resolve()) for f in files}
        self.times: dict[tuple[str, int], float] = {}
        self.hits: dict[tuple[str, int], int] = {}
        self.stack: list[list] = []

    def _charge(self, entry, now):
        key = (entry[0].f_code.co_filename, entry[1])
        self.times[key] = self.times.get(key, 0.0) + now - entry[2]

    def _global(self, frame, event, arg):
        if event != "call" or frame.f_code.co_filename not in self.files:
            return None
        now = time.perf_counter()
        if self.stack:
            self._charge(self.stack[-1], now)
            self.stack[-1][2] = now
        self.stack.append([frame, frame.f_lineno, now])
        return self._local

    def _local(self, frame, event, arg):
        now = time.perf_counter()
        if not self.stack or self.stack[-1][0] is not frame:
            return self._local
        top = self.stack[-1]
        if event == "line":
            self._charge(top, now)
            top[1], top[2] = frame.f_lineno, now
            key = (frame.f_code.co_filename, frame.f_lineno)
            self.hits[key] = self.hits.get(key, 0) + 1
        elif event == "return":
            self._charge(top, now)
            self.stack.pop()
            if self.stack:
                self.stack[-1][2] = now
        return self._local

    def __enter__(self):
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)


def profile_worker(n_tar: int, n_non: int, reps: int, out_path: str) -> None:
    import linecache

    import llrcore as lc
    from llrcore import data as lc_data
    from llrcore.binary import costs as lc_costs
    from llrcore.binary import merge as lc_merge
    from llrcore.binary import metrics as lc_metrics
    from llrcore.binary import pav as lc_pav
    from llrcore.binary import rates as lc_rates

    tar, non = make_data(n_tar, n_non)
    scores = tar.base

    steps = {
        "Trials(tar, non) (validation)": lambda st: st.update(trials=lc.Trials(tar, non)),
        "Trials.sorted -> SortedScores (validation, 2 sorts, merge)": lambda st: st.update(
            table=st["trials"].sorted
        ),
        "PAV (first use of .pav)": lambda st: st["table"].pav,
        "eer": lambda st: lc.eer(st["table"]),
        "min_cllr": lambda st: lc.min_cllr(st["table"]),
        "min_dcf x3": lambda st: [lc.min_dcf(st["table"], p_target=p) for p in P_TARGETS],
        "cllr (softplus over all scores)": lambda st: lc.cllr(st["table"]),
        "act_dcf x3": lambda st: [lc.act_dcf(st["table"], p_target=p) for p in P_TARGETS],
        "det_curve (step, K+1 points)": lambda st: st.update(det=lc.det_curve(st["table"])),
        "det_curve(rocch=True)": lambda st: lc.det_curve(st["table"], rocch=True),
        "bayes_error_rates (201 priors)": lambda st: lc.bayes_error_rates(st["table"], plo=PLO),
    }
    best = {name: float("inf") for name in steps}
    totals = []
    for _ in range(reps):
        state: dict = {}
        gc.collect()
        t_all = time.perf_counter()
        for name, step in steps.items():
            t0 = time.perf_counter()
            step(state)
            best[name] = min(best[name], time.perf_counter() - t0)
        totals.append(time.perf_counter() - t_all)
        del state
    sort_times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        np.sort(tar)
        np.sort(non)
        sort_times.append(time.perf_counter() - t0)
    concat_sort = []
    for _ in range(reps):
        t0 = time.perf_counter()
        np.sort(scores)
        concat_sort.append(time.perf_counter() - t0)

    # memory per step (tracemalloc sees numpy's data buffers): peak during the step and retained after it
    import tracemalloc

    memory = {}
    state = {}
    gc.collect()
    tracemalloc.start()
    for name, step in steps.items():
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        step(state)
        current, peak = tracemalloc.get_traced_memory()
        memory[name] = {"peak_above_start_mib": (peak - before) / 2**20, "retained_mib": (current - before) / 2**20,
                        "held_after_mib": current / 2**20}
    del state
    gc.collect()
    tracemalloc.reset_peak()
    run_llrcore(tar, non)
    overall_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()

    # line-level breakdown of one traced run
    files = [module.__file__ for module in (lc_rates, lc_merge, lc_pav, lc_costs, lc_metrics, lc_data)]
    gc.collect()
    with LineProfiler(files) as prof:
        run_llrcore(tar, non)
    lines = []
    for (filename, lineno), seconds in sorted(prof.times.items(), key=lambda kv: -kv[1])[:25]:
        lines.append(
            {
                "where": f"{Path(filename).parent.name}/{Path(filename).name}:{lineno}",
                "seconds": seconds,
                "hits": prof.hits.get((filename, lineno), 0),
                "code": linecache.getline(filename, lineno).strip(),
            }
        )
    record = {
        "n_tar": n_tar,
        "n_non": n_non,
        "reps": reps,
        "steps": best,
        "total_best": min(totals),
        "sum_of_best_steps": sum(best.values()),
        "sort_tar_and_non_best": min(sort_times),
        "sort_concatenated_best": min(concat_sort),
        "traced_total": sum(prof.times.values()),
        "memory": memory,
        "tracemalloc_peak_run_mib": overall_peak,
        "lines": lines,
    }
    Path(out_path).write_text(json.dumps(record))


# ---------------------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------------------
def _spawn(argv: list[str], timeout: float, *, script: str | None = None,
           env: dict | None = None) -> tuple[dict | None, str]:
    """Run a worker (this file's, or `script`'s in bench/) in a subprocess with `env` (default: this one's, with the
    checkout on PYTHONPATH); return its JSON record, or None and why it failed."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, str(HERE / script if script else Path(__file__).resolve()), *argv, "--out", str(out)]
        if env is None:
            env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout:.0f} s"
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr or "").strip().splitlines()[-3:]
            reason = "killed (out of memory?)" if proc.returncode < 0 else f"exit code {proc.returncode}"
            return None, f"{reason}: {' | '.join(tail)}"
        return json.loads(out.read_text()), ""


def wait_for_idle(max_wait: float, threshold: float = 0.7) -> float:
    """Wait (up to `max_wait` seconds) until the 1-minute load average drops below `threshold`; return it."""
    deadline = time.monotonic() + max_wait
    load = os.getloadavg()[0]
    while load >= threshold and time.monotonic() < deadline:
        time.sleep(5)
        load = os.getloadavg()[0]
    return load


def run_tool(tool: str, size: tuple[int, int], reps: int, budget: float, idle_wait: float = 0.0) -> dict:
    n_tar, n_non = size
    load = wait_for_idle(idle_wait) if idle_wait > 0 else os.getloadavg()[0]
    timeout = budget + 120.0  # one repetition longer than the budget (plus set-up) means "too slow"
    print(f"  {tool:8s} {n_tar:,} + {n_non:,} ...", end="", flush=True)
    record, why = _spawn(
        ["--worker", tool, "--n-tar", str(n_tar), "--n-non", str(n_non), "--reps", str(reps),
         "--budget", str(budget)],
        timeout,
    )
    if record is None:
        print(f" FAILED ({why})")
        return {"tool": tool, "n_tar": n_tar, "n_non": n_non, "failed": why, "load": load}
    record["load"] = load
    print(f" best {record['best']:.3f} s of {record['reps']}, peak {record['peak_analysis_mib']:.0f} MiB "
          f"(load average at start {load:.2f})")
    return record


def machine_info() -> dict:
    import scipy

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__}
    for name, module in (("scikit-learn", "sklearn"), ("llreval", "llreval"), ("llrcore", "llrcore")):
        try:
            from importlib.metadata import version

            versions[name] = version({"llrcore": "llrcore-workbench"}.get(name, name))
        except Exception:  # noqa: BLE001
            try:
                versions[name] = __import__(module).__version__
            except Exception:  # noqa: BLE001
                versions[name] = "?"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=ROOT, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001
        commit = "?"
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram_gib": round(mem_gib, 1),
        "versions": versions,
        "date": _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "commit": commit,
        "platform": platform.platform(),
    }


def _best_record(records: dict, tool: str, size: tuple[int, int]) -> dict | None:
    """The tool's successful record: at the benchmark size if it succeeded there, else at the reduced size."""
    for n_tar, n_non in (size, REDUCED):
        rec = records.get((tool, n_tar, n_non))
        if rec and "failed" not in rec:
            return rec
    return None


def _agreement(records: dict, size: tuple[int, int]) -> list[tuple]:
    """Rows (quantity, peer, llrcore value, peer value, |diff|, tolerance) comparing each peer with llrcore run at
    the peer's own size."""
    rows = []
    tolerances = {"llreval": {"eer": 1e-6, "min_cllr": 1e-6}, "sklearn": {"eer": 1e-3, "min_cllr": 1e-6}}
    for peer in ("llreval", "sklearn"):
        rec = _best_record(records, peer, size)
        if rec is None:
            continue
        ref = records.get(("llrcore", rec["n_tar"], rec["n_non"]))
        if not ref or "failed" in ref:
            continue
        a, b = ref["results"], rec["results"]
        for key in ("eer", "min_cllr", "cllr"):
            rows.append((key, peer, a[key], b[key], abs(a[key] - b[key]), tolerances[peer].get(key, 1e-6)))
        for key in ("min_dcf", "act_dcf"):
            for p, x, y in zip(P_TARGETS, a[key], b[key]):
                rows.append((f"{key} P={p}", peer, x, y, abs(x - y), 1e-6))
        for key in ("bayes_min", "bayes_act"):
            d = float(np.max(np.abs(np.asarray(a[key]) - np.asarray(b[key]))))
            rows.append((f"{key} (201 priors, max |diff|)", peer, float("nan"), float("nan"), d, 1e-6))
        if "det_steps_at" in b:
            d = float(np.nanmax(np.abs(np.asarray(a["det_steps_at"]) - np.asarray(b["det_steps_at"]))))
            rows.append((f"step DET Pmiss at {PFA_GRID.size} Pfa (max |diff|); points "
                         f"{a['det_steps_n']:,} vs {b['det_steps_n']:,}", peer, float("nan"), float("nan"), d, 1e-9))
        if "rocch_at" in b:
            d = float(np.max(np.abs(np.asarray(a["rocch_at"]) - np.asarray(b["rocch_at"]))))
            note = f"ROCCH Pmiss at {PFA_GRID.size} Pfa (max |diff|); vertices {a['rocch_n']:,} vs {b['rocch_n']:,}"
            if a.get("rocch_vertices") and b.get("rocch_vertices") and a["rocch_n"] == b["rocch_n"]:
                dv = float(np.max(np.abs(np.asarray(a["rocch_vertices"]) - np.asarray(b["rocch_vertices"]))))
                note += f", vertex max |diff| {dv:.1e}"
            rows.append((note, peer, float("nan"), float("nan"), d, 1e-9))
    return rows


def _fmt_mib(x):
    return f"{x:,.0f}"


def render(records: dict, profile: dict | None, info: dict, size: tuple[int, int], command: str,
           reps: int, budget: float) -> str:
    n_tar, n_non = size
    out = [HEADING, ""]
    out.append(
        f"Full analysis of {n_tar:,} target + {n_non:,} non-target calibrated Gaussian LLRs (seed {SEED}; "
        f"tar ~ N({MU:g}, {2 * MU:g}), non ~ N({-MU:g}, {2 * MU:g})): EER, minCllr, minDCF and actDCF at "
        f"P_target {', '.join(map(str, P_TARGETS))}, Cllr, step DET and ROCCH DET, actual and minimum Bayes error "
        f"rates at {PLO.size} prior log-odds in [{PLO[0]:g}, {PLO[-1]:g}]."
    )
    out.append("")
    out.append(
        f"Machine: {info['nproc']} CPUs ({info['cpu']}), {info['ram_gib']} GiB RAM, {info['platform']}; "
        + ", ".join(f"{k} {v}" for k, v in info["versions"].items())
        + f"; commit {info['commit']} (working tree); {info['date']}."
    )
    out.append("")
    out.append(f"Reproduce: `{command}`")
    out.append("")
    out.append(
        f"Wall time: best of up to {reps} repetitions (fewer when a tool's repetitions would exceed {budget:.0f} s; "
        "column *reps*), data generation excluded, conversion to the tool's input format included. Peak memory: "
        "`ru_maxrss` of a separate subprocess per tool, minus the baseline after imports and data generation "
        "(*analysis*) or after imports only (*incl. inputs*: counts the 88 MB of input arrays at full size). "
        "*load avg.*: the machine's 1-minute load average when the tool started (other work on the 2 cores makes "
        "times noisy; the benchmark waits up to `--idle-wait` s for a quiet moment). The first repetition in each "
        "process is slower: it page-faults fresh memory, which on this VM costs up to seconds per GB the first time "
        "guest memory is touched — hence the best of several repetitions."
    )
    out.append("")
    out.append("| tool | size (tar + non) | reps | best wall time [s] | all times [s] | peak analysis [MiB] "
               "| peak incl. inputs [MiB] | llrcore speed-up | load avg. | computes |")
    out.append("|---|---|---:|---:|---|---:|---:|---:|---:|---|")
    what = {
        "llrcore": "everything, one `Trials.sorted` (1 sort per class + merge, 1 PAV)",
        "llreval": "everything except the step DET (not offered); 1 `PAV` + `ROCCH`, `fast_Bayes_error_rate` x2",
        "sklearn": "everything except the ROCCH DET (not offered); EER interpolated on the step ROC, not ROCCH",
        "np.sort": f"only `np.sort` of the {(n_tar + n_non) / 1e6:g}M scores in one array (the floor)",
    }
    def order(key):
        tool, nt, nn = key
        return (0 if (nt, nn) == size else 1, TOOLS.index(tool))

    for key in sorted(records, key=order):
        rec = records[key]
        size_txt = f"{rec['n_tar']:,} + {rec['n_non']:,}"
        if (rec["n_tar"], rec["n_non"]) != size:
            size_txt += " (**reduced**)"
        if "failed" in rec:
            out.append(f"| {rec['tool']} | {size_txt} | - | failed: {rec['failed']} | | | | | "
                       f"{rec.get('load', float('nan')):.2f} | {what[rec['tool']]} |")
            continue
        ref = records.get(("llrcore", rec["n_tar"], rec["n_non"]))
        speed = ""
        if ref and "failed" not in ref and rec["tool"] != "llrcore":
            if rec["tool"] == "np.sort":
                speed = f"llrcore = {ref['best'] / rec['best']:.1f}x the floor"
            else:
                speed = f"{rec['best'] / ref['best']:.1f}x"
        out.append(
            f"| {rec['tool']} | {size_txt} | {rec['reps']} | {rec['best']:.3f} | "
            + ", ".join(f"{t:.2f}" for t in rec["times"])
            + f" | {_fmt_mib(rec['peak_analysis_mib'])} | {_fmt_mib(rec['peak_incl_inputs_mib'])} | {speed} | "
            f"{rec.get('load', float('nan')):.2f} | {what[rec['tool']]} |"
        )
    out.append("")

    # goals
    out.append("Goals (llrcore at full size):")
    out.append("")
    lc_full = records.get(("llrcore", *size))
    ev, ns = _best_record(records, "llreval", size), _best_record(records, "np.sort", size)
    if lc_full and "failed" not in lc_full:
        if ev:
            ref = records.get(("llrcore", ev["n_tar"], ev["n_non"]))
            ratio = ev["best"] / ref["best"]
            at = "" if (ev["n_tar"], ev["n_non"]) == size else " (at the reduced size)"
            out.append(f"- llrcore vs llreval: **{ratio:.1f}x faster**{at} (goal >= 5x): "
                       f"{'met' if ratio >= 5 else 'MISSED'}.")
        if ns and (ns["n_tar"], ns["n_non"]) == size:
            ratio = lc_full["best"] / ns["best"]
            out.append(f"- llrcore vs one `np.sort` of the {sum(size) / 1e6:g}M scores: **{ratio:.1f}x** the floor "
                       f"(goal within 10x): {'met' if ratio <= 10 else 'MISSED'}.")
        peak = lc_full["peak_incl_inputs_mib"]
        out.append(f"- llrcore peak memory incl. inputs: **{peak:,.0f} MiB** (goal < 1 GiB = 1024 MiB): "
                   f"{'met' if peak < 1024 else 'MISSED'}.")
    out.append("")

    # agreement
    rows = _agreement(records, size)
    if rows:
        out.append("Agreement with llrcore (each peer compared with llrcore run on the same data):")
        out.append("")
        out.append("| quantity | peer | llrcore | peer | abs. diff | within |")
        out.append("|---|---|---:|---:|---:|---|")
        for name, peer, x, y, d, tol in rows:
            xs = "" if np.isnan(x) else f"{x:.9g}"
            ys = "" if np.isnan(y) else f"{y:.9g}"
            out.append(f"| {name} | {peer} | {xs} | {ys} | {d:.2e} | {'yes' if d <= tol else 'NO'} ({tol:g}) |")
        out.append("")

    if profile:
        out.append(f"llrcore step profile ({profile['n_tar']:,} + {profile['n_non']:,}, best of {profile['reps']} "
                   f"per step; sum {profile['sum_of_best_steps']:.3f} s, best total {profile['total_best']:.3f} s; "
                   f"`np.sort(tar)` + `np.sort(non)` alone {profile['sort_tar_and_non_best']:.3f} s, "
                   f"`np.sort` of all {(profile['n_tar'] + profile['n_non']) / 1e6:g}M in one array "
                   f"{profile['sort_concatenated_best']:.3f} s):")
        out.append("")
        out.append("| step (public API, in order) | best [s] | share | tracemalloc peak during step [MiB] "
                   "| retained after step [MiB] |")
        out.append("|---|---:|---:|---:|---:|")
        total = profile["sum_of_best_steps"]
        for name, t in profile["steps"].items():
            mem = profile["memory"][name]
            out.append(f"| {name} | {t:.3f} | {100 * t / total:.0f} % | {mem['peak_above_start_mib']:,.0f} "
                       f"| {mem['retained_mib']:,.0f} |")
        out.append("")
        out.append(f"tracemalloc peak of one whole `run_llrcore` (results kept until the end, inputs excluded): "
                   f"{profile['tracemalloc_peak_run_mib']:,.0f} MiB.")
        out.append("")
        out.append(f"Hottest lines inside llrcore (one traced run, self time incl. numpy calls, "
                   f"traced total {profile['traced_total']:.3f} s):")
        out.append("")
        out.append("| where | s | code |")
        out.append("|---|---:|---|")
        for line in profile["lines"][:15]:
            code = line["code"].replace("|", "\\|")
            out.append(f"| {line['where']} | {line['seconds']:.3f} | `{code}` |")
        out.append("")
    return "\n".join(out) + "\n"


def add_size_option(parser: argparse.ArgumentParser) -> None:
    """--size full (1M + 10M, writes bench/RESULTS.md) or small (100k + 1M, a quick check)."""
    parser.add_argument("--size", choices=sorted(SIZES), default="full",
                        help="full: 1M + 10M (writes bench/RESULTS.md); small: 100k + 1M, quick check")


def add_run_options(parser: argparse.ArgumentParser, *, idle_wait: float) -> None:
    """The options every benchmark run shares: --idle-wait, --write, --no-write, and the worker's hidden ones."""
    parser.add_argument("--idle-wait", type=float, default=idle_wait,
                        help="before each tool, wait up to this many seconds for the load average to drop below 0.7")
    parser.add_argument("--write", action="store_true", help="write bench/RESULTS.md also for --size small")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    # internal: worker mode
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--n-tar", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--n-non", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_size_option(parser)
    parser.add_argument("--reps", type=int, default=3, help="repetitions per tool (best is reported)")
    parser.add_argument("--budget", type=float, default=TIME_BUDGET,
                        help="seconds of timed work per tool before it stops repeating / counts as too slow")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset of " + ", ".join(TOOLS))
    parser.add_argument("--no-profile", action="store_true", help="skip the per-step profile of llrcore")
    add_run_options(parser, idle_wait=120.0)
    args = parser.parse_args(argv)

    if args.worker == "profile":
        profile_worker(args.n_tar, args.n_non, args.reps, args.out)
        return
    if args.worker:
        worker(args.worker, args.n_tar, args.n_non, args.reps, args.budget, args.out)
        return

    size = SIZES[args.size]
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if "llrcore" not in tools:
        tools.insert(0, "llrcore")
    command = "python bench/bench_binary.py" + ("" if args.size == "full" else f" --size {args.size}")
    info = machine_info()
    print(f"Binary evaluation benchmark: {size[0]:,} target + {size[1]:,} non-target scores")
    print(f"{info['nproc']} CPUs ({info['cpu']}); " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()))

    records: dict = {}  # (tool, n_tar, n_non) -> record
    for tool in tools:
        rec = run_tool(tool, size, args.reps, args.budget, args.idle_wait)
        records[(tool, *size)] = rec
        if "failed" in rec and size != REDUCED:
            print(f"  {tool}: retrying on the reduced size {REDUCED[0]:,} + {REDUCED[1]:,}")
            for name in dict.fromkeys(["llrcore", tool]):  # llrcore too, for a like-for-like ratio
                if (name, *REDUCED) not in records:
                    records[(name, *REDUCED)] = run_tool(name, REDUCED, args.reps, args.budget, args.idle_wait)
    profile = None
    if not args.no_profile:
        print("  llrcore step profile ...", end="", flush=True)
        profile, why = _spawn(["--worker", "profile", "--n-tar", str(size[0]), "--n-non", str(size[1]),
                               "--reps", str(args.reps)], 900)
        print(" done" if profile else f" FAILED ({why})")

    text = render(records, profile, info, size, command, args.reps, args.budget)
    publish(HEADING, text, args)


if __name__ == "__main__":
    main()
