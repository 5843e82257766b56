"""Shared fixtures: the real score sets copied into ``tests/data/`` (see each folder's SOURCE.txt).

The loaders use pandas/numpy directly (not ``llrcore.io``) so that the metric tests do not depend on the reader
code, and the reference data is parsed by an independent path.
"""
from __future__ import annotations

import os
from pathlib import Path

# One BLAS thread per test process, set before numpy loads OpenBLAS (the browser tests' app servers inherit it).
# pytest-xdist runs one process per CPU, and OpenBLAS would start one thread per CPU in each of them: the threads of
# the processes compete for the same cores and spin while they wait, which made the diarization tests 10-20x slower
# under load (NME-SC on ES2005a for K = 1..8: 125 s, 6.6 s with one thread). No number depends on BLAS's threads
# (tests/binary/test_threads.py checks it with BLAS on every CPU). A value set by the user is kept.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
# The same for llrcore's own pools (bootstrap replicates, sorts, parses) in each xdist worker and its app server: one
# process per CPU already keeps every core busy (the whole suite 631 s against 671 s with a pool per CPU in each
# worker, both on a quiet 2-CPU machine). No number depends on the threads (tests/binary/test_threads.py passes them
# explicitly); a run without xdist keeps every CPU.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("LLRCORE_THREADS", "1")
    # The browser tests' full-page screenshots (tests/e2e/test_browser.py `snap`) are for a person looking at the
    # pages of a module being worked on: in the whole suite under xdist nobody does, and each cost Chromium a redraw
    # of every chart at the page's full height and back (~0.5 s CPU and ~1 s a screenshot, ~150 of them). Every
    # assertion still runs; LLRCORE_SCREENSHOTS=1 takes them in the suite too, a run without xdist always does.
    os.environ.setdefault("LLRCORE_SCREENSHOTS", "0")

import numpy as np  # after the thread settings above
import pandas as pd
import pytest

DATA = Path(__file__).parent / "data"
EVALITA_PATH = DATA / "rocanalysis_ru2009" / "ru.2009.table.gz"
ASVSPOOF_DIR = DATA / "asvspoof2019_la"


def load_evalita() -> tuple[np.ndarray, np.ndarray]:
    """EVALITA-2009 trials from ROCAnalysis.jl's test suite: (target scores, non-target scores)."""
    table = pd.read_csv(EVALITA_PATH, sep="\t")
    is_target = table["target"].astype(bool).to_numpy()
    scores = table["score"].to_numpy(dtype=np.float64)
    return scores[is_target], scores[~is_target]


def load_asvspoof_asv(part: str) -> dict[str, np.ndarray]:
    """ASVspoof 2019 LA organisers' ASV scores for `part` ('dev' or 'eval'): dict target/nontarget/spoof -> scores."""
    path = ASVSPOOF_DIR / f"ASVspoof2019.LA.asv.{part}.gi.trl.scores.txt"
    table = pd.read_csv(path, sep=r"\s+", header=None, names=["source", "kind", "score"])
    return {kind: table.loc[table["kind"] == kind, "score"].to_numpy(dtype=np.float64)
            for kind in ("target", "nontarget", "spoof")}


@pytest.fixture(scope="session", autouse=True)
def kept_sessions(tmp_path_factory):
    """The sessions the app keeps for a reload of the tab (``app_pages/_session.py``) go to the run's own temporary
    folder, which pytest clears, not to the machine's (the browser tests' app servers inherit it)."""
    before = os.environ.get("LLRCORE_SESSION_DIR")
    os.environ["LLRCORE_SESSION_DIR"] = str(tmp_path_factory.mktemp("kept_sessions"))
    yield
    if before is None:
        os.environ.pop("LLRCORE_SESSION_DIR")
    else:
        os.environ["LLRCORE_SESSION_DIR"] = before


def _two_level_draw(draws: np.random.Generator, group: np.ndarray) -> np.ndarray:
    """One grouped bootstrap replicate's trials (positions in the metadata's order), drawn as the
    ``llrcore.uncertainty.draws`` docstring says: G of the G groups (numbered by first appearance) with
    replacement, then each drawn group's own trials again with replacement, as many as it has, by one call of
    ``integers`` for all of them."""
    groups = pd.unique(group)
    own = [np.flatnonzero(group == g) for g in groups]  # each group's trials, in order
    drawn = draws.integers(0, groups.size, groups.size)
    sizes = np.array([own[g].size for g in drawn])
    within = draws.integers(0, np.repeat(sizes, sizes))
    starts = np.cumsum(sizes) - sizes
    return np.concatenate([own[g][within[start:start + size]] for g, start, size in zip(drawn, starts, sizes)])


