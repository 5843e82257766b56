"""The suite's own speed: under pytest-xdist each worker starts on slow modules and ends on quick tests.

``--dist worksteal`` hands worker i the i-th contiguous slice of the collection (equal counts) and lets an idle worker
steal the end of the other's queue: a slow test collected last ran alone while the other worker idled.
``tests/conftest.py`` (``order_for_workers``) reorders the collection so that every slice begins with the slow modules
(browser tests, Monte-Carlo coverage) and ends with quick ones.

Independent reference: the slices are cut here the way pytest-xdist 3.x's ``WorkStealingScheduling.check_schedule``
cuts them (``len(pending) // nodes_remaining`` to each idle node in turn), and checked against the module list written
out by hand.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

from paths import TESTS

CONFTEST = TESTS / "conftest.py"


def conftest():
    spec = importlib.util.spec_from_file_location("suite_conftest", CONFTEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def order_for_workers():
    return conftest().order_for_workers


def fake_items():
    """(module, number of tests): two browser modules, a listed slow module, and quick ones around them."""
    modules = [("e2e/test_browser.py", 4), ("e2e/test_diarization_page.py", 5), ("test_aaa.py", 300),
               ("uncertainty/test_uncertainty.py", 12), ("test_mmm.py", 250), ("test_zzz.py", 200)]
    return [SimpleNamespace(path=Path("/repo/tests") / name, name=f"{name}::{i}") for name, n in modules
            for i in range(n)]


def xdist_slices(items, workers):
    """The contiguous slices worksteal hands the idle workers at the start."""
    slices, pending = [], list(items)
    for i in range(workers):
        count = len(pending) // (workers - i)
        slices.append(pending[:count])
        pending = pending[count:]
    return slices


def is_slow(item):
    return item.path.name in ("test_browser.py", "test_diarization_page.py", "test_uncertainty.py")


def test_each_worker_starts_on_slow_modules_and_ends_on_quick_tests():
    items = fake_items()
    ordered = order_for_workers()(items, 2)
    assert sorted(i.name for i in ordered) == sorted(i.name for i in items)  # every test, once
    slices = xdist_slices(ordered, 2)
    slow_names = [{i.path.name for i in part if is_slow(i)} for part in slices]
    # the 90 s diarization page alone on one side, the browser page and the coverage module on the other
    assert slow_names == [{"test_diarization_page.py"}, {"test_browser.py", "test_uncertainty.py"}]
    for part in slices:
        flags = [is_slow(i) for i in part]
        assert flags == sorted(flags, reverse=True)  # slow first, then quick only
        assert not flags[-1]
    for name in ("test_browser.py", "test_diarization_page.py", "test_uncertainty.py"):  # modules in one piece,
        positions = [k for k, i in enumerate(ordered) if i.path.name == name]  # in their own order
        assert positions == list(range(positions[0], positions[0] + len(positions)))
        assert [ordered[k].name for k in positions] == [i.name for i in items if i.path.name == name]
    quick = [i.name for i in ordered if not is_slow(i)]
    assert quick == [i.name for i in items if not is_slow(i)]  # the quick tests keep the collection's order


def test_one_process_keeps_the_collection_order():
    items = fake_items()
    assert order_for_workers()(items, 1) == items


def test_every_slow_module_named_in_the_conftest_exists():
    """A module moved or renamed without its SLOW_MODULES key would silently lose its place at the front."""
    assert [name for name in conftest().SLOW_MODULES if not (TESTS / name).is_file()] == []
