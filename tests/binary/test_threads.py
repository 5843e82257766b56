"""Every core: the analysis on 1, 2, 3 and 8 threads gives the same numbers to the last bit.

Independent references: ``np.sort`` (the parallel sort must equal it bit for bit, ``-0.0`` read as ``0.0``);
``np.unique`` with counts for the table of unique scores and class counts; ``np.cumsum`` and plain numpy for the step
DET and Cllr; and, for everything else (``evaluate``'s whole row, the DETs, the PAV LLRs, bootstrap replicates and
intervals, the paired comparison, the t-DCF bootstrap, the prior-weighting sweep), the same call on one thread, which
runs the serial code of before the pool existed; and the same calls with BLAS limited to one thread (threadpoolctl).
Small chunk sizes (``MIN_PARALLEL``, ``CHUNK`` lowered) make small data cross many chunks and ranges, so that every
edge (an empty range, a tie across chunks, a run of one class across chunks) is met; one test runs the default sizes
on 1.5M scores.

No test is timed: speed is measured in ``bench/bench_threads.py``.
"""
from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

import llrcore as lc
from llrcore import parallel
from llrcore.binary.rates import SortedScores
from llrcore.calibration.sweep import NAMED_RULES, sweep_prior_weighting

THREADS = (1, 2, 3, 8)


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks and ranges of a few elements, so that small data is cut as 10M scores are."""
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 5)
    monkeypatch.setattr(parallel, "CHUNK", 7)


def bits(values: np.ndarray) -> np.ndarray:
    """The bytes of an array: equal bits, not merely equal values (``-0.0 == 0.0``, ``nan != nan``)."""
    return np.ascontiguousarray(values).view(np.uint8)


def assert_same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(bits(a), bits(b))


def tied_scores(rng, n, mean):
    """Scores on a coarse grid (many ties, within and across classes), with infinities and signed zeros."""
    scores = np.round(rng.normal(mean, 1.0, n), 1)
    scores[:3] = np.inf
    scores[3:5] = -np.inf
    scores[5:8] = -0.0
    return rng.permutation(scores)


# ----- the sort ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [0, 1, 2, 5, 7, 8, 9, 31, 1000, 1001, 4099])
@pytest.mark.parametrize("threads", THREADS)
def test_parallel_sort_is_np_sort_bit_for_bit(small_chunks, size, threads):
    rng = np.random.default_rng(size)
    for values in (rng.normal(0, 1, size), np.round(rng.normal(0, 1, size), 1), rng.integers(0, 3, size) * 1.0):
        assert_same_bits(parallel.sort(values, threads), np.sort(values + 0.0))  # round() makes -0.0: read as 0.0


@pytest.mark.parametrize("chunked", [True, False])
@pytest.mark.parametrize("threads", THREADS)
def test_parallel_sort_of_integers_is_np_sort(small_chunks, chunked, threads):
    """64-bit integers (the readers' pair numbers, row numbers in their low bits) keep their dtype and sort as numpy
    sorts them, large ones and repeats included."""
    rng = np.random.default_rng(threads)
    for values in (rng.integers(0, 2**64 - 1, 4099, dtype=np.uint64, endpoint=True),
                   rng.integers(0, 7, 1001, dtype=np.uint64) << np.uint64(60), rng.integers(-5, 5, 2048)):
        result = parallel.sort_classes([values], threads, chunked=chunked)[0][0]
        assert result.dtype == values.dtype and np.array_equal(result, np.sort(values))


@pytest.mark.parametrize("threads", THREADS)
def test_parallel_sort_of_infinities_and_signed_zeros(small_chunks, threads):
    rng = np.random.default_rng(3)
    values = rng.permutation(np.concatenate([np.full(50, np.inf), np.full(40, -np.inf), np.full(30, -0.0),
                                             np.zeros(20), rng.normal(0, 1, 97), [5e-324, -5e-324, 1.7e308]]))
    result = parallel.sort(values, threads)
    assert_same_bits(result, np.sort(values + 0.0))
    assert not np.signbit(result[result == 0]).any()  # -0.0 read as 0.0: a tie of zeros sorts one way


@pytest.mark.parametrize("threads", THREADS)
def test_parallel_sort_of_all_equal_scores(small_chunks, threads):
    values = np.full(1003, 2.5)  # every value range but one is empty
    assert_same_bits(parallel.sort(values, threads), values)


def test_parallel_sort_at_the_default_sizes():
    values = np.random.default_rng(1).normal(0, 1, 3 * parallel.MIN_PARALLEL + 7)
    values[::1000] = np.round(values[::1000]) + 0.0
    for threads in THREADS:
        assert_same_bits(parallel.sort(values, threads), np.sort(values))


@pytest.mark.parametrize("chunked", [True, False])
@pytest.mark.parametrize("threads", THREADS)
def test_whole_arrays_and_merged_chunks_sort_and_cut_alike(small_chunks, chunked, threads):
    """Both ways of sorting the classes give np.sort's arrays, cut into value ranges that hold every copy of a value
    (the ranges' pieces laid end to end are the sorted arrays, each starting where `starts` says)."""
    rng = np.random.default_rng(threads)
    classes = [np.round(rng.normal(1, 1, 611), 1), np.round(rng.normal(-1, 1, 4099), 1)]
    output, pieces = parallel.sort_classes(classes, threads, ranges=lambda piece, starts: (piece, starts),
                                           chunked=chunked)
    for k, values in enumerate(classes):
        assert_same_bits(output[k], np.sort(values + 0.0))
        assert_same_bits(np.concatenate([piece[k] for piece, _ in pieces]), output[k])
        assert [starts[k] for _, starts in pieces] == list(np.cumsum([0] + [p[k].size for p, _ in pieces])[:-1])
    for (before, _), (after, _) in zip(pieces, pieces[1:]):  # a value never straddles two ranges
        assert all(a[-1] < b[0] for a, b in zip(before, after) if a.size and b.size)


def test_the_measured_choice_of_sort_gives_the_serial_numbers(small_chunks, monkeypatch):
    """The choice between whole and chunked sorts is measured (once per process, at the first sort as long as the
    probe): whatever it finds, evaluate gives one thread's numbers."""
    monkeypatch.setattr(parallel, "SORT_PROBE", 2000)
    parallel.chunks_pay.cache_clear()
    try:
        rng = np.random.default_rng(5)
        tar, non = np.round(rng.normal(2, 1, 900), 2), np.round(rng.normal(0, 1, 3000), 2)
        row = lc.evaluate(lc.Trials(tar, non), threads=2)  # a Trials keeps its sorted scores: one each
        assert parallel.chunks_pay.cache_info().currsize == 1 and isinstance(parallel.chunks_pay(2), bool)
        assert row == lc.evaluate(lc.Trials(tar, non), threads=1)
    finally:
        parallel.chunks_pay.cache_clear()


# ----- the table of unique scores, and every metric ---------------------------------------------------------------
def unique_table(tar, non):
    """Unique scores with their target and non-target counts, by ``np.unique``."""
    tar, non = tar + 0.0, non + 0.0
    unique = np.unique(np.concatenate([tar, non]))
    counts = []
    for scores in (tar, non):
        values, count = np.unique(scores, return_counts=True)
        full = np.zeros(unique.size, dtype=np.int64)
        full[np.searchsorted(unique, values)] = count
        counts.append(full)
    return unique, counts[0], counts[1]


@pytest.fixture(scope="module")
def tied_trials():
    rng = np.random.default_rng(20)
    return lc.Trials(tied_scores(rng, 1500, 1.0), tied_scores(rng, 9000, -1.0), name="tied")


@pytest.mark.parametrize("threads", THREADS)
def test_table_is_np_unique(small_chunks, tied_trials, threads):
    table = SortedScores(tied_trials.tar, tied_trials.non, threads=threads)
    unique, tar_counts, non_counts = unique_table(tied_trials.tar, tied_trials.non)
    assert_same_bits(table.unique, unique)
    assert_same_bits(table.tar_counts, tar_counts)
    assert_same_bits(table.non_counts, non_counts)
    assert_same_bits(table.tar, np.sort(tied_trials.tar + 0.0))
    assert_same_bits(table.non, np.sort(tied_trials.non + 0.0))
    pfa, pmiss = table.det_steps()
    below_tar, below_non = np.cumsum(np.append(0, tar_counts)), np.cumsum(np.append(0, non_counts))
    assert_same_bits(pmiss, below_tar / tar_counts.sum())
    assert_same_bits(pfa, (non_counts.sum() - below_non) / non_counts.sum())


def everything(trials, threads):
    """Every number of the binary analysis, from a fresh table on `threads` threads."""
    table = SortedScores(trials.tar, trials.non, threads=threads)
    fresh = lc.Trials(trials.tar, trials.non)
    metrics = lc.evaluate(fresh, p_target=0.05, threads=threads)
    rates = lc.bayes_error_rates(table, plo=np.linspace(-8, 8, 33))
    return {
        "row": dataclasses.astuple(metrics),
        "det": table.det_steps(),
        "rocch": table.rocch(),
        "pav": tuple(dataclasses.astuple(table.pav)),
        "pav_llrs": lc.pav_llrs(fresh),
        "cllr": table.cllr(),
        "bayes": (rates.actual, rates.minimum),
        "costs": table.costs,
        "runs": table.runs,
    }


def assert_same(a, b, where=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{k}]")
    elif isinstance(a, (np.ndarray, float, np.floating, int, np.integer)) and not isinstance(a, bool):
        assert_same_bits(a, b), where
    else:
        assert a == b, where


@pytest.mark.parametrize("data", ["tied", "continuous"])
def test_every_metric_is_the_same_on_any_number_of_threads(small_chunks, tied_trials, data):
    rng = np.random.default_rng(8)
    trials = tied_trials if data == "tied" else lc.Trials(rng.normal(2, 1, 800), rng.normal(-1, 1.5, 5000))
    reference = everything(trials, 1)
    for threads in THREADS[1:]:
        assert_same(everything(trials, threads), reference, f"threads={threads}")


def test_every_metric_at_the_default_sizes():
    """1.5M scores with the real chunk sizes: the sort runs in chunks and value ranges, the passes in 1M chunks."""
    rng = np.random.default_rng(9)
    trials = lc.Trials(rng.normal(3, 2, 250_000), np.round(rng.normal(-3, 2, 1_250_000), 3))
    reference = everything(trials, 1)
    for threads in (2, 3):
        assert_same(everything(trials, threads), reference, f"threads={threads}")
    assert reference["cllr"] == lc.cllr(trials.tar, trials.non)


# ----- bootstrap, paired comparison, t-DCF bootstrap, sweep -----------------------------------------------------
def bootstrap_numbers(trials, threads, **kwargs):
    seen = []
    result = lc.bootstrap(trials, n=15, seed=3, threads=threads, progress=lambda d, n: seen.append((d, n)),
                          **kwargs)
    assert seen == [(k, 15) for k in range(1, 16)]
    band = result.det_band
    return {"replicates": result.replicates.to_numpy(), "frame": result.to_frame().select_dtypes("number").to_numpy(),
            "band": (band.pmiss, band.lower, band.upper), "estimate": dataclasses.astuple(result.estimate)}


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # infinite LLRs: some replicates' Cllr is inf
def test_bootstrap_is_the_same_on_any_number_of_threads(small_chunks, tied_trials):
    reference = bootstrap_numbers(tied_trials, 1)
    for threads in THREADS[1:]:
        assert_same(bootstrap_numbers(tied_trials, threads), reference, f"threads={threads}")


def test_grouped_bootstrap_and_comparison_are_the_same_on_any_number_of_threads(small_chunks):
    rng = np.random.default_rng(4)
    n_tar, n_non = 300, 1200
    metadata = lc.Trials(np.zeros(n_tar), np.zeros(n_non)).metadata.assign(
        speaker=rng.integers(0, 12, n_tar + n_non).astype(str))
    a = lc.Trials(rng.normal(2, 1, n_tar), rng.normal(0, 1, n_non), name="A", metadata=metadata)
    b = lc.Trials(a.tar + rng.normal(0, 0.5, n_tar), a.non + rng.normal(0, 0.5, n_non), name="B", metadata=metadata)
    reference = (bootstrap_numbers(a, 1, group_by="speaker"),
                 lc.compare_systems(a, b, n=12, seed=1, threads=1).differences.to_numpy())
    for threads in THREADS[1:]:
        got = (bootstrap_numbers(a, threads, group_by="speaker"),
               lc.compare_systems(a, b, n=12, seed=1, threads=threads).differences.to_numpy())
        assert_same(got, reference, f"threads={threads}")


def test_tdcf_bootstrap_is_the_same_on_any_number_of_threads():
    rng = np.random.default_rng(6)
    cm = lc.Trials(rng.normal(3, 1, 400), rng.normal(-2, 1.5, 900))
    asv = lc.Trials(rng.normal(4, 1, 300), rng.normal(-4, 1, 1000), spoof=rng.normal(1, 2, 500))
    reference = lc.bootstrap_tdcf(cm, asv, n=25, seed=2, threads=1)
    for threads in THREADS[1:]:
        result = lc.bootstrap_tdcf(cm, asv, n=25, seed=2, threads=threads)
        assert_same_bits(result.replicates, reference.replicates)
        assert (result.lower, result.upper) == (reference.lower, reference.upper)
        pooled = lc.bootstrap_tandem(cm, asv, n=25, seed=2, by=None, threads=threads).tdcf["pooled"]
        assert_same_bits(pooled.replicates, reference.replicates)


def test_sweep_table_is_the_same_on_any_number_of_threads():
    rng = np.random.default_rng(7)
    train = lc.Trials(rng.normal(2, 1.5, 400), rng.normal(-2, 1.5, 4000))
    test = lc.Trials(rng.normal(2.3, 1.5, 300), rng.normal(-2, 1.7, 3000))
    grid = [-5.0, -2.5, 0.0]
    rules = [NAMED_RULES[1], NAMED_RULES[0], NAMED_RULES[2]]  # Brier first: it plans logistic regression's fits
    reference = [sweep_prior_weighting(train, None, NAMED_RULES, grid, folds=3, threads=1).frame,
                 sweep_prior_weighting(train, test, rules, grid, threads=1).frame]
    for threads in THREADS[1:]:
        seen = []
        got = [sweep_prior_weighting(train, None, NAMED_RULES, grid, folds=3, threads=threads).frame,
               sweep_prior_weighting(train, test, rules, grid, threads=threads,
                                     progress=lambda d, t: seen.append((d, t))).frame]
        assert seen == [(k, 9) for k in range(1, 10)]
        for frame, expected in zip(got, reference):
            assert frame.equals(expected), threads


def test_no_number_depends_on_blas_threads():
    """BLAS splits a dot product of more than 100,000 values over its own threads; the fits and the bootstrap's Cllr
    sum without BLAS, so limiting BLAS to one thread changes nothing (and leaves no BLAS thread spinning)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    rng = np.random.default_rng(11)
    trials = lc.Trials(rng.normal(2, 1, 120_000), rng.normal(-1, 1.2, 240_000))

    def numbers():
        fit = lc.fit_affine(trials.tar, trials.non, lc.BetaRule.brier(), plo=-2.0)
        return (fit.scale, fit.offset), lc.bootstrap(trials, n=3, seed=1, threads=2).replicates.to_numpy()

    with threadpoolctl.threadpool_limits(parallel.available_cpus()):  # tests/conftest.py leaves BLAS one thread
        reference = numbers()
    with threadpoolctl.threadpool_limits(1):
        assert_same(numbers(), reference)


# ----- how many threads --------------------------------------------------------------------------------------------
def test_environment_variable_is_honoured(monkeypatch):
    monkeypatch.setenv(parallel.ENVIRONMENT_VARIABLE, " 3 ")
    assert lc.thread_count() == 3
    with lc.thread_limit(2):
        assert lc.thread_count() == 2  # a limit set in code comes before the environment
        assert lc.thread_count(5) == 5  # and threads= before both
    monkeypatch.delenv(parallel.ENVIRONMENT_VARIABLE)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 2, 5}, raising=False)
    assert lc.thread_count() == 3  # the CPUs this process may run on, not all the machine's


def test_environment_variable_sets_the_pool(monkeypatch, small_chunks, tied_trials):
    sizes = []
    pool = parallel._pool

    def spy(workers):
        sizes.append(workers)
        return pool(workers)

    monkeypatch.setattr(parallel, "_pool", spy)
    monkeypatch.setenv(parallel.ENVIRONMENT_VARIABLE, "3")
    SortedScores(tied_trials.tar, tied_trials.non).cllr()
    assert sizes and set(sizes) == {3}
    sizes.clear()
    monkeypatch.setenv(parallel.ENVIRONMENT_VARIABLE, "1")
    SortedScores(tied_trials.tar, tied_trials.non).cllr()
    assert sizes == []  # one thread: no pool at all


def test_work_inside_a_pool_thread_stays_on_it():
    assert parallel.map_tasks(lambda _: lc.thread_count(8), range(4), 2) == [1, 1, 1, 1]


@pytest.mark.parametrize("bad", [0, -1, "x", "2", 2.5, True])
def test_bad_thread_counts_are_refused_in_a_sentence(bad, tied_trials):
    with pytest.raises(ValueError, match=r"number of threads must be a whole number of at least 1 .*not "):
        lc.thread_count(bad)
    with pytest.raises(ValueError, match="number of threads"):
        lc.evaluate(tied_trials, threads=bad)
    with pytest.raises(ValueError, match="number of threads"):
        lc.bootstrap(tied_trials, n=2, threads=bad)
    with pytest.raises(ValueError, match="number of threads"):
        sweep_prior_weighting(tied_trials, None, NAMED_RULES[:1], [0.0], threads=bad)
    with pytest.raises(ValueError, match="number of threads"):
        SortedScores([1.0], [0.0], threads=bad)


@pytest.mark.parametrize("bad", ["0", "-1", "x", "2.5", "many"])
def test_bad_environment_variable_is_refused_in_a_sentence(monkeypatch, bad):
    monkeypatch.setenv(parallel.ENVIRONMENT_VARIABLE, bad)
    with pytest.raises(ValueError, match=f"environment variable LLRCORE_THREADS must be a whole number .*{bad!r}"):
        lc.thread_count()
    assert lc.thread_count(2) == 2  # an explicit count does not read it


# ----- the pool's own rules -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("threads", THREADS)
def test_ordered_map_keeps_the_order_and_draws_in_the_calling_thread(threads):
    rng = np.random.default_rng(0)
    drawn_in = []

    def draws():
        for _ in range(30):
            drawn_in.append(parallel._in_worker.__dict__.get("active", False))
            yield rng.integers(0, 1000, 50)

    result = list(parallel.ordered_map(lambda x: int(x.sum()), draws(), threads, window=2))
    rng = np.random.default_rng(0)
    assert result == [int(rng.integers(0, 1000, 50).sum()) for _ in range(30)]
    assert not any(drawn_in)


@pytest.mark.parametrize("threads", THREADS)
def test_run_dependent_gives_the_serial_results_and_raises_errors(threads):
    depends_on = [(), (0,), (), (1, 2), (0,), (3, 4)]
    results = parallel.run_dependent(lambda task, *parents: task + sum(parents), [1, 2, 3, 4, 5, 6], depends_on,
                                     threads)
    assert results == [1, 3, 3, 10, 6, 22]

    def fails(task, *parents):
        if task == 3:
            raise RuntimeError("task 3 failed")
        return task

    with pytest.raises(RuntimeError, match="task 3 failed"):
        parallel.run_dependent(fails, [1, 2, 3, 4], [(), (), (1,), (2,)], threads)
    with pytest.raises(ValueError, match="before it"):
        parallel.run_dependent(fails, [1, 2], [(1,), ()], threads)


def test_run_dependent_stops_when_the_caller_gives_up():
    """A progress callback that raises (a Streamlit rerun stops the script inside its progress bar) leaves no chain
    of tasks running on the shared pool."""
    import threading
    import time

    ran, started = [], threading.Event()

    def task(i, *parents):
        started.set()
        time.sleep(0.02)
        ran.append(i)
        return i

    def stop(i):
        raise KeyboardInterrupt

    n = 40
    with pytest.raises(KeyboardInterrupt):
        parallel.run_dependent(task, list(range(n)), [()] + [(i,) for i in range(n - 1)], 2, on_done=stop)
    time.sleep(0.3)  # the chain would have run some 15 tasks more by now
    assert len(ran) <= 2