@pytest.fixture(scope="session")
def two_level_draw():
    """The grouped bootstrap's draws by hand: ``two_level_draw(rng, group)`` -> the drawn trials' positions."""
    return _two_level_draw


@pytest.fixture(scope="session")
def evalita() -> tuple[np.ndarray, np.ndarray]:
    tar, non = load_evalita()
    assert tar.size == 15252 and non.size == 9600  # counts stated in SOURCE.txt
    return tar, non


@pytest.fixture(scope="session")
def asvspoof_dev() -> dict[str, np.ndarray]:
    scores = load_asvspoof_asv("dev")
    assert [scores[k].size for k in ("target", "nontarget", "spoof")] == [1484, 5768, 22296]  # SOURCE.txt
    return scores


@pytest.fixture(scope="session")
def asvspoof_eval() -> dict[str, np.ndarray]:
    scores = load_asvspoof_asv("eval")
    assert [scores[k].size for k in ("target", "nontarget", "spoof")] == [5370, 33327, 63882]  # SOURCE.txt
    return scores


@pytest.fixture(scope="session")
def asvspoof2021_layout(tmp_path_factory) -> dict[str, Path]:
    """The ASVspoof 2019 LA development scores (the LFCC-GMM CM's and the organisers' ASV's) written as ASVspoof 2021
    ships them, score files and keys apart (the layout of its ``eval-package``): the CM's ``utt score`` and its key
    ``speaker utt codec transmission attack label trim subset`` (bonafide/spoof), the ASV's ``speaker utt score`` and
    its key ``speaker utt codec transmission attack label trim subset`` (target/nontarget/spoof); each file's rows
    shuffled apart, so only the ids join them (and the reader's 50-line sample of the ASV key holds spoofs, which name
    its columns). Made-up ids (the 2019 ASV file has none); the scores, labels and attacks are the files'.
    Also ``cm_joined``/``asv_joined``: the original files (CM with all four systems)."""
    folder, rng = tmp_path_factory.mktemp("asvspoof2021"), np.random.default_rng(2021)
    cm_joined = DATA.parent.parent / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.dev.scores.tsv.gz"
    asv_joined = ASVSPOOF_DIR / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt"
    cm = pd.read_csv(cm_joined, sep="\t")
    key = pd.DataFrame({"speaker": "LA_0069", "utt": cm["utt"], "codec": "alaw", "transmission": "ita_tx",
                        "attack": cm["attack"].replace("-", "bonafide"), "label": cm["key"], "trim": "notrim",
                        "subset": "eval"})
    asv = pd.read_csv(asv_joined, sep=r"\s+", header=None, names=["attack", "kind", "score"])
    ids = pd.DataFrame({"speaker": [f"LA_{i % 67:04d}" for i in range(len(asv))],
                        "utt": [f"LA_E_{i:07d}" for i in range(len(asv))]})
    asv_key = ids.assign(codec="alaw", transmission="ita_tx", attack=asv["attack"], label=asv["kind"], trim="notrim",
                         subset="eval")
    files = {"cm_scores": cm[["utt", "LFCC-GMM"]], "cm_key": key, "asv_scores": ids.assign(score=asv["score"]),
             "asv_key": asv_key}
    paths = {"cm_joined": cm_joined, "asv_joined": asv_joined}
    for name, table in files.items():
        paths[name] = folder / f"{name}.txt"
        table.iloc[rng.permutation(len(table))].to_csv(paths[name], sep=" ", header=False, index=False,
                                                       float_format="%.6f")
    return paths


# ----- order of the tests under pytest-xdist -------------------------------------------------------------------------

