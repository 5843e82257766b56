"""The "ASV + countermeasure" page on its four-CM demo (ASVspoof 2019 LA eval: the organisers' ASV, LFCC-GMM and three
RawNet2 CMs), before and after a change, in CPU time.

    python bench/bench_tandem_page.py REV [--reps 3] [--no-write]

REV (the "before") is exported with ``git archive`` into a temporary folder; the "after" is this working tree. Each
tree runs in a fresh process with itself first on ``sys.path`` and times, best of `--reps` in that process, with
``time.process_time`` (the CPU of every thread of the process: on a machine that other jobs load, wall time measures
them too), the files already read:

- ``evaluate_tandem``: ``lc.evaluate_tandem`` of each of the four CMs with the ASV, per attack (revised t-DCF);
- ``sasv_table``: the four CMs' t-EER and a-DCF tables, as the page makes them (a tree with ``lc.tandem_asv``
  makes the ASV's side once and hands it to each ``lc.sasv_table``; one without, ``lc.sasv_table`` of each CM);
- ``tandem_teer_conventions``: the pooled t-EER of the four CMs in every convention;
- ``legacy``: the four evaluations judged by the legacy t-DCF, as the page does on a switch of formulation
  (``TandemEvaluation.judged`` where the tree has it, else ``lc.evaluate_tandem`` again);
- ``bootstrap (20 replicates)``: ``TandemEvaluation.bootstrap(20)`` of the four evaluations, BCa intervals of every
  row's min t-DCF (the replicates and the grouped jackknife of ``lc.bootstrap_tdcf``);
- ``page: load the 4 CMs``, ``page: switch to legacy`` and ``page: intervals on (20 replicates)``: the page's run under
  Streamlit's AppTest when its button "Load the 4 ASVspoof 2019 LA CMs (eval)" is clicked (caches cleared: reading
  the file, computing, figures and tables), then when the formulation is switched to legacy, then when the interval
  toggle is switched on with 20 replicates (the caches as the previous action left them).

Also the CPU's ``np.sort`` of 11M float64 (seed 0, best of 3), so that the figures of machines that sort at other
speeds are read right. Writes the section "## Tandem page (CPU)" of bench/RESULTS.md. A benchmark, not a test.
"""
from __future__ import annotations

import os
import time

from _results import before_after_arguments, before_and_after, ratio_rows, run_in_tree, write_section

SECTION = "## Tandem page (CPU)"

WORKLOAD = r'''
import json, logging, sys, time
sys.path.insert(0, TREE)
logging.disable(logging.WARNING)
import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest
import llrcore as lc
assert lc.__file__.startswith(TREE), lc.__file__

def best(function, reps=REPS):
    times = []
    for _ in range(reps):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)

values = np.random.default_rng(0).random(11_000_000)
sort = best(lambda: np.sort(values), 3)
asv = lc.read_trials(f"{TREE}/assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
cms = lc.read_trials(f"{TREE}/assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz")
evaluations = {name: lc.evaluate_tandem(cm, asv, name=name) for name, cm in cms.items()}

def tables():
    if hasattr(lc, "tandem_asv"):
        side = lc.tandem_asv(next(iter(evaluations.values())))
        return {name: lc.sasv_table(e, asv=side) for name, e in evaluations.items()}
    return {name: lc.sasv_table(e) for name, e in evaluations.items()}

def legacy():
    if hasattr(lc.TandemEvaluation, "judged"):
        return [e.judged(formulation="legacy") for e in evaluations.values()]
    return [lc.evaluate_tandem(cms[name], asv, formulation="legacy", name=name) for name in evaluations]

def page_actions():
    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(f"{TREE}/app.py", default_timeout=600)
    at.run()
    at.switch_page("app_pages/spoofing.py").run()
    start = time.process_time()
    at.button(key="tandem_load").click().run()
    load = time.process_time() - start
    assert not at.exception, at.exception
    radio = next(r for r in at.radio if r.options[:2] == ["revised (ASVspoof 2021 on)", "legacy (ASVspoof 2019)"])
    start = time.process_time()
    radio.set_value("legacy").run()
    switch = time.process_time() - start
    assert not at.exception, at.exception
    at.number_input(key="tandem_replicates").set_value(20)
    start = time.process_time()
    at.toggle(key="tandem_ci").set_value(True).run()
    toggle = time.process_time() - start
    assert not at.exception, at.exception
    return load, switch, toggle

actions = [page_actions() for _ in range(REPS)]
print(json.dumps({
    "evaluate_tandem": best(lambda: {name: lc.evaluate_tandem(cm, asv, name=name) for name, cm in cms.items()}),
    "sasv_table": best(tables),
    "tandem_teer_conventions": best(lambda: lc.tandem_teer_conventions(evaluations)),
    "legacy": best(legacy),
    "bootstrap (20 replicates)": best(lambda: [e.bootstrap(20) for e in evaluations.values()]),
    "page: load the 4 CMs": min(load for load, _, _ in actions),
    "page: switch to legacy": min(switch for _, switch, _ in actions),
    "page: intervals on (20 replicates)": min(toggle for _, _, toggle in actions),
    "np.sort of 11M": sort}))
'''


def main() -> None:
    args = before_after_arguments(__doc__, reps=3)
    code = WORKLOAD.replace("REPS", str(args.reps))
    before, after, after_rev = before_and_after(
        args.rev, lambda tree: run_in_tree(tree, code.replace("TREE", repr(str(tree))), LLRCORE_THREADS="1"))
    load = os.getloadavg()[0]
    sort = before.pop("np.sort of 11M"), after.pop("np.sort of 11M")
    rows = ratio_rows(before, after)
    library = [name for name in before if not name.startswith("page")]
    total = sum(before[name] for name in library), sum(after[name] for name in library)
    text = f"""{SECTION}

`python bench/bench_tandem_page.py {args.rev} --reps {args.reps}`: before = {args.rev}, after = {after_rev} (and the
working tree's changes); CPU seconds (`time.process_time`, `LLRCORE_THREADS=1`), best of {args.reps} in one process per
tree; {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average {load:.1f} on 2 cores (the machine was
shared: CPU time, not wall, is compared). This CPU's `np.sort` of 11M float64: {sort[0]:.2f} s and {sort[1]:.2f} s
in the two processes.

| workload | before (s CPU) | after (s CPU) | after / before |
|---|---:|---:|---:|
{rows}
| the library rows | {total[0]:.3f} | {total[1]:.3f} | {total[1] / total[0]:.2f} |
"""
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
