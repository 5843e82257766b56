"""Every core: how many threads the analysis may use, and the few ways it uses them.

The analysis is sort-bound, and numpy releases the GIL while it sorts, searches and runs ufunc loops, so threads of
one process share the work without copying the scores. Three patterns cover it:

- :func:`sort_classes`: the target and non-target scores sorted in chunks on all threads, the sorted chunks merged
  by value range (each range on its own thread: gather its piece of every chunk, merge them with numpy's stable sort,
  which finds the sorted runs and merges them in linear time), and whatever else a range can do alone done there
  (:class:`~llrcore.binary.rates.SortedScores` merges the range's targets into its non-targets);
- :func:`over_chunks`, :func:`elementwise` and :func:`cumulative`: a pass over a long array cut into chunks whose
  bounds depend only on its length, never on the number of threads;
- :func:`ordered_map` and :func:`run_dependent`: whole tasks (bootstrap replicates, calibration fits) on a pool, the
  results in their serial order.

**No number depends on the number of threads**: a sort's result is unique (``-0.0`` is read as ``0.0``, so that
where the zeros of a tie fall cannot depend on the chunks), counts are integers, element-wise results are computed by
the same kernel whatever the chunk, every floating-point reduction runs once, serially, over the whole array (and
not through BLAS, whose dot product splits over BLAS's own threads: :func:`dot`), and random draws are made in the
calling thread, in their serial order.

How many: ``threads=`` where a function takes it, else the limit set with :func:`thread_limit`, else the environment
variable ``LLRCORE_THREADS``, else the CPUs this process may run on (``os.sched_getaffinity``). Work inside a pool
thread always runs on that one thread (nested pools could wait on each other).

Reference: the merge of sorted runs by value range is the partitioning step of parallel sample sort (H. Shi and
J. Schaeffer, "Parallel sorting by regular sampling", J. Parallel Distrib. Comput. 14, 1992).
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

__all__ = [
    "ENVIRONMENT_VARIABLE", "available_cpus", "chunk_bounds", "chunks_pay", "cumulative", "dot", "elementwise",
    "map_tasks", "ordered_map", "over_chunks", "run_dependent", "sort", "sort_classes", "thread_count", "thread_limit",
    "workers_for",
]

ENVIRONMENT_VARIABLE = "LLRCORE_THREADS"
#: Arrays shorter than this stay on one thread: handing them to another costs more than it saves.
MIN_PARALLEL = 1 << 17
#: Element-wise passes run over chunks of this many elements (bounds independent of the number of threads).
CHUNK = 1 << 20
#: Values sampled per value range (spread over the sorted chunks) to choose where the ranges of the merge are cut.
_SAMPLES_PER_RANGE = 256

_context_limit: contextvars.ContextVar[int | None] = contextvars.ContextVar("llrcore_threads", default=None)
_in_worker = threading.local()


# ----- how many threads --------------------------------------------------------------------------------------------
def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def thread_count(threads: int | None = None) -> int:
    """The number of threads to use: `threads` if given, else :func:`thread_limit`'s, else ``LLRCORE_THREADS``, else
    :func:`available_cpus`; always 1 inside a pool thread.

    Parameters
    ----------
    threads : int, optional
        The number asked for, a whole number of at least 1; None leaves the choice to the order above.

    Returns
    -------
    int
        The number of threads, at least 1.

    Raises
    ------
    ValueError
        With a sentence when `threads` (or the environment variable) is not a whole number of at least 1.
    """
    if threads is not None:
        threads = _checked(threads, "The number of threads")
    if getattr(_in_worker, "active", False):
        return 1
    if threads is not None:
        return threads
    limit = _context_limit.get()
    if limit is not None:
        return limit
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if text:
        return _checked(text, f"The environment variable {ENVIRONMENT_VARIABLE}", text=True)
    return available_cpus()


def _checked(threads, what: str, *, text: bool = False) -> int:
    """`threads` as a whole number of at least 1 (given as text when `text`: the environment variable), or a
    ValueError saying what was wrong with it."""
    value = threads
    if text:
        try:
            value = int(str(value).strip())
        except ValueError:
            value = None
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        value = None
    if value is None or value < 1:
        raise ValueError(f"{what} must be a whole number of at least 1 (1 for one thread, {available_cpus()} for "
                         f"every CPU here), not {threads!r}.")
    return int(value)


@contextlib.contextmanager
def thread_limit(threads: int | None) -> Iterator[None]:
    """Within this block (in this thread), functions called without ``threads=`` use `threads` threads.

    Parameters
    ----------
    threads : int or None
        A whole number of at least 1; ``None`` leaves the choice to ``LLRCORE_THREADS`` or the number of CPUs.

    Yields
    ------
    None
        The limit holds until the block ends (it is reset then, also on an exception).

    Raises
    ------
    ValueError
        With a sentence when `threads` is not a whole number of at least 1.

    Examples
    --------
    >>> import llrcore as lc
    >>> with lc.thread_limit(1):
    ...     lc.thread_count()
    1
    """
    token = _context_limit.set(None if threads is None else _checked(threads, "The number of threads"))
    try:
        yield
    finally:
        _context_limit.reset(token)


def _mark_worker() -> None:
    _in_worker.active = True


_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    """One pool per size, made on first use and kept (its threads wait idle between calls); the lock keeps two
    sessions of the app that start at the same moment from each making one."""
    with _pools_lock:
        if workers not in _pools:
            _pools[workers] = ThreadPoolExecutor(workers, thread_name_prefix="llrcore", initializer=_mark_worker)
        return _pools[workers]


def _forget_pools() -> None:
    """In a forked child: none of the parent's threads exist there, so its pools (and lock) are made afresh."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def workers_for(size: int, threads: int | None = None) -> int:
    """Threads worth using on an array of `size` elements."""
    return max(1, min(thread_count(threads), size // MIN_PARALLEL))


def map_tasks(function: Callable, items: Sequence, threads: int) -> list:
    """``[function(item) for item in items]``, the items handed to `threads` pool threads in the order given."""
    if threads <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    return list(_pool(threads).map(function, items))


# ----- sorting -----------------------------------------------------------------------------------------------------
def _bounds(size: int, parts: int) -> np.ndarray:
    """``parts + 1`` chunk bounds over ``range(size)``, as equal as they can be."""
    return (np.arange(parts + 1) * size) // parts


def _sort_chunk(task) -> None:
    """Copy one chunk (floats with ``-0.0`` read as ``0.0``: ``x + 0.0``) and sort it in place."""
    source, target = task
    if target.dtype.kind == "f":
        np.add(source, 0.0, out=target)
    else:
        target[...] = source
    target.sort()


def _sorted_dtype(values: np.ndarray) -> np.dtype:
    """The dtype :func:`sort_classes` sorts `values` in: integers as they are, anything else as float64."""
    return values.dtype if values.dtype.kind in "iu" else np.dtype(np.float64)


def sort(values: np.ndarray, threads: int | None = None) -> np.ndarray:
    """``np.sort`` of a 1-d float64 (or integer) array on several threads; ``-0.0`` is read as ``0.0``.

    The result equals ``np.sort(values + 0.0)`` (integers: ``np.sort(values)``) bit for bit whatever the number of
    threads.
    """
    return sort_classes([values], threads)[0][0]


def sort_classes(classes: Sequence[np.ndarray], threads: int | None = None, *, ranges: Callable | None = None,
                 chunked: bool | None = None):
    """Sort several 1-d float64 arrays together on `threads` threads, then hand each value range to `ranges`.

    Each array is cut into chunks sorted on the pool; the value axis is then cut into as many ranges as there are
    threads, at values taken from the sorted chunks, so that every range holds about as many scores and all the
    copies of a value lie in one range. Each range gathers its piece of every chunk into the sorted output and merges
    them (``kind="stable"``: numpy's timsort finds the sorted runs and merges them in linear time). Where numpy's sort
    is vectorised (AVX-512) one thread sorting a whole array beats chunks sorted on two threads and merged by timsort,
    which is not: then each array is sorted whole, the arrays side by side on the pool, and only the ranges' work is
    shared out. Which is faster here is measured once per process (:func:`chunks_pay`); the numbers are the same.

    Parameters
    ----------
    classes : sequence of ndarray
        1-d float64 arrays (e.g. target and non-target scores), or 1-d integer arrays (sorted as they are; whether
        chunks pay is the floats' answer: numpy vectorises the sorts of both, or of neither).
    threads : int, optional
        See :func:`thread_count`.
    ranges : callable, optional
        Called as ``ranges(pieces, starts)`` on each value range, on the thread that merged it: its sorted piece of
        each array and where that piece starts in the sorted array. Its results are returned in order of value.
    chunked : bool, optional
        Sort chunks of each array on the threads and merge them (True) or sort each array whole (False); by default
        the faster here (:func:`chunks_pay`, measured on the first sort of at least :data:`SORT_PROBE` values;
        chunks before it).

    Returns
    -------
    (sorted, pieces)
        The sorted arrays (``-0.0`` read as ``0.0``) and the list of what `ranges` returned per value range (empty
        without `ranges`).
    """
    total = sum(int(values.size) for values in classes)
    parts = workers_for(total, threads)
    output = [np.empty(values.size, _sorted_dtype(values)) for values in classes]
    if parts == 1:
        for values, target in zip(classes, output):
            _sort_chunk((values, target))
        return output, ([] if ranges is None else [ranges(output, [0] * len(output))])
    if chunked is None:  # below the probe's size either way takes little time: no need to measure
        chunked = chunks_pay(parts) if total >= SORT_PROBE or chunks_pay.cache_info().currsize else True
    runs = [np.empty(values.size, _sorted_dtype(values)) for values in classes]
    chunks = [_bounds(values.size, max(1, min(parts, values.size // MIN_PARALLEL)) if chunked else 1)
              for values in classes]
    tasks = [(values[a:b], run[a:b]) for values, run, bounds in zip(classes, runs, chunks)
             for a, b in zip(bounds[:-1], bounds[1:])]
    tasks.sort(key=lambda task: -task[0].size)  # longest first: the pool ends together
    map_tasks(_sort_chunk, tasks, parts)
    cuts = _range_cuts(runs, chunks, parts)
    starts = [np.concatenate([[0], np.cumsum((cut[:, 1:] - cut[:, :-1]).sum(axis=0))]) for cut in cuts]

    def merge_range(j: int):
        pieces = []
        for run, bounds, cut, start, target in zip(runs, chunks, cuts, starts, output):
            piece = target[start[j]:start[j + 1]]
            at = 0
            for c in range(len(bounds) - 1):
                chunk = run[bounds[c]:bounds[c + 1]][cut[c, j]:cut[c, j + 1]]
                piece[at:at + chunk.size] = chunk
                at += chunk.size
            if len(bounds) > 2:
                piece.sort(kind="stable")
            pieces.append(piece)
        return None if ranges is None else ranges(pieces, [int(start[j]) for start in starts])

    results = map_tasks(merge_range, range(parts), parts)
    return output, ([] if ranges is None else results)


#: Values of the probe :func:`chunks_pay` sorts (4 MB: long enough for the threads to pay off). It is measured at a
#: process's first sort at least as long: its four sorts of the probe cost, once, about what a sort of 1.5M values
#: does, which a process's first analysis or file pays.
SORT_PROBE = 1 << 19


@functools.lru_cache(maxsize=None)
def chunks_pay(parts: int) -> bool:
    """Whether :func:`sort_classes` on `parts` threads sorts faster in chunks merged by range than whole arrays.

    Measured once per process and number of threads, best of two each, on :data:`SORT_PROBE` normal values: the
    answer depends on whether numpy's sort is vectorised on this CPU (the chunks' merge is not), which is known by
    trying, never by the CPU's name. Either way the sorted arrays are the same, bit for bit.
    """
    probe = np.random.default_rng(0).standard_normal(SORT_PROBE)

    def best(chunked: bool) -> float:
        times = []
        for _ in range(2):
            start = time.perf_counter()
            sort_classes([probe], parts, chunked=chunked)
            times.append(time.perf_counter() - start)
        return min(times)

    return best(True) < best(False)


def _range_cuts(runs, chunks, parts: int) -> list[np.ndarray]:
    """For each array, ``cut[c, j]``: where value range ``j`` begins in its sorted chunk ``c`` (``parts + 1``
    columns, the first 0 and the last the chunk's length). Ranges are cut at values (``side="left"``), so all the
    copies of a value fall in one range, in every array."""
    samples = []
    for run, bounds in zip(runs, chunks):
        for a, b in zip(bounds[:-1], bounds[1:]):
            if b == a:
                continue
            # samples in proportion to the chunk's length, so that ranges balance scores, not chunks
            count = max(1, (b - a) * _SAMPLES_PER_RANGE * parts // max(1, sum(r.size for r in runs)))
            samples.append(run[a:b][((np.arange(count) + 0.5) * (b - a) / count).astype(np.int64)])
    pooled = np.sort(np.concatenate(samples))
    splitters = pooled[(np.arange(1, parts) * pooled.size) // parts]
    cuts = []
    for run, bounds in zip(runs, chunks):
        cut = np.empty((len(bounds) - 1, parts + 1), dtype=np.int64)
        for c, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            cut[c, 0], cut[c, -1] = 0, b - a
            cut[c, 1:-1] = np.searchsorted(run[a:b], splitters, side="left")
        cuts.append(cut)
    return cuts


# ----- passes over long arrays ---------------------------------------------------------------------------------------
def chunk_bounds(size: int) -> np.ndarray:
    """Bounds of the chunks of :data:`CHUNK` elements over ``range(size)``: the same whatever the number of threads."""
    return np.append(np.arange(0, size, CHUNK), size) if size else np.array([0, 0])


def over_chunks(function: Callable, size: int, threads: int | None = None) -> list:
    """``[function(a, b) for each chunk [a, b)]`` over chunks of :data:`CHUNK` elements of ``range(size)``, on
    `threads` threads. `function` sets its own ``np.errstate`` (that of the caller does not reach pool threads)."""
    bounds = chunk_bounds(size)
    return map_tasks(lambda k: function(int(bounds[k]), int(bounds[k + 1])), range(bounds.size - 1),
                     workers_for(size, threads))


def elementwise(function: Callable, out: np.ndarray, *inputs: np.ndarray, threads: int | None = None) -> np.ndarray:
    """``function(*input_chunks, out=out_chunk)`` over chunks of :data:`CHUNK` elements on `threads` threads; returns
    `out`. `function` must compute each element from the same elements of the inputs (a ufunc-like map)."""
    over_chunks(lambda a, b: function(*(x[a:b] for x in inputs), out=out[a:b]), out.size, threads)
    return out


def cumulative(counts: np.ndarray, out: np.ndarray, finish: Callable | None = None,
               threads: int | None = None) -> np.ndarray:
    """``out = finish([0, c0, c0 + c1, ...])`` of integer counts (`out` one longer than `counts`; `finish`, an
    element-wise map as in :func:`elementwise`, by default a copy), chunk by chunk on `threads` threads: each chunk's
    running sum plus the counts before it (integers: the same as one ``np.cumsum``), finished while it is at hand."""
    finish = finish or (lambda below, out: np.copyto(out, below))
    offsets = np.cumsum([0, *over_chunks(lambda a, b: int(counts[a:b].sum(dtype=np.int64)), counts.size, threads)])
    finish(np.zeros(1, dtype=np.int64), out=out[:1])

    def running(a: int, b: int) -> None:
        below = np.cumsum(counts[a:b], dtype=np.int64)
        below += offsets[a // CHUNK]
        finish(below, out=out[a + 1:b + 1])

    over_chunks(running, counts.size, threads)
    return out


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``sum(a * b)`` by numpy's own loop, never BLAS: a BLAS dot product of more than about 100,000 values is split
    over BLAS's threads (its value then depends on their number), and those threads, woken, spin on the cores that
    the pool's threads need."""
    return np.einsum("i,i->", a, b)


# ----- whole tasks -------------------------------------------------------------------------------------------------
def ordered_map(function: Callable, arguments: Iterable, threads: int | None = None, *,
                window: int | None = None) -> Iterator:
    """``function(a)`` for each `a` of `arguments`, yielded in order, computed on `threads` pool threads.

    `arguments` is consumed in the calling thread, one at a time and in order (so random draws made there follow
    their serial order), at most ``window + 1`` ahead of the results (`window` defaults to the number of threads;
    the one more keeps every thread busy while the oldest result is taken): that bounds the memory the arguments
    and results in flight hold.
    """
    threads = thread_count(threads)
    if threads <= 1:
        yield from map(function, arguments)
        return
    window = max(1, threads if window is None else window)
    pending: deque[Future] = deque()
    pool = _pool(threads)
    try:
        for argument in arguments:
            pending.append(pool.submit(function, argument))
            while len(pending) >= window + 1 or (pending and pending[0].done()):
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


def run_dependent(function: Callable, tasks: Sequence, depends_on: Sequence[Sequence[int]],
                  threads: int | None = None, *, on_done: Callable[[int], object] | None = None) -> list:
    """``results[i] = function(tasks[i], *(results[j] for j in depends_on[i]))``, each task on a pool thread as soon
    as the tasks it depends on are done (each must come before it). The results are those of running the tasks one
    after the other, in order; `on_done(i)` is called in the calling thread as task ``i`` ends.

    Raises
    ------
    ValueError
        When a task depends on itself or on a later one.
    """
    parents = [tuple(dict.fromkeys(d)) for d in depends_on]
    if any(not 0 <= j < i for i, d in enumerate(parents) for j in d):
        raise ValueError("A task can depend only on tasks before it.")
    threads = thread_count(threads)
    results: list = [None] * len(tasks)
    if threads <= 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            results[i] = function(task, *(results[j] for j in parents[i]))
            if on_done is not None:
                on_done(i)
        return results
    children: dict[int, list[int]] = {}
    for i, d in enumerate(parents):
        for j in d:
            children.setdefault(j, []).append(i)
    missing = [len(d) for d in parents]
    lock, failed = threading.Lock(), threading.Event()
    finished: queue.SimpleQueue[tuple[int, BaseException | None]] = queue.SimpleQueue()
    pool = _pool(threads)

    def run(i: int) -> None:
        if failed.is_set():  # the caller has given up (a task failed, or on_done raised): skip what is queued
            return
        try:
            results[i] = function(tasks[i], *(results[j] for j in parents[i]))
        except BaseException as error:  # noqa: BLE001 (handed to the calling thread, which raises it)
            failed.set()
            finished.put((i, error))
            return
        with lock:
            ready = []
            for child in children.get(i, []):
                missing[child] -= 1
                if missing[child] == 0:
                    ready.append(child)
        for child in ready:
            if not failed.is_set():
                pool.submit(run, child)
        finished.put((i, None))

    for i, d in enumerate(parents):
        if not d:
            pool.submit(run, i)
    try:
        for _ in tasks:
            i, error = finished.get()
            if error is not None:
                raise error
            if on_done is not None:
                on_done(i)
    except BaseException:
        # on_done raising (a Streamlit rerun stops the script inside the progress bar) or an interrupt: the tasks
        # not yet started must not go on running on the shared pool, ahead of the next caller's
        failed.set()
        raise
    return results