# Seconds each of the slowest modules takes on a quiet 2-core machine; any other browser module counts
# BROWSER_TEST_SECONDS a test, any other module UNIT_TEST_SECONDS. Only the order depends on them. Measured: every
# module of 10 s or more in a whole run's --durations=0 (2026-11-29, 5,420 s of tests on a machine shared by six
# sessions), scaled by 0.3 to the quiet machine's ~1,650 s (766-892 s of wall time on 2 workers in the last CI runs).
SLOW_MODULES = {
    "e2e/test_diarization_page.py": 89, "diarization/test_diarization_heldout.py": 72, "e2e/test_widths.py": 44,
    "e2e/test_calibrate_conditions_page.py": 45, "e2e/test_conditions_page.py": 57,
    "uncertainty/test_bootstrap_coverage.py": 57, "e2e/test_extreme_llrs_page.py": 56,
    "uncertainty/test_uncertainty.py": 51,
    "e2e/test_app_state.py": 48, "forensic/test_forensic.py": 48, "diarization/test_diarization_k.py": 38,
    "e2e/test_sidebar_walk.py": 38, "e2e/test_teaching_pages.py": 37, "e2e/test_far_scores_page.py": 35,
    "e2e/test_browser.py": 32, "e2e/test_spoofing_page.py": 31, "e2e/test_figures_show_what_they_promise_page.py": 29,
    "e2e/test_diarization_corpus_page.py": 29, "cli/test_cli_tdcf.py": 29, "e2e/test_classifier_page.py": 28,
    "e2e/test_calibration_pages.py": 24, "report/test_report_conditions.py": 24, "diarization/test_diarization.py": 22,
    "e2e/test_report_conditions_page.py": 22, "io/test_bssr1_demo.py": 22, "e2e/test_multiclass_page.py": 21,
    "e2e/test_session_reload.py": 20, "e2e/test_quality_calibration_page.py": 20, "cli/test_cli_fuse.py": 20,
    "e2e/test_forensic_page.py": 18, "project/test_readme.py": 16, "e2e/test_sasv_page.py": 16,
    "e2e/test_report_page.py": 16, "e2e/test_units.py": 15, "app/test_app_diarization.py": 14,
    "e2e/test_normalization_page.py": 14, "e2e/test_diarization_der_conventions.py": 13, "binary/test_extremes.py": 13,
    "e2e/test_fusion_page.py": 13, "e2e/test_data_page.py": 12, "app/test_app.py": 12, "spoofing/test_spoofing.py": 11,
    "e2e/test_big_uploads.py": 11, "e2e/test_diarization_scoring.py": 11, "app/test_app_calibration.py": 11,
    "app/test_app_session.py": 11, "binary/test_out_of_core.py": 10,
}
BROWSER_TEST_SECONDS = 9.0
UNIT_TEST_SECONDS = 0.15


def _relative(path: str) -> str:
    """`path` below ``tests/`` (the last folder of that name: a checkout may lie in one), as SLOW_MODULES spells it."""
    return path.rsplit("/tests/", 1)[-1]


def _module_seconds(path: str, n_tests: int) -> float:
    relative = _relative(path)
    if relative in SLOW_MODULES:
        return SLOW_MODULES[relative]
    return n_tests * (BROWSER_TEST_SECONDS if relative.startswith("e2e/") else UNIT_TEST_SECONDS)


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, put the slow modules (the browser tests and a few Monte-Carlo ones) first in each worker's
    share and the quick ones last (:func:`order_for_workers`)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    items[:] = order_for_workers(items, workers)


def order_for_workers(items: list, workers: int) -> list:
    """`items` (each with a ``path``) reordered for `workers` pytest-xdist workers under ``--dist worksteal``.

    worksteal gives worker i the i-th contiguous slice of the collection (equal counts, ``len // workers_left``), and
    an idle worker steals the *end* of the longest queue. In the collection's own order (``e2e/`` first, then
    alphabetical) one worker started with every browser test and the last tests run could be slow ones (a 25 s
    coverage test near the end left the other worker idle). Here the slow modules are shared between the slices so
    that their estimated seconds balance (longest first onto the least loaded slice), and each slice ends with quick
    tests, which stealing spreads evenly. A slow module stays in one piece (its fixtures are made once) and the order
    of the tests inside a module is kept; the quick tests keep their order."""
    if workers < 2 or len(items) < 2 * workers:
        return list(items)
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(Path(item.path).as_posix(), []).append(item)
    relative = {path: _relative(path) for path in modules}
    cost = {path: _module_seconds(path, len(tests)) for path, tests in modules.items()}
    is_slow = {path: relative[path].startswith("e2e/") or relative[path] in SLOW_MODULES for path in modules}
    slices: list[list] = [[] for _ in range(workers)]
    seconds = [0.0] * workers
    for path in sorted((p for p in modules if is_slow[p]), key=lambda p: (-cost[p], p)):
        lightest = seconds.index(min(seconds))
        slices[lightest].extend(modules[path])
        seconds[lightest] += cost[path]
    quick = [item for path, tests in modules.items() if not is_slow[path] for item in tests]
    ordered: list = []
    for i, share in enumerate(slices):  # fill each slice with quick tests up to the size worksteal will hand it
        size = max(len(share), (len(items) - len(ordered)) // (workers - i))
        ordered += share + quick[:size - len(share)]
        quick = quick[size - len(share):]
    return ordered + quick
