"""The Classifier calibration page on its default demo (CIFAR-10 ResNet-20, 10,000 trials x 10 classes), before and
after a change, in CPU time.

    python bench/bench_classifier_page.py REV [--reps 5] [--no-write]

REV (the "before") is exported with ``git archive`` into a temporary folder; the "after" is this working tree. Each
tree runs in a fresh process with itself first on ``sys.path``, and times, best of `--reps` in that process, with
``time.process_time`` (the CPU of every thread of the process: on a machine that other jobs load, wall time measures
them too):

- ``smooth_ece``: ``lc.smooth_ece`` of the softmax outputs, top label, 200 replicates (one version of the page);
- ``classifier_calibration``: ``lc.classifier_calibration`` with the page's options (raw and scaled, 200 replicates);
- ``page``: the page's run under Streamlit's AppTest with the caches cleared (computing, figures and tables).

Writes the section "## Classifier calibration page (CPU)" of bench/RESULTS.md. A benchmark, not a test.
"""
from __future__ import annotations

import os
import time

from _results import before_after_arguments, before_and_after, ratio_rows, run_in_tree, write_section

SECTION = "## Classifier calibration page (CPU)"
DEMO = "assets/multiclass/cifar10_resnet-20"

WORKLOAD = r'''
import json, logging, sys, time
from pathlib import Path
sys.path.insert(0, TREE)
logging.disable(logging.WARNING)
import numpy as np
import streamlit as st
from scipy.special import softmax
from streamlit.testing.v1 import AppTest
import llrcore as lc
assert lc.__file__.startswith(TREE), lc.__file__

def best(function):
    times = []
    for _ in range(REPS):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)

z, y = np.load(f"{TREE}/{DEMO}/scores.npy"), np.load(f"{TREE}/{DEMO}/targets.npy")
p = softmax(z, axis=1)
at = AppTest.from_file(f"{TREE}/app.py", default_timeout=600)
at.run()
at.switch_page("app_pages/classifier.py")

def page():
    st.cache_resource.clear()
    st.cache_data.clear()
    at.run()
    assert not at.exception, at.exception

print(json.dumps({"smooth_ece": best(lambda: lc.smooth_ece(p, y, n=200, level=0.9)),
                  "classifier_calibration": best(lambda: lc.classifier_calibration(z, y, n=200)),
                  "page": best(page)}))
'''


def main() -> None:
    args = before_after_arguments(__doc__, reps=5)
    code = WORKLOAD.replace("REPS", str(args.reps)).replace("DEMO", repr(DEMO))
    before, after, after_rev = before_and_after(
        args.rev, lambda tree: run_in_tree(tree, code.replace("TREE", repr(str(tree)))))
    load = os.getloadavg()[0]
    rows = ratio_rows(before, after)
    text = f"""{SECTION}

`python bench/bench_classifier_page.py {args.rev} --reps {args.reps}`: before = {args.rev}, after = {after_rev} (and the
working tree's changes); CPU seconds (`time.process_time`), best of {args.reps} in one process per tree;
{time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average {load:.1f} on 2 cores (the machine was shared: CPU
time, not wall, is compared).

| workload | before (s CPU) | after (s CPU) | after / before |
|---|---:|---:|---:|
{rows}
"""
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
