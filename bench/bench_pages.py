"""Every page of the workbench opened on its demo data, in CPU time: the goal of issue 45, any page action on demo
data within 2 s.

    python bench/bench_pages.py [--reps 3] [--no-write]

Each page runs under Streamlit's AppTest (the real page scripts, no browser) in a fresh process: the Home page first
(imports, the demo sets loaded), then the page's first run with the caches as the Home page left them (the page's own
analysis computed: what a person waits for when they open it), then a rerun (what a click that changes nothing costs:
cached results, figures drawn again). On the Diarization page the button "Cluster" is pressed too (the Bayesian
model on the demo recording). Times are ``time.process_time`` of the process (every thread: on a machine that other
jobs load, CPU time is what can be compared; on an idle machine a single-threaded step's wall time is about its CPU
time), best of `--reps` fresh processes.

Writes the section "## Every page on the demo data (CPU)" of bench/RESULTS.md. A benchmark, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _results import sort_seconds, write_section

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Every page on the demo data (CPU)"
GOAL = 2.0  # seconds, issue 45: any page action on demo data
CLUSTER_GOAL = 3.0  # seconds, issue 45: the Diarization page's default Cluster on the demo
sys.path.insert(0, str(ROOT))
from app_pages._pages import PAGES

WORKLOAD = r'''
import json, logging, sys, time
sys.path.insert(0, ROOT)
logging.disable(logging.WARNING)
from streamlit.testing.v1 import AppTest

def timed(step):
    start = time.process_time()
    step()
    return time.process_time() - start

at = AppTest.from_file(f"{ROOT}/app.py", default_timeout=600)
times = {"home": timed(at.run)}
at.switch_page(PAGE)

def run():
    at.run()
    assert not at.exception, [e.message for e in at.exception]

times["first run"] = timed(run)
times["rerun"] = timed(run)
if PAGE.endswith("diarization.py"):
    times["Cluster"] = timed(lambda: at.button(key="diar_run").click().run())
    assert not at.exception, [e.message for e in at.exception]
print(json.dumps(times))
'''


def measure(page: str, reps: int) -> dict[str, float]:
    """Best of `reps` fresh processes, step by step."""
    code = WORKLOAD.replace("ROOT", repr(str(ROOT))).replace("PAGE", repr(page))
    runs = []
    for _ in range(reps):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
        if done.returncode != 0:
            raise RuntimeError(f"{page}: {done.stderr.strip().splitlines()[-1]}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {step: min(run[step] for run in runs) for step in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    args = parser.parse_args()
    load = [os.getloadavg()[0]]
    rows, slowest, cluster_seconds = [], 0.0, float("nan")
    for spec in PAGES:
        times = measure(spec.path, args.reps)
        slowest = max(slowest, times["first run"], times["rerun"])
        cluster = f"{times['Cluster']:.2f}" if "Cluster" in times else ""
        cluster_seconds = times.get("Cluster", cluster_seconds)
        rows.append(f"| {spec.title} | {times['first run']:.2f} | {times['rerun']:.2f} | {cluster} |")
        print(rows[-1], flush=True)
    load.append(os.getloadavg()[0])
    sort_time = sort_seconds()
    text = f"""{SECTION}

`python bench/bench_pages.py --reps {args.reps}`: each page of the app under Streamlit's AppTest on the demo data, in
a fresh process after the Home page: its first run (its own analysis computed), a rerun (cached), and on Diarization
the button "Cluster" (the Bayesian model on the demo recording; the other methods wait for their own button). CPU
seconds (`time.process_time`, every thread), best of {args.reps} processes; {time.strftime("%Y-%m-%d %H:%M UTC",
time.gmtime())}, 1-minute load average {load[0]:.1f} at the start and {load[1]:.1f} at the end on 2 cores; this
machine's `np.sort` of 11M float64: {sort_time:.2f} s.

| page | first run [s CPU] | rerun [s CPU] | Cluster [s CPU] |
|---|---:|---:|---:|
{chr(10).join(rows)}

Goals (issue 45): any page action on demo data within {GOAL:g} s: {"met" if slowest <= GOAL else "not met"} (the
slowest page run {slowest:.2f} s of CPU); the Diarization page's Cluster within {CLUSTER_GOAL:g} s:
{"met" if cluster_seconds <= CLUSTER_GOAL else "not met"} ({cluster_seconds:.2f} s). Figures are made as plotly
objects here; the browser's drawing of them is not counted.
"""
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
