"""Memory: how much llrcore may count on, and which pages numpy's big, short-lived arrays take.

:func:`available_memory` is what the readers and the bootstrap weigh a file or a table against before they make it
(a file too big is refused in a sentence, not read into swap); :func:`small_pages` keeps the arrays a reading makes
once and lets go of soon on the system's ordinary pages.
"""
from __future__ import annotations

import contextlib
import os
import threading

import numpy as np

__all__ = ["MEMORY_VARIABLE", "available_memory", "small_pages"]

#: The memory llrcore may count on (``"8GB"``, ``"500MB"``, bytes): a server's cap below what the machine has free.
MEMORY_VARIABLE = "LLRCORE_MEMORY_LIMIT"
_UNITS = {"": 1, "B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40}


def available_memory() -> int:
    """Bytes llrcore may take without swapping: Linux's ``MemAvailable`` (free memory plus the page cache it can drop;
    ``SC_AVPHYS_PAGES`` counts only the never-used pages, a small part of it on a machine that has read many files),
    else ``SC_AVPHYS_PAGES``, else 8 GiB; at most :data:`MEMORY_VARIABLE` when it is set (a server shared by users)."""
    free = _system_free_memory()
    limit = os.environ.get(MEMORY_VARIABLE, "").strip().upper().replace(" ", "").replace("IB", "B")
    if not limit:
        return free
    number = limit.rstrip("KMGTB")
    unit = limit[len(number):]
    try:
        return min(free, int(float(number) * _UNITS[unit]))
    except (ValueError, KeyError):
        raise ValueError(f"{MEMORY_VARIABLE} is a size such as 8GB or 500MB, not {os.environ[MEMORY_VARIABLE]!r}.") \
            from None


def _system_free_memory() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 8 * 2**30


_pages_lock = threading.Lock()
_pages_holders = [0, True]  # blocks inside small_pages(), numpy's setting before the first of them


@contextlib.contextmanager
def small_pages():
    """Within this block, numpy's new arrays of 4 MiB and more take the system's ordinary (4 KiB) pages.

    numpy asks Linux to back them with 2 MiB pages (``madvise(MADV_HUGEPAGE)``). Where an array is made once, filled
    once and let go of soon (a file's numbers, a sort's buffers), that buys nothing and costs the page faults: on a
    virtual machine whose host backs memory as first touched, a fresh 2 MiB page is taken from memory no one used
    yet, 4 KiB pages from the pages the guest freed a moment ago (reading three 5M-line score files and sorting their
    scores: about 1 s less system time on 2 CPUs, bench/bench_io.py). numpy has one switch for its process: blocks
    are counted (threads of a server may overlap) and the last one to end puts the setting back.
    """
    switch = getattr(getattr(np, "_core", None), "multiarray", None)
    switch = getattr(switch, "_set_madvise_hugepage", None)
    if switch is None:  # another numpy: nothing to switch
        yield
        return
    with _pages_lock:
        if _pages_holders[0] == 0:
            _pages_holders[1] = switch(False)
        _pages_holders[0] += 1
    try:
        yield
    finally:
        with _pages_lock:
            _pages_holders[0] -= 1
            if _pages_holders[0] == 0:
                switch(_pages_holders[1])
